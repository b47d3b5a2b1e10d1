// The `.plan` rule family of the rule catalog (plan_breaker.h): one entry per rule of the
// static check (runtime/plan/check.h), each with the function that breaks it at one place of
// a valid plan and fills what the check must report (BrokenPlan: the message, the at-limit
// twin, whether the text form can hold the edit). break_plan_rule draws the rule, the place
// and the expression site, then calls the rule's entry; the order of the draws is the
// choice sequence saved counterexamples replay, so an entry draws only after them.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "properties/gen/choice.h"
#include "properties/gen/plan_breaker.h"
#include "stack/runtime/plan/program.h"

namespace stackcheck::gen::breakers {

using runtime::OrchProgram;
using runtime::PlanBlock;
using runtime::PlanExpr;
using runtime::PlanStmt;
using runtime::PlanWindow;

// Where an edit goes: the front of one body, with what is certainly visible there.
struct PlanPlace {
  PlanBlock* block = nullptr;
  std::string where;
  bool in_graph = false;
  std::vector<std::string> tensors;  // visible tensors (entries at the root, params in a graph)
  std::string in_entry;              // a visible entry In tensor ("" when none)
  std::string scalar;                // a visible scalar (a loop variable), "" when none
};
// The root body, each root-level for loop's body, then each graph body.
std::vector<PlanPlace> plan_places(OrchProgram& p);

// One edit in progress: what an entry reads (the choices, the valid plan, the place) and
// fills (the BrokenPlan, the statements put at the place's front, at_limit's statements).
struct PlanEdit {
  ChoiceSource& c;
  const OrchProgram& valid;
  BrokenPlan& b;
  PlanPlace& at;
  size_t expr_site = 0;  // where in_site puts an expression (drawn before the entry runs)
  PlanBlock front;       // put at the front of at's body
  PlanBlock legal;       // at_limit's edit at the same place; empty: no limit, or none inserted

  std::string tensor();  // draws one of at's visible tensors
  // The expression `e` where plans take one: a set, a loop bound, an if operand, a submit's
  // scalar argument, a window offset of `window_of` (the site drawn for this edit).
  PlanStmt in_site(PlanExpr e, const std::string& window_of) const;
  const char* site_name() const;
};

// Where a rule can be broken.
enum class PlanWhere : uint8_t { kAny, kRootOnly, kGraphOnly };

struct PlanRuleEntry {
  PlanRule rule;
  const char* name;       // plan_rule_name
  PlanWhere where;
  bool needs_tensor;      // a visible tensor at the place
  bool needs_entry_in;    // a visible entry In tensor at the place
  // Breaks the rule at e.at; false when the plan has no room for it (no graph to define twice).
  bool (*break_it)(PlanEdit& ed);
};

// Every rule of the family, in PlanRule's order.
std::span<const PlanRuleEntry> plan_rule_catalog();

// The statement builders the entries share.
PlanStmt stmt(PlanStmt::Node n);
PlanExpr lit(int64_t v);
PlanExpr name(std::string n);
PlanStmt set(std::string n, PlanExpr e);
PlanWindow whole(std::string n);
PlanStmt fill(PlanWindow w);  // a submit the check accepts whatever the tensor

// The entries, by file: names and scopes, limits, and what only an AST can hold.
bool break_undefined_tensor(PlanEdit& ed);
bool break_undefined_scalar(PlanEdit& ed);
bool break_tensor_as_scalar(PlanEdit& ed);
bool break_scalar_as_tensor(PlanEdit& ed);
bool break_bound_twice(PlanEdit& ed);
bool break_out_of_scope(PlanEdit& ed);
bool break_undefined_graph(PlanEdit& ed);
bool break_keyword_name(PlanEdit& ed);
bool break_graph_twice(PlanEdit& ed);
bool break_slot_in_root(PlanEdit& ed);
bool break_slot_range(PlanEdit& ed);
bool break_dim_zero(PlanEdit& ed);
bool break_rank_five(PlanEdit& ed);
bool break_entry_too_large(PlanEdit& ed);
bool break_sync_negative(PlanEdit& ed);
bool break_alloc_empty(PlanEdit& ed);
bool break_read_not_in(PlanEdit& ed);
bool break_read_rank(PlanEdit& ed);
bool break_window_rank(PlanEdit& ed);
bool break_window_negative(PlanEdit& ed);
bool break_nesting_deep(PlanEdit& ed);
bool break_expr_deep(PlanEdit& ed);
bool break_mutate_offset(PlanEdit& ed);
bool break_malformed_expr(PlanEdit& ed);
bool break_arg_unused_field(PlanEdit& ed);

}  // namespace stackcheck::gen::breakers
