// WellFormed (codes 1-99, COMPILER.md §4): the structural and typing rules every Program
// must satisfy before any pass runs. Returns all diagnostics in program order; never
// crashes on any Program the parser can return (or any built in code).
#pragma once

#include "stack/ir/ast.h"
#include "stack/ir/diagnostic.h"

namespace stackcheck::verify {

ir::Diagnostics check_well_formed(const ir::Program& p);

// check_well_formed(p), given `clean`: a program on which check_well_formed found nothing
// (the caller's promise; the pass manager's input to a pass it verified). When p has clean's
// function names at every index, a function of p identical to clean's at its index in every
// field (ir::identical: the check reads fields the printer leaves out), whose every callee
// has an identical signature and the same rpi in both and closes no call cycle in p, has no
// findings in p either and is not walked again; every other function is checked in full.
// The result is exactly check_well_formed(p) (WellFormedSince judges it).
ir::Diagnostics check_well_formed_since(const ir::Program& p, const ir::Program& clean);

}  // namespace stackcheck::verify
