// WellFormed: calls and submits: callee, entry and cycle checks, arity, and each argument
// against its param (kind, type, writability); result tensors share their argument's root.
#include "stack/verify/well_formed/internal.h"

#include "stack/ir/printer.h"

#include <fmt/format.h>

namespace stackcheck::verify::well_formed {

// Arguments when they cannot be matched to params: only their own uses are checked.
void FunctionChecker::loose_args(const ir::Invoke& inv) {
  for (const Expr& a : inv.args) {
    if (a.kind == Expr::Kind::Var) {
      if (const Binding* b = use(a.name, a.loc)) misused_tuple(*b, a.name, a.loc);
    } else {
      scalar(a);
    }
  }
}

// Checks a call/submit; returns its result tensors (one per callee return), or nullopt
// when the callee cannot be used at all.
std::optional<std::vector<TensorVal>> FunctionChecker::invoke(const ir::Invoke& inv) {
  const Function* g = info_.find(inv.callee);
  if (g == nullptr) {
    report(kCallee, inv.loc, fmt::format("unknown function '{}'", inv.callee));
    loose_args(inv);
    return std::nullopt;
  }
  if (g->kind == Function::Kind::Orchestration) {
    report(kCallee, inv.loc, fmt::format("the entry '{}' cannot be called", inv.callee));
    loose_args(inv);
    return std::nullopt;
  }
  const size_t gi = info_.first.at(inv.callee);
  if (g->kind == Function::Kind::Graph && info_.component[gi] == info_.component[index_]) {
    report(kCallee, inv.loc, fmt::format("call of '{}' from '{}' closes a call cycle", inv.callee, f_.name));
  }
  boost::container::small_vector<std::optional<TensorVal>, 8> arg_vals(inv.args.size());
  if (inv.args.size() != g->params.size()) {
    report(kArity, inv.loc,
           fmt::format("'{}' takes {} argument(s), {} given", inv.callee, g->params.size(), inv.args.size()));
    loose_args(inv);
  } else {
    for (size_t i = 0; i < inv.args.size(); ++i) arg_vals[i] = argument(inv, *g, i);
  }
  const ir::ReturnParams* rpi = info_.rpi.find(inv.callee);
  const bool kernel = g->kind == Function::Kind::Kernel;
  const size_t n = kernel ? g->kernel_returns.size() : g->results.size();
  std::vector<TensorVal> results(n);
  for (size_t j = 0; j < n; ++j) {
    std::optional<size_t> pi;
    if (rpi != nullptr && j < rpi->size()) pi = (*rpi)[j];
    const Type* t = kernel ? (pi && *pi < g->params.size() ? &g->params[*pi].type : nullptr) : &g->results[j];
    if (t != nullptr && t->is_tensor() && !type_problem(*t)) results[j].type = *t;
    // Result j is a window of the argument of param rpi[j]: it shares that root.
    if (pi && *pi < arg_vals.size() && arg_vals[*pi]) results[j].root_param = arg_vals[*pi]->root_param;
  }
  return results;
}

// Checks argument i against param i of g; returns it when it is a tensor.
std::optional<TensorVal> FunctionChecker::argument(const ir::Invoke& inv, const Function& g, size_t i) {
  const Expr& a = inv.args[i];
  const ir::Param& p = g.params[i];
  if (!p.type.is_tensor()) {
    scalar(a);
    return std::nullopt;
  }
  const Role role(p, g);
  if (a.kind != Expr::Kind::Var) {
    if (scalar(a).ok) report(kKind, a.loc, fmt::format("a scalar expression is passed as the {}", role.text()));
    return std::nullopt;
  }
  const TensorVal* t = tensor_use(a.name, a.loc, role);
  if (t == nullptr) return std::nullopt;
  if (t->type && !type_problem(p.type) && !same_type(*t->type, p.type)) {
    report(kKind, a.loc,
           fmt::format("'{}' of type {} is passed for param '{}: {}' of '{}'", a.name, ir::print_type(*t->type), p.name,
                       ir::print_type(p.type), g.name));
  }
  if (p.dir != ir::Dir::In && !writable(*t)) {
    report(kNotWritable, a.loc,
           fmt::format("'{}' is passed for {} param '{}' of '{}' but is not writable: {}", a.name, ir::dir_name(p.dir),
                       p.name, g.name, root_text(*t)));
  }
  return *t;
}

}  // namespace stackcheck::verify::well_formed
