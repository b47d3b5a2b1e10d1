// WellFormed: scalar expressions, checked post-order with an explicit stack because a long
// `a + b + ...` chain is a deep tree the parser's nesting cap does not bound.
#include "stack/verify/well_formed/internal.h"

#include "stack/ir/arith.h"

#include <fmt/format.h>

namespace stackcheck::verify::well_formed {

ExprResult FunctionChecker::scalar_var(const Expr& e) {
  const Binding* b = use(e.name, e.loc);
  if (b == nullptr || misused_tuple(*b, e.name, e.loc)) return {false, std::nullopt, false};
  if (b->kind == NameKind::Tensor) {
    report(kKind, e.loc, fmt::format("tensor '{}' used as a scalar", e.name));
    return {false, std::nullopt, false};
  }
  if (b->kind != NameKind::Scalar) return {false, std::nullopt, false};
  return {true, b->value, false};
}

ExprResult FunctionChecker::dim_expr(const Expr& e) {
  const TensorVal* t = tensor_use(e.name, e.loc, "dim");
  if (t == nullptr || !t->type) return {false, std::nullopt, true};
  const auto& dims = t->type->dims;
  if (e.value < 0 || static_cast<uint64_t>(e.value) >= dims.size()) {
    report(kView, e.loc, fmt::format("dim({}, {}): axis out of range for rank {}", e.name, e.value, dims.size()));
    return {false, std::nullopt, true};
  }
  return {true, dims[static_cast<size_t>(e.value)], true};
}

ExprResult FunctionChecker::read_post(const Expr& e, const TensorVal* t, std::pmr::vector<ExprResult>& results) {
  const size_t n = e.args.size();
  const ExprResult* idx = results.data() + (results.size() - n);  // the indices' results, in order
  ExprResult r{t != nullptr, std::nullopt, false};
  for (size_t k = 0; k < n; ++k) r.ok = r.ok && idx[k].ok;
  if (t == nullptr || !t->type) {
    r = {false, std::nullopt, false};
  } else if (const auto& dims = t->type->dims; n != dims.size()) {
    report(kView, e.loc, fmt::format("read of '{}' has {} indices; its rank is {}", e.name, n, dims.size()));
    r = {false, std::nullopt, false};
  } else {
    for (size_t k = 0; k < n; ++k) {
      if (idx[k].value && (*idx[k].value < 0 || *idx[k].value >= dims[k])) {
        report(kView, e.args[k].loc,
               fmt::format("read of '{}': index {} is {}, outside 0..{}", e.name, k, *idx[k].value, dims[k] - 1));
        r.ok = false;
      }
    }
  }
  results.resize(results.size() - n);
  return r;
}

// Checks a scalar expression; post-order with an explicit stack (see the banner).
ExprResult FunctionChecker::scalar(const Expr& root) {
  struct Frame {
    const Expr* e;
    bool post;
    const TensorVal* tensor;  // read: its tensor
  };
  std::pmr::vector<Frame> stack(scratch_);
  std::pmr::vector<ExprResult> results(scratch_);
  stack.reserve(8);
  results.reserve(8);
  stack.push_back({&root, false, nullptr});
  while (!stack.empty()) {
    const Frame fr = stack.back();
    stack.pop_back();
    const Expr& e = *fr.e;
    if (!fr.post) {
      switch (e.kind) {
        case Expr::Kind::Int: results.push_back({true, e.value, true}); break;
        case Expr::Kind::Var: results.push_back(scalar_var(e)); break;
        case Expr::Kind::Dim: results.push_back(dim_expr(e)); break;
        case Expr::Kind::Binary:
          if (e.args.size() != 2) {  // only reachable by code-built nodes
            results.push_back({false, std::nullopt, false});
            break;
          }
          stack.push_back({&e, true, nullptr});
          stack.push_back({&e.args[1], false, nullptr});
          stack.push_back({&e.args[0], false, nullptr});
          break;
        case Expr::Kind::Read:
          stack.push_back({&e, true, tensor_use(e.name, e.loc, "read")});
          for (size_t k = e.args.size(); k-- > 0;) stack.push_back({&e.args[k], false, nullptr});
          break;
      }
      continue;
    }
    if (e.kind == Expr::Kind::Read) {
      results.push_back(read_post(e, fr.tensor, results));
      continue;
    }
    const ExprResult rhs = results.back();
    results.pop_back();
    const ExprResult lhs = results.back();
    results.pop_back();
    ExprResult r{lhs.ok && rhs.ok, std::nullopt, lhs.literal && rhs.literal};
    if ((e.op == ir::BinOp::Div || e.op == ir::BinOp::Mod) && rhs.value && *rhs.value == 0) {
      report(kZero, e.args[1].loc, fmt::format("divisor of '{}' is statically zero", ir::binop_text(e.op)));
      r.ok = false;
    }
    if (r.ok && lhs.value && rhs.value) r.value = ir::apply_binop(e.op, *lhs.value, *rhs.value);
    results.push_back(r);
  }
  return results.empty() ? ExprResult{false, std::nullopt, false} : results.back();
}

}  // namespace stackcheck::verify::well_formed
