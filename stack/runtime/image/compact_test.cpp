// Tests of compact_live_image (RUNTIME.md §10, §15.2-3, §15.6). Mirrors are built by hand
// (test_support.h) over 0xAA poison; outputs are poisoned too.
#include <algorithm>

#include <gtest/gtest.h>

#include "stack/runtime/image/compact.h"
#include "stack/runtime/image/test_support.h"

namespace stackcheck::runtime {
namespace {

using testing::read_at;
using testing::TaskSpec;
using testing::TestMirror;

std::vector<std::byte> poisoned(uint64_t n) { return std::vector<std::byte>(n, std::byte{0xAA}); }

// Three tasks: a kernel with tensors+scalars, an ALLOC, a kernel with fanin; one GRAPH.
void fill_example(TestMirror& m) {
  m.add(TaskSpec{kKindKernel, 2, 3, 5, {}});
  m.add(TaskSpec{kKindAlloc, kAllocKernelId, 2, 0, {}});
  m.add(TaskSpec{kKindKernel, 5, 3, 9, {0, 1}});
  m.add(TaskSpec{kKindGraph, kGraphKernelId, 0, 0, {2}, 4, DevAddr(0x1000'0001'0000ull)});
}

std::vector<std::byte> compact_ok(const TestMirror& m) {
  SegmentLayout plan = LayoutPlanner::image(m.n, m.cursors);
  auto out = poisoned(plan.total_bytes);
  auto r = compact_live_image(m.bytes, m.layout, m.cursors, m.n, out);
  EXPECT_TRUE(r.has_value()) << (r ? "" : r.error().message);
  if (r) {
    EXPECT_EQ(*r, plan.total_bytes);
  }
  return out;
}

CompactErrorKind compact_err(std::span<const std::byte> mirror, const MirrorLayout& l, PoolCounts c, uint64_t n,
                             std::span<std::byte> out) {
  auto r = compact_live_image(mirror, l, c, n, out);
  EXPECT_FALSE(r.has_value());
  return r ? CompactErrorKind::kOutSize : r.error().kind;
}

TEST(Compaction, compact_live_prefix) {
  TestMirror m(64);
  fill_example(m);
  auto img = compact_ok(m);
  const SegmentLayout p = LayoutPlanner::image(m.n, m.cursors);
  const SegmentLayout& ml = m.layout.seg;
  auto h = read_at<ImageHeader>(img, 0);
  EXPECT_EQ(std::memcmp(h.magic, kImageMagic, 8), 0);
  EXPECT_EQ(h.version, 1u);
  EXPECT_EQ(h.W, 64u);
  EXPECT_EQ(h.pitch, 4u);
  EXPECT_EQ(h.n, 4u);
  EXPECT_EQ(h.orch_done, 1u);
  EXPECT_EQ(h.image_bytes, p.total_bytes);
  EXPECT_EQ(h.tensor_count, 8u);
  EXPECT_EQ(h.scalar_count, 8u + 16u);  // 5 -> one line, 9 -> two lines
  EXPECT_EQ(h.fanin_count, 3u);
  for (uint32_t s = 0; s < kSegCount; ++s) EXPECT_EQ(h.seg_off[s], p.off[s]);
  // Descriptors, flags and pools are byte copies of the live prefix.
  EXPECT_EQ(std::memcmp(img.data() + p.off[kSegDesc], m.bytes.data() + ml.off[kSegDesc], 4 * 32), 0);
  EXPECT_EQ(std::memcmp(img.data() + p.off[kSegFlag], m.bytes.data() + ml.off[kSegFlag], 4), 0);
  EXPECT_EQ(std::memcmp(img.data() + p.off[kSegTensor], m.bytes.data() + ml.off[kSegTensor], 8 * 64), 0);
  EXPECT_EQ(std::memcmp(img.data() + p.off[kSegScalar], m.bytes.data() + ml.off[kSegScalar], 24 * 8), 0);
  EXPECT_EQ(std::memcmp(img.data() + p.off[kSegFanin], m.bytes.data() + ml.off[kSegFanin], 3 * 4), 0);
  // Payload counts and graph_ctx survive; the poison of the unused mirror never ships.
  auto p3 = read_at<TaskPayload>(img, p.payload_at(3));
  EXPECT_EQ(p3.n_nodes, 4u);
  EXPECT_EQ(p3.graph_ctx, DevAddr(0x1000'0001'0000ull));
  EXPECT_EQ(std::count(img.begin(), img.end(), std::byte{0xAA}), 0);
}

TEST(Compaction, compact_rebinds_deltas) {
  TestMirror m(64);
  fill_example(m);
  auto img = compact_ok(m);
  const SegmentLayout p = LayoutPlanner::image(m.n, m.cursors);
  uint64_t next_t = 0, next_s = 0, next_f = 0;
  for (uint64_t i = 0; i < m.n; ++i) {
    auto s = read_at<SlotState>(img, p.slot_at(i));
    EXPECT_EQ(resolve_offset(p.slot_at(i) + kSlotDescField, s.desc), p.desc_at(i));
    EXPECT_EQ(resolve_offset(p.slot_at(i) + kSlotPayloadField, s.payload), p.payload_at(i));
    auto pl = read_at<TaskPayload>(img, p.payload_at(i));
    if (pl.n_tensors) {
      EXPECT_EQ(resolve_offset(p.payload_at(i) + kPayloadTensorsField, pl.tensors), p.tensor_at(next_t));
      next_t += pl.n_tensors;
    } else {
      EXPECT_EQ(pl.tensors, 0);  // unbound stays unbound
    }
    if (pl.n_scalars) {
      EXPECT_EQ(resolve_offset(p.payload_at(i) + kPayloadScalarsField, pl.scalars), p.scalar_at(next_s));
      next_s += scalar_region_entries(pl.n_scalars);
    } else {
      EXPECT_EQ(pl.scalars, 0);
    }
    if (pl.n_fanin) {
      EXPECT_EQ(resolve_offset(p.payload_at(i) + kPayloadFaninField, pl.fanin), p.fanin_at(next_f));
      next_f += pl.n_fanin;
    } else {
      EXPECT_EQ(pl.fanin, 0);
    }
  }
  // Positive control: the mirror's own deltas are different numbers (different layout).
  auto ms = m.get<SlotState>(m.layout.seg.slot_at(1));
  EXPECT_NE(ms.desc, read_at<SlotState>(img, p.slot_at(1)).desc);
  // Scalar values arrive through the re-bound delta.
  auto pl2 = read_at<TaskPayload>(img, p.payload_at(2));
  uint64_t s0 = *resolve_offset(p.payload_at(2) + kPayloadScalarsField, pl2.scalars);
  EXPECT_EQ(read_at<uint64_t>(img, s0), 2001u);
  EXPECT_EQ(read_at<uint64_t>(img, s0 + 8 * 9), 0u);  // pad entry
}

TEST(Compaction, compact_zero_submit) {
  TestMirror m(64);
  auto img = compact_ok(m);
  const SegmentLayout p = LayoutPlanner::image(0, PoolCounts{});
  ASSERT_EQ(img.size(), p.total_bytes);
  auto h = read_at<ImageHeader>(img, 0);
  EXPECT_EQ(h.n, 0u);
  EXPECT_EQ(h.pitch, 1u);
  EXPECT_TRUE(std::all_of(img.begin() + 128, img.end(), [](std::byte b) { return b == std::byte{0}; }));
}

TEST(Compaction, compact_reused_mirror) {
  // A mirror that ran a bigger program before, then the smaller one, compacts byte-identically
  // to a fresh mirror running only the smaller one.
  TestMirror reused(64);
  fill_example(reused);
  reused.add(TaskSpec{kKindKernel, 1, 32, 16, {0, 1, 2, 3}});
  reused.reset();
  reused.add(TaskSpec{kKindKernel, 3, 1, 1, {}});
  reused.add(TaskSpec{kKindKernel, 4, 2, 0, {0}});
  TestMirror fresh(64, 0x55);
  fresh.add(TaskSpec{kKindKernel, 3, 1, 1, {}});
  fresh.add(TaskSpec{kKindKernel, 4, 2, 0, {0}});
  EXPECT_EQ(compact_ok(reused), compact_ok(fresh));
}

TEST(Compaction, compact_position_independent) {
  TestMirror m(64);
  fill_example(m);
  auto img = compact_ok(m);
  // The mirror at another host base (different alignment) compacts to the same bytes.
  std::vector<std::byte> shifted(m.bytes.size() + 24);
  std::memcpy(shifted.data() + 24, m.bytes.data(), m.bytes.size());
  auto out = poisoned(img.size());
  ASSERT_TRUE(compact_live_image(std::span(shifted).subspan(24), m.layout, m.cursors, m.n, out));
  EXPECT_EQ(out, img);
  // The image resolves the same at any base: deltas are relative, so resolving at base B
  // gives B + the same offset.
  const SegmentLayout p = LayoutPlanner::image(m.n, m.cursors);
  auto s = read_at<SlotState>(img, p.slot_at(2));
  for (uint64_t base : {0x1000'0000'0000ull, 0x1000'0123'4500ull})
    EXPECT_EQ(*resolve(DevAddr(base + p.slot_at(2) + kSlotDescField), s.desc), DevAddr(base + p.desc_at(2)));
}

TEST(Compaction, compact_pre_n_gt_W) {
  MirrorLayout l = LayoutPlanner::mirror(8);
  std::vector<std::byte> tiny(16, std::byte{0xAA});  // any read past it is an ASan error
  auto out = poisoned(64);
  EXPECT_EQ(compact_err(tiny, l, PoolCounts{}, 9, out), CompactErrorKind::kNGreaterThanW);
  EXPECT_EQ(compact_err({}, l, PoolCounts{}, 9, out), CompactErrorKind::kNGreaterThanW);
  // Positive control: n == W passes this check (and then fails on the mirror size).
  EXPECT_EQ(compact_err(tiny, l, PoolCounts{}, 8, out), CompactErrorKind::kMirrorLayout);
}

TEST(Compaction, compact_pre_cursor_gt_cap) {
  MirrorLayout l = LayoutPlanner::mirror(8);
  std::vector<std::byte> tiny(16, std::byte{0xAA});
  auto out = poisoned(64);
  EXPECT_EQ(compact_err(tiny, l, PoolCounts{257, 0, 0}, 1, out), CompactErrorKind::kCursorOverCapacity);
  EXPECT_EQ(compact_err(tiny, l, PoolCounts{0, 129, 0}, 1, out), CompactErrorKind::kCursorOverCapacity);
  EXPECT_EQ(compact_err(tiny, l, PoolCounts{0, 0, 1025}, 1, out), CompactErrorKind::kCursorOverCapacity);
  EXPECT_EQ(compact_err(tiny, l, PoolCounts{256, 128, 1024}, 1, out), CompactErrorKind::kMirrorLayout);
}

TEST(Compaction, compact_pre_payload_stride) {
  MirrorLayout l = LayoutPlanner::mirror(8);
  l.payload_stride = 40;  // would read 8 bytes past every payload
  std::vector<std::byte> tiny(16, std::byte{0xAA});
  auto out = poisoned(64);
  EXPECT_EQ(compact_err(tiny, l, PoolCounts{}, 1, out), CompactErrorKind::kPayloadStride);
  l.payload_stride = 16;
  EXPECT_EQ(compact_err(tiny, l, PoolCounts{}, 1, out), CompactErrorKind::kPayloadStride);
}

TEST(Compaction, compact_pre_out_size_and_layout) {
  TestMirror m(16);
  m.add(TaskSpec{kKindKernel, 2, 1, 0, {}});
  const uint64_t plan = LayoutPlanner::image(m.n, m.cursors).total_bytes;
  auto small = poisoned(plan - 1), large = poisoned(plan + 1);
  EXPECT_EQ(compact_err(m.bytes, m.layout, m.cursors, m.n, small), CompactErrorKind::kOutSize);
  EXPECT_EQ(compact_err(m.bytes, m.layout, m.cursors, m.n, large), CompactErrorKind::kOutSize);
  EXPECT_TRUE(std::all_of(small.begin(), small.end(), [](std::byte b) { return b == std::byte{0xAA}; }));
  MirrorLayout other = m.layout;
  other.seg.off[kSegFanin] += 64;
  auto out = poisoned(plan);
  EXPECT_EQ(compact_err(m.bytes, other, m.cursors, m.n, out), CompactErrorKind::kMirrorLayout);
  EXPECT_EQ(compact_err(std::span(m.bytes).first(m.bytes.size() - 1), m.layout, m.cursors, m.n, out),
            CompactErrorKind::kMirrorLayout);
}

TEST(Compaction, compact_bad_pool_ref) {
  auto with = [](auto mutate) {
    TestMirror m(16);
    m.add(TaskSpec{kKindKernel, 2, 2, 3, {}});
    m.add(TaskSpec{kKindKernel, 2, 1, 9, {0}});
    mutate(m);
    auto out = poisoned(LayoutPlanner::image(m.n, m.cursors).total_bytes);
    auto r = compact_live_image(m.bytes, m.layout, m.cursors, m.n, out);
    return r ? std::string("ok") : std::string(compact_error_name(r.error().kind));
  };
  auto bump = [](TestMirror& m, uint64_t task, uint64_t field, int32_t by) {
    uint64_t off = m.layout.seg.payload_at(task) + field;
    m.put<int32_t>(off, m.get<int32_t>(off) + by);
  };
  EXPECT_EQ(with([](TestMirror&) {}), "ok");                                                     // positive control
  EXPECT_EQ(with([&](TestMirror& m) { bump(m, 1, kPayloadTensorsField, 8); }), "BadPoolRef");    // off-element
  EXPECT_EQ(with([&](TestMirror& m) { bump(m, 1, kPayloadScalarsField, 8); }), "BadPoolRef");    // not 8-aligned
  EXPECT_EQ(with([&](TestMirror& m) { bump(m, 1, kPayloadTensorsField, 64); }), "BadPoolRef");   // past cursor
  EXPECT_EQ(with([&](TestMirror& m) { bump(m, 0, kPayloadTensorsField, -64); }), "BadPoolRef");  // before pool
  EXPECT_EQ(with([&](TestMirror& m) { bump(m, 1, kPayloadFaninField, 4); }), "BadPoolRef");      // region past cursor
  EXPECT_EQ(with([&](TestMirror& m) { m.cursors.fanin = 0; }), "BadPoolRef");                    // bound, cursor 0
  // A region ending exactly at the cursor is fine; one entry more is not.
  EXPECT_EQ(with([&](TestMirror& m) { m.put<uint16_t>(m.layout.seg.payload_at(1) + 0, 2); }), "BadPoolRef");
}

}  // namespace
}  // namespace stackcheck::runtime
