// The schedule policies' promises, observed (explorers.h).
#include "properties/oracles/explorers.h"

#include <fmt/format.h>

#include <mutex>
#include <set>
#include <thread>

#include "stack/runtime/plan/parser.h"
#include "stack/support/splitmix.h"

namespace stackcheck::oracles {
namespace {

using Mode = runtime::ScheduleOptions::Mode;
using Trace = std::vector<runtime::TraceEntry>;

std::string trace_text(const Trace& t) {
  std::string out;
  for (const runtime::TraceEntry& e : t) {
    if (!out.empty()) out += ' ';
    out += e.node < 0 ? std::to_string(e.task) : fmt::format("{}.{}", e.task, e.node);
  }
  return out;
}

// The run completed and dispatched each of the k tasks exactly once (else a failure naming why).
std::optional<Verdict> check_run(const ObservedRun& r, size_t k, const std::string& what) {
  if (r.result.status != 0)
    return Verdict::fail("explorer-bind", fmt::format("{}: the wide plan's bind ended status={} ({})", what,
                                                      r.result.status, r.result.detail));
  std::set<int32_t> seen;
  for (const runtime::TraceEntry& e : r.dispatched)
    if (e.node >= 0 || e.task < 0 || static_cast<size_t>(e.task) >= k || !seen.insert(e.task).second)
      return Verdict::fail("explorer-dispatch",
                           fmt::format("{}: dispatched [{}], not each of the {} tasks once", what,
                                       trace_text(r.dispatched), k));
  if (seen.size() != k)
    return Verdict::fail("explorer-dispatch", fmt::format("{}: dispatched {} of the {} tasks", what, seen.size(), k));
  return std::nullopt;
}

}  // namespace

ObservedRun run_observed(const runtime::OrchProgram& p, runtime::ScheduleOptions s, uint64_t dwell_seed) {
  auto mu = std::make_shared<std::mutex>();
  auto seen = std::make_shared<Trace>();
  s.on_dispatch = [mu, seen, dwell_seed](const runtime::TraceEntry& e) {
    uint64_t n = 0;
    {
      std::lock_guard lk(*mu);
      n = seen->size();
      seen->push_back(e);
    }
    if (dwell_seed != 0)
      std::this_thread::sleep_for(std::chrono::microseconds(50 + support::SplitMix64(dwell_seed * 1000003 + n).next() % 351));
  };
  runtime::BindOptions o;
  o.schedule = std::move(s);
  ObservedRun out;
  out.result = runtime::bind_plan(p, o);
  std::lock_guard lk(*mu);
  out.dispatched = *seen;
  return out;
}

ObservedRun run_policy(const runtime::OrchProgram& p, const runtime::ScheduleOptions& s, uint64_t attempt) {
  return run_observed(p, s, s.mode == Mode::kThreaded ? attempt + 1 : 0);
}

std::string wide_plan_text(const std::vector<int>& widths, int rounds) {
  int total = 0;
  for (int w : widths) total += w;
  std::string out = fmt::format("config W=1024\ntensor c: InOut [{}]\n", total);
  for (int r = 0; r < rounds; ++r) {
    int off = 0;
    for (size_t i = 0; i < widths.size(); ++i) {
      out += fmt::format("submit fill(output_existing c[{}:{}], scalar {})\n", off, widths[i],
                         r * widths.size() + i + 1);
      off += widths[i];
    }
  }
  return out;
}

size_t min_distinct_traces(size_t k, size_t n) { return k >= 5 ? (n + 1) / 2 : 1; }

Verdict check_seeds_vary(const runtime::OrchProgram& wide, size_t k, const std::vector<uint64_t>& seeds,
                         const PolicyRun& run) {
  std::set<std::string> distinct;
  for (uint64_t seed : seeds) {
    runtime::ScheduleOptions s;
    s.mode = Mode::kRandom;
    s.seed = seed;
    const ObservedRun r = run(wide, s, 0);
    const std::string what = fmt::format("random:{}", seed);
    if (auto bad = check_run(r, k, what)) return *bad;
    if (!(r.dispatched == r.result.trace))
      return Verdict::fail("explorer-trace", fmt::format("{}: observed [{}] but the scheduler reported [{}]", what,
                                                         trace_text(r.dispatched), trace_text(r.result.trace)));
    distinct.insert(trace_text(r.dispatched));
  }
  const size_t need = min_distinct_traces(k, seeds.size());
  if (distinct.size() < need)
    return Verdict::fail("explorer-seeds",
                         fmt::format("random:S over {} seeds from {} gave {} distinct orders of {} independent tasks "
                                     "(at least {} expected; one of them: [{}])",
                                     seeds.size(), seeds.empty() ? 0 : seeds.front(), distinct.size(), k, need,
                                     distinct.empty() ? "" : *distinct.begin()));
  return Verdict::pass();
}

Verdict check_defining_orders(const runtime::OrchProgram& wide, size_t k, const PolicyRun& run) {
  for (Mode m : {Mode::kNewest, Mode::kOldest}) {
    runtime::ScheduleOptions s;
    s.mode = m;
    const ObservedRun r = run(wide, s, 0);
    const std::string what = runtime::schedule_mode_name(m);
    if (auto bad = check_run(r, k, what)) return *bad;
    Trace want;
    for (size_t i = 0; i < k; ++i) want.push_back({static_cast<int32_t>(m == Mode::kOldest ? i : k - 1 - i), -1});
    if (!(r.dispatched == want))
      return Verdict::fail("explorer-order",
                           fmt::format("{} dispatched [{}] where its order is [{}] ({} tasks, all ready at once)",
                                       what, trace_text(r.dispatched), trace_text(want), k));
    if (!(r.result.trace == r.dispatched))
      return Verdict::fail("explorer-trace", fmt::format("{}: observed [{}] but the scheduler reported [{}]", what,
                                                         trace_text(r.dispatched), trace_text(r.result.trace)));
  }
  return Verdict::pass();
}

Verdict check_threaded_varies(const runtime::OrchProgram& wide, size_t tasks, unsigned workers, size_t runs,
                              const PolicyRun& run) {
  std::set<std::string> distinct;
  std::string first;
  for (size_t i = 0; i < runs; ++i) {
    runtime::ScheduleOptions s;
    s.mode = Mode::kThreaded;
    s.workers = workers;
    const ObservedRun r = run(wide, s, i);
    if (auto bad = check_run(r, tasks, fmt::format("threaded ({} workers)", workers))) return *bad;
    distinct.insert(trace_text(r.dispatched));
    if (first.empty()) first = trace_text(r.dispatched);
    if (distinct.size() >= 2) return Verdict::pass();
  }
  return Verdict::fail("explorer-threaded",
                       fmt::format("{} threaded runs ({} workers) of {} tasks in two rounds all dispatched [{}]",
                                   runs, workers, tasks, first));
}

}  // namespace stackcheck::oracles
