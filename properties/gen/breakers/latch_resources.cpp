// The fatal-latch family of the rule catalog (latch_edit.h): the resource codes 1, 2, 3, 4, 7,
// 10 and 11, each planted by one cause with the config that makes it latch.
#include <fmt/format.h>

#include "properties/gen/breakers/latch_edit.h"

namespace stackcheck::gen::plan_detail {

using namespace runtime;

// 1: an unmatched scope_end, a scope left open, or the 65th open scope (the root is the first).
void PlanBuilder::plant_scope_deadlock(runtime::OrchProgram& p) {
  PlanBlock& body = p.body;
  switch (c_.one_of(3)) {
    case 0: body.push_back(stmt(ScopeEndStmt{})); break;    // unmatched
    case 1: body.push_back(stmt(ScopeBeginStmt{})); break;  // left open
    default:                                                // the 65th open scope (the root is the first)
      for (int i = 0; i < 64; ++i) body.push_back(stmt(ScopeBeginStmt{}));
      for (int i = 0; i < 64; ++i) body.push_back(stmt(ScopeEndStmt{}));
  }
}

// 2: a 1 KiB task heap and a 2 KiB buffer.
void PlanBuilder::plant_heap_exhausted(runtime::OrchProgram& p) {
  PlanBlock& body = p.body;
  config_["task_heap"] = 1024;
  AllocStmt a;
  a.buffers.push_back({fresh("big"), {512}});
  body.push_back(stmt(std::move(a)));
}

// 3: more tasks than the window.
void PlanBuilder::plant_window_exhausted(runtime::OrchProgram& p) {
  PlanBlock& body = p.body;
  config_["W"] = 4;
  ForStmt f = counting_loop(fresh("i"), 8);
  f.body.push_back(fill(win("c", {{lit(0), 1}}), name_of(f.var)));
  body.push_back(stmt(std::move(f)));
}

// 4: one task with 129 producers.
void PlanBuilder::plant_fanin_overflow(runtime::OrchProgram& p) {
  PlanBlock& body = p.body;
  config_["W"] = 1024;
  const std::string big = fresh("big"), sum = fresh("sum");
  p.tensors.push_back({big, true, {2048}, {}});
  AllocStmt a;
  a.buffers.push_back({sum, {2048}});
  body.push_back(stmt(std::move(a)));
  ForStmt f = counting_loop(fresh("i"), 128);
  f.body.push_back(fill(win(big, {{PlanExpr::binary(PlanBinOp::Mul, name_of(f.var), lit(16)), 16}}), lit(1)));
  body.push_back(stmt(std::move(f)));
  SubmitStmt s;
  s.builtin = Builtin::Acc;
  s.args = {PlanArg::tensor(PlanTag::Input, win(big, {})), PlanArg::tensor(PlanTag::Inout, win(sum, {}))};
  body.push_back(stmt(std::move(s)));
}

// 7: a sync_start past the clusters.
void PlanBuilder::plant_sync_start_invalid(runtime::OrchProgram& p) {
  PlanBlock& body = p.body;
  config_["clusters"] = c_.integer(1, 4);
  body.push_back(stmt(SyncStartStmt{config_["clusters"] + 1}));
}

// 10: a scope whose task list holds two.
void PlanBuilder::plant_scope_tasks_overflow(runtime::OrchProgram& p) {
  PlanBlock& body = p.body;
  config_["scope_tasks_capacity"] = 2;
  body.push_back(stmt(ScopeBeginStmt{}));
  for (int i = 0; i < 3; ++i) body.push_back(fill(win("c", {{lit(i), 1}}), lit(i)));
  body.push_back(stmt(ScopeEndStmt{}));
}

// 11: a tensormap of 8 ranges + readers.
void PlanBuilder::plant_tensormap_overflow(runtime::OrchProgram& p) {
  PlanBlock& body = p.body;
  config_["tensormap_capacity"] = 8;
  ForStmt f = counting_loop(fresh("i"), 8);
  SubmitStmt s;
  s.builtin = Builtin::Copy;
  s.args = {PlanArg::tensor(PlanTag::Input, win("x", {{PlanExpr::binary(PlanBinOp::Mul, name_of(f.var), lit(2)), 2}})),
            PlanArg::output(fresh("o"), {2})};
  f.body.push_back(stmt(std::move(s)));
  body.push_back(stmt(std::move(f)));
}

}  // namespace stackcheck::gen::plan_detail
