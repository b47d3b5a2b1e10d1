// The pass manager's own instruments change nothing but what they promise (COMPILER.md §5):
// stopped after each stage in turn (stop-after), the pipeline returns exactly that stage's
// output of the full run, with the stages before it run and the run marked as stopped there;
// print-after-all hands its sink one "# after <Pass>" block per stage, each the printed output
// of that stage, and the final program is the full run's; without the verify instrument the
// passes produce the same program. The stage list itself is checked too: find_stage finds each
// stage by its name and nothing by another, and pipeline_stage_names lists them in order.
// The manager is built by a factory, so that a positive control can hand the oracle a manager
// whose instrument is broken (one that ignores stop_after, or prints nothing).
#pragma once

#include <functional>

#include "properties/oracles/oracle.h"
#include "stack/ir/ast.h"
#include "stack/passes/pipeline.h"

namespace stackcheck::oracles {

using ManagerFactory = std::function<passes::PassManager(passes::PassManagerOptions)>;
// default_pipeline with the given manager options.
passes::PassManager default_manager(passes::PassManagerOptions options);

// On a program the full pipeline accepts; inconclusive (input-rejected) when it does not.
Verdict check_instruments(const ir::Program& p, const ManagerFactory& make = default_manager);

}  // namespace stackcheck::oracles
