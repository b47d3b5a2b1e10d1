// Runtime execution properties over generated bind plans (RUNTIME.md §15.11, §15.12, §11):
// the device result equals the sequential plan model under the threaded scheduler and every
// adversarial policy, threaded equals adversarial, valid plans read no uninitialised byte and
// fault nowhere, and a corrupted image is either rejected by attach with a class or runs
// safely.
#include <gtest/gtest.h>
#include <gtest/gtest-spi.h>

#include <rapidcheck/gtest.h>
#include <bit>
#include <cstddef>
#include <cstring>
#include <set>

#include "properties/gen/arbitrary.h"
#include "properties/gen/mutation_gen.h"
#include "properties/oracles/attach_model.h"
#include "properties/oracles/bind_checks.h"
#include "properties/oracles/capacity.h"
#include "properties/oracles/end_to_end.h"
#include "properties/oracles/image_checks.h"
#include "properties/oracles/image_mutation.h"
#include "properties/oracles/input_oracles.h"
#include "properties/oracles/plan_model.h"
#include "properties/oracles/status_codes.h"
#include "properties/property.h"
#include "stack/runtime/host/bind.h"
#include "stack/runtime/image/records.h"
#include "stack/runtime/plan/parser.h"
#include "stack/runtime/plan/printer.h"
#include "stack/runtime/status/codes.h"

using namespace stackcheck;
using oracles::Inconclusive;
using oracles::Verdict;

namespace {

gen::GeneratedPlan draw(const gen::PlanKnobs& knobs = {}) { return gen::draw_plan(knobs); }

// The plan as a counterexample of the running property (rerun by the property's own line).
oracles::Counterexample context(const gen::GeneratedPlan& g) {
  return props::counterexample("property", runtime::print_plan(g.plan));
}

std::vector<runtime::ScheduleOptions> schedules(uint64_t random_seed) {
  using Mode = runtime::ScheduleOptions::Mode;
  std::vector<runtime::ScheduleOptions> out(4);
  out[0].mode = Mode::kThreaded;
  out[1].mode = Mode::kNewest;
  out[2].mode = Mode::kOldest;
  out[3].mode = Mode::kRandom;
  out[3].seed = random_seed;
  return out;
}

}  // namespace

// §15.11: under threaded and every policy, user tensors equal sequential execution in
// submission order (replayed nodes in index order, frozen values).
STACKCHECK_PROP(RuntimeExec, device_equals_plan_model_every_schedule, 0.1) {
  const gen::GeneratedPlan g = draw();
  const uint64_t seed = static_cast<uint64_t>(gen::choices().sized(0, 999));
  for (const runtime::ScheduleOptions& s : schedules(static_cast<uint64_t>(gen::choices().sized(0, INT64_MAX)))) {
    runtime::BindOptions o;
    o.seed = seed;
    o.schedule = s;
    props::report(oracles::check_plan_model(g.plan, seed, runtime::bind_plan(g.plan, o)),
                  props::counterexample("plan-model", runtime::print_plan(g.plan),
                                        {{"seed", std::to_string(seed)}, {"schedule", oracles::schedule_text(s)}}));
  }
}

// The orchestration budget at its limit (BindOptions::max_statements, RUNTIME.md §8): a clean
// plan bound with a budget of exactly the statements the model counts (loop trips included)
// binds as with the default budget, byte for byte; with one less it ends -1 (budget), having
// shipped nothing. The figure comes from the model's own run, not from the runtime.
STACKCHECK_PROP(RuntimeExec, statement_budget_at_its_limit, 0.1) {
  const gen::GeneratedPlan g = draw();
  const uint64_t seed = static_cast<uint64_t>(gen::choices().sized(0, 999));
  const oracles::PlanModelResult model = oracles::run_plan_model(g.plan, seed);
  if (!model.ok()) props::report(Verdict::inconclusive(Inconclusive::kUnsupported, "plan model: " + *model.error));
  runtime::BindOptions o;
  o.seed = seed;
  o.schedule.mode = runtime::ScheduleOptions::Mode::kOldest;
  const runtime::BindResult free = runtime::bind_plan(g.plan, o);
  if (free.status != 0) props::report(oracles::bind_status_verdict(free));
  const auto cx = [&](uint64_t budget) {
    return props::counterexample("budget", runtime::print_plan(g.plan),
                                 {{"seed", std::to_string(seed)}, {"max_statements", std::to_string(budget)}});
  };
  o.max_statements = model.statements;
  const runtime::BindResult exact = runtime::bind_plan(g.plan, o);
  if (runtime::status_line(exact) != runtime::status_line(free) || !(exact.entries == free.entries) ||
      exact.stats.to_line() != free.stats.to_line())
    props::report(Verdict::fail("budget", fmt::format("a budget of exactly its {} statements ends {} ({}), the default "
                                                      "budget {}",
                                                      model.statements, runtime::status_line(exact), exact.detail,
                                                      runtime::status_line(free))),
                  cx(model.statements));
  if (model.statements == 0) return;
  o.max_statements = model.statements - 1;
  const runtime::BindResult short_by_one = runtime::bind_plan(g.plan, o);
  if (short_by_one.status != runtime::kStatusGeneric || short_by_one.failure != runtime::BindFailure::kBudget ||
      short_by_one.stats.h2d != 0)
    props::report(Verdict::fail("budget", fmt::format("a budget one short of its {} statements ends {} ({}, {} copies)",
                                                      model.statements, runtime::status_line(short_by_one),
                                                      short_by_one.detail, short_by_one.stats.h2d)),
                  cx(model.statements - 1));
}

// Every capacity at a plan's need and one past it (HARNESS.md §8 boundary values, oracles/
// capacity.h): a clean plan, one capacity per case (W, the scope task list, the tensormap, the
// task and graph heaps), bound exactly at its need (the roomy bind's results) and one past it
// (that capacity's own latch, nothing shipped). The need comes from the plan model (W) or from
// binding (the others); the tags say which limits each case met.
namespace {
// What the limit properties judge: a clean plan, the seed of its entry inputs, its plan model,
// and a binder of fresh Runtimes with that seed under the oldest-first policy.
struct LimitCase {
  gen::GeneratedPlan g = draw();
  uint64_t seed = static_cast<uint64_t>(gen::choices().sized(0, 999));
  oracles::PlanModelResult model = oracles::run_plan_model(g.plan, seed);
  oracles::PlanBinder binder() const {
    runtime::BindOptions o;
    o.seed = seed;
    o.schedule.mode = runtime::ScheduleOptions::Mode::kOldest;
    return [o](const runtime::OrchProgram& q) { return runtime::bind_plan(q, o); };
  }
  // Reports the verdict with the limit's tag (`limit:<name>:<what the case reached>`).
  void report(const Verdict& v, const char* limit, const oracles::CapacityFinding& f) const {
    gen::tag(fmt::format("limit:{}:{}", limit, f.tag.empty() ? "failed" : f.tag));
    props::report(v, props::counterexample("property", runtime::print_plan(g.plan),
                                           {{"seed", std::to_string(seed)}, {"limit", limit}}));
  }
};
LimitCase limit_case() {
  LimitCase c;
  if (!c.model.ok()) props::report(Verdict::inconclusive(Inconclusive::kUnsupported, "plan model: " + *c.model.error));
  return c;
}
}  // namespace

STACKCHECK_PROP(RuntimeExec, every_capacity_at_its_need_and_one_past, 0.2) {
  const LimitCase c = limit_case();
  const auto keys = oracles::capacity_keys();
  const oracles::CapacityKey& k = keys[gen::choices().one_of(keys.size())];
  oracles::CapacityFinding f;
  c.report(oracles::check_capacity_at_need(c.g.plan, k, c.model.tasks.size(), c.binder(), &f), k.key, f);
}

// Every limit of a plan's own shape met exactly and one past it (oracles/capacity.h): open
// scopes (64, the root included), buffers of one alloc (16), a window's end against its buffer,
// producers of one task (128), nodes of one graph (1024), boundary tensors (128) and scalars (64)
// of one submit_graph; statements appended to a clean plan, which then binds with its own
// entry tensors at the limit and latches the limit's code (1, 5, 4) one past it.
STACKCHECK_PROP(RuntimeExec, every_plan_limit_at_and_one_past, 0.2) {
  const LimitCase c = limit_case();
  const auto limits = oracles::structural_limits();
  const oracles::StructuralLimit& l = limits[gen::choices().one_of(limits.size())];
  oracles::CapacityFinding f;
  c.report(oracles::check_structural_limit(c.g.plan, l, c.model.definitions, c.binder(), &f), l.name, f);
}

// The threaded scheduler and the adversarial policies agree with each other, tensor by
// tensor (independently of the model).
STACKCHECK_PROP(RuntimeExec, threaded_equals_adversarial, 0.1) {
  const gen::GeneratedPlan g = draw();
  const auto all = schedules(static_cast<uint64_t>(gen::choices().sized(0, INT64_MAX)));
  runtime::BindOptions o;
  o.schedule = all[0];
  const runtime::BindResult threaded = runtime::bind_plan(g.plan, o);
  if (threaded.status != 0) {
    if (oracles::config_bound_status(threaded.status))
      props::report(Verdict::inconclusive(Inconclusive::kResourceLatch, runtime::status_line(threaded),
                                          oracles::latch_code(threaded.status).value_or(0)));
    props::report(Verdict::fail("bind-status", runtime::status_line(threaded) + " " + threaded.detail), context(g));
  }
  for (size_t k = 1; k < all.size(); ++k) {
    o.schedule = all[k];
    const runtime::BindResult r = runtime::bind_plan(g.plan, o);
    if (r.status != threaded.status || !(r.entries == threaded.entries))
      props::report(
          Verdict::fail("threaded-vs-adversarial",
                        fmt::format("{} gives {} and other bytes than threaded ({})", oracles::schedule_text(all[k]),
                                    runtime::status_line(r), runtime::status_line(threaded))),
          context(g));
  }
}

// §15.12: a valid plan reads no never-written device byte (strict mode faults on one) and
// hits no DeviceFault, under a 0xAA fill.
STACKCHECK_PROP(RuntimeExec, no_uninitialised_reads_or_faults, 0.1) {
  gen::PlanKnobs k;
  k.planted_percent = 5;  // a latched bind reads nothing uninitialised either, and uploads nothing
  const gen::GeneratedPlan g = draw(k);
  auto b = oracles::Bench::create(g.plan, 0xAA, /*strict_uninit=*/true);
  if (!b) props::report(Verdict::fail("config", "the generator's config was rejected"));
  runtime::BindOptions o;
  o.schedule.mode = runtime::ScheduleOptions::Mode::kNewest;
  const oracles::Captured c = b->bind(g.plan, o);
  const runtime::BindResult& r = c.result;
  if (r.status == 0) return;
  // A latched bind uploads nothing (RUNTIME.md §15.7), whatever latched it.
  if (r.failure == runtime::BindFailure::kLatched)
    props::report(
        oracles::check_latch_uploads_nothing(c),
        oracles::Counterexample{"bind-structure", runtime::print_plan(g.plan),
                                g.planted ? std::map<std::string, std::string>{{"code", std::to_string(g.planted)}}
                                          : std::map<std::string, std::string>{},
                                "", ""});
  if (g.planted != 0 && r.failure == runtime::BindFailure::kLatched) return;  // the planted code latched
  if (oracles::config_bound_status(r.status))
    props::report(Verdict::inconclusive(Inconclusive::kResourceLatch, runtime::status_line(r),
                                        oracles::latch_code(r.status).value_or(0)));
  props::report(Verdict::fail(r.failure == runtime::BindFailure::kDeviceFault ? "device-fault" : "bind-status",
                              runtime::status_line(r) + " (" + r.detail + ")"),
                context(g));
}

namespace {

// The clean bind of `g` whose upload a corruption starts from (0xAA memory, strict
// uninitialised reads); a latch makes the case inconclusive. It runs on the corrupt binds'
// one-thread schedule (newest first): the upload is built on the host before any schedule
// runs, so the bytes are the same, and a case starts no worker threads (four per case, and
// their wake-ups, were a fifth of the limits property's time on two cores) and is
// deterministic. The threaded scheduler has properties of its own (threaded_props).
oracles::Captured clean_upload(const gen::GeneratedPlan& g) {
  auto probe = oracles::lease_bench(g.plan, 0xAA, true);
  runtime::BindOptions o;
  o.schedule.mode = runtime::ScheduleOptions::Mode::kNewest;
  oracles::Captured clean = probe->bind(g.plan, o);
  if (clean.result.status != 0)
    props::report(Verdict::inconclusive(Inconclusive::kResourceLatch, runtime::status_line(clean.result),
                                        oracles::latch_code(clean.result.status).value_or(0)));
  return clean;
}

// A fresh bind of `g` with `muts` applied to its upload, as check_corrupt_plan replays it
// (strict uninitialised reads, newest schedule, a 2 s progress timeout); the bench stays for
// its device memory. The thread's spare bench, reset (Bench::acquire): a case of the limits
// property binds some 70 times.
struct CorruptRun {
  oracles::BenchLease bench;
  oracles::Captured captured;
};
CorruptRun corrupt_bind(const gen::GeneratedPlan& g, const std::vector<runtime::Mutation>& muts) {
  CorruptRun run{oracles::lease_bench(g.plan, 0xAA, true), {}};
  runtime::BindOptions o;
  o.schedule.mode = runtime::ScheduleOptions::Mode::kNewest;
  o.schedule.progress_timeout_ms = 2000;
  o.before_upload = oracles::mutation_hook(muts);
  run.captured = run.bench->bind(g.plan, o);
  return run;
}

}  // namespace

// §11, HARNESS.md §1 "image bytes": a valid bound image with bytes changed anywhere (the
// runtime header included, through the before-upload hook) is rejected by attach with the
// class an independent model of §11 predicts (oracles/attach_model.h), or, where the model
// accepts it, ends in a scheduler code, or runs to completion, or a builtin faults on the
// corrupt tensor args it was handed (contained by device memory: attach does not vouch for
// what a TensorArg points at, RUNTIME.md §11, §12). Never a DeviceFault in the runtime's own
// accesses: a record attach accepted must be followable. Run with strict uninitialised reads,
// like every runtime property: attach reads only where the runtime header's layout puts the
// shipped bytes (the image right after it, BadLayout otherwise; the submissions right after
// the image; definitions outside the region and heaps, BadGraphContext otherwise), so no
// corruption makes attach or the scheduler read a byte nobody wrote; a builtin handed a
// corrupt TensorArg may (a contained kernel fault).
STACKCHECK_PROP(RuntimeExec, corrupt_images_rejected_or_run_safely, 0.1) {
  // Half the plans submit a graph: its submission records are what attach's last checks
  // (BadGraphContext: block base, size, counts) guard, and a plan without one has none.
  gen::PlanKnobs k;
  k.min_graphs = gen::choices().boolean() ? 1 : 0;
  const gen::GeneratedPlan g = draw(k);
  const oracles::Captured clean = clean_upload(g);
  // The shared mutation generator (gen/mutation_gen.h, fuzz_attach's too) on RapidCheck's engine.
  gen::ChoiceSource& choices = gen::choices();
  const std::vector<runtime::Mutation> muts = gen::generate_mutations(choices, clean.staged, clean.image_offset);
  runtime::OrchProgram shown = g.plan;
  shown.mutations = muts;
  const CorruptRun run = corrupt_bind(g, muts);
  const oracles::Captured& c = run.captured;
  const runtime::BindResult& r = c.result;
  switch (r.failure) {
    case runtime::BindFailure::kNone: gen::tag("ran to completion"); break;
    case runtime::BindFailure::kAttach:
      if (r.attach_class) gen::tag(std::string("attach ") + runtime::attach_error_name(*r.attach_class));
      break;
    case runtime::BindFailure::kKernelFault: gen::tag("builtin fault on corrupt args (contained)"); break;
    case runtime::BindFailure::kScheduler:
    case runtime::BindFailure::kLatched:
      if (const std::optional<int> code = runtime::status_to_code(r.status))
        gen::tag(fmt::format("{} code {} ({})", runtime::bind_failure_name(r.failure), runtime::code_name(*code),
                             runtime::code_class_name(runtime::code_class(*code).value())));
      break;
    default: gen::tag(runtime::bind_failure_name(r.failure)); break;
  }
  const oracles::Counterexample cx{"corrupt-image", runtime::print_plan(shown), {}, "", ""};
  // One judgement (attach_model.h): the outcome contained, attach's class the model's, the
  // accepted graph blocks, and a corruption of fanin entries only given the outcome the spec fixes.
  const oracles::CorruptJudgement jd = oracles::judge_corrupt_bind(c, run.bench->memory(), muts);
  gen::tag(jd.predicted
               ? "model predicts " + (jd.predicted->accepts() ? std::string("acceptance") : jd.predicted->rejected)
               : std::string("model cannot tell"));
  if (jd.fanin) gen::tag(jd.fanin->invalid_entry ? "fanin entries only: 103 due" : "fanin entries only: earlier tasks");
  for (const Verdict& v : jd.verdicts) props::report(v, cx);
}

// HARNESS.md §8 boundary values, RUNTIME.md §11: every field of every record at its limits,
// one field at a time: each of the runtime header's, the ImageHeader's, one task's descriptor,
// payload and slot fields (the task drawn per case) and the first submission record's, set
// to its value +1 and -1, zero, all ones, INT32_MAX, INT32_MIN (or, for an address, another
// address of the upload) and with one bit flipped. Each bind gets the one judgement of a
// corrupted upload (oracles::judge_corrupt_bind): attach's outcome the class the independent
// model predicts, or acceptance and a safe run. Random corruptions reach a given field at a
// given limit a few times in a thousand cases; here every case reaches all of them.
STACKCHECK_PROP(RuntimeExec, every_field_at_its_limits_as_the_attach_model_predicts, 0.1) {
  gen::PlanKnobs k;
  k.min_graphs = gen::choices().boolean() ? 1 : 0;
  k.small_w_percent = 100;  // 70 binds a case: no 45 MB mirror each time
  const gen::GeneratedPlan g = draw(k);
  const oracles::Captured clean = clean_upload(g);
  gen::ChoiceSource& choices = gen::choices();
  const auto task = static_cast<uint32_t>(choices.integer(0, 1 << 16));  // modulo n
  const auto bit = static_cast<uint8_t>(choices.integer(0, 63));
  // Another address: the region, image, submissions, device-only zone or a heap (value / 3 % 6),
  // plus 0..3 lines (value / 18), drawn per case (gen/mutation_gen.h).
  const auto address = static_cast<uint8_t>(3 * choices.one_of(6) + 18 * choices.one_of(4));
  // (op, value) as gen::MutationDraw takes them: +1, -1, zero, all ones, INT32_MAX, INT32_MIN,
  // another address (an 8-byte field; INT32_MIN for a narrower one), one bit flipped: every
  // field at each.
  const std::pair<uint8_t, uint8_t> limits[] = {{0, 1}, {0, 0}, {1, 0}, {2, 0}, {3, 1}, {3, 2}, {3, address}, {4, bit}};
  int judged = 0;
  std::set<std::string> classes;
  for (size_t f = 0; f < gen::record_field_count(); ++f) {
    for (const auto& [op, value] : limits) {
      const std::vector<runtime::Mutation> muts =
          gen::field_change(clean.staged, clean.image_offset, f, task, op, value);
      const CorruptRun run = corrupt_bind(g, muts);
      const oracles::CorruptJudgement jd = oracles::judge_corrupt_bind(run.captured, run.bench->memory(), muts);
      ++judged;
      if (const Verdict v = jd.first_failure(); !v.passed()) {
        runtime::OrchProgram shown = g.plan;
        shown.mutations = muts;
        props::report(v, oracles::Counterexample{"corrupt-image", runtime::print_plan(shown), {}, "", ""});
      }
      if (jd.predicted) classes.insert(jd.predicted->accepts() ? "accepted" : jd.predicted->rejected);
    }
  }
  for (const std::string& c : classes) gen::tag("some field: " + c);
  RC_ASSERT(judged > 0);
}

// §11 BadGraphContext, one rule at a time (the random corruptions above rarely break a single
// figure alone): a valid image whose first graph submission record breaks exactly one rule of
// RUNTIME.md §11-§12 -- the block holds what the definition needs (one byte short), the block is
// 64-aligned, record_bytes = 48 + 64 n_bt + 8 n_bs, outer_id names its GRAPH task, the hash is
// the definition's, the counts are the definition's, a block does not overlap the previous
// submission's -- is rejected by attach with BadGraphContext. The record's place and figures are read from the clean bind's shipped bytes.
STACKCHECK_PROP(RuntimeExec, graph_record_near_misses_rejected, 0.5) {
  gen::PlanKnobs k;
  k.min_graphs = 1;
  k.min_submissions = 2;  // a second block to move onto the first
  const gen::GeneratedPlan g = draw(k);
  const oracles::Captured clean = clean_upload(g);
  runtime::RuntimeHeader rh;
  RC_ASSERT(clean.staged.size() >= sizeof rh);
  std::memcpy(&rh, clean.staged.data(), sizeof rh);
  if (rh.graph_count == 0)
    props::report(Verdict::inconclusive(Inconclusive::kInputRejected, "the plan submitted no graph"));
  const uint64_t at = rh.submissions.raw() - clean.destination.raw();  // in the staged upload
  RC_ASSERT(at >= clean.image_offset && at + sizeof(runtime::GraphSubmission) <= clean.staged.size());
  runtime::GraphSubmission s;
  std::memcpy(&s, clean.staged.data() + at, sizeof s);
  struct Rule {
    const char* what;
    size_t field, bytes;
    uint64_t value;
  };
  const Rule rules[] = {
      {"block one byte short", offsetof(runtime::GraphSubmission, block_bytes), 8, s.block_bytes - 1},
      {"block base misaligned", offsetof(runtime::GraphSubmission, block_base), 8, s.block_base.raw() + 8},
      {"record_bytes off by 8", offsetof(runtime::GraphSubmission, record_bytes), 8, s.record_bytes + 8},
      {"outer_id of another task", offsetof(runtime::GraphSubmission, outer_id), 4,
       static_cast<uint32_t>(s.outer_id + 1)},
      {"definition hash changed", offsetof(runtime::GraphSubmission, definition_hash), 8, s.definition_hash ^ 1},
      {"one boundary scalar more", offsetof(runtime::GraphSubmission, n_bs), 2, uint64_t{s.n_bs} + 1u},
      // past the heap; with two graphs or more, the second submission's block moved onto the
      // first's instead (RUNTIME.md §6: each submission its own block, in task order)
      {"block past the graph heap", offsetof(runtime::GraphSubmission, block_base), 8,
       rh.graph_heap.raw() + rh.graph_heap_bytes + 64},
  };
  std::vector<Rule> usable(std::begin(rules), std::end(rules));
  const uint64_t second = (at + s.record_bytes + 63) / 64 * 64;  // the next record (§9: 64-aligned)
  if (rh.graph_count >= 2 && second + sizeof(runtime::GraphSubmission) <= clean.staged.size())
    usable.back() = Rule{"second block onto the first", second - at + offsetof(runtime::GraphSubmission, block_base),
                         8, s.block_base.raw()};
  gen::ChoiceSource& choices = gen::choices();  // uniform over the rules at every size
  const Rule& rule = usable[choices.one_of(usable.size())];
  gen::tag(rule.what);
  std::vector<runtime::Mutation> muts;
  for (size_t i = 0; i < rule.bytes; ++i) {
    const auto now = static_cast<uint8_t>(rule.value >> (8 * i));
    if (now != static_cast<uint8_t>(clean.staged[at + rule.field + i])) {
      runtime::Mutation m;
      m.target = runtime::MutationTarget::kImage;
      m.offset = at + rule.field + i - clean.image_offset;
      m.value = now;
      muts.push_back(m);
    }
  }
  RC_ASSERT(!muts.empty());
  runtime::OrchProgram shown = g.plan;
  shown.mutations = muts;
  Verdict v = oracles::check_rejected_as(corrupt_bind(g, muts).captured.result, "BadGraphContext");
  if (v.failed()) v.message = fmt::format("{}: {}", rule.what, v.message);
  props::report(v, props::counterexample("corrupt-image", runtime::print_plan(shown), {{"expect", "BadGraphContext"}}));
}

// The ready ring at its capacity (RUNTIME.md §5: a ring of Q entries, Q = ready_capacity when
// set): k tasks over disjoint windows are all ready when an adversarial schedule classifies
// them, before any runs, so the ring holds exactly k. With ready_capacity = k the plan binds
// and every task wrote its element; with k - 1 the scheduler latches 104
// (READY_QUEUE_OVERFLOW), never a lost task. Counted from the plan, not from the runtime.
namespace {
using ReadyBind = runtime::BindResult (*)(const runtime::OrchProgram&, const runtime::BindOptions&);
runtime::BindResult stack_ready_bind(const runtime::OrchProgram& p, const runtime::BindOptions& o) {
  return runtime::bind_plan(p, o);
}
void ready_ring_case(ReadyBind bind) {
  gen::ChoiceSource& c = gen::choices();
  const int64_t k = c.chance(30) ? c.near_edges(2, 64) : c.integer(2, 64);
  const uint64_t w = std::bit_ceil(static_cast<uint64_t>(std::max<int64_t>(k, 4)));
  static const runtime::ScheduleOptions::Mode kModes[] = {runtime::ScheduleOptions::Mode::kNewest,
                                                          runtime::ScheduleOptions::Mode::kOldest,
                                                          runtime::ScheduleOptions::Mode::kRandom};
  runtime::BindOptions o;
  o.schedule.mode = kModes[c.one_of(3)];
  o.schedule.seed = static_cast<uint64_t>(c.integer(0, 1000));
  const auto plan_with = [&](int64_t q) {
    std::string text = fmt::format("config W={} ready_capacity={}\ntensor x: InOut [{}]\n", w, q, k);
    for (int64_t i = 0; i < k; ++i) text += fmt::format("submit fill(output_existing x[{}:1], scalar {})\n", i, i + 1);
    runtime::PlanParseResult r = runtime::parse_plan(text);
    RC_ASSERT(r.ok());
    return std::move(r).program();
  };
  gen::tag(fmt::format("ready ring k={}", k <= 3 ? std::to_string(k) : k >= 64 ? "64" : "4-63"));
  const runtime::BindResult at = bind(plan_with(k), o);
  std::vector<uint8_t> want;
  for (int64_t i = 0; i < k; ++i) {
    const int32_t v = static_cast<int32_t>(i + 1);
    const auto* b = reinterpret_cast<const uint8_t*>(&v);
    want.insert(want.end(), b, b + 4);
  }
  if (at.status != 0 || at.entries.size() != 1 || at.entries[0].bytes != want)
    props::report(Verdict::fail("ready-ring", fmt::format("{} independent tasks with ready_capacity={} ({}): {} ({})",
                                                          k, k, runtime::schedule_mode_name(o.schedule.mode),
                                                          runtime::status_line(at), at.detail)));
  const runtime::BindResult past = bind(plan_with(k - 1), o);
  if (past.failure != runtime::BindFailure::kScheduler || past.status != -1104  /* RUNTIME.md §13: -(1000 + 104) */)
    props::report(Verdict::fail("ready-ring", fmt::format("{} independent tasks with ready_capacity={} ({}): {} ({}), "
                                                          "expected the scheduler's latch of 104",
                                                          k, k - 1, runtime::schedule_mode_name(o.schedule.mode),
                                                          runtime::status_line(past), past.detail)));
}
// The control: a ring that holds one entry more than it was given.
runtime::BindResult roomier_ready_bind(const runtime::OrchProgram& p, const runtime::BindOptions& o) {
  runtime::OrchProgram q = p;
  for (runtime::ConfigEntry& e : q.config)
    if (e.key == "ready_capacity") ++e.value;
  return runtime::bind_plan(q, o);
}
}  // namespace

STACKCHECK_PROP(RuntimeExec, ready_ring_at_and_one_past_its_capacity, 0.0) {
  gen::feature_tally().begin_case();  // no program or plan is drawn: the tags count cases here
  ready_ring_case(stack_ready_bind);
}

STACKCHECK_CONTROL(RuntimeExecControl, a_ready_ring_one_entry_roomier_fails, "ready-ring") {
  ready_ring_case(roomier_ready_bind);
}
