// The compiler pipeline, defined once (COMPILER.md §5): the ordered stages Simplify,
// NormalizeReturnOrder and LegalizeGraphBoundary, each a name and a factory taking the
// pipeline's options. Every user builds its pipeline from this list (the CLI's `compile`,
// the oracles' run_pipeline, tests), so stage order, names and options cannot drift apart.
// OrchestrationCodegen follows the pipeline but is no pass: see stack/codegen/.
#pragma once

#include "stack/passes/legalize_graph_boundary.h"
#include "stack/passes/pass.h"
#include "stack/passes/pass_manager.h"

#include <memory>
#include <span>
#include <string>
#include <string_view>

namespace stackcheck::passes {

// Options of the pipeline's stages.
struct PipelineOptions {
  LegalizeGraphBoundaryOptions graph_boundary;  // LegalizeGraphBoundary (step_c)
};

struct PipelineStage {
  std::string_view name;  // the pass's name()
  std::unique_ptr<Pass> (*make)(const PipelineOptions& options);
};

// The stages, in pipeline order.
std::span<const PipelineStage> pipeline_stages();
// The stage named `name`, or nullptr.
const PipelineStage* find_stage(std::string_view name);
// "Simplify, NormalizeReturnOrder, LegalizeGraphBoundary": for messages listing the names.
std::string pipeline_stage_names();

// A PassManager over every stage, with the instruments `manager` asks for (verify on by
// default; `stop_after` ends the run after that stage).
PassManager default_pipeline(const PipelineOptions& pipeline = {}, PassManagerOptions manager = {});

// The first pass of `pm` of type P, or nullptr (e.g. LegalizeGraphBoundary, for its report).
template <typename P>
const P* find_pass(const PassManager& pm) {
  for (const auto& pass : pm.passes()) {
    if (const auto* p = dynamic_cast<const P*>(pass.get())) return p;
  }
  return nullptr;
}

}  // namespace stackcheck::passes
