// break_plan_rule (plan_breaker.h).
#include "properties/gen/plan_breaker.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <utility>
#include <vector>

#include "stack/support/enum_names.h"

namespace stackcheck::gen {

using namespace runtime;

const char* plan_rule_name(PlanRule r) {
  static constexpr auto kNames = support::names_through<PlanRule::kArgUnusedField>(
      {"undefined-tensor", "undefined-scalar", "tensor-as-scalar", "scalar-as-tensor", "bound-twice", "out-of-scope",
       "slot-in-root", "slot-range", "dim-zero", "rank-five", "entry-too-large", "undefined-graph", "sync-negative",
       "alloc-empty", "read-not-in", "read-rank", "window-rank", "window-negative", "keyword-name", "nesting-deep",
       "expr-deep", "graph-twice", "mutate-offset", "malformed-expr", "arg-unused-field"});
  return support::enum_name(kNames, r);
}

namespace {

PlanStmt stmt(PlanStmt::Node n) { return PlanStmt{std::move(n), {}}; }
PlanExpr lit(int64_t v) { return PlanExpr::integer(v); }
PlanExpr name(std::string n) { return PlanExpr::named(std::move(n)); }
PlanStmt set(std::string n, PlanExpr e) { return stmt(SetStmt{std::move(n), std::move(e)}); }
PlanWindow whole(std::string n) { return PlanWindow{std::move(n), {}, {}}; }
// A submit the check accepts whatever the tensor (tags and arity are the orchestrator's).
PlanStmt fill(PlanWindow w) {
  return stmt(SubmitStmt{Builtin::Fill,
                         {PlanArg::tensor(PlanTag::OutputExisting, std::move(w)), PlanArg::scalar_value(lit(1))}});
}

// Where the edit goes: the front of one body, with what is certainly visible there.
struct Place {
  PlanBlock* block = nullptr;
  std::string where;
  bool in_graph = false;
  std::vector<std::string> tensors;  // visible tensors (entries at the root, params in a graph)
  std::string in_entry;              // a visible entry In tensor ("" when none)
  std::string scalar;                // a visible scalar (a loop variable), "" when none
};

std::vector<Place> places(OrchProgram& p) {
  std::vector<Place> out;
  Place root{&p.body, "root body", false, {}, {}, {}};
  for (const EntryTensor& t : p.tensors) {
    root.tensors.push_back(t.name);
    if (!t.inout && root.in_entry.empty()) root.in_entry = t.name;
  }
  for (PlanStmt& s : p.body)
    if (auto* f = std::get_if<ForStmt>(&s.node)) {
      Place loop = root;
      loop.block = &f->body;
      loop.where = fmt::format("for {} body", f->var);
      loop.scalar = f->var;
      out.push_back(std::move(loop));
    }
  out.insert(out.begin(), std::move(root));
  for (PlanGraph& g : p.graphs) out.push_back(Place{&g.body, fmt::format("graph {} body", g.name), true, g.params, {}, {}});
  return out;
}

}  // namespace

std::optional<BrokenPlan> break_plan_rule(ChoiceSource& c, const OrchProgram& valid, std::optional<PlanRule> rule) {
  BrokenPlan b;
  b.plan = valid;
  if (rule && *rule >= PlanRule::kCount) return std::nullopt;
  b.rule = rule ? *rule : static_cast<PlanRule>(c.one_of(static_cast<size_t>(PlanRule::kCount)));
  std::vector<Place> ps = places(b.plan);
  // Rules that need a graph body, or the root, choose among those places.
  std::vector<Place*> fit;
  for (Place& p : ps) {
    const bool root_only = b.rule == PlanRule::kSlotInRoot || b.rule == PlanRule::kEntryTooLarge ||
                           b.rule == PlanRule::kSyncNegative || b.rule == PlanRule::kReadNotIn ||
                           b.rule == PlanRule::kReadRank;
    if (b.rule == PlanRule::kSlotRange ? !p.in_graph : root_only && p.in_graph) continue;
    if ((b.rule == PlanRule::kReadRank) && p.in_entry.empty()) continue;
    if ((b.rule == PlanRule::kTensorAsScalar || b.rule == PlanRule::kWindowRank || b.rule == PlanRule::kArgUnusedField ||
         b.rule == PlanRule::kWindowNegative || b.rule == PlanRule::kUndefinedGraph) &&
        p.tensors.empty())
      continue;
    fit.push_back(&p);
  }
  if (fit.empty()) return std::nullopt;
  Place& at = *fit[c.one_of(fit.size())];
  const auto at_index = static_cast<size_t>(&at - ps.data());
  b.where = at.where;
  PlanBlock front;
  PlanBlock legal;  // at_limit's edit at the same place; empty: no limit, or none inserted
  // An expression put where plans take one: a set, a window offset, a loop bound, an if
  // operand, a submit's scalar argument.
  const size_t expr_site = c.one_of(at.tensors.empty() ? 4 : 5);
  auto in_site = [&](PlanExpr e, std::string window_of) {
    switch (expr_site) {
      case 1: return stmt(ForStmt{"zz_i", lit(0), std::move(e), lit(1), {}});
      case 2: return stmt(IfStmt{std::move(e), PlanCmp::Eq, lit(0), {}, {}});
      case 3: return stmt(SubmitStmt{Builtin::Fill, {PlanArg::tensor(PlanTag::OutputExisting, whole(window_of)),
                                                    PlanArg::scalar_value(std::move(e))}});
      case 4: {
        PlanWindow w = whole(window_of);
        w.ranges.push_back(PlanRange{std::move(e), 1});
        return fill(std::move(w));
      }
      default: return set("zz_s", std::move(e));
    }
  };
  const char* const kSiteNames[] = {"a set", "a loop bound", "an if operand", "a submit scalar", "a window offset"};
  auto tensor = [&] { return at.tensors[c.one_of(at.tensors.size())]; };
  switch (b.rule) {
    case PlanRule::kUndefinedTensor:
      front.push_back(fill(whole("zz_undefined")));
      b.expected = "undefined name 'zz_undefined'";
      break;
    case PlanRule::kUndefinedScalar:
      front.push_back(set("zz_s", PlanExpr::binary(PlanBinOp::Add, name("zz_undefined"), lit(1))));
      b.expected = "undefined name 'zz_undefined'";
      break;
    case PlanRule::kTensorAsScalar: {
      const std::string t = tensor();
      front.push_back(set("zz_s", PlanExpr::binary(PlanBinOp::Add, name(t), lit(1))));
      b.expected = fmt::format("'{}' is a tensor, not a scalar", t);
      break;
    }
    case PlanRule::kScalarAsTensor: {
      std::string s = at.scalar;
      if (s.empty() || c.boolean()) {
        s = "zz_s";
        front.push_back(set(s, lit(c.integer(0, 3))));
      }
      front.push_back(fill(whole(s)));
      b.expected = fmt::format("'{}' is a scalar, not a tensor", s);
      break;
    }
    case PlanRule::kBoundTwice: {
      std::string n;
      if (!at.tensors.empty() && c.boolean()) {
        n = tensor();  // an entry (or param) bound again in its own body
      } else {
        n = "zz_s";
        front.push_back(set(n, lit(0)));
      }
      front.push_back(set(n, lit(1)));
      b.expected = fmt::format("name '{}' bound twice in one body", n);
      break;
    }
    case PlanRule::kOutOfScope: {
      front.push_back(stmt(ForStmt{"zz_i", lit(0), lit(c.integer(1, 3)), lit(1), {}}));
      front.push_back(set("zz_s", name("zz_i")));
      b.expected = "undefined name 'zz_i'";
      break;
    }
    case PlanRule::kSlotInRoot:
      front.push_back(set("zz_s", PlanExpr::slot(c.integer(0, 63))));
      b.expected = "'$' slot outside a graph body";
      break;
    case PlanRule::kSlotRange: {
      const int64_t k = c.chance(50) ? 64 : c.integer(65, 1000);
      front.push_back(set("zz_s", PlanExpr::slot(k)));
      b.expected = fmt::format("slot ${} is not in $0..$63", k);
      const int64_t ok = c.near_edges(0, 63);
      legal.push_back(set("zz_s", PlanExpr::slot(ok)));
      b.limit = fmt::format("slot ${}", ok);
      break;
    }
    case PlanRule::kDimZero: {
      const int64_t d = c.chance(50) ? 0 : -c.integer(1, 4);
      std::vector<int64_t> shape{c.integer(1, 4)};
      shape.insert(shape.begin() + static_cast<std::ptrdiff_t>(c.one_of(2)), d);
      std::vector<int64_t> ok = shape;
      std::replace(ok.begin(), ok.end(), d, int64_t{1});
      legal.push_back(stmt(AllocStmt{{PlanBuffer{"zz_b", ok}}}));
      b.limit = "an alloc dimension of 1";
      if (c.boolean()) {
        front.push_back(stmt(AllocStmt{{PlanBuffer{"zz_b", shape}}}));
        b.expected = fmt::format("alloc dimension {} is not >= 1", d);
      } else {
        front.push_back(
            stmt(SubmitStmt{Builtin::Fill, {PlanArg::output("zz_o", shape), PlanArg::scalar_value(lit(1))}}));
        b.expected = fmt::format("output dimension {} is not >= 1", d);
      }
      break;
    }
    case PlanRule::kRankFive: {
      const size_t rank = c.chance(60) ? 5 : 6 + c.one_of(3);
      front.push_back(stmt(AllocStmt{{PlanBuffer{"zz_b", std::vector<int64_t>(rank, 1)}}}));
      b.expected = fmt::format("alloc rank {} is not in 1..4", rank);
      legal.push_back(stmt(AllocStmt{{PlanBuffer{"zz_b", std::vector<int64_t>(c.chance(70) ? 4 : 1, 1)}}}));
      b.limit = "an alloc of rank 4 or 1";
      break;
    }
    case PlanRule::kEntryTooLarge: {
      // exactly one past the limit, or a 2-D shape whose product passes it
      const std::vector<int64_t> shape =
          c.chance(50) ? std::vector<int64_t>{(1 << 20) + 1} : std::vector<int64_t>{1025, 1024};
      b.plan.tensors.push_back(EntryTensor{"zz_e", c.boolean(), shape, {}});
      b.expected = fmt::format("entry tensor has more than {} elements", 1 << 20);
      b.at_limit = valid;
      b.at_limit->tensors.push_back(EntryTensor{"zz_e", c.boolean(),
                                                c.boolean() ? std::vector<int64_t>{1 << 20} : std::vector<int64_t>{1024, 1024},
                                                {}});
      b.limit = fmt::format("an entry tensor of exactly {} elements", 1 << 20);
      break;
    }
    case PlanRule::kUndefinedGraph:
      front.push_back(
          stmt(SubmitGraphStmt{"zz_nograph", {PlanArg::tensor(PlanTag::Input, whole(tensor()))}}));
      b.expected = "undefined graph 'zz_nograph'";
      break;
    case PlanRule::kSyncNegative: {
      const int64_t n = -c.integer(1, 3);
      front.push_back(stmt(SyncStartStmt{n}));
      b.expected = "sync_start block count is negative";
      legal.push_back(stmt(SyncStartStmt{0}));
      b.limit = "sync_start 0";
      break;
    }
    case PlanRule::kAllocEmpty:
      front.push_back(stmt(AllocStmt{}));
      b.expected = "alloc without buffers";
      break;
    case PlanRule::kReadNotIn: {
      std::string t;
      for (const EntryTensor& e : b.plan.tensors)
        if (e.inout) t = e.name;
      if (t.empty() || c.boolean()) {
        t = "zz_b";
        front.push_back(stmt(AllocStmt{{PlanBuffer{t, {4}}}}));
      }
      front.push_back(stmt(ReadStmt{"zz_s", t, {lit(0)}}));
      b.expected = fmt::format("read of '{}', whose root is not an entry In tensor", t);
      break;
    }
    case PlanRule::kReadRank: {
      std::vector<PlanExpr> index(c.boolean() ? 0 : 5 + c.one_of(2), lit(0));
      front.push_back(stmt(ReadStmt{"zz_s", at.in_entry, std::move(index)}));
      b.expected = "read index rank is not in 1..4";
      break;
    }
    case PlanRule::kWindowRank: {
      const size_t rank = 5 + c.one_of(2);
      PlanWindow w = whole(tensor());
      PlanWindow ok = w;
      for (size_t i = 0; i < rank; ++i) w.ranges.push_back(PlanRange{lit(0), 1});
      for (size_t i = 0; i < 4; ++i) ok.ranges.push_back(PlanRange{lit(0), 1});
      front.push_back(fill(std::move(w)));
      b.expected = fmt::format("window of rank {} exceeds 4", rank);
      legal.push_back(fill(std::move(ok)));
      b.limit = "a window of rank 4";
      break;
    }
    case PlanRule::kWindowNegative: {
      PlanWindow w = whole(tensor());
      PlanWindow ok = w;
      w.ranges.push_back(PlanRange{lit(0), -c.integer(1, 4)});
      ok.ranges.push_back(PlanRange{lit(0), 0});
      front.push_back(fill(std::move(w)));
      b.expected = "window size is negative";
      legal.push_back(fill(std::move(ok)));
      b.limit = "a window of size 0";
      break;
    }
    case PlanRule::kKeywordName: {
      // A keyword, or a word outside [A-Za-z_][A-Za-z0-9_]* (a built AST can hold any string);
      // at the limit: words made of the ends of each character class.
      static const std::vector<std::string> kw = {"for", "if", "set", "read", "submit", "alloc", "view", "graph"};
      static const std::vector<std::string> bad = {"9zz", "0", "zz-x", "z.z", "$z", "zz@", "`z", "z{", "[z", "z~"};
      const std::string k = c.boolean() ? c.pick(kw) : c.pick(bad);
      front.push_back(set(k, lit(1)));
      b.expected = fmt::format("bad name '{}'", k);
      static const std::vector<std::string> first = {"A", "Z", "a", "z", "_"};
      static const std::vector<std::string> rest = {"A", "Z", "a", "z", "_", "0", "9"};
      const std::string ok = c.pick(first) + "q_" + c.pick(rest);
      legal.push_back(set(ok, lit(1)));
      b.limit = fmt::format("the name '{}' (the ends of each character class)", ok);
      break;
    }
    case PlanRule::kNestingDeep: {
      // Blocks nest from depth 0 (the root body) or 1 (a graph body); 256 is the deepest allowed.
      const auto nest = [&](int depth) {
        PlanBlock inner{set("zz_s", lit(1))};
        for (int i = 0; i < depth; ++i) {
          PlanBlock outer;
          if (c.boolean())
            outer.push_back(stmt(IfStmt{lit(0), PlanCmp::Eq, lit(0), std::move(inner), {}}));
          else
            outer.push_back(stmt(ForStmt{fmt::format("zz_n{}", i), lit(0), lit(1), lit(1), std::move(inner)}));
          inner = std::move(outer);
        }
        return inner;
      };
      const int most = 256 - (at.in_graph ? 1 : 0) - (at.where.rfind("for ", 0) == 0 ? 1 : 0);
      front = nest(most + 1 + static_cast<int>(c.near_edges(0, 3)));
      b.expected = "blocks nested deeper than 256";
      legal = nest(most);
      b.limit = fmt::format("blocks nested {} deep", most);
      break;
    }
    case PlanRule::kExprDeep: {
      // A left chain of n binaries puts its deepest leaf at depth n + 1: 1023 is the most.
      const auto chain = [&](int n) {
        PlanExpr e = lit(0);
        for (int i = 0; i < n; ++i) e = PlanExpr::binary(c.boolean() ? PlanBinOp::Add : PlanBinOp::Sub, std::move(e), lit(0));
        return e;
      };
      const std::string t = at.tensors.empty() ? "" : tensor();
      front.push_back(in_site(chain(1024 + static_cast<int>(c.near_edges(0, 8))), t));
      b.expected = "expression deeper than 1024";
      legal.push_back(in_site(chain(1023), t));
      b.limit = fmt::format("an expression 1024 deep in {}", kSiteNames[expr_site]);
      break;
    }
    case PlanRule::kGraphTwice: {
      if (b.plan.graphs.empty()) return std::nullopt;
      const PlanGraph g = b.plan.graphs[c.one_of(b.plan.graphs.size())];
      b.plan.graphs.push_back(g);
      b.where = "graphs";
      b.expected = fmt::format("graph '{}' defined twice", g.name);
      break;
    }
    case PlanRule::kMutateOffset: {
      const uint64_t off = (uint64_t{1} << 63) + static_cast<uint64_t>(c.integer(0, 1000));
      b.plan.mutations.push_back(Mutation{c.boolean() ? MutationTarget::kImage : MutationTarget::kRuntimeHeader, off,
                                          static_cast<uint8_t>(c.integer(0, 255)), {}});
      b.where = "mutations";
      b.expected = "mutate offset exceeds 2^63-1";
      break;
    }
    case PlanRule::kMalformedExpr: {
      // In any expression site, a node of a shape the parser never builds.
      PlanExpr e = lit(c.integer(0, 9));
      switch (c.one_of(7)) {
        case 1:  // a name that also holds a value
          front.push_back(set("zz_v", lit(0)));
          e = name("zz_v");
          e.value = c.integer(1, 9);
          break;
        case 2:  // a binary that also holds a value or a name
          e = PlanExpr::binary(PlanBinOp::Add, lit(1), lit(2));
          if (c.boolean())
            e.value = c.integer(1, 9);
          else
            e.name = "zz";
          break;
        case 3:  // a binary with one operand
          e = PlanExpr::binary(PlanBinOp::Mul, lit(1), lit(2));
          e.args.pop_back();
          break;
        case 4:  // a binary with three operands
          e = PlanExpr::binary(PlanBinOp::Sub, lit(1), lit(2));
          e.args.push_back(lit(3));
          break;
        case 5:  // a leaf with operands
          e.args.push_back(lit(1));
          e.args.push_back(lit(2));
          break;
        case 6:  // a slot with a name (in a graph body; a literal with a name elsewhere)
          if (at.in_graph) e = PlanExpr::slot(c.integer(0, 63));
          e.name = "zz";
          break;
        default:  // a literal with a name
          e.name = "zz";
      }
      // Nested one level down half the time: the check looks into every operand.
      if (c.boolean()) e = PlanExpr::binary(PlanBinOp::Add, lit(0), std::move(e));
      front.push_back(in_site(std::move(e), at.tensors.empty() ? "" : tensor()));
      b.expected = "malformed expression node";
      b.text_form = false;
      break;
    }
    case PlanRule::kArgUnusedField: {
      // A fill whose tensor argument also holds a scalar or an output's name or shape, or whose
      // scalar argument also holds a window or an output's name.
      const std::string t = tensor();
      PlanArg ten = PlanArg::tensor(PlanTag::OutputExisting, whole(t));
      PlanArg sc = PlanArg::scalar_value(lit(1));
      switch (c.one_of(5)) {
        case 1: ten.out_name = "zz_o"; break;
        case 2: ten.out_shape = {4}; break;
        case 3: sc.window = whole(t); break;
        case 4: sc.out_name = "zz_o"; break;
        default: ten.scalar = lit(c.integer(1, 9));
      }
      front.push_back(stmt(SubmitStmt{Builtin::Fill, {std::move(ten), std::move(sc)}}));
      b.expected = "argument has fields its tag does not use";
      b.text_form = false;
      break;
    }
    case PlanRule::kCount: return std::nullopt;
  }
  // (graph-twice and mutate-offset insert nothing; graph-twice's push_back may have moved the
  // graph bodies `at` points into)
  if (!front.empty())
    at.block->insert(at.block->begin(), std::make_move_iterator(front.begin()), std::make_move_iterator(front.end()));
  if (!legal.empty()) {
    b.at_limit = valid;
    PlanBlock& into = *places(*b.at_limit)[at_index].block;
    into.insert(into.begin(), std::make_move_iterator(legal.begin()), std::make_move_iterator(legal.end()));
  }
  return b;
}

}  // namespace stackcheck::gen
