// What the compiler suites share (pipeline_props, pass_isolation_props, boundary_rules_props,
// call_site_props, codegen_refusals_props, interp_limits_props, well_formed_props): drawing a
// generated program and judging the compile of one that is legal by construction.
// Invariant: a generated program's rejection is a false rejection (a fail), never an
// inconclusive case, and every compile of one is judged by the boundary invariants as well
// (props::require_legal_compile's rule). Nothing here draws a choice except draw().
#pragma once

#include <functional>

#include "properties/gen/arbitrary.h"
#include "properties/oracles/compiler_oracles.h"
#include "properties/oracles/input_oracles.h"
#include "properties/property.h"
#include "stack/codegen/codegen.h"
#include "stack/ir/printer.h"

namespace stackcheck::props {

// Generated programs are legal by construction: a rejection is a false rejection (a fail),
// never an inconclusive case.
inline oracles::PipelineRun pipeline_or_fail(const ir::Program& p, const passes::PipelineOptions& o = {}) {
  oracles::PipelineRun run = oracles::run_pipeline(p, o);
  const oracles::Counterexample cx{
      "pipeline", ir::print_program(p), {{"step_c", o.graph_boundary.step_c ? "1" : "0"}, {"legal", "1"}}, "", ""};
  if (run.verdict.reason == oracles::Inconclusive::kInputRejected)
    props::report(oracles::Verdict::fail("false-rejection", run.verdict.message), cx);
  props::report(run.verdict, cx);
  // ... and every compile of one is judged by the boundary invariants (props::require_legal_compile)
  props::report(
      oracles::check_boundary_run(run, o.graph_boundary.step_c),
      oracles::Counterexample{
          "boundary", ir::print_program(p), {{"step_c", o.graph_boundary.step_c ? "1" : "0"}, {"legal", "1"}}, "", ""});
  return run;
}

inline gen::GeneratedProgram draw(const gen::ProgramKnobs& knobs = {}) { return gen::draw_program(knobs); }

// Codegen as a suite runs it: the stack's, or a planted defective one (a positive control).
using Codegen = std::function<codegen::CodegenResult(const ir::Program&)>;

}  // namespace stackcheck::props
