// The threaded scheduler end to end, with every worker count from 1 to 8 (HARNESS.md §2.1:
// ThreadSanitizer for the threaded scheduler; RUNTIME.md §15.11): the corpus programs and
// generated programs through the whole compiler against the reference interpreter (the
// end-to-end oracle under `schedule threaded`), the corpus plans and generated bind plans
// against the sequential plan model. Label `property` runs each property's default 100
// cases; the tsan preset also registers these cases under the label `tsan`, the programs
// property with 1,000 cases (properties/CMakeLists.txt), so that ThreadSanitizer watches the
// workers over every corpus input and 1,000 generated programs.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <utility>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "properties/gen/arbitrary.h"
#include "properties/gen/stress_plan.h"
#include "properties/oracles/after_run.h"
#include "properties/oracles/dispatch_threads.h"
#include "properties/oracles/image_checks.h"
#include "properties/oracles/end_to_end.h"
#include "properties/oracles/plan_model.h"
#include "properties/property.h"
#include "stack/ir/parser.h"
#include "stack/ir/printer.h"
#include "stack/runtime/plan/parser.h"
#include "stack/runtime/plan/printer.h"
#include "stack/runtime/status/codes.h"

using namespace stackcheck;

namespace {

constexpr unsigned kMaxWorkers = 8;

runtime::ScheduleOptions threaded(unsigned workers) {
  runtime::ScheduleOptions s = *oracles::parse_schedule("threaded");
  s.workers = workers;
  return s;
}

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << path;
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

std::vector<std::filesystem::path> corpus_files(const char* folder) {
  std::vector<std::filesystem::path> out;
  for (const auto& e : std::filesystem::directory_iterator(std::filesystem::path(STACKCHECK_CORPUS_DIR) / folder))
    out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

// A verdict whose failure names the worker count (the replay line's `--schedule threaded`
// uses the runtime's default count).
oracles::Verdict with_workers(oracles::Verdict v, unsigned workers) {
  if (v.failed()) v.message = fmt::format("threaded, workers={}: {}", workers, v.message);
  return v;
}

}  // namespace

TEST(Threaded, corpus_programs_every_worker_count) {
  size_t programs = 0;
  for (const std::filesystem::path& path : corpus_files("programs")) {
    ir::ParseResult parsed = ir::parse_program(read_file(path));
    ASSERT_TRUE(parsed.ok()) << path << ": " << parsed.error().to_string();
    ++programs;
    for (unsigned workers = 1; workers <= kMaxWorkers; ++workers)
      for (bool step_c : {true, false}) {
        const oracles::EndToEndRun run = oracles::check_end_to_end(
            parsed.program(), 0, threaded(workers), passes::PipelineOptions{.graph_boundary = {.step_c = step_c}});
        EXPECT_TRUE(run.verdict.passed())
            << path << " workers=" << workers << " step_c=" << step_c << ": " << run.verdict.to_string()
            << "\nreplay: stackcheck run " << path.string() << " --schedule threaded" << (step_c ? "" : " --no-step-c");
      }
  }
  EXPECT_GE(programs, 2u);
}

// Every corpus plan: a plan that completes sequentially must equal the plan model under
// every worker count; a plan that latches before upload (the fatal_* plans) must give the
// same status whatever the count (nothing runs).
TEST(Threaded, corpus_plans_every_worker_count) {
  size_t completed = 0;
  for (const std::filesystem::path& path : corpus_files("plans")) {
    runtime::PlanParseResult parsed = runtime::parse_plan(read_file(path));
    ASSERT_TRUE(parsed.ok()) << path << ": " << parsed.error().to_string();
    const runtime::OrchProgram& p = parsed.program();
    runtime::BindOptions o;
    o.fill_byte = 0xAA;
    o.schedule = *oracles::parse_schedule("oldest");
    const int sequential = runtime::bind_plan(p, o).status;
    completed += sequential == 0;
    for (unsigned workers = 1; workers <= kMaxWorkers; ++workers) {
      o.schedule = threaded(workers);
      const runtime::BindResult r = runtime::bind_plan(p, o);
      if (sequential != 0) {
        EXPECT_EQ(r.status, sequential) << path << " workers=" << workers << ": " << r.detail;
        continue;
      }
      ASSERT_EQ(r.status, 0) << path << " workers=" << workers << ": " << runtime::status_line(r) << " " << r.detail;
      const oracles::Verdict v = oracles::check_plan_model(p, 0, r);
      EXPECT_TRUE(v.passed()) << path << " workers=" << workers << ": " << v.to_string() << "\nreplay: stackcheck bind "
                              << path.string() << " --schedule threaded";
    }
  }
  EXPECT_GE(completed, 5u);
}

// Generated programs, compiled and run threaded with 1..8 workers, equal the reference
// interpreter (the end-to-end oracle).
STACKCHECK_PROP(Threaded, generated_programs_match_interpreter, 0.1) {
  const gen::GeneratedProgram g = gen::any_program();
  gen::tag_features(g.features);
  const uint64_t seed = static_cast<uint64_t>(gen::choices().sized(0, 999));
  const unsigned workers = static_cast<unsigned>(gen::choices().sized(1, kMaxWorkers));
  const bool step_c = gen::choices().boolean();
  props::require_legal_compile(g.program, step_c);
  // Mostly a small task window (a cheap mirror), sometimes the default one.
  std::vector<runtime::ConfigEntry> config;
  if (const size_t w = static_cast<size_t>(gen::choices().sized(0, 9)); w < 9) config.push_back({"W", w < 6 ? 256 : 1024, {}});
  const runtime::ScheduleOptions sched = threaded(workers);
  const oracles::EndToEndRun run = oracles::check_end_to_end(
      g.program, seed, sched, passes::PipelineOptions{.graph_boundary = {.step_c = step_c}}, config);
  std::map<std::string, std::string> params = {
      {"seed", std::to_string(seed)}, {"schedule", oracles::schedule_text(sched)}, {"step_c", step_c ? "1" : "0"}};
  if (!config.empty()) params["W"] = std::to_string(config[0].value);
  props::report(with_workers(run.verdict, workers),
                oracles::Counterexample{"end-to-end", ir::print_program(g.program), params, "", ""});
}

// Generated bind plans, run threaded with 1..8 workers, equal the sequential plan model.
STACKCHECK_PROP(Threaded, generated_plans_match_plan_model, 0.1) {
  const gen::GeneratedPlan g = gen::draw_plan();
  const uint64_t seed = static_cast<uint64_t>(gen::choices().sized(0, 999));
  const unsigned workers = static_cast<unsigned>(gen::choices().sized(1, kMaxWorkers));
  runtime::BindOptions o;
  o.seed = seed;
  o.schedule = threaded(workers);
  const oracles::DispatchThreads threads;
  threads.attach(o.schedule);
  oracles::Verdict v = oracles::check_plan_model(g.plan, seed, runtime::bind_plan(g.plan, o));
  if (v.passed()) v = threads.check(threaded(workers), g.plan);
  props::report(with_workers(v, workers),
                oracles::Counterexample{"plan-model",
                                        runtime::print_plan(g.plan),
                                        {{"seed", std::to_string(seed)}, {"schedule", "threaded"}},
                                        "",
                                        ""});
}

namespace {

// One stress-shaped plan (gen/stress_plan.h: fan-out, fan-in, chains, lattices and graph
// replays, thousands of tasks, several side by side), drawn and tagged, with its entry seed
// and the plan model's run.
struct StressCase {
  gen::StressPlan g;
  uint64_t seed = 0;
  oracles::PlanModelResult model;
};

StressCase draw_stress_case() {
  StressCase c;
  c.g = gen::draw_value<gen::StressPlan>([](gen::ChoiceSource& src) { return gen::generate_stress_plan(src); },
                                         gen::Size::kFull);
  for (gen::StressShape s : c.g.shapes) gen::tag(fmt::format("shape:{}", gen::stress_shape_name(s)));
  gen::tag(c.g.shapes.size() > 1 ? "shapes:several" : "shapes:one");
  gen::tag(c.g.tasks >= 1000 ? "tasks:1000+" : "tasks:<1000");
  c.seed = static_cast<uint64_t>(gen::choices().integer(0, 999));
  c.model = oracles::run_plan_model(c.g.plan, c.seed);
  return c;
}

void report_stress(const StressCase& c, const runtime::ScheduleOptions& sched, const std::string& how) {
  runtime::BindOptions o;
  o.seed = c.seed;
  o.schedule = sched;
  const oracles::DispatchThreads threads;
  threads.attach(o.schedule);
  std::string why;
  const auto bench = oracles::Bench::create(c.g.plan, std::nullopt, /*strict_uninit=*/false, &why);
  RC_ASSERT(bench != nullptr);
  const oracles::Captured bound = bench->bind(c.g.plan, o);
  oracles::Verdict v = oracles::check_plan_completes(c.model, bound.result);
  if (v.passed()) v = threads.check(sched, c.g.plan);
  if (v.passed()) v = oracles::check_after_run(bound, bench->memory(), sched, c.g.plan);
  if (v.failed()) v.message = fmt::format("{}: {}", how, v.message);
  props::report(v, oracles::Counterexample{"plan-completes",
                                        c.g.text,
                                        {{"seed", std::to_string(c.seed)}, {"schedule", oracles::schedule_text(sched)}},
                                        "",
                                        ""});
}

}  // namespace

// Stress-shaped plans under free-running threads (the plan's worker count), against the
// sequential plan model: the completion and claim protocol at scale, as the hand-written
// stress tests run it, on shapes and sizes they never had.
STACKCHECK_PROP(Threaded, stress_shaped_plans_threaded, 0.0) {
  const StressCase c = draw_stress_case();
  RC_ASSERT(c.model.ok());
  report_stress(c, threaded(c.g.workers), fmt::format("threaded, workers={}", c.g.workers));
}

// The same plans under PCT (controlled concurrency over the real workers, pct.h) at a drawn
// seed and depth 1..4: interleavings free threads rarely take, found again by the replay
// line (`--schedule pct:SEED:DEPTH`), since a PCT run is a function of its seed, depth and plan.
STACKCHECK_PROP(Threaded, stress_shaped_plans_under_pct, 0.0) {
  const StressCase c = draw_stress_case();
  RC_ASSERT(c.model.ok());
  runtime::ScheduleOptions pct;
  pct.mode = runtime::ScheduleOptions::Mode::kPct;
  pct.seed = static_cast<uint64_t>(gen::choices().integer(0, 1'000'000'000));
  pct.pct_depth = static_cast<unsigned>(gen::choices().integer(1, 4));
  report_stress(c, pct, oracles::schedule_text(pct));
}
