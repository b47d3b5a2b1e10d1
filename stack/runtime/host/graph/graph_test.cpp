// Graph recording, the definition cache and replay submissions at the orchestrator API
// (RUNTIME.md §9): the §16 Graph cases that need no device, over a mirror poisoned with 0xAA.
#include <gtest/gtest.h>

#include <cstring>

#include "stack/runtime/host/graph/recorder.h"
#include "stack/runtime/host/test_support.h"
#include "stack/support/fnv1a.h"

namespace stackcheck::runtime {
namespace {

using testing::DefView;
using testing::GraphFixture;

TensorRef win1(const TensorRef& t, int64_t off, int64_t n) {
  const int64_t o[1] = {off}, s[1] = {n};
  return t.window(o, s);
}

// scale(input b0, output_existing b1, scalar $0): one node.
void scale_fn(GraphRecorder& r) {
  Args a(r);
  a.add_input(r.boundary(0)).add_output_existing(r.boundary(1)).add_scalar(r.scalar(0));
  r.submit(4, a);
}

// alloc t (node 0); acc(input b0, inout t) (1); acc(input t, inout b1) (2).
void chain_fn(GraphRecorder& r) {
  TensorRef t[1];
  const Shape s[1] = {Shape{8}};
  r.alloc_tensors(s, t);
  Args a(r);
  a.add_input(r.boundary(0)).add_inout(t[0]);
  r.submit(3, a);
  Args b(r);
  b.add_input(t[0]).add_inout(r.boundary(1));
  r.submit(3, b);
}

TEST(Graph, graph_record_replay) {
  GraphFixture f;
  TensorRef x = f.entry(0, {16}), c = f.entry(1, {8});
  int calls = 0;
  const GraphFn fn = [&](GraphRecorder& r) {
    ++calls;
    EXPECT_TRUE(r.recording());
    chain_fn(r);
  };
  GraphArgs g1(*f.orch);
  g1.add_input(win1(x, 0, 8)).add_inout(c);
  EXPECT_EQ(f.orch->submit_graph(0, fn, g1), 0);
  EXPECT_EQ(f.orch->task_heap().top(), 0u);  // recording takes no heap (and no slot: id 0)
  GraphArgs g2(*f.orch);
  g2.add_input(win1(x, 8, 8)).add_inout(c);
  EXPECT_EQ(f.orch->submit_graph(0, fn, g2), 1);
  ASSERT_FALSE(f.orch->latched()) << f.orch->error_detail();
  EXPECT_EQ(calls, 1);  // recorded once; both submissions replay
  ASSERT_EQ(f.orch->graph_cache().size(), 1u);
  ASSERT_EQ(f.orch->graph_submissions().size(), 2u);
  for (uint64_t i = 0; i < 2; ++i) {
    SCOPED_TRACE(i);
    const TaskDescriptor d = f.desc(i);
    EXPECT_EQ(d.kind, kKindGraph);
    EXPECT_EQ(d.kernel_id, -1);
    const TaskPayload p = f.payload(i);
    EXPECT_EQ(p.n_nodes, 3);
    EXPECT_EQ(p.n_tensors, 0);
    EXPECT_EQ(p.n_scalars, 0);
    EXPECT_EQ(p.tensors, 0);
    EXPECT_EQ(p.scalars, 0);
    EXPECT_EQ(p.graph_ctx, DevAddr{});  // until staging
    const GraphSubmissionPlan& s = f.orch->graph_submissions()[i];
    EXPECT_EQ(s.outer, static_cast<int32_t>(i));
    EXPECT_EQ(d.heap_begin, s.block);
    EXPECT_EQ(d.heap_end, s.block + s.block_bytes);
    EXPECT_EQ(s.block.raw() % 64, 0u);
  }
  // The second replay writes c after the first: the boundary gives the outer fanin.
  EXPECT_EQ(f.fanin(1), std::vector<int32_t>{0});
  const DefView d = f.def(0);
  EXPECT_EQ(d.h.n_nodes, 3u);
  EXPECT_EQ(d.h.n_boundary_tensors, 2u);
  EXPECT_EQ(d.h.n_internal, 1u);
  EXPECT_EQ(d.node(0).kernel_id, kAllocKernelId);
  EXPECT_EQ(d.node(1).kernel_id, 3);
  EXPECT_EQ(d.fanin(1), std::vector<uint16_t>{0});
  EXPECT_EQ(d.fanin(2), std::vector<uint16_t>{1});
  EXPECT_EQ(d.fanout(0), std::vector<uint16_t>{1});
  EXPECT_EQ(d.tensor(1, 0).source, kSrcBoundary);
  EXPECT_EQ(d.tensor(1, 0).index, 0u);
  EXPECT_EQ(d.tensor(1, 1).source, kSrcInternal);
  EXPECT_EQ(d.tensor(2, 1).tag, kTagInout);
  // The task log holds outer tasks only: no node is a task.
  ASSERT_EQ(f.orch->task_log().size(), 2u);
  EXPECT_EQ(f.orch->task_log()[1].kind, kKindGraph);
}

TEST(Graph, graph_patch_boundary_slot) {
  GraphFixture f;
  TensorRef x = f.entry(0, {16}), c = f.entry(1, {8}), e = f.entry(2, {8});
  GraphArgs g1(*f.orch);
  g1.add_input(win1(x, 0, 8)).add_inout(c).add_scalar(3);
  GraphArgs g2(*f.orch);
  g2.add_input(win1(x, 8, 8)).add_inout(e).add_scalar(5);
  ASSERT_EQ(f.orch->submit_graph(7, scale_fn, g1), 0);
  ASSERT_EQ(f.orch->submit_graph(7, scale_fn, g2), 1);
  ASSERT_EQ(f.orch->graph_cache().size(), 1u);
  const auto& subs = f.orch->graph_submissions();
  EXPECT_EQ(subs[0].boundary[0].base, x.base());
  EXPECT_EQ(subs[0].boundary[0].offset_bytes, 0u);
  EXPECT_EQ(subs[1].boundary[0].offset_bytes, 32u);
  EXPECT_EQ(subs[0].boundary[1].base, c.base());
  EXPECT_EQ(subs[1].boundary[1].base, e.base());
  EXPECT_EQ(subs[1].boundary[1].tag, kTagInout);
  EXPECT_EQ(subs[0].slots, std::vector<uint64_t>{3});
  EXPECT_EQ(subs[1].slots, std::vector<uint64_t>{5});
  const DefView d = f.def(0);
  EXPECT_EQ(d.h.fn_id, 7u);
  EXPECT_EQ(d.scalar(0, 0).source, kScalarSlot);
  EXPECT_EQ(d.scalar(0, 0).value, 0u);  // SLOT 0, patched per replay
  EXPECT_EQ(d.tensor(0, 1).tag, kTagOutputExisting);
  EXPECT_EQ(d.tensor(0, 0).offset_bytes, 0u);  // relative to the boundary window
  EXPECT_TRUE(f.fanin(1).empty());             // disjoint boundaries: no outer edge
}

TEST(Graph, graph_replay_frozen_offset) {
  GraphFixture f;
  TensorRef x = f.entry(0, {16}), c = f.entry(1, {4});
  // A view offset and a scalar computed from $0 at recording: both LITERAL, frozen.
  const GraphFn fn = [](GraphRecorder& r) {
    const int64_t o = static_cast<int64_t>(r.scalar(0).value());
    TensorRef v = win1(r.boundary(0), o, 4);
    Args a(r);
    a.add_input(v).add_output_existing(r.boundary(1)).add_scalar(r.scalar(0).value() * 10);
    r.submit(4, a);
  };
  for (uint64_t slot : {4u, 8u}) {
    GraphArgs g(*f.orch);
    g.add_input(x).add_inout(c).add_scalar(slot);
    ASSERT_GE(f.orch->submit_graph(0, fn, g), 0);
  }
  ASSERT_EQ(f.orch->graph_cache().size(), 1u);
  const DefView d = f.def(0);
  EXPECT_EQ(d.tensor(0, 0).offset_bytes, 16u);  // 4 elements: the first submission's value
  EXPECT_EQ(d.scalar(0, 0).source, kScalarLiteral);
  EXPECT_EQ(d.scalar(0, 0).value, 40u);
  EXPECT_EQ(f.orch->graph_submissions()[1].slots, std::vector<uint64_t>{8});  // patched, but unused
}

TEST(Graph, graph_new_key_on_shape) {
  GraphFixture f;
  TensorRef x = f.entry(0, {4, 4}), c = f.entry(1, {4});
  int calls = 0;
  const GraphFn fn = [&](GraphRecorder& r) {
    ++calls;
    Args a(r);
    a.add_input(r.boundary(0)).add_inout(r.boundary(1));
    r.submit(3, a);
  };
  auto submit = [&](const TensorRef& in, const TensorRef& io) {
    GraphArgs g(*f.orch);
    g.add_input(in).add_inout(io);
    return f.orch->submit_graph(0, fn, g);
  };
  const int64_t row_o[2] = {1, 0}, row_s[2] = {1, 4}, col_o[2] = {0, 2}, col_s[2] = {4, 1};
  const int64_t row2_o[2] = {2, 0};
  const TensorRef c2 = f.entry(2, {1, 4});
  ASSERT_GE(submit(x.window(row_o, row_s), c2), 0);   // [1,4] stride [4,1]
  ASSERT_GE(submit(x.window(row2_o, row_s), c2), 0);  // same key elsewhere: a hit (control)
  EXPECT_EQ(calls, 1);
  ASSERT_GE(submit(x.window(col_o, col_s), f.entry(3, {4, 1})), 0);  // [4,1] stride [4,1]: new
  EXPECT_EQ(calls, 2);
  const TensorRef c3 = f.entry(4, {4, 1});
  const int64_t z[2] = {0, 0}, s41[2] = {4, 1};
  ASSERT_GE(submit(f.entry(5, {4, 4}).window(z, s41), c3), 0);  // same shape, same stride [4,1]: hit
  EXPECT_EQ(calls, 2);
  ASSERT_GE(submit(f.entry(6, {4, 1}), c3), 0);  // shape [4,1] with stride [1,1]: new
  EXPECT_EQ(calls, 3);
  // Alias classes: the same two shapes, now overlapping, are another key.
  const TensorRef y = f.entry(7, {4});
  ASSERT_GE(submit(c, y), 0);
  EXPECT_EQ(calls, 4);
  ASSERT_GE(submit(y, y), 0);
  EXPECT_EQ(calls, 5);
  // Tags and the scalar count are part of the key too.
  GraphArgs g(*f.orch);
  g.add_inout(c).add_inout(y);
  ASSERT_GE(f.orch->submit_graph(0, fn, g), 0);
  EXPECT_EQ(calls, 6);
  GraphArgs gs(*f.orch);
  gs.add_input(c).add_inout(y).add_scalar(1);
  ASSERT_GE(f.orch->submit_graph(0, fn, gs), 0);
  EXPECT_EQ(calls, 7);
  EXPECT_EQ(f.orch->graph_cache().size(), 7u);  // one definition per new key
  EXPECT_FALSE(f.orch->latched()) << f.orch->error_detail();
}

TEST(Graph, graph_17th_inlines) {
  GraphFixture f;
  TensorRef x = f.entry(0, {16}), c = f.entry(1, {4});
  const GraphFn fn = [](GraphRecorder& r) {
    TensorRef v = win1(r.boundary(0), static_cast<int64_t>(r.scalar(0).value()), 4);
    Args a(r);
    a.add_input(v).add_output_existing(r.boundary(1)).add_scalar(r.scalar(0));
    r.submit(4, a);
  };
  auto submit = [&](uint32_t fn_id, uint64_t slot) {
    GraphArgs g(*f.orch);
    g.add_input(x).add_inout(c).add_scalar(slot);
    return f.orch->submit_graph(fn_id, fn, g);
  };
  for (uint32_t k = 0; k < 16; ++k) ASSERT_EQ(submit(k, 0), static_cast<TaskId>(k));
  EXPECT_EQ(f.orch->graph_cache().size(), 16u);
  EXPECT_EQ(submit(16, 8), kGraphInlined);
  EXPECT_EQ(f.orch->graphs_inlined(), 1u);
  EXPECT_EQ(f.orch->graph_cache().size(), 16u);
  // The inline run is an ordinary kernel task with live values: the window at 8, scalar 8.
  ASSERT_EQ(f.orch->submitted(), 17u);
  EXPECT_EQ(f.desc(16).kind, kKindKernel);
  EXPECT_EQ(f.desc(16).kernel_id, 4);
  const TaskPayload p = f.payload(16);
  ASSERT_EQ(p.n_tensors, 2);
  ASSERT_EQ(p.n_scalars, 1);
  const uint64_t tfield = f.layout.seg.payload_at(16) + kPayloadTensorsField;
  const auto t0 = f.at<TensorArg>(tfield + static_cast<int64_t>(p.tensors));
  EXPECT_EQ(t0.offset_bytes, 32u);
  const uint64_t sfield = f.layout.seg.payload_at(16) + kPayloadScalarsField;
  EXPECT_EQ(f.at<uint64_t>(sfield + static_cast<int64_t>(p.scalars)), 8u);
  EXPECT_EQ(f.fanin(16), std::vector<int32_t>{15});  // writes c after the last replay
  // A later miss is inlined again; a hit still replays.
  EXPECT_EQ(submit(17, 0), kGraphInlined);
  EXPECT_EQ(f.orch->graphs_inlined(), 2u);
  EXPECT_EQ(submit(3, 4), 18);
  EXPECT_EQ(f.desc(18).kind, kKindGraph);
  EXPECT_FALSE(f.orch->latched());
}

TEST(Graph, graph_nodes_0_and_1025) {
  const GraphFn nodes = [](GraphRecorder& r) {
    for (uint32_t i = 0; i < r.scalar(0).value(); ++i) {
      Args a(r);
      a.add_output_existing(r.boundary(0)).add_scalar(i);
      r.submit(0, a);
    }
  };
  for (uint64_t n : {0u, 1u, 1024u, 1025u}) {
    SCOPED_TRACE(n);
    GraphFixture f;
    GraphArgs g(*f.orch);
    g.add_inout(f.entry(0, {4})).add_scalar(n);
    const TaskId id = f.orch->submit_graph(0, nodes, g);
    const bool ok = n == 1 || n == 1024;
    EXPECT_EQ(id, ok ? 0 : kNoTask);
    EXPECT_EQ(f.orch->error(), ok ? 0 : 5) << f.orch->error_detail();
    EXPECT_EQ(f.orch->submitted(), ok ? 1u : 0u);  // a failed recording claims nothing
    EXPECT_EQ(f.orch->graph_cache().size(), ok ? 1u : 0u);
    if (ok) {
      EXPECT_EQ(f.payload(0).n_nodes, n);
      const DefView d = f.def(0);
      EXPECT_EQ(d.h.n_nodes, n);
      if (n == 1024) {
        EXPECT_EQ(d.fanin(1023), std::vector<uint16_t>{1022});  // WAW chain
      }
    }
  }
}

TEST(Graph, graph_boundary_129_and_65) {
  for (int extra : {0, 1}) {
    GraphFixture f;
    TensorRef x = f.entry(0, {256});
    GraphArgs g(*f.orch);
    for (int i = 0; i < 128 + extra; ++i) g.add_input(win1(x, i, 1));
    EXPECT_EQ(f.orch->error(), extra ? 5 : 0);
    EXPECT_EQ(g.tensor_count(), 128u);
  }
  for (int extra : {0, 1}) {
    GraphFixture f;
    GraphArgs g(*f.orch);
    for (int i = 0; i < 64 + extra; ++i) g.add_scalar(static_cast<uint64_t>(i));
    EXPECT_EQ(f.orch->error(), extra ? 5 : 0);
    EXPECT_EQ(g.scalar_count(), 64u);
  }
  GraphFixture f;  // and a tensor after a scalar
  GraphArgs g(*f.orch);
  g.add_scalar(1).add_input(f.entry(0, {4}));
  EXPECT_EQ(f.orch->error(), 5);
}

TEST(Graph, graph_output_boundary_5) {
  for (int which = 0; which < 4; ++which) {
    SCOPED_TRACE(which);
    GraphFixture f;
    TensorRef c = f.entry(0, {4}), out = c;
    GraphArgs g(*f.orch);
    if (which == 0) g.add_output(&out, Shape{4});
    if (which == 1) g.add_output_existing(c);
    if (which == 2) g.add_no_dep(c);
    if (which == 3) g.add_inout(c);  // control
    EXPECT_EQ(f.orch->error(), which == 3 ? 0 : 5);
    if (which == 0) {
      EXPECT_TRUE(out.is_null());
    }
  }
}

TEST(Graph, graph_body_restrictions_5) {
  // Scopes, nested graphs and wait_tensor latch 5 in a graph body, recorded or inline; so do
  // direct orchestrator calls while recording and a node writing an input boundary.
  const std::vector<std::function<void(GraphRecorder&)>> bodies = {
      [](GraphRecorder& r) { r.scope_begin(); },
      [](GraphRecorder& r) { r.scope_end(); },
      [](GraphRecorder& r) { r.wait_tensor(r.boundary(0)); },
      [](GraphRecorder& r) { r.submit_graph(1, scale_fn, GraphArgs(r.orchestrator())); },
      [](GraphRecorder& r) { r.orchestrator().scope_begin(); },
      [](GraphRecorder& r) {
        Args a(r.orchestrator());  // not Args(r): outside the recording
        a.add_output_existing(r.boundary(1)).add_scalar(1);
        r.submit(0, a);
      },
      [](GraphRecorder& r) {
        Args a(r);
        a.add_output_existing(r.boundary(0)).add_scalar(1);  // boundary 0 is an input
        r.submit(0, a);
      },
      [](GraphRecorder& r) {
        Args a(r);  // a hand-made slot past the boundary scalars
        a.add_output_existing(r.boundary(1)).add_scalar(ScalarSlot{3, 0, r.boundary(0).recording()});
        r.submit(0, a);
      },
      [](GraphRecorder& r) { r.boundary(2); },
      [](GraphRecorder& r) { r.scalar(0); },
  };
  for (size_t i = 0; i < bodies.size(); ++i) {
    SCOPED_TRACE(i);
    GraphFixture f;
    GraphArgs g(*f.orch);
    g.add_input(f.entry(0, {4})).add_inout(f.entry(1, {4}));
    EXPECT_EQ(f.orch->submit_graph(0, bodies[i], g), kNoTask);
    EXPECT_EQ(f.orch->error(), 5) << f.orch->error_detail();
    EXPECT_EQ(f.orch->graph_cache().size(), 0u);
  }
  GraphFixture f;  // control: a valid body
  GraphArgs g(*f.orch);
  g.add_input(f.entry(0, {4})).add_inout(f.entry(1, {4})).add_scalar(2);
  EXPECT_EQ(f.orch->submit_graph(0, scale_fn, g), 0);
  EXPECT_EQ(f.orch->error(), 0);
  // Inline runs keep the body rules (the cache is full).
  GraphFixture full;
  GraphArgs gi(*full.orch);
  gi.add_input(full.entry(0, {4})).add_inout(full.entry(1, {4})).add_scalar(2);
  for (uint32_t k = 0; k < 16; ++k) ASSERT_GE(full.orch->submit_graph(k, scale_fn, gi), 0);
  EXPECT_EQ(full.orch->submit_graph(
                16,
                [](GraphRecorder& r) {
                  scale_fn(r);
                  r.scope_begin();
                },
                gi),
            kNoTask);
  EXPECT_EQ(full.orch->error(), 5);
}

TEST(Graph, graph_alias_class_is_one_range) {
  // Two nodes write disjoint halves of boundary 1 and of boundary 0. When boundaries 0 and 1
  // are one buffer (an alias class), every pair conflicts; apart, nothing does.
  const GraphFn fn = [](GraphRecorder& r) {
    for (uint32_t b : {0u, 1u}) {
      Args a(r);
      a.add_output_existing(win1(r.boundary(b), 4 * b, 4)).add_scalar(b);
      r.submit(0, a);
    }
  };
  GraphFixture f;
  TensorRef x = f.entry(0, {8}), y = f.entry(1, {8});
  GraphArgs apart(*f.orch);
  apart.add_inout(x).add_inout(y);
  ASSERT_EQ(f.orch->submit_graph(0, fn, apart), 0);
  GraphArgs aliased(*f.orch);
  aliased.add_inout(x).add_inout(win1(x, 0, 8));
  ASSERT_EQ(f.orch->submit_graph(0, fn, aliased), 1);
  ASSERT_EQ(f.orch->graph_cache().size(), 2u);
  EXPECT_TRUE(f.def(0).fanin(1).empty());
  EXPECT_EQ(f.def(1).fanin(1), std::vector<uint16_t>{0});
  // Within one (singleton) boundary, exact windows: overlapping halves do conflict.
  const GraphFn same = [](GraphRecorder& r) {
    for (int64_t o : {0, 2}) {
      Args a(r);
      a.add_output_existing(win1(r.boundary(0), o, 4)).add_scalar(1);
      r.submit(0, a);
    }
  };
  GraphArgs one(*f.orch);
  one.add_inout(y);
  ASSERT_EQ(f.orch->submit_graph(1, same, one), 2);
  EXPECT_EQ(f.def(2).fanin(1), std::vector<uint16_t>{0});
}

TEST(Graph, graph_required_heap) {
  GraphFixture f;
  const GraphFn fn = [](GraphRecorder& r) {
    TensorRef o1, o2, buf[1];
    Args a(r);
    a.add_output(&o1, Shape{10}).add_scalar(1);  // 40 B -> 64
    r.submit(0, a);
    const Shape s[1] = {Shape{100}};  // 400 B -> 448
    r.alloc_tensors(s, buf);
    Args b(r);
    b.add_input(buf[0]).add_output(&o2, Shape{100});  // 400 B -> 448
    r.submit(1, b);
    Args c(r);
    c.add_input(win1(o2, 0, 8)).add_inout(r.boundary(0));
    r.submit(3, c);
    EXPECT_EQ(o1.base().raw(), graph_internal_base(0));
    EXPECT_EQ(buf[0].base().raw(), graph_internal_base(1));
    EXPECT_EQ(o2.base().raw(), graph_internal_base(2));
    EXPECT_EQ(r.boundary(0).base().raw(), graph_boundary_base(0));
  };
  GraphArgs g(*f.orch);
  g.add_inout(f.entry(0, {8}));
  ASSERT_EQ(f.orch->submit_graph(0, fn, g), 0) << f.orch->error_detail();
  const DefView d = f.def(0);
  ASSERT_EQ(d.h.n_internal, 3u);
  EXPECT_EQ(d.internal_off(0), 0u);
  EXPECT_EQ(d.internal_off(1), 64u);
  EXPECT_EQ(d.internal_off(2), 512u);
  EXPECT_EQ(d.internal_off(3), 960u);
  EXPECT_EQ(d.h.required_heap, 960u);
  EXPECT_EQ(d.fanin(2), std::vector<uint16_t>{1});  // internal RAW
  EXPECT_EQ(d.fanin(3), std::vector<uint16_t>{2});
  const uint64_t block = 960 + 64 * 6 + 8 * 1 + graph_storage_bytes(4);
  EXPECT_EQ(f.orch->graph_submissions()[0].block_bytes, block);
  EXPECT_EQ(f.orch->graph_heap().high_water(), align64(block));
  // required_heap + args (64 + 8) + storage (136) <= INT32_MAX: 2^31 - 48 fits, 2^31 + 16 not.
  for (int64_t elems : {int64_t{536870848}, int64_t{536870864}}) {
    SCOPED_TRACE(elems);
    GraphFixture big;
    const GraphFn one = [elems](GraphRecorder& r) {
      TensorRef o;
      Args a(r);
      a.add_output(&o, Shape{elems}).add_scalar(0);
      r.submit(0, a);
    };
    GraphArgs none(*big.orch);
    const bool fits = elems == 536870848;
    EXPECT_EQ(big.orch->submit_graph(0, one, none), fits ? 0 : kNoTask);
    EXPECT_EQ(big.orch->error(), fits ? 0 : 5) << big.orch->error_detail();
    if (fits) {
      EXPECT_EQ(big.orch->graph_submissions()[0].block_bytes, (1ull << 31) - 48);
    }
  }
}

TEST(Graph, graph_hash_stable) {
  // The same function and key recorded by two orchestrators (other addresses, other slot
  // values) gives the same bytes and hash; the hash is FNV-1a-64 with its field zeroed.
  auto record = [](uint32_t fn_id, uint64_t entry_shift, uint64_t slot) {
    GraphFixture f;
    GraphArgs g(*f.orch);
    g.add_input(f.entry(entry_shift, {8})).add_inout(f.entry(entry_shift + 1, {8})).add_scalar(slot);
    EXPECT_EQ(f.orch->submit_graph(fn_id, chain_fn, g), 0) << f.orch->error_detail();
    return f.orch->graph_cache().at(0);
  };
  const GraphDefinition a = record(3, 0, 9), b = record(3, 5, 11), other = record(4, 0, 9);
  EXPECT_EQ(a.bytes, b.bytes);
  EXPECT_EQ(a.header.hash, b.header.hash);
  EXPECT_EQ(a.header.hash, graph_def_hash(a.bytes));
  uint64_t stored = 0;
  std::memcpy(&stored, a.bytes.data() + offsetof(GraphDefHeader, hash), 8);
  EXPECT_EQ(stored, a.header.hash);
  std::vector<std::byte> zeroed = a.bytes;
  std::memset(zeroed.data() + offsetof(GraphDefHeader, hash), 0, 8);
  EXPECT_EQ(support::fnv1a64(support::kFnvOffset, zeroed.data(), zeroed.size()), a.header.hash);
  EXPECT_NE(other.header.hash, a.header.hash);  // fn_id is hashed
  // Positive control: one flipped byte no longer validates.
  std::vector<std::byte> bad = a.bytes;
  bad.back() ^= std::byte{1};
  const auto err = validate_graph_def_bytes(bad);
  ASSERT_TRUE(err.has_value());
  EXPECT_NE(err->find("hash"), std::string::npos) << *err;
}

}  // namespace
}  // namespace stackcheck::runtime
