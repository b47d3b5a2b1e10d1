// Codegen's own refusals, run without the verifier (COMPILER.md §6, codegen.h): expression
// nodes of a shape the parser never builds are refused without a crash anywhere in the stack,
// and WellFormed programs a plan cannot hold (an entry scalar param, 306; a read whose root is
// not an entry In param, 303) are refused at their line; with the positive controls of both.
#include "properties/gen/arbitrary.h"
#include "properties/gen/ir_breaker.h"
#include "properties/legal_pipeline.h"
#include "properties/oracles/compiler_oracles.h"
#include "properties/property.h"
#include "stack/codegen/codegen.h"
#include "stack/interp/interp.h"
#include "stack/ir/parser.h"
#include "stack/ir/printer.h"
#include "stack/verify/well_formed.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <rapidcheck/gtest.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

using namespace stackcheck;
using props::Codegen;
using props::draw;

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
}  // namespace

STACKCHECK_PROP(CodegenRefusals, malformed_expression_nodes_refused_without_a_crash, 0.0) {
  malformed_case(codegen::generate_orchestration);
}
STACKCHECK_CONTROL(CodegenRefusalsControl, a_codegen_taking_malformed_nodes_fails,
                   "codegen, run without the verifier, emitted a plan") {
  malformed_case(codegen_ignoring_malformed_nodes);
}

// Codegen's own refusals of WellFormed programs (codegen.h): an entry scalar param (306: a plan
// has no scalar inputs) and a read whose root is not an entry In param (303: an InOut entry
// tensor, a fresh create or a view of either, read in the entry's body). The program passes
// WellFormed; codegen must refuse it with that code at the param's or the read's line (on the
// printed and reparsed text) and emit no plan. The edits are the codegen family of the rule
// catalog (gen/breakers/codegen_rules.cpp).
namespace {
void codegen_own_case(const Codegen& generate) {
  const gen::GeneratedProgram g = draw();
  std::optional<gen::BrokenProgram> broken = gen::break_codegen_rule(gen::choices(), g.program);
  RC_ASSERT(broken.has_value());
  gen::tag(broken->what);
  const ir::Program& p = broken->program;
  const int code = broken->code;
  const std::string& marker = broken->marker;
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
}  // namespace
STACKCHECK_PROP(CodegenRefusals, codegen_refuses_what_a_plan_cannot_hold, 0.0) {
  codegen_own_case(codegen::generate_orchestration);
}
STACKCHECK_CONTROL(CodegenRefusalsControl, a_codegen_taking_entry_scalars_fails, "where it must refuse 306") {
  codegen_own_case(codegen_taking_entry_scalars);
}
