// Production tables (HARNESS.md §8 "a complete vocabulary"): which productions of the `.plan`
// grammar (RUNTIME.md §17) a generated plan uses, read from the plan itself, not from what the
// generator says it did. A production is a statement kind in a context (`submit@graph`,
// `for@if`), an argument tag in a call kind (`arg:no_dep@submit`), an expression kind where it
// stands (`expr:slot@scalar-arg`, `op:%`), a comparison, a window's form and rank, a config key,
// and a few combinations (`window:same-buffer-twice`, `graph:resubmitted`). A generator that
// never makes one leaves every rule behind it unreached: `plan_production_universe` lists all
// of them, each reachable by a clean or a planted plan or marked with the reason it cannot be.
// The generators without a grammar of their own (image mutations, orchestrator calls, stress
// plans, near misses, swarm draws) list their productions and limits in limits.h.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "stack/ir/ast.h"
#include "stack/runtime/plan/program.h"

namespace stackcheck::gen {

// The productions `p` uses (each once, however often it occurs).
std::set<std::string> plan_productions(const runtime::OrchProgram& p);

struct Production {
  std::string name;
  std::string unreachable;  // empty: generated plans must reach it; else why none can
  std::string gap;          // a production plans can hold that no generator makes yet (a known
                            // defect of the generator, listed so the table shows it; the
                            // test fails once a plan uses it, so the list only shrinks)
};
// Every production plan_productions can name, in table order.
std::vector<Production> plan_production_universe();

// The same for `.gir` programs (COMPILER.md §1): each statement form in each context (entry or
// graph body, top level, loop, if, else), expression kinds where they stand, params by function
// kind, direction and rank, kernels by builtin and form, tuple uses, call-site shapes.
std::set<std::string> ir_productions(const ir::Program& p);
std::vector<Production> ir_production_universe();

// A table of shares over `counts` (production -> inputs using it) of `total` inputs, one line
// per production of `universe`, unreachable ones with their reason, known gaps as GAP.
std::string production_table(const std::vector<Production>& universe, const std::map<std::string, int>& counts,
                             int total);
// The productions of `universe` no input used (neither unreachable nor a known gap), plus
// problems: a production used yet marked unreachable or a known gap, or used and missing
// from the universe. Empty when the generator's vocabulary is complete.
std::vector<std::string> production_problems(const std::vector<Production>& universe,
                                             const std::map<std::string, int>& counts);

}  // namespace stackcheck::gen
