// Literal evaluation and constant-trip loops: the leaves of replay-invariance (COMPILER.md
// §3) and the only analysis LegalizeGraphBoundary and its verifier GraphBoundaryLegalized
// may share (§4: IR nodes, visitors, literal evaluation, trip counts, rpi). Invariance
// itself, node counts and call-site checks are derived separately by each of them.
//
// Invariant: total on any Expr/Stmt (also code-built, malformed ones: a Binary without two
// operands is simply not evaluable); arithmetic is the IR's (ir/arith.h), so a zero
// divisor is a result, never undefined behaviour.
#pragma once

#include "stack/ir/ast.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string_view>
#include <vector>

namespace stackcheck::ir {

// Dims of a tensor name, or nullptr when unknown (not a tensor, not statically shaped).
using DimsOf = std::function<const Dims*(std::string_view)>;
// Value of a scalar name, or nullopt (not a constant). Literal evaluation uses none.
using ValueOf = std::function<std::optional<int64_t>(std::string_view)>;

struct EvalResult {
  enum class Status : uint8_t { Ok, NotConstant, ZeroDivisor };
  Status status = Status::NotConstant;
  int64_t value = 0;
  bool ok() const { return status == Status::Ok; }
};

// Literal (§3): INT, `dim`, operators; no names, no `read`. Purely syntactic.
bool is_literal(const Expr& e);

// Evaluates e: Int; Dim through dims_of; Var through value_of (if given); Binary by
// ir/arith.h. NotConstant for `read`, unknown names or dims and malformed nodes;
// ZeroDivisor when a divisor evaluates to 0 (and everything else is constant).
EvalResult evaluate(const Expr& e, const DimsOf& dims_of, const ValueOf& value_of = nullptr);

// Whether `body`, nested lists included, holds a fault WellFormed would see statically once its
// names were literals: a divisor (of `/` or `%`) that evaluates to zero (or hits a zero divisor
// itself), a `read` index that evaluates outside its tensor's axis, or a slice or assemble
// window whose offsets evaluate and put it outside an axis (dims_of; any index or offset that
// evaluates, when the tensor's shape is unknown), through
// dims_of and value_of and through the scalars the body itself binds (in program order) to
// expressions that evaluate so.
bool has_static_fault(const std::vector<Stmt>& body, const DimsOf& dims_of, const ValueOf& value_of);

// `dim(t, axis)` through dims_of; nullopt when unknown or the axis is out of range.
std::optional<int64_t> dim_value(std::string_view tensor, int64_t axis, const DimsOf& dims_of);

// Trip count of a for statement whose start, stop and step are literals (a constant-trip
// loop, §3) that evaluate; nullopt otherwise (non-literal bound, unknown dim, zero
// divisor, zero step) and for statements that are not loops.
std::optional<uint64_t> constant_trips(const Stmt& loop, const DimsOf& dims_of);

// Saturating u64 arithmetic for node counts.
inline uint64_t sat_add(uint64_t a, uint64_t b) { return a + b < a ? UINT64_MAX : a + b; }
inline uint64_t sat_mul(uint64_t a, uint64_t b) {
  if (a == 0 || b == 0) return 0;
  return a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

}  // namespace stackcheck::ir
