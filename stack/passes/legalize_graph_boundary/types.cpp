// LegalizeGraphBoundary: program lookups, the pass's own type inference of a function's
// names and its own replay-invariance analysis (the verifier has separate ones).
#include "stack/passes/legalize_graph_boundary/internal.h"

#include <utility>

namespace stackcheck::passes::graph_boundary {

Context::Context(const ir::Program& p) : program_(p), rpi_(p) {
  for (const ir::Function& f : p.functions) functions_.emplace(f.name, &f);
}

const ir::Function* Context::find(std::string_view name) const {
  auto it = functions_.find(name);
  return it == functions_.end() ? nullptr : it->second;
}

bool Context::is_kernel(std::string_view name) const {
  const ir::Function* f = find(name);
  return f != nullptr && f->kind == ir::Function::Kind::Kernel;
}

bool Context::is_graph(std::string_view name) const {
  const ir::Function* f = find(name);
  return f != nullptr && f->kind == ir::Function::Kind::Graph;
}

ir::Diagnostic make_diag(int code, const ir::Function& f, ir::Loc loc, std::string message) {
  ir::Diagnostic d;
  d.rule = kRule;
  d.code = code;
  d.location = ir::Location{f.name, loc.line, loc.column};
  d.message = std::move(message);
  return d;
}

size_t result_count(const ir::Function& callee) {
  switch (callee.kind) {
    case ir::Function::Kind::Kernel: return callee.kernel_returns.size();
    case ir::Function::Kind::Graph: return callee.results.size();
    case ir::Function::Kind::Orchestration: return 0;
  }
  return 0;
}

const ir::Type* result_type(const ir::Function& callee, size_t j) {
  if (callee.kind == ir::Function::Kind::Kernel) {
    if (j >= callee.kernel_returns.size()) return nullptr;
    for (const ir::Param& p : callee.params) {
      if (p.name == callee.kernel_returns[j]) return &p.type;
    }
    return nullptr;
  }
  if (callee.kind == ir::Function::Kind::Graph && j < callee.results.size()) {
    return &callee.results[j];
  }
  return nullptr;
}

// ---- FunctionTypes -------------------------------------------------------------------

const Dims* FunctionTypes::dims(std::string_view n) const {
  auto it = tensors.find(n);
  return it == tensors.end() || !it->second ? nullptr : &*it->second;
}

ir::DimsOf FunctionTypes::dims_of() const {
  return [this](std::string_view n) { return dims(n); };
}

ir::ValueOf FunctionTypes::static_value() const {
  return [this](std::string_view n) -> std::optional<int64_t> {
    auto it = statics.find(n);
    if (it == statics.end()) return std::nullopt;
    return it->second;
  };
}

namespace {

struct TypeWalker {
  const Context& ctx;
  FunctionTypes& t;
  // Tuple names: the callee and its result count.
  std::pmr::unordered_map<std::string_view, const ir::Function*> tuples;

  void tensor(const std::string& name, const Dims* dims) {
    auto [it, fresh] = t.tensors.try_emplace(name);
    if (dims != nullptr && !it->second) it->second = *dims;  // the first dims known stay
  }

  // Evaluates a shape with the static scalars; nullopt when any extent is not constant.
  std::optional<Dims> shape(const std::vector<ir::Expr>& es) {
    Dims d;
    for (const ir::Expr& e : es) {
      const ir::EvalResult r = ir::evaluate(e, t.dims_of(), t.static_value());
      if (!r.ok()) return std::nullopt;
      d.push_back(r.value);
    }
    return d;
  }

  void assign(const ir::Stmt& s) {
    const std::string& v = s.name;
    if (const auto* e = std::get_if<ir::ExprRhs>(&s.rhs)) {
      if (e->expr.kind == ir::Expr::Kind::Var && t.is_tensor(e->expr.name)) {
        tensor(v, t.dims(e->expr.name));
        return;
      }
      const ir::EvalResult r = ir::evaluate(e->expr, t.dims_of(), t.static_value());
      if (r.ok()) t.statics.emplace(v, r.value);
    } else if (const auto* c = std::get_if<ir::InvokeRhs>(&s.rhs)) {
      const ir::Function* callee = ctx.find(c->invoke.callee);
      if (callee == nullptr) return;
      const size_t n = result_count(*callee);
      if (c->invoke.submit || n >= 2) {
        tuples.emplace(v, callee);
      } else if (n == 1) {
        const ir::Type* rt = result_type(*callee, 0);
        if (rt != nullptr && rt->is_tensor()) tensor(v, &rt->dims);
      }
    } else if (const auto* g = std::get_if<ir::TupleGetRhs>(&s.rhs)) {
      auto it = tuples.find(g->tuple);
      if (it == tuples.end() || g->index < 0) return;
      const ir::Type* rt = result_type(*it->second, static_cast<size_t>(g->index));
      if (rt != nullptr && rt->is_tensor()) tensor(v, &rt->dims);
    } else if (const auto* cr = std::get_if<ir::CreateRhs>(&s.rhs)) {
      auto d = shape(cr->shape);
      tensor(v, d ? &*d : nullptr);
    } else if (const auto* fu = std::get_if<ir::FullRhs>(&s.rhs)) {
      auto d = shape(fu->shape);
      tensor(v, d ? &*d : nullptr);
    } else if (const auto* sl = std::get_if<ir::SliceRhs>(&s.rhs)) {
      tensor(v, &sl->sizes);
    } else if (const auto* as = std::get_if<ir::AssembleRhs>(&s.rhs)) {
      tensor(v, t.dims(as->target));
    }
  }

  void visit(const ir::Stmt& s, const ir::Place&) {
    if (s.kind == ir::Stmt::Kind::Assign) assign(s);
  }
};

}  // namespace

FunctionTypes infer_types(const Context& ctx, const ir::Function& f) {
  FunctionTypes t(ctx.scratch());
  for (const ir::Param& p : f.params) {
    if (p.type.is_tensor()) {
      auto [it, fresh] = t.tensors.try_emplace(p.name);
      if (!it->second) it->second = p.type.dims;
    }
  }
  ir::walk_statements(f.body, TypeWalker{ctx, t, decltype(TypeWalker::tuples)(ctx.scratch())});
  return t;
}

// ---- Invariance ----------------------------------------------------------------------

Invariance::Invariance(const ir::Function& g, const ir::DimsOf& dims_of) {
  // Scalar params are never invariant: absent names answer false. A forward walk, so a
  // name depends only on definitions before it.
  ir::walk_statements(g.body, [&](const ir::Stmt& s) {
    if (s.kind == ir::Stmt::Kind::Assign) {
      if (const auto* e = std::get_if<ir::ExprRhs>(&s.rhs)) names_.emplace(s.name, expr(e->expr));
    } else if (s.kind == ir::Stmt::Kind::For) {
      names_.emplace(s.name, ir::constant_trips(s, dims_of).has_value());
    }
  });
}

bool Invariance::name(const std::string& n) const {
  auto it = names_.find(n);
  return it != names_.end() && it->second;
}

bool Invariance::expr(const ir::Expr& e) const {
  bool invariant = true;
  ir::for_each_subexpr(e, [&](const ir::Expr& x) {
    switch (x.kind) {
      case ir::Expr::Kind::Int:
      case ir::Expr::Kind::Dim: break;
      case ir::Expr::Kind::Var: invariant = invariant && name(x.name); break;
      case ir::Expr::Kind::Read: invariant = false; break;
      case ir::Expr::Kind::Binary: invariant = invariant && x.args.size() == 2; break;
    }
  });
  return invariant;
}

}  // namespace stackcheck::passes::graph_boundary
