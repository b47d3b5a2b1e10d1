// Threaded stress shapes for the device scheduler (RUNTIME.md §12 Modes). The adversarial
// policies schedule deterministically on one thread and cannot see a lost wake-up or a
// completion race, so these shapes run threaded, with every worker count from 1 to 8, many
// times each:
//   fan_out     one producer and 4000 consumers, parked on its wake list together
//   fan_in      4096 producers reduced by 32 consumers of exactly 128 producers each (the
//               fanin limit, §7), then by one root of 32
//   chain       5000 tasks, each waiting on the one before
//   wide_graph  a 129-node graph (128 independent nodes, then one of fanin 128) replayed
//               32 times: 16 replays side by side, 16 chained through one accumulator
//   diamond     a 32x32 lattice, each cell waiting on its upper and its left neighbour
// Every run is judged by what the kernels wrote into device memory, never by a figure the
// scheduler keeps about itself: each shape's values have a closed form in which a consumer
// that ran before its producer reads a stale value and a unit that ran twice adds twice
// (every accumulating unit uses acc over a zeroed target), and the threaded result must
// equal a sequential (oldest) run byte for byte. The image's records must then show every
// task DONE and flagged with its wake list closed and its fanin scan finished, and every
// graph node DONE with its fanin released; the trace must hold every unit once.
// A run cannot hang: a lost wake-up leaves no unit to complete, and the progress timeout
// turns that into scheduler code 100 (status -1100), which fails the run with its detail.
// Repeats per worker count: STACKCHECK_STRESS_REPEATS, default 20, or 2 under
// ThreadSanitizer (these tests carry the ctest label `tsan` as well as `unit`).
#include "stack/runtime/device/scheduler.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "stack/runtime/host/bind.h"
#include "stack/runtime/host/runtime.h"
#include "stack/runtime/host/test_support.h"
#include "stack/runtime/image/graph_def.h"
#include "stack/runtime/image/records.h"

namespace stackcheck::runtime {
namespace {

using Mode = ScheduleOptions::Mode;
using testing::parse_or_fail;
using testing::poisoned_bind_options;
using testing::RuntimeBench;
using Why = std::optional<std::string>;

constexpr unsigned kMaxStressWorkers = 8;

unsigned repeats() {
  if (const char* s = std::getenv("STACKCHECK_STRESS_REPEATS")) {
    char* end = nullptr;
    const unsigned long v = std::strtoul(s, &end, 10);
    if (end != s && *end == '\0' && v >= 1 && v <= 100000) return static_cast<unsigned>(v);
    ADD_FAILURE() << "STACKCHECK_STRESS_REPEATS='" << s << "' is not a count in 1..100000";
  }
  return STACKCHECK_UNDER_TSAN ? 2 : 20;
}

// Generous: the timeout only has to tell a stall from a slow run (ThreadSanitizer, eight
// workers on two cores), and a stall costs it once before the test stops.
constexpr uint32_t kProgressTimeoutMs = STACKCHECK_UNDER_TSAN ? 30000 : 10000;

// ---- reading results ----

std::vector<uint32_t> elements(const BindResult& r, std::string_view name) {
  for (const EntryResult& e : r.entries)
    if (e.name == name) {
      std::vector<uint32_t> v(e.bytes.size() / 4);
      std::memcpy(v.data(), e.bytes.data(), 4 * v.size());
      return v;
    }
  return {};
}

// The first element of entry `name` that differs from `want` (and how many do).
Why differs(const BindResult& r, std::string_view name, const std::vector<uint32_t>& want) {
  const std::vector<uint32_t> got = elements(r, name);
  if (got.size() != want.size())
    return fmt::format("tensor {} has {} elements, expected {}", name, got.size(), want.size());
  size_t bad = 0, first = 0;
  for (size_t i = 0; i < got.size(); ++i)
    if (got[i] != want[i] && bad++ == 0) first = i;
  if (bad == 0) return std::nullopt;
  return fmt::format("tensor {} element {}: device {} != expected {} ({} of {} elements differ)", name, first,
                     got[first], want[first], bad, got.size());
}

template <class T>
T inspect(const DeviceMemory& mem, DevAddr a) {
  T v;
  mem.inspect(a, &v, sizeof v);
  return v;
}

// The records the scheduler left in the image: every task DONE and flagged, its wake list
// closed and its fanin scan at 0; every node of every graph submission DONE with no fanin
// left, and each GraphExecution at nodes_remaining 0. Read without touching read bits.
Why records_finished(const RuntimeBench& b) {
  const RegionPlan& plan = b.rt->last_plan();
  const auto h = inspect<ImageHeader>(b.mem, plan.image);
  for (uint32_t i = 0; i < h.n; ++i) {
    const auto s = inspect<SlotState>(b.mem, plan.image + h.seg_off[kSegSlot] + uint64_t{i} * sizeof(SlotState));
    const auto flag = inspect<uint8_t>(b.mem, plan.image + h.seg_off[kSegFlag] + i);
    if (s.state != kSlotDone || flag != 1 || s.wake_head != kWakeClosed || s.fanin_cursor != 0)
      return fmt::format("task {}: state {} flag {} wake_head {} fanin_cursor {} after the run", i, s.state, flag,
                         s.wake_head, s.fanin_cursor);
  }
  const auto rh = inspect<RuntimeHeader>(b.mem, plan.runtime_header);
  DevAddr cur = rh.submissions;
  for (uint64_t k = 0; k < rh.graph_count; ++k) {
    const auto sub = inspect<GraphSubmission>(b.mem, cur);
    const auto dh = inspect<GraphDefHeader>(b.mem, sub.definition_addr);
    const DevAddr storage = sub.block_base + dh.required_heap + graph_args_bytes(dh.n_tensor_args, dh.n_scalar_args);
    const auto ex = inspect<GraphExecution>(b.mem, storage);
    if (ex.nodes_remaining != 0)
      return fmt::format("graph task {}: nodes_remaining {} after the run", sub.outer_id, ex.nodes_remaining);
    for (uint32_t j = 0; j < dh.n_nodes; ++j) {
      const auto ns = inspect<GraphNodeStorage>(b.mem, storage + graph_node_offset(j));
      if (ns.slot.state != kSlotDone || ns.fanin_remaining != 0)
        return fmt::format("graph task {} node {}: state {} fanin_remaining {} after the run", sub.outer_id, j,
                           ns.slot.state, ns.fanin_remaining);
    }
    cur = DevAddr(align64((cur + sub.record_bytes).raw()));
  }
  return std::nullopt;
}

Why each_unit_once(const BindResult& r) {
  if (r.trace.size() != r.stats.tasks + r.stats.nodes)
    return fmt::format("trace of {} units for {} tasks + {} nodes", r.trace.size(), r.stats.tasks, r.stats.nodes);
  std::set<std::pair<int32_t, int32_t>> seen;
  for (const TraceEntry& e : r.trace)
    if (!seen.insert({e.task, e.node}).second) return fmt::format("unit {}/{} dispatched twice", e.task, e.node);
  return std::nullopt;
}

// ---- the shapes ----

struct StressShape {
  std::string plan;
  // The first value that differs from the shape's closed form (In entries are the inputs).
  std::function<Why(const BindResult&)> closed_form;
};

// Producer: x = 3 * a. Consumers: out[i] += x over a zeroed out, so out[i] = 3a exactly
// once each; an early consumer reads x's random entry value instead.
StressShape fan_out(uint32_t consumers) {
  StressShape s;
  s.plan = fmt::format(R"(config W=8192
tensor a: In [1]
tensor x: InOut [1]
tensor out: InOut [{0}]
submit fill(output_existing out, scalar 0)
submit scale(input a, output_existing x, scalar 3)
for i = 0, {0}, 1 {{
  view o = out[i:1]
  submit acc(input x, inout o)
}}
)",
                       consumers);
  s.closed_form = [consumers](const BindResult& r) -> Why {
    const std::vector<uint32_t> a = elements(r, "a");
    if (a.size() != 1) return "no input a";
    const uint32_t x = 3 * a[0];
    if (Why w = differs(r, "x", {x})) return w;
    return differs(r, "out", std::vector<uint32_t>(consumers, x));
  };
  return s;
}

// Leaves x[g,j] += a[g,j] over a zeroed x; consumer g sums row g (128 producers, the
// limit) into s[0,g]; the root sums s into t.
StressShape fan_in(uint32_t groups) {
  StressShape s;
  s.plan = fmt::format(R"(config W=8192
tensor a: In [{0}, 128]
tensor x: InOut [{0}, 128]
tensor s: InOut [1, {0}]
tensor t: InOut [1, 1]
submit fill(output_existing x, scalar 0)
for g = 0, {0}, 1 {{
  for j = 0, 128, 1 {{
    view ag = a[g:1, j:1]
    view xg = x[g:1, j:1]
    submit acc(input ag, inout xg)
  }}
}}
for h = 0, {0}, 1 {{
  view row = x[h:1, 0:128]
  view sh = s[0:1, h:1]
  submit rowsum(input row, output_existing sh)
}}
submit rowsum(input s, output_existing t)
)",
                       groups);
  s.closed_form = [groups](const BindResult& r) -> Why {
    const std::vector<uint32_t> a = elements(r, "a");
    if (a.size() != 128u * groups) return "no input a";
    std::vector<uint32_t> sums(groups, 0);
    uint32_t total = 0;
    for (uint32_t g = 0; g < groups; ++g) {
      for (uint32_t j = 0; j < 128; ++j) sums[g] += a[128 * g + j];
      total += sums[g];
    }
    if (Why w = differs(r, "x", a)) return w;
    if (Why w = differs(r, "s", sums)) return w;
    return differs(r, "t", {total});
  };
  return s;
}

// c = 1, then c[k] += c[k-1] in order: c[k] = k + 1.
StressShape chain(uint32_t length) {
  StressShape s;
  s.plan = fmt::format(R"(config W=8192
tensor c: InOut [{0}]
submit fill(output_existing c, scalar 1)
for k = 1, {0}, 1 {{
  view prev = c[k - 1:1]
  view cur = c[k:1]
  submit acc(input prev, inout cur)
}}
)",
                       length);
  s.closed_form = [length](const BindResult& r) -> Why {
    std::vector<uint32_t> want(length);
    for (uint32_t k = 0; k < length; ++k) want[k] = k + 1;
    return differs(r, "c", want);
  };
  return s;
}

// Graph g: `nodes` independent nodes dst[j] += src[j], then one node summing dst into tot
// (its fanin is every other node). Per round, one replay into its own row of y and ty (the
// rows run side by side) and one into z and tz (these chain through their inout).
StressShape wide_graph(uint32_t nodes, uint32_t rounds) {
  StressShape s;
  s.plan = fmt::format(R"(config W=128
tensor a: In [1, {0}]
tensor y: InOut [{1}, {0}]
tensor ty: InOut [{1}, 1]
tensor z: InOut [1, {0}]
tensor tz: InOut [1, 1]
graph g(src, dst, tot) {{
  for j = 0, {0}, 1 {{
    view sj = src[0:1, j:1]
    view dj = dst[0:1, j:1]
    submit acc(input sj, inout dj)
  }}
  submit rowsum(input dst, output_existing tot)
}}
submit fill(output_existing y, scalar 0)
submit fill(output_existing z, scalar 0)
for r = 0, {1}, 1 {{
  view yr = y[r:1, 0:{0}]
  view tr = ty[r:1, 0:1]
  submit_graph g(input a, inout yr, inout tr)
  submit_graph g(input a, inout z, inout tz)
}}
)",
                       nodes, rounds);
  s.closed_form = [nodes, rounds](const BindResult& r) -> Why {
    const std::vector<uint32_t> a = elements(r, "a");
    if (a.size() != nodes) return "no input a";
    uint32_t sum = 0;
    std::vector<uint32_t> y, z(nodes);
    for (uint32_t j = 0; j < nodes; ++j) {
      sum += a[j];
      z[j] = rounds * a[j];
    }
    for (uint32_t k = 0; k < rounds; ++k) y.insert(y.end(), a.begin(), a.end());
    if (r.stats.nodes != 2ull * rounds * (nodes + 1))
      return fmt::format("{} graph nodes ran, expected {}", r.stats.nodes, 2ull * rounds * (nodes + 1));
    if (Why w = differs(r, "y", y)) return w;
    if (Why w = differs(r, "ty", std::vector<uint32_t>(rounds, sum))) return w;
    if (Why w = differs(r, "z", z)) return w;
    return differs(r, "tz", {rounds * sum});
  };
  return s;
}

// L = 0, then the top row and left column 1, then L[i,j] += L[i-1,j] and L[i,j] += L[i,j-1]
// (two tasks per cell): L[i,j] = C(i+j, i) mod 2^32.
StressShape diamond(uint32_t n) {
  StressShape s;
  s.plan = fmt::format(R"(config W=2048
tensor L: InOut [{0}, {0}]
submit fill(output_existing L, scalar 0)
view top = L[0:1, 0:{0}]
submit fill(output_existing top, scalar 1)
view side = L[1:{1}, 0:1]
submit fill(output_existing side, scalar 1)
for i = 1, {0}, 1 {{
  for j = 1, {0}, 1 {{
    view up = L[i - 1:1, j:1]
    view left = L[i:1, j - 1:1]
    view me = L[i:1, j:1]
    submit acc(input up, inout me)
    submit acc(input left, inout me)
  }}
}}
)",
                       n, n - 1);
  s.closed_form = [n](const BindResult& r) -> Why {
    std::vector<uint32_t> want(n * n, 1);
    for (uint32_t i = 1; i < n; ++i)
      for (uint32_t j = 1; j < n; ++j) want[i * n + j] = want[(i - 1) * n + j] + want[i * n + j - 1];
    return differs(r, "L", want);
  };
  return s;
}

// ---- running them ----

// One threaded run on `b`, judged against the closed form, the sequential reference and the
// records; nullopt when it holds.
Why run_once(RuntimeBench& b, const OrchProgram& p, const StressShape& shape, const BindResult& reference,
             unsigned workers) {
  BindOptions o = poisoned_bind_options(Mode::kThreaded, 0, workers);
  o.schedule.progress_timeout_ms = kProgressTimeoutMs;
  const BindResult r = b.rt->bind(p, o);
  if (r.status != 0)
    return fmt::format("{} ({}){}", status_line(r), r.detail,
                       r.status == -1100 ? ": no unit completed within the progress timeout (a lost wake-up?)" : "");
  if (Why w = shape.closed_form(r)) return w;
  if (r.entries != reference.entries) return std::string("entry tensors differ from the sequential run");
  if (Why w = records_finished(b)) return w;
  if (Why w = each_unit_once(r)) return w;
  if (r.stats.image_read != r.stats.image)
    return fmt::format("read {} of the {} shipped image bytes", r.stats.image_read, r.stats.image);
  return std::nullopt;
}

// Per worker count, the repeats bind on one Runtime (device memory poisoned 0xAA): the first
// on a fresh one, the later ones on its reused region, mirror and definition cache.
void stress(const StressShape& shape) {
  const OrchProgram p = parse_or_fail(shape.plan);
  ASSERT_FALSE(p.body.empty()) << shape.plan;
  // The reference: the oldest-first policy on one thread (a sequential run), which must
  // satisfy the closed form itself.
  RuntimeBench ref_bench(p);
  ASSERT_TRUE(ref_bench.rt);
  const BindResult reference = ref_bench.rt->bind(p, poisoned_bind_options(Mode::kOldest));
  ASSERT_EQ(reference.status, 0) << reference.detail;
  ASSERT_EQ(shape.closed_form(reference), std::nullopt);
  ASSERT_EQ(records_finished(ref_bench), std::nullopt);
  const unsigned reps = repeats();
  for (unsigned workers = 1; workers <= kMaxStressWorkers; ++workers) {
    RuntimeBench b(p);
    ASSERT_TRUE(b.rt);
    for (unsigned k = 0; k < reps; ++k)
      if (Why w = run_once(b, p, shape, reference, workers))
        FAIL() << fmt::format(
            "threaded, workers={}, repeat {} of {}: {}\nplan (run it with `config workers={}` "
            "and `stackcheck bind FILE --schedule threaded`):\n{}",
            workers, k + 1, reps, *w, workers, shape.plan);
  }
}

TEST(SchedulerStress, fan_out_4000_consumers) { stress(fan_out(4000)); }
TEST(SchedulerStress, fan_in_4096_producers_128_per_consumer) { stress(fan_in(32)); }
TEST(SchedulerStress, chain_5000) { stress(chain(5000)); }
TEST(SchedulerStress, wide_graph_129_nodes_32_replays) { stress(wide_graph(128, 16)); }
TEST(SchedulerStress, diamond_lattice_32x32) { stress(diamond(32)); }

// The shapes are what they claim: the fan-in consumers sit exactly at the fanin limit, and
// the fan-out producer's wake list really held the consumers (read from the image).
TEST(SchedulerStress, shapes_reach_their_limits) {
  {
    const OrchProgram p = parse_or_fail(fan_in(32).plan);
    RuntimeBench b(p);
    ASSERT_EQ(b.rt->bind(p, poisoned_bind_options(Mode::kOldest)).status, 0);
    const RegionPlan& plan = b.rt->last_plan();
    const auto h = inspect<ImageHeader>(b.mem, plan.image);
    ASSERT_EQ(h.n, 1u + 4096u + 32u + 1u);
    for (uint32_t i = 1 + 4096; i < h.n; ++i) {
      const auto pl =
          inspect<TaskPayload>(b.mem, plan.image + h.seg_off[kSegPayload] + uint64_t{i} * sizeof(TaskPayload));
      EXPECT_EQ(pl.n_fanin, i + 1 < h.n ? 128u : 32u) << "task " << i;
    }
  }
  {
    // One worker classifies every task before it runs any, so all 4000 consumers park on
    // the producer (task 1) and its wake count says so.
    const OrchProgram p = parse_or_fail(fan_out(4000).plan);
    RuntimeBench b(p);
    ASSERT_EQ(b.rt->bind(p, poisoned_bind_options(Mode::kThreaded, 0, 1)).status, 0);
    const RegionPlan& plan = b.rt->last_plan();
    const auto h = inspect<ImageHeader>(b.mem, plan.image);
    const auto s = inspect<SlotState>(b.mem, plan.image + h.seg_off[kSegSlot] + sizeof(SlotState));
    EXPECT_EQ(s.wake_count, 4000u);
  }
}

// Positive controls of the judges: a value off by one, a unit run twice and a stale read
// are each reported.
// A sequential (oldest-first) run of the shape, which must hold its closed form.
BindResult oldest_run(const StressShape& s) {
  testing::BoundPlan t(s.plan, poisoned_bind_options(Mode::kOldest));
  EXPECT_EQ(t.r.status, 0) << t.r.detail;
  EXPECT_EQ(s.closed_form(t.r), std::nullopt);
  return t.r;
}

TEST(SchedulerStress, judges_report_wrong_values) {
  const StressShape s = chain(8);
  const BindResult r = oldest_run(s);
  ASSERT_FALSE(HasFailure());
  BindResult bad = r;
  bad.entries[0].bytes[4 * 5] += 1;  // c[5] = 7 instead of 6
  const Why w = s.closed_form(bad);
  ASSERT_TRUE(w.has_value());
  EXPECT_EQ(*w, "tensor c element 5: device 7 != expected 6 (1 of 8 elements differ)");
  bad = r;
  bad.trace.push_back(bad.trace[3]);
  EXPECT_TRUE(each_unit_once(bad).has_value());
  // A consumer that ran before its producer: on the fan-out shape, out[i] then holds x's
  // entry value rather than 3a.
  const StressShape f = fan_out(4);
  BindResult fr = oldest_run(f);
  ASSERT_FALSE(HasFailure());
  for (EntryResult& e : fr.entries)
    if (e.name == "out") e.bytes[0] ^= 0x5A;
  EXPECT_TRUE(f.closed_form(fr).has_value());
}

}  // namespace
}  // namespace stackcheck::runtime
