// WellFormed: names and scopes (SSA visibility, redefinition, out-of-scope and early use,
// tuple misuse, writability) and the checks of params and kernels (types, directions,
// kernel vs builtin).
#include "stack/verify/well_formed/internal.h"

#include "stack/ir/builtins.h"

#include <fmt/format.h>

namespace stackcheck::verify::well_formed {

void FunctionChecker::define(std::string_view name, Binding b, Loc loc) {
  if (!defined_.insert(name).second) {
    report(kRedefined, loc,
           fmt::format("'{}' is defined twice in '{}' (names are defined once per function)", name, f_.name));
    if (visible_.count(name) != 0) return;  // keep the first, visible definition
  }
  visible_[name] = std::move(b);
  scopes_.back().push_back(name);
}

void FunctionChecker::close_scope() {
  for (std::string_view n : scopes_.back()) visible_.erase(n);
  scopes_.pop_back();
}

// The binding `name` refers to here, or nullptr after reporting why there is none.
const Binding* FunctionChecker::use(std::string_view name, Loc loc) {
  auto it = visible_.find(name);
  if (it != visible_.end()) return &it->second;
  if (defined_.count(name) != 0) {
    report(kUndefined, loc, fmt::format("'{}' is used out of scope (its block has ended)", name));
  } else if (all_defs_.count(name) != 0) {
    report(kUndefined, loc, fmt::format("'{}' is used before its definition", name));
  } else {
    report(kUndefined, loc, fmt::format("undefined name '{}'", name));
  }
  return nullptr;
}

// Reports a tuple or task id used as a value; true if `b` is one.
bool FunctionChecker::misused_tuple(const Binding& b, std::string_view name, Loc loc) {
  if (b.kind == NameKind::Tuple) {
    report(kTuple, loc, fmt::format("tuple '{}' can only be used as '{}.k'", name, name));
    return true;
  }
  if (b.kind == NameKind::TaskId) {
    report(kTuple, loc, fmt::format("task id '{}' may be bound but never used", name));
    return true;
  }
  return false;
}

// The tensor `name` names here, or nullptr (reported unless poisoned).
std::string Role::text() const {
  if (param == nullptr) return what;
  return fmt::format("argument for tensor param '{}' of '{}'", param->name, callee->name);
}

const TensorVal* FunctionChecker::tensor_use(std::string_view name, Loc loc, const Role& role) {
  const Binding* b = use(name, loc);
  if (b == nullptr || misused_tuple(*b, name, loc)) return nullptr;
  if (b->kind == NameKind::Scalar) {
    report(kKind, loc, fmt::format("scalar '{}' used as a tensor ({})", name, role.text()));
    return nullptr;
  }
  return b->kind == NameKind::Tensor ? &b->tensor : nullptr;
}

bool FunctionChecker::writable(const TensorVal& t) const {
  return !t.root_param || *t.root_param >= f_.params.size() || f_.params[*t.root_param].dir != ir::Dir::In;
}

std::string FunctionChecker::root_text(const TensorVal& t) const {
  return fmt::format("its buffer is In param '{}' of '{}'", f_.params[*t.root_param].name, f_.name);
}

void FunctionChecker::check_params() {
  const bool entry = f_.kind == Function::Kind::Orchestration;
  for (size_t i = 0; i < f_.params.size(); ++i) {
    const ir::Param& p = f_.params[i];
    const auto why = type_problem(p.type);
    if (why) report(kBadType, p.loc, fmt::format("param '{}' of '{}' has a bad type: {}", p.name, f_.name, *why));
    if (!p.type.is_tensor() && p.dir != ir::Dir::In) {
      report(
          kDirection, p.loc,
          fmt::format("scalar param '{}' of '{}' is {}; scalar params are In", p.name, f_.name, ir::dir_name(p.dir)));
    }
    if (entry && p.type.is_tensor() && p.dir == ir::Dir::Out) {
      report(kDirection, p.loc,
             fmt::format("entry param '{}' of '{}' is Out; entry tensors are In or InOut", p.name, f_.name));
    }
    Binding b = p.type.is_tensor() ? Binding::of_tensor(TensorVal{why ? std::nullopt : std::optional<Type>(p.type), i})
                                   : Binding::scalar(std::nullopt);
    define(p.name, std::move(b), p.loc);
  }
}

void FunctionChecker::check_kernel() {
  const ir::Builtin* b = ir::find_builtin(f_.builtin);
  if (b == nullptr) {
    report(kCallee, f_.loc, fmt::format("kernel '{}': unknown builtin '{}'", f_.name, f_.builtin));
  }
  std::vector<ir::KernelMismatch> problems;
  if (b != nullptr) problems = ir::kernel_binding_mismatches(f_, *b);
  for (ir::KernelMismatch& m : ir::kernel_return_mismatches(f_)) problems.push_back(std::move(m));
  for (const ir::KernelMismatch& m : problems) {
    report(kKernel, m.param && *m.param < f_.params.size() ? f_.params[*m.param].loc : f_.loc, m.message);
  }
}

}  // namespace stackcheck::verify::well_formed
