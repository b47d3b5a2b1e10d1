// Orchestration arithmetic (RUNTIME.md §8, the same rules as COMPILER.md §1): i64 wraps;
// `/` and `%` floor (the remainder takes the divisor's sign); INT64_MIN / -1 wraps to
// INT64_MIN with remainder 0; a zero divisor or a zero loop step yields nullopt, which the
// orchestrator latches as 5. Never undefined behaviour. Kept here rather than shared with
// stack/ir/ because the runtime must not depend on the compiler (ARCHITECTURE.md).
#pragma once

#include <cstdint>
#include <optional>

#include "stack/runtime/plan/program.h"

namespace stackcheck::runtime {

inline int64_t orch_add(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}
inline int64_t orch_sub(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b));
}
inline int64_t orch_mul(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
}
inline std::optional<int64_t> orch_div(int64_t a, int64_t b) {
  if (b == 0) return std::nullopt;
  if (b == -1) return orch_sub(0, a);  // INT64_MIN / -1 wraps instead of trapping
  int64_t q = a / b;
  if (a % b != 0 && ((a < 0) != (b < 0))) --q;
  return q;
}
inline std::optional<int64_t> orch_mod(int64_t a, int64_t b) {
  if (b == 0) return std::nullopt;
  if (b == -1) return 0;
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}
inline std::optional<int64_t> orch_binop(PlanBinOp op, int64_t a, int64_t b) {
  switch (op) {
    case PlanBinOp::Add: return orch_add(a, b);
    case PlanBinOp::Sub: return orch_sub(a, b);
    case PlanBinOp::Mul: return orch_mul(a, b);
    case PlanBinOp::Div: return orch_div(a, b);
    case PlanBinOp::Mod: return orch_mod(a, b);
  }
  return std::nullopt;
}
inline bool orch_cmp(PlanCmp c, int64_t a, int64_t b) {
  switch (c) {
    case PlanCmp::Eq: return a == b;
    case PlanCmp::Ne: return a != b;
    case PlanCmp::Lt: return a < b;
    case PlanCmp::Le: return a <= b;
    case PlanCmp::Gt: return a > b;
    case PlanCmp::Ge: return a >= b;
  }
  return false;
}
// Trips of Python's range(a, b, s) as u64; nullopt for a zero step.
inline std::optional<uint64_t> orch_trip_count(int64_t a, int64_t b, int64_t s) {
  if (s == 0) return std::nullopt;
  const uint64_t ua = static_cast<uint64_t>(a), ub = static_cast<uint64_t>(b), us = static_cast<uint64_t>(s);
  if (s > 0 && b > a) return (ub - ua - 1) / us + 1;
  if (s < 0 && a > b) return (ua - ub - 1) / (0 - us) + 1;
  return 0;
}

}  // namespace stackcheck::runtime
