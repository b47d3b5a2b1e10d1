// plan_productions and the production universe (productions.h).
#include "properties/gen/productions.h"

#include <fmt/format.h>

#include <type_traits>

#include "stack/runtime/host/runtime_config.h"

namespace stackcheck::gen {

namespace {

using namespace runtime;

constexpr const char* kStmtNames[] = {"scope_begin",  "scope_end", "fatal", "wait_tensor", "sync_start",
                                      "alloc",        "view",      "set",   "read",        "submit",
                                      "submit_graph", "for",       "if"};
constexpr const char* kContexts[] = {"top", "scope", "for", "if", "else", "graph"};
constexpr const char* kExprPlaces[] = {"set", "read-index", "for-bound", "if-operand", "scalar-arg", "window-offset"};
constexpr const char* kCalls[] = {"submit", "submit@graph", "submit_graph"};
constexpr PlanTag kTags[] = {PlanTag::Input,          PlanTag::Inout, PlanTag::Output,
                             PlanTag::OutputExisting, PlanTag::NoDep, PlanTag::Scalar};
constexpr PlanBinOp kOps[] = {PlanBinOp::Add, PlanBinOp::Sub, PlanBinOp::Mul, PlanBinOp::Div, PlanBinOp::Mod};
constexpr PlanCmp kCmps[] = {PlanCmp::Eq, PlanCmp::Ne, PlanCmp::Lt, PlanCmp::Le, PlanCmp::Gt, PlanCmp::Ge};
constexpr Builtin kBuiltins[] = {Builtin::Fill,  Builtin::Copy,   Builtin::Add,   Builtin::Acc,
                                 Builtin::Scale, Builtin::Matmul, Builtin::Rowsum};

const char* expr_kind(PlanExpr::Kind k) {
  switch (k) {
    case PlanExpr::Kind::Int: return "int";
    case PlanExpr::Kind::Name: return "name";
    case PlanExpr::Kind::Slot: return "slot";
    case PlanExpr::Kind::Binary: return "binary";
  }
  return "?";
}

class Walker {
 public:
  std::set<std::string> out;

  void program(const OrchProgram& p) {
    for (const ConfigEntry& c : p.config) out.insert("config:" + c.key);
    for (const EntryTensor& t : p.tensors) out.insert(t.inout ? "tensor:InOut" : "tensor:In");
    std::map<std::string, int> submitted;
    count_graph_submits(p.body, 1, submitted);
    for (const PlanGraph& g : p.graphs) {
      out.insert("graph:defined");
      if (submitted[g.name] > 1) out.insert("graph:resubmitted");
      if (submitted[g.name] == 0) out.insert("graph:never-submitted");
      int depth = 0;
      block(g.body, "graph", true, depth);
    }
    int depth = 0;
    block(p.body, "top", false, depth);
  }

 private:
  std::map<std::string, std::string> root_;  // view name -> the buffer it windows

  // A submit_graph inside a loop counts twice (it is replayed on every trip after the first).
  void count_graph_submits(const PlanBlock& b, int weight, std::map<std::string, int>& n) {
    for (const PlanStmt& s : b) {
      if (const auto* g = std::get_if<SubmitGraphStmt>(&s.node)) n[g->graph] += weight;
      if (const auto* f = std::get_if<ForStmt>(&s.node)) count_graph_submits(f->body, 2, n);
      if (const auto* i = std::get_if<IfStmt>(&s.node)) {
        count_graph_submits(i->then_body, weight, n);
        count_graph_submits(i->else_body, weight, n);
      }
    }
  }

  std::string root(const std::string& name) const {
    auto it = root_.find(name);
    return it == root_.end() ? name : it->second;
  }

  void expr(const PlanExpr& e, const char* place) {
    out.insert(fmt::format("expr:{}@{}", expr_kind(e.kind), place));
    if (e.kind != PlanExpr::Kind::Binary) return;
    out.insert(fmt::format("op:{}", binop_name(e.op)));
    for (const PlanExpr& a : e.args) {
      if (a.kind == PlanExpr::Kind::Binary) out.insert("expr:nested-binary");
      expr(a, place);
    }
  }

  void window(const PlanWindow& w) {
    if (w.ranges.empty()) {
      out.insert("window:whole");
      return;
    }
    out.insert(fmt::format("window:rank{}", w.ranges.size()));
    for (const PlanRange& r : w.ranges) expr(r.offset, "window-offset");
  }

  void call(const std::vector<PlanArg>& args, const char* kind) {
    std::set<std::string> seen;
    bool scalar_seen = false;
    for (const PlanArg& a : args) {
      out.insert(fmt::format("arg:{}@{}", tag_name(a.tag), kind));
      if (a.tag == PlanTag::Scalar) {
        scalar_seen = true;
        expr(a.scalar, "scalar-arg");
        continue;
      }
      if (scalar_seen) out.insert(fmt::format("arg:tensor-after-scalar@{}", kind));
      if (a.tag == PlanTag::Output) continue;
      window(a.window);
      if (!seen.insert(root(a.window.name)).second) out.insert(fmt::format("call:same-buffer-twice@{}", kind));
    }
  }

  void block(const PlanBlock& b, const char* ctx, bool in_graph, int& depth) {
    for (const PlanStmt& s : b) {
      const char* here = in_graph ? "graph" : depth > 0 && std::string(ctx) == "top" ? "scope" : ctx;
      out.insert(fmt::format("stmt:{}@{}", kStmtNames[s.node.index()], here));
      std::visit(
          [&](const auto& n) {
            using T = std::decay_t<decltype(n)>;
            if constexpr (std::is_same_v<T, ScopeBeginStmt>) {
              if (depth > 0) out.insert("scope:nested");
              ++depth;
            } else if constexpr (std::is_same_v<T, ScopeEndStmt>) {
              --depth;
            } else if constexpr (std::is_same_v<T, AllocStmt>) {
              if (n.buffers.size() > 1) out.insert("alloc:several-buffers");
              for (const PlanBuffer& buf : n.buffers) out.insert(fmt::format("alloc:rank{}", buf.shape.size()));
            } else if constexpr (std::is_same_v<T, ViewStmt>) {
              root_[n.name] = root(n.source.name);
              if (root_.count(n.source.name)) out.insert("view:of-a-view");
              window(n.source);
            } else if constexpr (std::is_same_v<T, SetStmt>) {
              expr(n.value, "set");
            } else if constexpr (std::is_same_v<T, ReadStmt>) {
              for (const PlanExpr& e : n.index) expr(e, "read-index");
            } else if constexpr (std::is_same_v<T, SubmitStmt>) {
              out.insert(fmt::format("builtin:{}@{}", builtin_name(n.builtin), in_graph ? "graph" : "host"));
              call(n.args, in_graph ? "submit@graph" : "submit");
            } else if constexpr (std::is_same_v<T, SubmitGraphStmt>) {
              call(n.args, "submit_graph");
            } else if constexpr (std::is_same_v<T, ForStmt>) {
              for (const PlanExpr* e : {&n.start, &n.stop, &n.step}) expr(*e, "for-bound");
              if (n.step.kind == PlanExpr::Kind::Int && n.step.value < 0) out.insert("for:negative-step");
              if (n.body.empty()) out.insert("for:empty-body");
              block(n.body, "for", in_graph, depth);
            } else if constexpr (std::is_same_v<T, IfStmt>) {
              expr(n.lhs, "if-operand");
              expr(n.rhs, "if-operand");
              out.insert(fmt::format("cmp:{}", cmp_name(n.cmp)));
              if (!n.else_body.empty()) out.insert("if:else");
              block(n.then_body, "if", in_graph, depth);
              block(n.else_body, "else", in_graph, depth);
            }
          },
          s.node);
    }
  }
};

}  // namespace

std::set<std::string> plan_productions(const OrchProgram& p) {
  Walker w;
  w.program(p);
  return std::move(w.out);
}

std::vector<Production> plan_production_universe() {
  std::vector<Production> u;
  auto add = [&](std::string n, std::string why = "") { u.push_back({std::move(n), std::move(why), {}}); };
  for (const char* s : kStmtNames)
    for (const char* c : kContexts) {
      const std::string n = fmt::format("stmt:{}@{}", s, c), st = s, ctx = c;
      std::string why;
      if (ctx == "graph" && st == "read") why = "a graph body sees only its params; read names an entry tensor (§17)";
      u.push_back({n, why, {}});
    }
  for (const char* k : kCalls)
    for (PlanTag t : kTags) add(fmt::format("arg:{}@{}", tag_name(t), k));
  for (const char* k : kCalls) add(fmt::format("arg:tensor-after-scalar@{}", k));
  for (const char* k : kCalls) add(fmt::format("call:same-buffer-twice@{}", k));
  for (Builtin b : kBuiltins)
    for (const char* where : {"host", "graph"}) add(fmt::format("builtin:{}@{}", builtin_name(b), where));
  for (const char* place : kExprPlaces)
    for (const char* kind : {"int", "name", "slot", "binary"}) {
      std::string why;
      if (std::string(kind) == "slot" && std::string(place) == "read-index") why = "reads stand outside graph bodies";
      add(fmt::format("expr:{}@{}", kind, place), why);
    }
  add("expr:nested-binary");
  for (PlanBinOp o : kOps) add(fmt::format("op:{}", binop_name(o)));
  for (PlanCmp c : kCmps) add(fmt::format("cmp:{}", cmp_name(c)));
  add("if:else");
  add("for:negative-step");
  add("for:empty-body");
  for (int r = 1; r <= 4; ++r) add(fmt::format("window:rank{}", r));
  add("window:whole");
  for (int r = 1; r <= 4; ++r) add(fmt::format("alloc:rank{}", r));
  add("alloc:several-buffers");
  add("view:of-a-view");
  add("scope:nested");
  add("tensor:In");
  add("tensor:InOut");
  add("graph:defined");
  add("graph:resubmitted");
  add("graph:never-submitted");
  for (std::string_view k : config_keys()) add(fmt::format("config:{}", k));
  return u;
}

std::string production_table(const std::vector<Production>& universe, const std::map<std::string, int>& counts,
                             int total) {
  std::string s = fmt::format("productions over {} inputs:\n", total);
  for (const Production& p : universe) {
    auto it = counts.find(p.name);
    const int n = it == counts.end() ? 0 : it->second;
    if (!p.gap.empty())
      s += fmt::format("  {:<40} {:>6}  GAP: {}\n", p.name, n == 0 ? "-" : std::to_string(n), p.gap);
    else if (!p.unreachable.empty())
      s += fmt::format("  {:<40} {:>6}  (cannot be: {})\n", p.name, n == 0 ? "-" : std::to_string(n), p.unreachable);
    else
      s += fmt::format("  {:<40} {:>5.1f}%{}\n", p.name, total ? 100.0 * n / total : 0.0, n == 0 ? "  <- never" : "");
  }
  return s;
}

std::vector<std::string> production_problems(const std::vector<Production>& universe,
                                             const std::map<std::string, int>& counts) {
  std::vector<std::string> out;
  std::set<std::string> known;
  for (const Production& p : universe) {
    known.insert(p.name);
    const bool used = counts.count(p.name) > 0;
    if (p.unreachable.empty() && p.gap.empty() && !used) out.push_back("never used: " + p.name);
    if (!p.unreachable.empty() && used) out.push_back("used, yet marked unreachable: " + p.name);
    if (!p.gap.empty() && used) out.push_back("used, take it off the known gaps: " + p.name);
  }
  for (const auto& [name, n] : counts)
    if (!known.count(name)) out.push_back(fmt::format("missing from the universe: {} ({} inputs)", name, n));
  return out;
}

}  // namespace stackcheck::gen
