// Launch lowering (lowering.h): kernel calls become `submit <builtin>(...)`, graph calls
// `submit_graph <graph>(...)`; tensors in param order, then scalars. Result j of a launch
// is the register of the argument of param rpi(f)[j] (a writeback or tuple element reuses
// it), so results never need a statement.
#include <fmt/format.h>

#include "stack/codegen/codegen.h"
#include "stack/codegen/lowering.h"
#include "stack/ir/builtins.h"

namespace stackcheck::codegen::detail {

using runtime::PlanArg;
using runtime::PlanBlock;
using runtime::PlanTag;
using runtime::PlanWindow;

namespace {

using Results = std::vector<std::optional<TensorReg>>;

ir::Loc loc_or(const ir::Expr& e, ir::Loc fallback) { return e.loc.line != 0 ? e.loc : fallback; }

}  // namespace

Results BodyLowering::launch(const ir::Invoke& inv, ir::Loc loc, PlanBlock& out) {
  if (inv.loc.line != 0) loc = inv.loc;
  const ir::Function* f = info_.find(inv.callee);
  if (f == nullptr) broken(loc, fmt::format("unknown callee '{}'", inv.callee));
  if (inv.args.size() != f->params.size())
    broken(loc, fmt::format("'{}' takes {} arguments, not {}", f->name, f->params.size(), inv.args.size()));
  switch (f->kind) {
    case ir::Function::Kind::Kernel: return kernel_launch(*f, inv, loc, out);
    case ir::Function::Kind::Graph: return graph_launch(*f, inv, loc, out);
    case ir::Function::Kind::Orchestration: break;
  }
  broken(loc, fmt::format("the entry '{}' is called", f->name));
}

Results BodyLowering::kernel_launch(const ir::Function& k, const ir::Invoke& inv, ir::Loc loc, PlanBlock& out) {
  const ir::Builtin* b = ir::find_builtin(k.builtin);
  const std::optional<runtime::Builtin> rb = b ? runtime::builtin_from_name(b->name) : std::nullopt;
  if (!rb) broken(loc, fmt::format("kernel '{}' has no known builtin", k.name));
  if (k.params.size() < b->arity()) broken(loc, fmt::format("kernel '{}' has fewer params than its builtin", k.name));
  runtime::SubmitStmt sub;
  sub.builtin = *rb;
  std::vector<PlanArg> scalars;
  sub.args.reserve(b->arity());  // one block: the args are the builtin's params
  // Params past the builtin's arity are extras: never touched, so never passed.
  for (size_t i = 0; i < b->arity(); ++i) {
    const ir::Param& p = k.params[i];
    const ir::Expr& a = inv.args[i];
    if (p.type.is_tensor() != b->params[i].tensor)
      broken(loc, fmt::format("kernel '{}' param '{}' does not match its builtin", k.name, p.name));
    if (!p.type.is_tensor()) {
      scalars.push_back(PlanArg::scalar_value(atom(a, out)));
      continue;
    }
    if (a.kind == ir::Expr::Kind::Var) {
      auto it = env_.find(a.name);
      if (it != env_.end() && it->second.kind == Binding::Kind::PendingFresh) {
        // A fresh create: the runtime allocates it as this task's output and binds it.
        if (p.dir != ir::Dir::Out) broken(loc, fmt::format("fresh create '{}' is not passed to an Out param", a.name));
        const std::string reg = new_tensor();
        it->second = Binding{Binding::Kind::Tensor, TensorReg{reg, Root::Local}, {}, {}};
        sub.args.push_back(PlanArg::output(reg, ir::dims_vector(dims(a.name, loc))));
        continue;
      }
    }
    const TensorReg& t = tensor_arg(a, loc);
    const PlanTag tag = p.dir == ir::Dir::In      ? PlanTag::Input
                        : p.dir == ir::Dir::InOut ? PlanTag::Inout
                                                  : PlanTag::OutputExisting;
    sub.args.push_back(PlanArg::tensor(tag, PlanWindow{t.name, {}, {}}));
  }
  for (PlanArg& s : scalars) sub.args.push_back(std::move(s));
  emit(out, std::move(sub));

  Results results;
  const ir::ReturnParams* rpi = info_.rpi.find(k.name);
  if (rpi == nullptr) broken(loc, fmt::format("no rpi for kernel '{}'", k.name));
  for (const std::optional<size_t>& i : *rpi) {
    if (!i || *i >= inv.args.size()) broken(loc, fmt::format("kernel '{}' returns a name that is not a param", k.name));
    results.push_back(tensor_arg(inv.args[*i], loc));
  }
  return results;
}

Results BodyLowering::graph_launch(const ir::Function& g, const ir::Invoke& inv, ir::Loc loc, PlanBlock& out) {
  bool emit_ok = true;
  if (graph_) {
    diag(kGraphFromGraph, loc,
         fmt::format("graph '{}' launches graph '{}' (a recording cannot hold a graph)", f_.name, g.name));
    emit_ok = false;
  }
  size_t n_tensors = 0, n_scalars = 0;
  for (const ir::Param& p : g.params) {
    if (p.type.is_tensor())
      ++n_tensors;
    else
      ++n_scalars;
    if (p.type.is_tensor() && p.dir == ir::Dir::Out) emit_ok = false;  // 301, reported with the graph
  }
  if (n_tensors > kMaxGraphTensors || n_scalars > kMaxGraphScalars) {
    diag(kGraphBoundaryTooLarge, loc,
         fmt::format("submit_graph {} has {} tensors and {} scalars (at most {} and {})", g.name, n_tensors, n_scalars,
                     kMaxGraphTensors, kMaxGraphScalars));
    emit_ok = false;
  }
  runtime::SubmitGraphStmt sub;
  auto name = info_.graph_names.find(g.name);
  if (name == info_.graph_names.end()) broken(loc, fmt::format("graph '{}' has no plan name", g.name));
  sub.graph = name->second;
  std::vector<PlanArg> scalars;
  sub.args.reserve(g.params.size());  // one block: at most one arg a param
  for (size_t i = 0; i < g.params.size(); ++i) {
    const ir::Param& p = g.params[i];
    if (p.type.is_tensor()) {
      const TensorReg& t = tensor_arg(inv.args[i], loc);
      sub.args.push_back(
          PlanArg::tensor(p.dir == ir::Dir::In ? PlanTag::Input : PlanTag::Inout, PlanWindow{t.name, {}, {}}));
    } else if (emit_ok) {
      scalars.push_back(PlanArg::scalar_value(atom(inv.args[i], out)));
    }
  }
  for (PlanArg& s : scalars) sub.args.push_back(std::move(s));
  if (emit_ok) emit(out, std::move(sub));

  Results results;
  const ir::ReturnParams* rpi = info_.rpi.find(g.name);
  if (rpi == nullptr) broken(loc, fmt::format("no rpi for graph '{}'", g.name));
  for (const std::optional<size_t>& i : *rpi) {
    if (i && *i < inv.args.size())
      results.push_back(tensor_arg(inv.args[*i], loc_or(inv.args[*i], loc)));
    else
      results.push_back(std::nullopt);  // untraceable: GraphBoundaryLegalized (209) rejects its use
  }
  return results;
}

void BodyLowering::bind_results(const std::string& name, const ir::Invoke& inv, Results results) {
  Binding b;
  if (inv.submit) {
    results.push_back(std::nullopt);  // the task id: may be bound, never used
    b.kind = Binding::Kind::Tuple;
    b.tuple = std::move(results);
  } else if (results.size() == 1) {
    if (results[0]) b = Binding{Binding::Kind::Tensor, *results[0], {}, {}};
  } else if (results.size() >= 2) {
    b.kind = Binding::Kind::Tuple;
    b.tuple = std::move(results);
  }
  env_[name] = std::move(b);
}

}  // namespace stackcheck::codegen::detail
