// The scalar arithmetic shared by the IR (COMPILER.md §1) and the orchestration program
// (RUNTIME.md §8): i64 wraps; `/` and `%` floor (the remainder takes the divisor's sign);
// INT64_MIN / -1 wraps to INT64_MIN with remainder 0; a zero divisor or a zero loop step
// yields nullopt, which each caller reports its own way (diagnostic, latch 5). Never
// undefined behaviour. ir::BinOp and the plan's PlanBinOp are its enums.
#pragma once

#include <cstdint>
#include <optional>

namespace stackcheck::support {

inline int64_t wrap_add(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}
inline int64_t wrap_sub(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b));
}
inline int64_t wrap_mul(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
}
// Floor division; nullopt on a zero divisor.
inline std::optional<int64_t> floor_div(int64_t a, int64_t b) {
  if (b == 0) return std::nullopt;
  if (b == -1) return wrap_sub(0, a);  // INT64_MIN / -1 wraps instead of trapping
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
// Floor remainder (sign of the divisor); nullopt on a zero divisor.
inline std::optional<int64_t> floor_mod(int64_t a, int64_t b) {
  if (b == 0) return std::nullopt;
  if (b == -1) return 0;
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

// The five operators and six comparisons: ir::BinOp / ir::CmpOp and the plan's PlanBinOp /
// PlanCmp are these types.
enum class ArithOp : uint8_t { Add, Sub, Mul, Div, Mod };
enum class CompareOp : uint8_t { Eq, Ne, Lt, Le, Gt, Ge };

// Their text in both languages (`.gir` and `.plan` spell them alike; wrapping.cpp, so that
// the name tables' constants are not compiled into every file that includes this one).
const char* op_text(ArithOp op);
const char* op_text(CompareOp op);

inline std::optional<int64_t> apply(ArithOp op, int64_t a, int64_t b) {
  switch (op) {
    case ArithOp::Add: return wrap_add(a, b);
    case ArithOp::Sub: return wrap_sub(a, b);
    case ArithOp::Mul: return wrap_mul(a, b);
    case ArithOp::Div: return floor_div(a, b);
    case ArithOp::Mod: return floor_mod(a, b);
  }
  return std::nullopt;
}
inline bool compare(CompareOp op, int64_t a, int64_t b) {
  switch (op) {
    case CompareOp::Eq: return a == b;
    case CompareOp::Ne: return a != b;
    case CompareOp::Lt: return a < b;
    case CompareOp::Le: return a <= b;
    case CompareOp::Gt: return a > b;
    case CompareOp::Ge: return a >= b;
  }
  return false;
}

// Trips of Python's range(a, b, s) as u64 (COMPILER.md §1); a zero step has none (nullopt).
inline std::optional<uint64_t> trip_count(int64_t a, int64_t b, int64_t s) {
  if (s == 0) return std::nullopt;
  const uint64_t ua = static_cast<uint64_t>(a), ub = static_cast<uint64_t>(b), us = static_cast<uint64_t>(s);
  if (s > 0 && b > a) return (ub - ua - 1) / us + 1;
  if (s < 0 && a > b) return (ua - ub - 1) / (0 - us) + 1;
  return 0;
}

}  // namespace stackcheck::support
