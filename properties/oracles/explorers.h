// The explorers are inputs too (HARNESS.md §8): every runtime oracle runs under the schedule
// policies, so a policy that quietly explores less (ignores its seed, pops from the wrong
// end, serialises the workers) narrows every property at once. These oracles check what each
// policy promises on wide plans: `k` tasks over disjoint windows of one InOut tensor, all
// ready at once, so that every one of the k! orders is a legal dispatch order.
// - random:S: distinct seeds give distinct traces (at least half of N seeds, k >= 5);
// - newest (LIFO) dispatches k-1 .. 0 and oldest (FIFO) 0 .. k-1, the order the tasks were
//   classified ready in;
// - threaded: repeated runs of a wide plan of two rounds (each window written twice, so the
//   second round is released as the first completes), each unit dwelling a little as it
//   starts, visit more than one order. (With one round the threaded order is the ready ring's,
//   fixed by the classification, whatever the workers do.)
// The order is observed through ScheduleOptions::on_dispatch, the seam called as each unit
// starts, never read from the scheduler's own trace; for a single-threaded policy the two
// must also agree. A PolicyRun is what the oracle drives, so that a positive control can hand
// it a broken policy (one that ignores its seed, or a threaded run that is really newest).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "properties/oracles/oracle.h"
#include "stack/runtime/host/bind.h"

namespace stackcheck::oracles {

// One bind of a plan with the dispatch order observed as units start.
struct ObservedRun {
  runtime::BindResult result;
  std::vector<runtime::TraceEntry> dispatched;
};

// Binds `p` under `s` (its on_dispatch replaced by the observer). With a nonzero
// `dwell_seed`, the n-th unit to start then sleeps 50..400 us (splitmix64 of seed + n), so
// that threaded workers overlap and their interleaving varies from one attempt to the next.
// A serialised scheduler dispatches in one order whatever its units' durations.
ObservedRun run_observed(const runtime::OrchProgram& p, runtime::ScheduleOptions s, uint64_t dwell_seed = 0);
// How a check binds: `attempt` numbers the repeated runs of one check.
using PolicyRun =
    std::function<ObservedRun(const runtime::OrchProgram&, const runtime::ScheduleOptions&, uint64_t attempt)>;
// The real one: run_observed, with dwells seeded by the attempt under Threaded, none otherwise.
ObservedRun run_policy(const runtime::OrchProgram& p, const runtime::ScheduleOptions& s, uint64_t attempt);

// A wide plan: `rounds` rounds of `widths.size()` fills over disjoint consecutive windows of
// the InOut tensor `c` (its length the widths' sum), each writing its own value; task
// r * widths.size() + i is round r's fill of window i, and depends on round r-1's only.
std::string wide_plan_text(const std::vector<int>& widths, int rounds = 1);

// The distinct traces a policy must reach among `n` seeds of random:S on a wide plan of k
// tasks: n/2 for k >= 5 (k! >= 120 orders), else 1 (no claim).
size_t min_distinct_traces(size_t k, size_t n);

Verdict check_seeds_vary(const runtime::OrchProgram& wide, size_t k, const std::vector<uint64_t>& seeds,
                         const PolicyRun& run = run_policy);
Verdict check_defining_orders(const runtime::OrchProgram& wide, size_t k, const PolicyRun& run = run_policy);
// Up to `runs` threaded binds with `workers` workers of a plan of `tasks` tasks; at least two
// distinct orders.
Verdict check_threaded_varies(const runtime::OrchProgram& wide, size_t tasks, unsigned workers, size_t runs,
                              const PolicyRun& run = run_policy);

}  // namespace stackcheck::oracles
