// The fatal-latch family of the rule catalog: one entry per orchestrator code of RUNTIME.md
// §13 (1..11; 6 is retired), each a PlanBuilder member that appends one cause of the code to a
// clean plan (with the config it needs), in latch_resources.cpp, latch_usage.cpp and
// latch_graph.cpp; PlanBuilder::plant (plan_gen_fatal.cpp) draws the code and runs its entry.
// The generator records the code it planted; which code latched is measured by the binder.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "properties/gen/plan_builder.h"

namespace stackcheck::gen::plan_detail {

inline runtime::PlanWindow win(const std::string& name, std::vector<std::pair<runtime::PlanExpr, int64_t>> ranges) {
  runtime::PlanWindow w;
  w.name = name;
  for (auto& [o, n] : ranges) w.ranges.push_back({std::move(o), n});
  return w;
}

inline runtime::PlanStmt fill(runtime::PlanWindow w, runtime::PlanExpr v) {
  runtime::SubmitStmt s;
  s.builtin = runtime::Builtin::Fill;
  s.args = {runtime::PlanArg::tensor(runtime::PlanTag::OutputExisting, std::move(w)),
            runtime::PlanArg::scalar_value(std::move(v))};
  return stmt(std::move(s));
}

// Textual submit_graph statements in `b` and the blocks inside it: a bound on the graph
// definitions a bind records (a definition's key is its graph and window shapes, and a
// statement's window sizes are literals).
size_t graph_submissions(const runtime::PlanBlock& b);

}  // namespace stackcheck::gen::plan_detail
