// Tests of attach_populated (RUNTIME.md §11, §16 Attach cases). Each case builds a valid
// image the way bind does (hand-built mirror over 0xAA poison, submission + definition,
// compaction, one copy into a poisoned DeviceMemory region), then corrupts one field.
#include <gtest/gtest.h>

#include "stack/runtime/device/attach.h"
#include "stack/runtime/devmem/host_link.h"
#include "stack/runtime/image/compact.h"
#include "stack/runtime/image/graph_def.h"
#include "stack/runtime/image/test_support.h"

namespace stackcheck::runtime {
namespace {

using testing::TaskSpec;
using testing::TestMirror;

GraphDefSpec one_node_def() {
  GraphDefSpec s;
  s.fn_id = 0;
  s.n_boundary_tensors = 1;
  s.n_boundary_scalars = 1;
  GraphTensorArgDef t{};
  t.source = kSrcBoundary;
  t.tag = kTagInout;
  t.rank = 1;
  t.shape[0] = 4;
  t.stride[0] = 1;
  s.nodes.push_back({0, {t}, {GraphScalarArgDef{kScalarSlot, 0, 0}}, {}});
  return s;
}

struct Staged {
  DeviceMemory mem{DeviceMemoryConfig{0xAA, false}};
  DeviceAccess dev{mem};
  DevAddr region, rt_addr, image, subs, def, graph_heap;
  SegmentLayout plan;
  uint64_t n = 0;

  // Tasks: KERNEL(t3,s5) ALLOC(t2) KERNEL(t3,s9,fanin 0 1) GRAPH(fanin 2); or none. The
  // region ends `slack` bytes after the copy.
  explicit Staged(bool with_tasks = true, uint64_t slack = 0) {
    HostLink host(mem);
    TestMirror m(64);
    const auto def_bytes = encode_graph_def(one_node_def());
    GraphDefHeader dh{};
    EXPECT_FALSE(validate_graph_def_bytes(def_bytes, &dh).has_value());
    graph_heap = host.reserve(1 << 20, 64, "graph_heap");
    def = host.reserve(def_bytes.size(), 64, "def:0");
    host.copy_to_device(def, def_bytes.data(), def_bytes.size());

    uint32_t graphs = 0;
    if (with_tasks) {
      m.add(TaskSpec{kKindKernel, 2, 3, 5, {}});
      m.add(TaskSpec{kKindAlloc, kAllocKernelId, 2, 0, {}});
      m.add(TaskSpec{kKindKernel, 5, 3, 9, {0, 1}});
      m.add(TaskSpec{kKindGraph, kGraphKernelId, 0, 0, {2}, 1});
      graphs = 1;
    }
    n = m.n;
    plan = LayoutPlanner::image(m.n, m.cursors);
    const uint64_t q = plan.pitch + 1024 * graphs;
    const uint64_t dev_only = align64(sizeof(SchedControl) + 8 * q);
    const uint64_t sub_bytes = graphs ? graph_submission_bytes(1, 1) : 0;
    const uint64_t img_off = sizeof(RuntimeHeader);
    const uint64_t sub_off = align64(img_off + plan.total_bytes);
    const uint64_t copied = sub_off + sub_bytes;
    region = host.reserve(dev_only + copied + slack, 64, "region");
    rt_addr = region + dev_only;
    image = rt_addr + img_off;
    subs = rt_addr + sub_off;

    std::vector<std::byte> stage(copied, std::byte{0xAA});
    if (graphs) {
      GraphSubmission s{};
      s.definition_addr = def;
      s.definition_hash = dh.hash;
      s.block_base = graph_heap;
      s.block_bytes = dh.required_heap + graph_args_bytes(dh.n_tensor_args, dh.n_scalar_args) + dh.storage_bytes;
      s.outer_id = 3;
      s.n_bt = 1;
      s.n_bs = 1;
      s.record_bytes = graph_submission_bytes(1, 1);
      std::memcpy(stage.data() + sub_off, &s, sizeof s);
      TensorArg a{};
      a.base = DevAddr(0x5000'0000'0000ull);
      a.buffer_bytes = 16;
      a.tag = kTagInout;
      a.rank = 1;
      a.shape[0] = 4;
      a.stride[0] = 1;
      std::memcpy(stage.data() + sub_off + 48, &a, sizeof a);
      uint64_t slot0 = 11;
      std::memcpy(stage.data() + sub_off + 48 + 64, &slot0, 8);
      m.put(m.layout.seg.payload_at(3) + offsetof(TaskPayload, graph_ctx), subs);  // step 7
    }
    auto r = compact_live_image(m.bytes, m.layout, m.cursors, m.n, std::span(stage).subspan(img_off, plan.total_bytes));
    EXPECT_TRUE(r.has_value());
    std::memset(stage.data() + img_off + plan.total_bytes, 0, sub_off - img_off - plan.total_bytes);

    RuntimeHeader rt =
        testing::hand_runtime_header(64, q, region, dev_only, dev_only + copied + slack, plan.total_bytes);
    rt.graph_count = graphs;
    rt.submissions = graphs ? subs : DevAddr();
    rt.submissions_bytes = sub_bytes;
    rt.graph_heap = graph_heap;
    rt.graph_heap_bytes = 1 << 20;
    std::memcpy(stage.data(), &rt, sizeof rt);
    host.copy_to_device(rt_addr, stage.data(), stage.size());  // the one copy
  }

  template <class T>
  void poke(DevAddr a, T v) {
    dev.store<T>(a, v);
  }
  template <class T>
  T peek(DevAddr a) {
    return dev.load<T>(a);
  }
  DevAddr hdr(size_t field) { return image + field; }

  std::string attach() {
    auto r = attach_populated(dev, rt_addr);
    return r ? std::string("ok") : std::string(attach_error_name(r.error().cls));
  }
  std::string message() {
    auto r = attach_populated(dev, rt_addr);
    return r ? std::string("ok") : r.error().message;
  }
};

// attach()'s verdict on a fresh staging with one field of the image header overwritten.
template <class T>
std::string attach_with_header(size_t field, T value) {
  Staged s;
  s.poke<T>(s.hdr(field), value);
  return s.attach();
}
// The same with one field of the graph submission record overwritten.
template <class T>
std::string attach_with_submission(size_t field, T value) {
  Staged s;
  s.poke<T>(s.subs + field, value);
  return s.attach();
}

TEST(Attach, attach_accepts_valid) {
  Staged s;
  auto r = attach_populated(s.dev, s.rt_addr);
  ASSERT_TRUE(r.has_value()) << r.error().message;
  EXPECT_EQ(r->n, 4u);
  EXPECT_EQ(r->W, 64u);
  EXPECT_EQ(r->image, s.image);
  EXPECT_EQ(r->layout, s.plan);
  EXPECT_EQ(r->slot(2), s.image + s.plan.slot_at(2));
  // Attach reads every byte except flags and live pool entries (the scheduler's); the
  // scalar pad entries (3 after 5 scalars, 7 after 9) are read.
  const SegmentLayout& p = s.plan;
  const uint64_t expect = p.total_bytes - p.pitch - p.counts.tensors * 64 - (5 + 9) * 8 - p.counts.fanin * 4;
  EXPECT_EQ(s.mem.bytes_read(s.image, p.total_bytes), expect);
  EXPECT_EQ(s.mem.bytes_read(s.image + p.off[kSegFlag], p.pitch), 0u);
  EXPECT_EQ(s.mem.uninit_reads(), 0u);
  // Attach writes nothing: a second attach succeeds identically.
  EXPECT_EQ(s.attach(), "ok");
}

TEST(Attach, attach_accepts_valid_zero_tasks) {
  Staged s(false);
  EXPECT_EQ(s.attach(), "ok");
  s.poke<uint8_t>(s.image + s.plan.slot_at(0) + 3, 1);  // unused n=0 slot dirtied
  EXPECT_EQ(s.attach(), "DirtyPadding");
}

TEST(Attach, attach_rejects_bad_magic) {
  Staged s;
  s.poke<uint8_t>(s.image + 2, 'X');
  EXPECT_EQ(s.attach(), "BadMagic");
  EXPECT_EQ(attach_with_header<uint32_t>(offsetof(ImageHeader, version), 2), "BadMagic");
  Staged r;
  r.poke<uint8_t>(r.rt_addr, 0);
  EXPECT_EQ(r.attach(), "BadMagic");
}

TEST(Attach, attach_rejects_bad_pitch) {
  EXPECT_EQ(attach_with_header<uint32_t>(offsetof(ImageHeader, pitch), 5), "BadPitch");
  EXPECT_EQ(attach_with_header<uint32_t>(offsetof(ImageHeader, pitch), 0), "BadPitch");
  EXPECT_EQ(attach_with_header<uint32_t>(offsetof(ImageHeader, W), 2), "BadPitch");  // pitch 4 > W
}

TEST(Attach, attach_rejects_truncated) {
  Staged s;
  const uint64_t flag_end = s.plan.seg_end(kSegFlag);
  s.poke<uint64_t>(s.hdr(offsetof(ImageHeader, image_bytes)), flag_end - 1);
  s.poke<uint64_t>(s.rt_addr + offsetof(RuntimeHeader, image_bytes), flag_end - 1);
  EXPECT_EQ(s.attach(), "Truncated");
  // the image header alone is short: judged on its own figure, before the disagreement
  EXPECT_EQ(attach_with_header<uint64_t>(offsetof(ImageHeader, image_bytes), flag_end - 1), "Truncated");
  Staged r;  // the runtime header alone is short: the headers disagree, the image is whole
  r.poke<uint64_t>(r.rt_addr + offsetof(RuntimeHeader, image_bytes), flag_end - 1);
  EXPECT_EQ(r.attach(), "BadLayout");
}

TEST(Attach, attach_rejects_too_large) {
  Staged s;
  const uint64_t huge = 1ull << 31;
  s.poke<uint64_t>(s.hdr(offsetof(ImageHeader, image_bytes)), huge);
  s.poke<uint64_t>(s.rt_addr + offsetof(RuntimeHeader, image_bytes), huge);
  EXPECT_EQ(s.attach(), "TooLarge");
  // only the image header's figure is huge: TooLarge although the headers disagree
  EXPECT_EQ(attach_with_header<uint64_t>(offsetof(ImageHeader, image_bytes), huge), "TooLarge");
  Staged h;  // only the runtime header's figure is huge: the image fits, the headers disagree
  h.poke<uint64_t>(h.rt_addr + offsetof(RuntimeHeader, image_bytes), huge);
  EXPECT_EQ(h.attach(), "BadLayout");
  Staged r;  // the region ends inside the image
  uint64_t rb = r.peek<uint64_t>(r.rt_addr + offsetof(RuntimeHeader, region_bytes));
  r.poke<uint64_t>(r.rt_addr + offsetof(RuntimeHeader, region_bytes), rb - r.plan.total_bytes);
  EXPECT_EQ(r.attach(), "TooLarge");
  // the image header's figure runs past the region, the runtime header's does not
  EXPECT_EQ(attach_with_header<uint64_t>(offsetof(ImageHeader, image_bytes), rb), "TooLarge");
  Staged u;  // a region larger than the reservation is not mapped
  u.poke<uint64_t>(u.rt_addr + offsetof(RuntimeHeader, region_bytes), rb + 1);
  EXPECT_EQ(u.attach(), "TooLarge");
  Staged q;  // a ring that does not fit the device-only zone
  q.poke<uint32_t>(q.rt_addr + offsetof(RuntimeHeader, Q), 1u << 20);
  EXPECT_EQ(q.attach(), "TooLarge");
}

TEST(Attach, attach_rejects_bad_layout) {
  Staged s;
  DevAddr f = s.hdr(offsetof(ImageHeader, seg_off) + 8 * kSegPayload);
  s.poke<uint64_t>(f, s.peek<uint64_t>(f) + 64);
  EXPECT_EQ(s.attach(), "BadLayout");
  // a pool count change moves the later segments
  EXPECT_EQ(attach_with_header<uint32_t>(offsetof(ImageHeader, tensor_count), 9), "BadLayout");
  Staged d;  // the two headers disagree on image_bytes (both figures plausible)
  d.poke<uint64_t>(d.rt_addr + offsetof(RuntimeHeader, image_bytes), d.plan.total_bytes - 4);
  EXPECT_EQ(d.attach(), "BadLayout");
  Staged e;  // the runtime header claims more than the image
  e.poke<uint64_t>(e.rt_addr + offsetof(RuntimeHeader, image_bytes), e.plan.total_bytes + 64);
  EXPECT_EQ(e.attach(), "BadLayout");
  // The device-only zone moved off the region's start, misaligned (the scheduler's atomics
  // on SchedControl would fault) or aligned: both are layouts the planner never makes.
  for (uint64_t by : {uint64_t{1}, uint64_t{8}}) {
    Staged z;
    const DevAddr at = z.rt_addr + offsetof(RuntimeHeader, device_only);
    z.poke<uint64_t>(at, z.peek<uint64_t>(at) + by);
    z.poke<uint64_t>(z.rt_addr + offsetof(RuntimeHeader, device_only_bytes),
                     z.peek<uint64_t>(z.rt_addr + offsetof(RuntimeHeader, device_only_bytes)) - by);
    EXPECT_EQ(z.attach(), "BadLayout") << by;
  }
}

// RUNTIME.md §5, §11: the image opens right after the RuntimeHeader and the submissions at
// the next 64-byte boundary after the image. A runtime header naming any other place is
// BadLayout, judged before anything is read there (here the device-only zone, which nobody
// has written: a read of it would count as an uninitialised read).
TEST(Attach, attach_rejects_bad_layout_moved_image_or_submissions) {
  const uint64_t image_field = offsetof(RuntimeHeader, image);
  for (int64_t by : {int64_t{64}, int64_t{-64}, int64_t{8}}) {
    Staged s;
    s.poke<uint64_t>(s.rt_addr + image_field, (s.image + static_cast<uint64_t>(by)).raw());
    s.mem.clear_read_bits(s.region, s.rt_addr.raw() - s.region.raw() + 4096);
    EXPECT_EQ(s.attach(), "BadLayout") << by;
    EXPECT_EQ(s.mem.bytes_read(s.region, s.rt_addr.raw() - s.region.raw() + 4096), sizeof(RuntimeHeader)) << by;
  }
  Staged d;  // the image named at the region's start: not one byte of it read
  d.poke<uint64_t>(d.rt_addr + image_field, d.region.raw());
  EXPECT_EQ(d.message().rfind("image at", 0), 0u) << d.message();
  EXPECT_EQ(d.mem.uninit_reads(), 0u);
  // Submissions one line later, or 8 bytes later.
  for (uint64_t by : {uint64_t{64}, uint64_t{8}}) {
    Staged z;
    z.poke<uint64_t>(z.rt_addr + offsetof(RuntimeHeader, submissions), (z.subs + by).raw());
    EXPECT_EQ(z.attach(), "BadLayout") << by;
  }
  Staged n;  // a zone without an address, or an address without a zone
  n.poke<uint64_t>(n.rt_addr + offsetof(RuntimeHeader, submissions), 0);
  EXPECT_EQ(n.attach(), "BadLayout");
  Staged e;
  e.poke<uint64_t>(e.rt_addr + offsetof(RuntimeHeader, submissions_bytes), 0);
  EXPECT_EQ(e.attach(), "BadLayout");
  Staged none(false);  // control: no graph, no zone
  EXPECT_EQ(none.attach(), "ok");
}

// §15.5: the submissions zone's padding is read and must be zero (DirtyPadding), and the
// zone ends with its last record (BadGraphContext), so a completed run reads every shipped
// byte. A definition never lies in the region or a heap (each is its own reservation, §5).
TEST(Attach, attach_checks_the_submissions_zone) {
  Staged s;
  const DevAddr image_end = s.image + s.plan.total_bytes;
  ASSERT_LT(image_end.raw(), s.subs.raw());  // this image leaves a gap before the zone
  s.mem.clear_read_bits(s.region, s.subs.raw() + graph_submission_bytes(1, 1) - s.region.raw());
  EXPECT_EQ(s.attach(), "ok");
  EXPECT_EQ(s.mem.bytes_read(image_end, s.subs.raw() - image_end.raw()), s.subs.raw() - image_end.raw());
  Staged g;  // a nonzero gap byte, first and last
  g.poke<uint8_t>(image_end, 1);
  EXPECT_EQ(g.attach(), "DirtyPadding");
  EXPECT_EQ(g.message(), "padding between the image and the submissions");
  Staged l;
  l.poke<uint8_t>(l.subs - 1, 0x80);
  EXPECT_EQ(l.attach(), "DirtyPadding");
  Staged longer(true, 256);  // the zone runs 64 bytes past its one record (inside the region)
  longer.poke<uint64_t>(longer.rt_addr + offsetof(RuntimeHeader, submissions_bytes), graph_submission_bytes(1, 1) + 64);
  EXPECT_EQ(longer.attach(), "BadGraphContext");
  EXPECT_NE(longer.message().find("its records"), std::string::npos) << longer.message();
  Staged roomy(true, 256);  // control: slack after the copy is not part of the zone
  EXPECT_EQ(roomy.attach(), "ok");
  for (bool heap : {true, false}) {  // the definition named in the graph heap or the region
    Staged h;
    const DevAddr at = heap ? h.graph_heap : h.region;
    h.poke<uint64_t>(h.subs + offsetof(GraphSubmission, definition_addr), at.raw());
    h.mem.clear_read_bits(at, 4096);
    EXPECT_EQ(h.attach(), "BadGraphContext");
    EXPECT_NE(h.message().find("inside the region or a heap"), std::string::npos) << h.message();
    EXPECT_EQ(h.mem.bytes_read(at, 4096), 0u);
  }
}

TEST(Attach, attach_rejects_pool_out) {
  Staged s;
  s.poke<uint32_t>(s.hdr(offsetof(ImageHeader, fanin_count)), static_cast<uint32_t>(s.plan.counts.fanin + 1));
  EXPECT_EQ(s.attach(), "PoolOutOfImage");
}

TEST(Attach, attach_rejects_delta_out) {
  Staged s;  // slot 1's desc delta moved into the payload segment
  DevAddr f = s.image + s.plan.slot_at(1) + kSlotDescField;
  s.poke<int32_t>(f, s.peek<int32_t>(f) + static_cast<int32_t>(s.plan.pitch * 32));
  EXPECT_EQ(s.attach(), "DeltaOutOfImage");
  Staged t;  // a tensor delta far outside the image
  t.poke<int32_t>(t.image + t.plan.payload_at(0) + kPayloadTensorsField, 1 << 30);
  EXPECT_EQ(t.attach(), "DeltaOutOfImage");
  Staged u;  // a live slot with an unbound payload delta
  u.poke<int32_t>(u.image + u.plan.slot_at(0) + kSlotPayloadField, 0);
  EXPECT_EQ(u.attach(), "DeltaOutOfImage");
}

TEST(Attach, attach_rejects_delta_misaligned) {
  Staged s;  // slot 1 -> desc[0]
  DevAddr f = s.image + s.plan.slot_at(1) + kSlotDescField;
  s.poke<int32_t>(f, s.peek<int32_t>(f) - 32);
  EXPECT_EQ(s.attach(), "DeltaMisaligned");
  Staged t;  // tensor delta off-element
  DevAddr g = t.image + t.plan.payload_at(1) + kPayloadTensorsField;
  t.poke<int32_t>(g, t.peek<int32_t>(g) + 8);
  EXPECT_EQ(t.attach(), "DeltaMisaligned");
  Staged u;  // scalar region of task 2 moved one line back by one entry: not 8-aligned
  DevAddr h = u.image + u.plan.payload_at(2) + kPayloadScalarsField;
  u.poke<int32_t>(h, u.peek<int32_t>(h) + 8);
  EXPECT_EQ(u.attach(), "DeltaMisaligned");
  Staged v;  // task 2's tensor region past the count
  DevAddr k = v.image + v.plan.payload_at(2) + kPayloadTensorsField;
  v.poke<int32_t>(k, v.peek<int32_t>(k) + 64);
  EXPECT_EQ(v.attach(), "DeltaMisaligned");
}

TEST(Attach, attach_rejects_count_mismatch) {
  Staged s;  // bound tensors with count 0
  s.poke<uint16_t>(s.image + s.plan.payload_at(0) + offsetof(TaskPayload, n_tensors), 0);
  EXPECT_EQ(s.attach(), "CountMismatch");
  Staged k;
  k.poke<uint32_t>(k.image + k.plan.desc_at(1) + offsetof(TaskDescriptor, kind), 4);
  EXPECT_EQ(k.attach(), "CountMismatch");
  Staged g;  // GRAPH with n_nodes 0
  g.poke<uint16_t>(g.image + g.plan.payload_at(3) + offsetof(TaskPayload, n_nodes), 0);
  EXPECT_EQ(g.attach(), "CountMismatch");
  Staged f;  // fanin_cursor != n_fanin
  f.poke<int32_t>(f.image + f.plan.slot_at(2) + offsetof(SlotState, fanin_cursor), 1);
  EXPECT_EQ(f.attach(), "CountMismatch");
}

TEST(Attach, attach_rejects_dirty_padding) {
  Staged s;  // first padding byte after the flags
  s.poke<uint8_t>(s.image + s.plan.seg_end(kSegFlag), 1);
  EXPECT_EQ(s.attach(), "DirtyPadding");
  Staged p;  // a scalar pad entry of task 0 (5 scalars, entries 5..7 pad)
  p.poke<uint64_t>(p.image + p.plan.scalar_at(7), 3);
  EXPECT_EQ(p.attach(), "DirtyPadding");
  Staged r;
  r.poke<uint32_t>(r.image + r.plan.payload_at(2) + offsetof(TaskPayload, reserved), 1);
  EXPECT_EQ(r.attach(), "DirtyPadding");
  EXPECT_EQ(attach_with_header<uint32_t>(offsetof(ImageHeader, reserved), 1), "DirtyPadding");
  Staged w;
  w.poke<int32_t>(w.image + w.plan.slot_at(0) + offsetof(SlotState, wake_head), -1);
  EXPECT_EQ(w.attach(), "DirtyPadding");
  Staged live;  // positive control: live scalar values are not padding
  live.poke<uint64_t>(live.image + live.plan.scalar_at(4), 123456);
  EXPECT_EQ(live.attach(), "ok");
}

TEST(Attach, attach_rejects_bad_graph_ctx) {
  Staged s;  // graph_ctx not at the record
  DevAddr f = s.image + s.plan.payload_at(3) + offsetof(TaskPayload, graph_ctx);
  s.poke<uint64_t>(f, s.peek<uint64_t>(f) + 64);
  EXPECT_EQ(s.attach(), "BadGraphContext");
  Staged k;  // a kernel task with a graph_ctx
  k.poke<uint64_t>(k.image + k.plan.payload_at(0) + offsetof(TaskPayload, graph_ctx), k.subs.raw());
  EXPECT_EQ(k.attach(), "BadGraphContext");
  Staged d;  // one definition byte flipped: the hash catches it
  d.poke<uint8_t>(d.def + 200, d.peek<uint8_t>(d.def + 200) ^ 1);
  EXPECT_EQ(d.attach(), "BadGraphContext");
  Staged m;  // definition magic
  m.poke<uint8_t>(m.def + 7, '2');
  EXPECT_EQ(m.attach(), "BadGraphContext");
  // submission names another outer task
  EXPECT_EQ(attach_with_submission<int32_t>(offsetof(GraphSubmission, outer_id), 2), "BadGraphContext");
  // block too small
  EXPECT_EQ(attach_with_submission<uint64_t>(offsetof(GraphSubmission, block_bytes), 64), "BadGraphContext");
  // definition address unmapped (no fault escapes)
  EXPECT_EQ(attach_with_submission<uint64_t>(offsetof(GraphSubmission, definition_addr), 0x10), "BadGraphContext");
}

TEST(Attach, attach_rejects_latched) {
  EXPECT_EQ(attach_with_header<int32_t>(offsetof(ImageHeader, orch_error), 5), "LatchedError");
  EXPECT_EQ(attach_with_header<uint64_t>(offsetof(ImageHeader, sched_error_bitmap), 1), "LatchedError");
  EXPECT_EQ(attach_with_header<uint32_t>(offsetof(ImageHeader, orch_done), 0), "LatchedError");
}

TEST(Attach, attach_checks_in_order) {
  Staged s;  // latched and bad pitch: the earlier class wins
  s.poke<int32_t>(s.hdr(offsetof(ImageHeader, orch_error)), 5);
  s.poke<uint32_t>(s.hdr(offsetof(ImageHeader, pitch)), 7);
  EXPECT_EQ(s.attach(), "BadPitch");
  Staged t;  // dirty padding and a misaligned delta
  t.poke<uint8_t>(t.image + t.plan.seg_end(kSegFlag), 1);
  DevAddr f = t.image + t.plan.slot_at(1) + kSlotDescField;
  t.poke<int32_t>(f, t.peek<int32_t>(f) - 32);
  EXPECT_EQ(t.attach(), "DeltaMisaligned");
}

TEST(Attach, attach_rejects_unmapped_runtime_header) {
  Staged s;
  auto r = attach_populated(s.dev, DevAddr(0x42));
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().cls, AttachErrorClass::kBadMagic);
}

}  // namespace
}  // namespace stackcheck::runtime
