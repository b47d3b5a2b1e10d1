// LegalizeGraphBoundary, step 2: one forward walk over a graph (into loops and ifs)
// deciding, in definition order, what moves to the call sites:
//   - scalar aliases `v = w` (w a scalar param, hoisted scalar or alias): deleted;
//   - Step A: scalars derivable at the call site and not replay-invariant;
//   - Step C: creates at loop depth 0 (an if is fine), unless options.step_c is off;
//   - Step B: views of whole rooted names whose offsets are all derivable.
// Tensor provenance (root, whole, rooted, root direction) follows COMPILER.md §3 through
// `v = y`, writebacks, tuple elements (callee rpi, submit too) and assemble results.
// Views that stay are left for step 5, which reports 211 for non-invariant offsets.
#include "stack/passes/legalize_graph_boundary/internal.h"

#include <utility>

#include "stack/defects/defects.h"
#include "stack/ir/builtins.h"

namespace stackcheck::passes::graph_boundary {

namespace {

enum class ScalarKind : uint8_t { Param, Hoisted, Alias };

struct TensorInfo {
  std::string root;
  bool whole = true;
  bool rooted = false;        // root is a param of the rewritten graph
  ir::Dir dir = ir::Dir::In;  // the root's direction, when rooted
};

// Where a statement sits: loop depth, and whether it is conditional (§3: in an if, or in a
// loop that is not a constant-trip loop with at least one trip).
struct Where {
  uint32_t depth = 0;
  bool conditional = false;
};

class Collector {
 public:
  Collector(const Context& ctx, const ir::Function& g, const FunctionTypes& types,
            const LegalizeGraphBoundaryOptions& options)
      : ctx_(ctx), g_(g), types_(types), options_(options), inv_(g, types.dims_of()) {}

  Collected run() {
    for (const ir::Param& p : g_.params) {
      if (p.type.is_tensor()) {
        tensors_[p.name] = TensorInfo{p.name, true, true, p.dir};
      } else {
        scalars_[p.name] = ScalarKind::Param;
      }
    }
    ir::walk_statements(g_.body, *this);
    // Param order: creates, views, scalars, each in definition order.
    for (HoistKind k : {HoistKind::Create, HoistKind::View, HoistKind::Scalar}) {
      for (size_t i = 0; i < out_.hoists.size(); ++i) {
        if (out_.hoists[i].kind == k) out_.param_order.push_back(i);
      }
    }
    return std::move(out_);
  }

  // Walk hooks: each list is entered with where its statements sit.
  void enter_block(const std::vector<ir::Stmt>&, const ir::Place& at) {
    if (at.owner == nullptr) {
      where_.push_back(Where{});
    } else if (at.owner->kind == ir::Stmt::Kind::For) {
      const auto trips = ir::constant_trips(*at.owner, types_.dims_of());
      where_.push_back(Where{where_.back().depth + 1, where_.back().conditional || !trips || *trips == 0});
    } else {
      where_.push_back(Where{where_.back().depth, true});
    }
  }
  void leave_block(const std::vector<ir::Stmt>&, const ir::Place&) { where_.pop_back(); }
  void visit(const ir::Stmt& s, const ir::Place&) {
    if (s.kind == ir::Stmt::Kind::Assign) assign(s, where_.back());
    if (s.kind == ir::Stmt::Kind::For) loop_vars_.insert(s.name);
  }

 private:
  // Derivable at the call site (§3): no read, no loop var, each name a scalar param or an
  // earlier hoisted or aliased scalar, every dim known; when conditional it also cannot
  // fail: divisors are nonzero literals and view offsets are literals.
  bool derivable(const ir::Expr& e, Where where, bool view_offset) const {
    if (where.conditional && view_offset && !ir::is_literal(e)) return false;
    bool ok = true;
    ir::for_each_subexpr(e, [&](const ir::Expr& x) {
      switch (x.kind) {
        case ir::Expr::Kind::Int: break;
        case ir::Expr::Kind::Read: ok = false; break;
        case ir::Expr::Kind::Var:
          if (loop_vars_.count(x.name) != 0 || scalars_.count(x.name) == 0) ok = false;
          break;
        case ir::Expr::Kind::Dim:
          if (!ir::dim_value(x.name, x.value, types_.dims_of())) ok = false;
          break;
        case ir::Expr::Kind::Binary:
          if (x.args.size() != 2) {
            ok = false;
          } else if (where.conditional && (x.op == ir::BinOp::Div || x.op == ir::BinOp::Mod)) {
            const ir::Expr& d = x.args[1];
            const ir::EvalResult r = ir::evaluate(d, types_.dims_of());
            if (!ir::is_literal(d) || !r.ok() || r.value == 0) ok = false;
          }
          break;
      }
    });
    return ok;
  }

  void hoist(Hoist h) {
    out_.deleted.insert(h.def);
    out_.order.push_back(Step{false, out_.hoists.size()});
    out_.hoists.push_back(std::move(h));
  }

  TensorInfo local(const std::string& v) const { return TensorInfo{v, true, false, ir::Dir::In}; }

  TensorInfo info_of(const std::string& name) const {
    auto it = tensors_.find(name);
    // An unknown name (ill-formed input) is treated as a local of its own.
    return it != tensors_.end() ? it->second : TensorInfo{name, false, false, ir::Dir::In};
  }

  // Provenance of result j of `inv` (bound to v): the argument of param rpi[j], else v.
  TensorInfo result_info(const ir::Invoke& inv, size_t j, const std::string& v) const {
    if (defects::active(defects::Defect::kPrefixSubmitProvenanceDropped) && inv.submit) {
      // Zoo: the old bail compared the arguments with the builtin's params, which bind only
      // a prefix of a kernel with extra params, and gave up on the results.
      const ir::Function* k = ctx_.find(inv.callee);
      const ir::Builtin* b =
          k != nullptr && k->kind == ir::Function::Kind::Kernel ? ir::find_builtin(k->builtin) : nullptr;
      if (b != nullptr && inv.args.size() != b->arity()) return local(v);
    }
    const ir::ReturnParams* rpi = ctx_.rpi().find(inv.callee);
    if (rpi != nullptr && j < rpi->size() && (*rpi)[j] && *(*rpi)[j] < inv.args.size()) {
      const ir::Expr& a = inv.args[*(*rpi)[j]];
      if (a.kind == ir::Expr::Kind::Var && tensors_.count(a.name) != 0) return info_of(a.name);
    }
    return local(v);
  }

  void scalar_assign(const ir::Stmt& s, const ir::Expr& e, Where where) {
    if (e.kind == ir::Expr::Kind::Var) {
      auto w = scalars_.find(e.name);
      if (w != scalars_.end() && loop_vars_.count(e.name) == 0) {
        const std::string param = w->second == ScalarKind::Alias ? out_.alias_param.at(e.name) : e.name;
        out_.alias_param[s.name] = param;
        scalars_[s.name] = ScalarKind::Alias;
        out_.deleted.insert(&s);
        out_.order.push_back(Step{true, out_.aliases.size()});
        out_.aliases.push_back(AliasDef{&s, e.name});
        return;
      }
    }
    if (!inv_.expr(e) && derivable(e, where, false)) {
      scalars_[s.name] = ScalarKind::Hoisted;
      hoist(Hoist{HoistKind::Scalar, &s, where.depth, ir::Dir::In, ir::Type::i64(), {}});
    }
  }

  void create(const ir::Stmt& s, const ir::CreateRhs& c, Where where) {
    // Zoo: without the depth test, loop-nested creates are hoisted too.
    const bool depth_ok = where.depth == 0 || defects::active(defects::Defect::kLoopCreateHoisted);
    if (options_.step_c && depth_ok) {
      Dims dims;
      for (const ir::Expr& e : c.shape) {
        const ir::EvalResult r = ir::evaluate(e, types_.dims_of());
        if (!ir::is_literal(e) || !r.ok()) break;
        dims.push_back(r.value);
      }
      if (dims.size() == c.shape.size()) {
        if (defects::active(defects::Defect::kStepCNotHoisted)) {
          // Zoo: collected as a Step C root (its views count as views of a param), never hoisted.
          tensors_[s.name] = TensorInfo{s.name, true, true, ir::Dir::InOut};
          return;
        }
        // Zoo: the hoisted create declared In.
        const ir::Dir dir = defects::active(defects::Defect::kHoistedCreateIn) ? ir::Dir::In : ir::Dir::InOut;
        tensors_[s.name] = TensorInfo{s.name, true, true, dir};
        hoist(Hoist{HoistKind::Create, &s, where.depth, dir, ir::Type::tensor(dims), {}});
        return;
      }
    }
    tensors_[s.name] = local(s.name);
  }

  void slice(const ir::Stmt& s, const ir::SliceRhs& sl, Where where) {
    const TensorInfo src = info_of(sl.source);
    bool all_derivable = src.rooted && src.whole;
    for (const ir::Expr& o : sl.offsets) {
      if (all_derivable && !derivable(o, where, true)) all_derivable = false;
    }
    if (all_derivable) {
      // The view becomes a whole root with its root's direction (InOut for a create).
      tensors_[s.name] = TensorInfo{s.name, true, true, src.dir};
      hoist(Hoist{HoistKind::View, &s, where.depth, src.dir, ir::Type::tensor(sl.sizes), src.root});
      return;
    }
    tensors_[s.name] = TensorInfo{src.root, false, src.rooted, src.dir};
  }

  void assign(const ir::Stmt& s, Where where) {
    if (const auto* e = std::get_if<ir::ExprRhs>(&s.rhs)) {
      if (e->expr.kind == ir::Expr::Kind::Var && types_.is_tensor(e->expr.name)) {
        tensors_[s.name] = info_of(e->expr.name);
      } else {
        scalar_assign(s, e->expr, where);
      }
    } else if (const auto* c = std::get_if<ir::CreateRhs>(&s.rhs)) {
      create(s, *c, where);
    } else if (std::holds_alternative<ir::FullRhs>(s.rhs)) {
      tensors_[s.name] = local(s.name);  // `full` stays (206)
    } else if (const auto* sl = std::get_if<ir::SliceRhs>(&s.rhs)) {
      slice(s, *sl, where);
    } else if (const auto* as = std::get_if<ir::AssembleRhs>(&s.rhs)) {
      tensors_[s.name] = info_of(as->target);
    } else if (const auto* c = std::get_if<ir::InvokeRhs>(&s.rhs)) {
      const ir::Function* callee = ctx_.find(c->invoke.callee);
      const size_t n = callee != nullptr ? result_count(*callee) : 0;
      if (c->invoke.submit || n >= 2) {
        tuples_[s.name] = &c->invoke;
      } else if (n == 1) {
        // Zoo: an in-place rebind `t1 = k(x, t)` taken for a fresh local.
        tensors_[s.name] =
            defects::active(defects::Defect::kRebindProvenanceLost) ? local(s.name) : result_info(c->invoke, 0, s.name);
      }
    } else if (const auto* t = std::get_if<ir::TupleGetRhs>(&s.rhs)) {
      auto it = tuples_.find(t->tuple);
      if (it == tuples_.end() || t->index < 0) return;
      const ir::Function* callee = ctx_.find(it->second->callee);
      const size_t n = callee != nullptr ? result_count(*callee) : 0;
      // Index n of a submit is the task id, not a tensor.
      if (static_cast<uint64_t>(t->index) < n) {
        // Zoo: a tuple element taken for a fresh local.
        tensors_[s.name] = defects::active(defects::Defect::kTupleProvenanceLost)
                               ? local(s.name)
                               : result_info(*it->second, static_cast<size_t>(t->index), s.name);
      }
    }
  }

  const Context& ctx_;
  const ir::Function& g_;
  const FunctionTypes& types_;
  const LegalizeGraphBoundaryOptions& options_;
  const Invariance inv_;
  Collected out_;
  std::unordered_map<std::string, ScalarKind> scalars_;  // param, hoisted or alias scalars
  std::unordered_map<std::string, TensorInfo> tensors_;
  std::unordered_map<std::string, const ir::Invoke*> tuples_;
  std::unordered_set<std::string> loop_vars_;
  std::vector<Where> where_;  // one per open statement list
};

}  // namespace

Collected collect(const Context& ctx, const ir::Function& g, const FunctionTypes& types,
                  const LegalizeGraphBoundaryOptions& options) {
  return Collector(ctx, g, types, options).run();
}

}  // namespace stackcheck::passes::graph_boundary
