#include "stack/passes/simplify.h"

#include <cstdint>
#include <memory_resource>
#include <optional>
#include <string>
#include <unordered_map>
#include <variant>
#include <vector>

#include "stack/ir/arith.h"
#include "stack/ir/invariance.h"
#include "stack/ir/rpi.h"
#include "stack/ir/walk.h"
#include "stack/support/arena.h"

namespace stackcheck::passes {
namespace {

using ir::Expr;
using ir::Function;
using ir::Stmt;

// How many times each name is defined in f (params, loop vars, assignments). Only names
// defined once are substituted or given a static shape, so ill-formed input stays safe.
template <class Map>
void count_definitions(const std::vector<Stmt>& body, Map& n) {
  ir::walk_statements(body, [&](const Stmt& s) {
    if (s.kind == Stmt::Kind::Assign || s.kind == Stmt::Kind::For) ++n[s.name];
  });
}

// One forward sweep over a function; `changed` says whether another sweep is needed.
class Sweep {
 public:
  Sweep(const ir::Program& program, const ir::RpiTable& rpi, Function& f) : program_(program), rpi_(rpi), f_(f) {
    for (const ir::Param& p : f.params) {
      ++defs_[p.name];
    }
    count_definitions(f.body, defs_);
    for (const ir::Param& p : f.params) {
      if (p.type.is_tensor() && once(p.name)) shapes_.emplace(p.name, p.type.dims);
    }
  }

  bool run() {
    block(f_.body);
    return changed_;
  }

 private:
  bool once(const std::string& name) const {
    auto it = defs_.find(name);
    return it != defs_.end() && it->second == 1;
  }

  // Folds e in place, bottom-up.
  void expr(Expr& e) {
    switch (e.kind) {
      case Expr::Kind::Int: return;
      case Expr::Kind::Var: {
        auto c = consts_.find(e.name);
        if (c != consts_.end()) replace_with_literal(e, c->second);
        return;
      }
      case Expr::Kind::Binary: {
        for (Expr& a : e.args) expr(a);
        if (e.args.size() == 2 && e.args[0].kind == Expr::Kind::Int && e.args[1].kind == Expr::Kind::Int) {
          std::optional<int64_t> v = ir::apply_binop(e.op, e.args[0].value, e.args[1].value);
          if (v) replace_with_literal(e, *v);  // a zero divisor stays as written
        }
        return;
      }
      case Expr::Kind::Dim: {
        auto s = shapes_.find(e.name);
        if (s != shapes_.end() && e.value >= 0 && static_cast<uint64_t>(e.value) < s->second.size()) {
          replace_with_literal(e, s->second[static_cast<size_t>(e.value)]);
        }
        return;
      }
      case Expr::Kind::Read:
        for (Expr& a : e.args) expr(a);
        return;
    }
  }
  void exprs(std::vector<Expr>& es) {
    for (Expr& e : es) expr(e);
  }
  void replace_with_literal(Expr& e, int64_t v) {
    const ir::Loc loc = e.loc;
    e = Expr{};
    e.kind = Expr::Kind::Int;
    e.value = v;
    e.loc = loc;
    changed_ = true;
  }

  static std::optional<ir::Dims> literal_shape(const std::vector<Expr>& shape) {
    ir::Dims dims;
    for (const Expr& d : shape) {
      if (d.kind != Expr::Kind::Int) return std::nullopt;
      dims.push_back(d.value);
    }
    return dims;
  }
  // Inlining a 1-trip loop binds its var to the start: not when that makes a divisor in its
  // body statically zero, or a read index or a slice or assemble window statically out of
  // bounds (WellFormed 13 or 11 on the output, where the input traps only if the loop runs). Substitution never makes one
  // otherwise: a scalar bound once to a literal is static to WellFormed already.
  bool fault_if_bound(const std::vector<Stmt>& body, const std::string& var, int64_t value) const {
    const ir::DimsOf dims = [this](std::string_view t) { return shape_of(std::string(t)); };
    const ir::ValueOf values = [&](std::string_view n) -> std::optional<int64_t> {
      if (n == var) return value;
      auto c = consts_.find(std::string(n));
      return c == consts_.end() ? std::nullopt : std::optional<int64_t>(c->second);
    };
    return ir::has_static_fault(body, dims, values);
  }
  const ir::Dims* shape_of(const std::string& name) const {
    auto it = shapes_.find(name);
    return it == shapes_.end() ? nullptr : &it->second;
  }
  // Static shape of result j of `inv`: a kernel returns its argument's window, a graph
  // its declared result type.
  std::optional<ir::Dims> result_shape(const ir::Invoke& inv, size_t j) const {
    const Function* callee = nullptr;
    for (const Function& g : program_.functions) {
      if (g.name == inv.callee) {
        callee = &g;
        break;
      }
    }
    if (callee == nullptr) return std::nullopt;
    if (callee->kind == Function::Kind::Graph) {
      if (j < callee->results.size() && callee->results[j].is_tensor()) {
        return callee->results[j].dims;
      }
      return std::nullopt;
    }
    const ir::ReturnParams* r = rpi_.find(inv.callee);
    if (r == nullptr || j >= r->size() || !(*r)[j] || *(*r)[j] >= inv.args.size()) {
      return std::nullopt;
    }
    const Expr& arg = inv.args[*(*r)[j]];
    if (arg.kind != Expr::Kind::Var) return std::nullopt;
    if (const auto* s = shape_of(arg.name)) return *s;
    return std::nullopt;
  }

  void assign(Stmt& s) {
    std::optional<ir::Dims> shape;
    if (auto* e = std::get_if<ir::ExprRhs>(&s.rhs)) {
      expr(e->expr);
      if (e->expr.kind == Expr::Kind::Int && once(s.name)) consts_[s.name] = e->expr.value;
      if (e->expr.kind == Expr::Kind::Var) {
        if (const auto* src = shape_of(e->expr.name)) shape = *src;
      }
    } else if (auto* c = std::get_if<ir::InvokeRhs>(&s.rhs)) {
      exprs(c->invoke.args);
      const ir::ReturnParams* r = rpi_.find(c->invoke.callee);
      if (!c->invoke.submit && r != nullptr && r->size() == 1) shape = result_shape(c->invoke, 0);
    } else if (auto* t = std::get_if<ir::TupleGetRhs>(&s.rhs)) {
      auto call = calls_.find(t->tuple);
      if (call != calls_.end() && t->index >= 0) {
        shape = result_shape(call->second, static_cast<size_t>(t->index));
      }
    } else if (auto* cr = std::get_if<ir::CreateRhs>(&s.rhs)) {
      exprs(cr->shape);
      shape = literal_shape(cr->shape);
    } else if (auto* fu = std::get_if<ir::FullRhs>(&s.rhs)) {
      exprs(fu->shape);
      expr(fu->value);
      shape = literal_shape(fu->shape);
    } else if (auto* sl = std::get_if<ir::SliceRhs>(&s.rhs)) {
      exprs(sl->offsets);
      shape = sl->sizes;
    } else if (auto* as = std::get_if<ir::AssembleRhs>(&s.rhs)) {
      exprs(as->offsets);
      if (const auto* dst = shape_of(as->target)) shape = *dst;
    }
    if (shape && once(s.name)) shapes_[s.name] = std::move(*shape);
    if (const auto* c = std::get_if<ir::InvokeRhs>(&s.rhs); c != nullptr && once(s.name)) {
      calls_[s.name] = c->invoke;  // a copy: statements move while the block is rebuilt
    }
  }

  void block(std::vector<Stmt>& body) {
    std::vector<Stmt> out;
    out.reserve(body.size());
    for (Stmt& s : body) {
      switch (s.kind) {
        case Stmt::Kind::Assign:
          assign(s);
          out.push_back(std::move(s));
          break;
        case Stmt::Kind::Invoke:
          exprs(s.invoke.args);
          out.push_back(std::move(s));
          break;
        case Stmt::Kind::Return: out.push_back(std::move(s)); break;
        case Stmt::Kind::If:
          expr(s.lo);
          expr(s.hi);
          block(s.body);
          block(s.else_body);
          out.push_back(std::move(s));
          break;
        case Stmt::Kind::For: {
          expr(s.lo);
          expr(s.hi);
          expr(s.step);
          std::optional<uint64_t> trips;
          if (s.lo.kind == Expr::Kind::Int && s.hi.kind == Expr::Kind::Int && s.step.kind == Expr::Kind::Int) {
            trips = ir::trip_count(s.lo.value, s.hi.value, s.step.value);  // step 0: none
          }
          if (trips && *trips == 0) {
            changed_ = true;  // a loop that never runs: its body defines nothing visible
            break;
          }
          if (trips && *trips == 1 && once(s.name) && !fault_if_bound(s.body, s.name, s.lo.value)) {
            consts_[s.name] = s.lo.value;
            block(s.body);
            for (Stmt& b : s.body) out.push_back(std::move(b));
            changed_ = true;
            break;
          }
          block(s.body);
          out.push_back(std::move(s));
          break;
        }
      }
    }
    body = std::move(out);
  }

  const ir::Program& program_;
  const ir::RpiTable& rpi_;
  Function& f_;
  // The sweep's tables (nodes only: names own their strings, since statements move while a
  // block is rebuilt) come from its arena.
  support::InlineArena<8192> arena_;
  std::pmr::unordered_map<std::string, int> defs_{arena_.resource()};
  std::pmr::unordered_map<std::string, int64_t> consts_{arena_.resource()};
  std::pmr::unordered_map<std::string, ir::Dims> shapes_{arena_.resource()};
  std::pmr::unordered_map<std::string, ir::Invoke> calls_{arena_.resource()};
  bool changed_ = false;
};

}  // namespace

ir::Program simplify(const ir::Program& input) {
  ir::Program out = input;
  // Simplify never changes signatures or returns, so the input's rpi stays valid.
  const ir::RpiTable rpi(input);
  for (Function& f : out.functions) {
    if (f.kind == Function::Kind::Kernel) continue;
    // Every sweep that reports a change removed a loop or a non-literal node, so this
    // terminates; normally the second sweep confirms the fixed point.
    while (Sweep(input, rpi, f).run()) {
    }
  }
  return out;
}

PassResult Simplify::run(const ir::Program& input) {
  return PassResult::accepted(simplify(input));
}

}  // namespace stackcheck::passes
