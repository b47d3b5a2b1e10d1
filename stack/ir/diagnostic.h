// Diagnostic: the one finding type of every verifier and pass rejection. A code in 1..399
// (COMPILER.md §4, §6), the rule (verifier or pass) that found it, where, and what.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace stackcheck::ir {

struct Location {
  std::string function;  // empty: program level
  uint32_t line = 0;
  uint32_t column = 0;
};

struct Diagnostic {
  std::string rule;  // "WellFormed", "ReturnParamsExplicit", "GraphBoundaryLegalized", ...
  int code = 0;
  Location location;
  std::string message;

  // "file:line:column: error[N]: message" (file may be empty: "line:column: ...").
  std::string render(const std::string& file) const;
};

using Diagnostics = std::vector<Diagnostic>;

}  // namespace stackcheck::ir
