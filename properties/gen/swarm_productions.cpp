// swarm_program_productions, swarm_plan_productions and their universe (limits.h): the knobs a
// case is built with against the caller's, switch by switch and count by count. The mask's own
// record (SwarmMask: off, caps, widened) is not read.
#include <fmt/format.h>

#include "properties/gen/limits.h"
#include "properties/gen/plan_gen.h"
#include "properties/gen/program_gen.h"

namespace stackcheck::gen {

namespace {

// Each switch and count of the knobs, by name, for both kinds of knobs.
template <class Knobs>
struct KnobTable {
  std::vector<std::pair<const char*, bool Knobs::*>> switches;
  std::vector<std::pair<const char*, int Knobs::*>> counts;
};

const KnobTable<ProgramKnobs>& program_table() {
  static const KnobTable<ProgramKnobs> t = {
      {{"two_d", &ProgramKnobs::two_d},
       {"views", &ProgramKnobs::views},
       {"overlaps", &ProgramKnobs::overlaps},
       {"alias_args", &ProgramKnobs::alias_args},
       {"loop_creates", &ProgramKnobs::loop_creates},
       {"submits", &ProgramKnobs::submits},
       {"assembles", &ProgramKnobs::assembles},
       {"ifs", &ProgramKnobs::ifs},
       {"entry_reads", &ProgramKnobs::entry_reads},
       {"kernel_variants", &ProgramKnobs::kernel_variants},
       {"flow_locals", &ProgramKnobs::flow_locals},
       {"spelled_literals", &ProgramKnobs::spelled_literals},
       {"traps", &ProgramKnobs::traps},
       {"keyword_names", &ProgramKnobs::keyword_names},
       {"illegal_view", &ProgramKnobs::illegal_view},
       {"illegal_full", &ProgramKnobs::illegal_full}},
      {{"max_graphs", &ProgramKnobs::max_graphs},
       {"min_graphs", &ProgramKnobs::min_graphs},
       {"max_sites", &ProgramKnobs::max_sites},
       {"max_graph_stmts", &ProgramKnobs::max_graph_stmts},
       {"max_entry_stmts", &ProgramKnobs::max_entry_stmts},
       {"max_trips", &ProgramKnobs::max_trips},
       {"max_loop_depth", &ProgramKnobs::max_loop_depth}}};
  return t;
}

const KnobTable<PlanKnobs>& plan_table() {
  static const KnobTable<PlanKnobs> t = {{{"two_d", &PlanKnobs::two_d},
                                          {"scopes", &PlanKnobs::scopes},
                                          {"graphs", &PlanKnobs::graphs},
                                          {"reads", &PlanKnobs::reads},
                                          {"no_dep", &PlanKnobs::no_dep},
                                          {"overlaps", &PlanKnobs::overlaps},
                                          {"small_config", &PlanKnobs::small_config}},
                                         {{"max_stmts", &PlanKnobs::max_stmts},
                                          {"max_graphs", &PlanKnobs::max_graphs},
                                          {"min_graphs", &PlanKnobs::min_graphs},
                                          {"min_submissions", &PlanKnobs::min_submissions},
                                          {"max_trips", &PlanKnobs::max_trips},
                                          {"max_depth", &PlanKnobs::max_depth},
                                          {"planted_percent", &PlanKnobs::planted_percent},
                                          {"planted_code", &PlanKnobs::planted_code},
                                          {"planted_cause", &PlanKnobs::planted_cause},
                                          {"small_w_percent", &PlanKnobs::small_w_percent}}};
  return t;
}

// The knobs no mask may touch (swarm.h: a planted or illegal construct the caller asks for is
// kept, min_graphs holds), and the ones it does not draw yet.
const char* kept_whole(std::string_view knob) {
  static constexpr std::pair<std::string_view, const char*> kKept[] = {
      {"illegal_view", "the mask never touches an illegal construct the caller asks for (swarm.h)"},
      {"illegal_full", "the mask never touches an illegal construct the caller asks for (swarm.h)"},
      {"min_graphs", "min_graphs holds (swarm.h)"},
      {"planted_percent", "the mask never touches a planted construct the caller asks for (swarm.h)"},
      {"planted_code", "the mask never touches a planted construct the caller asks for (swarm.h)"},
      {"planted_cause", "the mask never touches a planted construct the caller asks for (swarm.h)"}};
  for (const auto& [k, why] : kKept)
    if (k == knob) return why;
  return nullptr;
}
const char* not_drawn(std::string_view knob) {
  if (knob == "small_config") return "the mask never draws the plan's config sizing: a masked plan keeps the caller's";
  if (knob == "small_w_percent") return "the mask never draws the share of small W";
  if (knob == "min_submissions") return "the mask never draws how often each graph is submitted at least";
  return nullptr;
}

template <class Knobs>
std::set<std::string> productions(const char* kind, const KnobTable<Knobs>& table, const Knobs& base,
                                  const Knobs& drawn) {
  std::set<std::string> out;
  bool same = true;
  for (const auto& [name, field] : table.switches) {
    const bool was = base.*field, now = drawn.*field;
    same = same && was == now;
    out.insert(fmt::format("{}:{}:{}", kind, name, was == now ? "kept" : now ? "turned-on" : "turned-off"));
  }
  const Knobs def;
  for (const auto& [name, field] : table.counts) {
    const int was = base.*field, now = drawn.*field;
    same = same && was == now;
    const char* how = now == was ? "kept" : now < was ? "cut" : was == def.*field ? "widened" : "raised";
    out.insert(fmt::format("{}:{}:{}", kind, name, how));
    if (std::string_view(name) == "max_graphs" && now < drawn.min_graphs)
      out.insert(fmt::format("{}:max_graphs:below-min_graphs", kind));
  }
  out.insert(fmt::format("{}:{}", kind, same ? "knobs-whole" : "knobs-narrowed"));
  return out;
}

// Why a knob's change `how` cannot happen or is a gap (both empty: the mask makes it).
std::pair<std::string, std::string> limit_of(std::string_view knob, std::string_view how) {
  if (how == "kept") return {};
  if (const char* why = kept_whole(knob)) return {why, ""};
  if (how == "turned-on" || how == "raised")
    return {"the mask only narrows what the caller allows (swarm.h)", ""};
  if (const char* gap = not_drawn(knob))
    return how == "widened" ? std::pair<std::string, std::string>{"a knob the mask does not draw is never widened", ""}
                            : std::pair<std::string, std::string>{"", gap};
  return {};
}

template <class Knobs>
void universe_of(const char* kind, const KnobTable<Knobs>& table, std::vector<Production>& u) {
  auto row = [&](const char* knob, const char* how) {
    auto [unreachable, gap] = limit_of(knob, how);
    u.push_back({fmt::format("{}:{}:{}", kind, knob, how), std::move(unreachable), std::move(gap)});
  };
  u.push_back({fmt::format("{}:knobs-whole", kind), "", ""});
  u.push_back({fmt::format("{}:knobs-narrowed", kind), "", ""});
  for (const auto& [name, field] : table.switches)
    for (const char* how : {"kept", "turned-off", "turned-on"}) row(name, how);
  for (const auto& [name, field] : table.counts)
    for (const char* how : {"kept", "cut", "widened", "raised"}) row(name, how);
  u.push_back({fmt::format("{}:max_graphs:below-min_graphs", kind), "min_graphs holds (swarm.h)", ""});
}

}  // namespace

std::set<std::string> swarm_program_productions(const ProgramKnobs& base, const ProgramKnobs& drawn) {
  return productions("program", program_table(), base, drawn);
}

std::set<std::string> swarm_plan_productions(const PlanKnobs& base, const PlanKnobs& drawn) {
  std::set<std::string> out = productions("plan", plan_table(), base, drawn);
  if (base.min_graphs > 0 && base.graphs && !drawn.graphs) out.insert("plan:graphs:turned-off-under-min_graphs");
  return out;
}

std::vector<Production> swarm_production_universe() {
  std::vector<Production> u;
  universe_of("program", program_table(), u);
  universe_of("plan", plan_table(), u);
  u.push_back({"plan:graphs:turned-off-under-min_graphs", "a caller that asks for a graph keeps them (swarm.h)", ""});
  return u;
}

}  // namespace stackcheck::gen
