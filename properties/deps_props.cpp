// The dependency oracle (properties/oracles/deps.h) on every generated bind plan and every
// generated program once compiled: the DAG decoded from the shipped bytes is acyclic and
// orders every conflicting pair of RUNTIME.md §15.10.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

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
