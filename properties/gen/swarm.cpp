// Swarm generation (swarm.h): one case's feature mask and caps, drawn ahead of the case.
#include "properties/gen/swarm.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "properties/gen/plan_gen.h"
#include "properties/gen/program_gen.h"

namespace stackcheck::gen {

std::string SwarmMask::describe() const {
  if (defaults) return "defaults";
  std::string out = fmt::format("swarm {}/10", density);
  if (!off.empty()) out += fmt::format(": off {}", fmt::join(off, ","));
  if (!caps.empty()) {
    out += off.empty() ? ":" : ";";
    for (const auto& [name, cap] : caps) out += fmt::format(" {}<={}", name, cap);
  }
  if (widened) out += " (wide)";
  return out;
}

namespace swarm_detail {

// The first draw: 0 (the simplest, where shrinking goes) is a swarm case, so that a shrunk case
// names the features it needs; the top kSwarmDefaultsPercent of the range keep the defaults.
// The density comes next: 1..9 tenths, 0 (a sparse case) the simplest.
Drawer::Drawer(ChoiceSource& c, SwarmMask& mask) : c_(c), mask_(mask) {
  mask_ = SwarmMask{};
  mask_.defaults = c_.chance(kSwarmDefaultsPercent);
  if (!mask_.defaults) mask_.density = 1 + static_cast<int>(c_.integer(0, 8));
}

// On with probability density/10; the draw's 0 is off.
void Drawer::feature(const char* name, bool& flag) {
  if (mask_.defaults) return;
  const bool keep = c_.integer(0, 9) >= 10 - mask_.density;
  if (flag && !keep) {
    flag = false;
    mask_.off.emplace_back(name);
  }
}

void Drawer::count(const char* name, int& value, int lo, int default_value, int wide) {
  if (mask_.defaults || value <= lo) return;
  const bool may_widen = value == default_value && wide > value;
  // 0: a cap in [lo, value] (0 is lo); 1-2: the caller's; 3: past the default, where the caller
  // left it there. Narrowing every count would make most cases small ones: the features a case
  // keeps should get the budget of those it turned off, as in Csmith's swarm.
  const int64_t kind = c_.integer(0, 3);
  int cap = value;
  if (kind == 3 && may_widen) {
    cap = static_cast<int>(c_.integer(value + 1, wide));
    mask_.widened = true;
  } else if (kind == 0) {
    cap = static_cast<int>(c_.integer(lo, value));
  }
  if (cap != value) mask_.caps.emplace_back(name, cap);
  value = cap;
}

}  // namespace swarm_detail

ProgramKnobs swarm_program_knobs(ChoiceSource& c, const ProgramKnobs& base, SwarmMask& mask) {
  ProgramKnobs k = base;
  swarm_detail::Drawer d(c, mask);
  if (d.defaults()) return k;
  const ProgramKnobs def;
  d.feature("two_d", k.two_d);
  d.feature("views", k.views);
  d.feature("overlaps", k.overlaps);
  d.feature("alias_args", k.alias_args);
  d.feature("loop_creates", k.loop_creates);
  d.feature("submits", k.submits);
  d.feature("assembles", k.assembles);
  d.feature("ifs", k.ifs);
  d.feature("entry_reads", k.entry_reads);
  d.feature("kernel_variants", k.kernel_variants);
  d.feature("flow_locals", k.flow_locals);
  d.feature("spelled_literals", k.spelled_literals);
  d.feature("traps", k.traps);
  d.feature("keyword_names", k.keyword_names);
  d.count("max_graphs", k.max_graphs, std::max(k.min_graphs, 1), def.max_graphs, 5);
  d.count("max_sites", k.max_sites, 1, def.max_sites, 5);
  d.count("max_graph_stmts", k.max_graph_stmts, 1, def.max_graph_stmts, 14);
  d.count("max_entry_stmts", k.max_entry_stmts, 1, def.max_entry_stmts, 14);
  d.count("max_trips", k.max_trips, 1, def.max_trips, 5);
  d.count("max_loop_depth", k.max_loop_depth, 0, def.max_loop_depth, 3);
  return k;
}

PlanKnobs swarm_plan_knobs(ChoiceSource& c, const PlanKnobs& base, SwarmMask& mask) {
  PlanKnobs k = base;
  swarm_detail::Drawer d(c, mask);
  if (d.defaults()) return k;
  const PlanKnobs def;
  d.feature("two_d", k.two_d);
  d.feature("scopes", k.scopes);
  if (k.min_graphs == 0) d.feature("graphs", k.graphs);  // a caller that asks for a graph keeps them
  d.feature("reads", k.reads);
  d.feature("no_dep", k.no_dep);
  d.feature("overlaps", k.overlaps);
  d.count("max_stmts", k.max_stmts, 1, def.max_stmts, 16);
  d.count("max_graphs", k.max_graphs, std::max(k.min_graphs, 1), def.max_graphs, 4);
  d.count("max_trips", k.max_trips, 1, def.max_trips, 5);
  d.count("max_depth", k.max_depth, 0, def.max_depth, 3);
  return k;
}

}  // namespace stackcheck::gen
