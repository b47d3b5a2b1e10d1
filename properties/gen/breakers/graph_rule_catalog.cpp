// The GraphBoundaryLegalized rule family's catalog and break_graph_rule (ir_breaker.h): the
// legal program copied, the rule's code drawn, then the graph, and the code's entry run on a
// GraphRuleEdit (graph_rule_context.h).
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <optional>
#include <vector>

#include "properties/gen/breakers/graph_rule_context.h"
#include "properties/gen/breakers/ir_build.h"

namespace stackcheck::gen {
namespace breakers {

namespace {

constexpr std::array<GraphRuleEntry, 17> kCatalog = {{
    {201, 0, break_scalar_param_written},
    {202, 301, break_tensor_param_out},
    {203, 0, break_empty_boundary},
    {204, 305, break_param_limit},
    {205, 305, break_param_limit},
    {206, 302, break_full_in_graph},
    {207, 0, break_create_shape},
    {208, 304, break_self_call},
    {209, 0, break_return_view},
    {210, 0, break_arguments},
    {211, 0, break_frozen_offset},
    {212, 0, break_frozen_offset},
    {213, 0, break_launch_scalar},
    {214, 0, break_launch_in_block},
    {215, 0, break_launch_in_block},
    {216, 0, break_node_count},
    {217, 303, break_read_in_graph},
}};

}  // namespace

std::span<const GraphRuleEntry> graph_rule_catalog() { return kCatalog; }

ir::Stmt GraphRuleEdit::fresh_launch(int k) const {
  ir::Stmt s = *launch;
  if (s.kind == ir::Stmt::Kind::Assign) s.name = fmt::format("zz_v{}", k);
  return s;
}

}  // namespace breakers

using namespace ir;

std::optional<BrokenProgram> break_graph_rule(ChoiceSource& c, const Program& legal) {
  BrokenProgram b;
  b.program = legal;
  std::vector<size_t> graphs;
  for (size_t i = 0; i < b.program.functions.size(); ++i)
    if (b.program.functions[i].kind == Function::Kind::Graph) graphs.push_back(i);
  // The order of the codes is the choice sequence's: choice 0 is 206.
  static const std::vector<int> kCodes = {206, 201, 202, 203, 204, 205, 207, 208, 210,
                                          214, 215, 216, 217, 209, 211, 212, 213};
  b.code = c.pick(kCodes);
  if (graphs.empty()) return std::nullopt;
  Function& g = b.program.functions[graphs[c.one_of(graphs.size())]];
  b.graph = g.name;
  breakers::GraphRuleEdit e{c, legal, b, g, {}, {}, std::nullopt, {}};
  for (size_t i = 0; i < g.params.size(); ++i) (g.params[i].type.is_tensor() ? e.tensors : e.scalars).push_back(i);
  for (const Stmt& s : g.body)
    if (const Invoke* i = breakers::invoke_of(s); i != nullptr && breakers::is_kernel(b.program, i->callee)) {
      e.launch = s;
      break;
    }
  e.sites = breakers::call_sites(b.program, g.name);
  const auto catalog = breakers::graph_rule_catalog();
  const auto entry = std::find_if(catalog.begin(), catalog.end(), [&](const auto& r) { return r.code == b.code; });
  if (entry == catalog.end()) return std::nullopt;
  b.codegen_code = entry->codegen_code;  // (the entry may clear it: GraphRuleEntry::codegen_code)
  b.only_code = true;
  b.findings = 1;      // one broken rule in one graph: one finding, from the verifier and the pass
  b.pass_owns = true;  // (an entry clears it where the edit breaks the pass's precondition)
  b.at_limit_runs = true;
  if (!entry->break_it(e)) return std::nullopt;
  return b;
}

}  // namespace stackcheck::gen
