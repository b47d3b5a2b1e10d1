// Statement lowering of one function body (lowering.h): statement lists with their allocs,
// assignments, loops and ifs, plus the bindings of IR names to plan registers.
#include <fmt/format.h>

#include "stack/codegen/codegen.h"
#include "stack/codegen/lowering.h"
#include "stack/support/limits.h"

namespace stackcheck::codegen::detail {

using runtime::PlanBlock;
using runtime::PlanExpr;
using runtime::PlanStmt;

namespace {

// Deeper bodies would exceed the `.plan` nesting limit (the IR parser's is the same).
constexpr unsigned kMaxDepth = 250;
// COMPILER.md §1: a tensor has at most 65,536 elements.
constexpr int64_t kMaxElements = support::kTensorMaxElements;

runtime::PlanCmp plan_cmp(ir::CmpOp c) {
  switch (c) {
    case ir::CmpOp::Eq: return runtime::PlanCmp::Eq;
    case ir::CmpOp::Ne: return runtime::PlanCmp::Ne;
    case ir::CmpOp::Lt: return runtime::PlanCmp::Lt;
    case ir::CmpOp::Le: return runtime::PlanCmp::Le;
    case ir::CmpOp::Gt: return runtime::PlanCmp::Gt;
    case ir::CmpOp::Ge: return runtime::PlanCmp::Ge;
  }
  return runtime::PlanCmp::Eq;
}

}  // namespace

BodyLowering::BodyLowering(const ProgramInfo& info, const ir::Function& f, ir::Diagnostics& diags)
    : info_(info),
      f_(f),
      graph_(f.kind == ir::Function::Kind::Graph),
      diags_(diags),
      static_(analyze_function(info, f)) {}

PlanBlock BodyLowering::lower_entry() {
  PlanBlock out;
  try {
    for (const ir::Param& p : f_.params) {
      defined_.insert(p.name);
      if (p.type.is_tensor()) {
        env_[p.name] = Binding{Binding::Kind::Tensor,
                               TensorReg{new_tensor(), p.dir == ir::Dir::In ? Root::EntryIn : Root::EntryInOut},
                               {},
                               {}};
      } else {
        diag(kEntryScalarParam, p.loc,
             fmt::format("entry scalar param '{}': an orchestration program has no scalar inputs", p.name));
        env_[p.name] = Binding{Binding::Kind::Scalar, {}, PlanExpr::integer(0), {}};
      }
    }
    at_ = f_.loc;
    emit(out, runtime::ScopeBeginStmt{});
    block(f_.body, out, 0);
    at_ = f_.loc;
    emit(out, runtime::ScopeEndStmt{});
  } catch (const Broken& b) {
    diag(kPrecondition, b.loc, b.message);
  }
  return out;
}

runtime::PlanGraph BodyLowering::lower_graph(const std::string& plan_name) {
  runtime::PlanGraph g;
  g.name = plan_name;
  try {
    int64_t slot = 0;
    for (const ir::Param& p : f_.params) {
      defined_.insert(p.name);
      if (p.type.is_tensor()) {
        const std::string reg = new_tensor();
        g.params.push_back(reg);
        env_[p.name] = Binding{Binding::Kind::Tensor, TensorReg{reg, Root::Boundary}, {}, {}};
      } else {
        env_[p.name] = Binding{Binding::Kind::Scalar, {}, PlanExpr::slot(slot++), {}};
      }
    }
    block(f_.body, g.body, 1);
  } catch (const Broken& b) {
    diag(kPrecondition, b.loc, b.message);
  }
  return g;
}

void BodyLowering::block(const std::vector<ir::Stmt>& list, PlanBlock& out, unsigned depth) {
  if (depth > kMaxDepth) broken(list.empty() ? f_.loc : list.front().loc, "statements nested too deeply");
  // The list opens with the allocs of its non-fresh creates, 16 per statement, in
  // definition order; fresh creates wait for the launch that binds them.
  std::vector<runtime::PlanBuffer> buffers;
  std::vector<ir::Loc> creates;  // the IR statement of each buffer
  for (const ir::Stmt& s : list) {
    if (s.kind != ir::Stmt::Kind::Assign || !std::holds_alternative<ir::CreateRhs>(s.rhs)) continue;
    const ir::Dims& d = buffer_shape(s.name, s.loc);
    if (static_.fresh.count(s.name) != 0) {
      env_[s.name] = Binding{Binding::Kind::PendingFresh, {}, {}, {}};
      continue;
    }
    const std::string reg = new_tensor();
    env_[s.name] = Binding{Binding::Kind::Tensor, TensorReg{reg, Root::Local}, {}, {}};
    buffers.push_back(runtime::PlanBuffer{reg, ir::dims_vector(d)});
    creates.push_back(s.loc);
  }
  const ir::Loc outer = at_;
  for (size_t i = 0; i < buffers.size(); i += kMaxAllocBuffers) {
    at_ = creates[i];  // an alloc is located at its first create
    runtime::AllocStmt a;
    const size_t end = std::min(buffers.size(), i + kMaxAllocBuffers);
    a.buffers.assign(buffers.begin() + static_cast<ptrdiff_t>(i), buffers.begin() + static_cast<ptrdiff_t>(end));
    emit(out, std::move(a));
  }
  at_ = outer;
  for (const ir::Stmt& s : list) stmt(s, out, depth);
  // The names this list defined end with it: a use after the block is an undefined name here
  // (WellFormed 3), not a register of the block's that the plan has out of scope.
  for (const ir::Stmt& s : list)
    if (s.kind == ir::Stmt::Kind::Assign) env_.erase(s.name);
}

void BodyLowering::stmt(const ir::Stmt& s, PlanBlock& out, unsigned depth) {
  // What s emits is located at s, a nested body's statements at their own (a Broken throw
  // ends the function's lowering, so no restore is needed on that path).
  struct At {
    ir::Loc& at;
    ir::Loc outer;
    ~At() { at = outer; }
  } restore{at_, at_};
  at_ = s.loc;
  switch (s.kind) {
    case ir::Stmt::Kind::Assign: assign(s, out); return;
    case ir::Stmt::Kind::Invoke: launch(s.invoke, s.loc, out); return;
    case ir::Stmt::Kind::Return: return;  // results are the call sites' rpi
    case ir::Stmt::Kind::For: loop(s, out, depth); return;
    case ir::Stmt::Kind::If: branch(s, out, depth); return;
  }
  broken(s.loc, "unknown statement kind");
}

void BodyLowering::assign(const ir::Stmt& s, PlanBlock& out) {
  if (!defined_.insert(s.name).second && !std::holds_alternative<ir::CreateRhs>(s.rhs))
    broken(s.loc, fmt::format("'{}' defined twice", s.name));
  if (const auto* e = std::get_if<ir::ExprRhs>(&s.rhs)) {
    if (e->expr.kind == ir::Expr::Kind::Var) {  // an alias reuses its source's register
      const Binding& src = lookup(e->expr.name, s.loc);
      if (src.kind != Binding::Kind::Tensor && src.kind != Binding::Kind::Scalar)
        broken(s.loc, fmt::format("'{}' is not a tensor or scalar", e->expr.name));
      env_[s.name] = src;
      return;
    }
    if (e->expr.kind == ir::Expr::Kind::Read) {  // `v = read(...)` reads into v's register
      env_[s.name] = Binding{Binding::Kind::Scalar, {}, read(e->expr, out, 0), {}};
      return;
    }
    PlanExpr value = expr(e->expr, out);
    env_[s.name] = Binding{Binding::Kind::Scalar, {}, PlanExpr::named(set_register(std::move(value), out)), {}};
  } else if (const auto* c = std::get_if<ir::InvokeRhs>(&s.rhs)) {
    bind_results(s.name, c->invoke, launch(c->invoke, s.loc, out));
  } else if (const auto* t = std::get_if<ir::TupleGetRhs>(&s.rhs)) {
    const Binding& tup = lookup(t->tuple, s.loc);
    if (tup.kind != Binding::Kind::Tuple || t->index < 0 || static_cast<uint64_t>(t->index) >= tup.tuple.size())
      broken(s.loc, fmt::format("'{}.{}' is no tuple element", t->tuple, t->index));
    const std::optional<TensorReg>& el = tup.tuple[static_cast<size_t>(t->index)];
    env_[s.name] = el ? Binding{Binding::Kind::Tensor, *el, {}, {}} : Binding{};
  } else if (std::holds_alternative<ir::CreateRhs>(s.rhs)) {
    return;  // bound when its list opened (alloc) or at its launch (fresh)
  } else if (const auto* fu = std::get_if<ir::FullRhs>(&s.rhs)) {
    const ir::Dims& d = buffer_shape(s.name, s.loc);
    const std::string reg = new_tensor();
    env_[s.name] = Binding{Binding::Kind::Tensor, TensorReg{reg, Root::Local}, {}, {}};
    if (graph_) {
      diag(kFullInGraph, s.loc,
           fmt::format("`full` in graph '{}' (its fill would be frozen in the recording)", f_.name));
      return;
    }
    runtime::SubmitStmt fill;
    fill.builtin = runtime::Builtin::Fill;
    fill.args.push_back(runtime::PlanArg::output(reg, ir::dims_vector(d)));
    fill.args.push_back(runtime::PlanArg::scalar_value(atom(fu->value, out)));
    emit(out, std::move(fill));
  } else if (const auto* sl = std::get_if<ir::SliceRhs>(&s.rhs)) {
    const TensorReg src = tensor(sl->source, s.loc);
    if (sl->offsets.size() != sl->sizes.size() || sl->offsets.size() != dims(sl->source, s.loc).size())
      broken(s.loc, fmt::format("slice of '{}' does not match its rank", sl->source));
    runtime::ViewStmt v;
    v.source.name = src.name;
    for (size_t i = 0; i < sl->offsets.size(); ++i)
      v.source.ranges.push_back(runtime::PlanRange{atom(sl->offsets[i], out), sl->sizes[i]});
    v.name = new_tensor();
    env_[s.name] = Binding{Binding::Kind::Tensor, TensorReg{v.name, src.root}, {}, {}};
    emit(out, std::move(v));
  } else if (const auto* as = std::get_if<ir::AssembleRhs>(&s.rhs)) {
    // assemble(t, src, offs): copy src into a view of t; the result is t's window.
    const TensorReg target = tensor(as->target, s.loc);
    const TensorReg src = tensor(as->source, s.loc);
    const ir::Dims& sizes = dims(as->source, s.loc);
    if (as->offsets.size() != sizes.size() || sizes.size() != dims(as->target, s.loc).size())
      broken(s.loc, fmt::format("assemble into '{}' does not match its rank", as->target));
    runtime::ViewStmt v;
    v.source.name = target.name;
    for (size_t i = 0; i < sizes.size(); ++i)
      v.source.ranges.push_back(runtime::PlanRange{atom(as->offsets[i], out), sizes[i]});
    v.name = new_tensor();
    runtime::SubmitStmt copy;
    copy.builtin = runtime::Builtin::Copy;
    copy.args.push_back(runtime::PlanArg::tensor(runtime::PlanTag::Input, runtime::PlanWindow{src.name, {}, {}}));
    copy.args.push_back(
        runtime::PlanArg::tensor(runtime::PlanTag::OutputExisting, runtime::PlanWindow{v.name, {}, {}}));
    emit(out, std::move(v));
    emit(out, std::move(copy));
    env_[s.name] = Binding{Binding::Kind::Tensor, target, {}, {}};
  } else {
    broken(s.loc, "unknown assignment kind");
  }
}

void BodyLowering::loop(const ir::Stmt& s, PlanBlock& out, unsigned depth) {
  if (!defined_.insert(s.name).second) broken(s.loc, fmt::format("'{}' defined twice", s.name));
  runtime::ForStmt f;
  f.start = atom(s.lo, out);
  f.stop = atom(s.hi, out);
  f.step = atom(s.step, out);
  f.var = new_scalar();
  env_[s.name] = Binding{Binding::Kind::Scalar, {}, PlanExpr::named(f.var), {}};
  // Each entry iteration is a scope: its task-heap allocations are rewound at its end.
  // Graph bodies hold no scopes (RUNTIME.md §9).
  if (!graph_) emit(f.body, runtime::ScopeBeginStmt{});
  block(s.body, f.body, depth + 1);
  env_.erase(s.name);  // the loop variable's scope is the body
  if (!graph_) emit(f.body, runtime::ScopeEndStmt{});
  emit(out, std::move(f));
}

void BodyLowering::branch(const ir::Stmt& s, PlanBlock& out, unsigned depth) {
  runtime::IfStmt i;
  i.lhs = atom(ir::if_lhs(s), out);
  i.cmp = plan_cmp(s.cmp);
  i.rhs = atom(ir::if_rhs(s), out);
  block(s.body, i.then_body, depth + 1);
  block(s.else_body, i.else_body, depth + 1);
  emit(out, std::move(i));
}

// ---- names ----

const Binding& BodyLowering::lookup(const std::string& name, ir::Loc loc) const {
  auto it = env_.find(name);
  if (it == env_.end()) broken(loc, fmt::format("'{}' is not defined", name));
  return it->second;
}

const TensorReg& BodyLowering::tensor(const std::string& name, ir::Loc loc) const {
  const Binding& b = lookup(name, loc);
  if (b.kind != Binding::Kind::Tensor) broken(loc, fmt::format("'{}' is not a tensor", name));
  return b.tensor;
}

const TensorReg& BodyLowering::tensor_arg(const ir::Expr& e, ir::Loc loc) const {
  if (e.kind != ir::Expr::Kind::Var) broken(e.loc.line ? e.loc : loc, "a tensor argument is not a name");
  return tensor(e.name, e.loc.line ? e.loc : loc);
}

const ir::Dims& BodyLowering::dims(const std::string& name, ir::Loc loc) const {
  auto it = static_.dims.find(name);
  if (it == static_.dims.end()) broken(loc, fmt::format("the shape of '{}' is not static", name));
  return it->second;
}

const ir::Dims& BodyLowering::buffer_shape(const std::string& name, ir::Loc loc) const {
  const ir::Dims& d = dims(name, loc);
  if (d.empty() || d.size() > 3) broken(loc, fmt::format("'{}' has rank {}, not 1..3", name, d.size()));
  uint64_t elements = 1;
  for (int64_t x : d) {
    if (x < 1 || x > kMaxElements)
      broken(loc, fmt::format("'{}' has a dimension {} outside 1..{}", name, x, kMaxElements));
    elements *= static_cast<uint64_t>(x);
    if (elements > kMaxElements) broken(loc, fmt::format("'{}' has more than {} elements", name, kMaxElements));
  }
  return d;
}

void BodyLowering::diag(int code, ir::Loc loc, std::string message) {
  diags_.push_back(
      ir::Diagnostic{kRule, code, ir::Location{f_.name, loc.line, loc.column}, std::move(message)});
}

void BodyLowering::broken(ir::Loc loc, std::string message) const {
  throw Broken{loc, "codegen precondition broken (run the pipeline first): " + message};
}

void BodyLowering::emit(PlanBlock& out, PlanStmt::Node node) const {
  out.push_back(PlanStmt{std::move(node), runtime::PlanLoc{at_.line, at_.column}});
}

}  // namespace stackcheck::codegen::detail
