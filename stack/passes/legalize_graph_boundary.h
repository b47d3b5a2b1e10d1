// LegalizeGraphBoundary (COMPILER.md §5.3): makes every graph replayable by moving what a
// replay would freeze or share to its call sites. Per graph G:
//   1. checks the original (201-209, 207 on every create, 217);
//   2. collects in one forward walk: scalar aliases, Step A derivable scalars, tensor
//      provenance (root, whole), Step C depth-0 creates, Step B views of whole rooted names;
//   3. rewrites G: hoisted and alias definitions deleted, alias uses substituted, one param
//      appended per hoist (creates InOut, then views with their root's direction, then
//      scalars In, each group in definition order);
//   4. rewrites every call/submit of G: `<v>__graph_arg<k> = <definition, mapped>` before it
//      (k from 0 per caller, skipping used names), the new names appended as arguments;
//   5. checks the result (201-205, 210, 211-213, 214-216 on the rewritten G).
// Requires WellFormed + ReturnParamsExplicit, produces GraphBoundaryLegalized. Never mutates
// its input, never prints; rejections are diagnostics of rule "LegalizeGraphBoundary".
// It shares nothing with its verifier (stack/verify/graph_boundary_legalized.h) but IR
// nodes, literal evaluation/trip counts (ir/invariance.h) and rpi (ir/rpi.h).
#pragma once

#include "stack/ir/ast.h"
#include "stack/passes/pass.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace stackcheck::passes {

struct LegalizeGraphBoundaryOptions {
  // false skips Step C (depth-0 creates stay), to measure its effect.
  bool step_c = true;
};

enum class HoistKind : uint8_t { Create, View, Scalar };
const char* hoist_kind_name(HoistKind k);

// Where an appended graph param came from.
struct AppendedParam {
  std::string name;  // the param's name (= the hoisted definition's name)
  ir::Loc loc;       // location of the hoisted definition in the input
  HoistKind kind = HoistKind::Scalar;
  uint32_t depth = 0;  // enclosing for-loops of the definition (§8.2: 0 for creates)
  ir::Dir dir = ir::Dir::In;
  ir::Type type;
};

struct GraphReport {
  std::string graph;
  // §4 node count of the rewritten graph; valid when `checked` (the graph reached step 5).
  uint64_t node_count = 0;
  bool checked = false;
  std::vector<AppendedParam> appended;  // in param order
};

// Filled by each run (reset first); graphs in program order.
struct LegalizeGraphBoundaryReport {
  std::vector<GraphReport> graphs;
  const GraphReport* find(std::string_view graph) const;
};

class LegalizeGraphBoundary final : public Pass {
 public:
  explicit LegalizeGraphBoundary(LegalizeGraphBoundaryOptions options = {}) : options_(options) {}
  std::string_view name() const override { return "LegalizeGraphBoundary"; }
  PropertySet required() const override { return kWellFormed | kReturnParamsExplicit; }
  PropertySet produced() const override { return kGraphBoundaryLegalized; }
  PropertySet invalidated() const override { return 0; }
  PassResult run(const ir::Program& input) override;

  // The report of the last run().
  const LegalizeGraphBoundaryReport& report() const { return report_; }
  const LegalizeGraphBoundaryOptions& options() const { return options_; }

 private:
  LegalizeGraphBoundaryOptions options_;
  LegalizeGraphBoundaryReport report_;
};

// The transformation as a function; `report` (optional) receives the report.
PassResult legalize_graph_boundary(const ir::Program& input, const LegalizeGraphBoundaryOptions& options = {},
                                   LegalizeGraphBoundaryReport* report = nullptr);

}  // namespace stackcheck::passes
