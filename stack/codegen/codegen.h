// OrchestrationCodegen (COMPILER.md §6): lowers a legal Program (one holding WellFormed,
// ReturnParamsExplicit and GraphBoundaryLegalized, i.e. the default pipeline's output) to the
// runtime's orchestration program (runtime/plan/program.h, text form `.plan`).
//
// Register conventions (the plan's names):
//   - Tensors are registers t0, t1, ... (windows); scalars s0, s1, ... Each body (the entry,
//     each graph) numbers its own registers in emission order.
//   - Entry tensor param i is the entry tensor `tensor t<i>: In|InOut [dims]`; the plan has
//     exactly the entry's params, in param order, so plan entry tensor i is IR param i
//     (CodegenResult::entry_names keeps the IR names for read-back comparisons).
//   - In a graph body t0.. are the boundary tensors (the graph's tensor params in param
//     order) and $0.. the scalar slots (its scalar params in param order).
//   - Every scalar expression outside `set` is an atom (a literal, a register or `$k`):
//     compound expressions in view offsets, scalar arguments, read indices, loop bounds and
//     if operands are first computed by a `set` into a new register; `read(...)` atoms are
//     hoisted into `read` statements. `dim(t, d)` is the literal dimension.
//   - Aliases (tensor or scalar `v = w`), writebacks, tuple elements (the argument of param
//     rpi(f)[j]) and assemble results reuse the source register: no statement.
//
// Errors are Diagnostics of rule "OrchestrationCodegen", all of them collected:
//   301 graph Out param; 302 `full` in a graph; 303 `read` of a window whose root is not an
//   entry In param; 304 graph launched from a graph; 305 submit_graph with > 128 tensors or
//   > 64 scalars; 306 entry scalar param (a plan has no scalar inputs; the interpreter would
//   draw one from the seed, which codegen cannot know); 300 a broken precondition (input not
//   WellFormed: unknown name, callee or builtin, non-static shape, tuple misuse, ...), so
//   that codegen never crashes on any Program.
// Never prints, never mutates its input; deterministic.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "stack/ir/ast.h"
#include "stack/runtime/plan/program.h"
#include "stack/support/limits.h"
#include "stack/ir/diagnostic.h"

namespace stackcheck::codegen {

inline constexpr const char* kRule = "OrchestrationCodegen";

// Diagnostic codes (COMPILER.md §6, block 300-399).
enum Code : int {
  kPrecondition = 300,
  kGraphOutParam = 301,
  kFullInGraph = 302,
  kReadNotEntryIn = 303,
  kGraphFromGraph = 304,
  kGraphBoundaryTooLarge = 305,
  kEntryScalarParam = 306,
};

// Limits of a submit_graph boundary (RUNTIME.md §9).
inline constexpr size_t kMaxGraphTensors = support::kGraphMaxTensors;
inline constexpr size_t kMaxGraphScalars = support::kGraphMaxScalars;
// Buffers per `alloc` statement (one alloc_tensors call, RUNTIME.md §8).
inline constexpr size_t kMaxAllocBuffers = support::kAllocMaxBuffers;

struct CodegenResult {
  bool ok = false;
  runtime::OrchProgram program;     // valid when ok
  ir::Diagnostics diagnostics;  // why not ok
  // IR name of each plan entry tensor (plan tensor i is `t<i>`), in param order.
  std::vector<std::string> entry_names;
};

CodegenResult generate_orchestration(const ir::Program& p);

// Pass-like wrapper: the last pipeline step (COMPILER.md §5). Its output is not a Program,
// so it is not a passes::Pass; callers check `required()` with the pass manager's verifiers
// (or run the default pipeline first).
class OrchestrationCodegen {
 public:
  std::string_view name() const { return "OrchestrationCodegen"; }
  // WellFormed | ReturnParamsExplicit | GraphBoundaryLegalized (passes::Property bits).
  uint32_t required() const;
  CodegenResult run(const ir::Program& input) const { return generate_orchestration(input); }
};

}  // namespace stackcheck::codegen
