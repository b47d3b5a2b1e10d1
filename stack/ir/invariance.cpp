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
  const Dims* dims = dims_of(tensor);
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

namespace {

// A window (a slice of a tensor of shape `dims`, or an assemble into it) whose offsets evaluate
// and put it outside an axis; when the shape is unknown (nullptr), any offset that evaluates may.
bool window_out_of_bounds(const Dims* dims, const std::vector<Expr>& offsets, const Dims* sizes,
                          const DimsOf& dims_of, const ValueOf& value_of) {
  if (dims != nullptr && dims->size() != offsets.size()) return false;  // a rank WellFormed refuses anyway
  for (size_t k = 0; k < offsets.size(); ++k) {
    const EvalResult o = evaluate(offsets[k], dims_of, value_of);
    if (!o.ok()) continue;
    if (dims == nullptr || sizes == nullptr || k >= sizes->size()) return true;
    if (o.value < 0 || o.value > (*dims)[k] - (*sizes)[k]) return true;
  }
  return false;
}

}  // namespace

bool has_static_fault(const std::vector<Stmt>& body, const DimsOf& dims_of, const ValueOf& value_of) {
  // Scalars the body binds to what evaluates, in program order, as substitution would.
  std::unordered_map<std::string, int64_t> bound;
  const ValueOf value = [&](std::string_view n) -> std::optional<int64_t> {
    if (auto it = bound.find(std::string(n)); it != bound.end()) return it->second;
    return value_of ? value_of(n) : std::nullopt;
  };
  // ... and the tensors it binds to a static shape (slices, literal creates and fulls, aliases).
  std::unordered_map<std::string, Dims> shaped;
  const DimsOf dims_in = [&](std::string_view n) -> const Dims* {
    if (auto it = shaped.find(std::string(n)); it != shaped.end()) return &it->second;
    return dims_of ? dims_of(n) : nullptr;
  };
  auto shape_of = [&](const std::vector<Expr>& shape) -> std::optional<Dims> {
    Dims out;
    for (const Expr& x : shape) {
      const EvalResult v = evaluate(x, dims_in, value);
      if (!v.ok()) return std::nullopt;
      out.push_back(v.value);
    }
    return out;
  };
  auto window_fault = [&](std::string_view tensor, const std::vector<Expr>& offsets, const Dims* sizes) {
    return window_out_of_bounds(dims_in(tensor), offsets, sizes, dims_in, value);
  };
  bool zero = false;
  walk_statements(body, [&](const Stmt& st) {
    if (zero) return;
    if (const auto* sl = std::get_if<SliceRhs>(&st.rhs); sl != nullptr && st.kind == Stmt::Kind::Assign) {
      const Dims sizes(sl->sizes.begin(), sl->sizes.end());
      zero = window_fault(sl->source, sl->offsets, &sizes);
    } else if (const auto* as = std::get_if<AssembleRhs>(&st.rhs); as != nullptr && st.kind == Stmt::Kind::Assign) {
      zero = window_fault(as->target, as->offsets, dims_in(as->source));
    }
    for_each_expr(st, [&](const Expr& root) {
      for_each_subexpr(root, [&](const Expr& e) {
        if (zero) return;
        if (e.kind == Expr::Kind::Read) {
          // A tensor whose shape is unknown here (a name bound more than once, a submit's
          // result): any index that evaluates may be out of its bounds.
          const Dims* dims = dims_in(e.name);
          if (dims != nullptr && dims->size() != e.args.size()) return;
          for (size_t k = 0; k < e.args.size() && !zero; ++k) {
            const EvalResult i = evaluate(e.args[k], dims_in, value);
            zero = i.ok() && (dims == nullptr || i.value < 0 || i.value >= (*dims)[k]);
          }
          return;
        }
        if (e.kind != Expr::Kind::Binary || e.args.size() != 2) return;
        if (e.op != BinOp::Div && e.op != BinOp::Mod) return;
        const EvalResult d = evaluate(e.args[1], dims_in, value);
        zero = d.status == EvalResult::Status::ZeroDivisor || (d.ok() && d.value == 0);
      });
    });
    if (st.kind != Stmt::Kind::Assign) return;
    std::optional<Dims> shape;
    if (const auto* x = std::get_if<ExprRhs>(&st.rhs)) {
      if (const EvalResult v = evaluate(x->expr, dims_in, value); v.ok()) bound[st.name] = v.value;
      if (x->expr.kind == Expr::Kind::Var)
        if (const Dims* src = dims_in(x->expr.name)) shape = *src;
    } else if (const auto* sl = std::get_if<SliceRhs>(&st.rhs)) {
      shape = Dims(sl->sizes.begin(), sl->sizes.end());
    } else if (const auto* cr = std::get_if<CreateRhs>(&st.rhs)) {
      shape = shape_of(cr->shape);
    } else if (const auto* fu = std::get_if<FullRhs>(&st.rhs)) {
      shape = shape_of(fu->shape);
    }
    if (shape) shaped[st.name] = std::move(*shape);
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
