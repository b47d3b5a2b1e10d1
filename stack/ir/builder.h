// Builder API: terse constructors for IR nodes, for passes, tests and generators.
// Nodes built here carry location 0:0; structural equality ignores locations anyway.
#pragma once

#include "stack/ir/ast.h"

#include <initializer_list>

namespace stackcheck::ir::build {

inline Expr lit(int64_t v) {
  Expr e;
  e.kind = Expr::Kind::Int;
  e.value = v;
  return e;
}
inline Expr var(std::string n) {
  Expr e;
  e.kind = Expr::Kind::Var;
  e.name = std::move(n);
  return e;
}
inline Expr bin(BinOp op, Expr a, Expr b) {
  Expr e;
  e.kind = Expr::Kind::Binary;
  e.op = op;
  e.args.push_back(std::move(a));
  e.args.push_back(std::move(b));
  return e;
}
inline Expr add(Expr a, Expr b) { return bin(BinOp::Add, std::move(a), std::move(b)); }
inline Expr sub(Expr a, Expr b) { return bin(BinOp::Sub, std::move(a), std::move(b)); }
inline Expr mul(Expr a, Expr b) { return bin(BinOp::Mul, std::move(a), std::move(b)); }
inline Expr div(Expr a, Expr b) { return bin(BinOp::Div, std::move(a), std::move(b)); }
inline Expr mod(Expr a, Expr b) { return bin(BinOp::Mod, std::move(a), std::move(b)); }
inline Expr dim(std::string t, int64_t axis) {
  Expr e;
  e.kind = Expr::Kind::Dim;
  e.name = std::move(t);
  e.value = axis;
  return e;
}
inline Expr read(std::string t, std::vector<Expr> idx) {
  Expr e;
  e.kind = Expr::Kind::Read;
  e.name = std::move(t);
  e.args = std::move(idx);
  return e;
}
inline std::vector<Expr> lits(std::initializer_list<int64_t> vs) {
  std::vector<Expr> out;
  for (int64_t v : vs) out.push_back(lit(v));
  return out;
}

inline Invoke invoke(bool submit, std::string callee, std::vector<Expr> args) {
  Invoke i;
  i.submit = submit;
  i.callee = std::move(callee);
  i.args = std::move(args);
  return i;
}
inline std::vector<Expr> names(std::initializer_list<const char*> ns) {
  std::vector<Expr> out;
  for (const char* n : ns) out.push_back(var(n));
  return out;
}

inline Stmt assign(std::string name, Rhs rhs) {
  Stmt s;
  s.kind = Stmt::Kind::Assign;
  s.name = std::move(name);
  s.rhs = std::move(rhs);
  return s;
}
inline Stmt let(std::string name, Expr e) { return assign(std::move(name), ExprRhs{std::move(e)}); }
inline Stmt call_to(std::string name, std::string callee, std::vector<Expr> args, bool submit = false) {
  return assign(std::move(name), InvokeRhs{invoke(submit, std::move(callee), std::move(args))});
}
inline Stmt call(std::string callee, std::vector<Expr> args, bool submit = false) {
  Stmt s;
  s.kind = Stmt::Kind::Invoke;
  s.invoke = invoke(submit, std::move(callee), std::move(args));
  return s;
}
inline Stmt tuple_get(std::string name, std::string tuple, int64_t k) {
  return assign(std::move(name), TupleGetRhs{std::move(tuple), k});
}
inline Stmt create(std::string name, std::vector<Expr> shape) {
  return assign(std::move(name), CreateRhs{std::move(shape)});
}
inline Stmt full(std::string name, std::vector<Expr> shape, Expr v) {
  return assign(std::move(name), FullRhs{std::move(shape), std::move(v)});
}
inline Stmt slice(std::string name, std::string src, std::vector<Expr> offs, Dims sizes) {
  return assign(std::move(name), SliceRhs{std::move(src), std::move(offs), std::move(sizes)});
}
inline Stmt assemble(std::string name, std::string target, std::string src, std::vector<Expr> offs) {
  return assign(std::move(name), AssembleRhs{std::move(target), std::move(src), std::move(offs)});
}
inline Stmt ret(std::vector<std::string> ns) {
  Stmt s;
  s.kind = Stmt::Kind::Return;
  s.returns = std::move(ns);
  return s;
}
inline Stmt for_(std::string v, Expr lo, Expr hi, Expr step, std::vector<Stmt> body) {
  Stmt s;
  s.kind = Stmt::Kind::For;
  s.name = std::move(v);
  s.lo = std::move(lo);
  s.hi = std::move(hi);
  s.step = std::move(step);
  s.body = std::move(body);
  return s;
}
inline Stmt if_(Expr lhs, CmpOp cmp, Expr rhs, std::vector<Stmt> then_body, std::vector<Stmt> else_body = {}) {
  Stmt s;
  s.kind = Stmt::Kind::If;
  s.lo = std::move(lhs);
  s.cmp = cmp;
  s.hi = std::move(rhs);
  s.body = std::move(then_body);
  s.else_body = std::move(else_body);
  return s;
}

inline Param param(std::string name, Dir dir, Type t) {
  Param p;
  p.name = std::move(name);
  p.dir = dir;
  p.type = std::move(t);
  return p;
}
// The fields every kind of function has; the builders below add their kind's own.
inline Function function_of(Function::Kind kind, std::string name, std::vector<Param> params) {
  Function f;
  f.kind = kind;
  f.name = std::move(name);
  f.params = std::move(params);
  return f;
}
inline Function kernel(std::string name, std::vector<Param> params, std::vector<std::string> returns,
                       std::string builtin) {
  Function f = function_of(Function::Kind::Kernel, std::move(name), std::move(params));
  f.kernel_returns = std::move(returns);
  f.builtin = std::move(builtin);
  return f;
}
inline Function graph(std::string name, std::vector<Param> params, std::vector<Type> results, std::vector<Stmt> body) {
  Function f = function_of(Function::Kind::Graph, std::move(name), std::move(params));
  f.results = std::move(results);
  f.body = std::move(body);
  return f;
}
inline Function orchestration(std::string name, std::vector<Param> params, std::vector<Stmt> body) {
  Function f = function_of(Function::Kind::Orchestration, std::move(name), std::move(params));
  f.body = std::move(body);
  return f;
}

}  // namespace stackcheck::ir::build
