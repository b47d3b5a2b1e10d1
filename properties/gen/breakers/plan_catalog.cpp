// The `.plan` rule family's catalog, its shared statement builders, and break_plan_rule
// (plan_breaker.h), which draws a rule, a place and an expression site and runs the rule's
// entry (plan_edit.h).
#include <fmt/format.h>

#include <array>
#include <iterator>
#include <utility>

#include "properties/gen/breakers/plan_edit.h"

namespace stackcheck::gen {
namespace breakers {

using namespace runtime;

PlanStmt stmt(PlanStmt::Node n) { return PlanStmt{std::move(n), {}}; }
PlanExpr lit(int64_t v) { return PlanExpr::integer(v); }
PlanExpr name(std::string n) { return PlanExpr::named(std::move(n)); }
PlanStmt set(std::string n, PlanExpr e) { return stmt(SetStmt{std::move(n), std::move(e)}); }
PlanWindow whole(std::string n) { return PlanWindow{std::move(n), {}, {}}; }
PlanStmt fill(PlanWindow w) {
  return stmt(SubmitStmt{Builtin::Fill,
                         {PlanArg::tensor(PlanTag::OutputExisting, std::move(w)), PlanArg::scalar_value(lit(1))}});
}

std::vector<PlanPlace> plan_places(OrchProgram& p) {
  std::vector<PlanPlace> out;
  PlanPlace root{&p.body, "root body", false, {}, {}, {}};
  for (const EntryTensor& t : p.tensors) {
    root.tensors.push_back(t.name);
    if (!t.inout && root.in_entry.empty()) root.in_entry = t.name;
  }
  for (PlanStmt& s : p.body)
    if (auto* f = std::get_if<ForStmt>(&s.node)) {
      PlanPlace loop = root;
      loop.block = &f->body;
      loop.where = fmt::format("for {} body", f->var);
      loop.scalar = f->var;
      out.push_back(std::move(loop));
    }
  out.insert(out.begin(), std::move(root));
  for (PlanGraph& g : p.graphs)
    out.push_back(PlanPlace{&g.body, fmt::format("graph {} body", g.name), true, g.params, {}, {}});
  return out;
}

std::string PlanEdit::tensor() { return at.tensors[c.one_of(at.tensors.size())]; }

PlanStmt PlanEdit::in_site(PlanExpr e, const std::string& window_of) const {
  switch (expr_site) {
    case 1: return stmt(ForStmt{"zz_i", lit(0), std::move(e), lit(1), {}});
    case 2: return stmt(IfStmt{std::move(e), PlanCmp::Eq, lit(0), {}, {}});
    case 3:
      return stmt(SubmitStmt{Builtin::Fill, {PlanArg::tensor(PlanTag::OutputExisting, whole(window_of)),
                                             PlanArg::scalar_value(std::move(e))}});
    case 4: {
      PlanWindow w = whole(window_of);
      w.ranges.push_back(PlanRange{std::move(e), 1});
      return fill(std::move(w));
    }
    default: return set("zz_s", std::move(e));
  }
}

const char* PlanEdit::site_name() const {
  static constexpr const char* kSiteNames[] = {"a set", "a loop bound", "an if operand", "a submit scalar",
                                               "a window offset"};
  return kSiteNames[expr_site];
}

namespace {

using W = PlanWhere;
constexpr std::array<PlanRuleEntry, static_cast<size_t>(PlanRule::kCount)> kCatalog = {{
    {PlanRule::kUndefinedTensor, "undefined-tensor", W::kAny, false, false, break_undefined_tensor},
    {PlanRule::kUndefinedScalar, "undefined-scalar", W::kAny, false, false, break_undefined_scalar},
    {PlanRule::kTensorAsScalar, "tensor-as-scalar", W::kAny, true, false, break_tensor_as_scalar},
    {PlanRule::kScalarAsTensor, "scalar-as-tensor", W::kAny, false, false, break_scalar_as_tensor},
    {PlanRule::kBoundTwice, "bound-twice", W::kAny, false, false, break_bound_twice},
    {PlanRule::kOutOfScope, "out-of-scope", W::kAny, false, false, break_out_of_scope},
    {PlanRule::kSlotInRoot, "slot-in-root", W::kRootOnly, false, false, break_slot_in_root},
    {PlanRule::kSlotRange, "slot-range", W::kGraphOnly, false, false, break_slot_range},
    {PlanRule::kDimZero, "dim-zero", W::kAny, false, false, break_dim_zero},
    {PlanRule::kRankFive, "rank-five", W::kAny, false, false, break_rank_five},
    {PlanRule::kEntryTooLarge, "entry-too-large", W::kRootOnly, false, false, break_entry_too_large},
    {PlanRule::kUndefinedGraph, "undefined-graph", W::kAny, true, false, break_undefined_graph},
    {PlanRule::kSyncNegative, "sync-negative", W::kRootOnly, false, false, break_sync_negative},
    {PlanRule::kAllocEmpty, "alloc-empty", W::kAny, false, false, break_alloc_empty},
    {PlanRule::kReadNotIn, "read-not-in", W::kRootOnly, false, false, break_read_not_in},
    {PlanRule::kReadRank, "read-rank", W::kRootOnly, false, true, break_read_rank},
    {PlanRule::kWindowRank, "window-rank", W::kAny, true, false, break_window_rank},
    {PlanRule::kWindowNegative, "window-negative", W::kAny, true, false, break_window_negative},
    {PlanRule::kKeywordName, "keyword-name", W::kAny, false, false, break_keyword_name},
    {PlanRule::kNestingDeep, "nesting-deep", W::kAny, false, false, break_nesting_deep},
    {PlanRule::kExprDeep, "expr-deep", W::kAny, false, false, break_expr_deep},
    {PlanRule::kGraphTwice, "graph-twice", W::kAny, false, false, break_graph_twice},
    {PlanRule::kMutateOffset, "mutate-offset", W::kAny, false, false, break_mutate_offset},
    {PlanRule::kMalformedExpr, "malformed-expr", W::kAny, false, false, break_malformed_expr},
    {PlanRule::kArgUnusedField, "arg-unused-field", W::kAny, true, false, break_arg_unused_field},
}};

constexpr bool in_rule_order() {
  for (size_t i = 0; i < kCatalog.size(); ++i)
    if (kCatalog[i].rule != static_cast<PlanRule>(i)) return false;
  return true;
}
static_assert(in_rule_order(), "kCatalog lists the rules in PlanRule's order");

bool fits(const PlanRuleEntry& r, const PlanPlace& p) {
  if (r.where == PlanWhere::kGraphOnly && !p.in_graph) return false;
  if (r.where == PlanWhere::kRootOnly && p.in_graph) return false;
  if (r.needs_entry_in && p.in_entry.empty()) return false;
  return !(r.needs_tensor && p.tensors.empty());
}

}  // namespace

std::span<const PlanRuleEntry> plan_rule_catalog() { return kCatalog; }

}  // namespace breakers

const char* plan_rule_name(PlanRule r) {
  const auto i = static_cast<size_t>(r);
  return i < breakers::kCatalog.size() ? breakers::kCatalog[i].name : "?";
}

std::optional<BrokenPlan> break_plan_rule(ChoiceSource& c, const runtime::OrchProgram& valid,
                                          std::optional<PlanRule> rule) {
  using breakers::PlanPlace;
  BrokenPlan b;
  b.plan = valid;
  if (rule && *rule >= PlanRule::kCount) return std::nullopt;
  b.rule = rule ? *rule : static_cast<PlanRule>(c.one_of(static_cast<size_t>(PlanRule::kCount)));
  const breakers::PlanRuleEntry& entry = breakers::kCatalog[static_cast<size_t>(b.rule)];
  std::vector<PlanPlace> ps = breakers::plan_places(b.plan);
  std::vector<PlanPlace*> fit;
  for (PlanPlace& p : ps)
    if (breakers::fits(entry, p)) fit.push_back(&p);
  if (fit.empty()) return std::nullopt;
  PlanPlace& at = *fit[c.one_of(fit.size())];
  const auto at_index = static_cast<size_t>(&at - ps.data());
  b.where = at.where;
  breakers::PlanEdit e{c, valid, b, at, c.one_of(at.tensors.empty() ? 4 : 5), {}, {}};
  if (!entry.break_it(e)) return std::nullopt;
  // (graph-twice and mutate-offset insert nothing; graph-twice's push_back may have moved the
  // graph bodies `at` points into)
  if (!e.front.empty())
    at.block->insert(at.block->begin(), std::make_move_iterator(e.front.begin()), std::make_move_iterator(e.front.end()));
  if (!e.legal.empty()) {
    b.at_limit = valid;
    runtime::PlanBlock& into = *breakers::plan_places(*b.at_limit)[at_index].block;
    into.insert(into.begin(), std::make_move_iterator(e.legal.begin()), std::make_move_iterator(e.legal.end()));
  }
  return b;
}

}  // namespace stackcheck::gen
