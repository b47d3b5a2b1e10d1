// Compiler properties (COMPILER.md §8, HARNESS.md §3) over generated legal programs, and the
// positive controls of the compiler oracles (each must report a failure when it should).
#include "properties/gen/arbitrary.h"
#include "properties/gen/ir_breaker.h"
#include "properties/oracles/compiler_oracles.h"
#include "properties/oracles/end_to_end.h"
#include "properties/oracles/input_oracles.h"
#include "properties/oracles/instruments.h"
#include "properties/property.h"
#include "stack/codegen/codegen.h"
#include "stack/interp/interp.h"
#include "stack/ir/builder.h"
#include "stack/ir/parser.h"
#include "stack/ir/printer.h"
#include "stack/ir/walk.h"
#include "stack/passes/legalize_graph_boundary.h"
#include "stack/passes/normalize_return_order.h"
#include "stack/passes/pass_manager.h"
#include "stack/passes/simplify.h"
#include "stack/verify/graph_boundary_legalized.h"
#include "stack/verify/return_params_explicit.h"
#include "stack/verify/well_formed.h"

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
#include <map>
#include <optional>
#include <set>
#include <variant>

using namespace stackcheck;

namespace {

// Generated programs are legal by construction: a rejection is a false rejection (a fail),
// never an inconclusive case.
oracles::PipelineRun pipeline_or_fail(const ir::Program& p, const passes::PipelineOptions& o = {}) {
  oracles::PipelineRun run = oracles::run_pipeline(p, o);
  const oracles::Counterexample cx{
      "pipeline", ir::print_program(p), {{"step_c", o.graph_boundary.step_c ? "1" : "0"}, {"legal", "1"}}, "", ""};
  if (run.verdict.reason == oracles::Inconclusive::kInputRejected)
    props::report(oracles::Verdict::fail("false-rejection", run.verdict.message), cx);
  props::report(run.verdict, cx);
  // ... and every compile of one is judged by the boundary invariants (props::require_legal_compile)
  props::report(
      oracles::check_boundary_run(run, o.graph_boundary.step_c),
      oracles::Counterexample{
          "boundary", ir::print_program(p), {{"step_c", o.graph_boundary.step_c ? "1" : "0"}, {"legal", "1"}}, "", ""});
  return run;
}

passes::PipelineOptions with_step_c(bool step_c) {
  passes::PipelineOptions o;
  o.graph_boundary.step_c = step_c;
  return o;
}

gen::GeneratedProgram draw(const gen::ProgramKnobs& knobs = {}) { return gen::draw_program(knobs); }

}  // namespace

// §8.1 + §8.6: every pass output passes WellFormed and its produced properties, and legal
// generated programs are accepted, with Step C and without.
STACKCHECK_PROP(CompilerProps, pass_outputs_pass_their_verifiers, 0.0) {
  const gen::GeneratedProgram g = draw();
  pipeline_or_fail(g.program);
  pipeline_or_fail(g.program, with_step_c(false));
}

// §8.5: the interpreter gives the same bytes before and after every pass.
STACKCHECK_PROP(CompilerProps, passes_preserve_semantics, 0.1) {
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
STACKCHECK_PROP(CompilerProps, boundary_invariants, 0.0) {
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
STACKCHECK_PROP(CompilerProps, illegal_views_rejected_with_211, 0.0) {
  require_rejected(&gen::ProgramKnobs::illegal_view, 211);
}

// `full` in a graph region: 206.
STACKCHECK_PROP(CompilerProps, graph_full_rejected_with_206, 0.0) {
  require_rejected(&gen::ProgramKnobs::illegal_full, 206);
}

// One rule of GraphBoundaryLegalized broken in a legalized program (gen/ir_breaker.h): the
// verifier run on its own reports exactly that code, and LegalizeGraphBoundary, fed a
// program its predecessors never produce, rejects it with that code as well.
namespace {
// Codegen straight after a program the verifier would have stopped (COMPILER.md §6: its
// defence in depth): the rules it owns as well report their own code.
using Codegen = std::function<codegen::CodegenResult(const ir::Program&)>;
bool calls_graph(const std::vector<ir::Stmt>& body, const std::string& g) {
  for (const ir::Stmt& s : body) {
    if (const ir::Invoke* i = ir::invoke_of(s); i != nullptr && i->callee == g) return true;
    if (calls_graph(s.body, g) || calls_graph(s.else_body, g)) return true;
  }
  return false;
}
bool calls_graph(const ir::Program& p, const std::string& g) {
  for (const ir::Function& f : p.functions)
    if (calls_graph(f.body, g)) return true;
  return false;
}
void codegen_defence_case(const gen::BrokenProgram& b, const Codegen& generate) {
  static const std::map<int, int> kCodegenCode = {{202, 301}, {206, 302}, {217, 303},
                                                  {208, 304}, {204, 305}, {205, 305}};
  const auto it = kCodegenCode.find(b.code);
  if (it == kCodegenCode.end()) return;
  // 305 refuses a `submit_graph` with too many args (COMPILER.md §6): a graph that no statement
  // calls is never submitted, and its definition alone is not codegen's to refuse.
  if ((b.code == 204 || b.code == 205) && !calls_graph(b.program, b.graph)) return;
  const codegen::CodegenResult cg = generate(b.program);
  const bool has = std::any_of(cg.diagnostics.begin(), cg.diagnostics.end(),
                               [&](const ir::Diagnostic& x) { return x.code == it->second; });
  if (cg.ok || !has)
    props::report(oracles::Verdict::fail(
                      "codegen-code",
                      fmt::format("broke {} ({} in graph {}): codegen, run without the verifier, {} (expected {})",
                                  b.code, b.what, b.graph,
                                  cg.ok ? "accepted it"
                                        : "rejected it with " + std::to_string(cg.diagnostics.front().code) + ": " +
                                              cg.diagnostics.front().message,
                                  it->second)),
                  props::counterexample("verifier", ir::print_program(b.program), {{"code", std::to_string(b.code)}}));
}

using Verifier = std::function<ir::Diagnostics(const ir::Program&)>;
void broken_rule_case(const Verifier& verifier, const Codegen& generate = codegen::generate_orchestration) {
  const gen::GeneratedProgram g = draw();
  const oracles::PipelineRun run = pipeline_or_fail(g.program);
  const ir::Program legal = run.stages.back().program;
  const std::optional<gen::BrokenProgram> b = gen::draw_value<std::optional<gen::BrokenProgram>>(
      [legal](gen::ChoiceSource& c) { return gen::break_graph_rule(c, legal); });
  if (!b) props::report(oracles::Verdict::inconclusive(oracles::Inconclusive::kUnsupported, "no place for the rule"));
  gen::tag(fmt::format("code-{}", b->code));
  const auto cx = [&] {
    return props::counterexample("verifier", ir::print_program(b->program), {{"code", std::to_string(b->code)}});
  };
  const std::string what = fmt::format("{} ({} in graph {})", b->code, b->what, b->graph);
  const ir::Diagnostics d = verifier(b->program);
  std::set<int> codes;
  for (const ir::Diagnostic& x : d) codes.insert(x.code);
  if (codes != std::set<int>{b->code})
    props::report(oracles::Verdict::fail("verifier-code",
                                         fmt::format("broke {}: the verifier reported [{}]{}", what,
                                                     fmt::join(codes, ","), d.empty() ? "" : ": " + d.front().message)),
                  cx());
  codegen_defence_case(*b, generate);
  // The limit met exactly is legal everywhere: the verifier and the pass take it, and the
  // program runs end to end as the interpreter runs it (codegen and the runtime's limits too).
  if (b->at_limit) {
    gen::tag(fmt::format("at-limit-{}", b->code));
    const auto acx = [&] { return props::counterexample("end-to-end", ir::print_program(*b->at_limit)); };
    if (const ir::Diagnostics ad = verifier(*b->at_limit); !ad.empty())
      props::report(
          oracles::Verdict::fail("verifier-limit", fmt::format("{} in graph {} (legal): the verifier reported {}",
                                                               b->limit, b->graph, ad.front().render(""))),
          acx());
    if (const passes::PassResult ar = passes::legalize_graph_boundary(*b->at_limit); !ar.ok)
      props::report(
          oracles::Verdict::fail("pass-limit", fmt::format("{} in graph {} (legal): LegalizeGraphBoundary "
                                                           "rejected it: {}",
                                                           b->limit, b->graph, ar.diagnostics.front().render(""))),
          acx());
    const oracles::EndToEndRun e2e =
        oracles::check_end_to_end(*b->at_limit, 1, runtime::ScheduleOptions{}, {}, {{"W", 256, {}}});
    if (e2e.verdict.inconclusive() && e2e.verdict.reason == oracles::Inconclusive::kInputRejected)
      props::report(
          oracles::Verdict::fail("pipeline-limit", fmt::format("{} in graph {} (legal): the pipeline rejected "
                                                               "it: {}",
                                                               b->limit, b->graph, e2e.verdict.message)),
          acx());
    if (!e2e.verdict.inconclusive()) props::report(e2e.verdict, acx());
    gen::tag(e2e.verdict.inconclusive() ? "at-limit-e2e-inconclusive" : "at-limit-e2e-equal");
  }
  const passes::PassResult r = passes::legalize_graph_boundary(b->program);
  const bool has = std::any_of(r.diagnostics.begin(), r.diagnostics.end(),
                               [&](const ir::Diagnostic& x) { return x.code == b->code; });
  if (b->pass_owns && (r.ok || !has))
    props::report(oracles::Verdict::fail("pass-code", fmt::format("broke {}: LegalizeGraphBoundary {}", what,
                                                                  r.ok ? "accepted it"
                                                                       : "rejected it without that code: " +
                                                                             r.diagnostics.front().message)),
                  cx());
}
// The positive control: a verifier blind to launches under an if (215).
ir::Diagnostics verifier_blind_to_ifs(const ir::Program& p) {
  ir::Diagnostics d = verify::check_graph_boundary_legalized(p);
  std::erase_if(d, [](const ir::Diagnostic& x) { return x.code == 215; });
  return d;
}
void blind_verifier_case() {
  ++props::tally().cases;
  broken_rule_case(verifier_blind_to_ifs);
}
// The positive control of codegen's defence: a codegen that lets `full` in a graph through.
codegen::CodegenResult codegen_blind_to_full(const ir::Program& p) {
  codegen::CodegenResult r = codegen::generate_orchestration(p);
  std::erase_if(r.diagnostics, [](const ir::Diagnostic& x) { return x.code == codegen::kFullInGraph; });
  if (r.diagnostics.empty()) r.ok = true;
  return r;
}
void blind_codegen_case() {
  ++props::tally().cases;
  broken_rule_case(verify::check_graph_boundary_legalized, codegen_blind_to_full);
}
// The positive control of the at-limit twins: a verifier whose tensor-param limit is off by one
// (it refuses exactly 128).
ir::Diagnostics verifier_refusing_128_tensors(const ir::Program& p) {
  ir::Diagnostics d = verify::check_graph_boundary_legalized(p);
  for (const ir::Function& f : p.functions) {
    const auto n =
        std::count_if(f.params.begin(), f.params.end(), [](const ir::Param& q) { return q.type.is_tensor(); });
    if (f.kind == ir::Function::Kind::Graph && n == 128)
      d.push_back(ir::Diagnostic{"GraphBoundaryLegalized", 204, {f.name, 0, 0}, "more than 128 tensor params"});
  }
  return d;
}
void off_by_one_verifier_case() {
  ++props::tally().cases;
  broken_rule_case(verifier_refusing_128_tensors);
}
}  // namespace

TEST(CompilerPropsControl, a_verifier_refusing_the_limit_itself_fails) {
  EXPECT_FATAL_FAILURE(rc::detail::checkGTest(&off_by_one_verifier_case), "128 tensor params in graph");
}

STACKCHECK_PROP(CompilerProps, verifier_rules_broken_one_at_a_time, 0.5) {
  broken_rule_case(verify::check_graph_boundary_legalized);
}

// A rule broken at one call site only (gen::break_at_call_site, COMPILER.md §5.3 Step D):
// WellFormed takes the program (zz_s is a dynamic param in the graph), the pipeline is refused
// by LegalizeGraphBoundary with exactly one diagnostic, the breaker's code, on the line of a
// call of that graph, its message naming the hoisted definition and what it gives there; with
// the last legal offset at that site (11's twin) the program compiles and runs end to end as
// the interpreter runs it.
namespace {
using PipelineFn = std::function<oracles::PipelineRun(const ir::Program&)>;
void call_site_case(const PipelineFn& pipeline) {
  const gen::GeneratedProgram g = draw(gen::ProgramKnobs{.min_graphs = 1});
  const ir::Program source = g.program;
  const auto b = gen::draw_value<std::optional<gen::BrokenProgram>>(
      [source](gen::ChoiceSource& c) { return gen::break_at_call_site(c, source); });
  if (!b) props::report(oracles::Verdict::inconclusive(oracles::Inconclusive::kUnsupported, "no called graph"));
  gen::tag(fmt::format("code-{}", b->code));
  const std::string text = ir::print_program(b->program);
  const auto cx = [&] { return props::counterexample("pipeline", text, {{"code", std::to_string(b->code)}}); };
  const ir::ParseResult parsed = ir::parse_program(text);
  if (!parsed.ok())
    props::report(
        oracles::Verdict::fail("breaker", "the printed program does not parse: " + parsed.error().to_string()), cx());
  if (const ir::Diagnostics wf = verify::check_well_formed(parsed.program()); !wf.empty())
    props::report(oracles::Verdict::fail("well-formed-code", fmt::format("{}: WellFormed reported {}, where only a "
                                                                         "call site makes it static",
                                                                         b->what, wf.front().render(""))),
                  cx());
  const oracles::PipelineRun run = pipeline(parsed.program());
  const auto line_of = [&](uint32_t line) {
    size_t at = 0;
    for (uint32_t l = 1; l < line && at != std::string::npos; ++l)
      at = text.find('\n', at) == std::string::npos ? std::string::npos : text.find('\n', at) + 1;
    return at == std::string::npos ? std::string() : text.substr(at, text.find('\n', at) - at);
  };
  // One diagnostic per broken site, each on a line calling the graph, in program order.
  bool each = run.rejected_by == "LegalizeGraphBoundary" && run.diagnostics.size() == b->broken_sites;
  for (size_t i = 0; each && i < run.diagnostics.size(); ++i)
    each = run.diagnostics[i].code == b->code &&
           line_of(run.diagnostics[i].location.line).find(b->graph + "(") != std::string::npos &&
           (i == 0 || run.diagnostics[i - 1].location.line < run.diagnostics[i].location.line);
  if (b->broken_sites > 1) gen::tag("every call site broken");
  if (!each)
    props::report(oracles::Verdict::fail(
                      "pass-code",
                      fmt::format("{}: expected LegalizeGraphBoundary's {} on {} in program order, got {} "
                                  "({} diagnostics, the first: {})",
                                  b->what, b->code,
                                  b->broken_sites == 1 ? "that call's line"
                                                       : fmt::format("each of the {} calls' lines", b->broken_sites),
                                  run.rejected_by.empty() ? "acceptance" : run.rejected_by, run.diagnostics.size(),
                                  run.diagnostics.empty() ? run.verdict.message : run.diagnostics.front().render(""))),
                  cx());
  for (const ir::Diagnostic& d : run.diagnostics)
    for (const std::string& want : b->message_has)
      if (d.message.find(want) == std::string::npos)
        props::report(oracles::Verdict::fail("pass-message", fmt::format("{}: the message \"{}\" does not say \"{}\"",
                                                                         b->what, d.message, want)),
                      cx());
  if (b->at_limit) {
    gen::tag("at-limit-11");
    const oracles::EndToEndRun e2e =
        oracles::check_end_to_end(*b->at_limit, 1, runtime::ScheduleOptions{}, {}, {{"W", 256, {}}});
    if (e2e.verdict.inconclusive() && e2e.verdict.reason == oracles::Inconclusive::kInputRejected)
      props::report(oracles::Verdict::fail("pipeline-limit", fmt::format("{} (legal): the pipeline rejected it: {}",
                                                                         b->limit, e2e.verdict.message)),
                    props::counterexample("end-to-end", ir::print_program(*b->at_limit)));
    if (!e2e.verdict.inconclusive())
      props::report(e2e.verdict, props::counterexample("end-to-end", ir::print_program(*b->at_limit)));
  }
}
// The positive control: a pipeline whose LegalizeGraphBoundary lets a zero divisor hoisted to a
// call site through (its one 13 dropped, the program taken as it was).
oracles::PipelineRun pipeline_blind_to_hoisted_divisors(const ir::Program& p) {
  oracles::PipelineRun r = oracles::run_pipeline(p);
  if (r.diagnostics.size() == 1 && r.diagnostics.front().code == 13) {
    r.diagnostics.clear();
    r.rejected_by.clear();
    r.verdict = oracles::Verdict::pass();
  }
  return r;
}
void blind_call_site_case() {
  ++props::tally().cases;
  call_site_case(pipeline_blind_to_hoisted_divisors);
}
}  // namespace

STACKCHECK_PROP(CompilerProps, hoisting_rejected_at_the_one_call_site, 0.3) {
  call_site_case([](const ir::Program& p) { return oracles::run_pipeline(p); });
}
TEST(CompilerPropsControl, a_pass_blind_to_divisors_hoisted_to_a_call_site_fails) {
  EXPECT_FATAL_FAILURE(rc::detail::checkGTest(&blind_call_site_case), "expected LegalizeGraphBoundary's 13");
}

// Expression nodes of a shape the parser never builds (a binary with one or three operands),
// the first statement of a generated program's entry or of one of its graphs (`zz_m =
// <malformed>`): the stack's own contract for code-built programs (codegen/lowering.h,
// ir/invariance.h) is that nothing crashes on them: codegen run without the verifier refuses
// the program naming the malformed node, the reference interpreter reports it Invalid (in the
// entry, whose first statement always runs), the printer writes `<malformed>`, and the
// pipeline, whatever it decides, returns (ASan and the libstdc++ assertions watch the passes).
// WellFormed is silent on such a node (well_formed/expressions.cpp: "only reachable by
// code-built nodes"), so the pipeline takes the program: tagged, not judged (COMPILER.md says
// nothing of code-built nodes).
namespace {
void malformed_case(const Codegen& generate) {
  gen::GeneratedProgram g = draw();
  ir::Function* entry = nullptr;
  std::vector<ir::Function*> graphs;
  for (ir::Function& f : g.program.functions) {
    if (f.kind == ir::Function::Kind::Orchestration) entry = &f;
    if (f.kind == ir::Function::Kind::Graph) graphs.push_back(&f);
  }
  RC_ASSERT(entry != nullptr);
  const bool in_graph = !graphs.empty() && gen::choices().boolean();
  ir::Function* into = in_graph ? graphs[gen::choices().one_of(graphs.size())] : entry;
  ir::Expr bad;
  bad.kind = ir::Expr::Kind::Binary;
  bad.op = gen::choices().boolean() ? ir::BinOp::Add : ir::BinOp::Div;
  const size_t n = gen::choices().boolean() ? 1 : 3;
  for (size_t i = 0; i < n; ++i) {
    ir::Expr one;
    one.kind = ir::Expr::Kind::Int;
    one.value = static_cast<int64_t>(i) + 1;
    bad.args.push_back(one);
  }
  gen::tag(fmt::format("binary-of-{}{}", n, in_graph ? "-in-graph" : ""));
  ir::Stmt s;
  s.kind = ir::Stmt::Kind::Assign;
  s.name = "zz_m";
  s.rhs = ir::ExprRhs{bad};
  into->body.insert(into->body.begin(), s);
  const ir::Program& p = g.program;
  const std::string text = ir::print_program(p);
  const auto cx = [&] { return props::counterexample("property", text); };
  if (text.find("<malformed>") == std::string::npos)
    props::report(oracles::Verdict::fail("malformed", "the printer wrote the malformed node as something else"), cx());
  const codegen::CodegenResult cg = generate(p);
  if (cg.ok || cg.diagnostics.empty() || cg.diagnostics.front().message.find("malformed") == std::string::npos)
    props::report(oracles::Verdict::fail("malformed",
                                         fmt::format("codegen, run without the verifier, {}",
                                                     cg.ok ? std::string("emitted a plan")
                                                           : "refused it with " + cg.diagnostics.front().render(""))),
                  cx());
  const interp::Result r = interp::run(p, 1);
  if (in_graph) {
    // a graph may not run (a call in an untaken if): only a run that ends otherwise is wrong
    if (!r.ok() && r.error().kind == interp::ErrorKind::Invalid &&
        r.error().message.find("malformed") == std::string::npos)
      props::report(oracles::Verdict::fail("malformed", "the interpreter reported " + r.error().render()), cx());
  } else if (r.ok() || r.error().kind != interp::ErrorKind::Invalid ||
             r.error().message.find("malformed") == std::string::npos)
    props::report(oracles::Verdict::fail("malformed",
                                         fmt::format("the interpreter {}", r.ok() ? std::string("ran it to the end")
                                                                                  : "reported " + r.error().render())),
                  cx());
  const ir::Diagnostics wf = verify::check_well_formed(p);
  const oracles::PipelineRun run = oracles::run_pipeline(p);
  gen::tag(wf.empty() ? "well-formed-silent" : "well-formed-reports");
  gen::tag(run.verdict.passed() ? "pipeline-accepts" : run.verdict.failed() ? "pipeline-fails" : "pipeline-rejects");
}
// The positive control: a codegen that takes a malformed node without a word (its refusal
// dropped).
codegen::CodegenResult codegen_ignoring_malformed_nodes(const ir::Program& p) {
  codegen::CodegenResult r = codegen::generate_orchestration(p);
  std::erase_if(r.diagnostics,
                [](const ir::Diagnostic& d) { return d.message.find("malformed") != std::string::npos; });
  if (r.diagnostics.empty()) r.ok = true;
  return r;
}
void lax_malformed_case() {
  ++props::tally().cases;
  malformed_case(codegen_ignoring_malformed_nodes);
}
}  // namespace

STACKCHECK_PROP(CompilerProps, malformed_expression_nodes_refused_without_a_crash, 0.0) {
  malformed_case(codegen::generate_orchestration);
}
TEST(CompilerPropsControl, a_codegen_taking_malformed_nodes_fails) {
  EXPECT_FATAL_FAILURE(rc::detail::checkGTest(&lax_malformed_case),
                       "codegen, run without the verifier, emitted a plan");
}

// Two graphs each with one rule broken (gen/ir_breaker.h, drawn twice): the verifier reports
// both, and it and LegalizeGraphBoundary give their diagnostics in program order (COMPILER.md
// §4: by function, then location; the breaker's edits are at 0:0, so the function decides).
namespace {
size_t function_index(const ir::Program& p, const std::string& name) {
  for (size_t i = 0; i < p.functions.size(); ++i)
    if (p.functions[i].name == name) return i;
  return p.functions.size();
}
oracles::Verdict in_program_order(const ir::Program& p, const ir::Diagnostics& d, const char* who) {
  for (size_t i = 1; i < d.size(); ++i)
    if (function_index(p, d[i].location.function) < function_index(p, d[i - 1].location.function))
      return oracles::Verdict::fail("diagnostic-order",
                                    fmt::format("{} reports {} before {}", who, d[i - 1].render(""), d[i].render("")));
  return oracles::Verdict::pass();
}
}  // namespace

// The order check's positive control: diagnostics of a later function before an earlier
// one's are reported; the same two in program order are not.
TEST(CompilerPropsControl, diagnostics_out_of_program_order_are_reported) {
  ir::Program p;
  p.functions.resize(2);
  p.functions[0].name = "g0";
  p.functions[1].name = "g1";
  const ir::Diagnostic a{"GraphBoundaryLegalized", 206, ir::Location{"g0", 0, 0}, "a"};
  const ir::Diagnostic b{"GraphBoundaryLegalized", 210, ir::Location{"g1", 0, 0}, "b"};
  EXPECT_TRUE(in_program_order(p, {a, b}, "x").passed());
  const oracles::Verdict v = in_program_order(p, {b, a}, "x");
  EXPECT_TRUE(v.failed()) << v.to_string();
  EXPECT_EQ(v.rule, "diagnostic-order");
}

STACKCHECK_PROP(CompilerProps, two_broken_graphs_reported_in_program_order, 0.5) {
  const gen::GeneratedProgram g = draw(gen::ProgramKnobs{.max_graphs = 4, .min_graphs = 3});
  const oracles::PipelineRun run = pipeline_or_fail(g.program);
  const ir::Program legal = run.stages.back().program;
  const auto first = gen::draw_value<std::optional<gen::BrokenProgram>>(
      [legal](gen::ChoiceSource& c) { return gen::break_graph_rule(c, legal); });
  if (!first) props::report(oracles::Verdict::inconclusive(oracles::Inconclusive::kUnsupported, "no place for a rule"));
  const ir::Program once = first->program;
  // Up to four draws for a rule in another graph (a draw lands in the first one's graph about
  // one time in three: alone it left half the cases inconclusive, past the property's bound).
  const auto second = gen::draw_value<std::optional<gen::BrokenProgram>>(
      [once, taken = first->graph](gen::ChoiceSource& c) -> std::optional<gen::BrokenProgram> {
        for (int attempt = 0; attempt < 4; ++attempt)
          if (auto b = gen::break_graph_rule(c, once); b && b->graph != taken) return b;
        return std::nullopt;
      });
  if (!second || second->graph == first->graph)
    props::report(oracles::Verdict::inconclusive(oracles::Inconclusive::kUnsupported, "no second graph to break"));
  const ir::Program& p = second->program;
  const auto cx = [&] { return props::counterexample("verifier", ir::print_program(p)); };
  const ir::Diagnostics d = verify::check_graph_boundary_legalized(p);
  std::set<int> codes;
  for (const ir::Diagnostic& x : d) codes.insert(x.code);
  if (codes.count(first->code) == 0 || codes.count(second->code) == 0)
    props::report(
        oracles::Verdict::fail("verifier-code", fmt::format("broke {} in {} and {} in {}: the verifier reported "
                                                            "[{}]",
                                                            first->code, first->graph, second->code, second->graph,
                                                            fmt::join(codes, ","))),
        cx());
  props::report(in_program_order(p, d, "the verifier"), cx());
  props::report(in_program_order(p, passes::legalize_graph_boundary(p).diagnostics, "LegalizeGraphBoundary"), cx());
}
TEST(CompilerPropsControl, a_codegen_letting_full_through_fails) {
  EXPECT_FATAL_FAILURE(rc::detail::checkGTest(&blind_codegen_case), "codegen, run without the verifier");
}
TEST(CompilerPropsControl, a_verifier_blind_to_ifs_fails) {
  EXPECT_FATAL_FAILURE(rc::detail::checkGTest(&blind_verifier_case), "broke 215");
}

// One WellFormed rule broken in a generated program (gen/ir_breaker.h): WellFormed's first
// diagnostic has that code, on the program and on its printed and reparsed text, and the
// pipeline refuses the program as input (never a pass bug or a crash).
namespace {
using WellFormedFn = std::function<ir::Diagnostics(const ir::Program&)>;
using Interpreter = std::function<interp::Result(const ir::Program&, uint64_t)>;
interp::Result reference_interpreter(const ir::Program& p, uint64_t seed) { return interp::run(p, seed); }
void judge_broken_well_formed(const gen::BrokenProgram& broken, const WellFormedFn& well_formed,
                              const Codegen& generate = codegen::generate_orchestration,
                              const Interpreter& run_interp = reference_interpreter) {
  const gen::BrokenProgram* b = &broken;
  gen::tag(fmt::format("code-{}", b->code));
  if (const size_t in = b->what.rfind(", in "); in != std::string::npos)
    gen::tag(fmt::format("code-{}{}", b->code, b->what.substr(in)));  // the place: "code-3, in a view's offset"
  const std::string text = ir::print_program(b->program);
  const auto cx = [&] { return props::counterexample("well-formed", text, {{"code", std::to_string(b->code)}}); };
  const std::string what = fmt::format("{} ({} in {})", b->code, b->what, b->graph);
  // A limit's rule: the same edit at exactly the limit is WellFormed (BrokenProgram::at_limit).
  if (b->at_limit)
    if (const ir::Diagnostics ad = well_formed(*b->at_limit); !ad.empty())
      props::report(oracles::Verdict::fail("well-formed-limit", fmt::format("broke {}: at the limit ({}) WellFormed "
                                                                            "reported {}",
                                                                            what, b->limit, ad.front().render(""))),
                    props::counterexample("well-formed", ir::print_program(*b->at_limit)));
  const ir::Diagnostics d = well_formed(b->program);
  if (d.empty() || d.front().code != b->code)
    props::report(oracles::Verdict::fail("well-formed-code", fmt::format("broke {}: WellFormed reported {}", what,
                                                                         d.empty() ? "nothing" : d.front().render(""))),
                  cx());
  // The edit is in the AST; its printed text is syntax all the same (names, literals and
  // shapes the printer writes, BrokenProgram::has_text), so it must parse: a refusal is a finding.
  if (!b->has_text) {
    // Not in the text (BrokenProgram::has_text): the AST's verdict above is the judgement.
  } else if (const ir::ParseResult parsed = ir::parse_program(text); !parsed.ok()) {
    props::report(
        oracles::Verdict::fail("well-formed-code", fmt::format("broke {}: its printed text does not parse: {}", what,
                                                               parsed.error().to_string())),
        cx());
  } else {
    const ir::Diagnostics t = well_formed(parsed.program());
    if (t.empty() || t.front().code != b->code)
      props::report(
          oracles::Verdict::fail("well-formed-code", fmt::format("broke {}: on the printed text WellFormed reported {}",
                                                                 what, t.empty() ? "nothing" : t.front().render(""))),
          cx());
    // The reference interpreter on it (COMPILER.md §7): a static zero divisor or step (13) and a
    // static out-of-bounds window or index (11) are its errors of that kind, and a name, callee,
    // kind or tuple it cannot resolve (3, 4, 6, 12) makes the program not runnable (interp.h:
    // Invalid); each at the broken statement's line where the breaker knows it. A call with an
    // argument fewer or more than its callee's params (5: the breaker edits a call at the top of
    // the entry, which runs) is Invalid too (a kernel runs its builtin on its first n arguments,
    // but a call must still pass one per param). A kernel with a param fewer than its builtin or
    // one of the other kind, launched at the top of the entry (10, BrokenProgram::interp_runs
    // otherwise), is Invalid too. A
    // create of an extent below 1 or an entry param of a shape it cannot allocate (9), or a
    // program without an entry (1), is Invalid too (BrokenProgram::interp_invalid; not a kernel
    // param's type or a dtype it never reads, nor a second entry or kernel it ignores). A trap
    // the generator planted may stop the run first: on a line before it, or anywhere where the
    // breaker does not know the line.
    static const std::map<int, std::vector<interp::ErrorKind>> kInterpErrors = {
        {1, {interp::ErrorKind::Invalid}},      {3, {interp::ErrorKind::Invalid}},      {10, {interp::ErrorKind::Invalid}},
        {5, {interp::ErrorKind::Invalid}},
        {4, {interp::ErrorKind::Invalid}},      {6, {interp::ErrorKind::Invalid}},
        {9, {interp::ErrorKind::Invalid}},      {12, {interp::ErrorKind::Invalid}},
        {11, {interp::ErrorKind::OutOfBounds}}, {13, {interp::ErrorKind::ZeroDivisor, interp::ErrorKind::ZeroStep}}};
    if (const auto want = kInterpErrors.find(b->code);
        want != kInterpErrors.end() && ((b->code != 1 && b->code != 9) || b->interp_invalid) && !b->interp_runs) {
      const size_t at = b->marker.empty() ? std::string::npos : text.rfind(b->marker);
      const uint32_t line =
          at == std::string::npos
              ? 0
              : static_cast<uint32_t>(1 + std::count(text.begin(), text.begin() + static_cast<long>(at), '\n'));
      const interp::Result r = run_interp(parsed.program(), 1);
      const auto expected = [&](interp::ErrorKind k) {
        return std::find(want->second.begin(), want->second.end(), k) != want->second.end();
      };
      const bool trap_before = !r.ok() && r.error().kind != interp::ErrorKind::Invalid &&
                               r.error().kind != interp::ErrorKind::Budget &&
                               (line == 0 || r.error().location.line < line);
      if (r.ok() || (!trap_before && (!expected(r.error().kind) || (line != 0 && r.error().location.line != line))))
        props::report(oracles::Verdict::fail(
                          "interp-error",
                          fmt::format("broke {}: the interpreter {}, expected {} error{}", what,
                                      r.ok() ? std::string("ran it to the end") : "reported " + r.error().render(),
                                      interp::error_kind_name(want->second.front()),
                                      line == 0 ? std::string() : fmt::format(" on line {}", line))),
                      cx());
    }
    // ... naming what broke it (BrokenProgram::message_has) ...
    for (const std::string& want : b->message_has)
      if (t.front().message.find(want) == std::string::npos)
        props::report(oracles::Verdict::fail("well-formed-message",
                                             fmt::format("broke {}: WellFormed reported {}, whose message does not "
                                                         "say \"{}\"",
                                                         what, t.front().render(""), want)),
                      cx());
    // ... at the line of the broken statement, where the breaker knows it (BrokenProgram::marker).
    if (!b->marker.empty() && text.rfind(b->marker) == std::string::npos)
      props::report(oracles::Verdict::fail("breaker", fmt::format("broke {}: the marker \"{}\" of the broken statement "
                                                                  "is not in the printed text",
                                                                  what, b->marker)),
                    cx());
    if (const size_t at = b->marker.empty() ? std::string::npos : text.rfind(b->marker); at != std::string::npos) {
      const auto line = static_cast<uint32_t>(1 + std::count(text.begin(), text.begin() + static_cast<long>(at), '\n'));
      if (t.front().location.line != line)
        props::report(oracles::Verdict::fail("well-formed-line",
                                             fmt::format("broke {}: WellFormed reported {} where the broken statement "
                                                         "is on line {}",
                                                         what, t.front().render(""), line)),
                      cx());
      // Codegen's own refusal (COMPILER.md §6, run without the verifier on the parsed text, whose
      // statements have their lines) points at the same statement.
      if (b->lowering_precondition) {
        const codegen::CodegenResult cg = generate(parsed.program());
        const bool there = std::any_of(cg.diagnostics.begin(), cg.diagnostics.end(),
                                       [&](const ir::Diagnostic& x) { return x.location.line == line; });
        if (!cg.ok && !there)
          props::report(oracles::Verdict::fail(
                            "codegen-line", fmt::format("broke {}: codegen, run without the verifier, refused it with "
                                                        "{} where the broken statement is on line {}",
                                                        what, cg.diagnostics.front().render(""), line)),
                        cx());
      }
    }
  }
  const oracles::PipelineRun run = oracles::run_pipeline(b->program);
  if (run.verdict.reason != oracles::Inconclusive::kInputRejected)
    props::report(
        oracles::Verdict::fail("well-formed-code", fmt::format("broke {}: the pipeline did not refuse its input ({})",
                                                               what, run.verdict.to_string())),
        cx());
  // Codegen run without the verifier (COMPILER.md §6): a rule its lowering rests on
  // (BrokenProgram::lowering_precondition) is a refusal (300, or the plan check's), never a plan.
  if (b->lowering_precondition && generate(b->program).ok)
    props::report(
        oracles::Verdict::fail("codegen-precondition",
                               fmt::format("broke {}: codegen, run without the verifier, emitted a plan", what)),
        cx());
}
void well_formed_rule_case(const WellFormedFn& well_formed, const Codegen& generate = codegen::generate_orchestration,
                           const Interpreter& run_interp = reference_interpreter) {
  const gen::GeneratedProgram g = draw();
  const ir::Program source = g.program;
  const std::optional<gen::BrokenProgram> b = gen::draw_value<std::optional<gen::BrokenProgram>>(
      [source](gen::ChoiceSource& c) { return gen::break_well_formed_rule(c, source); });
  if (!b) props::report(oracles::Verdict::inconclusive(oracles::Inconclusive::kUnsupported, "no place for the rule"));
  judge_broken_well_formed(*b, well_formed, generate, run_interp);
}
// Rules 3, 11 and 13 broken by one expression (an undefined name; dim() past the rank or read()
// with the wrong index rank; a literal zero divisor) in every place the language takes a scalar
// expression, one program each (gen::break_expression_at): each owner meets the broken
// expression inside another statement's context (a loop's step, a view's or an assemble's
// offset, a create's extent, a call's argument), where a check can skip an operand list.
void expression_places_case(const WellFormedFn& well_formed) {
  const gen::GeneratedProgram g = draw();
  static constexpr int kCodes[] = {3, 11, 13};
  const int code = kCodes[gen::choices().one_of(std::size(kCodes))];
  const auto source = std::make_shared<const ir::Program>(g.program);  // one copy for every place's draw
  for (size_t place = 0; place < gen::kExprPlaces; ++place) {
    const std::optional<gen::BrokenProgram> b = gen::draw_value<std::optional<gen::BrokenProgram>>(
        [source, code, place](gen::ChoiceSource& c) { return gen::break_expression_at(c, *source, code, place); });
    if (b) judge_broken_well_formed(*b, well_formed);
  }
}
// Its positive control: a WellFormed that never looks into a view's or an assemble's offsets.
ir::Program offsets_zeroed(ir::Program p) {
  std::function<void(std::vector<ir::Stmt>&)> walk = [&](std::vector<ir::Stmt>& body) {
    for (ir::Stmt& s : body) {
      if (auto* v = std::get_if<ir::SliceRhs>(&s.rhs))
        for (ir::Expr& e : v->offsets) e = ir::Expr{};  // the literal 0
      if (auto* a = std::get_if<ir::AssembleRhs>(&s.rhs))
        for (ir::Expr& e : a->offsets) e = ir::Expr{};  // the literal 0
      walk(s.body);
      walk(s.else_body);
    }
  };
  for (ir::Function& f : p.functions) walk(f.body);
  return p;
}
void offsets_blind_case() {
  ++props::tally().cases;
  expression_places_case([](const ir::Program& p) { return verify::check_well_formed(offsets_zeroed(p)); });
}
// The positive control: a WellFormed blind to literal zero divisors and steps (13).
ir::Diagnostics well_formed_blind_to_13(const ir::Program& p) {
  ir::Diagnostics d = verify::check_well_formed(p);
  std::erase_if(d, [](const ir::Diagnostic& x) { return x.code == 13; });
  return d;
}
void blind_well_formed_case() {
  ++props::tally().cases;
  well_formed_rule_case(well_formed_blind_to_13);
}
// ... and of its line check: a WellFormed that reports each finding one line late.
void late_well_formed_case() {
  ++props::tally().cases;
  well_formed_rule_case([](const ir::Program& p) {
    ir::Diagnostics d = verify::check_well_formed(p);
    for (ir::Diagnostic& x : d) ++x.location.line;
    return d;
  });
}
}  // namespace

STACKCHECK_PROP(CompilerProps, well_formed_rules_broken_one_at_a_time, 0.3) {
  well_formed_rule_case(verify::check_well_formed);
}

// Every WellFormed rule (1-14) broken in one drawn program, one edit each (its place and its
// variant drawn), each judged as the one-at-a-time property judges its one: a rule's rarer
// variants (a kernel no longer fitting its builtin, launched where the interpreter surely runs
// it; a graph result of a bad type) are met in every run instead of once in a few hundred cases.
namespace {
void every_rule_case(const WellFormedFn& well_formed) {
  const gen::GeneratedProgram g = draw();
  const auto source = std::make_shared<const ir::Program>(g.program);  // one copy for every rule's draw
  for (int code = 1; code <= 14; ++code) {
    const std::optional<gen::BrokenProgram> b = gen::draw_value<std::optional<gen::BrokenProgram>>(
        [source, code](gen::ChoiceSource& c) { return gen::break_well_formed_rule(c, *source, code); });
    if (b) judge_broken_well_formed(*b, well_formed);
  }
}
void every_rule_blind_case() {
  ++props::tally().cases;
  every_rule_case(well_formed_blind_to_13);
}
}  // namespace
// Codegen's own refusals of WellFormed programs (codegen.h): an entry scalar param (306: a plan
// has no scalar inputs) and a read whose root is not an entry In param (303: an InOut entry
// tensor, a fresh create or a view of either, read in the entry's body). The program passes
// WellFormed; codegen must refuse it with that code at the param's or the read's line (on the
// printed and reparsed text) and emit no plan. No generator wrote either, so 306 and 303 outside
// a graph were reached by codegen's unit tests alone.
namespace {
void codegen_own_case(const Codegen& generate) {
  const gen::GeneratedProgram g = draw();
  ir::Program p = g.program;
  ir::Function* entry = nullptr;
  for (ir::Function& f : p.functions)
    if (f.kind == ir::Function::Kind::Orchestration) entry = &f;
  RC_ASSERT(entry != nullptr);
  std::vector<size_t> inouts;
  for (size_t i = 0; i < entry->params.size(); ++i)
    if (entry->params[i].type.is_tensor() && entry->params[i].dir == ir::Dir::InOut) inouts.push_back(i);
  const size_t way = gen::choices().one_of(4);
  int code = 306;
  std::string marker;
  auto read_of = [](const std::string& name, size_t rank) {
    ir::Expr e;
    e.kind = ir::Expr::Kind::Read;
    e.name = name;
    for (size_t d = 0; d < rank; ++d) e.args.push_back(ir::Expr{});
    ir::Stmt s;
    s.kind = ir::Stmt::Kind::Assign;
    s.name = "zz_r";
    s.rhs = ir::ExprRhs{std::move(e)};
    return s;
  };
  if (way == 0 || (way == 1 && inouts.empty())) {
    ir::Param q;
    q.name = "zz_n";
    q.dir = ir::Dir::In;
    q.type = ir::Type::i64();
    entry->params.push_back(q);
    marker = "zz_n: In i64";
    gen::tag("codegen-306-entry-scalar");
  } else {
    code = 303;
    std::vector<ir::Stmt> front;
    std::string name;
    size_t rank = 1;
    if (way == 1) {
      const ir::Param& t = entry->params[inouts[gen::choices().one_of(inouts.size())]];
      name = t.name;
      rank = t.type.dims.size();
      gen::tag("codegen-303-inout-entry");
    } else {
      ir::Stmt c;
      c.kind = ir::Stmt::Kind::Assign;
      c.name = "zz_t";
      ir::CreateRhs cr;
      ir::Expr four;
      four.value = 4;
      cr.shape = {four, four};
      c.rhs = cr;
      front.push_back(c);
      name = "zz_t";
      rank = 2;
      if (way == 3) {  // a view of the create
        ir::Stmt v;
        v.kind = ir::Stmt::Kind::Assign;
        v.name = "zz_v";
        ir::SliceRhs sl;
        sl.source = "zz_t";
        sl.offsets = {ir::Expr{}, ir::Expr{}};
        sl.sizes = {2, 2};
        v.rhs = sl;
        front.push_back(v);
        name = "zz_v";
        gen::tag("codegen-303-view-of-create");
      } else {
        gen::tag("codegen-303-create");
      }
    }
    front.push_back(read_of(name, rank));
    entry->body.insert(entry->body.begin(), front.begin(), front.end());
    marker = "zz_r = read(";
  }
  const std::string text = ir::print_program(p);
  const auto cx = [&] { return props::counterexample("codegen", text, {{"code", std::to_string(code)}}); };
  if (const ir::Diagnostics wf = verify::check_well_formed(p); !wf.empty())
    props::report(oracles::Verdict::fail("breaker", "the edit broke WellFormed: " + wf.front().render("")), cx());
  const ir::ParseResult parsed = ir::parse_program(text);
  if (!parsed.ok()) props::report(oracles::Verdict::fail("breaker", "the text does not parse"), cx());
  const size_t at = text.rfind(marker);
  RC_ASSERT(at != std::string::npos);
  const auto line = static_cast<uint32_t>(1 + std::count(text.begin(), text.begin() + static_cast<long>(at), '\n'));
  const codegen::CodegenResult cg = generate(parsed.program());
  const bool there = std::any_of(cg.diagnostics.begin(), cg.diagnostics.end(), [&](const ir::Diagnostic& d) {
    return d.code == code && d.location.line == line;
  });
  // The program is WellFormed: the reference interpreter runs it (an entry scalar param is an
  // input it draws from the seed, COMPILER.md §7); a trap is its to report, Invalid is not.
  if (const interp::Result r = interp::run(parsed.program(), 1); !r.ok() && r.error().kind == interp::ErrorKind::Invalid)
    props::report(oracles::Verdict::fail("interp-error", "the interpreter refused a WellFormed program: " +
                                                             r.error().render()),
                  cx());
  if (cg.ok || !there)
    props::report(oracles::Verdict::fail(
                      "codegen-code", fmt::format("codegen {} where it must refuse {} on line {}",
                                                  cg.ok ? std::string("emitted a plan")
                                                        : "refused with " + cg.diagnostics.front().render(""),
                                                  code, line)),
                  cx());
}
// Its positive control: a codegen that takes an entry scalar param as a constant 0.
codegen::CodegenResult codegen_taking_entry_scalars(const ir::Program& p) {
  codegen::CodegenResult r = codegen::generate_orchestration(p);
  std::erase_if(r.diagnostics, [](const ir::Diagnostic& d) { return d.code == 306; });
  if (r.diagnostics.empty()) r.ok = true;
  return r;
}
void lax_codegen_own_case() {
  ++props::tally().cases;
  codegen_own_case(codegen_taking_entry_scalars);
}
}  // namespace
STACKCHECK_PROP(CompilerProps, codegen_refuses_what_a_plan_cannot_hold, 0.0) {
  codegen_own_case(codegen::generate_orchestration);
}
TEST(CompilerPropsControl, a_codegen_taking_entry_scalars_fails) {
  EXPECT_FATAL_FAILURE(rc::detail::checkGTest(&lax_codegen_own_case), "where it must refuse 306");
}

// The reference interpreter's call-depth limit (interp.h's Options; its budget has its own
// property, EndToEnd.interpreter_budget_at_its_limit) at and one under what WellFormed programs
// need: at depth 1 (they nest graph calls one deep) a generated program's run is the same run
// (outputs and steps, or the same error); at depth 0 it either never called a graph (the same
// run) or stops with Invalid at the first graph call, naming the depth.
namespace {
using InterpFn = std::function<interp::Result(const ir::Program&, uint64_t, const interp::Options&)>;
interp::Result stack_interp(const ir::Program& p, uint64_t seed, const interp::Options& o) {
  return interp::run(p, seed, o);
}
bool same_run(const interp::Result& a, const interp::Result& b) {
  if (a.ok() != b.ok()) return false;
  if (!a.ok()) return a.error().kind == b.error().kind && a.error().render() == b.error().render();
  if (a.outputs().steps != b.outputs().steps || a.outputs().tensors.size() != b.outputs().tensors.size()) return false;
  for (size_t i = 0; i < a.outputs().tensors.size(); ++i)
    if (a.outputs().tensors[i].bytes != b.outputs().tensors[i].bytes) return false;
  return true;
}
void call_depth_case(const InterpFn& run) {
  const gen::GeneratedProgram g = draw();
  const uint64_t seed = static_cast<uint64_t>(gen::choices().sized(0, 999));
  const interp::Result r = interp::run(g.program, seed);
  const auto cx = [&] { return props::counterexample("interp", ir::print_program(g.program)); };
  interp::Options one;
  one.max_call_depth = 1;
  if (const interp::Result x = run(g.program, seed, one); !same_run(r, x))
    props::report(oracles::Verdict::fail("interp-limit", "at a call depth of 1 the run differs: " +
                                                             (x.ok() ? std::string("other outputs") : x.error().render())),
                  cx());
  interp::Options none;
  none.max_call_depth = 0;
  const interp::Result x = run(g.program, seed, none);
  if (same_run(r, x)) {
    gen::tag("call depth: no graph call ran");
  } else if (x.ok() || x.error().kind != interp::ErrorKind::Invalid ||
             x.error().message != "graph calls nest deeper than 0") {
    props::report(oracles::Verdict::fail("interp-limit", "at a call depth of 0: " +
                                                             (x.ok() ? std::string("other outputs") : x.error().render())),
                  cx());
  } else {
    gen::tag("call depth: a graph call refused at depth 0");
  }
}
void call_depth_off_by_one_case() {
  ++props::tally().cases;
  call_depth_case([](const ir::Program& p, uint64_t seed, const interp::Options& o) {
    interp::Options tighter = o;
    if (tighter.max_call_depth > 0) --tighter.max_call_depth;
    return interp::run(p, seed, tighter);
  });
}
}  // namespace
STACKCHECK_PROP(CompilerProps, interpreter_call_depth_at_its_limit, 0.0) { call_depth_case(stack_interp); }
TEST(CompilerPropsControl, an_interpreter_one_call_shallower_fails) {
  EXPECT_FATAL_FAILURE(rc::detail::checkGTest(&call_depth_off_by_one_case), "at a call depth of 1");
}

STACKCHECK_PROP(CompilerProps, every_well_formed_rule_in_each_program, 0.3) {
  every_rule_case(verify::check_well_formed);
}
TEST(CompilerPropsControl, a_well_formed_blind_to_13_fails_every_rule) {
  EXPECT_FATAL_FAILURE(rc::detail::checkGTest(&every_rule_blind_case), "broke 13");
}

STACKCHECK_PROP(CompilerProps, broken_expressions_in_every_place, 0.3) {
  expression_places_case(verify::check_well_formed);
}
TEST(CompilerPropsControl, a_well_formed_blind_to_view_offsets_fails) {
  EXPECT_FATAL_FAILURE(rc::detail::checkGTest(&offsets_blind_case), "WellFormed reported");
}

// COMPILER.md §4 rule 10, condition by condition: each kernel of a generated program, with one
// bound tensor param's shape changed in one way at a time (each dim one larger, one smaller
// where it stays positive, one axis more, one fewer), is judged by this oracle's own reading
// of §2's shape rules (equal shapes; matmul [m,k], [k,n] -> [m,n]; rowsum [m,n] -> [m,1]).
// WellFormed must report 10 for that kernel exactly when the reading says it no longer binds,
// naming the shapes it found in the rule's order. Each conjunct of a rule is broken on its own, and a change the
// rule allows (rowsum's n) must pass.
namespace {
using Shapes = std::vector<std::vector<int64_t>>;
bool shapes_bind(const std::string& builtin, const Shapes& d) {
  if (builtin == "matmul")
    return d.size() == 3 && d[0].size() == 2 && d[1].size() == 2 && d[2].size() == 2 && d[0][1] == d[1][0] &&
           d[2][0] == d[0][0] && d[2][1] == d[1][1];
  if (builtin == "rowsum")
    return d.size() == 2 && d[0].size() == 2 && d[1].size() == 2 && d[1][0] == d[0][0] && d[1][1] == 1;
  return std::all_of(d.begin(), d.end(), [&](const std::vector<int64_t>& x) { return x == d.front(); });
}
std::string shape_text(const std::vector<int64_t>& d) { return fmt::format("[{}]", fmt::join(d, ", ")); }
// What the message of a kernel that no longer binds must say it found: every shape the rule
// compares, in the rule's own order (equal: the first and the first other; matmul: the first
// not of rank 2, else a, b -> out; rowsum: x -> out).
std::string found_clause(const std::string& builtin, const Shapes& d) {
  if (builtin == "matmul") {
    for (const auto& x : d)
      if (x.size() != 2) return "rank-2 tensors, found " + shape_text(x);
    return fmt::format("found {}, {} -> {}", shape_text(d[0]), shape_text(d[1]), shape_text(d[2]));
  }
  if (builtin == "rowsum") return fmt::format("found {} -> {}", shape_text(d[0]), shape_text(d[1]));
  for (const auto& x : d)
    if (x != d.front()) return fmt::format("found {} and {}", shape_text(d.front()), shape_text(x));
  return "found";
}
void shape_rule_case(const std::function<ir::Diagnostics(const ir::Program&)>& well_formed) {
  const gen::GeneratedProgram g = draw();
  const size_t arity_of_builtin[] = {2, 2, 3, 2, 3, 3, 2};  // fill copy add acc scale matmul rowsum (§2)
  const char* names[] = {"fill", "copy", "add", "acc", "scale", "matmul", "rowsum"};
  for (size_t fi = 0; fi < g.program.functions.size(); ++fi) {
    const ir::Function& k = g.program.functions[fi];
    if (k.kind != ir::Function::Kind::Kernel) continue;
    size_t arity = 0;
    for (size_t b = 0; b < std::size(names); ++b)
      if (k.builtin == names[b]) arity = arity_of_builtin[b];
    std::vector<size_t> bound;
    for (size_t i = 0; i < arity && i < k.params.size(); ++i)
      if (k.params[i].type.is_tensor()) bound.push_back(i);
    Shapes legal;
    for (size_t i : bound) legal.push_back(ir::dims_vector(k.params[i].type.dims));
    if (!shapes_bind(k.builtin, legal)) continue;  // not a builtin-bound kernel of §2's
    gen::tag("shape-rule-" + k.builtin);
    for (size_t bi = 0; bi < bound.size(); ++bi) {
      std::vector<std::vector<int64_t>> changes;
      const std::vector<int64_t>& d = legal[bi];
      for (size_t a = 0; a < d.size(); ++a) {
        changes.push_back(d), ++changes.back()[a];
        if (d[a] > 1) changes.push_back(d), --changes.back()[a];
      }
      if (d.size() < 3) changes.push_back(d), changes.back().push_back(1);  // rank 1..3 (§1)
      if (d.size() > 1) changes.push_back(d), changes.back().pop_back();
      for (const std::vector<int64_t>& changed : changes) {
        int64_t elements = 1;
        for (int64_t x : changed) elements *= x;
        if (elements > 65536) continue;  // a type rule (9), not a shape rule
        ir::Program p = g.program;
        p.functions[fi].params[bound[bi]].type.dims.assign(changed.begin(), changed.end());
        Shapes shapes = legal;
        shapes[bi] = changed;
        const bool binds = shapes_bind(k.builtin, shapes);
        const ir::Diagnostics diags = well_formed(p);
        const auto ten = std::find_if(diags.begin(), diags.end(), [&](const ir::Diagnostic& x) {
          return x.code == 10 && x.message.find("kernel '" + k.name + "'") != std::string::npos;
        });
        const std::string what = fmt::format("kernel '{}' ({}) with param '{}' of shape {} for {}", k.name, k.builtin,
                                             k.params[bound[bi]].name, shape_text(changed), shape_text(d));
        const auto cx = [&] { return props::counterexample("well-formed", ir::print_program(p), {{"code", "10"}}); };
        if (binds != (ten == diags.end()))
          props::report(
              oracles::Verdict::fail(
                  "well-formed-code",
                  fmt::format("{}: §2's rule says it {}, WellFormed {}", what, binds ? "binds" : "does not bind",
                              ten == diags.end() ? "reported no 10 for it" : "reported " + ten->render(""))),
              cx());
        if (const std::string found = found_clause(k.builtin, shapes);
            ten != diags.end() && ten->message.find(found) == std::string::npos)
          props::report(oracles::Verdict::fail("well-formed-message",
                                               fmt::format("{}: WellFormed reported {}, which does not say \"{}\"",
                                                           what, ten->render(""), found)),
                        cx());
      }
    }
  }
}
}  // namespace
STACKCHECK_PROP(CompilerProps, every_shape_rule_condition_met_and_broken, 0.0) {
  shape_rule_case(verify::check_well_formed);
}
// The positive control: a WellFormed that lets every rowsum shape through.
namespace {
void rowsum_blind_case() {
  ++props::tally().cases;
  shape_rule_case([](const ir::Program& p) {
    ir::Diagnostics d = verify::check_well_formed(p);
    std::erase_if(d, [](const ir::Diagnostic& x) {
      return x.code == 10 && x.message.find("builtin 'rowsum'") != std::string::npos;
    });
    return d;
  });
}
}  // namespace
TEST(CompilerPropsControl, a_well_formed_blind_to_rowsum_shapes_fails) {
  EXPECT_FATAL_FAILURE(rc::detail::checkGTest(&rowsum_blind_case), "(rowsum) with param");
}
// ... and of its message check: shape messages that keep the kernel's name but drop the shapes.
namespace {
void shapeless_message_case() {
  ++props::tally().cases;
  shape_rule_case([](const ir::Program& p) {
    ir::Diagnostics d = verify::check_well_formed(p);
    for (ir::Diagnostic& x : d)
      if (x.code == 10) x.message = x.message.substr(0, x.message.find(':') + 1) + " shapes differ";
    return d;
  });
}
}  // namespace
TEST(CompilerPropsControl, shape_messages_without_the_shapes_fail) {
  EXPECT_FATAL_FAILURE(rc::detail::checkGTest(&shapeless_message_case), "which does not say");
}

// The control of its codegen half: a codegen that emits a plan for anything.
namespace {
void codegen_without_preconditions_case() {
  ++props::tally().cases;
  well_formed_rule_case(verify::check_well_formed, [](const ir::Program&) {
    codegen::CodegenResult r;
    r.ok = true;
    return r;
  });
}
}  // namespace
TEST(CompilerPropsControl, a_codegen_that_checks_no_precondition_fails) {
  EXPECT_FATAL_FAILURE(rc::detail::checkGTest(&codegen_without_preconditions_case), "emitted a plan");
}
TEST(CompilerPropsControl, a_well_formed_blind_to_zero_divisors_fails) {
  EXPECT_FATAL_FAILURE(rc::detail::checkGTest(&blind_well_formed_case), "broke 13");
}
// ... and of its message check: a WellFormed whose messages name nothing.
void mute_well_formed_case() {
  ++props::tally().cases;
  well_formed_rule_case([](const ir::Program& p) {
    ir::Diagnostics d = verify::check_well_formed(p);
    for (ir::Diagnostic& x : d) x.message = "error";
    return d;
  });
}
TEST(CompilerPropsControl, a_well_formed_naming_nothing_fails) {
  EXPECT_FATAL_FAILURE(rc::detail::checkGTest(&mute_well_formed_case), "whose message does not say");
}
// ... and of codegen's line: a codegen whose refusals point one line late.
void late_codegen_case() {
  ++props::tally().cases;
  well_formed_rule_case(verify::check_well_formed, [](const ir::Program& p) {
    codegen::CodegenResult r = codegen::generate_orchestration(p);
    for (ir::Diagnostic& x : r.diagnostics) ++x.location.line;
    return r;
  });
}
TEST(CompilerPropsControl, a_codegen_refusing_a_line_late_fails) {
  EXPECT_FATAL_FAILURE(rc::detail::checkGTest(&late_codegen_case), "run without the verifier, refused it with");
}
// ... and of the interpreter's: one that runs what it cannot resolve on to the end (its
// Invalid errors turned into a completed run).
void lenient_interpreter_case() {
  ++props::tally().cases;
  well_formed_rule_case(verify::check_well_formed, codegen::generate_orchestration,
                        [](const ir::Program& p, uint64_t seed) {
                          interp::Result r = interp::run(p, seed);
                          if (!r.ok() && r.error().kind == interp::ErrorKind::Invalid) r.value = interp::Outputs{};
                          return r;
                        });
}
TEST(CompilerPropsControl, an_interpreter_running_unresolved_names_fails) {
  EXPECT_FATAL_FAILURE(rc::detail::checkGTest(&lenient_interpreter_case), "the interpreter ran it to the end");
}
TEST(CompilerPropsControl, a_well_formed_reporting_a_line_late_fails) {
  EXPECT_FATAL_FAILURE(rc::detail::checkGTest(&late_well_formed_case), "where the broken statement is on line");
}

// The fixed-point oracle run_pipeline applies to Simplify's output, shown a generated program
// Simplify has not seen (literal loops, `dim`, spelled literals): it must report one.
namespace {
void unsimplified_case() {
  ++props::tally().cases;
  const gen::GeneratedProgram g = draw();
  props::report(oracles::check_simplified(g.program),
                oracles::Counterexample{"pipeline", ir::print_program(g.program), {}, "", ""});
}
}  // namespace
TEST(CompilerPropsControl, the_fixed_point_oracle_fails_on_unsimplified_input) {
  EXPECT_FATAL_FAILURE(rc::detail::checkGTest(&unsimplified_case), "not its fixed point");
}

// Passes in isolation (HARNESS.md §8): LegalizeGraphBoundary fed what Simplify never hands
// it (unfolded `dim` and arithmetic, one-trip and zero-trip loops, scalars bound to
// literals), after NormalizeReturnOrder only. When it accepts, its output must pass its
// verifier and keep the program's semantics, and codegen must take it; when it refuses, the
// code must be one that only Simplify's folding resolves (COMPILER.md §5: 207 a create
// extent that is a name until folded, 214 a loop whose trips fold to a constant, 216 a
// node count over unfolded trips, 211 a view offset that mixes a scalar param with a local
// bound to a literal: the pass's derivability does not look through the local until
// Simplify substitutes it, e.g. `s3 = -3; v = slice(p0, [0, (n0 + s3) % 4], ...)`; the
// verifier would accept the hoisted form), never another, and only when the program holds
// that cause as the oracle reads it (refusal_has_cause): a literal spelled as arithmetic
// (`2 * 4`, `(3 + 1) - 1`) is a literal, and refusing it is a bug.
namespace {
// The oracle's own reading of COMPILER.md's literal (an integer, `dim`, arithmetic over them).
bool is_literal_expr(const ir::Expr& e) {
  if (e.kind == ir::Expr::Kind::Int || e.kind == ir::Expr::Kind::Dim) return true;
  if (e.kind != ir::Expr::Kind::Binary) return false;
  return std::all_of(e.args.begin(), e.args.end(), [](const ir::Expr& a) { return is_literal_expr(a); });
}
// Whether a refusal with a foldable code has its cause in the program, as the oracle reads
// it: 207 a graph create whose shape is not a literal; 214 and 216 a graph loop holding a
// call whose bounds are not literals (its trips are unknown until folding); 211 a graph view
// whose offset names a scalar bound in the graph's own body. A refusal without its cause
// (a literal the pass failed to evaluate) is a bug of the pass, not a need for folding.
bool refusal_has_cause(const ir::Program& p, int code) {
  bool found = false;
  for (const ir::Function& g : p.functions) {
    if (g.kind != ir::Function::Kind::Graph) continue;
    std::set<std::string> locals;
    ir::walk_statements(g.body, [&](const ir::Stmt& s) {
      if (s.kind == ir::Stmt::Kind::Assign && std::holds_alternative<ir::ExprRhs>(s.rhs)) locals.insert(s.name);
    });
    ir::walk_statements(g.body, [&](const ir::Stmt& s) {
      if (code == 207 && s.kind == ir::Stmt::Kind::Assign)
        if (const auto* c = std::get_if<ir::CreateRhs>(&s.rhs))
          found |= !std::all_of(c->shape.begin(), c->shape.end(), [](const ir::Expr& e) { return is_literal_expr(e); });
      if ((code == 214 || code == 216) && s.kind == ir::Stmt::Kind::For) {
        bool calls = false;
        ir::walk_statements(s.body, [&](const ir::Stmt& b) {
          calls |= b.kind == ir::Stmt::Kind::Invoke ||
                   (b.kind == ir::Stmt::Kind::Assign && std::holds_alternative<ir::InvokeRhs>(b.rhs));
        });
        found |= calls && !(is_literal_expr(s.lo) && is_literal_expr(s.hi) && is_literal_expr(s.step));
      }
      if (code == 211 && s.kind == ir::Stmt::Kind::Assign)
        if (const auto* v = std::get_if<ir::SliceRhs>(&s.rhs))
          for (const ir::Expr& o : v->offsets)
            ir::for_each_subexpr(
                o, [&](const ir::Expr& x) { found |= x.kind == ir::Expr::Kind::Var && locals.count(x.name) != 0; });
    });
  }
  return found;
}

using LegalizeFn = std::function<passes::PassResult(const ir::Program&)>;
passes::PassResult legalize(const ir::Program& p) { return passes::legalize_graph_boundary(p); }
void isolation_case(const LegalizeFn& legalize_graph_boundary) {
  const gen::GeneratedProgram g = draw();
  pipeline_or_fail(g.program);  // legal: the full pipeline takes it
  const passes::PassResult n = passes::NormalizeReturnOrder().run(g.program);
  const auto cx = [&] { return props::counterexample("isolation", ir::print_program(g.program)); };
  if (!n.ok) props::report(oracles::Verdict::fail("isolation", "NormalizeReturnOrder refused a legal program"), cx());
  const passes::PassResult r = legalize_graph_boundary(n.program);
  if (!r.ok) {
    static const std::set<int> kFoldable = {207, 211, 214, 216};
    for (const ir::Diagnostic& d : r.diagnostics)
      if (!kFoldable.count(d.code) || !refusal_has_cause(n.program, d.code))
        props::report(oracles::Verdict::fail("isolation",
                                             "without Simplify, LegalizeGraphBoundary refused it with " + d.render("")),
                      cx());
    gen::tag(fmt::format("refused-{}", r.diagnostics.front().code));
    props::report(oracles::Verdict::inconclusive(oracles::Inconclusive::kInputRejected, "needs Simplify's folding"));
  }
  gen::tag("accepted");
  if (const ir::Diagnostics d = verify::check_graph_boundary_legalized(r.program); !d.empty())
    props::report(
        oracles::Verdict::fail("isolation", "its output fails GraphBoundaryLegalized: " + d.front().render("")), cx());
  props::report(oracles::check_same_semantics(g.program, r.program, 7, "LegalizeGraphBoundary without Simplify"), cx());
  const codegen::CodegenResult cg = codegen::generate_orchestration(r.program);
  if (!cg.ok)
    props::report(
        oracles::Verdict::fail("isolation", "codegen refused its output: " +
                                                (cg.diagnostics.empty() ? "" : cg.diagnostics.front().render(""))),
        cx());
  // ... and codegen straight after that legalization (unfolded `dim`, spelled literals, 1-trip
  // loops, returns as written) must still mean the original program: its plan, bound on the
  // runtime (a small task window, a seeded random schedule), equals the interpreter on it.
  const uint64_t seed = static_cast<uint64_t>(gen::choices().sized(0, 999));
  const interp::Result expected = interp::run(g.program, seed);
  if (!expected.ok()) return;  // a trapping program: check_same_semantics judged the trap
  oracles::CompiledPlan compiled;
  compiled.verdict = oracles::Verdict::pass();
  compiled.plan = cg.program;
  compiled.plan.config = {{"W", 256, {}}};
  compiled.entry_names = cg.entry_names;
  runtime::BindOptions o;
  o.seed = seed;
  o.schedule.mode = runtime::ScheduleOptions::Mode::kRandom;
  o.schedule.seed = seed;
  const runtime::BindResult bound = runtime::bind_plan(compiled.plan, o);
  props::report(oracles::judge_end_to_end(compiled, expected.outputs(), bound,
                                          fmt::format("codegen after LegalizeGraphBoundary alone, seed {}", seed)),
                cx());
}
// The positive control: a pass that refuses every graph as if it held a `full` (206).
passes::PassResult refusing_legalize(const ir::Program& p) {
  passes::PassResult r = passes::legalize_graph_boundary(p);
  if (std::any_of(p.functions.begin(), p.functions.end(),
                  [](const ir::Function& f) { return f.kind == ir::Function::Kind::Graph; })) {
    r.ok = false;
    r.diagnostics = {ir::Diagnostic{"GraphBoundaryLegalized", 206, {}, "planted refusal"}};
  }
  return r;
}
void refusing_case() {
  ++props::tally().cases;
  isolation_case(refusing_legalize);
}
// The positive control of the causes: a pass that takes every graph loop's trips for
// unknown (a constant-trip evaluator that gives up) and refuses with the foldable 214.
passes::PassResult refusing_loops(const ir::Program& p) {
  passes::PassResult r = passes::legalize_graph_boundary(p);
  for (const ir::Function& f : p.functions)
    if (f.kind == ir::Function::Kind::Graph)
      for (const ir::Stmt& s : f.body)
        if (s.kind == ir::Stmt::Kind::For) {
          r.ok = false;
          r.diagnostics = {ir::Diagnostic{"GraphBoundaryLegalized", 214, {}, "planted: trips unknown"}};
        }
  return r;
}
void refusing_loops_case() {
  ++props::tally().cases;
  isolation_case(refusing_loops);
}
}  // namespace

STACKCHECK_PROP(CompilerProps, legalize_without_simplify, 0.3) { isolation_case(legalize); }
TEST(CompilerPropsControl, a_legalize_refusing_literal_trips_fails) {
  EXPECT_FATAL_FAILURE(rc::detail::checkGTest(&refusing_loops_case), "refused it with 0:0: error[214]");
}
TEST(CompilerPropsControl, a_legalize_refusing_what_folding_cannot_fix_fails) {
  EXPECT_FATAL_FAILURE(rc::detail::checkGTest(&refusing_case), "refused it with");
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
void stop_after_ignored_case() {
  ++props::tally().cases;
  instruments_case([](passes::PassManagerOptions o) {
    o.stop_after.clear();
    return oracles::default_manager(std::move(o));
  });
}
void print_after_all_silent_case() {
  ++props::tally().cases;
  instruments_case([](passes::PassManagerOptions o) {
    o.print_after_all = false;
    return oracles::default_manager(std::move(o));
  });
}
}  // namespace

STACKCHECK_PROP(CompilerProps, instruments_change_nothing, 0.0) { instruments_case(oracles::default_manager); }
TEST(CompilerPropsControl, a_stop_after_that_never_stops_fails) {
  EXPECT_FATAL_FAILURE(rc::detail::checkGTest(&stop_after_ignored_case), "stop-after");
}
TEST(CompilerPropsControl, a_silent_print_after_all_fails) {
  EXPECT_FATAL_FAILURE(rc::detail::checkGTest(&print_after_all_silent_case), "print-after-all");
}

// ReturnParamsExplicit run on its own, on generated programs (whose graph returns often name
// a rebound window rather than the param it traces to): it reports something exactly when
// NormalizeReturnOrder, the pass that produces the property, has something to change, and
// nothing on that pass's output.
namespace {
using PassFn = std::function<passes::PassResult(const ir::Program&)>;
passes::PassResult normalize_return_order(const ir::Program& p) { return passes::NormalizeReturnOrder().run(p); }
void return_order_case(const PassFn& normalize) {
  const gen::GeneratedProgram g = draw();
  const ir::Diagnostics before = verify::check_return_params_explicit(g.program);
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
void identity_pass_case() {
  ++props::tally().cases;
  return_order_case(identity_pass);
}
}  // namespace

STACKCHECK_PROP(CompilerProps, return_order_verifier_agrees_with_its_pass, 0.0) {
  return_order_case(normalize_return_order);
}
TEST(CompilerPropsControl, a_return_order_pass_that_changes_nothing_fails) {
  EXPECT_FATAL_FAILURE(rc::detail::checkGTest(&identity_pass_case), "NormalizeReturnOrder changes nothing");
}

// Passes are deterministic and idempotent.
STACKCHECK_PROP(CompilerProps, passes_deterministic_idempotent, 0.0) {
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
TEST(CompilerPropsControl, require_legal_compile_fails_a_rejected_program) {
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
                    "CompilerPropsControl.require_legal_compile_fails_a_rejected_program.gir";
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
