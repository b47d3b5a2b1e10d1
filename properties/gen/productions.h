// Production tables (HARNESS.md §8 "a complete vocabulary"): which productions of the `.plan`
// grammar (RUNTIME.md §17) a generated plan uses, read from the plan itself, not from what the
// generator says it did. A production is a statement kind in a context (`submit@graph`,
// `for@if`), an argument tag in a call kind (`arg:no_dep@submit`), an expression kind where it
// stands (`expr:slot@scalar-arg`, `op:%`), a comparison, a window's form and rank, a config key,
// and a few combinations (`window:same-buffer-twice`, `graph:resubmitted`). A generator that
// never makes one leaves every rule behind it unreached: `plan_production_universe` lists all
// of them, each reachable by a clean or a planted plan or marked with the reason it cannot be.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

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

// A table of shares over `counts` (production -> plans using it) of `total` plans, one line
// per production of the universe, unreachable ones with their reason.
std::string production_table(const std::map<std::string, int>& counts, int total);

}  // namespace stackcheck::gen
