// Simplify's fixed point read on its output (COMPILER.md §Simplify): what the pass promises to
// have removed is looked for, with the rules' own reading of "static" and "defined once".
#include <fmt/format.h>

#include <functional>
#include <memory_resource>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "properties/oracles/compiler_oracles.h"
#include "stack/ir/arith.h"
#include "stack/ir/printer.h"
#include "stack/ir/walk.h"
#include "stack/support/arena.h"

namespace stackcheck::oracles {
namespace {

using ir::Expr;
using ir::Function;
using ir::Stmt;

bool all_literal(const std::vector<Expr>& es) {
  for (const Expr& e : es)
    if (e.kind != Expr::Kind::Int) return false;
  return true;
}
ir::Dims values(const std::vector<Expr>& es) {
  ir::Dims out;
  for (const Expr& e : es) out.push_back(e.value);
  return out;
}

// The oracle's own reading of a static fault (COMPILER.md §5.1: a 1-trip loop is not inlined
// when binding its var to the start would hand WellFormed a 13 or an 11): evaluation of a
// scalar expression with the names and shapes known, and the faults it shows.
struct StaticEval {
  enum class S : uint8_t { kValue, kUnknown, kZero } s = S::kUnknown;
  int64_t v = 0;
};
using DimsAt = std::function<const ir::Dims*(std::string_view)>;
using ValueAt = std::function<std::optional<int64_t>(std::string_view)>;

StaticEval eval_static(const Expr& e, const DimsAt& dims, const ValueAt& value) {
  using S = StaticEval::S;
  switch (e.kind) {
    case Expr::Kind::Int: return {S::kValue, e.value};
    case Expr::Kind::Var:
      if (auto v = value(e.name)) return {S::kValue, *v};
      return {};
    case Expr::Kind::Dim:
      if (const ir::Dims* d = dims(e.name); d != nullptr && e.value >= 0 && static_cast<uint64_t>(e.value) < d->size())
        return {S::kValue, (*d)[static_cast<size_t>(e.value)]};
      return {};
    case Expr::Kind::Read: return {};
    case Expr::Kind::Binary: {
      if (e.args.size() != 2) return {};
      const StaticEval a = eval_static(e.args[0], dims, value), b = eval_static(e.args[1], dims, value);
      if (a.s == S::kUnknown || b.s == S::kUnknown) return {};
      if (a.s == S::kZero || b.s == S::kZero) return {S::kZero, 0};
      if (auto v = ir::apply_binop(e.op, a.v, b.v)) return {S::kValue, *v};
      return {S::kZero, 0};
    }
  }
  return {};
}

// Offsets that evaluate and put a window (of `sizes`) outside a tensor of `dims`; an unknown
// shape or size makes any offset that evaluates one. Offsets of another rank: WellFormed's 11
// whatever the var, so no fault of the var's.
bool window_fault(const ir::Dims* dims, const std::vector<Expr>& offsets, const ir::Dims* sizes, const DimsAt& dims_at,
                  const ValueAt& value) {
  if (dims != nullptr && dims->size() != offsets.size()) return false;
  for (size_t k = 0; k < offsets.size(); ++k) {
    const StaticEval o = eval_static(offsets[k], dims_at, value);
    if (o.s != StaticEval::S::kValue) continue;
    if (dims == nullptr || sizes == nullptr || k >= sizes->size()) return true;
    if (o.v < 0 || o.v > (*dims)[k] - (*sizes)[k]) return true;
  }
  return false;
}

// Whether `body` faults statically: a `/` or `%` whose divisor evaluates to 0 (or divides by
// zero itself), a read index that evaluates outside its axis, a slice or assemble window out of
// its tensor. The body's own scalars and shapes count from their definitions on.
bool body_faults(const std::vector<Stmt>& body, const DimsAt& outer_dims, const ValueAt& outer_value) {
  std::unordered_map<std::string, int64_t> bound;
  std::unordered_map<std::string, ir::Dims> shaped;
  const ValueAt value = [&](std::string_view n) -> std::optional<int64_t> {
    if (auto it = bound.find(std::string(n)); it != bound.end()) return it->second;
    return outer_value(n);
  };
  const DimsAt dims = [&](std::string_view n) -> const ir::Dims* {
    if (auto it = shaped.find(std::string(n)); it != shaped.end()) return &it->second;
    return outer_dims(n);
  };
  const auto evaluated = [&](const std::vector<Expr>& es) -> std::optional<ir::Dims> {
    ir::Dims out;
    for (const Expr& x : es) {
      const StaticEval v = eval_static(x, dims, value);
      if (v.s != StaticEval::S::kValue) return std::nullopt;
      out.push_back(v.v);
    }
    return out;
  };
  const auto expr_faults = [&](const Expr& e) {
    if (e.kind == Expr::Kind::Read) {
      const ir::Dims* d = dims(e.name);
      if (d != nullptr && d->size() != e.args.size()) return false;
      for (size_t k = 0; k < e.args.size(); ++k) {
        const StaticEval i = eval_static(e.args[k], dims, value);
        if (i.s == StaticEval::S::kValue && (d == nullptr || i.v < 0 || i.v >= (*d)[k])) return true;
      }
      return false;
    }
    if (e.kind != Expr::Kind::Binary || e.args.size() != 2 || (e.op != ir::BinOp::Div && e.op != ir::BinOp::Mod))
      return false;
    const StaticEval d = eval_static(e.args[1], dims, value);
    return d.s == StaticEval::S::kZero || (d.s == StaticEval::S::kValue && d.v == 0);
  };
  bool fault = false;
  ir::walk_statements(body, [&](const Stmt& st) {
    if (fault) return;
    if (st.kind == Stmt::Kind::Assign) {
      if (const auto* sl = std::get_if<ir::SliceRhs>(&st.rhs)) {
        const ir::Dims sizes(sl->sizes.begin(), sl->sizes.end());
        fault = window_fault(dims(sl->source), sl->offsets, &sizes, dims, value);
      } else if (const auto* as = std::get_if<ir::AssembleRhs>(&st.rhs)) {
        fault = window_fault(dims(as->target), as->offsets, dims(as->source), dims, value);
      }
    }
    ir::for_each_expr(st, [&](const Expr& root) {
      ir::for_each_subexpr(root, [&](const Expr& e) { fault = fault || expr_faults(e); });
    });
    if (st.kind != Stmt::Kind::Assign) return;
    std::optional<ir::Dims> shape;
    if (const auto* x = std::get_if<ir::ExprRhs>(&st.rhs)) {
      if (const StaticEval v = eval_static(x->expr, dims, value); v.s == StaticEval::S::kValue) bound[st.name] = v.v;
      if (x->expr.kind == Expr::Kind::Var)
        if (const ir::Dims* src = dims(x->expr.name)) shape = *src;
    } else if (const auto* sl = std::get_if<ir::SliceRhs>(&st.rhs)) {
      shape = ir::Dims(sl->sizes.begin(), sl->sizes.end());
    } else if (const auto* cr = std::get_if<ir::CreateRhs>(&st.rhs)) {
      shape = evaluated(cr->shape);
    } else if (const auto* fu = std::get_if<ir::FullRhs>(&st.rhs)) {
      shape = evaluated(fu->shape);
    }
    if (shape) shaped[st.name] = std::move(*shape);
  });
  return fault;
}

class FixedPoint {
 public:
  FixedPoint(const ir::Program& p, const Function& f) : p_(p), f_(f) {
    for (const ir::Param& q : f.params) ++defs_[q.name];
    ir::walk_statements(f.body, [&](const Stmt& s) {
      if (s.kind == Stmt::Kind::Assign || s.kind == Stmt::Kind::For) ++defs_[s.name];
    });
    for (const ir::Param& q : f.params)
      if (q.type.is_tensor() && once(q.name)) shapes_[q.name] = {q.type.dims, 0};
    // Scalars bound to a literal and tensors of a static shape, each defined once, with the
    // statement (in walk order, from 1) that defines them. A tensor's shape is static when its
    // type says so: params, create/full with a literal shape, slices, aliases, assembles (the
    // target's), and call results (a kernel returns its argument's window, a graph its
    // declared result type; COMPILER.md §1, §3).
    size_t at = 0;
    ir::walk_statements(f.body, [&](const Stmt& s) {
      ++at;
      if (s.kind != Stmt::Kind::Assign || !once(s.name)) return;
      if (const auto* e = std::get_if<ir::ExprRhs>(&s.rhs); e && e->expr.kind == Expr::Kind::Int)
        consts_[s.name] = e->expr.value;
      if (std::optional<ir::Dims> d = static_shape(s)) shapes_[s.name] = {std::move(*d), at};
      if (const auto* c = std::get_if<ir::InvokeRhs>(&s.rhs)) calls_[s.name] = &c->invoke;
    });
  }

  std::optional<std::string> first_left() const {
    std::optional<std::string> found;
    size_t at = 0;
    ir::walk_statements(f_.body, [&](const Stmt& s) {
      ++at;
      if (found) return;
      if (s.kind == Stmt::Kind::For && s.lo.kind == Expr::Kind::Int && s.hi.kind == Expr::Kind::Int &&
          s.step.kind == Expr::Kind::Int) {
        const std::optional<uint64_t> trips = ir::trip_count(s.lo.value, s.hi.value, s.step.value);
        if (trips && (*trips == 0 || (*trips == 1 && once(s.name) && !faults_at(s, at, s.lo.value)))) {
          found = fmt::format("{}:{}: loop '{}' of {} trip{} is kept", s.loc.line, s.loc.column, s.name, *trips,
                              *trips == 1 ? "" : "s");
          return;
        }
      }
      ir::for_each_expr(s, [&](const Expr& root) {
        ir::for_each_subexpr(root, [&](const Expr& e) {
          if (!found) found = left_in(e);
        });
      });
    });
    return found;
  }

 private:
  bool once(std::string_view name) const {
    auto it = defs_.find(name);
    return it != defs_.end() && it->second == 1;
  }

  // Whether the loop's body faults statically with the var bound to v (the one case where a
  // 1-trip loop stays: inlining it would hand WellFormed a code 13 or 11). The pass reads it
  // when it reaches the loop: the shapes of tensors defined before it, the scalars bound to a
  // literal (those the body defines count again from their definitions).
  bool faults_at(const Stmt& loop, size_t at, int64_t v) const {
    const DimsAt dims = [&](std::string_view t) -> const ir::Dims* {
      auto it = shapes_.find(t);
      return it == shapes_.end() || it->second.at >= at ? nullptr : &it->second.dims;
    };
    const ValueAt value = [&](std::string_view n) -> std::optional<int64_t> {
      if (n == loop.name) return v;
      auto it = consts_.find(n);
      return it == consts_.end() ? std::nullopt : std::optional<int64_t>(it->second);
    };
    return body_faults(loop.body, dims, value);
  }

  const ir::Dims* shape(std::string_view name) const {
    auto it = shapes_.find(name);
    return it == shapes_.end() ? nullptr : &it->second.dims;
  }
  const Function* function(std::string_view name) const {
    for (const Function& g : p_.functions)
      if (g.name == name) return &g;
    return nullptr;
  }
  // Result j of a call: a kernel's is the window of the argument its j-th return names, a
  // graph's its declared result type.
  std::optional<ir::Dims> result_shape(const ir::Invoke& inv, size_t j) const {
    const Function* g = function(inv.callee);
    if (g == nullptr) return std::nullopt;
    if (g->kind == Function::Kind::Graph) {
      if (j < g->results.size() && g->results[j].is_tensor()) return g->results[j].dims;
      return std::nullopt;
    }
    if (g->kind != Function::Kind::Kernel || j >= g->kernel_returns.size()) return std::nullopt;
    for (size_t i = 0; i < g->params.size() && i < inv.args.size(); ++i)
      if (g->params[i].name == g->kernel_returns[j] && inv.args[i].kind == Expr::Kind::Var)
        if (const ir::Dims* d = shape(inv.args[i].name)) return *d;
    return std::nullopt;
  }
  // How many values a call of f gives back: a kernel its returns, a graph the names of its
  // last return statement.
  size_t results_of(const ir::Invoke& inv) const {
    const Function* g = function(inv.callee);
    if (g == nullptr) return 0;
    if (g->kind == Function::Kind::Kernel) return g->kernel_returns.size();
    for (auto it = g->body.rbegin(); it != g->body.rend(); ++it)
      if (it->kind == Stmt::Kind::Return) return it->returns.size();
    return g->results.size();
  }
  std::optional<ir::Dims> static_shape(const Stmt& s) const {
    if (const auto* e = std::get_if<ir::ExprRhs>(&s.rhs); e && e->expr.kind == Expr::Kind::Var) {
      if (const ir::Dims* d = shape(e->expr.name)) return *d;
    } else if (const auto* c = std::get_if<ir::CreateRhs>(&s.rhs); c && all_literal(c->shape)) {
      return values(c->shape);
    } else if (const auto* u = std::get_if<ir::FullRhs>(&s.rhs); u && all_literal(u->shape)) {
      return values(u->shape);
    } else if (const auto* sl = std::get_if<ir::SliceRhs>(&s.rhs)) {
      return sl->sizes;
    } else if (const auto* a = std::get_if<ir::AssembleRhs>(&s.rhs)) {
      if (const ir::Dims* d = shape(a->target)) return *d;
    } else if (const auto* v = std::get_if<ir::InvokeRhs>(&s.rhs); v && !v->invoke.submit) {
      if (results_of(v->invoke) == 1) return result_shape(v->invoke, 0);
    } else if (const auto* t = std::get_if<ir::TupleGetRhs>(&s.rhs); t && t->index >= 0) {
      if (auto c = calls_.find(t->tuple); c != calls_.end()) return result_shape(*c->second, static_cast<size_t>(t->index));
    }
    return std::nullopt;
  }

  std::optional<std::string> left_in(const Expr& e) const {
    const auto at = [&] { return fmt::format("{}:{}", e.loc.line, e.loc.column); };  // for a finding only
    switch (e.kind) {
      case Expr::Kind::Binary:
        if (e.args.size() == 2 && e.args[0].kind == Expr::Kind::Int && e.args[1].kind == Expr::Kind::Int &&
            ir::apply_binop(e.op, e.args[0].value, e.args[1].value))
          return fmt::format("{}: literal '{}' is not folded", at(), ir::print_expr(e));
        return std::nullopt;
      case Expr::Kind::Var:
        if (auto c = consts_.find(e.name); c != consts_.end())
          return fmt::format("{}: '{}' is bound to {} once and not substituted", at(), e.name, c->second);
        return std::nullopt;
      case Expr::Kind::Dim:
        if (const ir::Dims* d = shape(e.name); d != nullptr && e.value >= 0 && static_cast<uint64_t>(e.value) < d->size())
          return fmt::format("{}: '{}' of a static shape is not folded", at(), ir::print_expr(e));
        return std::nullopt;
      case Expr::Kind::Int:
      case Expr::Kind::Read: return std::nullopt;
    }
    return std::nullopt;
  }

  struct Shape {
    ir::Dims dims;
    size_t at;  // the defining statement in walk order (0: a param)
  };
  const ir::Program& p_;
  const Function& f_;
  // Keyed by views of the function's own names, in an arena on the stack (a function of the
  // generators' size allocates nothing for them).
  support::InlineArena<8192> arena_;
  std::pmr::unordered_map<std::string_view, int> defs_{arena_.resource()};
  std::pmr::unordered_map<std::string_view, int64_t> consts_{arena_.resource()};
  std::pmr::unordered_map<std::string_view, Shape> shapes_{arena_.resource()};
  std::pmr::unordered_map<std::string_view, const ir::Invoke*> calls_{arena_.resource()};
};

}  // namespace

Verdict check_simplified(const ir::Program& out) {
  for (const Function& f : out.functions) {
    if (f.kind == Function::Kind::Kernel) continue;
    if (std::optional<std::string> left = FixedPoint(out, f).first_left())
      return Verdict::fail("simplified", fmt::format("Simplify's output is not its fixed point: {}: {}", f.name, *left));
  }
  return Verdict::pass();
}

}  // namespace stackcheck::oracles
