// Round-trip oracles of the two text forms: `.gir` (COMPILER.md §8.6): parse(print(p)) equals
// p structurally and print is a fixed point; `.plan` (RUNTIME.md §17) the same for an
// orchestration program. Shared by the round-trip properties and the fuzz targets.
#pragma once

#include <optional>
#include <string>

#include "properties/oracles/oracle.h"
#include "stack/ir/ast.h"
#include "stack/runtime/plan/program.h"

namespace stackcheck::oracles {

// Rule "roundtrip": the printed program is in COMPILER.md §1's canonical layout
// (canonical_layout_problem), parses, to an equal program, and prints the same.
Verdict check_print_roundtrip(const ir::Program& p);

// What breaks the canonical layout in a `.gir` text (no blank lines or comments, no tabs or
// trailing or doubled spaces, a final newline, two spaces of indent per open block), or nullopt.
// The empty text (a program of no functions) is canonical.
std::optional<std::string> canonical_layout_problem(const std::string& text);

// Rule "plan-roundtrip": the printed plan parses, to an equal program, and prints the same.
Verdict check_plan_roundtrip(const runtime::OrchProgram& p);

}  // namespace stackcheck::oracles
