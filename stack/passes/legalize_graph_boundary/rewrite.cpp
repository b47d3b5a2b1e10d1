// LegalizeGraphBoundary, steps 3 and 4: rewrite the graph (delete hoisted and alias
// definitions, substitute aliases, append params) and every call/submit of it (emit the
// hoisted definitions, mapped to the caller's values, before the call; append arguments).
#include "stack/passes/legalize_graph_boundary/internal.h"

#include "stack/defects/defects.h"
#include "stack/ir/builder.h"
#include "stack/ir/printer.h"

#include <fmt/format.h>

#include <utility>

namespace stackcheck::passes::graph_boundary {

namespace {

void substitute_aliases(ir::Expr& e, const std::unordered_map<std::string, std::string>& alias) {
  ir::for_each_subexpr(e, [&](ir::Expr& x) {
    if (x.kind != ir::Expr::Kind::Var) return;
    if (auto it = alias.find(x.name); it != alias.end()) x.name = it->second;
  });
}

// Copies a graph body without the deleted definitions, aliases substituted: one output list
// per open input list; a copied for/if receives each of its lists when that list is left.
class BodyCopier {
 public:
  explicit BodyCopier(const Collected& c) : c_(c) {}

  void enter_block(const std::vector<ir::Stmt>& in, const ir::Place&) {
    open_.emplace_back();
    open_.back().reserve(in.size());
  }
  bool visit(const ir::Stmt& s, const ir::Place&) {
    if (c_.deleted.count(&s) != 0) return false;  // deleted definitions have no nested lists
    ir::Stmt t;
    t.kind = s.kind;
    t.loc = s.loc;
    t.name = s.name;
    t.rhs = s.rhs;
    t.invoke = s.invoke;
    t.returns = s.returns;
    t.lo = s.lo;
    t.hi = s.hi;
    t.step = s.step;
    t.cmp = s.cmp;
    ir::for_each_expr(t, [&](ir::Expr& e) { substitute_aliases(e, c_.alias_param); });
    open_.back().push_back(std::move(t));
    return true;
  }
  void leave_block(const std::vector<ir::Stmt>&, const ir::Place& at) {
    std::vector<ir::Stmt> done = std::move(open_.back());
    open_.pop_back();
    if (at.owner == nullptr) {
      result_ = std::move(done);
      return;
    }
    ir::Stmt& copy = open_.back().back();  // the owner's copy: the last one made in its list
    (at.block == ir::Block::Else ? copy.else_body : copy.body) = std::move(done);
  }
  std::vector<ir::Stmt> take() { return std::move(result_); }

 private:
  const Collected& c_;
  std::vector<std::vector<ir::Stmt>> open_;
  std::vector<ir::Stmt> result_;
};

// Every identifier the caller mentions, so that emitted names never collide with one.
template <class Set>
void collect_names(const ir::Function& f, Set& used) {
  for (const ir::Param& p : f.params) used.insert(p.name);
  ir::walk_statements(f.body, [&](const ir::Stmt& s) {
    if (s.kind == ir::Stmt::Kind::Assign || s.kind == ir::Stmt::Kind::For) used.insert(s.name);
    for (const std::string& r : s.returns) used.insert(r);
    if (const auto* sl = std::get_if<ir::SliceRhs>(&s.rhs)) used.insert(sl->source);
    if (const auto* as = std::get_if<ir::AssembleRhs>(&s.rhs)) {
      used.insert(as->target);
      used.insert(as->source);
    }
    if (const auto* t = std::get_if<ir::TupleGetRhs>(&s.rhs)) used.insert(t->tuple);
    ir::for_each_expr(s, [&](const ir::Expr& top) {
      ir::for_each_subexpr(top, [&](const ir::Expr& e) {
        if (e.kind == ir::Expr::Kind::Var || e.kind == ir::Expr::Kind::Dim || e.kind == ir::Expr::Kind::Read) {
          used.insert(e.name);
        }
      });
    });
  });
}

// Rewrites one caller: emits hoisted definitions before each call of a legalized graph.
class SiteRewriter {
 public:
  SiteRewriter(ir::Function& caller, const FunctionTypes& caller_types,
               const std::unordered_map<std::string, LegalizedGraph>& graphs, ir::Diagnostics& diags)
      : caller_(caller), caller_types_(caller_types), graphs_(graphs), diags_(diags) {
    for (const auto& [name, value] : caller_types.statics) statics_.emplace(name, value);
    collect_names(caller, used_);
  }

  void run() { ir::walk_statements(caller_.body, *this); }

  // Walk hooks. Definitions for the call at index i of a list are spliced in before it when
  // the list is left (a list being walked is never edited).
  void enter_block(std::vector<ir::Stmt>&, const ir::MutablePlace&) { inserts_.emplace_back(); }
  void visit(ir::Stmt& s, const ir::MutablePlace& at) {
    if (ir::Invoke* inv = ir::invoke_of(s)) {
      auto it = graphs_.find(inv->callee);
      if (it != graphs_.end()) {
        std::vector<ir::Stmt> defs;
        site(s, *inv, it->second, defs);
        if (!defs.empty()) inserts_.back().push_back(Insert{at.index, std::move(defs)});
      }
    }
    // Names this caller binds to static values (for the static checks of later sites).
    if (s.kind == ir::Stmt::Kind::Assign) {
      if (const auto* e = std::get_if<ir::ExprRhs>(&s.rhs)) {
        const ir::EvalResult r = ir::evaluate(e->expr, caller_types_.dims_of(), static_value());
        if (r.ok()) statics_.emplace(s.name, r.value);
      }
    }
  }
  void leave_block(std::vector<ir::Stmt>& list, const ir::MutablePlace&) {
    std::vector<Insert> inserts = std::move(inserts_.back());
    inserts_.pop_back();
    if (inserts.empty()) return;
    std::vector<ir::Stmt> out;
    out.reserve(list.size());
    size_t next = 0;
    for (size_t i = 0; i < list.size(); ++i) {
      for (; next < inserts.size() && inserts[next].before == i; ++next) {
        for (ir::Stmt& d : inserts[next].defs) out.push_back(std::move(d));
      }
      out.push_back(std::move(list[i]));
    }
    list = std::move(out);
  }

 private:
  struct Insert {
    size_t before;  // index of the call in its list
    std::vector<ir::Stmt> defs;
  };

  ir::ValueOf static_value() const {
    return [this](std::string_view n) -> std::optional<int64_t> {
      auto it = statics_.find(std::string(n));
      if (it == statics_.end()) return std::nullopt;
      return it->second;
    };
  }

  std::string fresh(const std::string& base) {
    for (;;) {
      std::string n = fmt::format("{}__graph_arg{}", base, k_++);
      if (used_.insert(n).second) return n;
    }
  }

  // e with G's names replaced by the call site's values and `dim` by its literal value.
  ir::Expr map_expr(const ir::Expr& e, const std::pmr::unordered_map<std::string, ir::Expr>& m,
                    const FunctionTypes& gtypes, ir::Loc loc) const {
    switch (e.kind) {
      case ir::Expr::Kind::Var:
        if (auto it = m.find(e.name); it != m.end()) return it->second;
        break;
      case ir::Expr::Kind::Dim:
        if (auto v = ir::dim_value(e.name, e.value, gtypes.dims_of())) {
          ir::Expr lit = ir::build::lit(*v);
          lit.loc = loc;
          return lit;
        }
        break;
      default: break;
    }
    ir::Expr out = e;
    out.loc = loc;
    for (ir::Expr& a : out.args) a = map_expr(a, m, gtypes, loc);
    return out;
  }

  // Static errors the emitted definition would give the caller (WellFormed 11 and 13):
  // only reachable when the original graph would fail at run time anyway.
  bool zero_divisor(const ir::Expr& e) const {
    bool zero = false;
    ir::for_each_subexpr(e, [&](const ir::Expr& x) {
      if (x.kind == ir::Expr::Kind::Binary && x.args.size() == 2 &&
          (x.op == ir::BinOp::Div || x.op == ir::BinOp::Mod)) {
        const ir::EvalResult r = ir::evaluate(x.args[1], caller_types_.dims_of(), static_value());
        if (r.ok() && r.value == 0) zero = true;
      }
    });
    return zero;
  }

  void reject(int code, const ir::Stmt& call, const LegalizedGraph& lg, const ir::Stmt& def, const std::string& what) {
    ir::Diagnostic d;
    d.rule = kRule;
    d.code = code;
    d.location = ir::Location{caller_.name, call.loc.line, call.loc.column};
    d.message = fmt::format("hoisting '{}' (line {}) of graph '{}' to this call gives {}", def.name, def.loc.line,
                            lg.original->name, what);
    diags_.push_back(std::move(d));
  }

  void site(const ir::Stmt& call, ir::Invoke& inv, const LegalizedGraph& lg, std::vector<ir::Stmt>& out) {
    const Collected& c = lg.collected;
    if (c.hoists.empty()) return;
    const ir::Function& g = *lg.original;
    std::pmr::unordered_map<std::string, ir::Expr> m(arena_.resource());
    for (size_t i = 0; i < g.params.size() && i < inv.args.size(); ++i) {
      m.emplace(g.params[i].name, inv.args[i]);
    }
    std::vector<std::string> names(c.hoists.size());
    for (const Step& step : c.order) {
      if (step.is_alias) {
        // Zoo: the alias never enters the map, so a hoisted definition using it names it here.
        if (defects::active(defects::Defect::kAliasLeaksToCaller)) continue;
        const AliasDef& a = c.aliases[step.index];
        if (auto it = m.find(a.target); it != m.end()) m[a.def->name] = it->second;
        continue;
      }
      const Hoist& h = c.hoists[step.index];
      const ir::Stmt& def = *h.def;
      const std::string name = fresh(def.name);
      names[step.index] = name;
      ir::Stmt e;
      if (h.kind == HoistKind::Scalar) {
        ir::Expr v = map_expr(std::get<ir::ExprRhs>(def.rhs).expr, m, lg.types, call.loc);
        if (zero_divisor(v)) reject(13, call, lg, def, "a static zero divisor: " + ir::print_expr(v));
        const ir::EvalResult r = ir::evaluate(v, caller_types_.dims_of(), static_value());
        if (r.ok()) statics_.emplace(name, r.value);
        e = ir::build::let(name, std::move(v));
      } else if (h.kind == HoistKind::Create) {
        std::vector<ir::Expr> shape;
        for (const ir::Expr& x : std::get<ir::CreateRhs>(def.rhs).shape) {
          shape.push_back(map_expr(x, m, lg.types, call.loc));
        }
        e = ir::build::create(name, std::move(shape));
      } else {
        const ir::SliceRhs& sl = std::get<ir::SliceRhs>(def.rhs);
        auto src = m.find(h.source_root);
        if (src == m.end() || src->second.kind != ir::Expr::Kind::Var) {
          // Only an ill-formed call (WellFormed 5/6) passes no tensor name for the root.
          reject(210, call, lg, def, fmt::format("no tensor argument for '{}'", h.source_root));
          continue;
        }
        std::vector<ir::Expr> offs;
        const Dims* dims = lg.types.dims(h.source_root);
        for (size_t i = 0; i < sl.offsets.size(); ++i) {
          ir::Expr o = map_expr(sl.offsets[i], m, lg.types, call.loc);
          const ir::EvalResult r = ir::evaluate(o, caller_types_.dims_of(), static_value());
          if (zero_divisor(o)) {
            reject(13, call, lg, def, "a static zero divisor: " + ir::print_expr(o));
          } else if (r.ok() && dims != nullptr && i < dims->size() && i < sl.sizes.size() &&
                     (r.value < 0 || r.value > (*dims)[i] - sl.sizes[i])) {
            reject(11, call, lg, def,
                   fmt::format("a view out of bounds: offset {} of extent {} in {}", r.value, sl.sizes[i], (*dims)[i]));
          }
          offs.push_back(std::move(o));
        }
        e = ir::build::slice(name, src->second.name, std::move(offs), sl.sizes);
      }
      e.loc = call.loc;
      out.push_back(std::move(e));
      m[def.name] = ir::build::var(name);
      m[def.name].loc = call.loc;
    }
    for (size_t idx : c.param_order) {
      ir::Expr a = ir::build::var(names[idx]);
      a.loc = call.loc;
      inv.args.push_back(std::move(a));
    }
  }

  ir::Function& caller_;
  const FunctionTypes& caller_types_;
  // The rewriter's tables own their names (the caller is edited while they live); their nodes
  // come from its arena.
  support::InlineArena<16384> arena_;
  std::pmr::unordered_map<std::string, int64_t> statics_{arena_.resource()};
  const std::unordered_map<std::string, LegalizedGraph>& graphs_;
  ir::Diagnostics& diags_;
  std::pmr::unordered_set<std::string> used_{arena_.resource()};
  uint64_t k_ = 0;
  std::vector<std::vector<Insert>> inserts_;  // one per open list, in index order
};

}  // namespace

ir::Function rewrite_graph(const ir::Function& g, const Collected& c) {
  BodyCopier copier(c);
  ir::walk_statements(g.body, copier);
  // The graph as it was (a graph has no kernel returns or builtin), its body rewritten.
  ir::Function out = g;
  out.body = copier.take();
  for (size_t idx : c.param_order) {
    const Hoist& h = c.hoists[idx];
    ir::Param p;
    p.name = h.def->name;
    p.dir = h.dir;
    p.type = h.type;
    p.loc = h.def->loc;
    out.params.push_back(std::move(p));
  }
  return out;
}

void rewrite_call_sites(ir::Function& caller, const FunctionTypes& caller_types,
                        const std::unordered_map<std::string, LegalizedGraph>& graphs, ir::Diagnostics& out) {
  SiteRewriter(caller, caller_types, graphs, out).run();
}

}  // namespace stackcheck::passes::graph_boundary
