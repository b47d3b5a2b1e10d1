// LegalizeGraphBoundary in isolation (HARNESS.md §8): fed what Simplify never hands it, after
// NormalizeReturnOrder only, it either takes the program and keeps its meaning through codegen
// and the runtime, or refuses it with a code only Simplify's folding resolves, for a cause the
// program holds; with the positive controls of both halves.
#include "properties/gen/arbitrary.h"
#include "properties/legal_pipeline.h"
#include "properties/oracles/compiler_oracles.h"
#include "properties/oracles/end_to_end.h"
#include "properties/property.h"
#include "stack/codegen/codegen.h"
#include "stack/interp/interp.h"
#include "stack/ir/printer.h"
#include "stack/ir/walk.h"
#include "stack/passes/legalize_graph_boundary.h"
#include "stack/passes/normalize_return_order.h"
#include "stack/verify/graph_boundary_legalized.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <rapidcheck/gtest.h>

#include <algorithm>
#include <functional>
#include <set>
#include <string>
#include <variant>

using namespace stackcheck;
using props::draw;
using props::pipeline_or_fail;

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
    // (refusal_has_cause is false for a code Simplify's folding cannot resolve.)
    for (const ir::Diagnostic& d : r.diagnostics)
      if (!refusal_has_cause(n.program, d.code))
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
}  // namespace

STACKCHECK_PROP(PassIsolation, legalize_without_simplify, 0.3) { isolation_case(legalize); }
STACKCHECK_CONTROL(PassIsolationControl, a_legalize_refusing_literal_trips_fails, "refused it with 0:0: error[214]") {
  isolation_case(refusing_loops);
}
STACKCHECK_CONTROL(PassIsolationControl, a_legalize_refusing_what_folding_cannot_fix_fails, "refused it with") {
  isolation_case(refusing_legalize);
}
