#include "stack/passes/pipeline.h"

#include "stack/passes/normalize_return_order.h"
#include "stack/passes/simplify.h"

#include <array>

namespace stackcheck::passes {
namespace {

std::unique_ptr<Pass> make_simplify(const PipelineOptions&) { return std::make_unique<Simplify>(); }
std::unique_ptr<Pass> make_normalize_return_order(const PipelineOptions&) {
  return std::make_unique<NormalizeReturnOrder>();
}
std::unique_ptr<Pass> make_legalize_graph_boundary(const PipelineOptions& options) {
  return std::make_unique<LegalizeGraphBoundary>(options.graph_boundary);
}

constexpr std::array<PipelineStage, 3> kStages = {{
    {"Simplify", make_simplify},
    {"NormalizeReturnOrder", make_normalize_return_order},
    {"LegalizeGraphBoundary", make_legalize_graph_boundary},
}};

}  // namespace

std::span<const PipelineStage> pipeline_stages() { return kStages; }

const PipelineStage* find_stage(std::string_view name) {
  for (const PipelineStage& s : kStages) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

std::string pipeline_stage_names() {
  std::string out;
  for (const PipelineStage& s : kStages) {
    if (!out.empty()) out += ", ";
    out += s.name;
  }
  return out;
}

PassManager default_pipeline(const PipelineOptions& pipeline, PassManagerOptions manager) {
  PassManager pm(std::move(manager));
  for (const PipelineStage& s : kStages) pm.add(s.make(pipeline));
  return pm;
}

}  // namespace stackcheck::passes
