// PCT's rules (docs/scheduling.md "PCT", stack/runtime/device/pct.h) checked on the controller
// itself, driving real threads: n workers each take m scheduling points and log their index at
// each while they hold the turn. From the logs alone:
// - one worker runs at a time: the log holds m entries per worker (no entry lost or doubled);
// - a worker is preempted (the turn passes while it has points left) at most d-1 times: at
//   depth 1 every worker runs its points in one stretch;
// - the same seed gives the same log;
// - the n workers' priorities are a random order: over seeds at depth 1, every order of the
//   workers runs (n = 2 and 3);
// - each change point is uniform over the steps 1..k: over seeds at depth 2 with the first
//   worker's points outnumbering k, its one preemption falls after every step 1..k.
// Controls: a controller that never shuffles the priorities, one whose change point may fall on
// step 0 (so never on k), and one that preempts at depth 1 must fail.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <functional>
#include <set>
#include <thread>
#include <vector>

#include <gtest/gtest-spi.h>

#include "properties/gen/arbitrary.h"
#include "properties/property.h"
#include "stack/runtime/device/pct.h"

namespace stackcheck {
namespace {

struct PctRun {
  unsigned workers = 2, points = 1, depth = 1;
  uint64_t seed = 0, steps = 1;
};
using Log = std::vector<unsigned>;
using Controller = std::function<Log(const PctRun&)>;

// The stack's controller over n real threads.
Log stack_pct(const PctRun& r) {
  runtime::sched_detail::PctControl pct(r.workers, r.seed, r.depth, r.steps);
  Log log;  // written only by the worker holding the turn (handed over under the controller's lock)
  std::vector<std::thread> threads;
  for (unsigned w = 0; w < r.workers; ++w)
    threads.emplace_back([&, w] {
      pct.arrive(w);
      for (unsigned i = 0; i < r.points; ++i) {
        log.push_back(w);
        pct.point(w);
      }
      pct.leave(w);
    });
  for (std::thread& t : threads) t.join();
  return log;
}

// A flawed controller for the controls, run on one thread: priorities given or shuffled, change
// points drawn in 0..k-1 or 1..k, depth 1 with or without a change point.
enum class Flaw { kNoShuffle, kChangeAtZero, kPreemptAtDepth1 };
Log flawed_pct(const PctRun& r, Flaw flaw) {
  uint64_t x = r.seed;
  auto next = [&] {
    x += 0x9e3779b97f4a7c15ULL;
    uint64_t z = x;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  };
  const unsigned depth = flaw == Flaw::kPreemptAtDepth1 ? std::max(r.depth, 2u) : r.depth;
  std::vector<uint64_t> prio(r.workers);
  for (unsigned w = 0; w < r.workers; ++w) prio[w] = depth + w;
  if (flaw != Flaw::kNoShuffle)
    for (unsigned w = r.workers; w > 1; --w) std::swap(prio[w - 1], prio[next() % w]);
  std::vector<std::pair<uint64_t, uint64_t>> changes;
  for (unsigned i = 1; i < depth; ++i)
    changes.emplace_back((flaw == Flaw::kChangeAtZero ? 0 : 1) + next() % r.steps, i);
  std::sort(changes.begin(), changes.end());
  std::vector<unsigned> left(r.workers, r.points);
  Log log;
  size_t next_change = 0;
  for (uint64_t step = 1; log.size() < static_cast<size_t>(r.workers) * r.points; ++step) {
    unsigned best = r.workers;
    for (unsigned w = 0; w < r.workers; ++w)
      if (left[w] > 0 && (best == r.workers || prio[w] > prio[best])) best = w;
    log.push_back(best);
    --left[best];
    while (next_change < changes.size() && changes[next_change].first <= step)
      prio[best] = changes[next_change++].second;
  }
  return log;
}

// How often the turn left a worker that still had points.
unsigned preemptions(const Log& log, unsigned workers, unsigned points) {
  std::vector<unsigned> seen(workers, 0);
  unsigned n = 0;
  for (size_t i = 0; i < log.size(); ++i) {
    ++seen[log[i]];
    if (i + 1 < log.size() && log[i + 1] != log[i] && seen[log[i]] < points) ++n;
  }
  return n;
}

oracles::Verdict check_one_run(const Controller& pct, const PctRun& r) {
  const Log log = pct(r);
  const std::string what = fmt::format("PCT n={} m={} d={} k={} seed={}: log [{}]", r.workers, r.points, r.depth,
                                       r.steps, r.seed, fmt::join(log, " "));
  std::vector<unsigned> count(r.workers, 0);
  for (unsigned w : log)
    if (w < r.workers) ++count[w];
  if (log.size() != static_cast<size_t>(r.workers) * r.points || count != std::vector<unsigned>(r.workers, r.points))
    return oracles::Verdict::fail("pct-turns", what + ": each worker's points must each run once, one at a time");
  const unsigned p = preemptions(log, r.workers, r.points);
  if (p > r.depth - 1)
    return oracles::Verdict::fail("pct-depth", fmt::format("{}: {} preemptions; PCT at depth {} has {} change points",
                                                           what, p, r.depth, r.depth - 1));
  if (pct(r) != log) return oracles::Verdict::fail("pct-replay", what + ": the same seed gave another log");
  return oracles::Verdict::pass();
}

// Over `seeds` runs from `first`: every order of n workers at depth 1, and every step 1..k as
// the preemption of a 2-worker run at depth 2.
oracles::Verdict check_spread(const Controller& pct, uint64_t first) {
  for (unsigned n : {2u, 3u}) {
    std::set<Log> orders;
    const uint64_t seeds = n == 2 ? 64 : 128;  // a missing order by chance: under 1e-9
    for (uint64_t s = 0; s < seeds; ++s) {
      const Log log = pct(PctRun{n, 1, 1, first + s, 4});
      orders.insert(log);
    }
    const size_t want = n == 2 ? 2 : 6;
    if (orders.size() != want)
      return oracles::Verdict::fail(
          "pct-priorities", fmt::format("{} workers at depth 1 over {} seeds from {}: {} of the {} orders ran", n,
                                        seeds, first, orders.size(), want));
  }
  for (uint64_t k : {1u, 2u, 3u}) {
    std::set<size_t> at;
    for (uint64_t s = 0; s < 64; ++s) {  // a missing step by chance: under 1e-10
      const Log log = pct(PctRun{2, static_cast<unsigned>(k) + 1, 2, first + s, k});
      for (size_t i = 1; i < log.size(); ++i)
        if (log[i] != log[0]) {
          at.insert(i);
          break;
        }
    }
    std::set<size_t> want;
    for (size_t i = 1; i <= k; ++i) want.insert(i);
    if (at != want)
      return oracles::Verdict::fail(
          "pct-change-points", fmt::format("depth 2, k={} over 64 seeds from {}: the first worker was preempted after "
                                           "steps {{{}}}; a uniform change point in 1..k gives {{{}}}",
                                           k, first, fmt::join(at, ", "), fmt::join(want, ", ")));
  }
  return oracles::Verdict::pass();
}

void rules_case(const Controller& pct) {
  auto& c = gen::choices();
  PctRun r;
  r.workers = static_cast<unsigned>(c.integer(2, 4));
  r.points = static_cast<unsigned>(c.integer(1, 6));
  r.depth = static_cast<unsigned>(c.integer(1, 5));
  r.steps = static_cast<uint64_t>(c.integer(1, r.workers * r.points + 2));
  r.seed = static_cast<uint64_t>(c.integer(0, 1'000'000'000));
  props::report(check_one_run(pct, r));
}

// One case in 8 runs the spread (about 700 controller runs, 50 ms of threads): the statistic is
// whole in each, so a hundred of them would add cost, not power.
void spread_case(const Controller& pct, bool every_case = false) {
  auto& c = gen::choices();
  const auto first = static_cast<uint64_t>(c.integer(0, 1'000'000'000));
  if (every_case || c.integer(0, 7) == 0) props::report(check_spread(pct, first));
}

}  // namespace

STACKCHECK_PROP(PctRules, one_turn_at_a_time_and_at_most_d_minus_1_preemptions, 0.0) { rules_case(stack_pct); }
STACKCHECK_PROP(PctRules, priorities_and_change_points_spread_over_seeds, 0.0) { spread_case(stack_pct); }

STACKCHECK_CONTROL(PctRulesControl, a_controller_that_never_shuffles_fails, "pct-priorities") {
  spread_case([](const PctRun& r) { return flawed_pct(r, Flaw::kNoShuffle); }, true);
}
STACKCHECK_CONTROL(PctRulesControl, a_change_point_on_step_0_fails, "pct-change-points") {
  spread_case([](const PctRun& r) { return flawed_pct(r, Flaw::kChangeAtZero); }, true);
}
STACKCHECK_CONTROL(PctRulesControl, a_preemption_at_depth_1_fails, "pct-depth") {
  rules_case([](const PctRun& r) { return flawed_pct(r, Flaw::kPreemptAtDepth1); });
}

}  // namespace stackcheck
