// Internals of OrchestrationCodegen (codegen.h): the per-program context, the static
// pre-analysis of one function (tensor shapes, static scalar values, fresh creates) and the
// lowering of one function body (the entry or a graph) to plan statements.
//
// Invariant: a BodyLowering never crashes on a malformed Program: a broken precondition
// throws Broken inside this unit, which lower_entry/lower_graph turn into one diagnostic 300
// (the function's lowering stops there). The codes 301-306 are collected and lowering goes
// on, so one run reports all of them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "stack/ir/ast.h"
#include "stack/ir/rpi.h"
#include "stack/runtime/plan/program.h"
#include "stack/ir/diagnostic.h"

namespace stackcheck::codegen::detail {

// What every body lowering shares: the functions by name (the first of a name wins), rpi
// of every function, and each graph's name in the plan.
struct ProgramInfo {
  explicit ProgramInfo(const ir::Program& p);
  const ir::Function* find(std::string_view name) const;

  const ir::Program& program;
  ir::RpiTable rpi;
  std::unordered_map<std::string, const ir::Function*> functions;
  // IR graph name -> plan graph name (the IR name unless it is a `.plan` keyword).
  std::unordered_map<std::string, std::string> graph_names;
};

// Shapes and static values of one function's names (SSA: one definition per name), from one
// walk in program order; the lowering needs them before it reaches a definition (an alloc
// opens its statement list) and for `dim`.
struct StaticInfo {
  std::unordered_map<std::string, ir::Dims> dims;  // tensor names
  std::unordered_map<std::string, int64_t> values;             // static scalar names
  // Per-tuple result types (tensor dims, or nullopt for a scalar/task id element).
  std::unordered_map<std::string, std::vector<std::optional<ir::Dims>>> tuples;
  // Creates that are fresh (COMPILER.md §6): first used, in their own statement list, by a
  // kernel launch passing them unviewed to a builtin-written Out param and to no other param.
  std::unordered_set<std::string> fresh;
};

StaticInfo analyze_function(const ProgramInfo& info, const ir::Function& f);

// Where a window's buffer comes from; `read` needs EntryIn (error 303 otherwise).
enum class Root : uint8_t { EntryIn, EntryInOut, Boundary, Local };

struct TensorReg {
  std::string name;  // the plan register
  Root root = Root::Local;
};

// What an IR name stands for in the plan.
struct Binding {
  enum class Kind : uint8_t {
    Tensor,        // `tensor`
    Scalar,        // `scalar`, an atom: literal, register or $k
    Tuple,         // `tuple`: per element a tensor, or nullopt (task id, untraceable)
    Opaque,        // a task id or a no-result call: never used by a legal program
    PendingFresh,  // a fresh create before the launch that binds it
  };
  Kind kind = Kind::Opaque;
  TensorReg tensor;
  runtime::PlanExpr scalar;
  std::vector<std::optional<TensorReg>> tuple;
};

// Thrown on a broken precondition; becomes diagnostic 300.
struct Broken {
  ir::Loc loc;
  std::string message;
};

class BodyLowering {
 public:
  BodyLowering(const ProgramInfo& info, const ir::Function& f, ir::Diagnostics& diags);

  // The entry: binds params to entry tensors t0.. (scalar params: 306) and returns the
  // body wrapped in scope_begin/scope_end.
  runtime::PlanBlock lower_entry();
  // A graph: tensor params are boundary tensors t0.., scalar params slots $0..; no scopes.
  runtime::PlanGraph lower_graph(const std::string& plan_name);

 private:
  // Statements (lower_stmt.cpp).
  void block(const std::vector<ir::Stmt>& list, runtime::PlanBlock& out, unsigned depth);
  void stmt(const ir::Stmt& s, runtime::PlanBlock& out, unsigned depth);
  void assign(const ir::Stmt& s, runtime::PlanBlock& out);
  void loop(const ir::Stmt& s, runtime::PlanBlock& out, unsigned depth);
  void branch(const ir::Stmt& s, runtime::PlanBlock& out, unsigned depth);

  // Launches (lower_launch.cpp). Returns the results (tensor or nullopt per return).
  std::vector<std::optional<TensorReg>> launch(const ir::Invoke& inv, ir::Loc loc, runtime::PlanBlock& out);
  std::vector<std::optional<TensorReg>> kernel_launch(const ir::Function& k, const ir::Invoke& inv, ir::Loc loc,
                                                      runtime::PlanBlock& out);
  std::vector<std::optional<TensorReg>> graph_launch(const ir::Function& g, const ir::Invoke& inv, ir::Loc loc,
                                                     runtime::PlanBlock& out);
  void bind_results(const std::string& name, const ir::Invoke& inv, std::vector<std::optional<TensorReg>> results);

  // Expressions (lower_expr.cpp). `expr` keeps the tree (reads hoisted into `read`
  // statements); `atom` returns a literal, register or slot, computing a compound value by
  // `set` first.
  runtime::PlanExpr expr(const ir::Expr& e, runtime::PlanBlock& out);
  runtime::PlanExpr expr_at(const ir::Expr& e, runtime::PlanBlock& out, unsigned depth, unsigned& height);
  runtime::PlanExpr atom(const ir::Expr& e, runtime::PlanBlock& out);
  runtime::PlanExpr read(const ir::Expr& e, runtime::PlanBlock& out, unsigned depth);
  std::string set_register(runtime::PlanExpr value, runtime::PlanBlock& out);

  // Names and registers (lower_stmt.cpp).
  const Binding& lookup(const std::string& name, ir::Loc loc) const;
  const TensorReg& tensor(const std::string& name, ir::Loc loc) const;
  const TensorReg& tensor_arg(const ir::Expr& e, ir::Loc loc) const;
  const ir::Dims& dims(const std::string& name, ir::Loc loc) const;
  // dims of a create/full: rank 1..3, dims >= 1, <= 65,536 elements (else 300).
  const ir::Dims& buffer_shape(const std::string& name, ir::Loc loc) const;
  std::string new_tensor() { return "t" + std::to_string(next_t_++); }
  std::string new_scalar() { return "s" + std::to_string(next_s_++); }
  void diag(int code, ir::Loc loc, std::string message);
  [[noreturn]] void broken(ir::Loc loc, std::string message) const;
  // Appends a statement located at at_, the IR statement being lowered (provenance: a plan
  // line of codegen output names the .gir line behind it; PlanLocs never compare).
  void emit(runtime::PlanBlock& out, runtime::PlanStmt::Node node) const;

  const ProgramInfo& info_;
  const ir::Function& f_;
  const bool graph_;
  ir::Diagnostics& diags_;
  StaticInfo static_;
  // The names in scope (COMPILER.md §1: a name is visible to the end of its block), and every
  // name the function defined so far, in scope or not (each is defined once).
  std::unordered_map<std::string, Binding> env_;
  std::unordered_set<std::string> defined_;
  uint64_t next_t_ = 0;
  uint64_t next_s_ = 0;
  ir::Loc at_;
};

}  // namespace stackcheck::codegen::detail
