// WellFormed: statements in program order (the walk hooks), returns, and every assignment:
// aliases, call results and tuples, create/full shapes, slices and assembles.
#include "stack/verify/well_formed/internal.h"

#include "stack/ir/printer.h"

#include <fmt/format.h>

namespace stackcheck::verify::well_formed {

// Walk hooks: a statement is checked before the lists it holds; every nested list is a
// scope (a for body's starts with the loop variable).
void FunctionChecker::visit(const Stmt& s, const ir::Place& at) {
  switch (s.kind) {
    case Stmt::Kind::Assign: assign(s); break;
    case Stmt::Kind::Invoke: invoke(s.invoke); break;
    case Stmt::Kind::Return: return_stmt(s, at.top_level() && at.last()); break;
    case Stmt::Kind::For: {
      scalar(s.lo);
      scalar(s.hi);
      const ExprResult step = scalar(s.step);
      if (step.ok && step.literal && step.value == 0) {
        report(kZero, s.step.loc, fmt::format("loop '{}' has a zero step", s.name));
      }
      break;
    }
    case Stmt::Kind::If:
      scalar(ir::if_lhs(s));
      scalar(ir::if_rhs(s));
      break;
  }
}

void FunctionChecker::enter_block(const std::vector<Stmt>&, const ir::Place& at) {
  if (at.owner == nullptr) return;  // the body's names share the params' scope
  open_scope();
  if (at.owner->kind == Stmt::Kind::For) define(at.owner->name, Binding::scalar(std::nullopt), at.owner->loc);
}

void FunctionChecker::leave_block(const std::vector<Stmt>&, const ir::Place& at) {
  if (at.owner != nullptr) close_scope();
}

void FunctionChecker::return_stmt(const Stmt& s, bool last_top) {
  if (!last_top) {
    report(kReturn, s.loc, fmt::format("`return` must be the last statement of '{}'", f_.name));
  }
  if (f_.kind != Function::Kind::Graph) {
    if (!s.returns.empty()) {
      report(kReturn, s.loc, fmt::format("the entry '{}' returns nothing; found `return {}`", f_.name, s.returns[0]));
    }
    for (const std::string& n : s.returns) use(n, s.loc);
    return;
  }
  if (s.returns.size() != f_.results.size()) {
    report(
        kReturn, s.loc,
        fmt::format("graph '{}' declares {} result(s) but returns {}", f_.name, f_.results.size(), s.returns.size()));
  }
  for (size_t j = 0; j < s.returns.size(); ++j) {
    const std::string& n = s.returns[j];
    const Binding* b = use(n, s.loc);
    if (b == nullptr || misused_tuple(*b, n, s.loc) || j >= f_.results.size()) continue;
    const Type& declared = f_.results[j];
    if (b->kind == NameKind::Scalar) {
      report(kReturn, s.loc,
             fmt::format("graph '{}' returns scalar '{}' as result {} of type {}", f_.name, n, j,
                         ir::print_type(declared)));
    } else if (b->kind == NameKind::Tensor && b->tensor.type && !type_problem(declared) &&
               !same_type(*b->tensor.type, declared)) {
      report(kReturn, s.loc,
             fmt::format("graph '{}' returns '{}' of type {} as result {}, declared {}", f_.name, n,
                         ir::print_type(*b->tensor.type), j, ir::print_type(declared)));
    }
  }
}

void FunctionChecker::assign(const Stmt& s) {
  std::visit([&](const auto& rhs) { assign_rhs(s, rhs); }, s.rhs);
}

void FunctionChecker::assign_rhs(const Stmt& s, const ir::ExprRhs& rhs) {
  const Expr& e = rhs.expr;
  if (e.kind != Expr::Kind::Var) {
    const ExprResult r = scalar(e);
    define(s.name, Binding::scalar(r.ok ? r.value : std::nullopt), s.loc);
    return;
  }
  // A bare name aliases: a tensor (same window and root) or a scalar (same value).
  const Binding* b = use(e.name, e.loc);
  Binding copy;
  if (b != nullptr && !misused_tuple(*b, e.name, e.loc) &&
      (b->kind == NameKind::Scalar || b->kind == NameKind::Tensor)) {
    copy = *b;
  }
  define(s.name, std::move(copy), s.loc);
}

void FunctionChecker::assign_rhs(const Stmt& s, const ir::InvokeRhs& rhs) {
  const auto results = invoke(rhs.invoke);
  Binding b;
  if (results && rhs.invoke.submit) {
    b.kind = NameKind::Tuple;
    for (const TensorVal& t : *results) b.elems.emplace_back(t);
    b.elems.emplace_back(std::nullopt);  // the task id
  } else if (results && results->empty()) {
    report(kTuple, s.loc,
           fmt::format("call of '{}' returns nothing; its result cannot be bound to '{}'", rhs.invoke.callee, s.name));
  } else if (results && results->size() == 1) {
    b = Binding::of_tensor((*results)[0]);
  } else if (results) {
    b.kind = NameKind::Tuple;
    for (const TensorVal& t : *results) b.elems.emplace_back(t);
  }
  define(s.name, std::move(b), s.loc);
}

void FunctionChecker::assign_rhs(const Stmt& s, const ir::TupleGetRhs& rhs) {
  const Binding* t = use(rhs.tuple, s.loc);
  Binding b;
  if (t != nullptr && t->kind != NameKind::Poison) {
    if (t->kind != NameKind::Tuple) {
      report(kTuple, s.loc, fmt::format("'{}.{}': '{}' is not a tuple", rhs.tuple, rhs.index, rhs.tuple));
    } else if (rhs.index < 0 || static_cast<uint64_t>(rhs.index) >= t->elems.size()) {
      report(kTuple, s.loc,
             fmt::format("'{}.{}': tuple '{}' has {} elements", rhs.tuple, rhs.index, rhs.tuple, t->elems.size()));
    } else if (const auto& el = t->elems[static_cast<size_t>(rhs.index)]) {
      b = Binding::of_tensor(*el);
    } else {
      b.kind = NameKind::TaskId;
    }
  }
  define(s.name, std::move(b), s.loc);
}

// A create/full shape: static, rank 1..3, dims >= 1, <= 65,536 elements.
std::optional<Type> FunctionChecker::shape(const std::vector<Expr>& exprs, Loc loc, const char* what) {
  bool ok = true;
  std::vector<int64_t> dims;
  for (size_t i = 0; i < exprs.size(); ++i) {
    const ExprResult r = scalar(exprs[i]);
    if (!r.ok) {
      ok = false;
    } else if (!r.value) {
      report(kBadType, exprs[i].loc, fmt::format("{} shape: dim {} is not static", what, i));
      ok = false;
    } else {
      dims.push_back(*r.value);
    }
  }
  if (!ok) return std::nullopt;
  Type t = Type::tensor(std::move(dims));
  if (auto why = type_problem(t)) {
    report(kBadType, loc, fmt::format("{} shape: {}", what, *why));
    return std::nullopt;
  }
  return t;
}

void FunctionChecker::assign_rhs(const Stmt& s, const ir::CreateRhs& rhs) {
  define(s.name, Binding::of_tensor(TensorVal{shape(rhs.shape, s.loc, "create"), std::nullopt}), s.loc);
}

void FunctionChecker::assign_rhs(const Stmt& s, const ir::FullRhs& rhs) {
  auto t = shape(rhs.shape, s.loc, "full");
  scalar(rhs.value);
  define(s.name, Binding::of_tensor(TensorVal{std::move(t), std::nullopt}), s.loc);
}

// Static offsets of a view: one per axis; nullopt entries are dynamic or erroneous.
boost::container::small_vector<std::optional<int64_t>, 4> FunctionChecker::offsets(const std::vector<Expr>& exprs) {
  boost::container::small_vector<std::optional<int64_t>, 4> out;
  for (const Expr& e : exprs) out.push_back(scalar(e).value);
  return out;
}

void FunctionChecker::assign_rhs(const Stmt& s, const ir::SliceRhs& rhs) {
  const TensorVal* src = tensor_use(rhs.source, s.loc, "slice source");
  const auto offs = offsets(rhs.offsets);
  if (src == nullptr) {
    define(s.name, Binding{}, s.loc);
    return;
  }
  TensorVal v{std::nullopt, src->root_param};
  Type t = Type::tensor(rhs.sizes);
  bool ok = !type_problem(t);
  if (src->type) {
    const auto& dims = src->type->dims;
    const size_t rank = dims.size();
    if (rhs.offsets.size() != rank || rhs.sizes.size() != rank) {
      report(kView, s.loc,
             fmt::format("slice of '{}' (rank {}) has {} offsets and {} sizes", rhs.source, rank, rhs.offsets.size(),
                         rhs.sizes.size()));
      ok = false;
    } else {
      for (size_t k = 0; k < rank; ++k) {
        const int64_t size = rhs.sizes[k];
        if (size < 1 || size > dims[k]) {
          report(kView, s.loc,
                 fmt::format("slice of '{}': size {} on axis {} is outside 1..{}", rhs.source, size, k, dims[k]));
          ok = false;
        } else if (offs[k] && (*offs[k] < 0 || *offs[k] > dims[k] - size)) {
          report(kView, rhs.offsets[k].loc,
                 fmt::format("slice of '{}': offset {} + size {} on axis {} is "
                             "outside 0..{}",
                             rhs.source, *offs[k], size, k, dims[k]));
          ok = false;
        }
      }
    }
  }
  if (ok) v.type = std::move(t);
  define(s.name, Binding::of_tensor(std::move(v)), s.loc);
}

void FunctionChecker::assign_rhs(const Stmt& s, const ir::AssembleRhs& rhs) {
  const TensorVal* tgt = tensor_use(rhs.target, s.loc, "assemble target");
  const TensorVal* src = tensor_use(rhs.source, s.loc, "assemble source");
  const auto offs = offsets(rhs.offsets);
  if (tgt == nullptr) {
    define(s.name, Binding{}, s.loc);
    return;
  }
  if (tgt->type) {
    const auto& td = tgt->type->dims;
    if (rhs.offsets.size() != td.size()) {
      report(kView, s.loc,
             fmt::format("assemble into '{}' (rank {}) has {} offsets", rhs.target, td.size(), rhs.offsets.size()));
    } else if (src != nullptr && src->type) {
      const auto& sd = src->type->dims;
      if (sd.size() != td.size()) {
        report(kView, s.loc,
               fmt::format("assemble of '{}' (rank {}) into '{}' (rank {})", rhs.source, sd.size(), rhs.target,
                           td.size()));
      } else {
        for (size_t k = 0; k < td.size(); ++k) {
          if (sd[k] > td[k]) {
            report(kView, s.loc,
                   fmt::format("assemble of '{}' into '{}': size {} on axis {} exceeds {}", rhs.source, rhs.target,
                               sd[k], k, td[k]));
          } else if (offs[k] && (*offs[k] < 0 || *offs[k] > td[k] - sd[k])) {
            report(kView, rhs.offsets[k].loc,
                   fmt::format("assemble into '{}': offset {} + size {} on axis {} "
                               "is outside 0..{}",
                               rhs.target, *offs[k], sd[k], k, td[k]));
          }
        }
      }
    }
  }
  if (!writable(*tgt)) {
    report(kNotWritable, s.loc, fmt::format("assemble target '{}' is not writable: {}", rhs.target, root_text(*tgt)));
  }
  define(s.name, Binding::of_tensor(*tgt), s.loc);
}

}  // namespace stackcheck::verify::well_formed
