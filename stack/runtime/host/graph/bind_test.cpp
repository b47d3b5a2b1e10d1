// Graphs through bind (RUNTIME.md §9, §10, §14): definitions uploaded once, submissions
// staged after the image in the one copy, and every image attach_populated accepts. Device
// memory is poisoned with 0xAA.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "stack/runtime/device/attach.h"
#include "stack/runtime/devmem/device_access.h"
#include "stack/runtime/host/test_support.h"

namespace stackcheck::runtime {
namespace {

using testing::BoundPlan;
using testing::parse_or_fail;
using testing::RuntimeBench;

// g: 1 node, 2 boundary tensors, 1 slot. h: 3 nodes, 1 boundary tensor, 3 slots.
constexpr const char* kThree = R"(config W=16
tensor x: In [16]
tensor c: InOut [8]
tensor d: InOut [4]
graph g(a, b) {
  submit scale(input a, output_existing b, scalar $0)
}
graph h(a) {
  submit fill(output_existing a, scalar $1)
  submit fill(output_existing a, scalar $0)
  submit fill(output_existing a, scalar $2)
}
submit_graph g(input x[0:8], inout c, scalar 3)
submit_graph h(inout d, scalar 1, scalar 2, scalar 3)
submit_graph g(input x[8:8], inout c, scalar 4)
)";

struct Shipped {
  RuntimeHeader rh;
  std::vector<GraphSubmission> subs;
  std::vector<DevAddr> at;
};

Shipped read_shipped(RuntimeBench& b) {
  DeviceAccess dev(b.mem);
  Shipped s;
  s.rh = dev.load<RuntimeHeader>(b.rt->last_plan().runtime_header);
  DevAddr cur = s.rh.submissions;
  for (uint32_t k = 0; k < s.rh.graph_count; ++k) {
    s.at.push_back(cur);
    s.subs.push_back(dev.load<GraphSubmission>(cur));
    cur = DevAddr(align64((cur + s.subs.back().record_bytes).raw()));
  }
  return s;
}

TEST(Graph, graph_submission_size_exact) {
  BoundPlan t(kThree);
  auto& [p, b, r] = t;
  ASSERT_EQ(r.status, 0) << r.detail;
  const Shipped s = read_shipped(b);
  ASSERT_EQ(s.rh.graph_count, 3u);
  const uint64_t image_end = sizeof(RuntimeHeader) + r.stats.image;
  EXPECT_EQ(s.rh.submissions, b.rt->last_plan().runtime_header + align64(image_end));
  EXPECT_EQ(s.rh.submissions.raw() % 64, 0u);
  // 48 + 64 n_bt + 8 n_bs, exactly; each record at ALIGN64 of the previous end.
  const uint64_t bytes[3] = {48 + 64 * 2 + 8 * 1, 48 + 64 * 1 + 8 * 3, 48 + 64 * 2 + 8 * 1};
  EXPECT_EQ(s.at[1] - s.at[0], 192u);
  EXPECT_EQ(s.at[2] - s.at[1], 192u);
  for (int k = 0; k < 3; ++k) {
    SCOPED_TRACE(k);
    EXPECT_EQ(s.subs[k].record_bytes, bytes[k]);
    EXPECT_EQ(s.subs[k].outer_id, k);
  }
  EXPECT_EQ(s.subs[1].n_bt, 1);
  EXPECT_EQ(s.subs[1].n_bs, 3);
  EXPECT_EQ(s.rh.submissions_bytes, 384 + bytes[2]);
  EXPECT_EQ(r.stats.reserved.submissions, s.rh.submissions_bytes);
  EXPECT_EQ(r.stats.shipped, align64(image_end) + s.rh.submissions_bytes);
  EXPECT_EQ(b.rt->last_plan().Q, 3u + 1024 * 3);  // pitch + 1024 per GRAPH task
  // graph_ctx of each outer payload (in the image) is its record.
  DeviceAccess dev(b.mem);
  const ImageHeader ih = dev.load<ImageHeader>(s.rh.image);
  for (uint64_t k = 0; k < 3; ++k) {
    const auto pl = dev.load<TaskPayload>(s.rh.image + ih.seg_off[kSegPayload] + k * sizeof(TaskPayload));
    EXPECT_EQ(pl.graph_ctx, s.at[k]);
    EXPECT_EQ(pl.n_nodes, k == 1 ? 3 : 1);
  }
  // Boundary tensors patched with this submission's windows; slots as passed.
  const auto t0 = dev.load<TensorArg>(s.at[2] + sizeof(GraphSubmission));
  EXPECT_EQ(t0.offset_bytes, 32u);
  EXPECT_EQ(t0.tag, kTagInput);
  EXPECT_EQ(t0.buffer_bytes, 64u);
  EXPECT_EQ(dev.load<uint64_t>(s.at[2] + sizeof(GraphSubmission) + 2 * sizeof(TensorArg)), 4u);
  EXPECT_EQ(dev.load<uint64_t>(s.at[1] + sizeof(GraphSubmission) + sizeof(TensorArg) + 16), 3u);
  EXPECT_EQ(s.subs[0].definition_addr, s.subs[2].definition_addr);  // one definition, two replays
  EXPECT_NE(s.subs[0].definition_addr, s.subs[1].definition_addr);
}

TEST(Graph, graph_storage_size_exact) {
  BoundPlan t(kThree);
  auto& [p, b, r] = t;
  ASSERT_EQ(r.status, 0) << r.detail;
  const Shipped s = read_shipped(b);
  DeviceAccess dev(b.mem);
  const auto h = dev.load<GraphDefHeader>(s.subs[1].definition_addr);
  EXPECT_EQ(h.storage_bytes, 32u + 128 * 2 + 104);  // not 32 + 128 * 3
  EXPECT_EQ(h.storage_bytes, graph_storage_bytes(3));
  // Blocks: [required_heap][args][storage], exact; 64-aligned in submission order.
  const uint64_t block_g = 0 + 64 * 2 + 8 * 1 + graph_storage_bytes(1), block_h = 64 * 3 + 8 * 3 + 392;
  EXPECT_EQ(s.subs[0].block_bytes, block_g);
  EXPECT_EQ(s.subs[1].block_bytes, block_h);
  EXPECT_EQ(s.subs[0].block_base, b.rt->graph_heap());
  EXPECT_EQ(s.subs[1].block_base, b.rt->graph_heap() + align64(block_g));
  EXPECT_EQ(s.subs[2].block_base, s.subs[1].block_base + align64(block_h));
  EXPECT_EQ(r.stats.graph_heap_high_water, 2 * align64(block_g) + align64(block_h));
  // The storage span ends at the last entry's full object: it fits, one byte past faults.
  const DevSpan storage{s.subs[1].block_base + (s.subs[1].block_bytes - h.storage_bytes), h.storage_bytes};
  EXPECT_NO_THROW(storage.load<GraphNodeStorage>(dev, graph_node_offset(2)));
  EXPECT_THROW(storage.load<GraphNodeStorage>(dev, graph_node_offset(2) + 1), DeviceFault);
  EXPECT_THROW(storage.at(h.storage_bytes, 1), DeviceFault);
}

TEST(Graph, graph_stats_line) {
  BoundPlan t(kThree);
  auto& [p, b, r] = t;
  ASSERT_EQ(r.status, 0) << r.detail;
  testing::expect_stats(
      r.stats, {.tasks = 3, .nodes = 5, .defs = 2, .inlined = 0, .h2d = 1, .def_h2d = 2, .graph_internal_heap = 0});
  const uint64_t def_bytes =
      b.rt->orchestrator().graph_cache().at(0).bytes.size() + b.rt->orchestrator().graph_cache().at(1).bytes.size();
  EXPECT_EQ(r.stats.reserved.definitions, def_bytes);
  EXPECT_EQ(b.reservations_named("graph_def:"), 2);
  const CopyCounters cc = b.mem.counters();
  EXPECT_EQ(cc.h2d_calls, r.stats.h2d + r.stats.def_h2d + r.stats.tensor_h2d);
  EXPECT_NE(r.stats.to_line().find("nodes=5 defs=2 inlined=0 h2d=1 def_h2d=2"), std::string::npos) << r.stats.to_line();
  // gint sums required_heap over submissions: two replays of 64 + 64 + 1024 B each.
  const OrchProgram q2 = parse_or_fail(R"(tensor c: InOut [8]
graph g(a) {
  alloc t: [8]
  submit copy(input a, output o: [8])
  alloc u: [256]
  submit acc(input t, inout a)
}
submit_graph g(inout c)
submit_graph g(inout c)
)");
  RuntimeBench b2(q2);
  const BindResult r2 = b2.rt->bind(q2);
  ASSERT_EQ(r2.status, 0) << r2.detail;
  EXPECT_EQ(r2.stats.graph_internal_heap, 2u * (64 + 64 + 1024));
  EXPECT_EQ(r2.stats.nodes, 8u);
}

TEST(Graph, graph_args_128_64_ok) {
  // 128 boundary tensors (disjoint windows of x) and 64 slots, bound and attached.
  std::string text = "tensor x: InOut [128]\ngraph g(";
  for (int i = 0; i < 128; ++i) text += fmt::format("{}p{}", i ? ", " : "", i);
  text += ") {\n";
  for (int i = 0; i < 128; ++i) text += fmt::format("  submit fill(output_existing p{}, scalar ${})\n", i, i % 64);
  text += "}\nsubmit_graph g(";
  for (int i = 0; i < 128; ++i) text += fmt::format("inout x[{}:1], ", i);
  for (int i = 0; i < 64; ++i) text += fmt::format("scalar {}{}", i, i < 63 ? ", " : ")\n");
  const OrchProgram p = parse_or_fail(text);
  RuntimeBench b(p);
  const BindResult r = b.rt->bind(p);
  ASSERT_EQ(r.status, 0) << r.detail;
  const Shipped s = read_shipped(b);
  ASSERT_EQ(s.subs.size(), 1u);
  EXPECT_EQ(s.subs[0].n_bt, 128);
  EXPECT_EQ(s.subs[0].n_bs, 64);
  EXPECT_EQ(s.subs[0].record_bytes, 48u + 64 * 128 + 8 * 64);
  EXPECT_EQ(r.stats.nodes, 128u);
  // One more tensor or scalar latches 5 before anything is uploaded.
  const std::string over = std::string(text).replace(text.rfind(")\n"), 2, ", scalar 64)\n");
  const BindResult r65 = RuntimeBench(parse_or_fail(over)).rt->bind(parse_or_fail(over));
  EXPECT_EQ(r65.status, -1005);
  EXPECT_EQ(r65.stats.h2d, 0u);
  EXPECT_EQ(r65.stats.def_h2d, 0u);
}

TEST(Graph, graph_inlined_through_bind) {
  // 17 graphs with distinct bodies: the 17th runs inline (stats), all attach.
  std::string text = "config W=64\ntensor c: InOut [4]\n";
  for (int k = 0; k < 17; ++k)
    text += fmt::format("graph g{}(a) {{\n  submit fill(output_existing a, scalar {})\n}}\n", k, k);
  for (int k = 0; k < 17; ++k) text += fmt::format("submit_graph g{}(inout c)\n", k);
  text += "submit_graph g0(inout c)\n";
  BoundPlan t(text);
  auto& [p, b, r] = t;
  ASSERT_EQ(r.status, 0) << r.detail;
  testing::expect_stats(r.stats, {.tasks = 18, .nodes = 17, .defs = 16, .inlined = 1, .def_h2d = 16});
  EXPECT_EQ(b.rt->orchestrator().task_log()[16].kind, kKindKernel);
  EXPECT_EQ(b.rt->orchestrator().task_log()[17].kind, kKindGraph);
}

TEST(Graph, graph_latch_uploads_nothing) {
  // A latch after a recording: no definition upload, no region; the definition stays cached
  // and is uploaded by the next bind that submits it.
  const OrchProgram bad = parse_or_fail(R"(tensor c: InOut [4]
graph g(a) {
  submit fill(output_existing a, scalar $0)
}
submit_graph g(inout c, scalar 1)
fatal
)");
  RuntimeBench b(bad);
  const BindResult r = b.rt->bind(bad);
  EXPECT_EQ(r.status, -1009);
  EXPECT_EQ(r.stats.def_h2d, 0u);
  EXPECT_EQ(r.stats.defs, 0u);
  EXPECT_EQ(b.reservations_named("graph_def:"), 0);
  EXPECT_EQ(b.reservations_named("region"), 0);
  EXPECT_EQ(b.rt->orchestrator().graph_cache().size(), 1u);
  const OrchProgram good = parse_or_fail(R"(tensor c: InOut [4]
graph g(a) {
  submit fill(output_existing a, scalar $0)
}
submit_graph g(inout c, scalar 2)
)");
  const BindResult r2 = b.rt->bind(good);
  ASSERT_EQ(r2.status, 0) << r2.detail;
  EXPECT_EQ(r2.stats.def_h2d, 1u);
  EXPECT_EQ(r2.stats.defs, 1u);
}

}  // namespace
}  // namespace stackcheck::runtime
