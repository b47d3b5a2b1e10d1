// The boundary model's steps 3-4 (COMPILER.md §5.3): each graph rewritten (hoisted and alias
// definitions deleted, alias uses substituted, params appended: creates, views, scalars, each in
// definition order) and each call site given its `<v>__graph_arg<k>` definitions (k from 0 per
// caller, skipping every name the caller mentions) and appended arguments; and the oracle that
// compares the prediction with the pass's output and report (check_legalized).
#include <fmt/format.h>

#include <set>
#include <sstream>

#include "properties/oracles/boundary_model.h"
#include "properties/oracles/compiler_oracles.h"
#include "stack/ir/printer.h"

namespace stackcheck::oracles {

namespace boundary {

namespace {

template <class S, class F>
void each_expr(S& s, F&& f) {
  auto all = [&](auto& v) {
    for (auto& e : v) f(e);
  };
  std::visit(
      [&](auto& r) {
        using R = std::decay_t<decltype(r)>;
        if constexpr (std::is_same_v<R, ir::ExprRhs>) f(r.expr);
        if constexpr (std::is_same_v<R, ir::InvokeRhs>) all(r.invoke.args);
        if constexpr (std::is_same_v<R, ir::CreateRhs>) all(r.shape);
        if constexpr (std::is_same_v<R, ir::FullRhs>) {
          all(r.shape);
          f(r.value);
        }
        if constexpr (std::is_same_v<R, ir::SliceRhs>) all(r.offsets);
        if constexpr (std::is_same_v<R, ir::AssembleRhs>) all(r.offsets);
      },
      s.rhs);
  all(s.invoke.args);
  if (s.kind == ir::Stmt::Kind::For || s.kind == ir::Stmt::Kind::If) {
    f(s.lo);
    f(s.hi);
    if (s.kind == ir::Stmt::Kind::For) f(s.step);
  }
}

void rename_vars(ir::Expr& e, const std::map<std::string, std::string>& alias) {
  if (e.kind == ir::Expr::Kind::Var)
    if (auto it = alias.find(e.name); it != alias.end()) e.name = it->second;
  for (ir::Expr& a : e.args) rename_vars(a, alias);
}

std::vector<ir::Stmt> rewrite_body(const std::vector<ir::Stmt>& body, const std::set<std::string>& gone,
                                   const std::map<std::string, std::string>& alias) {
  std::vector<ir::Stmt> out;
  for (const ir::Stmt& s : body) {
    if (s.kind == ir::Stmt::Kind::Assign && gone.count(s.name) != 0) continue;
    ir::Stmt c = s;
    each_expr(c, [&](ir::Expr& e) { rename_vars(e, alias); });
    c.body = rewrite_body(s.body, gone, alias);
    c.else_body = rewrite_body(s.else_body, gone, alias);
    out.push_back(std::move(c));
  }
  return out;
}

void rewrite_graph(ir::Function& g, const GraphModel& m) {
  std::set<std::string> gone;
  for (const Entry& e : m.entries) gone.insert(e.def->name);
  g.body = rewrite_body(g.body, gone, m.alias);
  for (size_t idx : m.param_order) {
    const Entry& e = m.entries[idx];
    g.params.push_back(ir::Param{e.def->name, e.dir, e.type, {}});
  }
}

ir::Expr var(const std::string& n) {
  ir::Expr e;
  e.kind = ir::Expr::Kind::Var;
  e.name = n;
  return e;
}

// Every identifier a function mentions.
void mention(const ir::Expr& e, std::set<std::string>& used) {
  if (e.kind == ir::Expr::Kind::Var || e.kind == ir::Expr::Kind::Dim || e.kind == ir::Expr::Kind::Read)
    used.insert(e.name);
  for (const ir::Expr& a : e.args) mention(a, used);
}
void mention(const std::vector<ir::Stmt>& body, std::set<std::string>& used) {
  for (const ir::Stmt& s : body) {
    if (s.kind == ir::Stmt::Kind::Assign || s.kind == ir::Stmt::Kind::For) used.insert(s.name);
    used.insert(s.returns.begin(), s.returns.end());
    if (const auto* sl = std::get_if<ir::SliceRhs>(&s.rhs)) used.insert(sl->source);
    if (const auto* as = std::get_if<ir::AssembleRhs>(&s.rhs)) used.insert({as->target, as->source});
    if (const auto* t = std::get_if<ir::TupleGetRhs>(&s.rhs)) used.insert(t->tuple);
    each_expr(s, [&](const ir::Expr& e) { mention(e, used); });
    mention(s.body, used);
    mention(s.else_body, used);
  }
}

class Sites {
 public:
  Sites(ir::Function& caller, const std::map<std::string, GraphModel>& graphs) : caller_(caller), graphs_(graphs) {
    for (const ir::Param& p : caller.params) used_.insert(p.name);
    mention(caller.body, used_);
  }
  std::string run() {
    block(caller_.body);
    return why_;
  }

 private:
  void block(std::vector<ir::Stmt>& body) {
    std::vector<ir::Stmt> out;
    for (ir::Stmt& s : body) {
      ir::Invoke* inv = s.kind == ir::Stmt::Kind::Invoke ? &s.invoke : nullptr;
      if (auto* r = std::get_if<ir::InvokeRhs>(&s.rhs); r != nullptr && s.kind == ir::Stmt::Kind::Assign)
        inv = &r->invoke;
      if (inv != nullptr)
        if (auto g = graphs_.find(inv->callee); g != graphs_.end()) site(*inv, g->second, out);
      block(s.body);
      block(s.else_body);
      out.push_back(std::move(s));
    }
    body = std::move(out);
  }

  std::string fresh(const std::string& base) {
    for (;;) {
      std::string n = fmt::format("{}__graph_arg{}", base, k_++);
      if (used_.insert(n).second) return n;
    }
  }

  ir::Expr mapped(const ir::Expr& e, const GraphModel& g, const std::map<std::string, ir::Expr>& m) {
    switch (e.kind) {
      case ir::Expr::Kind::Var: {
        auto it = m.find(e.name);
        if (it != m.end()) return it->second;
        why_ = fmt::format("'{}' has no value at the call site", e.name);
        return e;
      }
      case ir::Expr::Kind::Dim: {
        ir::Expr lit;
        lit.kind = ir::Expr::Kind::Int;
        if (const auto v = literal_value(e, g.tensors))
          lit.value = *v;
        else
          why_ = fmt::format("dim({}, {}) of a shape the model does not know", e.name, e.value);
        return lit;
      }
      default: {
        ir::Expr c = e;
        for (ir::Expr& a : c.args) a = mapped(a, g, m);
        return c;
      }
    }
  }

  void site(ir::Invoke& call, const GraphModel& g, std::vector<ir::Stmt>& out) {
    std::map<std::string, ir::Expr> m;
    const ir::Function& graph = *g.graph;
    for (size_t i = 0; i < graph.params.size() && i < call.args.size(); ++i) m[graph.params[i].name] = call.args[i];
    std::vector<std::string> names(g.entries.size());
    for (size_t i = 0; i < g.entries.size(); ++i) {
      const Entry& e = g.entries[i];
      if (e.kind == Entry::Kind::Alias) {
        if (auto it = m.find(e.of); it != m.end()) m[e.def->name] = it->second;
        continue;
      }
      ir::Stmt d;
      d.kind = ir::Stmt::Kind::Assign;
      d.name = names[i] = fresh(e.def->name);
      if (e.kind == Entry::Kind::Scalar) {
        d.rhs = ir::ExprRhs{mapped(std::get<ir::ExprRhs>(e.def->rhs).expr, g, m)};
      } else if (e.kind == Entry::Kind::Create) {
        ir::CreateRhs c;
        for (const ir::Expr& x : std::get<ir::CreateRhs>(e.def->rhs).shape) c.shape.push_back(mapped(x, g, m));
        d.rhs = std::move(c);
      } else {
        const ir::SliceRhs& sl = std::get<ir::SliceRhs>(e.def->rhs);
        ir::SliceRhs v;
        const Tensor& src = g.tensors.at(e.source);
        const ir::Expr root = mapped(var(src.root), g, m);
        v.source = root.name;
        for (const ir::Expr& o : sl.offsets) v.offsets.push_back(mapped(o, g, m));
        v.sizes = sl.sizes;
        d.rhs = std::move(v);
      }
      out.push_back(std::move(d));
      m[e.def->name] = var(names[i]);
    }
    for (size_t idx : g.param_order) call.args.push_back(var(names[idx]));
  }

  ir::Function& caller_;
  const std::map<std::string, GraphModel>& graphs_;
  std::set<std::string> used_;
  uint64_t k_ = 0;
  std::string why_;
};

}  // namespace

Prediction predict(const ir::Program& input, bool step_c) {
  Prediction out;
  out.program = input;
  for (const ir::Function& f : input.functions) {
    if (f.kind != ir::Function::Kind::Graph) continue;
    GraphModel m = collect(input, f, step_c);
    if (!m.rejects.empty() || !m.unknown.empty()) {
      out.rejection = !m.rejects.empty();
      out.why = fmt::format("graph {}: {}", f.name, out.rejection ? m.rejects : m.unknown);
      return out;
    }
    out.graphs.emplace(f.name, std::move(m));
  }
  for (ir::Function& f : out.program.functions) {
    if (f.kind == ir::Function::Kind::Graph) rewrite_graph(f, out.graphs.at(f.name));
    if (f.kind != ir::Function::Kind::Orchestration || out.graphs.empty()) continue;
    if (std::string why = Sites(f, out.graphs).run(); !why.empty()) {
      out.why = fmt::format("{}: {}", f.name, why);
      return out;
    }
  }
  return out;
}

}  // namespace boundary

namespace {

const char* kind_word(passes::HoistKind k) {
  switch (k) {
    case passes::HoistKind::Scalar: return "scalar";
    case passes::HoistKind::View: return "view";
    case passes::HoistKind::Create: return "create";
  }
  return "?";
}
passes::HoistKind kind_of(boundary::Entry::Kind k) {
  if (k == boundary::Entry::Kind::View) return passes::HoistKind::View;
  if (k == boundary::Entry::Kind::Create) return passes::HoistKind::Create;
  return passes::HoistKind::Scalar;
}

std::string param_text(const std::string& name, passes::HoistKind k, ir::Loc loc, uint32_t depth, ir::Dir dir,
                       const ir::Type& t) {
  return fmt::format("{} {} at {}:{} depth {} {} {}", name, kind_word(k), loc.line, loc.column, depth,
                     ir::dir_name(dir), t.is_tensor() ? fmt::format("[{}]", fmt::join(t.dims, ", ")) : "i64");
}

// The first line where two printed programs differ.
std::optional<std::string> first_difference(const std::string& want, const std::string& got) {
  std::istringstream a(want), b(got);
  std::string x, y;
  for (int line = 1;; ++line) {
    const bool ha = static_cast<bool>(std::getline(a, x)), hb = static_cast<bool>(std::getline(b, y));
    if (!ha && !hb) return std::nullopt;
    if (!ha || !hb || x != y)
      return fmt::format("line {}: the pass printed `{}`, the model predicts `{}`", line, hb ? y : "(end)",
                         ha ? x : "(end)");
  }
}

}  // namespace

Verdict check_legalized(const ir::Program& input, const ir::Program& output,
                        const passes::LegalizeGraphBoundaryReport& report, bool step_c) {
  const boundary::Prediction p = boundary::predict(input, step_c);
  if (p.rejection)
    return Verdict::fail("boundary-model",
                         "LegalizeGraphBoundary accepted a program COMPILER.md §5.3 rejects: " + p.why);
  if (!p.why.empty()) return Verdict::pass();  // a program the model cannot predict
  if (auto d = first_difference(ir::print_program(p.program), ir::print_program(output)))
    return Verdict::fail("boundary-model", "the legalized program differs from COMPILER.md §5.3's: " + *d);
  for (const auto& [name, g] : p.graphs) {
    const passes::GraphReport* r = report.find(name);
    if (r == nullptr) return Verdict::fail("boundary-model", fmt::format("graph {} has no report", name));
    if (!r->checked)
      return Verdict::fail("boundary-model", fmt::format("graph {} of an accepted program: its report says it never "
                                                         "reached step 5 (checked is false)",
                                                         name));
    std::vector<std::string> want, got;
    for (size_t idx : g.param_order) {
      const boundary::Entry& e = g.entries[idx];
      want.push_back(param_text(e.def->name, kind_of(e.kind), e.def->loc, e.depth, e.dir, e.type));
    }
    for (const passes::AppendedParam& a : r->appended)
      got.push_back(param_text(a.name, a.kind, a.loc, a.depth, a.dir, a.type));
    if (want != got)
      return Verdict::fail("boundary-model",
                           fmt::format("graph {}: the report's appended params [{}]; the model's [{}]", name,
                                       fmt::join(got, "; "), fmt::join(want, "; ")));
    // Each appended param keeps its definition's location (§1: every node has one), as the
    // report says it came from there.
    for (const ir::Function& f : output.functions) {
      if (f.name != name) continue;
      const size_t first = f.params.size() - std::min(f.params.size(), g.param_order.size());
      for (size_t j = 0; j < g.param_order.size() && first + j < f.params.size(); ++j) {
        const ir::Param& q = f.params[first + j];
        const ir::Loc at = g.entries[g.param_order[j]].def->loc;
        if (q.loc.line != at.line || q.loc.column != at.column)
          return Verdict::fail("boundary-model",
                               fmt::format("graph {}: appended param {} is at {}:{}; its "
                                           "definition is at {}:{}",
                                           name, q.name, q.loc.line, q.loc.column, at.line, at.column));
      }
    }
  }
  return Verdict::pass();
}

}  // namespace stackcheck::oracles
