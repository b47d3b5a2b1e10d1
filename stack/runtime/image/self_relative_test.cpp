// Tests of SelfRelativePtr, the offset API (RUNTIME.md §3) and the LayoutPlanner (§4).
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include <gtest/gtest.h>

#include "stack/runtime/image/layout.h"
#include "stack/runtime/image/self_relative.h"

namespace stackcheck::runtime {
namespace {

constexpr int64_t kMax = std::numeric_limits<int32_t>::max();
constexpr int64_t kMin = std::numeric_limits<int32_t>::min();

// A pointer `delta` bytes from `self`, never dereferenced (only its value is used).
const int* at_distance(const void* self, int64_t delta) {
  return reinterpret_cast<const int*>(reinterpret_cast<uintptr_t>(self) + static_cast<uintptr_t>(delta));
}

TEST(SelfRelativePtr, srp_zero_unbound) {
  alignas(8) unsigned char buf[16];
  std::memset(buf, 0, sizeof buf);
  auto* p = new (buf) SelfRelativePtr<int>();
  EXPECT_FALSE(p->bound());
  EXPECT_EQ(p->get(), nullptr);
  // Zeroed memory is unbound without running a constructor: the raw bytes say so.
  std::memset(buf, 0xAA, sizeof buf);
  std::memset(buf, 0, 4);
  EXPECT_EQ(reinterpret_cast<SelfRelativePtr<int>*>(buf)->get(), nullptr);
  EXPECT_FALSE(delta_for(40, 40).has_value());  // pointing at itself cannot be encoded
  EXPECT_FALSE(resolve(DevAddr(0x1000), 0).has_value());
}

TEST(SelfRelativePtr, srp_null_unbinds) {
  struct {
    SelfRelativePtr<int> p;
    int target = 5;
  } s;
  ASSERT_TRUE(s.p.set(&s.target));
  EXPECT_EQ(s.p.get(), &s.target);
  EXPECT_EQ(*s.p.get(), 5);
  EXPECT_TRUE(s.p.set(nullptr));
  EXPECT_FALSE(s.p.bound());
  EXPECT_EQ(s.p.get(), nullptr);
}

TEST(SelfRelativePtr, srp_reach_max_bound) {
  SelfRelativePtr<int> p;
  EXPECT_TRUE(p.set(at_distance(&p, kMax)));
  EXPECT_EQ(p.delta(), kMax);
  EXPECT_EQ(p.get(), at_distance(&p, kMax));
  EXPECT_EQ(delta_for(100, 100 + kMax), std::optional<int32_t>(kMax));
  EXPECT_EQ(resolve(DevAddr(1000), static_cast<int32_t>(kMax)), std::optional<DevAddr>(DevAddr(1000 + kMax)));
}

TEST(SelfRelativePtr, srp_reach_2pow31_unbound) {
  SelfRelativePtr<int> p;
  ASSERT_TRUE(p.set(at_distance(&p, 64)));  // bound first: a failing set must unbind
  EXPECT_FALSE(p.set(at_distance(&p, kMax + 1)));
  EXPECT_FALSE(p.bound());
  EXPECT_EQ(p.get(), nullptr);
  EXPECT_FALSE(delta_for(100, 100 + kMax + 1).has_value());
  EXPECT_FALSE(delta_for(0, 1ull << 32).has_value());        // would truncate to 0
  EXPECT_FALSE(delta_for(0, (1ull << 32) + 8).has_value());  // would truncate to 8
  std::vector<std::byte> b(16, std::byte{0xAA});
  EXPECT_FALSE(set_at(b.data(), 4, 4 + (1ull << 31)));
  int32_t v;
  std::memcpy(&v, b.data() + 4, 4);
  EXPECT_EQ(v, 0);  // left unbound, not truncated
}

TEST(SelfRelativePtr, srp_reach_min_bound) {
  SelfRelativePtr<int> p;
  EXPECT_TRUE(p.set(at_distance(&p, kMin)));
  EXPECT_EQ(p.delta(), kMin);
  EXPECT_EQ(p.get(), at_distance(&p, kMin));
  EXPECT_EQ(delta_for(1ull << 32, (1ull << 32) + kMin), std::optional<int32_t>(kMin));
  EXPECT_EQ(resolve_offset(1ull << 31, static_cast<int32_t>(kMin)), std::optional<uint64_t>(0));
}

TEST(SelfRelativePtr, srp_reach_below_min_unbound) {
  SelfRelativePtr<int> p;
  EXPECT_FALSE(p.set(at_distance(&p, kMin - 1)));
  EXPECT_FALSE(p.bound());
  EXPECT_FALSE(delta_for(1ull << 32, (1ull << 32) + kMin - 1).has_value());
  EXPECT_FALSE(delta_for(1ull << 40, 0).has_value());
  EXPECT_FALSE(resolve_offset(10, -11).has_value());  // below offset 0
}

TEST(SelfRelativePtr, srp_copy_deleted) {
  static_assert(!std::is_copy_constructible_v<SelfRelativePtr<int>>);
  static_assert(!std::is_copy_assignable_v<SelfRelativePtr<int>>);
  static_assert(!std::is_move_constructible_v<SelfRelativePtr<int>>);
  static_assert(!std::is_move_assignable_v<SelfRelativePtr<int>>);
  static_assert(std::is_default_constructible_v<SelfRelativePtr<int>>);
  SUCCEED();
}

TEST(SelfRelativePtr, srp_memcpy_rebase) {
  // [ptr @0 ... target @200]: memcpy the whole buffer to other bases; it resolves there.
  alignas(64) unsigned char a[256];
  std::memset(a, 0xAA, sizeof a);
  auto* p = new (a) SelfRelativePtr<int>();
  int v = 42;
  std::memcpy(a + 200, &v, 4);
  ASSERT_TRUE(p->set(reinterpret_cast<int*>(a + 200)));
  std::vector<unsigned char> b(1024, 0xAA);
  for (size_t base : {size_t{0}, size_t{8}, size_t{516}}) {
    std::memcpy(b.data() + base, a, sizeof a);
    auto* q = reinterpret_cast<SelfRelativePtr<int>*>(b.data() + base);
    EXPECT_EQ(reinterpret_cast<unsigned char*>(q->get()), b.data() + base + 200);
    int got;
    std::memcpy(&got, q->get(), 4);
    EXPECT_EQ(got, 42);
  }
  // The same delta resolves on the device at any reservation.
  EXPECT_EQ(*resolve(DevAddr(0x1000'0000'0000), p->delta()), DevAddr(0x1000'0000'0000 + 200));
}

// ---- LayoutPlanner ----

void expect_well_formed(const SegmentLayout& l) {
  uint64_t end = sizeof(ImageHeader);
  for (uint32_t s = 0; s < kSegCount; ++s) {
    EXPECT_EQ(l.off[s] % 64, 0u);
    EXPECT_GE(l.off[s], end);
    EXPECT_LT(l.off[s] - end, 64u);
    end = l.seg_end(static_cast<Segment>(s));
  }
  EXPECT_EQ(l.total_bytes, end);
}

TEST(Planner, plan_mirror_formula) {
  for (uint64_t W = 64; W <= (1ull << 19); W *= 2) {
    MirrorLayout m = LayoutPlanner::mirror(W);
    EXPECT_EQ(m.seg.total_bytes, 128 + 2785 * W) << W;
    EXPECT_EQ(m.seg.counts, (PoolCounts{32 * W, 16 * W, 128 * W}));
    EXPECT_EQ(m.payload_stride, sizeof(TaskPayload));
    expect_well_formed(m.seg);
  }
  EXPECT_EQ(LayoutPlanner::mirror(16384).seg.total_bytes, 45'629'568u);
  // Below 64 the flag segment needs padding: the formula is a lower bound there.
  for (uint64_t W : {4, 8, 16, 32}) {
    MirrorLayout m = LayoutPlanner::mirror(W);
    EXPECT_GT(m.seg.total_bytes, 128 + 2785 * W);
    expect_well_formed(m.seg);
  }
}

TEST(Planner, plan_max_W_2pow19) {
  EXPECT_TRUE(LayoutPlanner::mirror_fits_int32(1ull << 19));
  EXPECT_LE(LayoutPlanner::mirror(1ull << 19).seg.total_bytes, static_cast<uint64_t>(kMax));
  EXPECT_FALSE(LayoutPlanner::mirror_fits_int32(1ull << 20));  // positive control
  EXPECT_EQ(LayoutPlanner::kMaxConfigW, 1ull << 19);
  EXPECT_TRUE(LayoutPlanner::valid_W(4));
  EXPECT_FALSE(LayoutPlanner::valid_W(2));
  EXPECT_FALSE(LayoutPlanner::valid_W(48));
  EXPECT_TRUE(LayoutPlanner::valid_W(1ull << 30));
  EXPECT_FALSE(LayoutPlanner::valid_W(1ull << 31));
}

TEST(Planner, plan_beyond_2gib) {
  MirrorLayout m = LayoutPlanner::mirror(1ull << 30);
  EXPECT_EQ(m.seg.total_bytes, 128 + 2785 * (1ull << 30));
  EXPECT_GT(m.seg.total_bytes, 1ull << 31);
  expect_well_formed(m.seg);
  SegmentLayout big = LayoutPlanner::image(1ull << 26, PoolCounts{1ull << 30, 1ull << 30, 1ull << 32});
  EXPECT_GT(big.total_bytes, 1ull << 36);
  expect_well_formed(big);
  EXPECT_EQ(big.fanin_at(1ull << 32), big.total_bytes);
}

TEST(Planner, plan_padding_zero) {
  // Padding exists between segments whose sizes are not 64-multiples: it is what compaction
  // zeroes and attach checks (see compact_test for the bytes themselves).
  SegmentLayout l = LayoutPlanner::image(3, PoolCounts{1, 3, 5});
  expect_well_formed(l);
  EXPECT_EQ(l.pitch, 3u);
  EXPECT_EQ(l.off[kSegDesc], 128u);
  EXPECT_EQ(l.off[kSegPayload], 128u + 128u);              // 96 B of descriptors + 32 B padding
  EXPECT_EQ(l.seg_end(kSegFlag) + 61, l.off[kSegTensor]);  // 3 flag bytes + 61 padding
  EXPECT_EQ(l.next_start(kSegFanin), l.total_bytes);
  EXPECT_EQ(l.total_bytes, l.off[kSegFanin] + 20);  // the image ends at the fanin end
  SegmentLayout z = LayoutPlanner::image(0, PoolCounts{});
  EXPECT_EQ(z.pitch, 1u);
  EXPECT_EQ(z.total_bytes, z.off[kSegFanin]);
}

}  // namespace
}  // namespace stackcheck::runtime
