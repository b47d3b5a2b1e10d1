// The pipeline over generated legal programs (COMPILER.md §8, HARNESS.md §3): every pass output
// passes its verifiers and keeps the program's semantics, the boundary invariants hold, illegal
// constructs are rejected with their code, the passes are deterministic and idempotent, the
// instruments change nothing, and ReturnParamsExplicit agrees with its pass; with the positive
// controls of the compiler oracles (CompilerOracles: each must report a failure when it should).
#include "properties/gen/arbitrary.h"
#include "properties/legal_pipeline.h"
#include "properties/oracles/compiler_oracles.h"
#include "properties/oracles/input_oracles.h"
#include "properties/oracles/instruments.h"
#include "properties/property.h"
#include "stack/ir/builder.h"
#include "stack/ir/parser.h"
#include "stack/ir/printer.h"
#include "stack/passes/legalize_graph_boundary.h"
#include "stack/passes/normalize_return_order.h"
#include "stack/passes/pass_manager.h"
#include "stack/passes/simplify.h"
#include "stack/verify/return_params_explicit.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <rapidcheck/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <memory>
#include <string>

using namespace stackcheck;
using props::draw;
using props::pipeline_or_fail;

namespace {

passes::PipelineOptions with_step_c(bool step_c) {
  passes::PipelineOptions o;
  o.graph_boundary.step_c = step_c;
  return o;
}

}  // namespace

// §8.1 + §8.6: every pass output passes WellFormed and its produced properties, and legal
// generated programs are accepted, with Step C and without.
STACKCHECK_PROP(Pipeline, pass_outputs_pass_their_verifiers, 0.0) {
  const gen::GeneratedProgram g = draw();
  pipeline_or_fail(g.program);
  pipeline_or_fail(g.program, with_step_c(false));
}

// §8.5: the interpreter gives the same bytes before and after every pass.
STACKCHECK_PROP(Pipeline, passes_preserve_semantics, 0.1) {
  const gen::GeneratedProgram g = draw();
  const uint64_t seed = static_cast<uint64_t>(gen::choices().sized(0, 999));
  const oracles::PipelineRun run = pipeline_or_fail(g.program);
  for (const auto& st : run.stages)
    props::report(
        oracles::check_same_semantics(g.program, st.program, seed, "after " + st.pass),
        oracles::Counterexample{"semantics", ir::print_program(g.program), {{"seed", std::to_string(seed)}}, "", ""});
}

// §8.4: pass and verifier node counts agree; §8.2: hoisted creates come from depth 0 and are
// InOut; §8.3: every graph-written tensor param is InOut.
// With Step C no create is left at loop depth 0 of a graph, without it none is hoisted.
STACKCHECK_PROP(Pipeline, boundary_invariants, 0.0) {
  const gen::GeneratedProgram g = draw();
  for (bool step_c : {true, false}) {
    pipeline_or_fail(g.program, with_step_c(step_c));
    props::report(
        oracles::check_boundary(g.program, step_c),
        oracles::Counterexample{"boundary", ir::print_program(g.program), {{"step_c", step_c ? "1" : "0"}}, "", ""});
  }
}

// Rejection path: a program with the one illegal construct `knob` plants is rejected by
// LegalizeGraphBoundary with `code` (input rejected), never a pass bug or a crash.
namespace {
void require_rejected(bool gen::ProgramKnobs::*knob, int code) {
  gen::ProgramKnobs knobs;
  knobs.*knob = true;
  const gen::GeneratedProgram g = draw(knobs);
  props::report(oracles::check_rejected(g.program, code),
                props::counterexample("rejection", ir::print_program(g.program), {{"code", std::to_string(code)}}));
}
}  // namespace

// A graph view whose offsets are neither derivable nor invariant: 211.
STACKCHECK_PROP(Pipeline, illegal_views_rejected_with_211, 0.0) {
  require_rejected(&gen::ProgramKnobs::illegal_view, 211);
}

// `full` in a graph region: 206.
STACKCHECK_PROP(Pipeline, graph_full_rejected_with_206, 0.0) {
  require_rejected(&gen::ProgramKnobs::illegal_full, 206);
}

// The fixed-point oracle run_pipeline applies to Simplify's output, shown a generated program
// Simplify has not seen (literal loops, `dim`, spelled literals): it must report one.
namespace {}  // namespace
STACKCHECK_CONTROL(PipelineControl, the_fixed_point_oracle_fails_on_unsimplified_input, "not its fixed point") {
  const gen::GeneratedProgram g = draw();
  props::report(oracles::check_simplified(g.program),
                oracles::Counterexample{"pipeline", ir::print_program(g.program), {}, "", ""});
}

// The pass manager's instruments (oracles/instruments.h): stop-after at every stage returns
// that stage's output, print-after-all prints every stage's output, verify off changes
// nothing, and the stage list finds each stage by its name. Controls: a manager that ignores
// stop_after, and one whose print-after-all prints nothing.
namespace {
void instruments_case(const oracles::ManagerFactory& make) {
  const gen::GeneratedProgram g = draw();
  props::report(oracles::check_instruments(g.program, make),
                props::counterexample("property", ir::print_program(g.program)));
}
}  // namespace

STACKCHECK_PROP(Pipeline, instruments_change_nothing, 0.0) { instruments_case(oracles::default_manager); }
STACKCHECK_CONTROL(PipelineControl, a_stop_after_that_never_stops_fails, "stop-after") {
  instruments_case([](passes::PassManagerOptions o) {
    o.stop_after.clear();
    return oracles::default_manager(std::move(o));
  });
}
STACKCHECK_CONTROL(PipelineControl, a_silent_print_after_all_fails, "print-after-all") {
  instruments_case([](passes::PassManagerOptions o) {
    o.print_after_all = false;
    return oracles::default_manager(std::move(o));
  });
}

// ReturnParamsExplicit run on its own, on generated programs (whose graph returns often name
// a rebound window rather than the param it traces to): it reports something exactly when
// NormalizeReturnOrder, the pass that produces the property, has something to change, and
// nothing on that pass's output.
namespace {
using PassFn = std::function<passes::PassResult(const ir::Program&)>;
passes::PassResult normalize_return_order(const ir::Program& p) { return passes::NormalizeReturnOrder().run(p); }
// ReturnParamsExplicit 101, predicted (COMPILER.md §4): one finding per resolvable return of a
// kernel whose param index is not above the previous resolvable return's, in program order,
// located at the kernel and naming both returns and their param indices. What differs, or
// nullopt.
std::optional<std::string> unpredicted_101(const ir::Program& p, const ir::Diagnostics& found) {
  std::vector<const ir::Diagnostic*> got;
  for (const ir::Diagnostic& d : found)
    if (d.code == 101) got.push_back(&d);
  size_t k = 0;
  for (const ir::Function& f : p.functions) {
    if (f.kind != ir::Function::Kind::Kernel) continue;
    std::optional<size_t> prev;
    std::string prev_name;
    for (const std::string& r : f.kernel_returns) {
      const auto it = std::find_if(f.params.begin(), f.params.end(), [&](const ir::Param& q) { return q.name == r; });
      if (it == f.params.end()) continue;
      const auto idx = static_cast<size_t>(it - f.params.begin());
      if (prev && idx <= *prev) {
        const std::string want = fmt::format("kernel '{}' return '{}' (param {}) after '{}' (param {}), at {}:{}",
                                             f.name, r, idx, prev_name, *prev, f.loc.line, f.loc.column);
        if (k == got.size()) return "no 101 finding for " + want;
        const ir::Diagnostic& d = *got[k++];
        const bool names = d.message.find("'" + r + "'") != std::string::npos &&
                           d.message.find("'" + prev_name + "'") != std::string::npos &&
                           d.message.find("'" + f.name + "'") != std::string::npos;
        if (d.location.function != f.name || d.location.line != f.loc.line || d.location.column != f.loc.column ||
            !names || !oracles::states_in_order(d.message, {static_cast<int64_t>(idx), static_cast<int64_t>(*prev)}))
          return fmt::format("the 101 finding for {} reads \"{}\" in '{}' at {}:{}", want, d.message,
                             d.location.function, d.location.line, d.location.column);
      }
      prev = idx;
      prev_name = r;
    }
  }
  if (k != got.size()) return "an unpredicted 101 finding: " + got[k]->render("");
  return std::nullopt;
}

using VerifierFn = std::function<ir::Diagnostics(const ir::Program&)>;
void return_order_case(const PassFn& normalize,
                       const VerifierFn& verifier = [](const ir::Program& p) { return verify::check_return_params_explicit(p); }) {
  const gen::GeneratedProgram g = draw();
  const ir::Diagnostics before = verifier(g.program);
  if (const std::optional<std::string> off = unpredicted_101(g.program, before))
    props::report(oracles::Verdict::fail("return-order", *off),
                  props::counterexample("return-order", ir::print_program(g.program)));
  const passes::PassResult n = normalize(g.program);
  const auto cx = [&] { return props::counterexample("return-order", ir::print_program(g.program)); };
  if (!n.ok)
    props::report(oracles::Verdict::fail("return-order", "NormalizeReturnOrder refused a legal program"), cx());
  const bool changed = ir::print_program(n.program) != ir::print_program(g.program);
  gen::tag(changed ? "normalized" : "already-explicit");
  if (before.empty() == changed)
    props::report(oracles::Verdict::fail("return-order",
                                         changed ? "NormalizeReturnOrder changed a program ReturnParamsExplicit accepts"
                                                 : "ReturnParamsExplicit reports " + before.front().render("") +
                                                       " but NormalizeReturnOrder changes nothing"),
                  cx());
  if (const ir::Diagnostics after = verify::check_return_params_explicit(n.program); !after.empty())
    props::report(oracles::Verdict::fail("return-order", "after NormalizeReturnOrder: " + after.front().render("")),
                  cx());
}
// The positive control: a "NormalizeReturnOrder" that changes nothing.
passes::PassResult identity_pass(const ir::Program& p) { return passes::PassResult::accepted(p); }
}  // namespace

STACKCHECK_PROP(Pipeline, return_order_verifier_agrees_with_its_pass, 0.0) {
  return_order_case(normalize_return_order);
}
STACKCHECK_CONTROL(PipelineControl, a_return_order_pass_that_changes_nothing_fails,
                   "NormalizeReturnOrder changes nothing") {
  return_order_case(identity_pass);
}
// And a ReturnParamsExplicit whose 101 findings name no function (a location lost).
STACKCHECK_CONTROL(PipelineControl, a_101_finding_without_its_function_fails, "the 101 finding for") {
  return_order_case(normalize_return_order, [](const ir::Program& p) {
    ir::Diagnostics d = verify::check_return_params_explicit(p);
    for (ir::Diagnostic& x : d)
      if (x.code == 101) x.location.function.clear();
    return d;
  });
}

// Passes are deterministic and idempotent.
STACKCHECK_PROP(Pipeline, passes_deterministic_idempotent, 0.0) {
  const gen::GeneratedProgram g = draw();
  const oracles::PipelineRun run = pipeline_or_fail(g.program);
  props::report(
      oracles::check_deterministic_idempotent([] { return std::make_unique<passes::Simplify>(); }, g.program));
  props::report(oracles::check_deterministic_idempotent([] { return std::make_unique<passes::NormalizeReturnOrder>(); },
                                                        run.stages[0].program));
  props::report(oracles::check_deterministic_idempotent(
      [] { return std::make_unique<passes::LegalizeGraphBoundary>(); }, run.stages[1].program));
}

// ---- positive controls: each oracle must fail on a defective input ----

namespace {

ir::Program parse_or_die(const char* text) {
  ir::ParseResult r = ir::parse_program(text);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().to_string());
  return r.ok() ? r.program() : ir::Program{};
}

const char* kAccProgram =
    "kernel ksc(x: In tensor<i32>[8], o: Out tensor<i32>[8], s: In i64) -> (o) = builtin scale\n"
    "orchestration main(x: In tensor<i32>[8], c: InOut tensor<i32>[8]) {\n"
    "  c1 = call ksc(x, c, 3)\n"
    "}\n";

// A pass that claims to produce WellFormed programs but drops the entry.
class DropEntry final : public passes::Pass {
 public:
  std::string_view name() const override { return "DropEntry"; }
  passes::PropertySet required() const override { return passes::kWellFormed; }
  passes::PropertySet produced() const override { return 0; }
  passes::PropertySet invalidated() const override { return 0; }
  passes::PassResult run(const ir::Program& in) override {
    passes::PassResult r;
    r.ok = true;
    r.program = in;
    r.program.functions.pop_back();
    return r;
  }
};

// A pass whose output differs between runs (a counter leaks into the program).
class Flaky final : public passes::Pass {
 public:
  std::string_view name() const override { return "Flaky"; }
  passes::PropertySet required() const override { return 0; }
  passes::PropertySet produced() const override { return 0; }
  passes::PropertySet invalidated() const override { return 0; }
  passes::PassResult run(const ir::Program& in) override {
    static int calls = 0;
    passes::PassResult r;
    r.ok = true;
    r.program = in;
    r.program.functions.back().body.push_back(ir::build::let("z" + std::to_string(calls++), ir::build::lit(1)));
    return r;
  }
};

}  // namespace

TEST(CompilerOracles, verify_instrument_blames_a_pass_producing_invalid_ir) {
  passes::PassManager pm;
  pm.add(std::make_unique<DropEntry>());
  const passes::PipelineResult r = pm.run(parse_or_die(kAccProgram));
  EXPECT_EQ(r.outcome, passes::Outcome::PassBug);
  EXPECT_EQ(r.pass, "DropEntry");
}

// props::require_legal_compile, which every property drawing a generated program runs: a
// program the pipeline rejects (a `full` planted in a graph, 206) must fail it as a false
// rejection, with a replayable `boundary` counterexample, never be discarded.
TEST(PipelineControl, require_legal_compile_fails_a_rejected_program) {
  size_t ran = 0;
  const bool held = rc::check("a rejected generated program", [&] {
    ++ran;
    gen::ProgramKnobs k;
    k.illegal_full = true;
    props::require_legal_compile(gen::draw_program(k).program, /*step_c=*/true);
  });
  EXPECT_FALSE(held) << "require_legal_compile let a rejected program pass";
  EXPECT_GE(ran, 1u);
  const auto file = std::filesystem::path(props::counterexample_dir()) /
                    "PipelineControl.require_legal_compile_fails_a_rejected_program.gir";
  std::ifstream in(file);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("# stackcheck boundary"), std::string::npos) << file;
  EXPECT_NE(text.find("false-rejection"), std::string::npos) << text.substr(0, 300);
}

TEST(CompilerOracles, run_pipeline_keeps_every_accepted_stage) {
  const std::string graph =
      "kernel kacc(x: In tensor<i32>[8], a: InOut tensor<i32>[8]) -> (a) = builtin acc\n"
      "graph g(x: In tensor<i32>[8], c: InOut tensor<i32>[8]) -> (tensor<i32>[8]) {\n"
      "  t = create [8]\n  BODY\n  t1 = call kacc(x, t)\n  c1 = call kacc(t1, c)\n  return c1\n}\n"
      "orchestration main(x: In tensor<i32>[8], c: InOut tensor<i32>[8]) {\n  call g(x, c)\n}\n";
  auto with = [&](const std::string& body) {
    std::string text = graph;
    text.replace(text.find("BODY"), 4, body);
    return parse_or_die(text.c_str());
  };
  const oracles::PipelineRun run = oracles::run_pipeline(with("s = 1 + 1"));
  ASSERT_TRUE(run.verdict.passed()) << run.verdict.to_string();
  ASSERT_EQ(run.stages.size(), 3u);
  EXPECT_EQ(run.stages[0].pass, "Simplify");
  EXPECT_NE(ir::print_program(run.stages[0].program).find("s = 2"), std::string::npos);
  EXPECT_EQ(run.stages[1].pass, "NormalizeReturnOrder");
  EXPECT_NE(ir::print_program(run.stages[1].program).find("return c\n"), std::string::npos);
  EXPECT_EQ(run.stages[2].pass, "LegalizeGraphBoundary");
  EXPECT_NE(ir::print_program(run.stages[2].program).find("t__graph_arg0 = create [8]"), std::string::npos);
  ASSERT_EQ(run.boundary_report.graphs.size(), 1u);
  EXPECT_EQ(run.boundary_report.graphs[0].appended.size(), 1u);
  // Without Step C the create stays; a rejection keeps the stages before it and no report.
  const oracles::PipelineRun kept =
      oracles::run_pipeline(with("s = 1"), passes::PipelineOptions{.graph_boundary = {.step_c = false}});
  ASSERT_TRUE(kept.verdict.passed()) << kept.verdict.to_string();
  EXPECT_TRUE(kept.boundary_report.graphs.at(0).appended.empty());
  const oracles::PipelineRun rejected = oracles::run_pipeline(with("f = full [8], 1"));
  EXPECT_EQ(rejected.verdict.kind, oracles::VerdictKind::Inconclusive);
  EXPECT_NE(rejected.verdict.message.find("LegalizeGraphBoundary rejected the input"), std::string::npos)
      << rejected.verdict.message;
  EXPECT_EQ(rejected.stages.size(), 2u);
  EXPECT_TRUE(rejected.boundary_report.graphs.empty());
}

TEST(CompilerOracles, semantics_oracle_reports_a_changed_scale) {
  const ir::Program p = parse_or_die(kAccProgram);
  ir::Program q = p;
  std::get<ir::InvokeRhs>(q.functions.back().body[0].rhs).invoke.args[2] = ir::build::lit(4);
  const oracles::Verdict v = oracles::check_same_semantics(p, q, 1, "mutant");
  EXPECT_TRUE(v.failed());
  EXPECT_NE(v.message.find("tensor c element 0"), std::string::npos) << v.message;
  EXPECT_TRUE(oracles::check_same_semantics(p, p, 1, "same").passed());
}

TEST(CompilerOracles, semantics_oracle_inconclusive_when_original_errs) {
  const ir::Program p = parse_or_die("orchestration main(c: InOut tensor<i32>[8]) {\n  z = 0\n  a = 1 / z\n}\n");
  EXPECT_EQ(oracles::check_same_semantics(p, p, 0, "same").kind, oracles::VerdictKind::Inconclusive);
}

TEST(CompilerOracles, node_count_oracle_reports_disagreement) {
  const ir::Program legal = parse_or_die(
      "kernel kacc(x: In tensor<i32>[8], a: InOut tensor<i32>[8]) -> (a) = builtin acc\n"
      "graph g(x: In tensor<i32>[8], c: InOut tensor<i32>[8]) -> (tensor<i32>[8]) {\n"
      "  c1 = call kacc(x, c)\n  return c\n}\n"
      "orchestration main(x: In tensor<i32>[8], c: InOut tensor<i32>[8]) {\n  call g(x, c)\n}\n");
  passes::LegalizeGraphBoundaryReport report;
  report.graphs.push_back({"g", 1, true, {}});
  EXPECT_TRUE(oracles::check_node_counts(legal, report).passed());
  report.graphs[0].node_count = 2;
  EXPECT_TRUE(oracles::check_node_counts(legal, report).failed());
}

TEST(CompilerOracles, hoist_oracle_reports_loop_create_and_in_create) {
  passes::LegalizeGraphBoundaryReport report;
  passes::AppendedParam a;
  a.name = "t";
  a.kind = passes::HoistKind::Create;
  a.dir = ir::Dir::InOut;
  report.graphs.push_back({"g", 1, true, {a}});
  EXPECT_TRUE(oracles::check_hoisted_creates(report).passed());
  report.graphs[0].appended[0].depth = 1;
  EXPECT_TRUE(oracles::check_hoisted_creates(report).failed());
  report.graphs[0].appended[0].depth = 0;
  report.graphs[0].appended[0].dir = ir::Dir::In;
  EXPECT_TRUE(oracles::check_hoisted_creates(report).failed());
}

TEST(CompilerOracles, write_oracle_reports_written_in_param) {
  // A hoisted create declared In but written by a launch: the historical defect.
  const ir::Program bad = parse_or_die(
      "kernel kacc(x: In tensor<i32>[8], a: InOut tensor<i32>[8]) -> (a) = builtin acc\n"
      "graph g(x: In tensor<i32>[8], c: InOut tensor<i32>[8], t: In tensor<i32>[8]) -> (tensor<i32>[8]) {\n"
      "  r = submit kacc(x, t)\n  t1 = r.0\n  v = slice(t1, [0], [4])\n  return c\n}\n"
      "orchestration main(x: In tensor<i32>[8], c: InOut tensor<i32>[8]) {\n  t = create [8]\n  call g(x, c, t)\n}\n");
  const oracles::Verdict v = oracles::check_graph_writes_inout(bad);
  EXPECT_TRUE(v.failed());
  EXPECT_NE(v.message.find("param t"), std::string::npos) << v.message;
  ir::Program good = bad;
  good.functions[1].params[2].dir = ir::Dir::InOut;
  EXPECT_TRUE(oracles::check_graph_writes_inout(good).passed());
}

TEST(CompilerOracles, determinism_oracle_reports_a_flaky_pass) {
  const ir::Program p = parse_or_die(kAccProgram);
  EXPECT_TRUE(oracles::check_deterministic_idempotent([] { return std::make_unique<Flaky>(); }, p).failed());
  EXPECT_TRUE(oracles::check_deterministic_idempotent([] { return std::make_unique<passes::Simplify>(); }, p).passed());
}
