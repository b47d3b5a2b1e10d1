// End-to-end properties (HARNESS.md §2.5, §3): the compiled program on the runtime reproduces
// the reference interpreter byte for byte under the threaded scheduler and seeded adversarial
// schedules, on every corpus program and on generated programs; every successful bind makes
// exactly one image copy and reads every shipped image byte.
#include "properties/gen/arbitrary.h"
#include "properties/oracles/end_to_end.h"
#include "properties/property.h"
#include "stack/codegen/codegen.h"
#include "stack/interp/interp.h"
#include "stack/ir/parser.h"
#include "stack/ir/printer.h"
#include "stack/passes/normalize_return_order.h"
#include "stack/passes/simplify.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <filesystem>
#include <functional>
#include <fstream>
#include <iterator>

using namespace stackcheck;

namespace {

std::vector<runtime::ScheduleOptions> schedules() {
  std::vector<runtime::ScheduleOptions> out;
  for (const char* s : {"threaded", "random:1", "random:977", "newest", "oldest"})
    out.push_back(*oracles::parse_schedule(s));
  return out;
}

}  // namespace

TEST(EndToEnd, corpus_programs_under_every_schedule) {
  size_t programs = 0;
  for (const auto& entry : std::filesystem::directory_iterator(STACKCHECK_CORPUS_DIR "/programs")) {
    std::ifstream in(entry.path(), std::ios::binary);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    ir::ParseResult parsed = ir::parse_program(text);
    ASSERT_TRUE(parsed.ok()) << entry.path() << ": " << parsed.error().to_string();
    ++programs;
    for (bool step_c : {true, false})
      for (const auto& sched : schedules())
        for (uint64_t seed : {0u, 5u}) {
          const oracles::EndToEndRun run = oracles::check_end_to_end(
              parsed.program(), seed, sched, passes::PipelineOptions{.graph_boundary = {.step_c = step_c}});
          EXPECT_TRUE(run.verdict.passed())
              << entry.path() << " step_c=" << step_c << " " << oracles::schedule_text(sched) << " seed " << seed
              << ": " << run.verdict.to_string() << "\nreplay: stackcheck run " << entry.path().string() << " --seed "
              << seed << " --schedule " << oracles::schedule_text(sched) << (step_c ? "" : " --no-step-c");
          EXPECT_EQ(run.bind.stats.h2d, 1u);
        }
  }
  EXPECT_GE(programs, 2u);
}

// Schedules drawn per case: the adversarial policies most of the time (a missing edge shows
// under a policy that runs a later ready task first), the threaded scheduler the rest.
runtime::ScheduleOptions draw_schedule() {
  const size_t k = static_cast<size_t>(gen::choices().sized(0, 9));
  if (k < 3) return *oracles::parse_schedule("newest");
  if (k < 7) return *oracles::parse_schedule("random:" + std::to_string(static_cast<uint64_t>(gen::choices().sized(0, (1 << 20) - 1))));
  if (k < 8) return *oracles::parse_schedule("oldest");
  return *oracles::parse_schedule("threaded");
}

STACKCHECK_PROP(EndToEnd, generated_programs_match_interpreter, 0.1) {
  const gen::GeneratedProgram g = gen::any_program();
  gen::tag_features(g.features);
  const uint64_t seed = static_cast<uint64_t>(gen::choices().sized(0, 999));
  const runtime::ScheduleOptions sched = draw_schedule();
  const bool step_c = gen::choices().boolean();
  props::require_legal_compile(g.program, step_c);
  // Mostly a small task window (a cheap mirror), sometimes the default one.
  std::vector<runtime::ConfigEntry> config;
  if (const size_t w = static_cast<size_t>(gen::choices().sized(0, 9)); w < 9) config.push_back({"W", w < 6 ? 256 : 1024, {}});
  const oracles::EndToEndRun run = oracles::check_end_to_end(
      g.program, seed, sched, passes::PipelineOptions{.graph_boundary = {.step_c = step_c}}, config);
  std::map<std::string, std::string> params = {
      {"seed", std::to_string(seed)}, {"schedule", oracles::schedule_text(sched)}, {"step_c", step_c ? "1" : "0"}};
  if (!config.empty()) params["W"] = std::to_string(config[0].value);
  props::report(run.verdict, oracles::Counterexample{"end-to-end", ir::print_program(g.program), params, "", ""});
}

// The interpreter's budget at its limit (COMPILER.md §7: an exhausted budget is an error with a
// location): a budget of exactly the steps a free run used gives the same outputs in the same
// steps; one step less ends in a Budget error. `run` is the interpreter (a control substitutes one).
using InterpRun = std::function<interp::Result(const ir::Program&, uint64_t, const interp::Options&)>;
oracles::Verdict interpreter_budget_verdict(const ir::Program& p, uint64_t seed, const InterpRun& run) {
  using oracles::Verdict;
  const interp::Result free = run(p, seed, {});
  if (!free.ok())
    return Verdict::inconclusive(oracles::Inconclusive::kInterpreterError, free.error().render());
  const uint64_t steps = free.outputs().steps;
  const auto same = [&](const interp::Outputs& o) {
    if (o.steps != steps || o.tensors.size() != free.outputs().tensors.size()) return false;
    for (size_t i = 0; i < o.tensors.size(); ++i)
      if (o.tensors[i].name != free.outputs().tensors[i].name || o.tensors[i].bytes != free.outputs().tensors[i].bytes)
        return false;
    return true;
  };
  const interp::Result exact = run(p, seed, interp::Options{.budget = steps});
  if (!exact.ok() || !same(exact.outputs()))
    return Verdict::fail("interp-budget",
                         fmt::format("a budget of exactly the {} steps of a free run {}", steps,
                                     exact.ok() ? fmt::format("ran otherwise ({} steps, other outputs or not)",
                                                              exact.outputs().steps)
                                                : "ended " + exact.error().render()));
  if (steps == 0) return Verdict::pass();
  const interp::Result short_by_one = run(p, seed, interp::Options{.budget = steps - 1});
  if (short_by_one.ok() || short_by_one.error().kind != interp::ErrorKind::Budget)
    return Verdict::fail("interp-budget",
                         fmt::format("a budget one short of the {} steps of a free run {}", steps,
                                     short_by_one.ok() ? std::string("ran to the end")
                                                       : "ended " + short_by_one.error().render()));
  return Verdict::pass();
}

STACKCHECK_PROP(EndToEnd, interpreter_budget_at_its_limit, 0.2) {
  const gen::GeneratedProgram g = gen::draw_program();
  const uint64_t seed = static_cast<uint64_t>(gen::choices().sized(0, 999));
  const auto run = [](const ir::Program& p, uint64_t s, const interp::Options& o) { return interp::run(p, s, o); };
  props::report(interpreter_budget_verdict(g.program, seed, run),
                props::counterexample("property", ir::print_program(g.program), {{"seed", std::to_string(seed)}}));
}

// Positive controls: an interpreter that charges one step more than it reports, and one that
// lets a run end one step past its budget.
TEST(EndToEndControl, interpreter_budget_one_off_is_reported) {
  const ir::ParseResult parsed = ir::parse_program(
      "kernel kacc(x: In tensor<i32>[4], acc: InOut tensor<i32>[4]) -> (acc) = builtin acc\n"
      "orchestration main(x: In tensor<i32>[4], c: InOut tensor<i32>[4]) {\n"
      "  for i in range(0, 3, 1) {\n"
      "    call kacc(x, c)\n"
      "  }\n"
      "}\n");
  ASSERT_TRUE(parsed.ok()) << parsed.error().to_string();
  const auto real = [](const ir::Program& p, uint64_t s, const interp::Options& o) { return interp::run(p, s, o); };
  ASSERT_TRUE(interpreter_budget_verdict(parsed.program(), 1, real).passed());
  const auto charges_one_more = [](const ir::Program& p, uint64_t s, const interp::Options& o) {
    interp::Options less = o;
    less.budget = o.budget - 1;
    return interp::run(p, s, less);
  };
  const oracles::Verdict a = interpreter_budget_verdict(parsed.program(), 1, charges_one_more);
  ASSERT_TRUE(a.failed());
  EXPECT_NE(a.message.find("exactly"), std::string::npos) << a.message;
  const auto one_past = [](const ir::Program& p, uint64_t s, const interp::Options& o) {
    interp::Options more = o;
    more.budget = o.budget + 1;
    return interp::run(p, s, more);
  };
  const oracles::Verdict b = interpreter_budget_verdict(parsed.program(), 1, one_past);
  ASSERT_TRUE(b.failed());
  EXPECT_NE(b.message.find("one short"), std::string::npos) << b.message;
}

// Positive control: the differential comparison reports a flipped byte, naming the element.
TEST(EndToEnd, differential_oracle_positive_control) {
  std::vector<std::pair<std::string, std::vector<uint8_t>>> want = {{"c", {1, 0, 0, 0, 2, 0, 0, 0}}};
  std::vector<runtime::EntryResult> got(1);
  got[0].name = "t0";
  got[0].bytes = {1, 0, 0, 0, 2, 0, 0, 0};
  // Equal bytes under another name are another tensor: matched by name as well as position.
  const oracles::Verdict renamed = oracles::compare_entries(want, got, "ctl");
  ASSERT_TRUE(renamed.failed());
  EXPECT_NE(renamed.message.find("entry tensor 0 is 't0' on the device, 'c' in the interpreter"), std::string::npos)
      << renamed.message;
  got[0].name = "c";
  EXPECT_TRUE(oracles::compare_entries(want, got, "ctl").passed());
  got[0].bytes[4] = 3;
  const oracles::Verdict v = oracles::compare_entries(want, got, "ctl");
  ASSERT_TRUE(v.failed());
  EXPECT_NE(v.message.find("tensor c element 1: device 3 != interpreter 2"), std::string::npos) << v.message;
  got.clear();
  EXPECT_TRUE(oracles::compare_entries(want, got, "ctl").failed());
}

// Positive control of the whole chain: without LegalizeGraphBoundary, the §1 example's view
// offset `n * 8` is computed inside the graph body, so it is frozen at recording and every
// replay reads the first window. The end-to-end comparison must expose that.
TEST(EndToEnd, control_frozen_offset_exposed_without_legalization) {
  std::ifstream in(STACKCHECK_CORPUS_DIR "/programs/example.gir", std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ir::ParseResult parsed = ir::parse_program(text);
  ASSERT_TRUE(parsed.ok());
  const ir::Program unlegalized = passes::normalize_return_order(passes::simplify(parsed.program()));
  const codegen::CodegenResult cg = codegen::generate_orchestration(unlegalized);
  ASSERT_TRUE(cg.ok);
  runtime::BindOptions opts;
  opts.seed = 3;
  opts.schedule = *oracles::parse_schedule("oldest");
  const runtime::BindResult r = runtime::bind_plan(cg.program, opts);
  ASSERT_EQ(r.status, 0) << runtime::status_line(r) << " " << r.detail;
  const interp::Result want = interp::run(parsed.program(), 3);
  ASSERT_TRUE(want.ok());
  std::vector<std::pair<std::string, std::vector<uint8_t>>> expected;
  for (const auto& t : want.outputs().tensors) expected.emplace_back(t.name, t.bytes);
  const oracles::Verdict v =
      oracles::compare_entries(expected, oracles::with_ir_names(r.entries, cg.program, cg.entry_names), "unlegalized");
  EXPECT_TRUE(v.failed()) << "a frozen view offset went unnoticed";
  EXPECT_NE(v.message.find("tensor c"), std::string::npos) << v.message;
  // The legalized program, on the same runtime, is equal.
  EXPECT_TRUE(oracles::check_end_to_end(parsed.program(), 3, opts.schedule).verdict.passed());
}
