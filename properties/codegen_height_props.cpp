// Codegen's spill of tall scalar expressions (stack/codegen/codegen.h): a subtree whose plan
// expression reaches height 256 is first computed by a `set` of its own, so that no plan
// expression nears validate_plan's depth limit (1024) whatever the IR's depth. No generator
// writes an expression a tenth that tall, so nothing else reaches the spill.
//
// A loop's scalar `n` is a value-preserving chain of H operators over the loop variable
// (`i + k - k + k ...` left-deep, or `k + (-k + (... + i))` right-deep; a `* 1` when H is
// odd), H drawn around the multiples of 255, and `n * 8` places a slice (or the chain goes
// into the slice's offset itself). Compiled through the default pipeline and codegen:
//  1. the loop body's `set` statements are exactly the spill model's: each spilled subtree,
//     in emission order, with its operator count, then `n`'s own set, then `n * 8`; every
//     set's expression is at most 256 tall. The model is the rule alone, applied to the chain
//     the property built (a subtree's height counts a spilled operand as 1);
//  2. the plan binds to the same entry bytes as the same program with `n = i`.
// The class: a spill one level early or late, never, or at every level, on either operand.
// The control is a codegen that stopped spilling at one place (a spilled set put back).
#include "properties/gen/arbitrary.h"
#include "properties/oracles/compiler_oracles.h"
#include "properties/property.h"
#include "stack/ir/builder.h"
#include "stack/runtime/host/bind.h"
#include "stack/runtime/plan/printer.h"

#include <fmt/format.h>

#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <rapidcheck/gtest.h>

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

using namespace stackcheck;

namespace {

namespace b = ir::build;
using oracles::Verdict;

constexpr unsigned kSpillHeight = 256;  // codegen.h: a subtree this tall gets its own `set`

struct Chain {
  int64_t ops = 0;  // H
  bool right = false;
  int64_t k = 1;
};

// The chain over `i`: H operators alternating +k and -k (a final `* 1` when H is odd).
ir::Expr chain_expr(const Chain& c) {
  ir::Expr e = b::var("i");
  for (int64_t j = 0; j < c.ops; ++j) {
    const bool last_odd = j == c.ops - 1 && c.ops % 2 == 1;
    const ir::BinOp op = last_odd ? ir::BinOp::Mul : ir::BinOp::Add;
    const int64_t v = last_odd ? 1 : (j % 2 == 0 ? c.k : -c.k);
    e = c.right ? b::bin(op, b::lit(v), std::move(e)) : b::bin(op, std::move(e), b::lit(v));
  }
  return e;
}

// `in_offset`: the value goes straight into the slice's offset (`[value * 8]`, an operand codegen
// computes by a `set` of its own), else through a scalar `n = value`.
ir::Program program_with(ir::Expr n_value, int64_t trips, bool in_offset) {
  const ir::Type t8 = ir::Type::tensor({8}), tx = ir::Type::tensor({8 * trips});
  ir::Program p;
  p.functions.push_back(b::kernel("kacc", {b::param("x", ir::Dir::In, t8), b::param("a", ir::Dir::InOut, t8)}, {"a"},
                                  "acc"));
  std::vector<ir::Stmt> body;
  if (in_offset) {
    body.push_back(b::slice("v", "x", {b::mul(std::move(n_value), b::lit(8))}, {8}));
  } else {
    body.push_back(b::let("n", std::move(n_value)));
    body.push_back(b::slice("v", "x", {b::mul(b::var("n"), b::lit(8))}, {8}));
  }
  body.push_back(b::call_to("c1", "kacc", {b::var("v"), b::var("c")}));
  std::vector<ir::Stmt> entry;
  entry.push_back(b::for_("i", b::lit(0), b::lit(trips), b::lit(1), std::move(body)));
  p.functions.push_back(b::orchestration(
      "main", {b::param("x", ir::Dir::In, tx), b::param("c", ir::Dir::InOut, t8)}, std::move(entry)));
  return p;
}

// The spill rule on an IR expression: returns the operator count and height of its plan
// expression, appending the operator count of each spilled operand (in emission order: the
// left operand's spills, the right's, then the operands themselves, left first).
struct Shape {
  int64_t ops = 0;
  unsigned height = 1;
};
Shape spill_model(const ir::Expr& e, std::vector<int64_t>& spilled) {
  if (e.kind != ir::Expr::Kind::Binary) return {};
  Shape a = spill_model(e.args[0], spilled);
  Shape c = spill_model(e.args[1], spilled);
  for (Shape* s : {&a, &c}) {
    if (s->height < kSpillHeight) continue;
    spilled.push_back(s->ops);
    *s = Shape{};
  }
  return {a.ops + c.ops + 1, std::max(a.height, c.height) + 1};
}

Shape plan_shape(const runtime::PlanExpr& e) {
  if (e.kind != runtime::PlanExpr::Kind::Binary || e.args.size() != 2) return {};
  const Shape a = plan_shape(e.args[0]), c = plan_shape(e.args[1]);
  return {a.ops + c.ops + 1, std::max(a.height, c.height) + 1};
}

const runtime::ForStmt* the_loop(const runtime::OrchProgram& plan) {
  for (const runtime::PlanStmt& s : plan.body)
    if (const auto* f = std::get_if<runtime::ForStmt>(&s.node)) return f;
  return nullptr;
}

using PlanEdit = std::function<void(runtime::OrchProgram&)>;

void height_case(const PlanEdit& edit) {
  gen::ChoiceSource& g = gen::choices();
  Chain c;
  c.right = g.boolean();
  c.k = g.integer(1, 9);
  c.ops = g.chance(70) ? 255 * g.integer(1, 3) + g.integer(-2, 2) : g.integer(1, 800);
  const int64_t trips = g.integer(2, 4);  // a 1-trip loop is inlined, and the chain folds
  const bool in_offset = g.boolean();
  gen::tag(fmt::format("{} chain, {} spill(s), {}", c.right ? "right" : "left", c.ops / 255,
                       in_offset ? "in a view offset" : "a scalar"));

  const ir::Expr chain = chain_expr(c);
  std::vector<int64_t> want;
  // The spilled subtrees first, then the set of what is left of the whole.
  const Shape top = spill_model(in_offset ? b::mul(chain, b::lit(8)) : chain, want);
  want.push_back(top.ops);            // `set n = ...`, or `set ... = <chain> * 8`
  if (!in_offset) want.push_back(1);  // `set ... = n * 8`

  oracles::CompiledPlan deep = oracles::compile_to_plan(program_with(chain, trips, in_offset));
  const oracles::CompiledPlan flat = oracles::compile_to_plan(program_with(b::var("i"), trips, in_offset));
  RC_ASSERT(deep.verdict.passed());
  RC_ASSERT(flat.verdict.passed());
  if (edit) edit(deep.plan);
  const auto cx = props::counterexample("codegen-height", runtime::print_plan(deep.plan),
                                        {{"ops", std::to_string(c.ops)}, {"right", c.right ? "1" : "0"}});

  const runtime::ForStmt* loop = the_loop(deep.plan);
  std::vector<int64_t> got;
  unsigned tallest = 0;
  if (loop != nullptr)
    for (const runtime::PlanStmt& s : loop->body)
      if (const auto* set = std::get_if<runtime::SetStmt>(&s.node)) {
        const Shape sh = plan_shape(set->value);
        got.push_back(sh.ops);
        tallest = std::max(tallest, sh.height);
      }
  if (got != want || tallest > kSpillHeight)
    props::report(Verdict::fail("codegen-height",
                                fmt::format("a {}-deep chain of {} operators: the loop's sets have {} operators "
                                            "(tallest {}), the spill rule predicts {}",
                                            c.right ? "right" : "left", c.ops, fmt::join(got, ", "), tallest,
                                            fmt::join(want, ", "))),
                  cx);

  runtime::BindOptions o;
  o.seed = static_cast<uint64_t>(g.integer(0, 999));
  const runtime::BindResult rd = runtime::bind_plan(deep.plan, o), rf = runtime::bind_plan(flat.plan, o);
  if (rd.status != 0 || rf.status != 0 || !(rd.entries == rf.entries))
    props::report(Verdict::fail("codegen-height", fmt::format("the chain's plan binds {} ({}), the plan of `n = i` "
                                                              "{} ({}); their entries {}",
                                                              runtime::status_line(rd), rd.detail,
                                                              runtime::status_line(rf), rf.detail,
                                                              rd.entries == rf.entries ? "agree" : "differ")),
                  cx);
}

// The control's codegen: one that stopped spilling at one place. The loop's first set whose
// register the next set reads, where putting it back makes an expression taller than 256, is
// put back into that read (one set fewer, the same values); a chain with no spill is left as
// it is.
void substitute(runtime::PlanExpr& e, const std::string& name, const runtime::PlanExpr& value) {
  if (e.kind == runtime::PlanExpr::Kind::Name && e.name == name) {
    e = value;
    return;
  }
  for (runtime::PlanExpr& a : e.args) substitute(a, name, value);
}
void inline_first_spill(runtime::OrchProgram& plan) {
  for (runtime::PlanStmt& s : plan.body) {
    auto* loop = std::get_if<runtime::ForStmt>(&s.node);
    if (loop == nullptr) continue;
    for (size_t j = 0; j + 1 < loop->body.size(); ++j) {
      auto* set = std::get_if<runtime::SetStmt>(&loop->body[j].node);
      auto* next = std::get_if<runtime::SetStmt>(&loop->body[j + 1].node);
      if (set == nullptr || next == nullptr) continue;
      runtime::PlanExpr merged = next->value;
      substitute(merged, set->name, set->value);
      if (plan_shape(merged).height <= kSpillHeight) continue;
      next->value = std::move(merged);
      loop->body.erase(loop->body.begin() + static_cast<std::ptrdiff_t>(j));
      return;
    }
  }
}

}  // namespace

STACKCHECK_PROP(CodegenHeight, tall_expressions_spill_as_the_rule_predicts, 0.0) { height_case({}); }

STACKCHECK_CONTROL(CodegenHeightControl, a_spill_put_back_fails, "codegen-height") {
  height_case(inline_first_spill);
}
