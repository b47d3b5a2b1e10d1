// Codegen's nesting limit (docs/generators.md, "Codegen's nesting limit"): a statement list
// more than 250 levels below the entry's top list is refused, so that a plan's text stays
// inside the plan parser's 256 open brackets with its windows' `[` and a submit's `(`. A
// graph's top list counts as level 1 (its plan body sits inside `graph g(...) {`). No
// generator nests a tenth that deep, so nothing else reaches the limit.
//
// The case nests d blocks around one kernel launch, d drawn at the limit, one below, one or
// two past: loops of two trips, and in the entry also ifs at the four levels around the limit
// (the nested part in the then or the else branch); in a graph only loops (a graph's ifs are
// GraphBoundaryLegalized 215). Each
// statement has its own line. Codegen runs directly on the program:
//  - at or below the limit: accepted; the layout oracle passes; the plan prints and parses
//    back equal under the plan's default limits;
//  - past it: refused with one precondition diagnostic (300), "statements nested too deeply",
//    located at the first statement of the first list past the limit.
// The control is a codegen that refuses one level early.
#include "properties/gen/arbitrary.h"
#include "properties/legal_pipeline.h"
#include "properties/oracles/codegen_layout.h"
#include "properties/property.h"
#include "stack/ir/builder.h"
#include "stack/runtime/plan/parser.h"
#include "stack/runtime/plan/printer.h"

#include <fmt/format.h>

#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <rapidcheck/gtest.h>

#include <string>
#include <vector>

using namespace stackcheck;

namespace {

namespace b = ir::build;
using oracles::Verdict;

constexpr unsigned kLimit = 250;  // the deepest statement list codegen lowers

struct Nest {
  bool in_graph = false;
  unsigned depth = 0;       // blocks around the launch
  std::vector<bool> ifs;    // per level, outermost first: an if (else a loop)
  std::vector<bool> elses;  // per if: the nested part in its else branch
  ir::Program program;
  ir::Loc refused_at;       // past the limit: where codegen must refuse
};

constexpr ir::Loc kFunctionLoc{1, 1};  // the nesting function's; a statement at level L is at L+1:L+3

ir::Type t8() { return ir::Type::tensor({8}); }

// The blocks from level `level` (1-based; the launch sits at level depth + 1) inward.
std::vector<ir::Stmt> nest_from(const Nest& n, unsigned level) {
  const ir::Loc loc{level + 1, 3 + level};
  if (level > n.depth) {
    ir::Stmt launch = b::call_to("l", "kacc", {b::var("x"), b::var("c")});
    launch.loc = loc;
    return {std::move(launch)};
  }
  std::vector<ir::Stmt> inner = nest_from(n, level + 1);
  ir::Stmt s;
  if (n.ifs[level - 1]) {
    const bool in_else = n.elses[level - 1];
    s = b::if_(b::read("x", b::lits({0})), ir::CmpOp::Lt, b::lit(5), in_else ? std::vector<ir::Stmt>{} : inner,
               in_else ? inner : std::vector<ir::Stmt>{});
  } else {
    s = b::for_(fmt::format("i{}", level), b::lit(0), b::lit(2), b::lit(1), std::move(inner));
  }
  s.loc = loc;
  return {std::move(s)};
}

Nest draw_nest() {
  gen::ChoiceSource& c = gen::choices();
  Nest n;
  n.in_graph = c.boolean();
  const unsigned base = n.in_graph ? 1 : 0;  // the level of the function's top list
  const int offsets[] = {-1, 0, 1, 2};
  n.depth = static_cast<unsigned>(static_cast<int>(kLimit - base) + offsets[c.one_of(4)]);
  // Ifs only at the four levels around the limit (the first list past it is level
  // kLimit + 1 - base): an if's depth arithmetic off by one anywhere above shows there too,
  // and a case has eight draws to shrink rather than five hundred.
  const unsigned near = kLimit - base - 2;
  for (unsigned k = 0; k < n.depth; ++k) {
    const bool drawn = k + 1 >= near && k + 1 < near + 4;
    n.ifs.push_back(drawn && !n.in_graph && c.chance(50));
    n.elses.push_back(drawn && c.boolean());
  }
  const ir::Function kacc = b::kernel("kacc", {b::param("x", ir::Dir::In, t8()), b::param("a", ir::Dir::InOut, t8())},
                                      {"a"}, "acc");
  std::vector<ir::Stmt> body = nest_from(n, 1);
  // The first lists past the limit are those of the block at level kLimit + 1 - base: codegen
  // refuses at the first statement of its first list, which is an if's then list when the
  // if nests in its else; that list is empty, and an empty list is refused at its function.
  if (n.depth + base > kLimit) {
    const unsigned lp = kLimit + 1 - base;
    n.refused_at = n.ifs[lp - 1] && n.elses[lp - 1] ? kFunctionLoc : ir::Loc{lp + 2, lp + 4};
  }
  const std::vector<ir::Param> params = {b::param("x", ir::Dir::In, t8()), b::param("c", ir::Dir::InOut, t8())};
  n.program.functions.push_back(kacc);
  if (n.in_graph) {
    body.push_back(b::ret({"c"}));
    n.program.functions.push_back(b::graph("g", params, {t8()}, std::move(body)));
    n.program.functions.back().loc = kFunctionLoc;
    n.program.functions.push_back(b::orchestration("main", params, {b::call_to("r", "g", b::names({"x", "c"}))}));
  } else {
    n.program.functions.push_back(b::orchestration("main", params, std::move(body)));
    n.program.functions.back().loc = kFunctionLoc;
  }
  gen::tag(n.in_graph ? "nest:graph" : "nest:entry");
  gen::tag(n.depth + base > kLimit ? "nest:past" : "nest:within");
  return n;
}

void nesting_case(const props::Codegen& cg) {
  const Nest n = draw_nest();
  const unsigned base = n.in_graph ? 1 : 0;
  const bool past = n.depth + base > kLimit;
  const codegen::CodegenResult r = cg(n.program);
  const std::string what = fmt::format("{} blocks in {} (deepest list at level {}, the limit {})", n.depth,
                                       n.in_graph ? "a graph" : "the entry", n.depth + base, kLimit);
  const oracles::Counterexample cx = props::counterexample("codegen-nesting", ir::print_program(n.program));
  if (!past) {
    if (!r.ok)
      props::report(Verdict::fail("codegen-nesting", what + ": refused: " +
                                                         (r.diagnostics.empty() ? "?" : r.diagnostics.front().render(""))),
                    cx);
    props::report(oracles::check_codegen_layout(n.program, r.program), cx);
    const std::string text = runtime::print_plan(r.program);
    const runtime::PlanParseResult back = runtime::parse_plan(text);
    if (!back.ok() || !(back.program() == r.program))
      props::report(Verdict::fail("codegen-nesting", what + ": the plan does not parse back equal: " +
                                                         (back.ok() ? std::string("another program")
                                                                    : back.error().to_string())),
                    cx);
    return;
  }
  const bool refused = !r.ok && r.diagnostics.size() == 1 && r.diagnostics[0].code == codegen::kPrecondition &&
                       r.diagnostics[0].message.find("statements nested too deeply") != std::string::npos &&
                       r.diagnostics[0].location.line == n.refused_at.line &&
                       r.diagnostics[0].location.column == n.refused_at.column &&
                       r.diagnostics[0].location.function == (n.in_graph ? "g" : "main");
  if (!refused)
    props::report(Verdict::fail("codegen-nesting",
                                fmt::format("{}: expected one refusal \"statements nested too deeply\" at {}:{}, got {}",
                                            what, n.refused_at.line, n.refused_at.column,
                                            r.ok ? std::string("acceptance")
                                                 : r.diagnostics.front().render(n.in_graph ? "g" : "main"))),
                  cx);
}

// Deepest list level of a function body (its top list at `level`).
unsigned deepest(const std::vector<ir::Stmt>& l, unsigned level) {
  unsigned d = level;
  for (const ir::Stmt& s : l) {
    if (!s.body.empty()) d = std::max(d, deepest(s.body, level + 1));
    if (!s.else_body.empty()) d = std::max(d, deepest(s.else_body, level + 1));
  }
  return d;
}

// The control's codegen: it refuses a list at the limit itself, one level early.
codegen::CodegenResult refuses_early(const ir::Program& p) {
  for (const ir::Function& f : p.functions) {
    if (f.kind == ir::Function::Kind::Kernel) continue;
    if (deepest(f.body, f.kind == ir::Function::Kind::Graph ? 1 : 0) >= kLimit) {
      codegen::CodegenResult r;
      r.diagnostics.push_back(ir::Diagnostic{codegen::kRule, codegen::kPrecondition, ir::Location{f.name, 1, 1},
                                             "statements nested too deeply"});
      return r;
    }
  }
  return codegen::generate_orchestration(p);
}

}  // namespace

STACKCHECK_PROP(CodegenLimits, nesting_at_and_one_past, 0.0) { nesting_case(codegen::generate_orchestration); }

STACKCHECK_CONTROL(CodegenLimitsControl, a_codegen_refusing_one_level_early_fails, "codegen-nesting") {
  nesting_case(refuses_early);
}
