// Determinism in one process (the CLI's and the fuzz targets' across processes are ctests:
// cli/determinism_test.sh, fuzz/determinism_test.sh): the same input gives the same
// result twice. A generated program compiles to the same legalized program and plan; the
// plan, bound twice on fresh runtimes under the same schedule (threaded with 1..8 workers, or
// a random order), ships the same bytes and ends with the same status, figures and entry
// tensors (oracles/digest.h); bound again on the runtime it just used (the reused mirror
// and cached definitions: figures such as def_h2d may differ there), it gives the same
// status and entry tensors. Generated bind plans likewise. A digest is a fold over observed
// results (the shipped bytes as copied, the tensors read back), never a figure the code under
// test reports about itself.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "properties/gen/arbitrary.h"
#include "properties/oracles/bind_checks.h"
#include "properties/oracles/capacity.h"
#include "properties/oracles/compiler_oracles.h"
#include "properties/oracles/digest.h"
#include "properties/oracles/end_to_end.h"
#include "properties/oracles/image_checks.h"
#include "properties/oracles/plan_model.h"
#include "properties/oracles/region_growth.h"
#include "properties/oracles/status_codes.h"
#include "properties/property.h"
#include "stack/ir/printer.h"
#include "stack/runtime/host/bind.h"
#include "stack/runtime/plan/parser.h"
#include "stack/runtime/plan/printer.h"
#include "stack/runtime/status/codes.h"

using namespace stackcheck;

namespace {

runtime::ScheduleOptions draw_schedule() {
  runtime::ScheduleOptions s;
  if (gen::choices().boolean()) {
    s = *oracles::parse_schedule("threaded");
    s.workers = static_cast<unsigned>(gen::choices().sized(1, 8));
  } else {
    s = *oracles::parse_schedule(
        fmt::format("random:{}", static_cast<uint64_t>(gen::choices().sized(0, (1 << 20) - 1))));
  }
  return s;
}

uint64_t entries_digest(const runtime::BindResult& r) {
  runtime::BindResult only;
  only.status = r.status;
  only.entries = r.entries;
  return oracles::digest_bind(support::kFnvOffset, only);
}

// Two fresh benches for one plan, poisoned with 0xAA and without a copy ledger; `why` says
// why the runtime rejected the plan's config when either is null.
struct TwoBenches {
  std::unique_ptr<oracles::Bench> first, second;
  std::string why;
};
TwoBenches two_benches(const runtime::OrchProgram& plan) {
  TwoBenches t;
  t.first = oracles::Bench::create(plan, 0xAA, false, &t.why);
  t.second = oracles::Bench::create(plan, 0xAA, false, &t.why);
  return t;
}
oracles::Verdict config_rejected(const std::string& why) {
  return oracles::Verdict::inconclusive(oracles::Inconclusive::kUnsupported, "config rejected: " + why);
}
runtime::BindOptions bind_options(uint64_t seed, const runtime::ScheduleOptions& sched) {
  runtime::BindOptions o;
  o.seed = seed;
  o.schedule = sched;
  return o;
}

// Two fresh binds and one more on the second's runtime: the verdict.
// `second_seed` (the positive control only) binds the second with another seed.
oracles::Verdict bind_thrice(const runtime::OrchProgram& plan, uint64_t seed, const runtime::ScheduleOptions& sched,
                             std::optional<uint64_t> second_seed = std::nullopt) {
  auto [first, second, why] = two_benches(plan);
  if (!first || !second) return config_rejected(why);
  runtime::BindOptions o = bind_options(seed, sched);
  const oracles::Captured a = first->bind(plan, o);
  if (second_seed) o.seed = *second_seed;
  const oracles::Captured b = second->bind(plan, o), c = second->bind(plan, o);
  const uint64_t da = oracles::digest_bind(support::kFnvOffset, a.result, a.staged);
  const uint64_t db = oracles::digest_bind(support::kFnvOffset, b.result, b.staged);
  const std::string where = fmt::format("schedule {} seed {}", oracles::schedule_text(sched), seed);
  if (da != db)
    return oracles::Verdict::fail(
        "determinism", fmt::format("two fresh binds differ ({}): {:016x} {} [{}] vs {:016x} {} [{}]", where, da,
                                   runtime::status_line(a.result), a.result.stats.to_line(), db,
                                   runtime::status_line(b.result), b.result.stats.to_line()));
  if (entries_digest(b.result) != entries_digest(c.result))
    return oracles::Verdict::fail("determinism",
                                  fmt::format("a bind on a reused runtime differs ({}): {} vs {}", where,
                                              runtime::status_line(b.result), runtime::status_line(c.result)));
  return oracles::Verdict::pass();
}

}  // namespace

STACKCHECK_PROP(Determinism, programs_compile_and_run_alike_twice, 0.1) {
  const gen::GeneratedProgram g = gen::any_program();
  gen::tag_features(g.features);
  const bool step_c = gen::choices().boolean();
  const passes::PipelineOptions po{.graph_boundary = {.step_c = step_c}};
  props::require_legal_compile(g.program, step_c);
  oracles::CompiledPlan one = oracles::compile_to_plan(g.program, po);
  oracles::CompiledPlan two = oracles::compile_to_plan(g.program, po);
  const oracles::Counterexample cx{"property", ir::print_program(g.program), {}, "", ""};
  if (one.verdict.kind != two.verdict.kind || one.verdict.message != two.verdict.message)
    props::report(oracles::Verdict::fail("determinism", fmt::format("two compiles judged differently: {} vs {}",
                                                                    one.verdict.to_string(), two.verdict.to_string())),
                  cx);
  if (!one.verdict.passed()) props::report(one.verdict, cx);
  const std::string legal_one = ir::print_program(one.pipeline.stages.back().program);
  const std::string legal_two = ir::print_program(two.pipeline.stages.back().program);
  if (legal_one != legal_two || runtime::print_plan(one.plan) != runtime::print_plan(two.plan))
    props::report(oracles::Verdict::fail("determinism", "two compiles printed different programs or plans"), cx);
  runtime::OrchProgram plan = one.plan;
  plan.config.push_back({"W", gen::choices().pick(std::vector<int64_t>{64, 256, 1024}), {}});
  props::report(bind_thrice(plan, static_cast<uint64_t>(gen::choices().sized(0, 999)), draw_schedule()), cx);
}

STACKCHECK_PROP(Determinism, plans_bind_alike_twice, 0.2) {
  const gen::GeneratedPlan g = gen::draw_plan();
  props::report(bind_thrice(g.plan, static_cast<uint64_t>(gen::choices().sized(0, 999)), draw_schedule()),
                oracles::Counterexample{"property", runtime::print_plan(g.plan), {}, "", ""});
}

// A Runtime carries state from one bind to the next: the latch, the heaps, the tensormap, the
// mirror, the scopes, the graph cache. Whatever it keeps, a bind on a used Runtime must end
// as on a fresh one. `history` binds first (clean plans and plans with a planted fatal code,
// under the target's config), then `plan`; the verdict compares that last bind with one on a
// fresh Runtime: the status line, the entry tensors read back, and every figure of the
// stats line that does not describe what a Runtime keeps by design: the graph cache (defs,
// def_h2d and reserved.definitions may shrink on a Runtime whose cache already holds a
// definition, RUNTIME.md §9) and the region, which only grows (§5): the used Runtime's region
// (dev + cp) is at least the fresh one's.
// `used_seed` (the positive control only) binds the plan on the used Runtime with another
// seed, so its In tensors start from other values and the oracle must report a difference.
std::string cache_free_stats(runtime::BindStats s) {
  s.defs = s.def_h2d = 0;
  s.reserved.definitions = s.reserved.device_only = s.reserved.copied = 0;
  // A bind that shipped nothing (a latch) plans no image: a used runtime's region still holds
  // the image and submissions parts an earlier bind planned, which a fresh one has not.
  if (s.h2d == 0) s.reserved.image = s.reserved.submissions = 0;
  return s.to_line();
}

// `p` printed as comment lines under `title`.
std::string commented(std::string_view title, const runtime::OrchProgram& p) {
  std::string text = fmt::format("# {}:\n", title);
  const std::string printed = runtime::print_plan(p);
  for (std::string_view rest = printed; !rest.empty();) {
    const size_t nl = rest.find('\n');
    text += fmt::format("#   {}\n", rest.substr(0, nl));
    rest = nl == std::string_view::npos ? std::string_view() : rest.substr(nl + 1);
  }
  return text;
}

// Graph definitions a Runtime keeps (RUNTIME.md §9), as the spec gives it.
constexpr size_t kGraphCacheSize = 16;

// One earlier bind on the used Runtime: its plan and the orchestration budget it runs under
// (BindOptions::max_statements): the default, or one that stops it part way, perhaps inside a
// graph's recording, which must then leave nothing behind (RUNTIME.md §9: nothing is recorded
// when the body does not complete).
struct Earlier {
  runtime::OrchProgram plan;
  uint64_t max_statements = runtime::BindOptions{}.max_statements;
};

// Binds the earlier plans on the used Runtime, each with this plan's config and its own budget;
// returns what they ended with, for the message (" [status]" each).
// The region's growth is judged after every bind on `used` (the first failure kept in *region).
std::string bind_history(oracles::Bench& used, const runtime::OrchProgram& plan, const std::vector<Earlier>& history,
                         const runtime::BindOptions& o, oracles::RegionGrowth& growth, oracles::Verdict* region) {
  std::string before;
  for (const Earlier& h : history) {
    runtime::OrchProgram same_config = h.plan;
    same_config.config = plan.config;
    runtime::BindOptions ho = o;
    ho.max_statements = h.max_statements;
    const oracles::Captured r = used.bind(same_config, ho);
    if (region->passed()) *region = growth.after_bind(r, used.memory());
    before += fmt::format(" [{}{}]", runtime::status_line(r.result),
                          h.max_statements == o.max_statements ? "" : fmt::format(" at budget {}", h.max_statements));
  }
  return before;
}

// Whether the earlier plans may fill the graph cache where this plan alone does not (the reasoning
// is at its use in bind_after_history).
bool history_may_fill_cache(const runtime::OrchProgram& plan, const std::vector<Earlier>& history, uint64_t seed) {
  const auto keys = [&](const runtime::OrchProgram& q) -> size_t {
    if (q.graphs.empty()) return 0;
    const oracles::PlanModelResult m = oracles::run_plan_model(q, seed);
    return m.ok() ? m.definitions + (m.inlined != 0 ? 1 : 0) : kGraphCacheSize;
  };
  size_t left_behind = 0;
  for (const Earlier& h : history) left_behind += keys(h.plan);
  return left_behind != 0 && left_behind + keys(plan) > kGraphCacheSize;
}

oracles::Verdict bind_after_history(const runtime::OrchProgram& plan, const std::vector<Earlier>& history,
                                    uint64_t seed, const runtime::ScheduleOptions& sched,
                                    std::optional<uint64_t> used_seed = std::nullopt) {
  auto [used, fresh, why] = two_benches(plan);
  if (!used || !fresh) return config_rejected(why);
  runtime::BindOptions o = bind_options(seed, sched);
  oracles::RegionGrowth growth, fresh_growth;
  oracles::Verdict grown = oracles::Verdict::pass();
  const std::string before = bind_history(*used, plan, history, o, growth, &grown);
  const oracles::Captured b = fresh->bind(plan, o);
  if (used_seed) o.seed = *used_seed;
  const oracles::Captured a = used->bind(plan, o);
  // The region after every bind of the used Runtime and of the fresh one (§5's growth rule).
  if (grown.passed()) grown = growth.after_bind(a, used->memory());
  if (grown.passed()) grown = fresh_growth.after_bind(b, fresh->memory());
  if (grown.failed()) {
    grown.message = fmt::format("after the binds{} and this plan's: {}", before, grown.message);
    return grown;
  }
  // What a user reads of it: on a used Runtime the region may be larger than the upload (§5),
  // so figures that a fresh bind makes equal (shipped, reserved.cp) differ here.
  if (oracles::Verdict r = oracles::check_bind_report(a, used->memory()); r.failed()) {
    r.message = fmt::format("after {} bind(s) on one runtime: {}", history.size(), r.message);
    return r;
  }
  // A Runtime that bound several plans (graph definitions cached, entries, a grown region)
  // leaves nothing reserved when it goes.
  if (oracles::Verdict t = used->check_teardown(); t.failed()) {
    t.message = fmt::format("after {} bind(s) on one runtime: {}", history.size() + 1, t.message);
    return t;
  }
  // Whether the earlier binds may have filled the used Runtime's cache where this plan alone
  // does not fill a fresh one's (§9: at most 16 definitions, kept for the Runtime's life): each
  // earlier plan leaves at most the distinct keys the plan model counts for it (all 16 when the
  // model does not run it, e.g. a planted fatal), and this plan needs its own. A submission that
  // misses a full cache runs inline, and one whose inline run a latch cuts short is counted
  // nowhere (found by the zoo's control fuzzing this property: W=64, 18 graphs, one definition
  // left by an earlier plan; both binds latched TASK_WINDOW_EXHAUSTED at 64 tasks, the used one
  // with 80 nodes recorded, the fresh one with 89, inlined=0 in both).
  const bool cache_may_fill = history_may_fill_cache(plan, history, o.seed);
  if (cache_may_fill) gen::tag("history-cache-may-fill");
  const std::string sa = cache_free_stats(a.result.stats), sb = cache_free_stats(b.result.stats);
  const auto region = [](const runtime::BindStats& st) { return st.reserved.device_only + st.reserved.copied; };
  // A full graph cache (§9: 16 resident definitions, kept for the Runtime's life) runs graph
  // submissions inline on the used Runtime that a fresh one records and replays: the task
  // list's figures differ, and so may the results, since an inline run evaluates the slot
  // arithmetic a recording freezes. Then only the status must agree (check_plan_model judges
  // inline runs against the model on fresh Runtimes).
  const bool inlined = a.result.stats.inlined != 0 || b.result.stats.inlined != 0 || cache_may_fill;
  // Inline runs take other room than recordings (every node a task of the window, its buffers
  // on the task heap): a used Runtime that inlined more than the fresh one may run out of a
  // resource the fresh one did not (found by the zoo's control fuzzing this property: a full
  // cache, 17 graph runs inlined against 2, W=64 exhausted). That latch, and only that one,
  // is the cache's doing.
  if ((a.result.stats.inlined > b.result.stats.inlined || cache_may_fill) && a.result.status != b.result.status &&
      oracles::config_bound_status(a.result.status)) {
    gen::tag("history-inlined-ran-out");
    return oracles::Verdict::pass();
  }
  if (runtime::status_line(a.result) != runtime::status_line(b.result) ||
      (!inlined && (entries_digest(a.result) != entries_digest(b.result) || sa != sb ||
                    region(a.result.stats) < region(b.result.stats))))
    return oracles::Verdict::fail(
        "history",
        fmt::format("after {} earlier bind(s) on the same runtime ({}), the plan binds otherwise than on a fresh one "
                    "(schedule {} seed {}): {} [{}] vs fresh {} [{}]",
                    history.size(), before.empty() ? "-" : before.substr(1), oracles::schedule_text(sched), seed,
                    runtime::status_line(a.result), a.result.stats.to_line(), runtime::status_line(b.result),
                    b.result.stats.to_line()));
  return oracles::Verdict::pass();
}

STACKCHECK_PROP(Determinism, a_used_runtime_binds_like_a_fresh_one, 0.2) {
  gen::GeneratedPlan g = gen::draw_plan();
  // A third of the cases bind at a capacity's limit: the least tensormap capacity, task heap
  // or graph heap this plan binds with, so that anything an earlier bind left behind in that
  // resource makes the used Runtime latch where the fresh one does not. Their earlier plans
  // define no graph: a graph cache the used Runtime keeps (§9, by design) would run some of
  // this plan's submissions inline, which takes other room than recording them.
  bool at_limit = false;
  if (gen::choices().chance(35)) {
    static const std::vector<std::pair<std::string, std::pair<int64_t, int64_t>>> kLimits = {
        {"tensormap_capacity", {1, 4096}}, {"task_heap", {1024, 1 << 20}}, {"graph_heap", {64, 1 << 20}}};
    const auto& [key, range] = gen::choices().pick(kLimits);
    // (the least tensormap capacity, task heap or graph heap that binds, measured by binding)
    const oracles::PlanBinder fresh = [](const runtime::OrchProgram& q) { return runtime::bind_plan(q); };
    if (const std::optional<int64_t> least = oracles::least_binding(g.plan, key, range.first, range.second, fresh)) {
      g.plan = oracles::with_config(g.plan, key, *least);
      gen::tag("at-limit-" + key);
      at_limit = true;
    }
  }
  std::vector<Earlier> history;
  std::string text;
  const int n = static_cast<int>(gen::choices().sized(1, 3));
  for (int i = 0; i < n; ++i) {
    // A quarter of the earlier binds are this very plan stopped by a budget short of its
    // statements (loop trips included), often inside a graph's body: what it had begun
    // recording must not reach the graph cache the final bind then finds.
    if (!at_limit && gen::choices().chance(25)) {
      const oracles::PlanModelResult model = oracles::run_plan_model(g.plan, 0);
      if (model.statements > 1) {
        const auto budget =
            static_cast<uint64_t>(gen::choices().integer(1, static_cast<int64_t>(model.statements) - 1));
        history.push_back(Earlier{g.plan, budget});
        text += fmt::format("# bound before it on the same runtime ({} of {}): this plan with max_statements={}\n",
                            history.size(), n, budget);
        gen::tag(g.plan.graphs.empty() ? "history-cut-short" : "history-cut-short-graphs");
        continue;
      }
    }
    // half of the earlier plans latch a fatal code: the latch, the heaps' marks and the
    // tensormap must all be reset by the next bind
    runtime::OrchProgram h = gen::draw_plan(gen::PlanKnobs{.max_graphs = at_limit ? 0 : 2, .planted_percent = 50}).plan;
    if (at_limit && !h.graphs.empty()) continue;  // (a planted cause or a full-cache plan brings graphs)
    history.push_back(Earlier{std::move(h)});
    text += commented(fmt::format("bound before it on the same runtime ({} of {})", history.size(), n),
                      history.back().plan);
  }
  gen::tag(fmt::format("history-{}", history.size()));
  props::report(
      bind_after_history(g.plan, history, static_cast<uint64_t>(gen::choices().sized(0, 999)), draw_schedule()),
      oracles::Counterexample{"property", runtime::print_plan(g.plan) + text, {}, "", ""});
}

// Bench::reset (what a process that judges many inputs does between them) leaves no trace:
// `first` is bound on a bench (any outcome, any config), which is then reset for `plan`; `plan`
// bound on it and on a fresh bench must give the same bind (status, stats, trace, entries, the
// shipped bytes) and leave the same mirror and device memory (oracles::check_same_bench_state).
// `how` (the positive control only) leaves a step of the reset out.
oracles::Verdict reset_binds_as_fresh(const runtime::OrchProgram& first, const runtime::OrchProgram& plan, uint8_t fill,
                                      bool strict, uint64_t seed, const runtime::ScheduleOptions& sched,
                                      oracles::BenchReset how = oracles::BenchReset::kFull) {
  std::string why;
  // The earlier bench has the other strictness, so the reset must change that too.
  auto used = oracles::Bench::create(first, fill, !strict, &why);
  if (!used) return config_rejected(why);
  const runtime::BindOptions o = bind_options(seed, sched);
  const oracles::Captured before = used->bind(first, o);
  if (!used->reset(plan, fill, strict, &why, how)) return config_rejected(why);
  auto fresh = oracles::Bench::create(plan, fill, strict, &why);
  if (!fresh) return oracles::Verdict::fail("bench-reset", "a fresh bench rejects a config the reset took: " + why);
  const oracles::Captured a = used->bind(plan, o), b = fresh->bind(plan, o);
  const uint64_t da = oracles::digest_bind(support::kFnvOffset, a.result, a.staged);
  const uint64_t db = oracles::digest_bind(support::kFnvOffset, b.result, b.staged);
  const std::string where = fmt::format("after a bind ending {}, schedule {} seed {}",
                                        runtime::status_line(before.result), oracles::schedule_text(sched), seed);
  if (da != db)
    return oracles::Verdict::fail("bench-reset",
                                  fmt::format("the bind on a reset bench differs ({}): {} [{}] vs fresh {} [{}]", where,
                                              runtime::status_line(a.result), a.result.stats.to_line(),
                                              runtime::status_line(b.result), b.result.stats.to_line()));
  oracles::Verdict v = oracles::check_same_bench_state(*used, *fresh);
  if (v.failed()) v.message = fmt::format("{}: {}", where, v.message);
  return v;
}

// corpus/plans/example.plan, parsed: the controls' fixture (a parse failure fails the test and
// gives an empty plan).
runtime::OrchProgram example_plan() {
  std::ifstream in(std::filesystem::path(STACKCHECK_CORPUS_DIR) / "plans" / "example.plan");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  runtime::PlanParseResult parsed = runtime::parse_plan(text);
  EXPECT_TRUE(parsed.ok()) << parsed.error().to_string();
  return parsed.ok() ? parsed.program() : runtime::OrchProgram{};
}

// The oracle's positive control: binds that really differ (the second with another seed,
// so the In tensors start from other values) must be reported; the same seed must not.
TEST(Determinism, control_differing_binds_are_reported) {
  const runtime::OrchProgram example = example_plan();
  ASSERT_FALSE(example.body.empty());
  const runtime::ScheduleOptions sched = *oracles::parse_schedule("oldest");
  EXPECT_TRUE(bind_thrice(example, 3, sched).passed());
  const oracles::Verdict v = bind_thrice(example, 3, sched, 4);
  EXPECT_TRUE(v.failed()) << v.to_string();
  EXPECT_EQ(v.rule, "determinism");
}

STACKCHECK_PROP(Determinism, reset_bench_binds_as_fresh, 0.2) {
  // The earlier bind: a plan of any config and fill, half of them with a planted fatal code.
  const gen::GeneratedPlan first = gen::draw_plan(gen::PlanKnobs{.planted_percent = 50});
  const gen::GeneratedPlan g = gen::draw_plan();
  const uint8_t fill = gen::choices().boolean() ? 0xAA : 0x00;
  const bool strict = gen::choices().boolean();
  runtime::ScheduleOptions sched =
      *oracles::parse_schedule(fmt::format("random:{}", static_cast<uint64_t>(gen::choices().sized(0, (1 << 20) - 1))));
  props::report(
      reset_binds_as_fresh(first.plan, g.plan, fill, strict, static_cast<uint64_t>(gen::choices().sized(0, 999)),
                           sched),
      oracles::Counterexample{
          "property", runtime::print_plan(g.plan) + commented("bound before on the bench", first.plan), {}, "", ""});
}

// The reset oracle's positive control: a reset that leaves the device memory as the earlier
// bind left it (its reservations, ledger and next base) must be reported; a full one must not.
TEST(Determinism, control_reset_keeping_memory_is_reported) {
  const runtime::OrchProgram example = example_plan();
  ASSERT_FALSE(example.body.empty());
  const runtime::ScheduleOptions sched = *oracles::parse_schedule("oldest");
  const runtime::OrchProgram& p = example;
  EXPECT_TRUE(reset_binds_as_fresh(p, p, 0xAA, true, 3, sched).passed());
  const oracles::Verdict v = reset_binds_as_fresh(p, p, 0xAA, true, 3, sched, oracles::BenchReset::kKeepMemory);
  EXPECT_TRUE(v.failed()) << v.to_string();
  EXPECT_EQ(v.rule, "bench-reset");
}

// The teardown oracle's positive control: a bench whose Runtime bound the example plan (a
// graph definition uploaded, entries, a region) tears down clean; one whose device memory
// keeps a reservation past the Runtime (as a Runtime that forgot one would) is reported.
TEST(Determinism, control_teardown_sees_a_reservation_left_live) {
  const runtime::OrchProgram example = example_plan();
  ASSERT_FALSE(example.body.empty());
  const runtime::OrchProgram& p = example;
  for (const bool leak : {false, true}) {
    auto bench = oracles::Bench::create(p, 0xAA, true);
    ASSERT_TRUE(bench);
    const oracles::Captured c = bench->bind(p);
    ASSERT_EQ(c.result.status, 0) << runtime::status_line(c.result);
    if (leak) (void)bench->memory().reserve(4096, 64, "graph_definition");
    const oracles::Verdict v = bench->check_teardown();
    EXPECT_EQ(v.failed(), leak) << v.to_string();
    if (leak) {
      EXPECT_EQ(v.rule, "teardown");
    }
  }
}

// The history oracle's positive control: the same plan after a history of two planted-fatal
// binds must pass; bound on the used Runtime with another seed it must be reported.
TEST(Determinism, control_history_differences_are_reported) {
  const runtime::OrchProgram example = example_plan();
  ASSERT_FALSE(example.body.empty());
  const runtime::ScheduleOptions sched = *oracles::parse_schedule("oldest");
  const std::vector<Earlier> history{{example}, {example}};
  EXPECT_TRUE(bind_after_history(example, history, 3, sched).passed());
  const oracles::Verdict v = bind_after_history(example, history, 3, sched, 4);
  EXPECT_TRUE(v.failed()) << v.to_string();
  EXPECT_EQ(v.rule, "history");
}
