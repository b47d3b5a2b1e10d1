// Round-trip oracles of the two text forms: `.gir` (COMPILER.md §8.6): parse(print(p)) equals
// p structurally and print is a fixed point; `.plan` (RUNTIME.md §17) the same for an
// orchestration program. Shared by the round-trip properties and the fuzz targets.
#pragma once

#include "properties/oracles/oracle.h"
#include "stack/ir/ast.h"
#include "stack/runtime/plan/program.h"

namespace stackcheck::oracles {

Verdict check_print_roundtrip(const ir::Program& p);

// Rule "plan-roundtrip": the printed plan parses, to an equal program, and prints the same.
Verdict check_plan_roundtrip(const runtime::OrchProgram& p);

}  // namespace stackcheck::oracles
