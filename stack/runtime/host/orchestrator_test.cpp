// The orchestrator API (RUNTIME.md §8): the §16 Orchestrator and Claim cases, over a mirror
// poisoned with 0xAA (STYLE.md 11).
#include "stack/runtime/host/orchestrator.h"

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <vector>

#include "stack/runtime/host/test_support.h"
#include "stack/runtime/image/compact.h"
#include "stack/runtime/image/self_relative.h"

namespace stackcheck::runtime {
namespace {

constexpr DevAddr kEntry = testing::OrchestratorFixture::kEntries;

// The shared fixture (W 16 unless given) plus what these tests do often.
struct Fixture : testing::OrchestratorFixture {
  explicit Fixture(uint32_t W = 16, std::byte fill = std::byte{0xAA}, uint64_t scope_tasks = 0)
      : OrchestratorFixture(testing::OrchestratorOptions{W, static_cast<uint8_t>(fill), scope_tasks}) {}
  // Element index a pool delta of payload i points to.
  uint64_t pool_index(uint64_t i, uint64_t field, Segment seg, uint64_t elem) const {
    int32_t d = at<int32_t>(layout.seg.payload_at(i) + field);
    return (*resolve_offset(layout.seg.payload_at(i) + field, d) - layout.seg.off[seg]) / elem;
  }
  TensorRef entry(Shape s) { return orch->external(kEntry, s); }
  TaskId fill(TensorRef* out, Shape s, uint64_t v) {
    Args a(*orch);
    a.add_output(out, s).add_scalar(v);
    return orch->submit(0, a);
  }
  std::vector<std::byte> compact() const {
    const PoolCounts cur = orch->cursors();
    std::vector<std::byte> out(LayoutPlanner::image(orch->submitted(), cur).total_bytes);
    auto r = compact_live_image(mirror, layout, cur, orch->submitted(), out);
    EXPECT_TRUE(r.has_value()) << (r ? "" : r.error().message);
    return out;
  }
};

TEST(Orchestrator, orch_noop_after_fatal) {
  Fixture f;
  TensorRef x = f.entry({16});
  TensorRef y;
  ASSERT_EQ(f.fill(&y, {16}, 1), 0);
  f.orch->fatal();
  EXPECT_EQ(f.orch->error(), 9);
  const std::vector<std::byte> before = f.mirror;
  const PoolCounts cursors = f.orch->cursors();
  TensorRef z;
  EXPECT_EQ(f.fill(&z, {16}, 2), kNoTask);
  EXPECT_TRUE(z.is_null());
  TensorRef bufs[2];
  Shape shapes[2] = {{8}, {8}};
  EXPECT_EQ(f.orch->alloc_tensors(shapes, bufs), kNoTask);
  EXPECT_TRUE(bufs[0].is_null() && bufs[1].is_null());
  const int64_t o[] = {0}, n[] = {4};
  EXPECT_TRUE(x.window(o, n).is_null());
  EXPECT_TRUE(f.orch->external(kEntry, {4}).is_null());
  EXPECT_EQ(OrchestratorTestAccess::claim_graph_outer(*f.orch, 2), kNoTask);
  f.orch->scope_begin();
  f.orch->scope_end();
  f.orch->scope_end();
  EXPECT_EQ(f.orch->scope_depth(), 1u);
  EXPECT_EQ(f.orch->submitted(), 1u);
  EXPECT_EQ(f.orch->cursors(), cursors);
  EXPECT_EQ(f.mirror, before);  // not one byte written after the latch
  EXPECT_EQ(f.orch->error(), 9);
}

TEST(Orchestrator, orch_first_error_wins) {
  Fixture f;
  TensorRef x = f.entry({8});
  TensorRef c = f.orch->external(kEntry + 4096, {8});
  Args a(*f.orch);
  a.add_input(x).add_input(c);  // acc's second parameter is InOut
  EXPECT_EQ(f.orch->submit(3, a), kNoTask);
  EXPECT_EQ(f.orch->error(), 5);
  EXPECT_EQ(f.orch->error_detail(), "submit acc: acc argument 1 is input but its parameter is InOut");
  f.orch->fatal();
  f.orch->wait_tensor(x);
  f.orch->sync_start(1000);
  f.orch->finish();
  EXPECT_EQ(f.orch->error(), 5);
  EXPECT_EQ(f.at<ImageHeader>(0).orch_error, 5);
  EXPECT_EQ(f.orch->submitted(), 0u);  // validation comes before the claim
}

TEST(Orchestrator, orch_scalar_first_5) {
  Fixture ok;
  TensorRef x = ok.entry({8});
  Args good(*ok.orch);
  good.add_input(x).add_scalar(3);  // positive control: tensors, then scalars
  EXPECT_FALSE(ok.orch->latched());

  Fixture f;
  TensorRef y = f.entry({8});
  Args a(*f.orch);
  a.add_scalar(3);
  EXPECT_FALSE(f.orch->latched());
  a.add_input(y);
  EXPECT_EQ(f.orch->error(), 5);
  EXPECT_EQ(f.orch->error_detail(), "a tensor argument after a scalar");
}

TEST(Orchestrator, orch_limits_32_16) {
  Fixture f;
  TensorRef x = f.entry({8});
  Args a(*f.orch);
  for (int i = 0; i < 32; ++i) a.add_input(x);
  for (int i = 0; i < 16; ++i) a.add_scalar(static_cast<uint64_t>(i));
  EXPECT_FALSE(f.orch->latched());
  EXPECT_EQ(a.tensor_count(), 32u);
  EXPECT_EQ(a.scalar_count(), 16u);
  a.add_scalar(16);
  EXPECT_EQ(f.orch->error(), 5);
  EXPECT_EQ(f.orch->error_detail(), "more than 16 scalar arguments");

  Fixture g;
  TensorRef y = g.entry({8});
  Args b(*g.orch);
  for (int i = 0; i < 32; ++i) b.add_no_dep(y);
  EXPECT_FALSE(g.orch->latched());
  TensorRef out;
  b.add_output(&out, {8});
  EXPECT_EQ(g.orch->error(), 5);
  EXPECT_EQ(g.orch->error_detail(), "more than 32 tensor arguments");
}

TEST(Orchestrator, orch_window_outside_5) {
  Fixture f;
  TensorRef x = f.entry({4, 8});
  const int64_t o1[] = {1, 4}, n1[] = {3, 4};
  TensorRef w = x.window(o1, n1);  // the last rows' right halves: inside
  ASSERT_FALSE(w.is_null());
  EXPECT_EQ(w.offset_bytes(), (1 * 8 + 4) * 4u);
  EXPECT_EQ(w.extent_bytes(), ((2 * 8 + 3) + 1) * 4u);
  const int64_t o2[] = {1, 1}, n2[] = {2, 2};
  TensorRef ww = w.window(o2, n2);  // a window of a window
  ASSERT_FALSE(ww.is_null());
  EXPECT_EQ(ww.offset_bytes(), (2 * 8 + 5) * 4u);
  EXPECT_FALSE(f.orch->latched());
  const int64_t o3[] = {1, 5}, n3[] = {3, 4};  // one column past the end
  EXPECT_TRUE(x.window(o3, n3).is_null());
  EXPECT_EQ(f.orch->error(), 5);

  for (auto bad : {std::pair<std::vector<int64_t>, std::vector<int64_t>>{{-1, 0}, {1, 1}},
                   {{0, 0}, {0, 1}},
                   {{0}, {4}},
                   {{0, 9223372036854775807}, {1, 1}}}) {
    Fixture g;
    TensorRef t = g.entry({4, 8});
    EXPECT_TRUE(t.window(bad.first, bad.second).is_null());
    EXPECT_EQ(g.orch->error(), 5);
  }
}

TEST(Orchestrator, orch_scalar_lines_zero_pad) {
  Fixture f;  // poisoned
  TensorRef y, z;
  ASSERT_EQ(f.fill(&y, {8}, 0x1234), 0);
  Args a(*f.orch);
  a.add_input(y).add_output(&z, {8}).add_scalar(~uint64_t{0});
  ASSERT_EQ(f.orch->submit(4, a), 1);
  EXPECT_EQ(f.orch->cursors().scalars, 16u);  // two whole lines for two 1-scalar tasks
  EXPECT_EQ(f.pool_index(0, kPayloadScalarsField, kSegScalar, 8), 0u);
  EXPECT_EQ(f.pool_index(1, kPayloadScalarsField, kSegScalar, 8), 8u);
  EXPECT_EQ(f.at<uint64_t>(f.layout.seg.scalar_at(0)), 0x1234u);
  EXPECT_EQ(f.at<uint64_t>(f.layout.seg.scalar_at(8)), ~uint64_t{0});
  for (uint64_t k : {1, 2, 3, 4, 5, 6, 7, 9, 15})
    EXPECT_EQ(f.at<uint64_t>(f.layout.seg.scalar_at(k)), 0u) << "pad entry " << k;
  EXPECT_EQ(f.at<uint64_t>(f.layout.seg.scalar_at(16)), 0xAAAAAAAAAAAAAAAAull);  // never claimed
}

TEST(Orchestrator, orch_scope_depth_64) {
  Fixture f;  // root open: depth 1
  for (int i = 0; i < 63; ++i) f.orch->scope_begin();
  EXPECT_EQ(f.orch->scope_depth(), 64u);
  EXPECT_FALSE(f.orch->latched());
  f.orch->scope_begin();
  EXPECT_EQ(f.orch->error(), 1);
  EXPECT_EQ(f.orch->scope_depth(), 64u);
}

TEST(Orchestrator, orch_unclosed_scope_1) {
  Fixture ok;
  ok.orch->scope_begin();
  ok.orch->scope_end();
  ok.orch->scope_end();  // the root
  ok.orch->finish();
  EXPECT_EQ(ok.orch->error(), 0);  // positive control

  Fixture f;
  f.orch->scope_begin();
  f.orch->scope_end();
  f.orch->finish();  // the root is still open
  EXPECT_EQ(f.orch->error(), 1);
  EXPECT_EQ(f.at<ImageHeader>(0).orch_error, 1);
  EXPECT_EQ(f.at<ImageHeader>(0).orch_done, 1u);

  Fixture g;  // an unmatched end
  g.orch->scope_end();
  g.orch->scope_end();
  EXPECT_EQ(g.orch->error(), 1);
}

TEST(Orchestrator, orch_scope_tasks_10) {
  Fixture f(16, std::byte{0xAA}, /*scope_tasks=*/2);
  TensorRef a, b, c;
  f.orch->scope_begin();
  EXPECT_EQ(f.fill(&a, {8}, 1), 0);
  EXPECT_EQ(f.fill(&b, {8}, 2), 1);
  EXPECT_FALSE(f.orch->latched());
  f.orch->scope_end();  // a new scope has a new list
  f.orch->scope_begin();
  EXPECT_EQ(f.fill(&a, {8}, 1), 2);
  EXPECT_EQ(f.fill(&b, {8}, 2), 3);
  EXPECT_EQ(f.fill(&c, {8}, 3), kNoTask);
  EXPECT_EQ(f.orch->error(), 10);
  EXPECT_TRUE(c.is_null());
}

TEST(Orchestrator, orch_wait_tensor_8) {
  Fixture f;
  TensorRef y;
  f.fill(&y, {8}, 1);
  f.orch->wait_tensor(y);
  EXPECT_EQ(f.orch->error(), 8);
}

TEST(Orchestrator, orch_sync_start_7) {
  Fixture f;
  f.orch->sync_start(24);  // = clusters: fine
  EXPECT_FALSE(f.orch->latched());
  f.orch->sync_start(25);
  EXPECT_EQ(f.orch->error(), 7);
}

TEST(Orchestrator, orch_explicit_9) {
  Fixture f;
  f.orch->fatal();
  EXPECT_EQ(f.orch->error(), 9);
  EXPECT_EQ(code_name(f.orch->error()), "EXPLICIT_FATAL");
}

TEST(Orchestrator, kernel_signatures_5) {
  struct Case {
    int32_t kernel;
    std::vector<std::pair<int, Shape>> tensors;  // (0 input, 1 inout, 2 output, 3 no_dep), shape
    int scalars;
    bool ok;
  };
  const std::vector<Case> cases = {
      {2, {{0, {8}}, {0, {8}}, {2, {8}}}, 0, true},
      {2, {{0, {8}}, {0, {4, 2}}, {2, {8}}}, 0, false},  // equal element counts, other shapes
      {5, {{0, {2, 3}}, {0, {3, 4}}, {2, {2, 4}}}, 0, true},
      {5, {{0, {2, 3}}, {0, {2, 4}}, {2, {2, 4}}}, 0, false},
      {6, {{0, {3, 5}}, {2, {3, 1}}}, 0, true},
      {6, {{0, {3, 5}}, {2, {3}}}, 0, false},
      {3, {{3, {8}}, {3, {8}}}, 0, true},  // no_dep fits every direction
      {3, {{0, {8}}, {2, {8}}}, 0, false},
      {0, {{2, {8}}}, 0, false},  // fill needs its scalar
      {1, {{0, {8}}, {2, {8}}, {2, {8}}}, 0, false},
      {7, {{2, {8}}}, 0, false},  // zero is the ALLOC task's, not submittable
  };
  for (const Case& c : cases) {
    Fixture f;
    Args a(*f.orch);
    std::vector<TensorRef> outs(c.tensors.size());
    for (size_t k = 0; k < c.tensors.size(); ++k) {
      const Shape& s = c.tensors[k].second;
      const int64_t zero[4] = {0, 0, 0, 0};
      TensorRef v = f.orch->external(kEntry + 4096 * (k + 1), s);
      switch (c.tensors[k].first) {
        case 0: a.add_input(v); break;
        case 1: a.add_inout(v); break;
        case 2: a.add_output(&outs[k], s); break;
        default: a.add_no_dep(v.window(std::span(zero, s.rank), std::span(s.dims, s.rank))); break;
      }
    }
    for (int k = 0; k < c.scalars; ++k) a.add_scalar(1);
    const TaskId id = f.orch->submit(c.kernel, a);
    EXPECT_EQ(id != kNoTask, c.ok) << "kernel " << c.kernel << ": " << f.orch->error_detail();
    EXPECT_EQ(f.orch->error(), c.ok ? 0 : 5);
  }
}

TEST(Orchestrator, fanin_and_last_consumer_in_mirror) {
  Fixture f;
  TensorRef x, y, z;
  ASSERT_EQ(f.fill(&x, {8}, 1), 0);
  ASSERT_EQ(f.fill(&y, {8}, 2), 1);
  Args a(*f.orch);
  a.add_input(x).add_input(y).add_output(&z, {8});
  ASSERT_EQ(f.orch->submit(2, a), 2);
  Args b(*f.orch);
  b.add_input(z).add_inout(x);  // RAW on 2, WAR... and WAW on 0
  ASSERT_EQ(f.orch->submit(3, b), 3);
  EXPECT_EQ(f.payload(2).n_fanin, 2);
  EXPECT_EQ(f.slot(2).fanin_cursor, 2);
  EXPECT_EQ(f.at<int32_t>(f.layout.seg.fanin_at(0)), 0);
  EXPECT_EQ(f.at<int32_t>(f.layout.seg.fanin_at(1)), 1);
  EXPECT_EQ(f.payload(3).n_fanin, 2);
  EXPECT_EQ(f.pool_index(3, kPayloadFaninField, kSegFanin, 4), 2u);
  EXPECT_EQ(f.at<int32_t>(f.layout.seg.fanin_at(2)), 0);
  EXPECT_EQ(f.at<int32_t>(f.layout.seg.fanin_at(3)), 2);
  EXPECT_EQ(f.slot(0).last_consumer, 3);
  EXPECT_EQ(f.slot(1).last_consumer, 2);
  EXPECT_EQ(f.slot(2).last_consumer, 3);
  EXPECT_EQ(f.slot(3).last_consumer, 0);  // none yet
  EXPECT_EQ(f.orch->cursors().fanin, 4u);
  // Outputs are 1024-aligned heap blocks recorded in the descriptor.
  EXPECT_EQ(f.desc(2).heap_begin, z.base());
  EXPECT_EQ(z.base().raw() % 1024, 0u);
  EXPECT_EQ(f.desc(2).heap_end, z.base() + 64);
  EXPECT_TRUE(f.desc(3).heap_begin.is_null() && f.desc(3).heap_end.is_null());
}

TEST(Orchestrator, alloc_tensors_1_to_16) {
  Fixture f;
  std::vector<Shape> shapes(16, Shape{4, 4});
  std::vector<TensorRef> out(17);
  ASSERT_EQ(f.orch->alloc_tensors(shapes, out), 0);
  EXPECT_EQ(f.desc(0).kind, kKindAlloc);
  EXPECT_EQ(f.desc(0).kernel_id, 7);
  EXPECT_EQ(f.payload(0).n_tensors, 16);
  const TensorArg t0 = f.at<TensorArg>(f.layout.seg.tensor_at(0));
  EXPECT_EQ(t0.tag, kTagOutput);
  EXPECT_EQ(t0.base, out[0].base());
  EXPECT_EQ(t0.rank, 2u);
  EXPECT_EQ(t0.stride[0], 4);
  EXPECT_EQ(t0.stride[2], 0);  // unused dims are zero over the poison
  EXPECT_EQ(out[1].base(), out[0].base() + 1024);
  shapes.push_back(Shape{4});
  EXPECT_EQ(f.orch->alloc_tensors(shapes, out), kNoTask);
  EXPECT_EQ(f.orch->error(), 5);
  Fixture g;
  EXPECT_EQ(g.orch->alloc_tensors({}, out), kNoTask);
  EXPECT_EQ(g.orch->error(), 5);
}

// Every descriptor, payload, slot and flag field of a claimed index equals its zeroed-mirror
// value or the value the submit wrote, over 0xAA poison, for each kind (§15.6).
TEST(Claim, claim_poison_aa_each_kind) {
  Fixture f(8);
  TensorRef y;
  ASSERT_EQ(f.fill(&y, {8}, 5), 0);
  TensorRef bufs[2];
  Shape shapes[2] = {{8}, {2, 2}};
  ASSERT_EQ(f.orch->alloc_tensors(shapes, bufs), 1);
  ASSERT_EQ(OrchestratorTestAccess::claim_graph_outer(*f.orch, 3), 2);
  const uint32_t kinds[3] = {kKindKernel, kKindAlloc, kKindGraph};
  const int32_t kernels[3] = {0, 7, -1};
  for (uint64_t i = 0; i < 3; ++i) {
    SCOPED_TRACE(i);
    const TaskDescriptor d = f.desc(i);
    EXPECT_EQ(d.task_id, static_cast<int32_t>(i));
    EXPECT_EQ(d.kind, kinds[i]);
    EXPECT_EQ(d.kernel_id, kernels[i]);
    EXPECT_EQ(d.reserved, 0u);
    const TaskPayload p = f.payload(i);
    EXPECT_EQ(p.reserved, 0u);
    EXPECT_EQ(p.graph_ctx, DevAddr{});
    EXPECT_EQ(p.n_fanin, 0);  // disjoint buffers: no edges
    EXPECT_EQ(p.fanin != 0, p.n_fanin > 0);
    EXPECT_EQ(p.tensors != 0, p.n_tensors > 0);
    EXPECT_EQ(p.scalars != 0, p.n_scalars > 0);
    const SlotState s = f.slot(i);
    EXPECT_EQ(s.state, kSlotPending);
    EXPECT_EQ(s.wake_head, 0);
    EXPECT_EQ(s.wake_next, 0);
    EXPECT_EQ(s.wake_count, 0);
    EXPECT_EQ(s.reserved, 0);
    EXPECT_EQ(s.fanin_cursor, p.n_fanin);
    EXPECT_EQ(*resolve_offset(f.layout.seg.slot_at(i) + kSlotDescField, s.desc), f.layout.seg.desc_at(i));
    EXPECT_EQ(*resolve_offset(f.layout.seg.slot_at(i) + kSlotPayloadField, s.payload), f.layout.seg.payload_at(i));
    EXPECT_EQ(f.flag(i), 0);
  }
  EXPECT_EQ(f.payload(0).n_tensors, 1);
  EXPECT_EQ(f.payload(0).n_scalars, 1);
  EXPECT_EQ(f.payload(1).n_tensors, 2);
  EXPECT_EQ(f.payload(1).n_scalars, 0);
  EXPECT_EQ(f.payload(2).n_tensors, 0);
  EXPECT_EQ(f.payload(2).n_nodes, 3);
  EXPECT_EQ(f.desc(2).heap_begin, DevAddr{});
  // Unclaimed indices are untouched (the poison proves nothing wrote there).
  EXPECT_EQ(f.flag(3), 0xAA);
  EXPECT_EQ(f.desc(3).task_id, static_cast<int32_t>(0xAAAAAAAA));
}

// A GRAPH claim over an index that held a kernel task in an earlier bind resets it.
TEST(Claim, claim_graph_outer_reset) {
  Fixture f(8);
  TensorRef x = f.entry({8}), y;
  Args a(*f.orch);
  a.add_input(x).add_output(&y, {8}).add_scalar(3);
  ASSERT_EQ(f.orch->submit(4, a), 0);
  Args b(*f.orch);
  b.add_input(y).add_inout(x);
  ASSERT_EQ(f.orch->submit(3, b), 1);  // slot 1: tensors, fanin
  f.orch->reset();
  f.orch->scope_begin();
  TensorRef z;
  ASSERT_EQ(f.fill(&z, {8}, 1), 0);
  ASSERT_EQ(OrchestratorTestAccess::claim_graph_outer(*f.orch, 5), 1);
  const TaskDescriptor d = f.desc(1);
  EXPECT_EQ(d.kind, kKindGraph);
  EXPECT_EQ(d.kernel_id, -1);
  EXPECT_TRUE(d.heap_begin.is_null() && d.heap_end.is_null());
  const TaskPayload p = f.payload(1);
  EXPECT_EQ(p.n_tensors, 0);
  EXPECT_EQ(p.n_scalars, 0);
  EXPECT_EQ(p.n_fanin, 0);
  EXPECT_EQ(p.n_nodes, 5);
  EXPECT_EQ(p.tensors, 0);
  EXPECT_EQ(p.scalars, 0);
  EXPECT_EQ(p.fanin, 0);
  EXPECT_EQ(p.graph_ctx, DevAddr{});
  const SlotState s = f.slot(1);
  EXPECT_EQ(s.last_consumer, 0);
  EXPECT_EQ(s.fanin_cursor, 0);
  EXPECT_EQ(f.slot(0).last_consumer, 0);  // the old consumer edge is gone too
}

// The same live state compacts byte-identically on a fresh zeroed mirror, on a poisoned one,
// and on a mirror an earlier (bigger) bind used.
TEST(Claim, claim_reused_mirror) {
  auto program_b = [](Fixture& f) {
    TensorRef x = f.entry({16}), y, z;
    ASSERT_EQ(f.fill(&y, {16}, 7), 0);
    Args a(*f.orch);
    a.add_input(x).add_input(y).add_output(&z, {16});
    ASSERT_EQ(f.orch->submit(2, a), 1);
    f.orch->scope_end();
    f.orch->finish();
    ASSERT_FALSE(f.orch->latched());
  };
  Fixture fresh(16, std::byte{0});
  program_b(fresh);
  const std::vector<std::byte> expected = fresh.compact();

  Fixture poisoned(16, std::byte{0xAA});
  program_b(poisoned);
  EXPECT_EQ(poisoned.compact(), expected);

  Fixture reused(16, std::byte{0xAA});
  TensorRef big[16];
  std::vector<Shape> shapes(16, Shape{8});
  for (int k = 0; k < 5; ++k) ASSERT_NE(reused.orch->alloc_tensors(shapes, big), kNoTask);
  TensorRef t;
  for (int k = 0; k < 5; ++k) ASSERT_NE(reused.fill(&t, {8}, 9), kNoTask);
  reused.orch->reset();
  reused.orch->scope_begin();
  program_b(reused);
  EXPECT_EQ(reused.compact(), expected);
}

TEST(Claim, claim_W_ok_W1_fails) {
  Fixture f(4);
  TensorRef t;
  for (TaskId i = 0; i < 4; ++i) EXPECT_EQ(f.fill(&t, {8}, 1), i);
  EXPECT_FALSE(f.orch->latched());
  EXPECT_EQ(f.fill(&t, {8}, 1), kNoTask);
  EXPECT_EQ(f.orch->error(), 3);
  EXPECT_EQ(f.orch->submitted(), 4u);
}

}  // namespace
}  // namespace stackcheck::runtime
