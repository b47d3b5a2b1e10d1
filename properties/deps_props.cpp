// The dependency oracle (properties/oracles/deps.h) on every generated bind plan and every
// generated program once compiled: the DAG decoded from the shipped bytes is acyclic and
// orders every conflicting pair of RUNTIME.md §15.10.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <fmt/format.h>

#include <iterator>

#include "properties/gen/arbitrary.h"
#include "properties/oracles/deps.h"
#include "properties/property.h"
#include "stack/ir/printer.h"
#include "stack/runtime/plan/printer.h"

using namespace stackcheck;

STACKCHECK_PROP(DepsProps, generated_plans_order_every_conflict, 0.1) {
  const gen::GeneratedPlan g = gen::any_plan();
  gen::tag_plan(g.features);
  runtime::BindOptions o;
  o.seed = static_cast<uint64_t>(gen::choices().sized(0, 999));
  const oracles::DepsRun run = oracles::check_plan_dependencies(g.plan, o);
  // A pass is a judgement of a decoded DAG, never of nothing.
  RC_ASSERT(!run.verdict.passed() || run.graph != nullptr);
  props::report(run.verdict, oracles::Counterexample{
                                 "deps", runtime::print_plan(g.plan), {{"seed", std::to_string(o.seed)}}, "", ""});
}

STACKCHECK_PROP(DepsProps, compiled_programs_order_every_conflict, 0.1) {
  const gen::GeneratedProgram g = gen::any_program();
  gen::tag_features(g.features);
  passes::PipelineOptions p;
  p.graph_boundary.step_c = gen::choices().boolean();
  props::require_legal_compile(g.program, p.graph_boundary.step_c);
  const oracles::DepsRun run = oracles::check_program_dependencies(g.program, {}, p, {{"W", 1024, {}}});
  RC_ASSERT(!run.verdict.passed() || run.graph != nullptr);
  props::report(run.verdict, oracles::Counterexample{"deps",
                                                     ir::print_program(g.program),
                                                     {{"step_c", p.graph_boundary.step_c ? "1" : "0"}, {"W", "1024"}},
                                                     "",
                                                     ""});
}

// The oracle's own shortcut (deps.h, Pairs): asking only the pairs adjacent on their bytes
// decides as asking every conflicting pair, and reports the same, on the DAG of a generated
// plan with one to three of its edges cut (most cuts leave some pair unordered, so both
// answers are exercised).
STACKCHECK_PROP(DepsProps, adjacent_pairs_decide_as_all_pairs, 0.1) {
  const gen::GeneratedPlan g = gen::any_plan();
  runtime::BindOptions o;
  o.seed = static_cast<uint64_t>(gen::choices().sized(0, 999));
  const oracles::DepsRun run = oracles::check_plan_dependencies(g.plan, o);
  if (!run.verdict.passed()) return;     // the other properties judge these
  oracles::TaskGraph& cut = *run.graph;  // this run's own (a copy warns in Boost, gcc 12)
  std::string cuts;
  const int64_t n = gen::choices().integer(0, 3);
  for (int64_t k = 0; k < n && boost::num_edges(cut.dag) > 0; ++k) {
    auto v = static_cast<oracles::UnitId>(gen::choices().integer(0, boost::num_vertices(cut.dag) - 1));
    while (boost::out_degree(v, cut.dag) == 0) v = (v + 1) % boost::num_vertices(cut.dag);
    const auto [first, last] = boost::out_edges(v, cut.dag);
    const oracles::UnitId w =
        boost::target(*std::next(first, gen::choices().integer(0, std::distance(first, last) - 1)), cut.dag);
    cuts += fmt::format(" {}->{}", v, w);
    boost::remove_edge(v, w, cut.dag);
  }
  RC_TAG(n == 0 ? "uncut" : "cut");
  const oracles::DepsCheck adjacent =
      oracles::check_task_graph(cut, run.provenance, oracles::kDefaultReachability, oracles::Pairs::kAdjacent);
  const oracles::DepsCheck all =
      oracles::check_task_graph(cut, run.provenance, oracles::kDefaultReachability, oracles::Pairs::kAll);
  RC_TAG(all.verdict.failed() ? "all pairs: fail" : "all pairs: pass");
  if (adjacent.verdict.to_string() == all.verdict.to_string() && adjacent.unordered_pairs == all.unordered_pairs)
    return;
  props::report(oracles::Verdict::fail(
                    "deps-pairs", fmt::format("with the edges{} cut, adjacent pairs say {} ({} unordered), every pair "
                                              "says {} ({} unordered)",
                                              cuts, adjacent.verdict.to_string(), adjacent.unordered_pairs,
                                              all.verdict.to_string(), all.unordered_pairs)),
                fmt::format("seed {}; plan:\n{}", o.seed, runtime::print_plan(g.plan)));
}
