// Runtime properties over generated bind plans (RUNTIME.md §15, HARNESS.md §3): the shipped
// image's deltas, position independence, compaction, the one copy, bytes read, slot reset,
// fatal latches, graph storage spans and the status mapping. Every figure is read from what
// the device got (the captured copy, device memory, the copy ledger behind BindStats).
#include <gtest/gtest.h>
#include <gtest/gtest-spi.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <string>
#include <utility>

#include "properties/gen/arbitrary.h"
#include "properties/judge/cases.h"
#include "properties/oracles/bind_checks.h"
#include "properties/oracles/image_checks.h"
#include "properties/oracles/input_oracles.h"
#include "properties/oracles/plan_model.h"
#include "properties/oracles/status_codes.h"
#include "properties/property.h"
#include "stack/runtime/devmem/device_access.h"
#include "stack/runtime/host/bind.h"
#include "stack/runtime/host/runtime_config.h"
#include "stack/runtime/image/compact.h"
#include "stack/runtime/image/graph_def.h"
#include "stack/runtime/image/layout.h"
#include "stack/runtime/image/records.h"
#include "stack/runtime/plan/parser.h"
#include "stack/runtime/plan/printer.h"
#include "stack/runtime/status/codes.h"
#include "stack/support/splitmix.h"

using namespace stackcheck;
using oracles::Inconclusive;
using oracles::Verdict;

namespace {

// Clean plans never latch (their configs are roomy), so the bind properties here also meet a
// plan with one planted fatal code, one case in twenty: require_completed judges its latched
// bind (it uploads nothing, §15.7) and ends the case there.
constexpr int kPlantedSometimes = 5;
gen::PlanKnobs sometimes_planted() {
  gen::PlanKnobs k;
  k.planted_percent = kPlantedSometimes;
  return k;
}

gen::GeneratedPlan draw(const gen::PlanKnobs& knobs = sometimes_planted()) { return gen::draw_plan(knobs); }

// The plan as a counterexample of the running property (rerun by the property's own line).
oracles::Counterexample context(const gen::GeneratedPlan& g) {
  return props::counterexample("property", runtime::print_plan(g.plan));
}
// The replayable form of a structural failure (`stackcheck replay` reruns bind-structure).
oracles::Counterexample structure(const gen::GeneratedPlan& g) {
  return props::counterexample("bind-structure", runtime::print_plan(g.plan));
}

// The same for a latched bind: a planted plan names its code, so the replay expects the latch.
oracles::Counterexample latched_structure(const gen::GeneratedPlan& g) {
  oracles::Counterexample cx = structure(g);
  if (g.planted != 0) cx.params["code"] = std::to_string(g.planted);
  return cx;
}

// A clean plan binds with status 0, or latches a resource its small config lacks
// (inconclusive); anything else is a failure of the runtime on a valid plan.
void require_completed(const oracles::Captured& c, const gen::GeneratedPlan& g) {
  const runtime::BindResult& r = c.result;
  if (g.planted != 0 && r.status == 0)
    props::report(
        Verdict::fail("latch", fmt::format("a plan with planted fatal code {} bound with status 0", g.planted)),
        context(g));
  if (r.status == 0) return;
  gen::tag(fmt::format("{}: {}", runtime::bind_failure_name(r.failure), runtime::status_line(r).substr(0, 24)));
  // Whatever latched it, a latched bind uploads nothing (RUNTIME.md §15.7): judged on every
  // latched bind of every property here, not only on the plans that plant a fatal code.
  if (r.failure == runtime::BindFailure::kLatched)
    props::report(oracles::check_latch_uploads_nothing(c), latched_structure(g));
  if (g.planted != 0 && r.failure == runtime::BindFailure::kLatched) {
    if (!oracles::latched_as_planted(r.status, g.planted))
      props::report(Verdict::fail("planted-latches", fmt::format("a plan with planted code {} latched first: {} ({})",
                                                                 g.planted, runtime::status_line(r), r.detail)),
                    latched_structure(g));
    RC_SUCCEED("a planted fatal code latched; its bind uploaded nothing");
  }
  if (oracles::config_bound_status(r.status))
    props::report(Verdict::inconclusive(Inconclusive::kResourceLatch, runtime::status_line(r),
                                        oracles::latch_code(r.status).value_or(0)));
  props::report(Verdict::fail("bind-status", runtime::status_line(r) + " (" + r.detail + ")"), structure(g));
}

std::unique_ptr<oracles::Bench> bench(const gen::GeneratedPlan& g, uint8_t fill = 0xAA, bool strict = true) {
  std::string why;
  auto b = oracles::Bench::create(g.plan, fill, strict, &why);
  if (!b) props::report(Verdict::fail("config", "the generator's config was rejected: " + why), context(g));
  return b;
}

// The case's bind latches `code` and uploads nothing; the counterexample is a `latch` plan
// whose replay parameters name the code, and `more` (a planted cause).
void expect_latched(const gen::GeneratedPlan& g, int code, std::map<std::string, std::string> more = {}) {
  auto b = bench(g);
  const oracles::Captured c = b->bind(g.plan);
  more.emplace("code", std::to_string(code));
  props::report(oracles::check_latched(c, code),
                props::counterexample("latch", runtime::print_plan(g.plan), std::move(more)));
}

// The bind options of a case: its device schedule drawn as the fuzz targets draw theirs
// (judge::decode_schedule: newest first, oldest first or seeded random, and the threaded
// scheduler one case in eight). These properties judge the image, its copies and its reads,
// which no schedule changes; the one-thread policies make a case replay exactly and cost no
// worker threads (whose wake-ups, with another suite on the other core, tripled these
// properties' time). The threaded scheduler has properties of its own (threaded_props).
runtime::BindOptions case_options() {
  runtime::BindOptions o;
  o.schedule = judge::decode_schedule(gen::choices(), /*threaded=*/true);
  gen::tag(std::string("schedule ") + runtime::schedule_mode_name(o.schedule.mode));
  return o;
}

// A drawn plan (`knobs`) bound once on a Bench (0xAA, strict), its bind completed.
struct BoundPlan {
  gen::GeneratedPlan g;
  std::unique_ptr<oracles::Bench> b;
  oracles::Captured c;
};
BoundPlan bound_plan(const gen::PlanKnobs& knobs = sometimes_planted()) {
  BoundPlan out{draw(knobs), nullptr, {}};
  out.b = bench(out.g);
  out.c = out.b->bind(out.g.plan, case_options());
  require_completed(out.c, out.g);
  return out;
}

}  // namespace

STACKCHECK_PROP(RuntimeProps, plan_print_parse_roundtrip, 0.0) {
  gen::PlanKnobs k;
  k.planted_percent = 30;
  const gen::GeneratedPlan g = draw(k);
  const std::string text = runtime::print_plan(g.plan);
  runtime::PlanParseResult back = runtime::parse_plan(text);
  if (!back.ok())
    props::report(Verdict::fail("plan-roundtrip", "printed plan does not parse: " + back.error().to_string()),
                  context(g));
  if (!(back.program() == g.plan)) props::report(Verdict::fail("plan-roundtrip", "parse(print(p)) != p"), context(g));
  if (runtime::print_plan(back.program()) != text)
    props::report(Verdict::fail("plan-roundtrip", "print is not a fixed point"), context(g));
}

// §15.1: every delta of the shipped image is unbound or resolves to the right record.
STACKCHECK_PROP(RuntimeProps, image_deltas_int32_or_unbound, 0.1) {
  const auto [g, b, c] = bound_plan();
  RC_ASSERT(c.image_bytes == c.result.stats.image);  // the hook saw the image the stats count
  props::report(oracles::check_image_deltas(c.image(), "shipped image"), structure(g));
}

// §15.3: resolution is unchanged after a copy to another base, near 2^31 and 2^32 included.
STACKCHECK_PROP(RuntimeProps, image_position_independent, 0.1) {
  const auto [g, b, c] = bound_plan();
  const uint64_t size = c.image_bytes;
  const uint64_t near31 =
      (uint64_t{1} << 31) - static_cast<uint64_t>(gen::choices().sized(0, static_cast<int64_t>(size)));
  const uint64_t near32 = (uint64_t{1} << 32) - size - static_cast<uint64_t>(gen::choices().sized(1, 4095));
  const uint64_t any = static_cast<uint64_t>(gen::choices().sized(0, (int64_t{1} << 33) - 1)) & ~uint64_t{7};
  for (uint64_t off : {near31, near32, any})
    props::report(oracles::check_position_independent(c.image(), off), context(g));
}

// §15.2: compaction reads only [0, n) and [0, cursor): scrambling every other mirror byte
// leaves its output unchanged, and that output is what was shipped.
STACKCHECK_PROP(RuntimeProps, compaction_reads_only_the_live_prefix, 0.1) {
  const auto [g, b, c] = bound_plan();
  const runtime::Orchestrator& o = b->runtime().orchestrator();
  props::report(oracles::check_compaction_live_prefix(oracles::runtime_compactor(), b->runtime().mirror_live(), o.layout(),
                                                      o.cursors(), o.submitted(), c.image()),
                context(g));
}

// §15.2: each violated precondition is its own clean error, checked before any read.
STACKCHECK_PROP(RuntimeProps, compaction_rejects_violated_preconditions, 0.1) {
  const auto [g, b, c] = bound_plan();
  const unsigned which = static_cast<unsigned>(gen::choices().integer(0, 6));  // uniform at every size
  const uint64_t by = static_cast<uint64_t>(gen::choices().sized(1, (1 << 20) - 1));
  gen::tag(fmt::format("precondition {}", which));
  props::report(oracles::check_compaction_precondition(*b, c.image_bytes, which, by),
                props::counterexample("compaction", runtime::print_plan(g.plan),
                                      {{"precondition", std::to_string(which)}, {"by", std::to_string(by)}}));
}

// Control of precondition 6: a compaction that trusts the mirror's pool deltas (it lets through
// what the stack's compact_live_image refuses as kBadPoolRef) must be caught.
std::optional<runtime::CompactError> trusting_compact(std::span<const std::byte> m, const runtime::MirrorLayout& L,
                                                      runtime::PoolCounts cur, uint64_t n, std::span<std::byte> out) {
  std::optional<runtime::CompactError> e = oracles::stack_compact()(m, L, cur, n, out);
  if (e && e->kind == runtime::CompactErrorKind::kBadPoolRef) return std::nullopt;
  return e;
}
// Precondition 6 judged on a generated plan's mirror with `compact` in the stack's place.
void pool_ref_case(const oracles::CompactRun& compact) {
  const auto [g, b, c] = bound_plan();
  const auto by = static_cast<uint64_t>(gen::choices().sized(0, (1 << 20) - 1));
  if (auto v = oracles::check_compaction_pool_ref(b->runtime().orchestrator(), b->runtime().mirror(), c.image_bytes,
                                                  by, compact))
    props::report(*v, context(g));
}
TEST(RuntimePropsControl, a_compaction_trusting_pool_deltas_fails) {
  EXPECT_FATAL_FAILURE(rc::detail::checkGTest([] { pool_ref_case(trusting_compact); }), "compaction-precondition");
}
// And one that refuses them but states no figure beyond the task and the pool.
std::optional<runtime::CompactError> vague_compact(std::span<const std::byte> m, const runtime::MirrorLayout& L,
                                                   runtime::PoolCounts cur, uint64_t n, std::span<std::byte> out) {
  std::optional<runtime::CompactError> e = oracles::stack_compact()(m, L, cur, n, out);
  if (e && e->kind == runtime::CompactErrorKind::kBadPoolRef)
    e->message = e->message.substr(0, e->message.find(' ', e->message.find(' ', 5) + 1)) + " is bad";
  return e;
}
TEST(RuntimePropsControl, a_compaction_refusal_without_its_figures_fails) {
  EXPECT_FATAL_FAILURE(rc::detail::checkGTest([] { pool_ref_case(vague_compact); }), "does not state");
}

// §15.4: a successful bind makes exactly one image copy, plus one definition copy per new
// definition (the plan model counts the distinct keys); binding again on the same Runtime
// copies no definition and gives the same results (a reused Runtime), though the harness
// reserves and copies beside it as the device memory's direct caller.
STACKCHECK_PROP(RuntimeProps, one_image_copy_per_bind, 0.1) {
  const auto [g, b, first] = bound_plan();
  const oracles::PlanModelResult model = oracles::run_plan_model(g.plan, 0);
  if (!model.ok()) props::report(Verdict::inconclusive(Inconclusive::kInterpreterError, "model: " + *model.error));
  props::report(oracles::check_copies(first.result.stats, model.definitions, g.plan.tensors), structure(g));
  gen::tag(fmt::format("definitions={}", std::min<size_t>(model.definitions, 3)));
  // During the rebind another party (the harness, as the device memory's direct caller)
  // reserves and copies too: the stats count the runtime's own link only.
  runtime::BindOptions foreign;
  runtime::DeviceMemory& mem = b->memory();
  foreign.before_upload = [&mem](runtime::StagedUpload&) -> std::optional<std::string> {
    const runtime::DevAddr at = mem.reserve(64, 64, "harness:foreign");
    const uint64_t word = 0x5a5a5a5a;
    mem.copy_to_device(at, &word, sizeof word);
    return std::nullopt;
  };
  const oracles::Captured again = b->bind(g.plan, foreign);
  require_completed(again, g);
  if (again.result.stats.h2d != 1 || again.result.stats.def_h2d != 0)
    props::report(Verdict::fail("rebind-copies", fmt::format("rebind: h2d={} def_h2d={}", again.result.stats.h2d,
                                                             again.result.stats.def_h2d)),
                  context(g));
  if (!(again.result.entries == first.result.entries))
    props::report(Verdict::fail("reused-runtime", "a second bind on the same Runtime gives other results"), context(g));
  // And the same figures of the plan itself: nothing the first bind counted carries over.
  const runtime::BindStats &a = first.result.stats, &z = again.result.stats;
  if (a.tasks != z.tasks || a.nodes != z.nodes || a.inlined != z.inlined || a.image != z.image ||
      a.shipped != z.shipped || a.graph_internal_heap != z.graph_internal_heap ||
      a.task_heap_high_water != z.task_heap_high_water || a.graph_heap_high_water != z.graph_heap_high_water)
    props::report(Verdict::fail("reused-runtime", fmt::format("the rebind's figures differ from the first bind's:\n  "
                                                              "{}\n  {}",
                                                              a.to_line(), z.to_line())),
                  context(g));
}

// §15.5: a completed run reads every shipped byte: the runtime header, the image, and the
// submissions zone with the padding before and between its records, counted by the device
// memory's read bits over what its copy ledger says was copied (oracles::check_image_read).
// Three plans in four define a graph and submit each of theirs 1..3 times at the root (so
// the zone and the padding between its records are there to be read); tagged by the records
// the bind shipped, as its runtime header says.
STACKCHECK_PROP(RuntimeProps, image_bytes_read_equal_shipped, 0.1) {
  gen::ChoiceSource& choices = gen::choices();  // uniform at every size
  gen::PlanKnobs k = sometimes_planted();
  k.min_graphs = choices.one_of(4) > 0 ? 1 : 0;
  k.min_submissions = 1 + static_cast<int>(choices.one_of(3));
  const auto [g, b, c] = bound_plan(k);
  runtime::RuntimeHeader rh;
  RC_ASSERT(c.staged.size() >= sizeof rh);
  std::memcpy(&rh, c.staged.data(), sizeof rh);
  gen::tag(rh.graph_count == 0   ? "no graph submission"
           : rh.graph_count == 1 ? "1 submission record"
                                 : "2+ submission records");
  props::report(oracles::check_image_read(c, b->memory()), structure(g));
}

namespace {
// The GRAPH tasks of a shipped image, read from its bytes (RUNTIME.md §4: n @20, the
// descriptors at seg_off[0] @56, 32 bytes each, kind @8; 3 = GRAPH).
size_t graph_tasks(const oracles::Captured& c) {
  const std::span<const std::byte> img = c.image();
  if (img.size() < 128) return 0;
  uint32_t n = 0;
  uint64_t desc = 0;
  std::memcpy(&n, img.data() + 20, sizeof n);
  std::memcpy(&desc, img.data() + 56, sizeof desc);
  size_t k = 0;
  for (uint64_t i = 0; i < n; ++i) {
    const uint64_t at = desc + 32 * i + 8;
    if (at > img.size() || img.size() - at < 4) break;
    uint32_t kind = 0;
    std::memcpy(&kind, img.data() + at, sizeof kind);
    k += kind == 3 ? 1 : 0;
  }
  return k;
}
}  // namespace

// §15.6: claims rewrite every field: a mirror poisoned with 0xAA or left zero ships the same
// bytes, and a Runtime that bound another plan first gives the same results.
STACKCHECK_PROP(RuntimeProps, claims_reset_slots, 0.1) {
  const gen::GeneratedPlan g = draw();
  const gen::GeneratedPlan other = draw();
  auto poisoned = bench(g, 0xAA);
  auto zeroed = bench(g, 0x00);
  const runtime::BindOptions o = case_options();  // one schedule for every bind compared
  const oracles::Captured a = poisoned->bind(g.plan, o);
  require_completed(a, g);
  const oracles::Captured z = zeroed->bind(g.plan, o);
  require_completed(z, g);
  if (a.staged != z.staged)
    props::report(Verdict::fail("slot-reset", "a 0xAA mirror and a zero mirror ship different bytes"), context(g));
  auto reused = bench(g, 0xAA);
  (void)reused->bind(other.plan, o);  // whatever it did, the next bind must not see it
  const oracles::Captured r = reused->bind(g.plan, o);
  require_completed(r, g);
  // ... except the graph cache (RUNTIME.md §9): definitions `other` left may fill it, and a
  // submission that misses a full cache runs inline with live scalars where a fresh Runtime
  // records it and freezes its slot arithmetic. Seen in the shipped images: fewer GRAPH tasks.
  if (graph_tasks(r) != graph_tasks(a)) {
    gen::tag("reused cache ran a graph inline");
    return;
  }
  if (!(r.result.entries == a.result.entries))
    props::report(Verdict::fail("reused-mirror", "a reused mirror gives other results"), context(g));
}

// §15.7: a latched fatal uploads nothing (no image, definition or readback copy, no region)
// and reports the mapped status of the FIRST code: a second cause after the planted one
// does not change it. Replayed by `stackcheck replay` (oracle latch, code=N).
STACKCHECK_PROP(RuntimeProps, latched_fatal_uploads_nothing, 0.0) {
  gen::PlanKnobs k;
  k.planted_percent = 100;
  k.small_config = false;
  gen::GeneratedPlan g = draw(k);
  // (A scope left open is only seen when the root scope closes: no second cause after it.)
  if (g.planted != 1 && gen::choices().boolean()) {
    g.plan.body.push_back(runtime::PlanStmt{g.planted == 9 ? runtime::PlanStmt::Node{runtime::WaitTensorStmt{"c"}}
                                                           : runtime::PlanStmt::Node{runtime::FatalStmt{}},
                                            {}});
    gen::tag("second cause");
  }
  auto b = bench(g);
  const oracles::Captured c = b->bind(g.plan);
  gen::tag(fmt::format("planted {}", g.planted));
  // The status is the oracle's own -(1000 + code) (RUNTIME.md §13), not the runtime's mapping.
  props::report(oracles::check_latched(c, g.planted),
                props::counterexample("latch", runtime::print_plan(g.plan), {{"code", std::to_string(g.planted)}}));
}

// Code 5 (invalid arguments) has the most causes, at the root and inside a graph body (a
// nested submit_graph, 17 buffers in one alloc, a scope_end, a wait_tensor, 129 tensors or
// 65 scalars in one submission, each after its legal limit): each is planted here often
// enough to be reached in every run, and must latch 5 and upload nothing.
STACKCHECK_PROP(RuntimeProps, invalid_arguments_latch_5, 0.0) {
  gen::PlanKnobs k;
  k.planted_percent = 100;
  k.planted_code = 5;
  k.small_config = false;  // a small W would let the clean prefix exhaust the window first (code 3)
  const gen::GeneratedPlan g = draw(k);
  expect_latched(g, 5);
}

// Code 5's zero divisor in each place a plan evaluates an expression (gen/plan_gen_fatal.cpp):
// a set, an operand of an operand, a loop's start, stop and step, either side of an if, a fill's
// scalar, a view's offset, a read's index. Wherever it is, the bind latches 5 and uploads nothing.
STACKCHECK_PROP(RuntimeProps, zero_divisor_in_every_place_latches_5, 0.0) {
  gen::PlanKnobs k;
  k.planted_percent = 100;
  k.planted_code = 5;
  k.planted_cause = 0;
  k.max_stmts = 4;  // a short clean prefix
  // The default W (16384): a 4-statement prefix of nested loops can submit more tasks than a
  // small W holds (the campaign's property phase drew one at seed 5 that latched 3 at W=64
  // before the planted 5), and the mirror is filled lazily, so the large W costs little.
  k.small_w_percent = 0;
  const gen::GeneratedPlan g = draw(k);
  expect_latched(g, 5);
}

// Every cause of code 5 in each case (gen/plan_gen_fatal.cpp's ten: a zero divisor, a zero
// loop step, a window outside its buffer or a read of the wrong rank or past its axis or a
// submit_graph of the wrong arity, a tensor after a scalar, a tag its param refuses, an output
// of a bad shape, a graph body breaking one of its twelve rules, ...), each planted in its own
// short plan: a cause's rarer variants, one in thirty of invalid_arguments_latch_5's cases,
// are met in every run. Each binds to latch 5 with nothing uploaded.
STACKCHECK_PROP(RuntimeProps, every_cause_of_5_in_each_case, 0.0) {
  for (int cause = 0; cause < gen::kPlantedCausesOf5; ++cause) {
    gen::PlanKnobs k;
    k.planted_percent = 100;
    k.planted_code = 5;
    k.planted_cause = cause;
    k.max_stmts = 4;        // a short clean prefix
    k.small_w_percent = 0;  // the default W, which no such prefix exhausts (as above)
    const gen::GeneratedPlan g = gen::any_plan(k);
    expect_latched(g, 5, {{"cause", std::to_string(cause)}});
  }
}

// §15.8: each graph submission's block is [required_heap][args][storage] exactly, the
// storage span ends at the last entry's full object: it is readable, one byte past faults.
STACKCHECK_PROP(RuntimeProps, graph_storage_span_exact, 0.2) {
  gen::PlanKnobs k = sometimes_planted();
  k.max_graphs = 3;
  k.min_graphs = 1;
  const auto [g, b, c] = bound_plan(k);
  uint32_t submissions = 0;
  const Verdict v = oracles::check_graph_storage(c, b->memory(), &submissions);
  if (v.passed() && submissions == 0)
    props::report(Verdict::inconclusive(Inconclusive::kInputRejected, "no graph submission ran"));
  gen::tag(fmt::format("submissions {}", std::min<uint32_t>(submissions, 4)));
  props::report(v, structure(g));
}

// §15.9: the status mapping is injective and negative, avoids -1/-2/-3 and round-trips;
// every other status maps back to no code. §13 exactly, from the oracles' own table
// (status_codes.h): a code is listed, maps to -(1000 + c) and back, and is classed a resource
// latch, exactly where the table says.
STACKCHECK_PROP(RuntimeProps, status_mapping_injective, 0.0) {
  // A third of the draws are listed codes and a third their statuses -(1000 + c) (16 of the 4000
  // integers around them would be a 0.4% share), a third any integer (statuses and unlisted codes).
  const auto draw = [] {
    const std::span<const int32_t> codes = runtime::all_codes();
    const auto listed = [&] {
      return codes[static_cast<size_t>(gen::choices().sized(0, static_cast<int64_t>(codes.size()) - 1))];
    };
    switch (gen::choices().one_of(3)) {
      case 0: return static_cast<int32_t>(gen::choices().sized(-2000, 1999));
      case 1: return listed();
      default: return -(1000 + listed());
    }
  };
  const int32_t a = draw(), bcode = draw();
  const bool a_code = runtime::code_class(a).has_value();
  const bool b_code = runtime::code_class(bcode).has_value();
  gen::tag(a_code ? "a listed code" : "an unlisted code");
  if (a_code) {
    const int s = runtime::to_status(a);
    if (s >= 0 || s == -1 || s == -2 || s == -3)
      props::report(Verdict::fail("status-map", fmt::format("code {} maps to reserved status {}", a, s)));
    if (runtime::status_to_code(s) != a)
      props::report(Verdict::fail("status-map", fmt::format("{} does not round-trip", a)));
    if (b_code && a != bcode && runtime::to_status(bcode) == s)
      props::report(Verdict::fail("status-map", fmt::format("codes {} and {} share status {}", a, bcode, s)));
  }
  if (const auto back = runtime::status_to_code(a); back && runtime::to_status(*back) != a)
    props::report(Verdict::fail("status-map", fmt::format("status {} maps to code {} and back elsewhere", a, *back)));
  // §13 as the oracles read it: `a` as a code, then as a status.
  const bool listed = oracles::latch_code(-(1000 + a)) == a;
  if (a_code != listed || runtime::is_listed_code(a) != listed)
    props::report(Verdict::fail("status-table", fmt::format("code {} is {}listed in RUNTIME.md §13", a, listed ? "" : "not ")));
  if (listed && runtime::to_status(a) != -(1000 + a))
    props::report(Verdict::fail("status-table", fmt::format("code {} maps to {}, not -(1000 + {})", a, runtime::to_status(a), a)));
  if (listed && (runtime::code_class(a) == runtime::CodeClass::kResourceLatch) != oracles::config_bound_code(a))
    props::report(Verdict::fail("status-table", fmt::format("code {} is classed {}", a,
                                                            runtime::code_class_name(*runtime::code_class(a)))));
  if (runtime::status_to_code(a) != oracles::latch_code(a) ||
      runtime::is_resource_latch_status(a) != oracles::config_bound_status(a))
    props::report(Verdict::fail("status-table", fmt::format("status {} decodes to code {} (resource {})", a,
                                                            runtime::status_to_code(a).value_or(0),
                                                            runtime::is_resource_latch_status(a))));
}

// §3, §15.1: the offset API binds a delta exactly when the difference is nonzero and within
// int32, and then to that exact difference: never truncated. Differences are drawn around
// the int32 limits (and 2^32) as often as anywhere else.
STACKCHECK_PROP(RuntimeProps, offset_deltas_never_truncated, 0.0) {
  gen::feature_tally().begin_case();  // no program or plan is drawn: the tags count cases here
  const uint64_t field = static_cast<uint64_t>(gen::choices().sized(0, (int64_t{1} << 40) - 1));
  static const int64_t edges[] = {0,
                                  INT32_MAX,
                                  int64_t{INT32_MAX} + 1,
                                  INT32_MIN,
                                  int64_t{INT32_MIN} - 1,
                                  int64_t{1} << 32,
                                  -(int64_t{1} << 32),
                                  int64_t{1} << 33};
  const size_t k = static_cast<size_t>(gen::choices().sized(0, static_cast<int64_t>(std::size(edges))));
  const int64_t near =
      k < std::size(edges) ? edges[k] : gen::choices().sized(-(int64_t{1} << 34), (int64_t{1} << 34) - 1);
  const int64_t diff = near + gen::choices().sized(-2, 2);
  const uint64_t target = field + static_cast<uint64_t>(diff);
  gen::tag(diff > INT32_MAX || diff < INT32_MIN ? "out of int32" : (diff == 0 ? "zero" : "within int32"));
  if (diff == INT32_MAX || diff == INT32_MIN) gen::tag("int32 delta at its limit");
  if (diff == int64_t{INT32_MAX} + 1 || diff == int64_t{INT32_MIN} - 1) gen::tag("int32 delta one past its limit");
  props::report(oracles::check_offset_pair(field, target),
                props::counterexample("relative-ptr", "",
                                      {{"field", std::to_string(field)}, {"target", std::to_string(target)}}));
}

// RUNTIME.md §4's config table as the harness reads it: the field each key sets, its valid
// values (W also a power of two) and the refusal's wording. apply_config, given entries at and
// one past every bound (and far outside), must refuse the first invalid entry in order with
// exactly that wording, or set every field to the last value given for it; validate_config,
// given a RuntimeConfig built in code with one field at a u64 near a bound or past INT64_MAX,
// must refuse exactly the invalid ones (a u64 printed as the u64 it is).
namespace {
struct ConfigSpec {
  const char* key;
  uint64_t runtime::RuntimeConfig::*field;
  int64_t lo, hi;
  const char* text;
};
constexpr ConfigSpec kConfigSpec[] = {
    {"W", &runtime::RuntimeConfig::W, 4, 1 << 19, "a power of two in [4, 2^19]"},
    {"task_heap", &runtime::RuntimeConfig::task_heap, 1024, int64_t{1} << 40, "in [1024, 2^40]"},
    {"graph_heap", &runtime::RuntimeConfig::graph_heap, 64, int64_t{1} << 40, "in [64, 2^40]"},
    {"ready_capacity", &runtime::RuntimeConfig::ready_capacity, 0, int64_t{1} << 32, "in [0, 2^32]"},
    {"tensormap_capacity", &runtime::RuntimeConfig::tensormap_capacity, 1, int64_t{1} << 32, "in [1, 2^32]"},
    {"scope_tasks_capacity", &runtime::RuntimeConfig::scope_tasks_capacity, 0, int64_t{1} << 32, "in [0, 2^32]"},
    {"workers", &runtime::RuntimeConfig::workers, 1, 256, "in [1, 256]"},
    {"progress_timeout_ms", &runtime::RuntimeConfig::progress_timeout_ms, 1, int64_t{1} << 32, "in [1, 2^32]"},
    {"clusters", &runtime::RuntimeConfig::clusters, 1, 65536, "in [1, 65536]"},
    {"fill_byte", &runtime::RuntimeConfig::fill_byte, 0, 255, "in [0, 255]"},
};
bool spec_allows(const ConfigSpec& s, uint64_t v) {
  const bool pow2 = std::string_view(s.key) != "W" || (v & (v - 1)) == 0;
  return v <= static_cast<uint64_t>(INT64_MAX) && static_cast<int64_t>(v) >= s.lo &&
         static_cast<int64_t>(v) <= s.hi && pow2;
}

using ApplyConfig = std::optional<std::string> (*)(std::span<const runtime::ConfigEntry>, runtime::RuntimeConfig&);
using BindFn = runtime::BindResult (*)(const runtime::OrchProgram&, const runtime::BindOptions&);

// The same entries in a plan built as an AST (the parser refuses such a line, so only a
// code-built plan hands bind_plan a value out of range): bind_plan must refuse it before
// anything is made, as an invalid plan (-1: the plan check owns a config line's range, and
// bind_plan's own apply_config, with -2, is only its defence) whose reason is the table's. A
// plan whose entries are all legal is not bound here (W = 2^19 alone is a mirror of many
// megabytes).
// A plan names each key once (the check refuses a repeated one): the first entry of each.
void check_plan_config(const std::vector<runtime::ConfigEntry>& entries, BindFn bind) {
  runtime::OrchProgram plan;
  std::optional<std::string> plan_want;
  std::string plan_shown;
  for (const runtime::ConfigEntry& e : entries) {
    if (std::any_of(plan.config.begin(), plan.config.end(), [&](const auto& x) { return x.key == e.key; })) continue;
    plan.config.push_back(e);
    plan_shown += fmt::format(" {}={}", e.key, e.value);
    const ConfigSpec& s = *std::find_if(std::begin(kConfigSpec), std::end(kConfigSpec),
                                        [&](const ConfigSpec& x) { return x.key == e.key; });
    if (!plan_want && (e.value < 0 || !spec_allows(s, static_cast<uint64_t>(e.value))))
      plan_want = fmt::format("config {}={} is not {}", s.key, e.value, s.text);
  }
  if (plan_want) {
    const runtime::BindResult r = bind(plan, runtime::BindOptions{});
    if (r.failure != runtime::BindFailure::kInvalidPlan || r.status != runtime::kStatusGeneric ||
        r.detail.find(*plan_want) == std::string::npos)
      props::report(Verdict::fail(
          "config", fmt::format("a plan with config{}: bind_plan ended {} (status {}, '{}'), expected an invalid plan "
                                "(status {}) for '{}'",
                                plan_shown, runtime::bind_failure_name(r.failure), r.status, r.detail,
                                runtime::kStatusGeneric, *plan_want)));
    gen::tag("bound a plan of a refused config");
  }
}

// A RuntimeConfig built in code with one key at a bound, past it or past INT64_MAX:
// validate_config says what the table says.
void check_built_config(gen::ChoiceSource& c) {
  const ConfigSpec& s = kConfigSpec[c.one_of(std::size(kConfigSpec))];
  const uint64_t lo = static_cast<uint64_t>(s.lo), hi = static_cast<uint64_t>(s.hi);
  const uint64_t u = c.pick(std::vector<uint64_t>{lo, hi, hi + 1, lo - 1, uint64_t{INT64_MAX},
                                                  uint64_t{INT64_MAX} + 1, UINT64_MAX});
  runtime::RuntimeConfig built;
  built.*s.field = u;
  const std::optional<std::string> built_want =
      spec_allows(s, u) ? std::nullopt : std::optional<std::string>(fmt::format("config {}={} is not {}", s.key, u, s.text));
  gen::tag(u > static_cast<uint64_t>(INT64_MAX) ? "built past INT64_MAX" : "built within INT64_MAX");
  if (const std::optional<std::string> v = runtime::validate_config(built); v != built_want)
    props::report(Verdict::fail("config", fmt::format("a RuntimeConfig with {}={}: validate_config said '{}', the "
                                                      "table '{}'",
                                                      s.key, u, v.value_or("ok"), built_want.value_or("ok"))));
}

void config_case(ApplyConfig apply_config, BindFn bind = runtime::bind_plan) {
  gen::feature_tally().begin_case();  // no program or plan is drawn: the tags count cases here
  gen::ChoiceSource& c = gen::choices();
  std::vector<runtime::ConfigEntry> entries;
  std::optional<std::string> want;
  runtime::RuntimeConfig expect;
  for (int64_t n = c.integer(2, 6); n > 0; --n) {  // 4 a case: each key at each bound in about 6% of cases
    const ConfigSpec& s = kConfigSpec[c.one_of(std::size(kConfigSpec))];
    int64_t v = 0;
    const char* where = "";
    switch (c.one_of(6)) {
      case 0: v = s.lo, where = "at-lo"; break;
      case 1: v = s.hi, where = "at-hi"; break;
      case 2: v = s.lo - 1, where = "below-lo"; break;
      case 3: v = s.hi + 1, where = "past-hi"; break;
      case 4: v = c.integer(s.lo, s.hi), where = "inside"; break;
      default: v = c.near_edges(INT64_MIN, INT64_MAX), where = "far"; break;
    }
    gen::tag(fmt::format("config {} {}", s.key, where));
    entries.push_back(runtime::ConfigEntry{s.key, v, {}});
    if (want) continue;
    if (v >= 0 && spec_allows(s, static_cast<uint64_t>(v)))
      expect.*s.field = static_cast<uint64_t>(v);
    else
      want = fmt::format("config {}={} is not {}", s.key, v, s.text);
  }
  runtime::RuntimeConfig got;
  const std::optional<std::string> why = apply_config(entries, got);
  std::string shown;
  for (const runtime::ConfigEntry& e : entries) shown += fmt::format(" {}={}", e.key, e.value);
  if (why != want)
    props::report(Verdict::fail("config", fmt::format("config{}: apply_config said '{}', the table '{}'", shown,
                                                      why.value_or("ok"), want.value_or("ok"))));
  if (!want)
    for (const ConfigSpec& s : kConfigSpec)
      if (got.*s.field != expect.*s.field)
        props::report(Verdict::fail("config", fmt::format("config{}: {} is {}, the last value given {}", shown, s.key,
                                                          got.*s.field, expect.*s.field)));
  check_plan_config(entries, bind);
  check_built_config(c);
}

// The control: an apply_config that skips an invalid entry instead of refusing it.
std::optional<std::string> apply_skipping_invalid(std::span<const runtime::ConfigEntry> es,
                                                  runtime::RuntimeConfig& cfg) {
  std::vector<runtime::ConfigEntry> valid;
  for (const runtime::ConfigEntry& e : es)
    if (!runtime::check_config_value(e.key, e.value)) valid.push_back(e);
  return runtime::apply_config(valid, cfg);
}
// The control of the bind: a bind_plan that drops the plan's config lines (binding with the
// defaults) instead of refusing one out of range.
runtime::BindResult bind_ignoring_config(const runtime::OrchProgram& p, const runtime::BindOptions& o) {
  runtime::OrchProgram q = p;
  q.config.clear();
  return runtime::bind_plan(q, o);
}
}  // namespace

STACKCHECK_PROP(RuntimeProps, config_values_at_and_past_every_bound, 0.0) { config_case(runtime::apply_config); }

STACKCHECK_CONTROL(RuntimePropsControl, an_apply_config_skipping_invalid_entries_fails, "config") {
  config_case(apply_skipping_invalid);
}
STACKCHECK_CONTROL(RuntimePropsControl, a_bind_ignoring_a_refused_config_fails, "expected an invalid plan") {
  config_case(runtime::apply_config, bind_ignoring_config);
}
