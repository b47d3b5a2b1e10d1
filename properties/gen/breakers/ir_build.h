// The IR nodes the program breakers build (ir_breaker.h: break_graph_rule, break_at_call_site,
// break_well_formed_rule): literals, names, binary expressions, assignments, and the calls of
// a function across a program. They build nodes as the parser would, locations left at 0:0;
// they never draw a choice.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "stack/ir/ast.h"

namespace stackcheck::gen::breakers {

// COMPILER.md §1: a tensor type holds at most 65,536 elements.
inline constexpr int64_t kMaxTensorElements = 65536;

// The words a diagnostic writes for a direction and a type (COMPILER.md §1's spelling, kept here
// so that a message predicted by a breaker does not borrow the printer's or the verifier's).
inline const char* dir_word(ir::Dir d) { return d == ir::Dir::In ? "In" : d == ir::Dir::Out ? "Out" : "InOut"; }
inline std::string type_word(const ir::Type& t) {
  if (!t.is_tensor()) return "i64";
  std::string s = "tensor<" + t.dtype + ">[";
  for (size_t i = 0; i < t.dims.size(); ++i) s += (i ? ", " : "") + std::to_string(t.dims[i]);
  return s + "]";
}

inline ir::Expr int_expr(int64_t v) {
  ir::Expr e;
  e.kind = ir::Expr::Kind::Int;
  e.value = v;
  return e;
}
inline ir::Expr var(std::string n) {
  ir::Expr e;
  e.kind = ir::Expr::Kind::Var;
  e.name = std::move(n);
  return e;
}
inline ir::Expr binary(ir::BinOp op, ir::Expr a, ir::Expr b) {
  ir::Expr e;
  e.kind = ir::Expr::Kind::Binary;
  e.op = op;
  e.args = {std::move(a), std::move(b)};
  return e;
}
inline ir::Stmt assign(std::string name, ir::Rhs rhs) {
  ir::Stmt s;
  s.kind = ir::Stmt::Kind::Assign;
  s.name = std::move(name);
  s.rhs = std::move(rhs);
  return s;
}

// The call or submit of a statement (`call f(..)`, `v = submit f(..)`), or nullptr.
inline const ir::Invoke* invoke_of(const ir::Stmt& s) {
  if (s.kind == ir::Stmt::Kind::Invoke) return &s.invoke;
  if (s.kind == ir::Stmt::Kind::Assign)
    if (const auto* r = std::get_if<ir::InvokeRhs>(&s.rhs)) return &r->invoke;
  return nullptr;
}
inline ir::Invoke* invoke_of(ir::Stmt& s) {
  return const_cast<ir::Invoke*>(invoke_of(static_cast<const ir::Stmt&>(s)));
}

inline void walk(std::vector<ir::Stmt>& body, const std::function<void(ir::Stmt&)>& fn) {
  for (ir::Stmt& s : body) {
    fn(s);
    walk(s.body, fn);
    walk(s.else_body, fn);
  }
}

// Every invoke of `callee` in the program (the function's call sites).
inline std::vector<ir::Invoke*> call_sites(ir::Program& p, const std::string& callee) {
  std::vector<ir::Invoke*> out;
  for (ir::Function& f : p.functions)
    walk(f.body, [&](ir::Stmt& s) {
      if (ir::Invoke* i = invoke_of(s); i != nullptr && i->callee == callee) out.push_back(i);
    });
  return out;
}

inline bool is_kernel(const ir::Program& p, const std::string& name) {
  for (const ir::Function& f : p.functions)
    if (f.name == name) return f.kind == ir::Function::Kind::Kernel;
  return false;
}

}  // namespace stackcheck::gen::breakers
