// Oracles over the compiler half (COMPILER.md §8), shared by properties, fuzzers and the
// CLI. Each returns a Verdict: pass, fail naming the rule, or inconclusive (e.g. an input
// the pipeline rejects, or an interpreter error on the original program).
#pragma once

#include "properties/oracles/oracle.h"
#include "stack/interp/interp.h"
#include "stack/ir/ast.h"
#include "stack/passes/legalize_graph_boundary.h"
#include "stack/passes/pass.h"
#include "stack/passes/pipeline.h"
#include "stack/runtime/plan/program.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace stackcheck::oracles {

// A pass's output as the pass manager kept it (shared with its snapshot, not copied); reads as
// the program it holds.
class StageProgram {
 public:
  StageProgram(std::shared_ptr<const ir::Program> p) : p_(std::move(p)) {}
  operator const ir::Program&() const { return *p_; }
  const ir::Program& get() const { return *p_; }

 private:
  std::shared_ptr<const ir::Program> p_;
};

// One stage of the pipeline: the pass's name and its output program.
struct Stage {
  std::string pass;
  StageProgram program;
};

struct PipelineRun {
  Verdict verdict;            // §8.1: pass / fail (a pass produced invalid IR) / inconclusive (rejected)
  std::vector<Stage> stages;  // outputs of the passes that completed, in order
  passes::LegalizeGraphBoundaryReport boundary_report;  // LegalizeGraphBoundary's report (when it ran)
  std::string rejected_by;                              // inconclusive: the pass that rejected
  ir::Diagnostics diagnostics;                      // inconclusive: its diagnostics
};

// A program compiled to its orchestration program: the pipeline, then codegen.
struct CompiledPlan {
  Verdict verdict;  // the pipeline's (pass / fail / inconclusive), or codegen's fail
  PipelineRun pipeline;
  runtime::OrchProgram plan;             // when the verdict passed
  std::vector<std::string> entry_names;  // IR name of each plan entry tensor
};
// Codegen rejecting a legalized program is a fail ("codegen"): the pipeline vouched for it.
CompiledPlan compile_to_plan(const ir::Program& p, const passes::PipelineOptions& options = {});
// Codegen of a pipeline run already made (its last stage), as compile_to_plan does.
CompiledPlan compile_pipeline_run(PipelineRun run);

// Runs the pipeline (passes/pipeline.h) in one PassManager under the verify instrument, with
// the snapshot instrument keeping every accepted intermediate program.
PipelineRun run_pipeline(const ir::Program& p, const passes::PipelineOptions& options = {});

// §8.5: interp(p) == interp(q) byte for byte for `seed`. When p traps (zero divisor, bounds,
// zero step), q must trap with the same kind (a failure when it runs to its end or traps
// otherwise; inconclusive when it does, there being no outputs to compare). Inconclusive when
// p is not runnable or exhausts the budget, or q only exhausts it; a failure when only q errs or
// bytes differ (naming the first differing tensor and element).
Verdict check_same_semantics(const ir::Program& p, const ir::Program& q, uint64_t seed, const std::string& what);
// The same with interp(p, seed) already run as `original` (one run serves every stage).
Verdict check_same_semantics(const interp::Result& original, const ir::Program& q, uint64_t seed,
                             const std::string& what);

// COMPILER.md §Simplify's fixed point, read on its output: no literal binary node the
// interpreter's arithmetic folds (a zero divisor stays), no use of a scalar whose one
// definition is a literal, no `dim` of a tensor of static shape defined once (a param,
// create/full with a literal shape, a slice), no constant loop of 0 trips, nor of 1 trip
// whose var is defined once. run_pipeline applies it to its Simplify stage ("simplified").
Verdict check_simplified(const ir::Program& simplify_output);

// §8.4: the pass's node count per graph equals the verifier's re-derived count.
Verdict check_node_counts(const ir::Program& legalized, const passes::LegalizeGraphBoundaryReport& report);

// §8.2: every appended create param comes from loop depth 0 and is InOut.
Verdict check_hoisted_creates(const passes::LegalizeGraphBoundaryReport& report);

// Each pass of `pm` named in COMPILER.md §5's pipeline table declares exactly the table's
// requires / produces / invalidates (rule "pass-contract"); run_pipeline applies it.
Verdict check_pass_contracts(const passes::PassManager& pm);

// COMPILER.md §5.3 Step A, predicted: the scalars LegalizeGraphBoundary appends to each graph
// of `input` (its input program) are exactly the definitions `v = e` with e derivable (§3) and
// not replay-invariant, in definition order (aliases of params and hoisted scalars are not
// hoisted). The classification is this oracle's own (step_a_model.cpp); a graph whose loop
// bounds or conditional divisors hold a `dim` is not judged.
Verdict check_step_a_hoists(const ir::Program& input, const passes::LegalizeGraphBoundaryReport& report);

// COMPILER.md §5.3 steps 2-4, predicted whole (boundary_model.h): the program LegalizeGraphBoundary
// returns for `input` (its input program), printed, and its report's appended params (name, kind,
// location, depth, direction, type), in param order. A program the pass accepts where the model
// predicts a 211 fails; a program whose shapes the model lacks is not judged.
Verdict check_legalized(const ir::Program& input, const ir::Program& output,
                        const passes::LegalizeGraphBoundaryReport& report, bool step_c);

// §8.3: no graph Out params; every tensor param a graph writes (through aliases, views,
// writebacks, tuple elements, assemble) is InOut. Re-derived here from the IR alone.
Verdict check_graph_writes_inout(const ir::Program& p);

// Passes are deterministic and idempotent: f(p) twice gives equal programs and f(f(p)) == f(p).
Verdict check_deterministic_idempotent(const std::function<std::unique_ptr<passes::Pass>()>& make,
                                       const ir::Program& p);

}  // namespace stackcheck::oracles
