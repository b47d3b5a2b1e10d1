// NormalizeReturnOrder (COMPILER.md §5.2): makes every function's returned params explicit.
//   A0: in every graph, a return whose lineage reaches param p is renamed to p (returns
//       are never reordered; untraceable ones stay for GraphBoundaryLegalized 209);
//   A:  every kernel's return list is sorted by param index (permutation P);
//   B:  `v = r.j` on a call/submit of a permuted kernel becomes `v = r.P(j)` (the task id
//       keeps its position).
// Requires WellFormed, produces ReturnParamsExplicit, invalidates nothing. rpi of every
// function is unchanged (as a param-index multiset per position under P), so the
// program's meaning is too. Deterministic and idempotent; never rejects its input.
#pragma once

#include "stack/passes/pass.h"

namespace stackcheck::passes {

class NormalizeReturnOrder final : public Pass {
 public:
  std::string_view name() const override { return "NormalizeReturnOrder"; }
  PropertySet required() const override { return kWellFormed; }
  PropertySet produced() const override { return kReturnParamsExplicit; }
  PropertySet invalidated() const override { return 0; }
  PassResult run(const ir::Program& input) override;
};

// The transformation itself (never fails).
ir::Program normalize_return_order(const ir::Program& input);

}  // namespace stackcheck::passes
