// The device state a completed bind leaves (oracles/after_run.h): SchedControl's counters,
// every task's slot and flag, and every graph block's arg area, node entries and
// GraphExecution, predicted from the shipped bytes and the definitions. Plans with graphs
// (replayed and not) under every schedule: the one-thread policies (newest, oldest, random:S),
// threads with 1 to 8 workers, and PCT. The fuzz targets' judges run the same oracle on every
// completed bind (judge/judges.cpp). Control (AfterRunControl): an oracle that expects a graph
// node's wake list closed, as a task's is, must fail.
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <fmt/format.h>

#include "properties/gen/arbitrary.h"
#include "properties/judge/cases.h"
#include "properties/oracles/after_run.h"
#include "properties/oracles/end_to_end.h"
#include "properties/oracles/image_checks.h"
#include "properties/oracles/status_codes.h"
#include "properties/property.h"
#include "stack/runtime/plan/printer.h"

using namespace stackcheck;
using oracles::Verdict;

namespace {

void after_run_case(oracles::AfterRunFlaw flaw) {
  gen::feature_tally().begin_case();
  gen::PlanKnobs k;
  k.min_graphs = gen::choices().chance(75) ? 1 : 0;
  const gen::GeneratedPlan g = gen::any_plan(k);
  runtime::BindOptions o;
  o.seed = static_cast<uint64_t>(gen::choices().sized(0, 999));
  o.schedule = judge::decode_schedule(gen::choices(), /*threaded=*/true);
  if (gen::choices().chance(25)) {  // PCT, or threads with a worker count of the case's own
    o.schedule.mode =
        gen::choices().boolean() ? runtime::ScheduleOptions::Mode::kPct : runtime::ScheduleOptions::Mode::kThreaded;
    o.schedule.workers = static_cast<unsigned>(gen::choices().integer(0, 8));
    o.schedule.seed = static_cast<uint64_t>(gen::choices().integer(0, 1 << 20));
  }
  gen::tag(fmt::format("schedule {}", runtime::schedule_mode_name(o.schedule.mode)));
  std::string why;
  auto bench = oracles::Bench::create(g.plan, 0xAA, /*strict_uninit=*/true, &why);
  if (!bench) props::report(Verdict::fail("config", "the generator's config was rejected: " + why));
  const oracles::Captured c = bench->bind(g.plan, o);
  const auto cx =
      props::counterexample("after-run", runtime::print_plan(g.plan),
                            {{"seed", std::to_string(o.seed)}, {"schedule", oracles::schedule_text(o.schedule)}});
  if (c.result.status != 0) {
    if (oracles::config_bound_status(c.result.status))
      props::report(Verdict::inconclusive(oracles::Inconclusive::kResourceLatch, runtime::status_line(c.result),
                                          oracles::latch_code(c.result.status).value_or(0)));
    props::report(Verdict::fail("bind-status", fmt::format("{} ({})", runtime::status_line(c.result), c.result.detail)),
                  cx);
  }
  gen::tag(c.result.stats.nodes > 0 ? "graph nodes ran" : "no graph node");
  props::report(oracles::check_after_run(c, bench->memory(), o.schedule, g.plan, flaw), cx);
}

}  // namespace

STACKCHECK_PROP(AfterRun, completed_binds_leave_the_predicted_state, 0.2) {
  after_run_case(oracles::AfterRunFlaw::kNone);
}

STACKCHECK_CONTROL(AfterRunControl, an_oracle_closing_node_wake_lists_fails, "wake") {
  after_run_case(oracles::AfterRunFlaw::kNodesOpenWakeLists);
}
