// Parser of the `.gir` text format (COMPILER.md §1). Accepts any bytes: returns a Program
// or the first error as line:column (1-based bytes) and a message; never crashes, never
// recurses past the nesting limit, never allocates more than a bounded multiple of the input.
// Meaning (names, types, arity) is left to WellFormed.
#pragma once

#include "stack/ir/ast.h"

#include <cstddef>
#include <string>
#include <string_view>
#include <variant>

namespace stackcheck::ir {

struct ParseError {
  uint32_t line = 0;
  uint32_t column = 0;
  std::string message;
  std::string to_string() const;  // "line:column: message"
};

struct ParseLimits {
  size_t max_bytes = 8u << 20;  // inputs larger than this are rejected up front
  unsigned max_nesting = 256;   // open ( [ { together
};

// Holds a Program on success, else the first ParseError.
struct ParseResult {
  std::variant<Program, ParseError> value;
  bool ok() const { return value.index() == 0; }
  const Program& program() const { return std::get<Program>(value); }
  Program& program() { return std::get<Program>(value); }
  const ParseError& error() const { return std::get<ParseError>(value); }
};

ParseResult parse_program(std::string_view text, const ParseLimits& limits = {});

}  // namespace stackcheck::ir
