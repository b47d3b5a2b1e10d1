// The orchestration program (RUNTIME.md §17): the runtime's input, a plain value type owned
// by the runtime. The compiler's codegen emits it, the harness's bind-plan generators build
// it, people write it as `.plan` text (plan/parser.h / plan/printer.h); the host
// orchestrator (host_orchestrator.h) interprets it against the orchestrator API (§8).
//
// Invariants kept by the type: none beyond its shape; meaning (names bound once per body,
// uses of visible names of the right kind, shape limits) is checked by validate_plan
// (check.h), which the parser runs and bind runs again on hand-built programs.
// Dynamic rules (argument tags and shapes, windows inside buffers, zero divisors, ...) are
// the orchestrator's latches, not errors of the program, so that plans can exercise them.
//
// `==` is structural: locations never compare (PlanLoc's operator== is always true), so
// parse(print(p)) == p holds for every program the parser returns.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "stack/support/wrapping.h"

namespace stackcheck::runtime {

// 1-based line and byte column in `.plan` text; 0:0 for nodes built in code, except that the
// statements codegen emits carry the location of the .gir statement they lower.
struct PlanLoc {
  uint32_t line = 0;
  uint32_t column = 0;
  // Provenance, not meaning: every two locations compare equal (see the banner).
  friend bool operator==(const PlanLoc&, const PlanLoc&) { return true; }
};

// Operators and comparisons: the support arithmetic's own enums (support/wrapping.h).
using PlanBinOp = support::ArithOp;
using PlanCmp = support::CompareOp;

// An i64 scalar expression (COMPILER.md §1 arithmetic, support/wrapping.h).
//   Int:    `value` (a negative value prints as the `-INT` literal)
//   Name:   `name`, a scalar bound by set/read/for
//   Slot:   `$value`, scalar slot k of the enclosing graph body (graph bodies only)
//   Binary: args[0] op args[1]
struct PlanExpr {
  enum class Kind : uint8_t { Int, Name, Slot, Binary };
  Kind kind = Kind::Int;
  int64_t value = 0;
  std::string name;
  PlanBinOp op = PlanBinOp::Add;
  std::vector<PlanExpr> args;
  PlanLoc loc;

  static PlanExpr integer(int64_t v, PlanLoc l = {}) { return {Kind::Int, v, {}, PlanBinOp::Add, {}, l}; }
  static PlanExpr named(std::string n, PlanLoc l = {}) { return {Kind::Name, 0, std::move(n), PlanBinOp::Add, {}, l}; }
  static PlanExpr slot(int64_t k, PlanLoc l = {}) { return {Kind::Slot, k, {}, PlanBinOp::Add, {}, l}; }
  static PlanExpr binary(PlanBinOp o, PlanExpr a, PlanExpr b, PlanLoc l = {}) {
    PlanExpr e{Kind::Binary, 0, {}, o, {}, l};
    e.args.push_back(std::move(a));
    e.args.push_back(std::move(b));
    return e;
  }
  bool operator==(const PlanExpr&) const = default;
};

// One dimension of a window: `size` elements from element offset `offset`.
struct PlanRange {
  PlanExpr offset;
  int64_t size = 0;
  bool operator==(const PlanRange&) const = default;
};

// `NAME` (the whole tensor) or `NAME[o:n, ...]` (one range per dimension of NAME).
struct PlanWindow {
  std::string name;
  std::vector<PlanRange> ranges;  // empty: the whole tensor
  PlanLoc loc;
  bool operator==(const PlanWindow&) const = default;
};

// Builtins callable by `submit` (COMPILER.md §2); the value is the kernel id (§12).
enum class Builtin : uint8_t { Fill = 0, Copy = 1, Add = 2, Acc = 3, Scale = 4, Matmul = 5, Rowsum = 6 };

// Argument tags. Output is runtime-allocated (binds `out_name` with `out_shape`); Scalar
// passes `scalar`; every other tag passes `window`.
enum class PlanTag : uint8_t { Input, Inout, Output, OutputExisting, NoDep, Scalar };

struct PlanArg {
  PlanTag tag = PlanTag::Input;
  PlanWindow window;               // Input, Inout, OutputExisting, NoDep
  std::string out_name;            // Output
  std::vector<int64_t> out_shape;  // Output
  PlanExpr scalar;                 // Scalar
  PlanLoc loc;

  static PlanArg tensor(PlanTag t, PlanWindow w, PlanLoc l = {}) {
    PlanArg a;
    a.tag = t;
    a.window = std::move(w);
    a.loc = l;
    return a;
  }
  static PlanArg output(std::string name, std::vector<int64_t> shape, PlanLoc l = {}) {
    PlanArg a;
    a.tag = PlanTag::Output;
    a.out_name = std::move(name);
    a.out_shape = std::move(shape);
    a.loc = l;
    return a;
  }
  static PlanArg scalar_value(PlanExpr e, PlanLoc l = {}) {
    PlanArg a;
    a.tag = PlanTag::Scalar;
    a.scalar = std::move(e);
    a.loc = l;
    return a;
  }
  bool operator==(const PlanArg&) const = default;
};

// A buffer of one `alloc` statement.
struct PlanBuffer {
  std::string name;
  std::vector<int64_t> shape;
  bool operator==(const PlanBuffer&) const = default;
};

struct PlanStmt;
using PlanBlock = std::vector<PlanStmt>;

// Statements (§17), one struct each.
struct ScopeBeginStmt {
  bool operator==(const ScopeBeginStmt&) const = default;
};
struct ScopeEndStmt {
  bool operator==(const ScopeEndStmt&) const = default;
};
struct FatalStmt {
  bool operator==(const FatalStmt&) const = default;
};
struct WaitTensorStmt {  // wait_tensor NAME
  std::string tensor;
  bool operator==(const WaitTensorStmt&) const = default;
};
struct SyncStartStmt {  // sync_start INT
  int64_t block_num = 0;
  bool operator==(const SyncStartStmt&) const = default;
};
struct AllocStmt {  // alloc NAME: [d, ...], ...   (one alloc_tensors call)
  std::vector<PlanBuffer> buffers;
  bool operator==(const AllocStmt&) const = default;
};
struct ViewStmt {  // view NAME = WIN
  std::string name;
  PlanWindow source;
  bool operator==(const ViewStmt&) const = default;
};
struct SetStmt {  // set NAME = EXPR
  std::string name;
  PlanExpr value;
  bool operator==(const SetStmt&) const = default;
};
struct ReadStmt {  // read NAME = T[EXPR, ...]   (T's root: an entry In tensor)
  std::string name;
  std::string tensor;
  std::vector<PlanExpr> index;
  bool operator==(const ReadStmt&) const = default;
};
struct SubmitStmt {  // submit B(ARG, ...)
  Builtin builtin = Builtin::Fill;
  std::vector<PlanArg> args;
  bool operator==(const SubmitStmt&) const = default;
};
struct SubmitGraphStmt {  // submit_graph G(ARG, ...)
  std::string graph;
  std::vector<PlanArg> args;
  bool operator==(const SubmitGraphStmt&) const = default;
};
struct ForStmt {  // for NAME = START, STOP, STEP { ... }   (Python range)
  std::string var;
  PlanExpr start, stop, step;
  PlanBlock body;
  bool operator==(const ForStmt&) const = default;
};
struct IfStmt {  // if LHS CMP RHS { ... } else { ... }   (empty else: no else)
  PlanExpr lhs;
  PlanCmp cmp = PlanCmp::Eq;
  PlanExpr rhs;
  PlanBlock then_body;
  PlanBlock else_body;
  bool operator==(const IfStmt&) const = default;
};

struct PlanStmt {
  using Node = std::variant<ScopeBeginStmt, ScopeEndStmt, FatalStmt, WaitTensorStmt, SyncStartStmt, AllocStmt, ViewStmt,
                            SetStmt, ReadStmt, SubmitStmt, SubmitGraphStmt, ForStmt, IfStmt>;
  Node node;
  PlanLoc loc;
  bool operator==(const PlanStmt&) const = default;
};

// `graph G(P, ...) { ... }`: the i-th param names boundary tensor i; shapes and tags come
// from each submit_graph. Function ids follow the order of OrchProgram::graphs.
struct PlanGraph {
  std::string name;
  std::vector<std::string> params;
  PlanBlock body;
  PlanLoc loc;
  bool operator==(const PlanGraph&) const = default;
};

// `tensor NAME: In|InOut [d, ...]`: an entry tensor (§10), filled from the seed.
struct EntryTensor {
  std::string name;
  bool inout = false;  // In when false
  std::vector<int64_t> shape;
  PlanLoc loc;
  bool operator==(const EntryTensor&) const = default;
};

// One `KEY=INT` of the `config` line; KEY names a RuntimeConfig field (plan/config_ranges.h).
struct ConfigEntry {
  std::string key;
  int64_t value = 0;
  PlanLoc loc;
  bool operator==(const ConfigEntry&) const = default;
};

// `mutate OFF VAL` / `mutate header OFF VAL` (fuzz_attach's text form of a corrupt image):
// after bind step 7, byte OFF of the shipped image (counted from the ImageHeader: the image,
// then the graph submissions) or of the RuntimeHeader becomes VAL. They are data for the
// harness: the runtime never applies them; the harness does, through the bind's
// before-upload hook (BindOptions::before_upload, properties/oracles/image_mutation.h).
enum class MutationTarget : uint8_t { kImage, kRuntimeHeader };
struct Mutation {
  MutationTarget target = MutationTarget::kImage;
  uint64_t offset = 0;
  uint8_t value = 0;
  PlanLoc loc;
  bool operator==(const Mutation&) const = default;
};

// The whole program, in its canonical print order: config, entry tensors, graphs, the
// statements of the root scope, mutations.
struct OrchProgram {
  std::vector<ConfigEntry> config;
  std::vector<EntryTensor> tensors;
  std::vector<PlanGraph> graphs;
  PlanBlock body;
  std::vector<Mutation> mutations;
  bool operator==(const OrchProgram&) const = default;
};

// Spelling of tags, builtins and comparisons in `.plan` text (shared by parser and printer).
const char* builtin_name(Builtin b);
const char* tag_name(PlanTag t);
const char* cmp_name(PlanCmp c);
const char* binop_name(PlanBinOp op);
// The builtin spelled `name` (fill, copy, add, acc, scale, matmul, rowsum), if any.
std::optional<Builtin> builtin_from_name(std::string_view name);

}  // namespace stackcheck::runtime
