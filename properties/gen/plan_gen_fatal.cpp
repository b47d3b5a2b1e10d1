// Planted fatal codes (plan_builder.h): the fatal-latch family's catalog
// (breakers/latch_edit.h) and its dispatcher: one deliberate cause of each orchestrator code
// 1..11 (6 is retired), appended after the clean statements, with the config it needs. The
// generator records the code it planted; which code latched is measured by the binder (the
// clean prefix may latch the same resource code earlier, never another one unless the
// config it was given is small too).
#include <fmt/format.h>

#include "properties/gen/breakers/latch_edit.h"

namespace stackcheck::gen::plan_detail {

using namespace runtime;

size_t graph_submissions(const PlanBlock& b) {
  size_t n = 0;
  for (const PlanStmt& s : b) {
    if (std::holds_alternative<SubmitGraphStmt>(s.node)) ++n;
    if (const auto* f = std::get_if<ForStmt>(&s.node)) n += graph_submissions(f->body);
    if (const auto* i = std::get_if<IfStmt>(&s.node))
      n += graph_submissions(i->then_body) + graph_submissions(i->else_body);
  }
  return n;
}

int PlanBuilder::plan_code_for(size_t choice) {
  static const int codes[] = {9, 8, 5, 1, 7, 2, 3, 10, 11, 4};
  return codes[choice];
}

std::span<const PlanBuilder::LatchEntry> PlanBuilder::latch_catalog() {
  static const LatchEntry kCatalog[] = {
      {1, "SCOPE_DEADLOCK", &PlanBuilder::plant_scope_deadlock},
      {2, "HEAP_EXHAUSTED", &PlanBuilder::plant_heap_exhausted},
      {3, "TASK_WINDOW_EXHAUSTED", &PlanBuilder::plant_window_exhausted},
      {4, "FANIN_OVERFLOW", &PlanBuilder::plant_fanin_overflow},
      {5, "INVALID_ARGS", &PlanBuilder::plant_invalid_args},
      {7, "SYNC_START_INVALID", &PlanBuilder::plant_sync_start_invalid},
      {8, "TENSOR_WAIT_TIMEOUT", &PlanBuilder::plant_wait_timeout},
      {9, "EXPLICIT_FATAL", &PlanBuilder::plant_explicit_fatal},
      {10, "SCOPE_TASKS_OVERFLOW", &PlanBuilder::plant_scope_tasks_overflow},
      {11, "TENSORMAP_OVERFLOW", &PlanBuilder::plant_tensormap_overflow},
  };
  return kCatalog;
}

int PlanBuilder::plant(OrchProgram& p, Body& root) {
  (void)root;
  const int code = k_.planted_code != 0 ? k_.planted_code : plan_code_for(c_.one_of(10));
  const size_t first = p.body.size();
  const LatchEntry* entry = &latch_catalog()[3];  // any other code: 4's cause (as before the catalog)
  for (const LatchEntry& e : latch_catalog())
    if (e.code == code) entry = &e;
  (this->*entry->plant)(p);
  place_planted(p, first, code);
  return code;
}

void PlanBuilder::place_planted(OrchProgram& p, size_t first, int code) {
  // Code 1's causes are the scope structure itself: they stay at the top level.
  const bool graph_ok = code == 9 || code == 7;
  const size_t where = code == 1 ? 0 : c_.one_of(graph_ok ? 6 : 5);
  if (where == 0) return;
  PlanBlock planted(std::make_move_iterator(p.body.begin() + static_cast<std::ptrdiff_t>(first)),
                    std::make_move_iterator(p.body.end()));
  p.body.erase(p.body.begin() + static_cast<std::ptrdiff_t>(first), p.body.end());
  switch (where) {
    case 1:
      p.body.push_back(stmt(ScopeBeginStmt{}));
      for (PlanStmt& s : planted) p.body.push_back(std::move(s));
      p.body.push_back(stmt(ScopeEndStmt{}));
      break;
    case 2: {
      ForStmt f = counting_loop(fresh("zi"), 1);
      f.body = std::move(planted);
      p.body.push_back(stmt(std::move(f)));
      break;
    }
    case 3:
    case 4: {  // if 0 == 0 { planted }   /   if 1 < 0 { set } else { planted }
      IfStmt s;
      s.lhs = lit(where == 3 ? 0 : 1);
      s.cmp = where == 3 ? PlanCmp::Eq : PlanCmp::Lt;
      s.rhs = lit(0);
      if (where == 3) {
        s.then_body = std::move(planted);
      } else {
        s.then_body.push_back(stmt(SetStmt{fresh("zs"), lit(0)}));
        s.else_body = std::move(planted);
      }
      p.body.push_back(stmt(std::move(s)));
      break;
    }
    default: {  // a graph body: fill its param, then the planted statement; submitted once
      PlanGraph g;
      g.name = fresh("zg");
      g.params = {fresh("zp")};
      g.body.push_back(fill(win(g.params.front(), {{lit(0), 4}}), lit(1)));
      for (PlanStmt& s : planted) g.body.push_back(std::move(s));
      SubmitGraphStmt sub;
      sub.graph = g.name;
      sub.args = {PlanArg::tensor(PlanTag::Inout, win("c", {}))};
      p.graphs.push_back(std::move(g));
      p.body.push_back(stmt(std::move(sub)));
    }
  }
}

}  // namespace stackcheck::gen::plan_detail
