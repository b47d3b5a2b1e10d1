// The IR's scalar arithmetic (COMPILER.md §1), shared by the interpreter, Simplify, the
// verifiers and the runtime's orchestration arithmetic: i64 wraps; `/` and `%` floor (the
// remainder takes the divisor's sign); a zero divisor is reported, never undefined
// behaviour; INT64_MIN / -1 wraps to INT64_MIN with remainder 0.
#pragma once

#include <cstdint>
#include <optional>

#include "stack/ir/ast.h"

namespace stackcheck::ir {

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
  if (b == -1) return wrap_sub(0, a);  // INT64_MIN / -1 wraps
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
inline std::optional<int64_t> apply_binop(BinOp op, int64_t a, int64_t b) {
  switch (op) {
    case BinOp::Add: return wrap_add(a, b);
    case BinOp::Sub: return wrap_sub(a, b);
    case BinOp::Mul: return wrap_mul(a, b);
    case BinOp::Div: return floor_div(a, b);
    case BinOp::Mod: return floor_mod(a, b);
  }
  return std::nullopt;
}
inline bool apply_cmp(CmpOp op, int64_t a, int64_t b) {
  switch (op) {
    case CmpOp::Eq: return a == b;
    case CmpOp::Ne: return a != b;
    case CmpOp::Lt: return a < b;
    case CmpOp::Le: return a <= b;
    case CmpOp::Gt: return a > b;
    case CmpOp::Ge: return a >= b;
  }
  return false;
}

// Trip count of Python's range(a, b, s) as u64 (COMPILER.md §1); a zero step has none
// (the caller reports it).
inline std::optional<uint64_t> trip_count(int64_t a, int64_t b, int64_t s) {
  if (s == 0) return std::nullopt;
  const uint64_t ua = static_cast<uint64_t>(a), ub = static_cast<uint64_t>(b), us = static_cast<uint64_t>(s);
  if (s > 0 && b > a) return (ub - ua - 1) / us + 1;
  if (s < 0 && a > b) return (ua - ub - 1) / (0 - us) + 1;
  return 0;
}

}  // namespace stackcheck::ir
