// The layout of codegen's plan, predicted from the legalized IR alone (COMPILER.md §6): which
// creates are fresh, the allocs each statement list opens with, every submit's builtin, tags
// and output shapes, every submit_graph's graph and tags, the loops and ifs, and the IR
// location each of these plan statements carries. Graph names: a `.plan` name is kept; a
// keyword's new name is checked, not predicted (COMPILER.md leaves its spelling open). The differential oracle (end_to_end.h)
// sees only the bytes a plan computes; a codegen that allocates a fresh create, tags an
// output `output_existing`, or locates a statement elsewhere computes the same bytes, so
// only this oracle sees it.
//
// Invariant: computed from the IR and the builtin signatures of COMPILER.md §2, never from
// codegen's own analysis (stack/codegen/analysis.cpp); registers, `set`, `view` and `read`
// statements are not predicted (the byte differential and the plan check judge them).
#pragma once

#include "properties/oracles/oracle.h"
#include "stack/ir/ast.h"
#include "stack/runtime/plan/program.h"

namespace stackcheck::oracles {

// Pass when `plan` (codegen's output for `legalized`, a program the pipeline accepted) has
// the predicted layout; fail ("codegen-layout") naming the first difference: the function,
// the IR statement list by its first statement's line, and what was predicted and found.
Verdict check_codegen_layout(const ir::Program& legalized, const runtime::OrchProgram& plan);

}  // namespace stackcheck::oracles
