#include "stack/ir/rpi.h"

#include "stack/ir/walk.h"

#include <algorithm>
#include <type_traits>
#include <utility>
#include <variant>

// gcc 12 cannot see that moving a ReturnParams copies its inline elements only when they are
// inline (at most 4), and warns that the copy may read past the inline buffer
// (-Wstringop-overread), as for the interpreter's Extent (interp/memory.cpp).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wstringop-overread"
#endif

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

static ReturnParams compute_rpi(const Function& f, const RpiTable& callee_rpi) {
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

namespace {

// Sorts by name, keeping only the first entry of each name (stable: the first is the earliest).
// An insertion sort: stable without std::stable_sort's temporary buffer, and the lists are a
// function's names (a few dozen); past 64 entries std::stable_sort.
template <typename Vec>
void first_of_each(Vec& v) {
  auto by_name = [](const auto& a, const auto& b) { return a.first < b.first; };
  if (v.size() > 64) {
    std::stable_sort(v.begin(), v.end(), by_name);
  } else {
    for (size_t i = 1; i < v.size(); ++i) {
      auto x = std::move(v[i]);
      size_t j = i;
      for (; j > 0 && by_name(x, v[j - 1]); --j) v[j] = std::move(v[j - 1]);
      v[j] = std::move(x);
    }
  }
  v.erase(std::unique(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.first == b.first; }), v.end());
}

}  // namespace

template <typename V>
const V* Lineage::lookup(const Index<V>& index, std::string_view name) {
  auto it = std::lower_bound(index.begin(), index.end(), name,
                             [](const std::pair<std::string_view, V>& e, std::string_view n) { return e.first < n; });
  return it != index.end() && it->first == name ? &it->second : nullptr;
}

Lineage::Lineage(const Function& f, const RpiTable& rpi) : rpi_(&rpi) {
  params_.reserve(f.params.size());
  for (size_t i = 0; i < f.params.size(); ++i) params_.emplace_back(f.params[i].name, i);
  first_of_each(params_);
  walk_statements(f.body, [&](const Stmt& s) {
    if (s.kind == Stmt::Kind::Assign) defs_.emplace_back(s.name, &s);
  });
  first_of_each(defs_);
}

std::optional<size_t> Lineage::param_of(std::string_view name) const {
  std::string_view cur = name;
  auto rpi_of = [&](const std::string& callee) -> const ReturnParams* { return rpi_->find(callee); };
  // The argument at param index `idx` of `inv`, when it is a plain name.
  auto arg_name = [](const Invoke& inv, std::optional<size_t> idx) -> const std::string* {
    if (!idx || *idx >= inv.args.size()) return nullptr;
    const Expr& a = inv.args[*idx];
    return a.kind == Expr::Kind::Var ? &a.name : nullptr;
  };
  // Each step moves to a different definition; more steps than definitions is a cycle
  // (only possible in ill-formed programs).
  for (size_t steps = 0; steps <= defs_.size(); ++steps) {
    if (const size_t* p = lookup(params_, cur)) return *p;
    const Stmt* const* d = lookup(defs_, cur);
    if (d == nullptr) return std::nullopt;
    const Rhs& rhs = (*d)->rhs;
    const std::string* next = nullptr;
    if (const auto* e = std::get_if<ExprRhs>(&rhs)) {
      if (e->expr.kind == Expr::Kind::Var) next = &e->expr.name;
    } else if (const auto* c = std::get_if<InvokeRhs>(&rhs)) {
      // A named call result is one tensor only for a single-result call; submit and
      // multi-result calls yield tuples, which are not tensors.
      const ReturnParams* r = rpi_of(c->invoke.callee);
      if (!c->invoke.submit && r != nullptr && r->size() == 1) next = arg_name(c->invoke, (*r)[0]);
    } else if (const auto* t = std::get_if<TupleGetRhs>(&rhs)) {
      const Stmt* const* td = lookup(defs_, t->tuple);
      if (td != nullptr && lookup(params_, t->tuple) == nullptr) {
        if (const auto* tc = std::get_if<InvokeRhs>(&(*td)->rhs)) {
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
  // The first function of each name (callers reach it), sorted by name; a name's DFS state is
  // kept at the index of that first function.
  std::vector<std::pair<std::string_view, size_t>> fn;
  fn.reserve(p.functions.size());
  for (size_t i = 0; i < p.functions.size(); ++i) fn.emplace_back(p.functions[i].name, i);
  first_of_each(fn);
  auto first_of = [&](std::string_view name) -> std::optional<size_t> {
    auto it = std::lower_bound(fn.begin(), fn.end(), name,
                               [](const std::pair<std::string_view, size_t>& e, std::string_view n) { return e.first < n; });
    return it != fn.end() && it->first == name ? std::optional<size_t>(it->second) : std::nullopt;
  };
  entries_.reserve(fn.size());
  for (const auto& [name, i] : fn) entries_.push_back(Entry{std::string(name), std::nullopt});

  auto compute = [&](const Function& f) {
    ReturnParams r = compute_rpi(f, *this);
    entry(f.name)->rpi = std::move(r);
  };

  // Callees first, by an explicit-stack DFS over graph bodies. A callee still on the stack
  // (a call cycle) has no rpi yet, so lineage through it is untraceable.
  enum class State : uint8_t { Unseen, OnStack, Done };
  std::vector<State> state(p.functions.size(), State::Unseen);
  struct Frame {
    size_t f;  // the first function of its name
    boost::container::small_vector<size_t, 8> callees;
    size_t next = 0;
  };
  auto make_frame = [&](size_t f) {
    Frame fr{f, {}, 0};
    if (p.functions[f].kind == Function::Kind::Graph) {
      walk_statements(p.functions[f].body, [&](const Stmt& s) {
        if (const Invoke* inv = invoke_of(s)) {
          if (auto c = first_of(inv->callee)) fr.callees.push_back(*c);
        }
      });
    }
    state[f] = State::OnStack;
    return fr;
  };
  boost::container::small_vector<Frame, 4> stack;
  for (const auto& root : p.functions) {
    const size_t r = *first_of(root.name);  // every function's name has a first function
    if (state[r] != State::Unseen) continue;
    stack.push_back(make_frame(r));
    while (!stack.empty()) {
      Frame& top = stack.back();
      if (top.next < top.callees.size()) {
        const size_t c = top.callees[top.next++];
        if (state[c] == State::Unseen) stack.push_back(make_frame(c));
        continue;
      }
      compute(p.functions[top.f]);
      state[top.f] = State::Done;
      stack.pop_back();
    }
  }
}

RpiTable::Entry* RpiTable::entry(std::string_view name) {
  auto it = std::lower_bound(entries_.begin(), entries_.end(), name,
                             [](const Entry& e, std::string_view n) { return e.name < n; });
  return it != entries_.end() && it->name == name ? &*it : nullptr;
}

const ReturnParams* RpiTable::find(std::string_view name) const {
  const Entry* e = const_cast<RpiTable*>(this)->entry(name);
  return e != nullptr && e->rpi ? &*e->rpi : nullptr;
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
  return compute_rpi(f, table);
}

std::optional<size_t> lineage_param(const Program& p, const Function& f, std::string_view name) {
  RpiTable table(p);
  return Lineage(f, table).param_of(name);
}

}  // namespace stackcheck::ir
