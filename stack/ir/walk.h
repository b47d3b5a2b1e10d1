// Walkers over the Graph IR: the one way passes, verifiers, codegen and the harness visit
// statements (into for/if bodies) and expressions. Nothing here recurses: nesting built in
// code is unbounded (the parser caps it at 256, generators and passes do not), so every
// walk keeps an explicit stack on the heap. Const and mutable forms share one
// implementation; a mutable walk may edit the statement it visits (its nested lists are
// entered only after the visit returns) and, in leave_block, the list it has just left,
// but never a list that is still being walked.
#pragma once

#include "stack/ir/ast.h"

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include <boost/container/small_vector.hpp>

namespace stackcheck::ir {

// Which statement list a walk is in: the one it started from, a for body or an if's
// then-block (Body), or an if's else-block (Else).
enum class Block : uint8_t { Root, Body, Else };

// Where a statement or list sits. S is Stmt or const Stmt.
template <typename S>
struct BasicPlace {
  S* owner = nullptr;         // innermost enclosing for/if; nullptr in the root list
  Block block = Block::Root;  // which list of owner
  uint32_t loop_depth = 0;    // for-loops enclosing the list (owner included)
  uint32_t nesting = 0;       // for/if statements enclosing the list (owner included)
  size_t index = 0;           // statement visits: position in the list (0 for list events)
  size_t size = 0;            // length of the list

  bool top_level() const { return owner == nullptr; }
  bool last() const { return index + 1 == size; }
};
using Place = BasicPlace<const Stmt>;
using MutablePlace = BasicPlace<Stmt>;

// The call/submit of a statement (`call f(..)`, `v = submit f(..)`), or nullptr.
inline const Invoke* invoke_of(const Stmt& s) {
  if (s.kind == Stmt::Kind::Invoke) return &s.invoke;
  if (s.kind == Stmt::Kind::Assign) {
    if (const auto* r = std::get_if<InvokeRhs>(&s.rhs)) return &r->invoke;
  }
  return nullptr;
}
inline Invoke* invoke_of(Stmt& s) { return const_cast<Invoke*>(invoke_of(static_cast<const Stmt&>(s))); }

// Walks every statement of `root` in program order (pre-order: a for/if before its body,
// a then-block before its else-block). `visitor` is either
//   - a callable taking (S& stmt) or (S& stmt, const BasicPlace<S>& place), or
//   - an object with any of these members:
//       visit(S& stmt, const BasicPlace<S>& place)  -> void, or bool: false skips the
//                                                      statement's nested lists;
//       enter_block(L& list, const BasicPlace<S>& place)  before a list's first statement;
//       leave_block(L& list, const BasicPlace<S>& place)  after a list and all it holds;
//     where L is the (const) std::vector<Stmt>. List events come for the root list, for the
//     body of every for, and for both lists of every if (an absent else is an empty list).
template <typename Visitor>
void walk_statements(const std::vector<Stmt>& root, Visitor&& visitor);
template <typename Visitor>
void walk_statements(std::vector<Stmt>& root, Visitor&& visitor);

// Calls f on every expression of s itself, not of its nested lists, in source order: the
// value of `v = e`, call/submit arguments, create/full shape (then full's value),
// slice/assemble offsets, a for's start, stop and step, an if's two operands. S is Stmt or
// const Stmt: the mutable and const forms are one template.
template <typename S, typename F>
  requires std::same_as<std::remove_const_t<S>, Stmt>
void for_each_expr(S& s, F&& f);

// Calls f on e and every sub-expression of it, pre-order, operands left to right. E is Expr or
// const Expr.
template <typename E, typename F>
  requires std::same_as<std::remove_const_t<E>, Expr>
void for_each_subexpr(E& e, F&& f);

// ---- definitions ---------------------------------------------------------------------

namespace walk_detail {

template <typename S>
using List = std::conditional_t<std::is_const_v<S>, const std::vector<Stmt>, std::vector<Stmt>>;

// Runs the visit hook; true when the statement's nested lists are to be walked.
template <typename S, typename V>
bool visit(V& v, S& s, const BasicPlace<S>& place) {
  auto run = [](auto&& call) {
    if constexpr (std::is_void_v<decltype(call())>) {
      call();
      return true;
    } else {
      return static_cast<bool>(call());
    }
  };
  if constexpr (requires { v.visit(s, place); }) {
    return run([&] { return v.visit(s, place); });
  } else if constexpr (std::invocable<V&, S&, const BasicPlace<S>&>) {
    return run([&] { return v(s, place); });
  } else if constexpr (std::invocable<V&, S&>) {
    return run([&] { return v(s); });
  } else if constexpr (
      requires { v.enter_block(std::declval<List<S>&>(), place); } ||
      requires { v.leave_block(std::declval<List<S>&>(), place); }) {
    return true;  // a visitor of lists only
  } else {
    static_assert(sizeof(V) == 0, "walk_statements: the visitor has no visit, enter_block or leave_block");
    return true;
  }
}

template <typename S, typename V>
void walk(List<S>& root, V& v) {
  struct Frame {
    List<S>* list;
    size_t next;
    BasicPlace<S> place;
  };
  // Explicit, so nesting depth costs no native stack; its first frames inline, so a walk of
  // a program of ordinary depth allocates nothing.
  boost::container::small_vector<Frame, 8> stack;
  auto open = [&](List<S>& list, BasicPlace<S> place) {
    place.size = list.size();
    if constexpr (requires { v.enter_block(list, place); }) v.enter_block(list, place);
    stack.push_back(Frame{&list, 0, place});
  };
  open(root, BasicPlace<S>{});
  while (!stack.empty()) {
    Frame& top = stack.back();
    if (top.next == top.list->size()) {
      const Frame done = top;
      stack.pop_back();
      if constexpr (requires { v.leave_block(*done.list, done.place); }) v.leave_block(*done.list, done.place);
      // An if's else-block is opened only once its then-block is left, so that list events
      // nest the way scopes do.
      S* owner = done.place.owner;
      if (owner != nullptr && owner->kind == Stmt::Kind::If && done.place.block == Block::Body) {
        BasicPlace<S> inner = done.place;
        inner.block = Block::Else;
        open(owner->else_body, inner);
      }
      continue;
    }
    BasicPlace<S> at = top.place;
    at.index = top.next;
    S& s = (*top.list)[top.next++];
    // `top` may dangle from here on: the hooks below can grow the stack.
    if (!walk_detail::visit(v, s, at)) continue;
    if (s.kind != Stmt::Kind::For && s.kind != Stmt::Kind::If) continue;
    BasicPlace<S> inner;
    inner.owner = &s;
    inner.block = Block::Body;
    inner.loop_depth = at.loop_depth + (s.kind == Stmt::Kind::For ? 1 : 0);
    inner.nesting = at.nesting + 1;
    open(s.body, inner);
  }
}

template <typename E, typename F>
void subexprs(E& root, F& f) {
  boost::container::small_vector<E*, 16> stack{&root};
  while (!stack.empty()) {
    E& e = *stack.back();
    stack.pop_back();
    f(e);
    for (size_t k = e.args.size(); k-- > 0;) stack.push_back(&e.args[k]);
  }
}

template <typename S, typename F>
void exprs(S& s, F& f) {
  auto all = [&](auto& es) {
    for (auto& e : es) f(e);
  };
  switch (s.kind) {
    case Stmt::Kind::Assign:
      std::visit(
          [&](auto& r) {
            using R = std::decay_t<decltype(r)>;
            if constexpr (std::is_same_v<R, ExprRhs>) {
              f(r.expr);
            } else if constexpr (std::is_same_v<R, InvokeRhs>) {
              all(r.invoke.args);
            } else if constexpr (std::is_same_v<R, CreateRhs>) {
              all(r.shape);
            } else if constexpr (std::is_same_v<R, FullRhs>) {
              all(r.shape);
              f(r.value);
            } else if constexpr (std::is_same_v<R, SliceRhs> || std::is_same_v<R, AssembleRhs>) {
              all(r.offsets);
            }
          },
          s.rhs);
      return;
    case Stmt::Kind::Invoke: all(s.invoke.args); return;
    case Stmt::Kind::Return: return;
    case Stmt::Kind::For:
      f(s.lo);
      f(s.hi);
      f(s.step);
      return;
    case Stmt::Kind::If:
      f(s.lo);
      f(s.hi);
      return;
  }
}

}  // namespace walk_detail

template <typename Visitor>
void walk_statements(const std::vector<Stmt>& root, Visitor&& visitor) {
  walk_detail::walk<const Stmt>(root, visitor);
}
template <typename Visitor>
void walk_statements(std::vector<Stmt>& root, Visitor&& visitor) {
  walk_detail::walk<Stmt>(root, visitor);
}

template <typename S, typename F>
  requires std::same_as<std::remove_const_t<S>, Stmt>
void for_each_expr(S& s, F&& f) {
  walk_detail::exprs(s, f);
}

template <typename E, typename F>
  requires std::same_as<std::remove_const_t<E>, Expr>
void for_each_subexpr(E& e, F&& f) {
  walk_detail::subexprs(e, f);
}

}  // namespace stackcheck::ir
