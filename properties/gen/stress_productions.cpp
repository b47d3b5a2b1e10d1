// stress_plan_productions and its universe (limits.h): the shapes of a stress-shaped plan
// recognised from its statements (how deep each root loop nests, what its innermost body
// submits, whether an acc reads a view or a whole entry tensor), each shape's size read from
// its loop bounds, the tasks the loops make and the workers of its config. StressPlan::shapes,
// the generator's own record, is not read.
#include <fmt/format.h>

#include <map>
#include <type_traits>

#include "properties/gen/limits.h"

namespace stackcheck::gen {

namespace {

using namespace runtime;

// Trips of a loop whose bounds are literals (every loop of a stress plan); 0 otherwise.
int64_t trips(const ForStmt& f) {
  if (f.start.kind != PlanExpr::Kind::Int || f.stop.kind != PlanExpr::Kind::Int || f.step.kind != PlanExpr::Kind::Int ||
      f.step.value <= 0 || f.stop.value <= f.start.value)
    return 0;
  return (f.stop.value - f.start.value + f.step.value - 1) / f.step.value;
}

// What one block holds, its loops' bodies counted once per trip.
struct Tally {
  int64_t tasks = 0;      // submits and submit_graphs the block runs
  int64_t submits = 0;    // submits written in the block itself (not in nested loops)
  int depth = 0;          // how deep its loops nest
  bool graph = false;     // a submit_graph inside
  bool acc_of_whole = false, acc_of_view = false, rowsum = false;
};

Tally tally(const PlanBlock& b, std::set<std::string>& out) {
  Tally t;
  std::set<std::string> views;
  for (const PlanStmt& s : b) {
    std::visit(
        [&](const auto& n) {
          using T = std::decay_t<decltype(n)>;
          if constexpr (std::is_same_v<T, ViewStmt>) {
            views.insert(n.name);
          } else if constexpr (std::is_same_v<T, SubmitStmt>) {
            ++t.tasks;
            ++t.submits;
            for (const PlanArg& a : n.args)
              if (a.tag == PlanTag::Output) out.insert("arg:output");
            if (n.builtin == Builtin::Acc && !n.args.empty())
              (views.count(n.args.front().window.name) ? t.acc_of_view : t.acc_of_whole) = true;
            if (n.builtin == Builtin::Rowsum) t.rowsum = true;
          } else if constexpr (std::is_same_v<T, SubmitGraphStmt>) {
            ++t.tasks;
            t.graph = true;
          } else if constexpr (std::is_same_v<T, ForStmt>) {
            const Tally inner = tally(n.body, out);
            t.tasks += trips(n) * inner.tasks;
            t.depth = std::max(t.depth, inner.depth + 1);
            t.graph = t.graph || inner.graph;
          } else if constexpr (std::is_same_v<T, ScopeBeginStmt>) {
            out.insert("stmt:scope_begin");
          } else if constexpr (std::is_same_v<T, AllocStmt>) {
            out.insert("stmt:alloc");
          } else if constexpr (std::is_same_v<T, IfStmt>) {
            out.insert("stmt:if");
          }
        },
        s.node);
  }
  return t;
}

// The innermost block of a loop nest (the body of its first loop, level by level).
const PlanBlock& innermost(const ForStmt& f) {
  for (const PlanStmt& s : f.body)
    if (const auto* g = std::get_if<ForStmt>(&s.node)) return innermost(*g);
  return f.body;
}

std::string band(int64_t n, std::initializer_list<std::pair<int64_t, const char*>> bands, const char* past) {
  for (const auto& [top, name] : bands)
    if (n <= top) return name;
  return past;
}

// The nodes of a graph's body: its loop of independent nodes and the one node over them.
int64_t graph_nodes(const PlanGraph& g) {
  std::set<std::string> ignored;
  const Tally t = tally(g.body, ignored);
  return t.tasks - 1;
}

// One root loop: the shape it belongs to and its size; the shapes' other statements (fills,
// the fan-in's last rowsum) stand outside loops.
void root_loop(const ForStmt& f, const OrchProgram& p, std::set<std::string>& out, std::map<std::string, int>& shapes) {
  std::set<std::string> ignored;
  const Tally t = tally(f.body, ignored), in = tally(innermost(f), ignored);
  const int64_t n = trips(f);
  if (t.graph) {
    ++shapes["graph-replays"];
    out.insert(fmt::format("graph-replays:rounds-{}", n == 1 ? "1" : "2-16"));
    std::string name;
    for (const PlanStmt& s : f.body)
      if (const auto* g = std::get_if<SubmitGraphStmt>(&s.node)) name = g->graph;
    for (const PlanGraph& g : p.graphs)
      if (g.name == name)
        out.insert(fmt::format("graph-replays:nodes-{}",
                               band(graph_nodes(g), {{16, "1-16"}, {127, "17-127"}, {128, "128"}}, "129+")));
  } else if (t.depth == 1 && in.submits == 2) {
    ++shapes["lattice"];
    const int64_t side = f.stop.kind == PlanExpr::Kind::Int ? f.stop.value : 0;
    out.insert(fmt::format("lattice:side-{}", band(side, {{16, "2-16"}, {32, "17-32"}}, "33+")));
  } else if (t.depth == 1 && in.submits == 1) {
    ++shapes["fan-in"];
    const ForStmt* inner = nullptr;
    for (const PlanStmt& s : f.body)
      if (const auto* g = std::get_if<ForStmt>(&s.node)) inner = g;
    out.insert(fmt::format("fan-in:groups-{}", n == 1 ? "1" : "2-32"));
    out.insert(fmt::format("fan-in:width-{}", band(inner ? trips(*inner) : 0,
                                                    {{1, "1"}, {16, "2-16"}, {127, "17-127"}, {128, "128"}}, "129+")));
  } else if (t.depth == 0 && t.rowsum) {
    // the fan-in's row sums: sized with its groups above
  } else if (t.depth == 0 && t.acc_of_whole) {
    ++shapes["fan-out"];
    out.insert(fmt::format("fan-out:consumers-{}", band(n, {{16, "2-16"}, {500, "17-500"}, {4000, "501-4000"}},
                                                        n > 65535 ? "65536+" : "4001-65535")));
  } else if (t.depth == 0 && t.acc_of_view) {
    ++shapes["chain"];
    out.insert(fmt::format("chain:length-{}", band(n + 1, {{16, "2-16"}, {625, "17-625"}, {5000, "626-5000"}}, "5001+")));
  } else {
    out.insert("shape:unrecognised");
  }
}

}  // namespace

std::set<std::string> stress_plan_productions(const OrchProgram& p) {
  std::set<std::string> out;
  for (const ConfigEntry& c : p.config) {
    if (c.key == "workers")
      out.insert(c.value >= 2 && c.value <= 8 ? fmt::format("workers:{}", c.value)
                                              : c.value < 2 ? std::string("workers:1") : std::string("workers:9-256"));
  }
  std::map<std::string, int> shapes;
  for (const PlanStmt& s : p.body)
    if (const auto* f = std::get_if<ForStmt>(&s.node)) root_loop(*f, p, out, shapes);
  int count = 0;
  for (const auto& [shape, n] : shapes) {
    out.insert("shape:" + shape);
    if (n > 1) out.insert("shapes:same-twice");
    count += n;
  }
  out.insert(fmt::format("shapes:{}", count >= 4 ? "4+" : std::to_string(count)));
  for (const PlanGraph& g : p.graphs) tally(g.body, out);
  const int64_t tasks = tally(p.body, out).tasks;
  out.insert(fmt::format("tasks:{}", band(tasks, {{100, "1-100"}, {1000, "101-1000"}, {6000, "1001-6000"}}, "6001+")));
  if (tasks > 8192) out.insert("tasks:past-W");
  return out;
}

std::vector<Production> stress_plan_production_universe() {
  std::vector<Production> u;
  auto add = [&](std::string n, std::string why = "") { u.push_back({std::move(n), std::move(why), ""}); };
  auto gap = [&](std::string n, std::string why) { u.push_back({std::move(n), "", std::move(why)}); };
  add("workers:1", "2-8 workers (generate_stress_plan): one worker runs no two tasks at once");
  for (int w = 2; w <= 8; ++w) add(fmt::format("workers:{}", w));
  gap("workers:9-256", "the config takes up to 256 workers (RUNTIME.md §17); the plans stop at 8");
  for (const char* s : {"fan-out", "fan-in", "chain", "lattice", "graph-replays"}) add(fmt::format("shape:{}", s));
  add("shape:unrecognised", "every root loop is one of the five shapes' (stress_plan.h)");
  add("shapes:0", "each plan draws 1-3 shapes, the first always within the budget");
  for (const char* n : {"1", "2", "3"}) add(fmt::format("shapes:{}", n));
  add("shapes:4+", "each plan draws 1-3 shapes");
  add("shapes:same-twice");
  for (const char* n : {"2-16", "17-500", "501-4000"}) add(fmt::format("fan-out:consumers-{}", n));
  add("fan-out:consumers-4001-65535", "fan_out draws at most 4,000 consumers");
  add("fan-out:consumers-65536+", "past a wake list's u16 count (scheduler code 102, RUNTIME.md §12) and the budget");
  for (const char* n : {"1", "2-32"}) add(fmt::format("fan-in:groups-{}", n));
  for (const char* n : {"1", "2-16", "17-127", "128"}) add(fmt::format("fan-in:width-{}", n));
  add("fan-in:width-129+", "a consumer of more than 128 producers latches 4 (RUNTIME.md §7): the plans stay clean");
  for (const char* n : {"2-16", "17-625", "626-5000"}) add(fmt::format("chain:length-{}", n));
  add("chain:length-5001+", "chain draws at most 5,000 tasks");
  for (const char* n : {"2-16", "17-32"}) add(fmt::format("lattice:side-{}", n));
  add("lattice:side-33+", "lattice draws sides up to 32 (2n^2 tasks)");
  for (const char* n : {"1", "2-16"}) add(fmt::format("graph-replays:rounds-{}", n));
  for (const char* n : {"1-16", "17-127", "128"}) add(fmt::format("graph-replays:nodes-{}", n));
  gap("graph-replays:nodes-129+",
      "graphs stop at 128 nodes and one over them: a graph node may wait on more than 128 others (its fanin is "
      "bounded by the 1,024 nodes of §9; the 128 of §7 is a task's)");
  for (const char* n : {"1-100", "101-1000", "1001-6000"}) add(fmt::format("tasks:{}", n));
  add("tasks:6001+", "the shapes share a budget of kMaxStressTasks (6,000) tasks");
  add("tasks:past-W", "a task id at or past W latches 3 (RUNTIME.md §8)");
  gap("arg:output", "the shapes write windows of entry tensors only: no runtime-allocated output under load");
  gap("stmt:alloc", "no alloc: the task heap is never used under load");
  gap("stmt:scope_begin", "no scopes: no scope_end rewinds the heap or closes a list under load");
  gap("stmt:if", "no ifs: every shape's tasks are known from its text");
  return u;
}

}  // namespace stackcheck::gen
