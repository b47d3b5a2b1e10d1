// Simplify (COMPILER.md §5.1): scalar constant folding and constant-loop cleanup, to a
// fixed point, with the interpreter's arithmetic (ir/arith.h):
//   - literal subexpressions fold (`dim(t, d)` of a statically shaped tensor too); a zero
//     divisor is never folded (it stays for WellFormed 13 / the interpreter);
//   - uses of scalars bound to literals become the literal (the definitions stay);
//   - constant loops (literal start, stop, step) with 0 trips are deleted, with 1 trip are
//     inlined with the loop variable := start; `if` is never folded.
// Requires WellFormed, produces nothing, invalidates GraphBoundaryLegalized (folding can
// change what is invariant and what is hoisted). Deterministic, idempotent, meaning
// preserving; never rejects, never crashes on ill-formed input (names defined more than
// once are never substituted).
#pragma once

#include "stack/passes/pass.h"

namespace stackcheck::passes {

class Simplify final : public Pass {
 public:
  std::string_view name() const override { return "Simplify"; }
  PropertySet required() const override { return kWellFormed; }
  PropertySet produced() const override { return 0; }
  PropertySet invalidated() const override { return kGraphBoundaryLegalized; }
  PassResult run(const ir::Program& input) override;
};

// The transformation itself (never fails).
ir::Program simplify(const ir::Program& input);

}  // namespace stackcheck::passes
