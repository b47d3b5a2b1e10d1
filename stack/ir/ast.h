// Graph IR: the program tree the parser builds, passes rewrite and the printer renders
// (COMPILER.md §1). Plain value types: a Program can be copied, compared structurally
// (locations ignored, see equal.h) and edited in place by passes. Meaning is not checked
// here; WellFormed (stack/verify/well_formed.h) does that.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include <boost/container/small_vector.hpp>

#include "stack/support/wrapping.h"

namespace stackcheck::ir {

// 1-based line and byte column; 0:0 for nodes built in code.
struct Loc {
  uint32_t line = 0;
  uint32_t column = 0;
};

enum class Dir : uint8_t { In, Out, InOut };

// A tensor's extents, inline up to rank 4 (a Type is copied with every param, tensor binding
// and signature: no heap block for the ranks programs use).
using Dims = boost::container::small_vector<int64_t, 4>;
inline std::vector<int64_t> dims_vector(const Dims& d) { return {d.begin(), d.end()}; }
inline std::span<const int64_t> dims_span(const Dims& d) { return {d.data(), d.size()}; }

struct Type {
  enum class Kind : uint8_t { I64, Tensor };
  Kind kind = Kind::I64;
  std::string dtype = "i32";  // only "i32" is accepted by the parser
  Dims dims;                  // tensors only

  bool is_tensor() const { return kind == Kind::Tensor; }
  static Type i64() { return Type{}; }
  static Type tensor(Dims d) { return Type{Kind::Tensor, "i32", std::move(d)}; }
  static Type tensor(const std::vector<int64_t>& d) { return tensor(Dims(d.begin(), d.end())); }
  static Type tensor(std::initializer_list<int64_t> d) { return tensor(Dims(d)); }
};

// Operators and comparisons: the support arithmetic's own enums (support/wrapping.h).
using BinOp = support::ArithOp;
using CmpOp = support::CompareOp;

// Scalar expression. Int: value (a negative value is the `-INT` literal). Var: name.
// Binary: op, args[0] op args[1]. Dim: dim(name, value). Read: read(name, args).
struct Expr {
  enum class Kind : uint8_t { Int, Var, Binary, Dim, Read };
  Kind kind = Kind::Int;
  Loc loc;
  int64_t value = 0;
  std::string name;
  BinOp op = BinOp::Add;
  std::vector<Expr> args;
};

// `call f(args)` or `submit f(args)`.
struct Invoke {
  bool submit = false;
  std::string callee;
  std::vector<Expr> args;
  Loc loc;
};

// Right-hand sides of `name = ...`.
struct ExprRhs {
  Expr expr;
};
struct InvokeRhs {
  Invoke invoke;
};
struct TupleGetRhs {
  std::string tuple;
  int64_t index = 0;
};  // r.k
struct CreateRhs {
  std::vector<Expr> shape;
};  // create [..]
struct FullRhs {
  std::vector<Expr> shape;
  Expr value;
};  // full [..], v
struct SliceRhs {
  std::string source;
  std::vector<Expr> offsets;
  Dims sizes;
};
struct AssembleRhs {
  std::string target;
  std::string source;
  std::vector<Expr> offsets;
};
using Rhs = std::variant<ExprRhs, InvokeRhs, TupleGetRhs, CreateRhs, FullRhs, SliceRhs, AssembleRhs>;

struct Stmt {
  enum class Kind : uint8_t { Assign, Invoke, Return, For, If };
  Kind kind = Kind::Assign;
  Loc loc;
  // Assign: name = rhs. For: name is the loop variable.
  std::string name;
  Rhs rhs;
  // Invoke (a bare call/submit statement).
  Invoke invoke;
  // Return.
  std::vector<std::string> returns;
  // For: range(lo, hi, step). If: cond_lhs cmp cond_rhs.
  Expr lo, hi, step;
  CmpOp cmp = CmpOp::Eq;
  std::vector<Stmt> body;       // For body, If then-block
  std::vector<Stmt> else_body;  // If else-block (empty: no else)
};

struct Param {
  std::string name;
  Dir dir = Dir::In;
  Type type;
  Loc loc;
};

struct Function {
  enum class Kind : uint8_t { Kernel, Graph, Orchestration };
  Kind kind = Kind::Kernel;
  std::string name;
  Loc loc;
  std::vector<Param> params;
  // Kernel: returned param names (may be empty: `-> ()`) and the builtin.
  std::vector<std::string> kernel_returns;
  std::string builtin;
  // Graph: declared result types (empty: none).
  std::vector<Type> results;
  // Graph and orchestration.
  std::vector<Stmt> body;
};

struct Program {
  std::vector<Function> functions;
};

// If statement fields reuse For's: lo = left operand, hi = right operand.
inline const Expr& if_lhs(const Stmt& s) { return s.lo; }
inline const Expr& if_rhs(const Stmt& s) { return s.hi; }

const char* dir_name(Dir d);
const char* binop_text(BinOp op);
const char* cmp_text(CmpOp op);

}  // namespace stackcheck::ir
