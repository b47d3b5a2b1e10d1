// Canonical printer of the `.plan` text form (RUNTIME.md §17): config line, entry tensors,
// graphs, root statements, mutate lines; two-space indent; single spaces around operators
// and after commas; minimal parentheses (operators left-associative); `} else {`; no empty
// else. For every program that passes validate_plan, parse_plan(print_plan(p)) == p and
// print_plan(parse_plan(print_plan(p))) == print_plan(p). The output has no comments; callers
// that need the `# stackcheck ...` header line prepend it.
#pragma once

#include <string>

#include "stack/runtime/plan/program.h"

namespace stackcheck::runtime {

std::string print_plan(const OrchProgram& p);
std::string print_plan_expr(const PlanExpr& e);
std::string print_plan_window(const PlanWindow& w);
// One statement (and its nested blocks) at `indent` levels, each line ending in '\n'.
std::string print_plan_stmt(const PlanStmt& s, int indent = 0);

}  // namespace stackcheck::runtime
