#include "stack/ir/rpi.h"

#include "stack/ir/walk.h"

#include <type_traits>
#include <utility>
#include <variant>

namespace stackcheck::ir {
namespace {

// The return statement whose names define a graph's rpi: the last top-level `return`.
const Stmt* graph_return(const Function& f) {
  for (size_t i = f.body.size(); i-- > 0;) {
    if (f.body[i].kind == Stmt::Kind::Return) return &f.body[i];
  }
  return nullptr;
}

}  // namespace

static ReturnParams compute_rpi(const Function& f, const std::unordered_map<std::string, ReturnParams>* callee_rpi) {
  ReturnParams out;
  if (f.kind == Function::Kind::Kernel) {
    for (const std::string& r : f.kernel_returns) {
      std::optional<size_t> idx;
      for (size_t i = 0; i < f.params.size() && !idx; ++i) {
        if (f.params[i].name == r) idx = i;
      }
      out.push_back(idx);
    }
  } else if (f.kind == Function::Kind::Graph) {
    if (const Stmt* ret = graph_return(f)) {
      Lineage lin(f, callee_rpi);
      for (const std::string& r : ret->returns) out.push_back(lin.param_of(r));
    } else {
      out.assign(f.results.size(), std::nullopt);
    }
  }
  return out;
}

// ---- Lineage ------------------------------------------------------------------------

Lineage::Lineage(const Function& f, const RpiTable& rpi) : Lineage(f, &rpi.by_name()) {}

Lineage::Lineage(const Function& f, const std::unordered_map<std::string, ReturnParams>* rpi_by_name)
    : rpi_(rpi_by_name) {
  for (size_t i = 0; i < f.params.size(); ++i) params_.emplace(f.params[i].name, i);
  walk_statements(f.body, [&](const Stmt& s) {
    if (s.kind == Stmt::Kind::Assign) defs_.emplace(s.name, &s);
  });
}

std::optional<size_t> Lineage::param_of(std::string_view name) const {
  std::string cur(name);
  auto rpi_of = [&](const std::string& callee) -> const ReturnParams* {
    auto it = rpi_->find(callee);
    return it == rpi_->end() ? nullptr : &it->second;
  };
  // The argument at param index `idx` of `inv`, when it is a plain name.
  auto arg_name = [](const Invoke& inv, std::optional<size_t> idx) -> const std::string* {
    if (!idx || *idx >= inv.args.size()) return nullptr;
    const Expr& a = inv.args[*idx];
    return a.kind == Expr::Kind::Var ? &a.name : nullptr;
  };
  // Each step moves to a different definition; more steps than definitions is a cycle
  // (only possible in ill-formed programs).
  for (size_t steps = 0; steps <= defs_.size(); ++steps) {
    if (auto p = params_.find(cur); p != params_.end()) return p->second;
    auto d = defs_.find(cur);
    if (d == defs_.end()) return std::nullopt;
    const Rhs& rhs = d->second->rhs;
    const std::string* next = nullptr;
    if (const auto* e = std::get_if<ExprRhs>(&rhs)) {
      if (e->expr.kind == Expr::Kind::Var) next = &e->expr.name;
    } else if (const auto* c = std::get_if<InvokeRhs>(&rhs)) {
      // A named call result is one tensor only for a single-result call; submit and
      // multi-result calls yield tuples, which are not tensors.
      const ReturnParams* r = rpi_of(c->invoke.callee);
      if (!c->invoke.submit && r != nullptr && r->size() == 1) next = arg_name(c->invoke, (*r)[0]);
    } else if (const auto* t = std::get_if<TupleGetRhs>(&rhs)) {
      auto td = defs_.find(t->tuple);
      if (td != defs_.end() && params_.find(t->tuple) == params_.end()) {
        if (const auto* tc = std::get_if<InvokeRhs>(&td->second->rhs)) {
          const ReturnParams* r = rpi_of(tc->invoke.callee);
          const bool is_tuple = r != nullptr && (tc->invoke.submit || r->size() >= 2);
          // Index r->size() of a submit is the task id: never a param.
          if (is_tuple && t->index >= 0 && static_cast<uint64_t>(t->index) < r->size()) {
            next = arg_name(tc->invoke, (*r)[static_cast<size_t>(t->index)]);
          }
        }
      }
    } else if (const auto* a = std::get_if<AssembleRhs>(&rhs)) {
      next = &a->target;
    }
    if (next == nullptr) return std::nullopt;
    cur = *next;
  }
  return std::nullopt;
}

// ---- RpiTable -----------------------------------------------------------------------

RpiTable::RpiTable(const Program& p) {
  std::unordered_map<std::string, const Function*> fn;
  for (const Function& f : p.functions) fn.emplace(f.name, &f);

  auto compute = [&](const Function& f) { by_name_.emplace(f.name, compute_rpi(f, &by_name_)); };

  // Callees first, by an explicit-stack DFS over graph bodies. A callee still on the stack
  // (a call cycle) has no entry yet, so lineage through it is untraceable.
  enum class State : uint8_t { OnStack, Done };
  std::unordered_map<std::string, State> state;
  struct Frame {
    const Function* f;
    std::vector<const Function*> callees;
    size_t next = 0;
  };
  auto make_frame = [&](const Function* f) {
    Frame fr{f, {}, 0};
    if (f->kind == Function::Kind::Graph) {
      walk_statements(f->body, [&](const Stmt& s) {
        if (const Invoke* inv = invoke_of(s)) {
          auto it = fn.find(inv->callee);
          if (it != fn.end()) fr.callees.push_back(it->second);
        }
      });
    }
    state[f->name] = State::OnStack;
    return fr;
  };
  for (const auto& root : p.functions) {
    if (state.count(root.name) != 0) continue;
    std::vector<Frame> stack;
    stack.push_back(make_frame(&root));
    while (!stack.empty()) {
      Frame& top = stack.back();
      if (top.next < top.callees.size()) {
        const Function* c = top.callees[top.next++];
        if (state.count(c->name) == 0) stack.push_back(make_frame(c));
        continue;
      }
      compute(*top.f);
      state[top.f->name] = State::Done;
      stack.pop_back();
    }
  }
}

const ReturnParams* RpiTable::find(std::string_view name) const {
  auto it = by_name_.find(std::string(name));
  return it == by_name_.end() ? nullptr : &it->second;
}

const ReturnParams& RpiTable::of(const Function& f) const {
  static const ReturnParams kNone;
  const ReturnParams* r = find(f.name);
  return r == nullptr ? kNone : *r;
}

// ---- convenience ----------------------------------------------------------------------

ReturnParams returned_param_indices(const Program& p, const Function& f) {
  RpiTable table(p);
  for (const Function& g : p.functions) {
    // The first function of a name is the one callers reach; answer from the table.
    if (g.name == f.name) {
      if (&g == &f) return table.of(f);
      break;
    }
  }
  return compute_rpi(f, &table.by_name());
}

std::optional<size_t> lineage_param(const Program& p, const Function& f, std::string_view name) {
  RpiTable table(p);
  return Lineage(f, table).param_of(name);
}

}  // namespace stackcheck::ir
