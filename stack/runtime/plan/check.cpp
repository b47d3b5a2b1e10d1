// Static checks of orchestration programs (check.h). One walk in print order; the first
// error wins. Recursion is bounded by the nesting and expression-depth limits, which are
// checked before descending, so hand-built programs of any depth are rejected safely.
#include "stack/runtime/plan/check.h"

#include <fmt/format.h>
#include <array>
#include <memory_resource>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "stack/runtime/plan/config_ranges.h"
#include "stack/support/arena.h"

namespace stackcheck::runtime {
namespace {

constexpr std::array<std::string_view, 26> kKeywords = {
    "config", "tensor",          "In",         "InOut",  "graph", "scope_begin", "scope_end",
    "fatal",  "wait_tensor",     "sync_start", "alloc",  "view",  "set",         "read",
    "submit", "submit_graph",    "for",        "if",     "else",  "input",       "inout",
    "output", "output_existing", "no_dep",     "scalar", "mutate"};

struct NameInfo {
  bool tensor = false;
  bool root_entry_in = false;  // a tensor whose root is an entry In tensor (readable)
};

class Checker {
 public:
  Checker(const OrchProgram& p, const PlanLimits& lim) : p_(p), lim_(lim) {}

  std::optional<PlanError> run() {
    std::pmr::unordered_set<std::string_view> keys(arena_.resource());
    for (const ConfigEntry& c : p_.config) {
      if (!is_config_key(c.key)) return fail(c.loc, fmt::format("unknown config key '{}'", c.key)), err_;
      if (!keys.insert(c.key).second) return fail(c.loc, fmt::format("config key '{}' repeated", c.key)), err_;
      if (auto why = check_config_value(c.key, c.value)) return fail(c.loc, *why), err_;
    }
    // The root body: entry tensors first.
    for (const EntryTensor& t : p_.tensors) {
      if (!shape(t.shape, lim_.max_entry_elements, t.loc, "entry tensor")) return err_;
      if (!bind(t.name, NameInfo{true, !t.inout}, t.loc)) return err_;
    }
    auto root_bound = std::move(bound_);
    auto root_visible = std::move(visible_);
    std::pmr::unordered_set<std::string_view> graph_names(arena_.resource());
    for (const PlanGraph& g : p_.graphs) {
      if (!is_plan_name(g.name)) return fail(g.loc, fmt::format("bad graph name '{}'", g.name)), err_;
      if (!graph_names.insert(g.name).second) return fail(g.loc, fmt::format("graph '{}' defined twice", g.name)), err_;
    }
    graphs_ = &graph_names;
    // A graph is defined before its first use (§17): a graph body sees the graphs defined
    // before it and itself (a nested submission latches 5 at run time), the root body all.
    for (size_t i = 0; i < p_.graphs.size(); ++i) {
      const PlanGraph& g = p_.graphs[i];
      defined_ = i + 1;
      bound_.clear();
      visible_.clear();
      in_graph_ = true;
      for (const std::string& param : g.params)
        if (!bind(param, NameInfo{true, false}, g.loc)) return err_;
      if (!block(g.body, 1, g.loc)) return err_;
    }
    in_graph_ = false;
    defined_ = p_.graphs.size();
    bound_ = std::move(root_bound);
    visible_ = std::move(root_visible);
    if (!block(p_.body, 0, {})) return err_;
    for (const Mutation& m : p_.mutations)
      if (m.offset > static_cast<uint64_t>(INT64_MAX)) return fail(m.loc, "mutate offset exceeds 2^63-1"), err_;
    return err_;
  }

 private:
  bool fail(PlanLoc loc, std::string msg) {
    if (!err_) err_ = PlanError{loc.line, loc.column, std::move(msg)};
    return false;
  }

  bool bind(const std::string& name, NameInfo info, PlanLoc loc) {
    if (!is_plan_name(name)) return fail(loc, fmt::format("bad name '{}'", name));
    if (!bound_.insert(name).second) return fail(loc, fmt::format("name '{}' bound twice in one body", name));
    visible_[name] = info;
    if (!scopes_.empty()) scopes_.back().push_back(name);
    return true;
  }

  const NameInfo* lookup(const std::string& name) const {
    auto it = visible_.find(name);
    return it == visible_.end() ? nullptr : &it->second;
  }

  bool use_tensor(const std::string& name, PlanLoc loc) {
    const NameInfo* n = lookup(name);
    if (n == nullptr) return fail(loc, fmt::format("undefined name '{}'", name));
    if (!n->tensor) return fail(loc, fmt::format("'{}' is a scalar, not a tensor", name));
    return true;
  }

  bool shape(const std::vector<int64_t>& dims, uint64_t max_elems, PlanLoc loc, const char* what) {
    if (dims.empty() || dims.size() > lim_.max_rank)
      return fail(loc, fmt::format("{} rank {} is not in 1..{}", what, dims.size(), lim_.max_rank));
    uint64_t elems = 1;
    for (int64_t d : dims) {
      if (d < 1) return fail(loc, fmt::format("{} dimension {} is not >= 1", what, d));
      const uint64_t ud = static_cast<uint64_t>(d);
      elems = (elems > max_elems / ud) ? max_elems + 1 : elems * ud;
      if (elems > max_elems) return fail(loc, fmt::format("{} has more than {} elements", what, max_elems));
    }
    return true;
  }

  bool expr(const PlanExpr& e, unsigned depth, PlanLoc at) {
    const PlanLoc loc = e.loc.line != 0 ? e.loc : at;
    if (depth > lim_.max_expr_depth) return fail(loc, fmt::format("expression deeper than {}", lim_.max_expr_depth));
    const bool leaf = e.kind != PlanExpr::Kind::Binary;
    if (leaf != e.args.empty() || (!leaf && e.args.size() != 2)) return fail(loc, "malformed expression node");
    switch (e.kind) {
      case PlanExpr::Kind::Int:
        if (!e.name.empty()) return fail(loc, "malformed expression node");
        return true;
      case PlanExpr::Kind::Name: {
        const NameInfo* n = lookup(e.name);
        if (n == nullptr) return fail(loc, fmt::format("undefined name '{}'", e.name));
        if (n->tensor) return fail(loc, fmt::format("'{}' is a tensor, not a scalar", e.name));
        return e.value == 0 || fail(loc, "malformed expression node");
      }
      case PlanExpr::Kind::Slot:
        if (!in_graph_) return fail(loc, "'$' slot outside a graph body");
        if (e.value < 0 || e.value > lim_.max_slot)
          return fail(loc, fmt::format("slot ${} is not in $0..${}", e.value, lim_.max_slot));
        return e.name.empty() || fail(loc, "malformed expression node");
      case PlanExpr::Kind::Binary:
        if (e.value != 0 || !e.name.empty()) return fail(loc, "malformed expression node");
        return expr(e.args[0], depth + 1, loc) && expr(e.args[1], depth + 1, loc);
    }
    return fail(loc, "malformed expression node");
  }

  bool window(const PlanWindow& w, PlanLoc at) {
    const PlanLoc loc = w.loc.line != 0 ? w.loc : at;
    if (!use_tensor(w.name, loc)) return false;
    if (w.ranges.size() > lim_.max_rank)
      return fail(loc, fmt::format("window of rank {} exceeds {}", w.ranges.size(), lim_.max_rank));
    for (const PlanRange& r : w.ranges) {
      if (!expr(r.offset, 1, loc)) return false;
      if (r.size < 0) return fail(loc, "window size is negative");
    }
    return true;
  }

  // Checks the uses of one argument; outputs are bound by the caller after all uses.
  bool arg_uses(const PlanArg& a, PlanLoc at) {
    const PlanLoc loc = a.loc.line != 0 ? a.loc : at;
    const bool has_window = a.tag != PlanTag::Output && a.tag != PlanTag::Scalar;
    // Fields a tag does not use stay default, so the text form round-trips.
    if ((!has_window && !(a.window == PlanWindow{})) ||
        (a.tag != PlanTag::Output && (!a.out_name.empty() || !a.out_shape.empty())) ||
        (a.tag != PlanTag::Scalar && !(a.scalar == PlanExpr{})))
      return fail(loc, "argument has fields its tag does not use");
    if (has_window) return window(a.window, loc);
    if (a.tag == PlanTag::Scalar) return expr(a.scalar, 1, loc);
    return shape(a.out_shape, lim_.max_tensor_elements, loc, "output");
  }

  bool args(const std::vector<PlanArg>& as, PlanLoc loc) {
    for (const PlanArg& a : as)
      if (!arg_uses(a, loc)) return false;
    for (const PlanArg& a : as)
      if (a.tag == PlanTag::Output && !bind(a.out_name, NameInfo{true, false}, a.loc.line ? a.loc : loc)) return false;
    return true;
  }

  bool block(const PlanBlock& b, unsigned depth, PlanLoc at) {
    if (depth > lim_.max_nesting) return fail(at, fmt::format("blocks nested deeper than {}", lim_.max_nesting));
    scopes_.emplace_back();
    bool ok = true;
    for (const PlanStmt& s : b)
      if (!(ok = stmt(s, depth))) break;
    for (std::string_view n : scopes_.back()) visible_.erase(n);
    scopes_.pop_back();
    return ok;
  }

  bool stmt(const PlanStmt& s, unsigned depth) {
    const PlanLoc loc = s.loc;
    return std::visit(
        [&](const auto& n) -> bool {
          using T = std::decay_t<decltype(n)>;
          if constexpr (std::is_same_v<T, WaitTensorStmt>) {
            return use_tensor(n.tensor, loc);
          } else if constexpr (std::is_same_v<T, SyncStartStmt>) {
            return n.block_num >= 0 || fail(loc, "sync_start block count is negative");
          } else if constexpr (std::is_same_v<T, AllocStmt>) {
            if (n.buffers.empty()) return fail(loc, "alloc without buffers");
            for (const PlanBuffer& b : n.buffers)
              if (!shape(b.shape, lim_.max_tensor_elements, loc, "alloc") || !bind(b.name, NameInfo{true, false}, loc))
                return false;
            return true;
          } else if constexpr (std::is_same_v<T, ViewStmt>) {
            if (!window(n.source, loc)) return false;
            return bind(n.name, NameInfo{true, lookup(n.source.name)->root_entry_in}, loc);
          } else if constexpr (std::is_same_v<T, SetStmt>) {
            return expr(n.value, 1, loc) && bind(n.name, NameInfo{}, loc);
          } else if constexpr (std::is_same_v<T, ReadStmt>) {
            if (!use_tensor(n.tensor, loc)) return false;
            if (!lookup(n.tensor)->root_entry_in)
              return fail(loc, fmt::format("read of '{}', whose root is not an entry In tensor", n.tensor));
            if (n.index.empty() || n.index.size() > lim_.max_rank) return fail(loc, "read index rank is not in 1..4");
            for (const PlanExpr& e : n.index)
              if (!expr(e, 1, loc)) return false;
            return bind(n.name, NameInfo{}, loc);
          } else if constexpr (std::is_same_v<T, SubmitStmt>) {
            if (static_cast<unsigned>(n.builtin) > static_cast<unsigned>(Builtin::Rowsum))
              return fail(loc, "unknown builtin");
            return args(n.args, loc);
          } else if constexpr (std::is_same_v<T, SubmitGraphStmt>) {
            if (graphs_->count(n.graph) == 0) return fail(loc, fmt::format("undefined graph '{}'", n.graph));
            for (size_t i = defined_; i < p_.graphs.size(); ++i)
              if (p_.graphs[i].name == n.graph) return fail(loc, graph_used_before_definition(n.graph));
            return args(n.args, loc);
          } else if constexpr (std::is_same_v<T, ForStmt>) {
            if (!expr(n.start, 1, loc) || !expr(n.stop, 1, loc) || !expr(n.step, 1, loc)) return false;
            if (depth + 1 > lim_.max_nesting)
              return fail(loc, fmt::format("blocks nested deeper than {}", lim_.max_nesting));
            scopes_.emplace_back();
            const bool ok = bind(n.var, NameInfo{}, loc) && block(n.body, depth + 1, loc);
            for (std::string_view v : scopes_.back()) visible_.erase(v);
            scopes_.pop_back();
            return ok;
          } else if constexpr (std::is_same_v<T, IfStmt>) {
            return expr(n.lhs, 1, loc) && expr(n.rhs, 1, loc) && block(n.then_body, depth + 1, loc) &&
                   block(n.else_body, depth + 1, loc);
          } else {
            return true;  // scope_begin, scope_end, fatal
          }
        },
        s.node);
  }

  const OrchProgram& p_;
  const PlanLimits& lim_;
  std::optional<PlanError> err_;
  bool in_graph_ = false;
  // The name tables: views of the plan's strings (the plan outlives the check), in one arena
  // per check whose first 8 KiB are the checker's own.
  support::InlineArena<8192> arena_;
  const std::pmr::unordered_set<std::string_view>* graphs_ = nullptr;
  size_t defined_ = 0;  // p_.graphs[0, defined_) are defined where the walk is
  std::pmr::unordered_set<std::string_view> bound_{arena_.resource()};
  std::pmr::unordered_map<std::string_view, NameInfo> visible_{arena_.resource()};
  std::pmr::vector<std::pmr::vector<std::string_view>> scopes_{arena_.resource()};
};

}  // namespace

std::string PlanError::to_string() const { return fmt::format("{}:{}: {}", line, column, message); }

std::string graph_used_before_definition(std::string_view graph) {
  return fmt::format("graph '{}' used before its definition", graph);
}

bool is_plan_keyword(std::string_view word) {
  for (auto k : kKeywords)
    if (k == word) return true;
  return false;
}

bool is_plan_name(std::string_view w) {
  if (w.empty()) return false;
  auto alpha = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; };
  if (!alpha(w[0])) return false;
  for (char c : w)
    if (!alpha(c) && !(c >= '0' && c <= '9')) return false;
  return !is_plan_keyword(w);
}

std::optional<PlanError> validate_plan(const OrchProgram& p, const PlanLimits& limits) {
  return Checker(p, limits).run();
}

}  // namespace stackcheck::runtime
