// The scheduler through the whole runtime (RUNTIME.md §12, §15.5, §16 Scheduler cases):
// plans are parsed, orchestrated, compacted, uploaded and attached by bind, then scheduled
// in every mode; traces, unit order and the graph blocks left on the device are checked.
// The comparison of entry tensors with sequential execution (sched_threaded_vs_reference,
// sched_missing_edge_exposed) is the plan model's: properties/oracles/
// scheduler_plan_model_test.cpp, since stack/ tests do not include properties/. Device
// memory is poisoned 0xAA, so a read before a write shows.
#include "stack/runtime/device/scheduler.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "stack/runtime/host/bind.h"
#include "stack/runtime/host/runtime.h"
#include "stack/runtime/host/test_support.h"
#include "stack/runtime/image/graph_def.h"
#include "stack/runtime/image/self_relative.h"
#include "stack/runtime/plan/parser.h"

namespace stackcheck::runtime {
namespace {

using Mode = ScheduleOptions::Mode;
using Tensors = std::vector<std::vector<uint8_t>>;

using testing::parse_or_fail;
using testing::poisoned_bind_options;
using testing::read_corpus_plan;
using testing::RuntimeBench;

Tensors entries_of(const BindResult& r) {
  Tensors t;
  for (const EntryResult& e : r.entries) t.push_back(e.bytes);
  return t;
}

// Every unit (each task, each node of each GRAPH task) exactly once.
void expect_each_unit_once(const BindResult& r) {
  EXPECT_EQ(r.trace.size(), r.stats.tasks + r.stats.nodes);
  std::set<std::pair<int32_t, int32_t>> seen;
  for (const TraceEntry& e : r.trace) EXPECT_TRUE(seen.insert({e.task, e.node}).second) << e.task << "/" << e.node;
}

// Structure of every run of the shared plans: each unit dispatched exactly once, and every
// shipped image byte read (§15.5), in every mode.
TEST(Scheduler, sched_each_unit_once_in_every_mode) {
  for (const char* name : {"hazards_dag.plan", "wide_fan_reduce.plan", "example.plan", "loops_views.plan",
                           "graph_alias_internal.plan", "graph_frozen_view.plan", "graph_two_submissions.plan"}) {
    SCOPED_TRACE(name);
    const OrchProgram p = parse_or_fail(read_corpus_plan(name));
    std::vector<BindOptions> runs = {poisoned_bind_options(Mode::kNewest), poisoned_bind_options(Mode::kOldest)};
    for (unsigned workers : {1u, 4u}) runs.push_back(poisoned_bind_options(Mode::kThreaded, 0, workers));
    for (uint64_t s = 0; s < 4; ++s) runs.push_back(poisoned_bind_options(Mode::kRandom, s));
    for (const BindOptions& o : runs) {
      SCOPED_TRACE(fmt::format("{} seed={} workers={}", schedule_mode_name(o.schedule.mode), o.schedule.seed,
                               o.schedule.workers));
      const BindResult r = bind_plan(p, o);
      ASSERT_EQ(r.status, 0) << r.detail;
      expect_each_unit_once(r);
      EXPECT_EQ(r.stats.image_read, r.stats.image);
    }
  }
}

TEST(Scheduler, sched_trace_reproducible) {
  for (const std::string& text : {read_corpus_plan("hazards_dag.plan"), read_corpus_plan("wide_fan_reduce.plan")}) {
    const OrchProgram p = parse_or_fail(text);
    std::set<std::vector<std::pair<int32_t, int32_t>>> distinct;
    for (uint64_t s = 0; s < 6; ++s) {
      const BindResult a = bind_plan(p, poisoned_bind_options(Mode::kRandom, s));
      const BindResult b = bind_plan(p, poisoned_bind_options(Mode::kRandom, s));  // a fresh device, same image
      ASSERT_EQ(a.status, 0) << a.detail;
      ASSERT_EQ(b.status, 0) << b.detail;
      EXPECT_EQ(a.trace, b.trace) << "seed " << s;
      std::vector<std::pair<int32_t, int32_t>> key;
      for (const TraceEntry& e : a.trace) key.emplace_back(e.task, e.node);
      distinct.insert(key);
    }
    EXPECT_GT(distinct.size(), 1u);  // control: the seed does steer the order
    for (Mode m : {Mode::kNewest, Mode::kOldest}) {
      const BindResult a = bind_plan(p, poisoned_bind_options(m)), b = bind_plan(p, poisoned_bind_options(m, 99));
      EXPECT_EQ(a.trace, b.trace) << schedule_mode_name(m);  // the seed only matters to random
    }
    EXPECT_NE(bind_plan(p, poisoned_bind_options(Mode::kNewest)).trace,
              bind_plan(p, poisoned_bind_options(Mode::kOldest)).trace);
  }
  // The same image on another Runtime whose device memory sits elsewhere: same trace.
  const OrchProgram p = parse_or_fail(read_corpus_plan("hazards_dag.plan"));
  RuntimeBench b1(p), b2(p);
  b2.rt->bind(parse_or_fail("config W=256\nsubmit fill(output o: [8], scalar 1)\n"));  // moves b2's region
  const BindResult r1 = b1.rt->bind(p, poisoned_bind_options(Mode::kRandom, 3));
  const BindResult r2 = b2.rt->bind(p, poisoned_bind_options(Mode::kRandom, 3));
  ASSERT_EQ(r1.status, 0);
  ASSERT_EQ(r2.status, 0);
  EXPECT_EQ(r1.trace, r2.trace);
}

// Position of each unit; true when (1,-1) < nodes of 1 < (2,-1) < nodes of 2 < (3,-1).
bool outer_after_nodes(const std::vector<TraceEntry>& trace, std::string* why) {
  auto at = [&](int32_t t, int32_t n) {
    return std::find(trace.begin(), trace.end(), TraceEntry{t, n}) - trace.begin();
  };
  const auto end = static_cast<ptrdiff_t>(trace.size());
  for (int32_t g : {1, 2}) {
    for (int32_t j = 0; j < 4; ++j) {
      if (at(g, j) == end || at(g, -1) > at(g, j))
        return *why = fmt::format("node {}/{} before its outer", g, j), false;
      if (at(g + 1, -1) < at(g, j)) return *why = fmt::format("task {} before node {}/{}", g + 1, g, j), false;
    }
  }
  return true;
}

TEST(Scheduler, sched_graph_outer_after_nodes) {
  const OrchProgram p = parse_or_fail(read_corpus_plan("graph_two_submissions.plan"));
  // Every schedule leaves the same entries (their equality with sequential execution is
  // the plan model's test); the first run sets them.
  std::optional<Tensors> want;
  std::string why;
  // Positive control of the checker.
  std::vector<TraceEntry> bad = {{0, -1}, {1, -1}, {1, 0}, {1, 1}, {1, 2}, {2, -1}, {1, 3}};
  EXPECT_FALSE(outer_after_nodes(bad, &why));
  std::vector<BindOptions> runs = {poisoned_bind_options(Mode::kNewest), poisoned_bind_options(Mode::kOldest),
                                   poisoned_bind_options(Mode::kThreaded)};
  for (uint64_t s = 0; s < 8; ++s) runs.push_back(poisoned_bind_options(Mode::kRandom, s));
  for (const BindOptions& o : runs) {
    SCOPED_TRACE(fmt::format("{} seed={}", schedule_mode_name(o.schedule.mode), o.schedule.seed));
    RuntimeBench b(p);
    const BindResult r = b.rt->bind(p, o);
    ASSERT_EQ(r.status, 0) << r.detail;
    EXPECT_EQ(r.stats.nodes, 8u);
    if (!want) want = entries_of(r);
    EXPECT_EQ(entries_of(r), *want);
    expect_each_unit_once(r);
    EXPECT_TRUE(outer_after_nodes(r.trace, &why)) << why;
    EXPECT_EQ(r.stats.image_read, r.stats.image);
    // The graph blocks after the run: GraphExecution complete, every node DONE and released.
    DeviceAccess dev(b.mem);
    const auto rh = dev.load<RuntimeHeader>(b.rt->last_plan().runtime_header);
    ASSERT_EQ(rh.graph_count, 2u);
    DevAddr cur = rh.submissions;
    for (int32_t k = 0; k < 2; ++k) {
      const auto s = dev.load<GraphSubmission>(cur);
      const auto dh = dev.load<GraphDefHeader>(s.definition_addr);
      const DevSpan storage{s.block_base + dh.required_heap + graph_args_bytes(dh.n_tensor_args, dh.n_scalar_args),
                            dh.storage_bytes};
      const auto ex = storage.load<GraphExecution>(dev, 0);
      EXPECT_EQ(ex.magic, kGraphExecutionMagic);
      EXPECT_EQ(ex.n, 4u);
      EXPECT_EQ(ex.nodes_remaining, 0u);
      EXPECT_EQ(ex.outer, s.outer_id);
      for (uint32_t j = 0; j < 4; ++j) {
        const auto ns = storage.load<GraphNodeStorage>(dev, graph_node_offset(j));
        EXPECT_EQ(ns.descriptor.kind, kKindGraphNode);
        EXPECT_EQ(ns.descriptor.task_id, static_cast<int32_t>(j));
        EXPECT_EQ(ns.slot.state, kSlotDone);
        EXPECT_EQ(ns.fanin_remaining, 0);
        // Storage deltas resolve to this entry's own records.
        const DevAddr e = storage.addr + graph_node_offset(j);
        EXPECT_EQ(resolve(e + offsetof(GraphNodeStorage, slot) + kSlotDescField, ns.slot.desc), e);
        EXPECT_EQ(resolve(e + offsetof(GraphNodeStorage, slot) + kSlotPayloadField, ns.slot.payload),
                  e + offsetof(GraphNodeStorage, payload));
      }
      // The arg area: node 1's SLOT scalar is patched per replay (3, then 5), node 3's
      // LITERAL 7 is the same in both.
      const DevAddr scalars = s.block_base + dh.required_heap + uint64_t{dh.n_tensor_args} * sizeof(TensorArg);
      EXPECT_EQ(dev.load<uint64_t>(scalars), k == 0 ? 3u : 5u);
      EXPECT_EQ(dev.load<uint64_t>(scalars + 8), 7u);
      cur = DevAddr(align64((cur + s.record_bytes).raw()));
    }
  }
}

}  // namespace
}  // namespace stackcheck::runtime
