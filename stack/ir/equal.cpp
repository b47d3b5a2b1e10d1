#include "stack/ir/equal.h"

#include <algorithm>
#include <type_traits>
#include <variant>

namespace stackcheck::ir {

namespace {
template <class T>
bool all_equal(const std::vector<T>& a, const std::vector<T>& b) {
  return std::ranges::equal(a, b, [](const T& x, const T& y) { return equal(x, y); });
}

bool equal(const Invoke& a, const Invoke& b) {
  return a.submit == b.submit && a.callee == b.callee && all_equal(a.args, b.args);
}

struct RhsEqual {
  const Rhs& other;
  bool operator()(const ExprRhs& a) const { return equal(a.expr, std::get<ExprRhs>(other).expr); }
  bool operator()(const InvokeRhs& a) const { return equal(a.invoke, std::get<InvokeRhs>(other).invoke); }
  bool operator()(const TupleGetRhs& a) const {
    const auto& b = std::get<TupleGetRhs>(other);
    return a.tuple == b.tuple && a.index == b.index;
  }
  bool operator()(const CreateRhs& a) const { return all_equal(a.shape, std::get<CreateRhs>(other).shape); }
  bool operator()(const FullRhs& a) const {
    const auto& b = std::get<FullRhs>(other);
    return all_equal(a.shape, b.shape) && equal(a.value, b.value);
  }
  bool operator()(const SliceRhs& a) const {
    const auto& b = std::get<SliceRhs>(other);
    return a.source == b.source && all_equal(a.offsets, b.offsets) && a.sizes == b.sizes;
  }
  bool operator()(const AssembleRhs& a) const {
    const auto& b = std::get<AssembleRhs>(other);
    return a.target == b.target && a.source == b.source && all_equal(a.offsets, b.offsets);
  }
};
}  // namespace

bool equal(const Type& a, const Type& b) {
  return a.kind == b.kind && (a.kind == Type::Kind::I64 || (a.dtype == b.dtype && a.dims == b.dims));
}

bool equal(const Expr& a, const Expr& b) {
  if (a.kind != b.kind) return false;
  switch (a.kind) {
    case Expr::Kind::Int: return a.value == b.value;
    case Expr::Kind::Var: return a.name == b.name;
    case Expr::Kind::Dim: return a.name == b.name && a.value == b.value;
    case Expr::Kind::Read: return a.name == b.name && all_equal(a.args, b.args);
    case Expr::Kind::Binary: return a.op == b.op && all_equal(a.args, b.args);
  }
  return false;
}

bool equal(const Stmt& a, const Stmt& b) {
  if (a.kind != b.kind) return false;
  switch (a.kind) {
    case Stmt::Kind::Assign:
      return a.name == b.name && a.rhs.index() == b.rhs.index() && std::visit(RhsEqual{b.rhs}, a.rhs);
    case Stmt::Kind::Invoke: return equal(a.invoke, b.invoke);
    case Stmt::Kind::Return: return a.returns == b.returns;
    case Stmt::Kind::For:
      return a.name == b.name && equal(a.lo, b.lo) && equal(a.hi, b.hi) && equal(a.step, b.step) &&
             all_equal(a.body, b.body);
    case Stmt::Kind::If:
      return a.cmp == b.cmp && equal(a.lo, b.lo) && equal(a.hi, b.hi) && all_equal(a.body, b.body) &&
             all_equal(a.else_body, b.else_body);
  }
  return false;
}

bool equal(const Function& a, const Function& b) {
  if (a.kind != b.kind || a.name != b.name || a.params.size() != b.params.size()) return false;
  for (size_t i = 0; i < a.params.size(); ++i) {
    const Param &p = a.params[i], &q = b.params[i];
    if (p.name != q.name || p.dir != q.dir || !equal(p.type, q.type)) return false;
  }
  return a.kernel_returns == b.kernel_returns && a.builtin == b.builtin && all_equal(a.results, b.results) &&
         all_equal(a.body, b.body);
}

bool equal(const Program& a, const Program& b) { return all_equal(a.functions, b.functions); }

// ---- identity: every field ---------------------------------------------------------------

namespace {
bool same(const Loc& a, const Loc& b) { return a.line == b.line && a.column == b.column; }
bool same(const Type& a, const Type& b) { return a.kind == b.kind && a.dtype == b.dtype && a.dims == b.dims; }
template <class T>
bool all_same(const std::vector<T>& a, const std::vector<T>& b);
bool same(const Expr& a, const Expr& b) {
  return a.kind == b.kind && same(a.loc, b.loc) && a.value == b.value && a.name == b.name && a.op == b.op &&
         all_same(a.args, b.args);
}
bool same(const Invoke& a, const Invoke& b) {
  return a.submit == b.submit && a.callee == b.callee && all_same(a.args, b.args) && same(a.loc, b.loc);
}
bool same(const ExprRhs& a, const ExprRhs& b) { return same(a.expr, b.expr); }
bool same(const InvokeRhs& a, const InvokeRhs& b) { return same(a.invoke, b.invoke); }
bool same(const TupleGetRhs& a, const TupleGetRhs& b) { return a.tuple == b.tuple && a.index == b.index; }
bool same(const CreateRhs& a, const CreateRhs& b) { return all_same(a.shape, b.shape); }
bool same(const FullRhs& a, const FullRhs& b) { return all_same(a.shape, b.shape) && same(a.value, b.value); }
bool same(const SliceRhs& a, const SliceRhs& b) {
  return a.source == b.source && all_same(a.offsets, b.offsets) && a.sizes == b.sizes;
}
bool same(const AssembleRhs& a, const AssembleRhs& b) {
  return a.target == b.target && a.source == b.source && all_same(a.offsets, b.offsets);
}
bool same(const Rhs& a, const Rhs& b) {
  return a.index() == b.index() &&
         std::visit([&](const auto& x) { return same(x, std::get<std::decay_t<decltype(x)>>(b)); }, a);
}
bool same(const Stmt& a, const Stmt& b) {
  return a.kind == b.kind && same(a.loc, b.loc) && a.name == b.name && same(a.rhs, b.rhs) &&
         same(a.invoke, b.invoke) && a.returns == b.returns && same(a.lo, b.lo) && same(a.hi, b.hi) &&
         same(a.step, b.step) && a.cmp == b.cmp && all_same(a.body, b.body) && all_same(a.else_body, b.else_body);
}
bool same(const Param& a, const Param& b) {
  return a.name == b.name && a.dir == b.dir && same(a.type, b.type) && same(a.loc, b.loc);
}
template <class T>
bool all_same(const std::vector<T>& a, const std::vector<T>& b) {
  return std::ranges::equal(a, b, [](const T& x, const T& y) { return same(x, y); });
}
}  // namespace

bool identical_signature(const Function& a, const Function& b) {
  return a.kind == b.kind && a.name == b.name && same(a.loc, b.loc) && all_same(a.params, b.params) &&
         a.kernel_returns == b.kernel_returns && a.builtin == b.builtin && all_same(a.results, b.results);
}

bool identical(const Function& a, const Function& b) { return identical_signature(a, b) && all_same(a.body, b.body); }

}  // namespace stackcheck::ir
