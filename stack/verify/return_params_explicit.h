// ReturnParamsExplicit (codes 100-199, COMPILER.md §4): the property NormalizeReturnOrder
// produces. 101: a kernel's return list is not strictly increasing by param index.
// 102: a graph return whose lineage (§5.2) reaches a param is not that param's own name.
// Untraceable graph returns are not this property's concern (GraphBoundaryLegalized 209).
// Re-derived from the IR and ir/rpi.h only; never crashes on ill-formed programs (names
// that are no param are WellFormed's business and are skipped here).
#pragma once

#include "stack/ir/ast.h"
#include "stack/ir/diagnostic.h"

namespace stackcheck::verify {

inline constexpr const char* kReturnParamsExplicitRule = "ReturnParamsExplicit";

ir::Diagnostics check_return_params_explicit(const ir::Program& p);

}  // namespace stackcheck::verify
