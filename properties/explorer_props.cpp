// The explorers are inputs too (HARNESS.md §8, properties/oracles/explorers.h): the schedule
// policies every runtime oracle runs under keep their promises on generated wide plans
// (k tasks over disjoint windows, all ready at once; for the threaded check, two rounds of them). random:S gives distinct orders for
// distinct seeds, newest and oldest give their defining orders, repeated threaded runs visit
// more than one order. Positive controls (ExplorersControl): a random policy that ignores its
// seed, newest and oldest swapped, and a "threaded" run that is really newest must each fail.
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <fmt/format.h>

#include "properties/gen/arbitrary.h"
#include "properties/oracles/explorers.h"
#include "properties/property.h"
#include "stack/runtime/plan/parser.h"

using namespace stackcheck;
using Mode = runtime::ScheduleOptions::Mode;

namespace {

struct Wide {
  std::string text;
  runtime::OrchProgram plan;
  size_t k = 0;
};

// k windows (lo..hi, the ends favoured) of 1..8 elements, each written `rounds` times.
Wide draw_wide(gen::ChoiceSource& c, int64_t lo, int64_t hi, int rounds = 1) {
  std::vector<int> widths(static_cast<size_t>(c.near_edges(lo, hi)));
  for (int& w : widths) w = static_cast<int>(c.integer(1, 8));
  Wide w;
  w.text = oracles::wide_plan_text(widths, rounds);
  w.k = widths.size() * static_cast<size_t>(rounds);
  runtime::PlanParseResult parsed = runtime::parse_plan(w.text);
  if (!parsed.ok())
    props::report(oracles::Verdict::fail("explorer-plan", "the wide plan does not parse: " + parsed.error().message));
  w.plan = std::move(parsed.program());
  return w;
}

// A failure names the plan (the replay is the printed RapidCheck command: the case is drawn,
// not a file an oracle of `stackcheck replay` reruns).
void report(const oracles::Verdict& v, const Wide& w, const std::string& params = "") {
  props::report(v, fmt::format("{}the wide plan:\n{}", params.empty() ? "" : params + "; ", w.text));
}

void seeds_case(const oracles::PolicyRun& run) {
  gen::ChoiceSource& c = gen::choices();
  const Wide w = draw_wide(c, 5, 24);
  const uint64_t base = static_cast<uint64_t>(c.integer(0, INT64_MAX));
  std::vector<uint64_t> seeds;
  for (uint64_t i = 0; i < 16; ++i) seeds.push_back(base + i);  // neighbouring seeds: the policy must mix them
  report(oracles::check_seeds_vary(w.plan, w.k, seeds, run), w, fmt::format("seeds {}..{}", base, base + 15));
}

void orders_case(const oracles::PolicyRun& run) {
  gen::ChoiceSource& c = gen::choices();
  const Wide w = draw_wide(c, 1, 64);
  report(oracles::check_defining_orders(w.plan, w.k, run), w);
}

void threaded_case(const oracles::PolicyRun& run) {
  gen::ChoiceSource& c = gen::choices();
  const Wide w = draw_wide(c, 4, 16, 2);
  const unsigned workers = static_cast<unsigned>(c.integer(2, 8));
  report(oracles::check_threaded_varies(w.plan, w.k, workers, 20, run), w, fmt::format("{} workers", workers));
}

// The broken policies of the positive controls.
oracles::ObservedRun seed_ignored(const runtime::OrchProgram& p, const runtime::ScheduleOptions& s, uint64_t attempt) {
  runtime::ScheduleOptions t = s;
  t.seed = 0;
  return oracles::run_policy(p, t, attempt);
}
oracles::ObservedRun ends_swapped(const runtime::OrchProgram& p, const runtime::ScheduleOptions& s, uint64_t attempt) {
  runtime::ScheduleOptions t = s;
  if (s.mode == Mode::kNewest) t.mode = Mode::kOldest;
  if (s.mode == Mode::kOldest) t.mode = Mode::kNewest;
  return oracles::run_policy(p, t, attempt);
}
oracles::ObservedRun threaded_is_newest(const runtime::OrchProgram& p, const runtime::ScheduleOptions& s, uint64_t attempt) {
  runtime::ScheduleOptions t = s;
  if (s.mode == Mode::kThreaded) t.mode = Mode::kNewest;
  return oracles::run_policy(p, t, attempt);
}

}  // namespace

STACKCHECK_PROP(Explorers, random_seeds_give_distinct_orders, 0.0) { seeds_case(oracles::run_policy); }
STACKCHECK_PROP(Explorers, newest_and_oldest_give_their_orders, 0.0) { orders_case(oracles::run_policy); }
STACKCHECK_PROP(Explorers, threaded_runs_visit_several_orders, 0.0) { threaded_case(oracles::run_policy); }

TEST(ExplorersControl, a_random_policy_that_ignores_its_seed_fails) {
  EXPECT_FATAL_FAILURE(rc::detail::checkGTest([] { seeds_case(seed_ignored); }), "explorer-seeds");
}
TEST(ExplorersControl, newest_and_oldest_swapped_fail) {
  // One task has one order under every policy; the shrunk case has two.
  EXPECT_FATAL_FAILURE(rc::detail::checkGTest([] { orders_case(ends_swapped); }), "explorer-order");
}
TEST(ExplorersControl, a_threaded_run_that_is_really_newest_fails) {
  EXPECT_FATAL_FAILURE(rc::detail::checkGTest([] { threaded_case(threaded_is_newest); }), "explorer-threaded");
}
