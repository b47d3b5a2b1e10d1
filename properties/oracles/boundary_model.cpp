// Collect (COMPILER.md §5.3 step 2), the oracles' own walk: aliases, Step A scalars, Step B
// views, Step C creates, and every tensor name's provenance (§3 root, rooted, whole).
#include "properties/oracles/boundary_model.h"

#include <fmt/format.h>

#include <set>

#include "properties/oracles/ref_arith.h"

namespace stackcheck::oracles::boundary {

std::optional<int64_t> literal_value(const ir::Expr& e, const std::map<std::string, Tensor>& tensors) {
  switch (e.kind) {
    case ir::Expr::Kind::Int: return e.value;
    case ir::Expr::Kind::Dim: {
      auto it = tensors.find(e.name);
      if (it == tensors.end() || !it->second.shape.known || e.value < 0 ||
          static_cast<size_t>(e.value) >= it->second.shape.dims.size())
        return std::nullopt;
      return it->second.shape.dims[static_cast<size_t>(e.value)];
    }
    case ir::Expr::Kind::Binary: {
      if (e.args.size() != 2) return std::nullopt;
      const auto a = literal_value(e.args[0], tensors), b = literal_value(e.args[1], tensors);
      if (!a || !b) return std::nullopt;
      return ref::apply(e.op, *a, *b);
    }
    default: return std::nullopt;
  }
}

namespace {

bool has_kind(const ir::Expr& e, ir::Expr::Kind k) {
  if (e.kind == k) return true;
  for (const ir::Expr& a : e.args)
    if (has_kind(a, k)) return true;
  return false;
}

bool names_nothing(const ir::Expr& e) {
  return !has_kind(e, ir::Expr::Kind::Var) && !has_kind(e, ir::Expr::Kind::Read);
}

class Collector {
 public:
  Collector(const ir::Program& p, const ir::Function& g, bool step_c) : p_(p), step_c_(step_c) {
    m_.graph = &g;
    for (const ir::Param& q : g.params) {
      if (!q.type.is_tensor()) {
        scalar_params_.insert(q.name);
        continue;
      }
      m_.tensors[q.name] = Tensor{q.name, true, true, Shape{true, q.type.dims}};
      root_dir_[q.name] = q.dir;
    }
  }

  GraphModel run() {
    walk(m_.graph->body, 0, false);
    for (auto kind : {Entry::Kind::Create, Entry::Kind::View, Entry::Kind::Scalar})
      for (size_t i = 0; i < m_.entries.size(); ++i)
        if (m_.entries[i].kind == kind) m_.param_order.push_back(i);
    return std::move(m_);
  }

 private:
  void walk(const std::vector<ir::Stmt>& body, uint32_t depth, bool conditional) {
    for (const ir::Stmt& s : body) {
      if (!m_.rejects.empty() || !m_.unknown.empty()) return;
      switch (s.kind) {
        case ir::Stmt::Kind::Assign: assign(s, depth, conditional); break;
        case ir::Stmt::Kind::For: {
          const auto a = literal(s.lo), b = literal(s.hi), st = literal(s.step);
          const bool constant = names_nothing(s.lo) && names_nothing(s.hi) && names_nothing(s.step);
          if (constant && (!a || !b || !st)) {
            m_.unknown = "a loop bound the model cannot evaluate";
            return;
          }
          const bool runs = constant && ref::trip_count(*a, *b, *st).value_or(0) >= 1;
          loop_vars_.insert(s.name);
          if (constant) invariant_.insert(s.name);
          walk(s.body, depth + 1, conditional || !runs);
          break;
        }
        case ir::Stmt::Kind::If:
          walk(s.body, depth, true);
          walk(s.else_body, depth, true);
          break;
        default: break;
      }
    }
  }

  std::optional<int64_t> literal(const ir::Expr& e) {
    if (has_kind(e, ir::Expr::Kind::Dim) && names_nothing(e) && !literal_value(e, m_.tensors) && has_unknown_dim(e))
      m_.unknown = "a dim of a shape the model does not know";
    return literal_value(e, m_.tensors);
  }
  bool has_unknown_dim(const ir::Expr& e) const {
    if (e.kind == ir::Expr::Kind::Dim) {
      auto it = m_.tensors.find(e.name);
      return it == m_.tensors.end() || !it->second.shape.known;
    }
    for (const ir::Expr& a : e.args)
      if (has_unknown_dim(a)) return true;
    return false;
  }

  void assign(const ir::Stmt& s, uint32_t depth, bool conditional) {
    if (const auto* r = std::get_if<ir::ExprRhs>(&s.rhs)) return scalar(s, r->expr, depth, conditional);
    if (const auto* c = std::get_if<ir::CreateRhs>(&s.rhs)) return create(s, c->shape, depth);
    if (const auto* f = std::get_if<ir::FullRhs>(&s.rhs)) {
      m_.tensors[s.name] = Tensor{s.name, false, true, shape_of(f->shape)};
      return;
    }
    if (const auto* sl = std::get_if<ir::SliceRhs>(&s.rhs)) return slice(s, *sl, depth, conditional);
    if (const auto* as = std::get_if<ir::AssembleRhs>(&s.rhs)) {
      if (auto it = m_.tensors.find(as->target); it != m_.tensors.end()) m_.tensors[s.name] = it->second;
      return;
    }
    if (const auto* t = std::get_if<ir::TupleGetRhs>(&s.rhs)) {
      auto it = tuples_.find(t->tuple);
      if (it != tuples_.end() && t->index >= 0 && static_cast<size_t>(t->index) < it->second.size())
        m_.tensors[s.name] = it->second[static_cast<size_t>(t->index)];
      return;
    }
    if (const auto* inv = std::get_if<ir::InvokeRhs>(&s.rhs)) invoke(s.name, inv->invoke);
  }

  // A kernel call's result j is the window of the argument its return j names (§1).
  void invoke(const std::string& name, const ir::Invoke& call) {
    const ir::Function* k = nullptr;
    for (const ir::Function& f : p_.functions)
      if (f.name == call.callee && f.kind == ir::Function::Kind::Kernel) k = &f;
    if (k == nullptr) return;
    std::vector<Tensor> results;
    for (const std::string& ret : k->kernel_returns) {
      Tensor t{name, false, true, Shape{}};
      for (size_t i = 0; i < k->params.size() && i < call.args.size(); ++i)
        if (k->params[i].name == ret && call.args[i].kind == ir::Expr::Kind::Var)
          if (auto it = m_.tensors.find(call.args[i].name); it != m_.tensors.end()) t = it->second;
      results.push_back(t);
    }
    if (!call.submit && results.size() == 1)
      m_.tensors[name] = results[0];
    else
      tuples_[name] = std::move(results);
  }

  Shape shape_of(const std::vector<ir::Expr>& shape) {
    Shape out{true, {}};
    for (const ir::Expr& e : shape) {
      const auto v = static_value(e);
      if (!v) return Shape{};
      out.dims.push_back(*v);
    }
    return out;
  }
  // §3 static: literals and names bound to static expressions, under operators.
  std::optional<int64_t> static_value(const ir::Expr& e) const {
    if (e.kind == ir::Expr::Kind::Var) {
      auto it = statics_.find(e.name);
      return it == statics_.end() ? std::nullopt : std::optional<int64_t>(it->second);
    }
    if (e.kind != ir::Expr::Kind::Binary) return literal_value(e, m_.tensors);
    if (e.args.size() != 2) return std::nullopt;
    const auto a = static_value(e.args[0]), b = static_value(e.args[1]);
    if (!a || !b) return std::nullopt;
    return ref::apply(e.op, *a, *b);
  }

  void scalar(const ir::Stmt& s, const ir::Expr& e, uint32_t depth, bool conditional) {
    if (e.kind == ir::Expr::Kind::Var) {
      if (auto it = m_.tensors.find(e.name); it != m_.tensors.end()) {
        m_.tensors[s.name] = it->second;  // a tensor alias: provenance only
        return;
      }
      if (scalar_params_.count(e.name) != 0 || hoisted_.count(e.name) != 0 || m_.alias.count(e.name) != 0) {
        auto a = m_.alias.find(e.name);
        const std::string base = a == m_.alias.end() ? e.name : a->second;
        m_.alias[s.name] = base;
        m_.entries.push_back(Entry{Entry::Kind::Alias, &s, base, "", depth, ir::Dir::In, ir::Type::i64()});
        return;
      }
    }
    if (const auto v = static_value(e)) statics_[s.name] = *v;
    if (derivable(e, conditional) && !invariant(e)) {
      hoisted_.insert(s.name);
      m_.entries.push_back(Entry{Entry::Kind::Scalar, &s, "", "", depth, ir::Dir::In, ir::Type::i64()});
    } else if (invariant(e)) {
      invariant_.insert(s.name);
    }
  }

  void create(const ir::Stmt& s, const std::vector<ir::Expr>& shape, uint32_t depth) {
    const Shape sh = shape_of(shape);
    if (step_c_ && depth == 0) {
      if (!sh.known) {
        m_.unknown = "a hoisted create of a shape the model does not know";
        return;
      }
      m_.tensors[s.name] = Tensor{s.name, true, true, sh};
      root_dir_[s.name] = ir::Dir::InOut;
      m_.entries.push_back(Entry{Entry::Kind::Create, &s, "", "", depth, ir::Dir::InOut, ir::Type::tensor(sh.dims)});
      return;
    }
    m_.tensors[s.name] = Tensor{s.name, false, true, sh};
  }

  // Step B. In a conditional statement a hoisted view's offsets must be literal (§3).
  void slice(const ir::Stmt& s, const ir::SliceRhs& sl, uint32_t depth, bool conditional) {
    auto it = m_.tensors.find(sl.source);
    if (it == m_.tensors.end()) {
      m_.unknown = fmt::format("a slice of '{}', whose provenance the model lacks", sl.source);
      return;
    }
    const Tensor y = it->second;
    const Shape sh{true, sl.sizes};
    bool derivable_all = true, invariant_all = true;
    for (const ir::Expr& o : sl.offsets) {
      derivable_all = derivable_all && derivable(o, conditional) && (!conditional || names_nothing(o));
      invariant_all = invariant_all && invariant(o);
    }
    if (y.rooted && y.whole && derivable_all) {
      const ir::Dir dir = root_dir_[y.root];
      m_.tensors[s.name] = Tensor{s.name, true, true, sh};
      root_dir_[s.name] = dir;
      m_.entries.push_back(Entry{Entry::Kind::View, &s, "", sl.source, depth, dir, ir::Type::tensor(sl.sizes)});
      return;
    }
    if (!invariant_all) {
      m_.rejects = fmt::format("211: view '{}' (line {}) at offsets neither derivable from a whole root nor invariant",
                               s.name, s.loc.line);
      return;
    }
    m_.tensors[s.name] = Tensor{y.root, y.rooted, false, sh};
  }

  // §3 derivable at the call site; in a conditional statement `/` `%` by nonzero literals only.
  bool derivable(const ir::Expr& e, bool conditional) {
    switch (e.kind) {
      case ir::Expr::Kind::Int:
      case ir::Expr::Kind::Dim: return true;
      case ir::Expr::Kind::Read: return false;
      case ir::Expr::Kind::Var:
        return loop_vars_.count(e.name) == 0 &&
               (scalar_params_.count(e.name) != 0 || hoisted_.count(e.name) != 0 || m_.alias.count(e.name) != 0);
      case ir::Expr::Kind::Binary:
        if (e.args.size() != 2) return false;
        if (conditional && (e.op == ir::BinOp::Div || e.op == ir::BinOp::Mod)) {
          if (!names_nothing(e.args[1])) return false;
          const auto d = literal(e.args[1]);
          if (!d || *d == 0) return false;
        }
        return derivable(e.args[0], conditional) && derivable(e.args[1], conditional);
    }
    return false;
  }

  // §3 replay-invariant: literals, vars of constant-trip loops, names bound to invariant
  // expressions, operators over them; never scalar params, `read`, other loop vars.
  bool invariant(const ir::Expr& e) const {
    switch (e.kind) {
      case ir::Expr::Kind::Int:
      case ir::Expr::Kind::Dim: return true;
      case ir::Expr::Kind::Read: return false;
      case ir::Expr::Kind::Var: return invariant_.count(e.name) != 0;
      case ir::Expr::Kind::Binary: return e.args.size() == 2 && invariant(e.args[0]) && invariant(e.args[1]);
    }
    return false;
  }

  const ir::Program& p_;
  const bool step_c_;
  GraphModel m_;
  std::set<std::string> scalar_params_, hoisted_, loop_vars_, invariant_;
  std::map<std::string, ir::Dir> root_dir_;
  std::map<std::string, std::vector<Tensor>> tuples_;
  std::map<std::string, int64_t> statics_;
};

}  // namespace

GraphModel collect(const ir::Program& p, const ir::Function& g, bool step_c) { return Collector(p, g, step_c).run(); }

}  // namespace stackcheck::oracles::boundary
