// Simplify's fixed point read on its output (COMPILER.md §Simplify): what the pass promises to
// have removed is looked for, with the rules' own reading of "static" and "defined once".
#include <fmt/format.h>

#include <memory_resource>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "properties/oracles/compiler_oracles.h"
#include "stack/ir/arith.h"
#include "stack/ir/invariance.h"
#include "stack/ir/printer.h"
#include "stack/ir/walk.h"
#include "stack/support/arena.h"

namespace stackcheck::oracles {
namespace {

using ir::Expr;
using ir::Function;
using ir::Stmt;

bool all_literal(const std::vector<Expr>& es) {
  for (const Expr& e : es)
    if (e.kind != Expr::Kind::Int) return false;
  return true;
}
ir::Dims values(const std::vector<Expr>& es) {
  ir::Dims out;
  for (const Expr& e : es) out.push_back(e.value);
  return out;
}

class FixedPoint {
 public:
  explicit FixedPoint(const Function& f) : f_(f) {
    for (const ir::Param& p : f.params) ++defs_[p.name];
    ir::walk_statements(f.body, [&](const Stmt& s) {
      if (s.kind == Stmt::Kind::Assign || s.kind == Stmt::Kind::For) ++defs_[s.name];
    });
    for (const ir::Param& p : f.params)
      if (p.type.is_tensor() && once(p.name)) shapes_[p.name] = p.type.dims;
    // Scalars bound to a literal and tensors of a static shape, each defined once. The
    // shapes kept are the ones the pass reads without a call's signature: params,
    // create/full with a literal shape, slices.
    ir::walk_statements(f.body, [&](const Stmt& s) {
      if (s.kind != Stmt::Kind::Assign || !once(s.name)) return;
      if (const auto* e = std::get_if<ir::ExprRhs>(&s.rhs); e && e->expr.kind == Expr::Kind::Int)
        consts_[s.name] = e->expr.value;
      if (const auto* c = std::get_if<ir::CreateRhs>(&s.rhs); c && all_literal(c->shape))
        shapes_[s.name] = values(c->shape);
      if (const auto* u = std::get_if<ir::FullRhs>(&s.rhs); u && all_literal(u->shape))
        shapes_[s.name] = values(u->shape);
      if (const auto* sl = std::get_if<ir::SliceRhs>(&s.rhs)) shapes_[s.name] = sl->sizes;
    });
  }

  std::optional<std::string> first_left() const {
    std::optional<std::string> found;
    ir::walk_statements(f_.body, [&](const Stmt& s) {
      if (found) return;
      if (s.kind == Stmt::Kind::For && s.lo.kind == Expr::Kind::Int && s.hi.kind == Expr::Kind::Int &&
          s.step.kind == Expr::Kind::Int) {
        const std::optional<uint64_t> trips = ir::trip_count(s.lo.value, s.hi.value, s.step.value);
        if (trips && (*trips == 0 || (*trips == 1 && once(s.name) && !faults_at(s, s.lo.value)))) {
          found = fmt::format("{}:{}: loop '{}' of {} trip{} is kept", s.loc.line, s.loc.column, s.name, *trips,
                              *trips == 1 ? "" : "s");
          return;
        }
      }
      ir::for_each_expr(s, [&](const Expr& root) {
        ir::for_each_subexpr(root, [&](const Expr& e) {
          if (!found) found = left_in(e);
        });
      });
    });
    return found;
  }

 private:
  bool once(std::string_view name) const {
    auto it = defs_.find(name);
    return it != defs_.end() && it->second == 1;
  }

  // Whether the loop's body faults statically with the var bound to v, a divisor zero or a
  // read index out of bounds (the one case where a 1-trip loop stays: inlining it would hand
  // WellFormed a code 13 or 11).
  bool faults_at(const Stmt& loop, int64_t v) const {
    const ir::DimsOf dims = [this](std::string_view t) -> const ir::Dims* {
      auto it = shapes_.find(t);
      return it == shapes_.end() ? nullptr : &it->second;
    };
    const ir::ValueOf value = [&](std::string_view n) -> std::optional<int64_t> {
      if (n == loop.name) return v;
      auto it = consts_.find(n);
      return it == consts_.end() ? std::nullopt : std::optional<int64_t>(it->second);
    };
    return ir::has_static_fault(loop.body, dims, value);
  }

  std::optional<std::string> left_in(const Expr& e) const {
    const auto at = [&] { return fmt::format("{}:{}", e.loc.line, e.loc.column); };  // for a finding only
    switch (e.kind) {
      case Expr::Kind::Binary:
        if (e.args.size() == 2 && e.args[0].kind == Expr::Kind::Int && e.args[1].kind == Expr::Kind::Int &&
            ir::apply_binop(e.op, e.args[0].value, e.args[1].value))
          return fmt::format("{}: literal '{}' is not folded", at(), ir::print_expr(e));
        return std::nullopt;
      case Expr::Kind::Var:
        if (auto c = consts_.find(e.name); c != consts_.end())
          return fmt::format("{}: '{}' is bound to {} once and not substituted", at(), e.name, c->second);
        return std::nullopt;
      case Expr::Kind::Dim:
        if (auto s = shapes_.find(e.name);
            s != shapes_.end() && e.value >= 0 && static_cast<uint64_t>(e.value) < s->second.size())
          return fmt::format("{}: '{}' of a static shape is not folded", at(), ir::print_expr(e));
        return std::nullopt;
      case Expr::Kind::Int:
      case Expr::Kind::Read: return std::nullopt;
    }
    return std::nullopt;
  }

  const Function& f_;
  // Keyed by views of the function's own names, in an arena on the stack (a function of the
  // generators' size allocates nothing for them).
  support::InlineArena<8192> arena_;
  std::pmr::unordered_map<std::string_view, int> defs_{arena_.resource()};
  std::pmr::unordered_map<std::string_view, int64_t> consts_{arena_.resource()};
  std::pmr::unordered_map<std::string_view, ir::Dims> shapes_{arena_.resource()};
};

}  // namespace

Verdict check_simplified(const ir::Program& out) {
  for (const Function& f : out.functions) {
    if (f.kind == Function::Kind::Kernel) continue;
    if (std::optional<std::string> left = FixedPoint(f).first_left())
      return Verdict::fail("simplified", fmt::format("Simplify's output is not its fixed point: {}: {}", f.name, *left));
  }
  return Verdict::pass();
}

}  // namespace stackcheck::oracles
