// The builtins' math (COMPILER.md §2) on interpreter windows: i32 wrap-around arithmetic,
// i32(s) = low 32 bits of a scalar, every input read before any output is written (so
// arguments may alias). The builtin *descriptions* (arity, kinds, directions, shape rules)
// come from ir/builtins.h; the computation is the interpreter's own.
#pragma once

#include "stack/interp/memory.h"
#include "stack/ir/builtins.h"

#include <cstdint>
#include <optional>
#include <span>
#include <string>

namespace stackcheck::interp {

// One builtin operand: a window (tensor params) or a scalar.
struct Operand {
  const Window* tensor = nullptr;
  int64_t scalar = 0;
};

// nullopt when `ops` fit `b`: arity, operand kinds and the shape rule; else why not.
std::optional<std::string> check_operands(const ir::Builtin& b, std::span<const Operand> ops);

// Element operations `b` performs on `ops` (checked by check_operands), for the budget:
// one per output element, times the inner dimension for matmul, per input element for rowsum.
uint64_t builtin_cost(const ir::Builtin& b, std::span<const Operand> ops);

// Runs `b` (operands checked by check_operands).
void run_builtin(const ir::Builtin& b, std::span<const Operand> ops);

}  // namespace stackcheck::interp
