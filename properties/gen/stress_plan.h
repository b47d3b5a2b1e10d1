// Stress-shaped bind plans (HARNESS.md §8, schedules at scale): the shapes of the scheduler's
// hand-written stress tests with their sizes drawn, one to three of them side by side in one
// plan so that they run concurrently:
// - fan-out: one producer, up to 4,000 consumers parked on its wake list;
// - fan-in: groups of up to 128 producers (the fanin limit) each summed by one consumer,
//   then one root over the groups;
// - chain: up to 5,000 tasks, each reading the one before;
// - lattice: an n x n diamond, two tasks per cell, each waiting on its up and left cells;
// - graph replays: a graph of up to 128 independent nodes and one node over all of them,
//   submitted twice per round (rows side by side, and one chained inout) for up to 16 rounds.
// A plan holds at most kMaxStressTasks tasks and names its worker count in its config, so its
// printed text is its whole replay (`stackcheck bind FILE --schedule pct:SEED:DEPTH`). Sizes are
// drawn from the choice source (shrinking makes every shape smaller, and drops shapes).
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "properties/gen/choice.h"
#include "stack/runtime/plan/program.h"

namespace stackcheck::gen {

inline constexpr int kMaxStressTasks = 6000;

enum class StressShape : unsigned { kFanOut, kFanIn, kChain, kLattice, kGraphReplays, kCount };
const char* stress_shape_name(StressShape s);

struct StressPlan {
  std::string text;  // the plan as drawn (config, shapes)
  runtime::OrchProgram plan;
  std::vector<StressShape> shapes;
  unsigned workers = 4;
  int tasks = 0;        // top-level tasks the plan submits
  int graph_nodes = 0;  // graph nodes its replays run
};

// Draws one plan. A text that does not parse is a generator bug: std::logic_error.
StressPlan generate_stress_plan(ChoiceSource& c);
// A counterexample's form: the shapes as a comment, then the plan text.
void showValue(const StressPlan& p, std::ostream& os);

}  // namespace stackcheck::gen
