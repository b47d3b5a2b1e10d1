// Runtime capacities at a plan's need and one past it (capacity.h).
#include "properties/oracles/capacity.h"

#include <fmt/format.h>

#include <array>
#include <bit>

#include "properties/oracles/bind_checks.h"
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
  return r.failure == runtime::BindFailure::kLatched && runtime::status_to_code(r.status) == code;
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
      return Verdict::fail("capacity", fmt::format("{} at its need ({}): {}, where the roomy bind gives status 0{}", key,
                                                   what, outcome(r), r.status == 0 ? " and other entry tensors" : ""));
    f.need = v;
    return Verdict::pass();
  };
  // One past it: the key's own code, latched (so nothing else ran out first and nothing shipped).
  const auto judge_past = [&](const OrchProgram& q, const std::string& what) -> Verdict {
    const BindResult r = bind(q);
    if (!latched_code(r, k.code) || r.stats.h2d != 0)
      return Verdict::fail("capacity", fmt::format("{} one past its need ({}): {}, {} copies; expected the latch of {} "
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
    if (Verdict v = judge_at(with_config(pad_with_tasks(p, w - tasks), key, W), W,
                             fmt::format("W={} and {} tasks: {} of the plan's and {} appended", W, w, tasks, w - tasks));
        v.failed())
      return v;
    f.repro = fmt::format("config W={}, {} task(s) appended", W, w + 1 - tasks);
    if (Verdict v = judge_past(with_config(pad_with_tasks(p, w + 1 - tasks), key, W),
                               fmt::format("W={} and {} tasks: {} of the plan's and {} appended", W, w + 1, tasks,
                                           w + 1 - tasks));
        v.failed())
      return v;
    f.tag = "at+past";
    return Verdict::pass();
  }

  // The least value that binds: gallop up from the least legal value, then bisect.
  const auto binds = [&](int64_t v) { return bind(with_config(p, key, v)).status == 0; };
  int64_t lo = k.lo, hi = k.lo;
  while (!binds(hi)) {
    lo = hi + 1;
    if (hi >= k.hi) {
      f.tag = "too-large";
      return Verdict::inconclusive(Inconclusive::kUnsupported, fmt::format("{} does not bind at {}", key, k.hi));
    }
    hi = std::min(hi * 2, k.hi);
  }
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo) / 2;
    if (binds(mid))
      hi = mid;
    else
      lo = mid + 1;
  }
  const int64_t least = lo;
  f.repro = fmt::format("config {}={}", key, least);
  if (Verdict v = judge_at(with_config(p, key, least), least, fmt::format("{}={}, the least that binds", key, least));
      v.failed())
    return v;
  // The heaps' need is their high-water mark: the latch and the runtime's accounting agree.
  const uint64_t mark = key == "task_heap"    ? roomy.stats.task_heap_high_water
                        : key == "graph_heap" ? roomy.stats.graph_heap_high_water
                                              : 0;
  if ((key == "task_heap" || key == "graph_heap") && least != std::max<int64_t>(k.lo, static_cast<int64_t>(mark)))
    return Verdict::fail("capacity", fmt::format("the least {} that binds is {} B, but the roomy bind's high-water mark "
                                                 "is {} B",
                                                 key, least, mark));
  if (least == k.lo) {
    f.tag = "below-min";  // the need is at or below the least legal value: nothing past it
    return Verdict::pass();
  }
  f.repro = fmt::format("config {}={}", key, least - 1);
  if (Verdict v = judge_past(with_config(p, key, least - 1), fmt::format("{}={}", key, least - 1)); v.failed()) return v;
  f.tag = raised ? "raised-at+past" : "at+past";
  return Verdict::pass();
}

}  // namespace stackcheck::oracles
