// WellFormed (codes 1-99, COMPILER.md §4): the structural and typing rules every Program
// must satisfy before any pass runs. Returns all diagnostics in program order; never
// crashes on any Program the parser can return (or any built in code).
#pragma once

#include "stack/ir/ast.h"
#include "stack/ir/diagnostic.h"

namespace stackcheck::verify {

ir::Diagnostics check_well_formed(const ir::Program& p);

}  // namespace stackcheck::verify
