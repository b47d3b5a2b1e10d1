// check_step_a_hoists (compiler_oracles.h): which scalar definitions of a graph
// LegalizeGraphBoundary must hoist (COMPILER.md §5.3 Collect: "scalar v = e, e derivable and
// not invariant: Step A hoist"; "scalar v = w, w a scalar param, hoisted scalar or alias:
// alias"), derived from the §3 definitions with the oracles' own arithmetic and trip count (ref_arith.h;
// no stack code but the AST), and compared with the pass's report of the scalars it appended.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "properties/oracles/compiler_oracles.h"
#include "properties/oracles/ref_arith.h"

namespace stackcheck::oracles {

namespace {

// A literal (§3: INT, operators, no names) evaluated with the oracles' own arithmetic
// (ref_arith.h: wrapping, flooring); nullopt for a name, a `read`, a `dim` (its value needs
// shapes: the graph is then not judged) or a zero divisor.
std::optional<int64_t> literal_value(const ir::Expr& e) {
  if (e.kind == ir::Expr::Kind::Int) return e.value;
  if (e.kind != ir::Expr::Kind::Binary || e.args.size() != 2) return std::nullopt;
  const auto a = literal_value(e.args[0]), b = literal_value(e.args[1]);
  if (!a || !b) return std::nullopt;
  return ref::apply(e.op, *a, *b);
}

bool has_dim(const ir::Expr& e) {
  if (e.kind == ir::Expr::Kind::Dim) return true;
  for (const ir::Expr& a : e.args)
    if (has_dim(a)) return true;
  return false;
}

class StepA {
 public:
  explicit StepA(const ir::Function& g) {
    for (const ir::Param& p : g.params)
      if (!p.type.is_tensor()) params_.insert(p.name);
  }

  // False when a `dim` makes a loop's trips or a conditional divisor unknown to this model.
  bool walk(const std::vector<ir::Stmt>& body, bool conditional) {
    for (const ir::Stmt& s : body) {
      switch (s.kind) {
        case ir::Stmt::Kind::Assign:
          if (const auto* r = std::get_if<ir::ExprRhs>(&s.rhs)) {
            if (!scalar(s.name, r->expr, conditional)) return false;
          }
          break;
        case ir::Stmt::Kind::For: {
          if (has_dim(s.lo) || has_dim(s.hi) || has_dim(s.step)) return false;
          const auto a = literal_value(s.lo), b = literal_value(s.hi), st = literal_value(s.step);
          const bool constant = a && b && st;
          const bool runs = constant && ref::trip_count(*a, *b, *st).value_or(0) >= 1;
          loop_vars_.insert(s.name);
          if (constant) invariant_names_.insert(s.name);  // a var of a constant-trip loop
          if (!walk(s.body, conditional || !runs)) return false;
          break;
        }
        case ir::Stmt::Kind::If:
          if (!walk(s.body, true) || !walk(s.else_body, true)) return false;
          break;
        default: break;
      }
    }
    return true;
  }

  const std::vector<std::string>& hoisted() const { return hoisted_; }

 private:
  bool scalar(const std::string& v, const ir::Expr& e, bool conditional) {
    if (e.kind == ir::Expr::Kind::Var) {
      if (params_.count(e.name) != 0 || hoisted_set_.count(e.name) != 0 || aliases_.count(e.name) != 0) {
        aliases_.insert(v);
        return true;
      }
      if (!known_scalar(e.name)) return true;  // a tensor alias: not a scalar definition
    }
    bool unknown = false;
    if (derivable(e, conditional, unknown) && !invariant(e)) {
      hoisted_.push_back(v);
      hoisted_set_.insert(v);
    } else if (invariant(e)) {
      invariant_names_.insert(v);
    }
    scalars_.insert(v);
    return !unknown;
  }

  bool known_scalar(const std::string& n) const {
    return params_.count(n) != 0 || scalars_.count(n) != 0 || loop_vars_.count(n) != 0;
  }

  // §3 derivable: no read, no loop var, each name a scalar param or an earlier hoisted or
  // aliased scalar; in a conditional statement `/` `%` by nonzero literals only.
  bool derivable(const ir::Expr& e, bool conditional, bool& unknown) const {
    switch (e.kind) {
      case ir::Expr::Kind::Int:
      case ir::Expr::Kind::Dim: return true;
      case ir::Expr::Kind::Read: return false;
      case ir::Expr::Kind::Var:
        return loop_vars_.count(e.name) == 0 &&
               (params_.count(e.name) != 0 || hoisted_set_.count(e.name) != 0 || aliases_.count(e.name) != 0);
      case ir::Expr::Kind::Binary:
        if (e.args.size() != 2) return false;
        if (conditional && (e.op == ir::BinOp::Div || e.op == ir::BinOp::Mod)) {
          if (has_dim(e.args[1])) unknown = true;
          const auto d = literal_value(e.args[1]);
          if (!d || *d == 0) return false;
        }
        return derivable(e.args[0], conditional, unknown) && derivable(e.args[1], conditional, unknown);
    }
    return false;
  }

  // §3 replay-invariant: literals, vars of constant-trip loops, names bound to invariant
  // expressions, operators over them; never scalar params, `read`, other loop vars.
  bool invariant(const ir::Expr& e) const {
    switch (e.kind) {
      case ir::Expr::Kind::Int:
      case ir::Expr::Kind::Dim: return true;
      case ir::Expr::Kind::Read: return false;
      case ir::Expr::Kind::Var: return invariant_names_.count(e.name) != 0;
      case ir::Expr::Kind::Binary:
        return e.args.size() == 2 && invariant(e.args[0]) && invariant(e.args[1]);
    }
    return false;
  }

  std::set<std::string> params_, scalars_, loop_vars_, invariant_names_, aliases_, hoisted_set_;
  std::vector<std::string> hoisted_;  // definition order
};

}  // namespace

Verdict check_step_a_hoists(const ir::Program& input, const passes::LegalizeGraphBoundaryReport& report) {
  for (const ir::Function& g : input.functions) {
    if (g.kind != ir::Function::Kind::Graph) continue;
    StepA model(g);
    if (!model.walk(g.body, false)) continue;  // a `dim` the model cannot evaluate
    const passes::GraphReport* r = report.find(g.name);
    if (r == nullptr) return Verdict::fail("step-a", fmt::format("graph {} has no report", g.name));
    std::vector<std::string> got;
    for (const passes::AppendedParam& a : r->appended)
      if (a.kind == passes::HoistKind::Scalar) got.push_back(a.name);
    if (got != model.hoisted())
      return Verdict::fail("step-a", fmt::format("graph {}: LegalizeGraphBoundary hoisted the scalars [{}]; COMPILER.md "
                                                 "§5.3 (derivable and not invariant) gives [{}]",
                                                 g.name, fmt::join(got, ", "), fmt::join(model.hoisted(), ", ")));
  }
  return Verdict::pass();
}

}  // namespace stackcheck::oracles
