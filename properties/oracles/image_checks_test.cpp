// Positive controls of the image checks (image_checks.h): a real image passes, at any base;
// a slot delta to another record, a pool delta off its element grid or past its count, a
// bound delta with a zero count and a layout the planner would not make each fail.
#include "properties/oracles/image_checks.h"
#include "properties/oracles/spare_mirrors.h"

#include <gtest/gtest.h>

#include <cstring>

#include "stack/runtime/image/layout.h"
#include "stack/runtime/image/records.h"
#include "stack/runtime/plan/parser.h"

namespace stackcheck::oracles {
namespace {

using namespace runtime;

std::vector<std::byte> image_of(const char* text) {
  PlanParseResult p = parse_plan(text);
  EXPECT_TRUE(p.ok());
  auto b = Bench::create(p.program(), 0xAA, true);
  EXPECT_NE(b, nullptr);
  const Captured c = b->bind(p.program());
  EXPECT_EQ(c.result.status, 0) << c.result.detail;
  const auto img = c.image();
  return std::vector<std::byte>(img.begin(), img.end());
}

const char* kPlan =
    "config W=64\ntensor x: In [16]\ntensor c: InOut [16]\n"
    "submit scale(input x[0:8], output_existing c[0:8], scalar 3)\n"
    "submit add(input x[4:8], input c[0:8], output o: [8])\n"
    "submit acc(input o, inout c[8:8])\n";

template <class T>
void patch(std::vector<std::byte>& img, uint64_t off, T v) {
  std::memcpy(img.data() + off, &v, sizeof v);
}

SegmentLayout layout_of(const std::vector<std::byte>& img) {
  ImageHeader h;
  std::memcpy(&h, img.data(), sizeof h);
  return LayoutPlanner::plan(h.pitch, PoolCounts{h.tensor_count, h.scalar_count, h.fanin_count});
}

// The reset oracle's mirror comparison reads unfilled blocks as the fill byte, as materialize()
// would leave them, and finds a byte either buffer holds differently (its positive control).
TEST(ImageChecks, mirrors_compare_as_materialized_without_filling) {
  constexpr uint64_t kSize = 5 * MirrorBuffer::kBlockBytes + 100;
  MirrorBuffer a, b;
  a.reset(kSize, 0xAA);
  b.reset(kSize, 0xAA);
  EXPECT_FALSE(first_mirror_difference(a, b));
  a.ensure(MirrorBuffer::kBlockBytes, 8);  // filled with 0xAA: reads as b's unfilled block does
  EXPECT_FALSE(first_mirror_difference(a, b));
  a.data()[MirrorBuffer::kBlockBytes + 5] = std::byte{0x11};
  auto d = first_mirror_difference(a, b);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->at, MirrorBuffer::kBlockBytes + 5);
  EXPECT_EQ(d->a, 0x11);
  EXPECT_EQ(d->b, 0xAA);
  b.ensure(kSize - 1, 1);  // the short last block, filled in b only
  b.data()[kSize - 1] = std::byte{0x22};
  a.data()[MirrorBuffer::kBlockBytes + 5] = std::byte{0xAA};
  d = first_mirror_difference(a, b);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->at, kSize - 1);
  EXPECT_EQ(d->b, 0x22);
  MirrorBuffer z;
  z.reset(kSize, 0x00);  // another fill byte: every unfilled byte differs
  d = first_mirror_difference(z, b);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->at, 0u);
  EXPECT_EQ(d->a, 0x00);
  EXPECT_EQ(d->b, 0xAA);
  EXPECT_EQ(a.filled_blocks(), 1u);  // comparing filled nothing
  EXPECT_EQ(b.filled_blocks(), 1u);
}

// The thread's spare mirrors: the two largest kept, the largest handed out first.
TEST(ImageChecks, spare_mirrors_keep_the_two_largest) {
  while (take_spare_mirror().capacity() > 0) {
  }  // whatever earlier tests on this thread left
  for (uint64_t kib : {8, 32, 16}) {
    MirrorBuffer b;
    b.reset(kib << 10, 0xAA);
    keep_spare_mirror(std::move(b));
  }
  keep_spare_mirror(MirrorBuffer{});  // no allocation: nothing kept
  EXPECT_EQ(take_spare_mirror().capacity(), 32u << 10);
  EXPECT_EQ(take_spare_mirror().capacity(), 16u << 10);
  EXPECT_EQ(take_spare_mirror().capacity(), 0u);
}

TEST(ImageChecks, a_real_image_passes_at_any_base) {
  const std::vector<std::byte> img = image_of(kPlan);
  EXPECT_TRUE(check_image_deltas(img).passed()) << check_image_deltas(img).to_string();
  for (uint64_t off : {uint64_t{0}, uint64_t{64}, (uint64_t{1} << 31) - 100, (uint64_t{1} << 32) - img.size() - 64}) {
    const Verdict v = check_position_independent(img, off);
    EXPECT_TRUE(v.passed()) << v.to_string();
  }
}

TEST(ImageChecks, a_slot_delta_to_another_record_fails) {
  std::vector<std::byte> img = image_of(kPlan);
  const SegmentLayout L = layout_of(img);
  int32_t d;
  std::memcpy(&d, img.data() + L.slot_at(1) + kSlotDescField, 4);
  patch<int32_t>(img, L.slot_at(1) + kSlotDescField, d + static_cast<int32_t>(sizeof(TaskDescriptor)));
  const Verdict v = check_image_deltas(img);
  ASSERT_TRUE(v.failed());
  EXPECT_NE(v.message.find("slot 1: desc delta"), std::string::npos) << v.message;
  EXPECT_TRUE(check_position_independent(img, 4096).failed());
}

TEST(ImageChecks, pool_deltas_off_grid_past_count_or_without_count_fail) {
  const std::vector<std::byte> good = image_of(kPlan);
  const SegmentLayout L = layout_of(good);
  const uint64_t field = L.payload_at(1) + kPayloadTensorsField;
  int32_t d;
  std::memcpy(&d, good.data() + field, 4);
  std::vector<std::byte> off_grid = good;
  patch<int32_t>(off_grid, field, d + 8);
  EXPECT_TRUE(check_image_deltas(off_grid).failed());
  std::vector<std::byte> past = good;
  patch<int32_t>(past, field, d + 64 * 64);
  EXPECT_TRUE(check_image_deltas(past).failed());
  std::vector<std::byte> no_count = good;
  patch<uint16_t>(no_count, L.payload_at(1), 0);  // n_tensors = 0 with the delta still bound
  const Verdict v = check_image_deltas(no_count);
  ASSERT_TRUE(v.failed());
  EXPECT_NE(v.message.find("bound <=> count > 0"), std::string::npos) << v.message;
}

TEST(ImageChecks, a_layout_the_planner_would_not_make_fails) {
  std::vector<std::byte> img = image_of(kPlan);
  patch<uint64_t>(img, offsetof(ImageHeader, seg_off) + 8, layout_of(img).off[kSegPayload] + 64);
  EXPECT_TRUE(check_image_deltas(img).failed());
  std::vector<std::byte> shorter = image_of(kPlan);
  shorter.resize(shorter.size() - 4);
  EXPECT_TRUE(check_image_deltas(shorter).failed());
}

}  // namespace
}  // namespace stackcheck::oracles
