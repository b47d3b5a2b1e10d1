// Static checks of an orchestration program (RUNTIME.md §17): what the `.plan` format
// itself forbids, independent of any run. The parser runs them after parsing; bind runs
// them again, since codegen and generators build programs without text. A program that
// passes prints to text that parses back to an equal program.
//
// Checked here: names are identifiers and not keywords; a name is bound once per body (the
// root body with its entry tensors, or one graph body with its params) and used only where
// visible (after its binding, inside the binding's block) with the right kind (scalar or
// tensor); `$k` only in graph bodies (k < 64); `read` only through an entry In tensor;
// submit_graph names a graph defined before it (in a graph body: an earlier graph or its own;
// the parser also holds root statements to the text order, §17); shapes have rank 1..4,
// dims >= 1 and bounded element counts; config keys are known and not repeated, and each
// value is in its field's range (plan/config_ranges.h); nesting and
// expression depth are bounded.
// Not checked (orchestrator latches, §8): tags, arity and shapes of kernel arguments,
// window bounds and rank, alloc counts, zero divisors, graph-body restrictions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "stack/runtime/plan/program.h"

namespace stackcheck::runtime {

struct PlanError {
  uint32_t line = 0;
  uint32_t column = 0;
  std::string message;
  std::string to_string() const;  // "line:column: message"
};

struct PlanLimits {
  size_t max_bytes = 8u << 20;                // parser: larger inputs are rejected up front
  unsigned max_nesting = 256;                 // open ( [ { together; also block depth
  unsigned max_expr_depth = 1024;             // expression tree depth (left chains included)
  uint64_t max_entry_elements = 1u << 20;     // an entry tensor is filled on the host
  uint64_t max_tensor_elements = 1ull << 40;  // alloc/output shapes (bytes fit in u64)
  unsigned max_rank = 4;                      // TensorArg holds 4 dims
  int64_t max_slot = 63;                      // a graph has at most 64 boundary scalars
};

// The message of a submit_graph that comes before its graph's definition (check and parser).
std::string graph_used_before_definition(std::string_view graph);

bool is_plan_keyword(std::string_view word);
// [A-Za-z_][A-Za-z0-9_]* and not a keyword.
bool is_plan_name(std::string_view word);

std::optional<PlanError> validate_plan(const OrchProgram& p, const PlanLimits& limits = {});

}  // namespace stackcheck::runtime
