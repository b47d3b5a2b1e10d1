// Runtime capacities at a plan's need and one past it (capacity.h).
#include "properties/oracles/capacity.h"

#include <fmt/format.h>

#include <array>
#include <bit>

#include "properties/oracles/bind_checks.h"
#include "properties/oracles/status_codes.h"
#include "stack/runtime/plan/printer.h"
#include "stack/runtime/status/codes.h"

namespace stackcheck::oracles {
namespace {

using runtime::BindResult;
using runtime::OrchProgram;

// The keys, codes and least legal values are read from RUNTIME.md §4 and §13 (not from the
// runtime's tables); `hi` bounds the search well above what a generated plan needs.
constexpr std::array<CapacityKey, 5> kKeys = {{
    {"W", 3, 4, 1 << 14},
    {"scope_tasks_capacity", 10, 1, 1 << 14},
    {"tensormap_capacity", 11, 1, 1 << 16},
    {"task_heap", 2, 1024, int64_t{1} << 28},
    {"graph_heap", 2, 64, int64_t{1} << 26},
}};

std::string fresh_name(const std::string& text, const std::string& base) {
  for (int i = 0;; ++i) {
    std::string n = i == 0 ? base : fmt::format("{}{}", base, i);
    if (text.find(n) == std::string::npos) return n;
  }
}

runtime::PlanStmt stmt(runtime::PlanStmt::Node n) {
  runtime::PlanStmt s;
  s.node = std::move(n);
  return s;
}

std::string outcome(const BindResult& r) {
  return r.status == 0 ? "status 0" : fmt::format("{} ({})", runtime::status_line(r), r.detail);
}

bool latched_code(const BindResult& r, int code) {
  return r.failure == runtime::BindFailure::kLatched && latch_code(r.status) == code;
}

}  // namespace

std::span<const CapacityKey> capacity_keys() { return kKeys; }

OrchProgram pad_with_tasks(OrchProgram p, uint64_t k) {
  if (k == 0) return p;
  const std::string text = runtime::print_plan(p);
  const std::string buf = fresh_name(text, "limit_pad"), var = fresh_name(text, "limit_i");
  runtime::AllocStmt a;
  a.buffers.push_back(runtime::PlanBuffer{buf, {1}});
  p.body.push_back(stmt(std::move(a)));
  if (k > 1) {
    runtime::ForStmt f;
    f.var = var;
    f.start = runtime::PlanExpr::integer(0);
    f.stop = runtime::PlanExpr::integer(static_cast<int64_t>(k - 1));
    f.step = runtime::PlanExpr::integer(1);
    runtime::SubmitStmt s;
    s.builtin = runtime::Builtin::Fill;
    s.args = {runtime::PlanArg::tensor(runtime::PlanTag::OutputExisting, runtime::PlanWindow{buf, {}, {}}),
              runtime::PlanArg::scalar_value(runtime::PlanExpr::named(var))};
    f.body.push_back(stmt(std::move(s)));
    p.body.push_back(stmt(std::move(f)));
  }
  return p;
}

OrchProgram with_config(OrchProgram p, const std::string& key, int64_t v) {
  for (runtime::ConfigEntry& e : p.config)
    if (e.key == key) {
      e.value = v;
      return p;
    }
  p.config.push_back(runtime::ConfigEntry{key, v, {}});
  return p;
}

std::optional<int64_t> least_binding(const OrchProgram& p, const std::string& key, int64_t lo, int64_t hi,
                                     const PlanBinder& bind) {
  const auto binds = [&](int64_t v) { return bind(with_config(p, key, v)).status == 0; };
  int64_t top = lo;  // gallop: lo, 2 lo, 4 lo, ... up to hi
  while (!binds(top)) {
    if (top >= hi) return std::nullopt;
    lo = top + 1;
    top = std::min(std::max<int64_t>(top, 1) * 2, hi);
  }
  while (lo < top) {
    const int64_t mid = lo + (top - lo) / 2;
    if (binds(mid))
      top = mid;
    else
      lo = mid + 1;
  }
  return lo;
}

// long: the two judges (at the need, one past it) are lambdas over the roomy bind and the finding, used by both
// searches: W's (padded to a power of two) and the other keys' (the least value that binds)
Verdict check_capacity_at_need(const OrchProgram& plan, const CapacityKey& k, uint64_t tasks, const PlanBinder& bind,
                               CapacityFinding* finding) {
  CapacityFinding local;
  CapacityFinding& f = finding ? *finding : local;
  const std::string key = k.key;
  OrchProgram p = plan;
  BindResult roomy = bind(p);
  if (roomy.status != 0) return bind_status_verdict(roomy);
  // A task heap need below 1 KiB cannot be met exactly: a 2 KiB buffer allocated at the end
  // raises it (the root scope holds it until the end, so it adds to the high-water mark).
  bool raised = false;
  if (key == "task_heap" && roomy.stats.task_heap_high_water < static_cast<uint64_t>(k.lo)) {
    runtime::AllocStmt a;
    a.buffers.push_back(runtime::PlanBuffer{fresh_name(runtime::print_plan(p), "limit_heap"), {512}});
    p.body.push_back(stmt(std::move(a)));
    roomy = bind(p);
    if (roomy.status != 0) return bind_status_verdict(roomy);
    raised = true;
  }
  // At the need: status 0 and the entries of the roomy bind (a capacity changes no result).
  const auto judge_at = [&](const OrchProgram& q, int64_t v, const std::string& what) -> Verdict {
    const BindResult r = bind(q);
    if (r.status != 0 || !(r.entries == roomy.entries))
      return Verdict::fail("capacity",
                           fmt::format("{} at its need ({}): {}, where the roomy bind gives status 0{}", key, what,
                                       outcome(r), r.status == 0 ? " and other entry tensors" : ""));
    f.need = v;
    return Verdict::pass();
  };
  // One past it: the key's own code, latched (so nothing else ran out first and nothing shipped).
  const auto judge_past = [&](const OrchProgram& q, const std::string& what) -> Verdict {
    const BindResult r = bind(q);
    if (!latched_code(r, k.code) || r.stats.h2d != 0)
      return Verdict::fail("capacity",
                           fmt::format("{} one past its need ({}): {}, {} copies; expected the latch of {} "
                                       "({}) and nothing shipped",
                                       key, what, outcome(r), r.stats.h2d, k.code, runtime::code_name(k.code)));
    return Verdict::pass();
  };

  if (key == "W") {
    // W is a power of two: pad the plan to exactly W tasks, and to W + 1.
    const uint64_t w = std::bit_ceil(std::max<uint64_t>(tasks, static_cast<uint64_t>(k.lo)));
    if (w > static_cast<uint64_t>(k.hi)) {
      f.tag = "too-large";
      return Verdict::inconclusive(Inconclusive::kUnsupported, fmt::format("{} tasks need W above {}", tasks, k.hi));
    }
    const auto W = static_cast<int64_t>(w);
    f.repro = fmt::format("config W={}, {} task(s) appended", W, w - tasks);
    if (Verdict v =
            judge_at(with_config(pad_with_tasks(p, w - tasks), key, W), W,
                     fmt::format("W={} and {} tasks: {} of the plan's and {} appended", W, w, tasks, w - tasks));
        v.failed())
      return v;
    f.repro = fmt::format("config W={}, {} task(s) appended", W, w + 1 - tasks);
    if (Verdict v = judge_past(
            with_config(pad_with_tasks(p, w + 1 - tasks), key, W),
            fmt::format("W={} and {} tasks: {} of the plan's and {} appended", W, w + 1, tasks, w + 1 - tasks));
        v.failed())
      return v;
    f.tag = "at+past";
    return Verdict::pass();
  }

  const std::optional<int64_t> found = least_binding(p, key, k.lo, k.hi, bind);
  if (!found) {
    f.tag = "too-large";
    return Verdict::inconclusive(Inconclusive::kUnsupported, fmt::format("{} does not bind at {}", key, k.hi));
  }
  const int64_t least = *found;
  f.repro = fmt::format("config {}={}", key, least);
  if (Verdict v = judge_at(with_config(p, key, least), least, fmt::format("{}={}, the least that binds", key, least));
      v.failed())
    return v;
  // The heaps' need is their high-water mark: the latch and the runtime's accounting agree.
  const uint64_t mark = key == "task_heap"    ? roomy.stats.task_heap_high_water
                        : key == "graph_heap" ? roomy.stats.graph_heap_high_water
                                              : 0;
  if ((key == "task_heap" || key == "graph_heap") && least != std::max<int64_t>(k.lo, static_cast<int64_t>(mark)))
    return Verdict::fail("capacity",
                         fmt::format("the least {} that binds is {} B, but the roomy bind's high-water mark "
                                     "is {} B",
                                     key, least, mark));
  if (least == k.lo) {
    f.tag = "below-min";  // the need is at or below the least legal value: nothing past it
    return Verdict::pass();
  }
  f.repro = fmt::format("config {}={}", key, least - 1);
  if (Verdict v = judge_past(with_config(p, key, least - 1), fmt::format("{}={}", key, least - 1)); v.failed())
    return v;
  f.tag = raised ? "raised-at+past" : "at+past";
  return Verdict::pass();
}

namespace {

constexpr std::array<StructuralLimit, 7> kStructural = {{
    {"scope-depth", 1, 64},     // open scopes, the root included (§8)
    {"alloc-buffers", 5, 16},   // buffers of one alloc_tensors call
    {"window-end", 5, 8},       // a window's end against its 8-element buffer
    {"fanin", 4, 128},          // distinct producers of one task
    {"graph-nodes", 5, 1024},   // nodes of one graph definition (§9)
    {"graph-tensors", 5, 128},  // boundary tensors of one submit_graph
    {"graph-scalars", 5, 64},   // boundary scalars of one submit_graph
}};

runtime::PlanArg out_existing(runtime::PlanWindow w) {
  return runtime::PlanArg::tensor(runtime::PlanTag::OutputExisting, std::move(w));
}
runtime::PlanArg inout(runtime::PlanWindow w) {
  return runtime::PlanArg::tensor(runtime::PlanTag::Inout, std::move(w));
}
runtime::PlanWindow win(const std::string& name, int64_t offset, int64_t size) {
  return runtime::PlanWindow{name, {runtime::PlanRange{runtime::PlanExpr::integer(offset), size}}, {}};
}
runtime::PlanStmt fill_stmt(runtime::PlanWindow w, runtime::PlanExpr v) {
  runtime::SubmitStmt s;
  s.builtin = runtime::Builtin::Fill;
  s.args = {out_existing(std::move(w)), runtime::PlanArg::scalar_value(std::move(v))};
  return stmt(std::move(s));
}
runtime::ForStmt loop(std::string var, int64_t trips) {
  runtime::ForStmt f;
  f.var = std::move(var);
  f.start = runtime::PlanExpr::integer(0);
  f.stop = runtime::PlanExpr::integer(trips);
  f.step = runtime::PlanExpr::integer(1);
  return f;
}
runtime::PlanStmt alloc(std::vector<runtime::PlanBuffer> bufs) {
  runtime::AllocStmt a;
  a.buffers = std::move(bufs);
  return stmt(std::move(a));
}
int64_t config_value(const OrchProgram& p, const std::string& key, int64_t dflt) {
  for (const runtime::ConfigEntry& e : p.config)
    if (e.key == key) return e.value;
  return dflt;
}

// `p` with W raised to 1024 where limit `l`'s additions need that many tasks (fanin, nodes).
OrchProgram with_room_for(OrchProgram p, const StructuralLimit& l) {
  const std::string name = l.name;
  if ((name == "fanin" || name == "graph-nodes") && config_value(p, "W", 16384) < 1024)
    return with_config(std::move(p), "W", 1024);
  return p;
}

}  // namespace

std::span<const StructuralLimit> structural_limits() { return kStructural; }

OrchProgram append_at_limit(OrchProgram p, const StructuralLimit& l, int64_t n) {
  const std::string text = runtime::print_plan(p);
  const std::string name = l.name;
  const std::string buf = fresh_name(text, "limit_b"), var = fresh_name(text, "limit_i"),
                    graph = fresh_name(text, "limit_g");
  auto& body = p.body;
  if (name == "scope-depth") {  // the root is open: n - 1 more
    for (int64_t i = 1; i < n; ++i) body.push_back(stmt(runtime::ScopeBeginStmt{}));
    for (int64_t i = 1; i < n; ++i) body.push_back(stmt(runtime::ScopeEndStmt{}));
  } else if (name == "alloc-buffers") {
    std::vector<runtime::PlanBuffer> bufs;
    for (int64_t i = 0; i < n; ++i) bufs.push_back(runtime::PlanBuffer{fmt::format("{}{}", buf, i), {1}});
    body.push_back(alloc(std::move(bufs)));
  } else if (name == "window-end") {  // a 3-element window ending at element n of 8
    body.push_back(alloc({runtime::PlanBuffer{buf, {8}}}));
    body.push_back(fill_stmt(win(buf, n - 3, 3), runtime::PlanExpr::integer(1)));
  } else if (name == "fanin") {
    // n single-element fills of a buffer, then one task that reads it whole: its producers are
    // the n fills (each a distinct writer of a distinct element; the buffer's ALLOC task no
    // longer writes any of it) and the ALLOC task of the buffer it accumulates into.
    const std::string sum = fresh_name(text, "limit_s");
    body.push_back(alloc({runtime::PlanBuffer{buf, {n - 1}}, runtime::PlanBuffer{sum, {n - 1}}}));
    runtime::ForStmt f = loop(var, n - 1);
    runtime::PlanWindow w{buf, {runtime::PlanRange{runtime::PlanExpr::named(var), 1}}, {}};
    f.body.push_back(fill_stmt(std::move(w), runtime::PlanExpr::named(var)));
    body.push_back(stmt(std::move(f)));
    runtime::SubmitStmt acc;
    acc.builtin = runtime::Builtin::Acc;
    acc.args = {runtime::PlanArg::tensor(runtime::PlanTag::Input, runtime::PlanWindow{buf, {}, {}}),
                runtime::PlanArg::tensor(runtime::PlanTag::Inout, runtime::PlanWindow{sum, {}, {}})};
    body.push_back(stmt(std::move(acc)));
  } else {
    // A graph of its own, submitted once on a buffer of its own (boundary tags: input or inout).
    runtime::PlanGraph g;
    g.name = graph;
    runtime::SubmitGraphStmt sg;
    sg.graph = graph;
    if (name == "graph-nodes") {
      g.params = {"a"};
      runtime::ForStmt f = loop(var, n);
      f.body.push_back(fill_stmt(runtime::PlanWindow{"a", {}, {}}, runtime::PlanExpr::named(var)));
      g.body.push_back(stmt(std::move(f)));
      body.push_back(alloc({runtime::PlanBuffer{buf, {1}}}));
      sg.args.push_back(inout(runtime::PlanWindow{buf, {}, {}}));
    } else if (name == "graph-tensors") {
      for (int64_t i = 0; i < n; ++i) g.params.push_back(fmt::format("a{}", i));
      g.body.push_back(fill_stmt(runtime::PlanWindow{"a0", {}, {}}, runtime::PlanExpr::integer(1)));
      body.push_back(alloc({runtime::PlanBuffer{buf, {n}}}));
      for (int64_t i = 0; i < n; ++i) sg.args.push_back(inout(win(buf, i, 1)));
    } else {  // graph-scalars
      g.params = {"a"};
      g.body.push_back(
          fill_stmt(runtime::PlanWindow{"a", {}, {}}, runtime::PlanExpr::slot(std::min<int64_t>(n, 64) - 1)));
      body.push_back(alloc({runtime::PlanBuffer{buf, {1}}}));
      sg.args.push_back(inout(runtime::PlanWindow{buf, {}, {}}));
      for (int64_t i = 0; i < n; ++i) sg.args.push_back(runtime::PlanArg::scalar_value(runtime::PlanExpr::integer(i)));
    }
    p.graphs.push_back(std::move(g));
    body.push_back(stmt(std::move(sg)));
  }
  return with_room_for(std::move(p), l);
}

Verdict check_structural_limit(const OrchProgram& plan, const StructuralLimit& l, size_t definitions,
                               const PlanBinder& bind, CapacityFinding* finding) {
  CapacityFinding local;
  CapacityFinding& f = finding ? *finding : local;
  const std::string name = l.name;
  if (name.rfind("graph-", 0) == 0 && definitions >= 16) {
    f.tag = "cache-full";  // the graph would run inline, unrecorded: no boundary or node limit applies
    return Verdict::pass();
  }
  // The roomy bind, with W as the additions need it.
  const OrchProgram base = with_room_for(plan, l);
  const BindResult roomy = bind(base);
  if (roomy.status != 0) return bind_status_verdict(roomy);
  f.repro = fmt::format("{} at {}", name, l.limit);
  const BindResult at = bind(append_at_limit(plan, l, l.limit));
  if (at.status != 0 || !(at.entries == roomy.entries))
    return Verdict::fail(
        "limit", fmt::format("{} at its limit {}: {}, where the plan alone binds with status 0{}", name, l.limit,
                             outcome(at), at.status == 0 ? " and other entry tensors" : ""));
  f.repro = fmt::format("{} at {}", name, l.limit + 1);
  const BindResult past = bind(append_at_limit(plan, l, l.limit + 1));
  if (!latched_code(past, l.code) || past.stats.h2d != 0)
    return Verdict::fail(
        "limit", fmt::format("{} one past its limit ({}): {}, {} copies; expected the latch of {} ({}) "
                             "and nothing shipped",
                             name, l.limit + 1, outcome(past), past.stats.h2d, l.code, runtime::code_name(l.code)));
  f.need = l.limit;
  f.tag = "at+past";
  return Verdict::pass();
}

}  // namespace stackcheck::oracles
