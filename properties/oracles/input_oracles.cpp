#include "properties/oracles/input_oracles.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <vector>

#include "properties/oracles/attach_model.h"
#include "properties/oracles/bind_checks.h"
#include "properties/oracles/compiler_oracles.h"
#include "properties/oracles/image_mutation.h"
#include "properties/oracles/status_codes.h"
#include "stack/ir/walk.h"
#include "stack/runtime/device/attach.h"
#include "stack/runtime/image/compact.h"
#include "stack/runtime/image/records.h"
#include "stack/runtime/image/self_relative.h"
#include "stack/runtime/status/codes.h"

namespace stackcheck::oracles {

namespace {

// A create left at loop depth 0 of a graph (nullptr: none).
const ir::Stmt* depth0_create(const ir::Function& g) {
  struct Find {
    const ir::Stmt* found = nullptr;
    void visit(const ir::Stmt& s, const ir::Place& at) {
      if (found == nullptr && at.loop_depth == 0 && s.kind == ir::Stmt::Kind::Assign &&
          std::holds_alternative<ir::CreateRhs>(s.rhs))
        found = &s;
    }
  } f;
  ir::walk_statements(g.body, f);
  return f.found;
}

}  // namespace

Verdict check_boundary(const ir::Program& p, bool step_c) {
  passes::PipelineOptions o;
  o.graph_boundary.step_c = step_c;
  return check_boundary_run(run_pipeline(p, o), step_c);
}

Verdict check_boundary_run(const PipelineRun& run, bool step_c) {
  if (!run.verdict.passed()) return run.verdict;
  const ir::Program& legal = run.stages.back().program;
  for (const Verdict& v : {check_node_counts(legal, run.boundary_report), check_hoisted_creates(run.boundary_report),
                           check_graph_writes_inout(legal)})
    if (!v.passed()) return v;
  // Step A judged on the pass's own input (the stage before it).
  for (size_t i = 1; i < run.stages.size(); ++i)
    if (run.stages[i].pass == "LegalizeGraphBoundary")
      for (const Verdict& v : {check_step_a_hoists(run.stages[i - 1].program, run.boundary_report),
                               check_legalized(run.stages[i - 1].program, run.stages[i].program, run.boundary_report,
                                               step_c)})
        if (!v.passed()) return v;
  size_t creates = 0;
  for (const auto& gr : run.boundary_report.graphs)
    for (const auto& a : gr.appended) creates += a.kind == passes::HoistKind::Create;
  if (!step_c && creates != 0)
    return Verdict::fail("step-c-off", fmt::format("{} creates hoisted with Step C off", creates));
  if (step_c)
    for (const ir::Function& f : legal.functions)
      if (f.kind == ir::Function::Kind::Graph)
        if (const ir::Stmt* c = depth0_create(f))
          return Verdict::fail("step-c", fmt::format("graph {}: create {} (line {}) at loop depth 0 was not hoisted",
                                                     f.name, c->name, c->loc.line));
  return Verdict::pass();
}

Verdict check_rejected(const ir::Program& p, int code) {
  const PipelineRun run = run_pipeline(p);
  if (run.verdict.reason != Inconclusive::kInputRejected || run.rejected_by != "LegalizeGraphBoundary")
    return Verdict::fail("rejection", fmt::format("an input LegalizeGraphBoundary must reject with {} was not: {}",
                                                  code, run.verdict.to_string()));
  const bool named = std::any_of(run.diagnostics.begin(), run.diagnostics.end(),
                                 [&](const ir::Diagnostic& d) { return d.code == code; });
  if (!named) return Verdict::fail("rejection", fmt::format("rejected without {}: {}", code, run.verdict.to_string()));
  return Verdict::pass();
}

Verdict check_latched(const Captured& c, int first_code) {
  // RUNTIME.md §13, derived here: code c maps to -(1000 + c).
  const int want = -(1000 + first_code);
  if (c.result.status != want)
    return Verdict::fail("first-code", fmt::format("the first code {} should give status {}, the bind gave {} ({})",
                                                   first_code, want, c.result.status, runtime::status_line(c.result)));
  return check_latch_uploads_nothing(c);
}

Verdict check_latched_plan(const runtime::OrchProgram& p, int first_code) {
  std::string why;
  auto b = Bench::create(p, 0xAA, true, &why);
  if (!b) return Verdict::inconclusive(Inconclusive::kUnsupported, "config rejected: " + why);
  return check_latched(b->bind(p), first_code);
}

CompactRun stack_compact() {
  return [](std::span<const std::byte> mirror, const runtime::MirrorLayout& L, runtime::PoolCounts cur, uint64_t n,
            std::span<std::byte> out) -> std::optional<runtime::CompactError> {
    auto r = runtime::compact_live_image(mirror, L, cur, n, out);
    if (r) return std::nullopt;
    return r.error();
  };
}

// Precondition 6: one bound pool delta of a copy of the mirror re-aimed (RUNTIME.md §15.2: a
// delta must name an element of its own pool, a scalar region starts on an 8-entry line, a
// region ends at or below its pool's cursor). `by` picks the (task, field) among the bound ones
// and the way: 0 half an element off, 1 one element before the pool, 2 at the cursor, 3 one
// element past a line start (the scalars) or at the start of the next segment (the others).
// The refusal must be kBadPoolRef naming that task and field. nullopt: no delta is bound.
std::optional<Verdict> check_compaction_pool_ref(const runtime::Orchestrator& o, std::span<const std::byte> mirror,
                                                 uint64_t image_bytes, uint64_t by, const CompactRun& compact) {
  struct Field {
    const char* name;
    uint64_t field;
    runtime::Segment seg;
    uint64_t elem, cursor;
  };
  const runtime::MirrorLayout& L = o.layout();
  const runtime::PoolCounts cur = o.cursors();
  const Field fields[3] = {
      {"tensors", runtime::kPayloadTensorsField, runtime::kSegTensor, sizeof(runtime::TensorArg), cur.tensors},
      {"scalars", runtime::kPayloadScalarsField, runtime::kSegScalar, 8, cur.scalars},
      {"fanin", runtime::kPayloadFaninField, runtime::kSegFanin, 4, cur.fanin}};
  std::vector<std::pair<uint32_t, const Field*>> bound;
  for (uint32_t i = 0; i < o.submitted(); ++i)
    for (const Field& f : fields) {
      int32_t d;
      std::memcpy(&d, mirror.data() + L.seg.payload_at(i) + f.field, sizeof d);
      if (d != 0) bound.emplace_back(i, &f);
    }
  if (bound.empty()) return std::nullopt;
  const auto [task, f] = bound[by % bound.size()];
  const unsigned way = static_cast<unsigned>(by / bound.size() % 4);
  const uint64_t pool = L.seg.off[f->seg];
  uint64_t target = 0;
  switch (way) {
    case 0: target = pool + f->elem / 2; break;
    case 1: target = pool - f->elem; break;
    case 2: target = pool + f->cursor * f->elem; break;
    default:
      target = f->seg == runtime::kSegScalar ? pool + 8 : L.seg.next_start(f->seg);
      break;
  }
  std::vector<std::byte> m(mirror.begin(), mirror.end());
  const uint64_t at = L.seg.payload_at(task) + f->field;
  const auto delta = static_cast<int32_t>(static_cast<int64_t>(target) - static_cast<int64_t>(at));
  std::memcpy(m.data() + at, &delta, sizeof delta);
  std::vector<std::byte> out(image_bytes);
  const std::optional<runtime::CompactError> e = compact(m, L, cur, o.submitted(), out);
  const std::string what = fmt::format("task {} {} delta aimed at mirror offset {} (way {})", task, f->name, target, way);
  if (!e) return Verdict::fail("compaction-precondition", what + ": accepted");
  const std::string names = fmt::format("task {} {}", task, f->name);
  if (e->kind != runtime::CompactErrorKind::kBadPoolRef || e->message.find(names) == std::string::npos)
    return Verdict::fail("compaction-precondition",
                         fmt::format("{}: error {} ({}), expected {} naming '{}'", what,
                                     runtime::compact_error_name(e->kind), e->message,
                                     runtime::compact_error_name(runtime::CompactErrorKind::kBadPoolRef), names));
  // The figures the refusal states, in order: the delta of a target off the pool's elements;
  // a scalar region's entry off its 8-entry line; else the region [idx, idx + n) the task's
  // count (scalars: whole lines of 8, §4) makes from the target, and the cursor it passes.
  std::vector<int64_t> figures;
  const bool on_element = target >= pool && (target - pool) % f->elem == 0;
  const uint64_t idx = on_element ? (target - pool) / f->elem : 0;
  if (!on_element) {
    figures = {delta};
  } else if (f->seg == runtime::kSegScalar && idx % 8 != 0) {
    figures = {static_cast<int64_t>(idx)};
  } else {
    uint16_t count;
    std::memcpy(&count, mirror.data() + L.seg.payload_at(task) + 2 * static_cast<uint64_t>(f - fields), sizeof count);
    const uint64_t region = f->seg == runtime::kSegScalar ? (count + 7u) / 8u * 8u : count;
    figures = {static_cast<int64_t>(idx), static_cast<int64_t>(idx + region), static_cast<int64_t>(f->cursor)};
  }
  if (!states_in_order(e->message, figures))
    return Verdict::fail("compaction-precondition", fmt::format("{}: the refusal '{}' does not state [{}] in that order",
                                                                what, e->message, fmt::join(figures, ", ")));
  return Verdict::pass();
}

Verdict check_compaction_precondition(Bench& b, uint64_t image_bytes, unsigned which, uint64_t by) {
  const runtime::Orchestrator& o = b.runtime().orchestrator();
  if (which == 6)
    return check_compaction_pool_ref(o, b.runtime().mirror(), image_bytes, by, stack_compact()).value_or(Verdict::pass());
  runtime::MirrorLayout L = o.layout();
  uint64_t n = o.submitted();
  runtime::PoolCounts cur = o.cursors();
  std::vector<std::byte> out(image_bytes);
  runtime::CompactErrorKind want{};
  std::vector<int64_t> figures;  // what the refusal must state, in order
  auto as_i64 = [](uint64_t v) { return static_cast<int64_t>(std::min<uint64_t>(v, INT64_MAX)); };
  const runtime::PoolCounts cap = L.seg.counts;
  switch (which) {
    case 0:
      n = L.W() + by, want = runtime::CompactErrorKind::kNGreaterThanW;
      figures = {as_i64(std::min<uint64_t>(n, UINT32_MAX)), as_i64(L.W())};
      break;
    case 1:
    case 2:
      (which == 1 ? cur.tensors : cur.fanin) = (which == 1 ? cap.tensors : cap.fanin) + by;
      want = runtime::CompactErrorKind::kCursorOverCapacity;
      figures = {as_i64(cur.tensors), as_i64(cur.scalars), as_i64(cur.fanin),
                 as_i64(cap.tensors), as_i64(cap.scalars), as_i64(cap.fanin)};
      break;
    case 3:
      L.payload_stride = sizeof(runtime::TaskPayload) + by, want = runtime::CompactErrorKind::kPayloadStride;
      figures = {as_i64(L.payload_stride), as_i64(sizeof(runtime::TaskPayload))};
      break;
    case 5:  // a layout other than the planner's for this mirror: another window's (the mirror
             // then shorter than it), or a segment moved by a line
      if (by % 2 == 1 && runtime::LayoutPlanner::valid_W(L.W() * 2))
        L = runtime::LayoutPlanner::mirror(L.W() * 2);
      else
        L.seg.off[1 + by % (runtime::kSegCount - 1)] += 64;
      want = runtime::CompactErrorKind::kMirrorLayout;
      break;
    default: out.resize(out.size() + by), want = runtime::CompactErrorKind::kOutSize;
  }
  const auto r = runtime::compact_live_image(b.runtime().mirror(), L, cur,
                                             static_cast<uint32_t>(std::min<uint64_t>(n, UINT32_MAX)), out);
  if (r)
    return Verdict::fail("compaction-precondition", fmt::format("precondition {} violated by {}, accepted", which, by));
  if (r.error().kind != want)
    return Verdict::fail("compaction-precondition",
                         fmt::format("precondition {}: error {}, expected {}", which,
                                     runtime::compact_error_name(r.error().kind), runtime::compact_error_name(want)));
  if (!states_in_order(r.error().message, figures))
    return Verdict::fail("compaction-precondition",
                         fmt::format("precondition {} violated by {}: the refusal '{}' does not state [{}] in that order",
                                     which, by, r.error().message, fmt::join(figures, ", ")));
  return Verdict::pass();
}

Verdict check_compaction_plan(const runtime::OrchProgram& p, std::optional<unsigned> which, uint64_t by) {
  std::string why;
  auto b = Bench::create(p, 0xAA, true, &why);
  if (!b) return Verdict::inconclusive(Inconclusive::kUnsupported, "config rejected: " + why);
  const Captured c = b->bind(p);
  if (c.result.status != 0) {
    if (config_bound_status(c.result.status))
      return Verdict::inconclusive(Inconclusive::kResourceLatch, runtime::status_line(c.result),
                                   latch_code(c.result.status).value_or(0));
    return Verdict::fail("bind-status", runtime::status_line(c.result) + " (" + c.result.detail + ")");
  }
  const runtime::Orchestrator& o = b->runtime().orchestrator();
  const Verdict live = check_compaction_live_prefix(runtime_compactor(), b->runtime().mirror_live(), o.layout(), o.cursors(),
                                                    o.submitted(), c.image());
  if (!live.passed()) return live;
  // The payload stride first: the one violation a compaction that checks nothing survives.
  for (unsigned k : which ? std::vector<unsigned>{*which} : std::vector<unsigned>{3, 0, 1, 2, 4, 5, 6}) {
    const Verdict v = check_compaction_precondition(*b, c.image_bytes, k, by);
    if (!v.passed()) return v;
  }
  return Verdict::pass();
}

Verdict check_rejected_as(const runtime::BindResult& r, const std::string& expect) {
  if (r.failure == runtime::BindFailure::kAttach && r.attach_class &&
      runtime::attach_error_name(*r.attach_class) == expect)
    return Verdict::pass();
  return Verdict::fail("near-miss-class",
                       fmt::format("an image that breaks one {} rule was not rejected with it: {} ({}: {})", expect,
                                   runtime::status_line(r), runtime::bind_failure_name(r.failure), r.detail));
}

Verdict check_corrupt_plan(const runtime::OrchProgram& p, const std::string& expect) {
  std::string why;
  auto b = Bench::create(p, 0xAA, /*strict_uninit=*/true, &why);
  if (!b) return Verdict::inconclusive(Inconclusive::kUnsupported, "config rejected: " + why);
  runtime::BindOptions o;
  o.schedule.mode = runtime::ScheduleOptions::Mode::kNewest;
  o.schedule.progress_timeout_ms = 2000;
  o.before_upload = mutation_hook(p.mutations);
  const Captured c = b->bind(p, o);
  if (!expect.empty()) return check_rejected_as(c.result, expect);
  return judge_corrupt_bind(c, b->memory(), p.mutations).first_failure();
}

Verdict check_offset_pair(uint64_t field, uint64_t target) {
  const __int128 diff = static_cast<__int128>(target) - static_cast<__int128>(field);
  const bool fits = diff != 0 && diff >= INT32_MIN && diff <= INT32_MAX;
  const std::optional<int32_t> d = runtime::delta_for(field, target);
  if (d.has_value() != fits)
    return Verdict::fail("int32-delta",
                         fmt::format("delta_for({}, {}) is {}, but the difference {} int32", field, target,
                                     d ? std::to_string(*d) : "unbound", fits ? "fits" : "does not fit"));
  if (!d) return Verdict::pass();
  if (static_cast<__int128>(*d) != diff)
    return Verdict::fail("int32-delta", fmt::format("delta_for({}, {}) = {}: truncated", field, target, *d));
  const auto back = runtime::resolve_offset(field, *d);
  if (!back || *back != target)
    return Verdict::fail("int32-delta", fmt::format("resolve_offset({}, {}) does not give {}", field, *d, target));
  return Verdict::pass();
}

}  // namespace stackcheck::oracles
