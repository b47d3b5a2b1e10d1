// The oracles' own scalar arithmetic (COMPILER.md §1, RUNTIME.md §8), written apart from the
// stack's support/wrapping.h so that a model built on it does not share a slip with the code
// it judges: every result is computed exactly in 128 bits and then wrapped to 64. i64 wraps;
// `/` and `%` floor (the remainder takes the divisor's sign); a zero divisor gives nullopt;
// Python range trips as u64 (a zero step: nullopt).
#pragma once

#include <cstdint>
#include <optional>

#include "stack/support/wrapping.h"  // the operator enums only

namespace stackcheck::oracles::ref {

using i128 = __int128;

inline int64_t wrap(i128 v) { return static_cast<int64_t>(static_cast<uint64_t>(static_cast<unsigned __int128>(v))); }

inline std::optional<int64_t> apply(support::ArithOp op, int64_t a, int64_t b) {
  const i128 x = a, y = b;
  switch (op) {
    case support::ArithOp::Add: return wrap(x + y);
    case support::ArithOp::Sub: return wrap(x - y);
    case support::ArithOp::Mul: return wrap(x * y);
    case support::ArithOp::Div:
    case support::ArithOp::Mod: {
      if (y == 0) return std::nullopt;
      i128 q = x / y;  // exact in 128 bits, truncated toward zero
      if (q * y != x && ((x < 0) != (y < 0))) q -= 1;  // floor
      return op == support::ArithOp::Div ? wrap(q) : wrap(x - q * y);
    }
  }
  return std::nullopt;
}

inline bool compare(support::CompareOp op, int64_t a, int64_t b) {
  const i128 d = static_cast<i128>(a) - static_cast<i128>(b);
  switch (op) {
    case support::CompareOp::Eq: return d == 0;
    case support::CompareOp::Ne: return d != 0;
    case support::CompareOp::Lt: return d < 0;
    case support::CompareOp::Le: return d <= 0;
    case support::CompareOp::Gt: return d > 0;
    case support::CompareOp::Ge: return d >= 0;
  }
  return false;
}

// len(range(a, b, s)): ceil((b - a) / s) when that is positive, else 0.
inline std::optional<uint64_t> trip_count(int64_t a, int64_t b, int64_t s) {
  if (s == 0) return std::nullopt;
  const i128 span = static_cast<i128>(b) - static_cast<i128>(a), step = s;
  if ((step > 0 && span <= 0) || (step < 0 && span >= 0)) return 0;
  const i128 n = step > 0 ? (span + step - 1) / step : (-span + -step - 1) / -step;
  return static_cast<uint64_t>(n);
}

// splitmix64 (COMPILER.md §7, RUNTIME.md §13: the seeded stream that fills entry tensors and
// drives the random schedule), in its counter form: draw k of seed s is mix(s + (k+1)·γ),
// where the stack's generator advances a state by γ before each mix.
inline uint64_t splitmix64_at(uint64_t seed, uint64_t k) {
  uint64_t z = seed + (k + 1) * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

}  // namespace stackcheck::oracles::ref
