// The IR's scalar arithmetic (COMPILER.md §1), used by the interpreter, Simplify and the
// verifiers: the support arithmetic (support/wrapping.h) under the IR's names. i64 wraps;
// `/` and `%` floor; a zero divisor or a zero step is nullopt, reported by the caller.
#pragma once

#include <cstdint>
#include <optional>

#include "stack/ir/ast.h"
#include "stack/support/wrapping.h"

namespace stackcheck::ir {

using support::floor_div;
using support::floor_mod;
using support::trip_count;
using support::wrap_add;
using support::wrap_mul;
using support::wrap_sub;

inline std::optional<int64_t> apply_binop(BinOp op, int64_t a, int64_t b) { return support::apply(op, a, b); }
inline bool apply_cmp(CmpOp op, int64_t a, int64_t b) { return support::compare(op, a, b); }

}  // namespace stackcheck::ir
