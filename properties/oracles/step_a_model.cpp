// check_step_a_hoists (compiler_oracles.h): the scalars of each graph the boundary model's
// Collect walk (boundary_model.cpp) hoists, compared with the pass's report of the scalars it
// appended.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <string>
#include <vector>

#include "properties/oracles/boundary_model.h"
#include "properties/oracles/compiler_oracles.h"

namespace stackcheck::oracles {

Verdict check_step_a_hoists(const ir::Program& input, const passes::LegalizeGraphBoundaryReport& report) {
  for (const ir::Function& g : input.functions) {
    if (g.kind != ir::Function::Kind::Graph) continue;
    const boundary::GraphModel model = boundary::collect(input, g, true);
    if (!model.unknown.empty() || !model.rejects.empty()) continue;  // not judged here
    const passes::GraphReport* r = report.find(g.name);
    if (r == nullptr) return Verdict::fail("step-a", fmt::format("graph {} has no report", g.name));
    std::vector<std::string> got, want;
    for (const passes::AppendedParam& a : r->appended)
      if (a.kind == passes::HoistKind::Scalar) got.push_back(a.name);
    for (const boundary::Entry& e : model.entries)
      if (e.kind == boundary::Entry::Kind::Scalar) want.push_back(e.def->name);
    if (got != want)
      return Verdict::fail("step-a",
                           fmt::format("graph {}: LegalizeGraphBoundary hoisted the scalars [{}]; COMPILER.md "
                                       "§5.3 (derivable and not invariant) gives [{}]",
                                       g.name, fmt::join(got, ", "), fmt::join(want, ", ")));
  }
  return Verdict::pass();
}

}  // namespace stackcheck::oracles
