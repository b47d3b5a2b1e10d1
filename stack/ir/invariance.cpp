#include "stack/ir/invariance.h"

#include "stack/ir/arith.h"
#include "stack/ir/walk.h"

#include <string>
#include <unordered_map>

namespace stackcheck::ir {

bool is_literal(const Expr& e) {
  switch (e.kind) {
    case Expr::Kind::Int:
    case Expr::Kind::Dim: return true;
    case Expr::Kind::Var:
    case Expr::Kind::Read: return false;
    case Expr::Kind::Binary: return e.args.size() == 2 && is_literal(e.args[0]) && is_literal(e.args[1]);
  }
  return false;
}

std::optional<int64_t> dim_value(std::string_view tensor, int64_t axis, const DimsOf& dims_of) {
  if (!dims_of) return std::nullopt;
  const std::vector<int64_t>* dims = dims_of(tensor);
  if (dims == nullptr || axis < 0 || static_cast<uint64_t>(axis) >= dims->size()) {
    return std::nullopt;
  }
  return (*dims)[static_cast<size_t>(axis)];
}

EvalResult evaluate(const Expr& e, const DimsOf& dims_of, const ValueOf& value_of) {
  using S = EvalResult::Status;
  switch (e.kind) {
    case Expr::Kind::Int: return {S::Ok, e.value};
    case Expr::Kind::Dim:
      if (auto v = dim_value(e.name, e.value, dims_of)) return {S::Ok, *v};
      return {S::NotConstant, 0};
    case Expr::Kind::Var:
      if (value_of) {
        if (auto v = value_of(e.name)) return {S::Ok, *v};
      }
      return {S::NotConstant, 0};
    case Expr::Kind::Read: return {S::NotConstant, 0};
    case Expr::Kind::Binary: {
      if (e.args.size() != 2) return {S::NotConstant, 0};
      const EvalResult a = evaluate(e.args[0], dims_of, value_of);
      const EvalResult b = evaluate(e.args[1], dims_of, value_of);
      if (a.status == S::NotConstant || b.status == S::NotConstant) return {S::NotConstant, 0};
      if (a.status == S::ZeroDivisor || b.status == S::ZeroDivisor) return {S::ZeroDivisor, 0};
      if (auto v = apply_binop(e.op, a.value, b.value)) return {S::Ok, *v};
      return {S::ZeroDivisor, 0};
    }
  }
  return {S::NotConstant, 0};
}

bool has_zero_divisor(const std::vector<Stmt>& body, const DimsOf& dims_of, const ValueOf& value_of) {
  // Scalars the body binds to what evaluates, in program order, as substitution would.
  std::unordered_map<std::string, int64_t> bound;
  const ValueOf value = [&](std::string_view n) -> std::optional<int64_t> {
    if (auto it = bound.find(std::string(n)); it != bound.end()) return it->second;
    return value_of ? value_of(n) : std::nullopt;
  };
  bool zero = false;
  walk_statements(body, [&](const Stmt& st) {
    for_each_expr(st, [&](const Expr& root) {
      for_each_subexpr(root, [&](const Expr& e) {
        if (zero || e.kind != Expr::Kind::Binary || e.args.size() != 2) return;
        if (e.op != BinOp::Div && e.op != BinOp::Mod) return;
        const EvalResult d = evaluate(e.args[1], dims_of, value);
        zero = d.status == EvalResult::Status::ZeroDivisor || (d.ok() && d.value == 0);
      });
    });
    if (const auto* x = std::get_if<ExprRhs>(&st.rhs); x != nullptr && st.kind == Stmt::Kind::Assign) {
      if (const EvalResult v = evaluate(x->expr, dims_of, value); v.ok()) bound[st.name] = v.value;
    }
  });
  return zero;
}

std::optional<uint64_t> constant_trips(const Stmt& loop, const DimsOf& dims_of) {
  if (loop.kind != Stmt::Kind::For) return std::nullopt;
  if (!is_literal(loop.lo) || !is_literal(loop.hi) || !is_literal(loop.step)) return std::nullopt;
  const EvalResult a = evaluate(loop.lo, dims_of);
  const EvalResult b = evaluate(loop.hi, dims_of);
  const EvalResult s = evaluate(loop.step, dims_of);
  if (!a.ok() || !b.ok() || !s.ok()) return std::nullopt;
  return trip_count(a.value, b.value, s.value);
}

}  // namespace stackcheck::ir
