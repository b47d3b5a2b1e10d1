// WellFormed rule 10 (well_formed_context.h): a kernel that no longer fits its builtin
// (COMPILER.md §2): a param fewer than the builtin's, a param of the other kind or of another
// shape, a param direction other than the builtin's, or a return that names no Out or InOut
// param once. Kernels come first in a program, so their 10 is the first finding.
#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <vector>

#include "properties/gen/breakers/ir_build.h"
#include "properties/gen/breakers/well_formed_context.h"
#include "stack/ir/builtins.h"

namespace stackcheck::gen::breakers {

using namespace ir;

namespace {

std::string dims_text(const ir::Dims& d) {
  std::string t = "[";
  for (size_t i = 0; i < d.size(); ++i) t += (i ? ", " : "") + std::to_string(d[i]);
  return t + "]";
}

// A builtin-bound param of the other kind (tensor <-> i64).
Made other_kind(WellFormedEdit& e, Function& k, const ir::Builtin& builtin) {
  ChoiceSource& c = e.c;
  BrokenProgram& b = e.b;
  const size_t i = c.one_of(builtin.arity());
  Param& q = k.params[i];
  const ir::BuiltinParam& bp = builtin.params[i];
  q.type = q.type.is_tensor() ? Type::i64() : Type::tensor({4});
  if (!q.type.is_tensor()) {
    q.dir = Dir::In;
    std::erase(k.kernel_returns, q.name);
    if (c.boolean())  // its calls passing a scalar there too: only the builtin is left to refuse it
      for (Invoke* site : call_sites(b.program, k.name))
        if (i < site->args.size()) site->args[i] = int_expr(1);
  }
  b.what = fmt::format("kernel param {} made {}", q.name, q.type.is_tensor() ? "a tensor" : "an i64 scalar");
  b.message = fmt::format("param '{}' of kernel '{}' must be {} to bind param '{}' of builtin '{}'", q.name, k.name,
                          bp.tensor ? "a tensor" : "an i64 scalar", bp.name, builtin.name);
  return Made::kBroken;
}

// The last bound tensor one dim off: the builtin's shape rule names both shapes.
Made other_shape(WellFormedEdit& e, Function& k, const ir::Builtin& builtin) {
  BrokenProgram& b = e.b;
  std::vector<size_t> bound;
  for (size_t i = 0; i < builtin.arity(); ++i)
    if (builtin.params[i].tensor && k.params[i].type.is_tensor()) bound.push_back(i);
  if (bound.size() < 2) return Made::kNoPlace;
  std::vector<ir::Dims> dims;
  for (size_t i : bound) dims.push_back(k.params[i].type.dims);
  ir::Dims& last = k.params[bound.back()].type.dims;
  last[e.c.one_of(last.size())] += e.c.integer(1, 3);
  dims.back() = last;
  b.what = fmt::format("kernel param {} of another shape", k.params[bound.back()].name);
  // The kernel's shapes were legal, so the edited one is the first the rule refuses.
  const std::string rule = [&]() -> std::string {
    switch (builtin.shape_rule) {
      case ir::ShapeRule::Equal:
        return fmt::format("builtin '{}' needs equal shapes, found {} and {}", builtin.name, dims_text(dims.front()),
                           dims_text(dims.back()));
      case ir::ShapeRule::Matmul:
        if (dims.size() != 3) return {};
        return fmt::format("builtin 'matmul' needs [m, k], [k, n] -> [m, n], found {}, {} -> {}", dims_text(dims[0]),
                           dims_text(dims[1]), dims_text(dims[2]));
      case ir::ShapeRule::Rowsum:
        return fmt::format("builtin 'rowsum' needs [m, n] -> [m, 1], found {} -> {}", dims_text(dims[0]),
                           dims_text(dims[1]));
    }
    return {};
  }();
  if (rule.empty()) return Made::kNoPlace;
  b.message = fmt::format("kernel '{}': {}", k.name, rule);
  return Made::kBroken;
}

// A kernel with one param fewer than its builtin.
Made fewer_params(WellFormedEdit& e, Function& k, const ir::Builtin& builtin) {
  BrokenProgram& b = e.b;
  k.params.resize(builtin.arity() - 1);
  std::erase_if(k.kernel_returns, [&](const std::string& r) {
    return std::none_of(k.params.begin(), k.params.end(), [&](const Param& q) { return q.name == r; });
  });
  b.what = "a kernel with one param fewer than its builtin";
  b.message = fmt::format("kernel '{}' has {} params; builtin '{}' needs at least {}", k.name, k.params.size(),
                          builtin.name, builtin.arity());
  b.lowering_precondition = true;
  if (e.c.boolean()) {  // its calls passing one argument fewer too: only the builtin no longer binds
    for (Invoke* site : call_sites(b.program, k.name))
      if (site->args.size() > k.params.size()) site->args.resize(k.params.size());
    b.what += ", its calls passing as many arguments";
  }
  return Made::kBroken;
}

// A kernel param whose direction differs from its builtin's.
Made other_direction(WellFormedEdit& e, Function& k, const ir::Builtin& builtin) {
  BrokenProgram& b = e.b;
  std::vector<size_t> bound;
  for (size_t i = 0; i < builtin.arity(); ++i)
    if (k.params[i].type.is_tensor()) bound.push_back(i);
  if (bound.empty()) return Made::kNoPlace;
  Param& q = k.params[bound[e.c.one_of(bound.size())]];
  if (q.dir == Dir::In) {
    q.dir = Dir::InOut;
  } else {
    q.dir = Dir::In;
    std::erase(k.kernel_returns, q.name);
  }
  b.what = "a kernel param whose direction differs from its builtin's";
  const size_t i = static_cast<size_t>(&q - k.params.data());
  b.message = fmt::format("param '{}' of kernel '{}' is {}; param '{}' of builtin '{}' is {}", q.name, k.name,
                          dir_word(q.dir), builtin.params[i].name, builtin.name, dir_word(builtin.params[i].dir));
  return Made::kBroken;
}

// A return that names no Out or InOut param once: an In param, no param, a param twice.
Made bad_return(WellFormedEdit& e, Function& k, const std::vector<size_t>& in_tensors, bool launched) {
  ChoiceSource& c = e.c;
  BrokenProgram& b = e.b;
  switch (c.one_of(3)) {
    case 0:
      if (in_tensors.empty()) return Made::kNoPlace;
      k.kernel_returns.push_back(k.params[in_tensors[c.one_of(in_tensors.size())]].name);
      b.what = "a kernel returning an In param";
      b.message = fmt::format("kernel '{}' returns '{}', which is not an Out or InOut tensor param", k.name,
                              k.kernel_returns.back());
      break;
    case 1:
      k.kernel_returns.push_back("zz_none");
      b.what = "a kernel returning a name that is no param";
      b.message = fmt::format("kernel '{}' returns 'zz_none', which is not one of its params", k.name);
      // The interpreter looks the returned name up after the builtin ran: its Invalid error
      // where a launch of the kernel surely runs.
      b.interp_runs = !launched;
      break;
    default: {
      if (k.kernel_returns.empty()) return Made::kNoPlace;
      const std::string twice = k.kernel_returns[c.one_of(k.kernel_returns.size())];
      k.kernel_returns.push_back(twice);
      b.what = "a kernel returning a param twice";
      b.message = fmt::format("kernel '{}' returns '{}' twice", k.name, twice);
    }
  }
  return Made::kBroken;
}

}  // namespace

Made break_kernel_builtin(WellFormedEdit& e) {
  ChoiceSource& c = e.c;
  if (e.kernels.empty()) return Made::kNoPlace;
  // Half the time a kernel launched at the top of the entry's body, where the reference
  // interpreter surely runs it and must refuse it itself (most kernels of a program are
  // launched only in loops, ifs or graphs, so a kernel drawn among all rarely is).
  const auto launches = [&](const Function& f) {
    return std::any_of(e.calls.begin(), e.calls.end(), [&](size_t i) { return invoke_of(e.body[i])->callee == f.name; });
  };
  std::vector<Function*> at_top;
  for (Function* f : e.kernels)
    if (launches(*f)) at_top.push_back(f);
  const std::vector<Function*>& from = !at_top.empty() && c.boolean() ? at_top : e.kernels;
  Function& k = *from[c.one_of(from.size())];
  const ir::Builtin* builtin = ir::find_builtin(k.builtin);
  if (builtin == nullptr || builtin->arity() == 0) return Made::kNoPlace;
  e.b.graph = k.name;
  std::vector<size_t> in_tensors;
  for (size_t i = 0; i < k.params.size(); ++i)
    if (k.params[i].type.is_tensor() && k.params[i].dir == Dir::In) in_tensors.push_back(i);
  const size_t variant = c.one_of(5);
  // The interpreter runs a kernel's builtin on its arguments (COMPILER.md §7): a launch of
  // a kernel with a param fewer than its builtin or a param of the other kind is its Invalid
  // error (not a param of another shape: it runs the builtin on the arguments' own shapes,
  // which still fit). Expected only where a launch of the kernel surely runs: a call at the
  // top of the entry's body (a graph's or a loop's may not).
  const bool launched = launches(k);
  e.b.interp_runs = !(launched && (variant == 0 || variant == 3));
  switch (variant) {
    case 3: return other_kind(e, k, *builtin);
    case 4: return other_shape(e, k, *builtin);
    case 0: return fewer_params(e, k, *builtin);
    case 1: return other_direction(e, k, *builtin);
    default: return bad_return(e, k, in_tensors, launched);
  }
}

}  // namespace stackcheck::gen::breakers
