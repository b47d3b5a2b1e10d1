// The plan model (plan_model.h): its semantics against values worked out by hand, and the
// same programs bound by the runtime, so each feature the model reproduces (entry inputs,
// builtins, frozen graph values, re-recording on a new key, inline runs past 16 definitions)
// is seen to agree with the device; then its refusals and check_plan_model's verdicts,
// positive controls included.
#include "properties/oracles/plan_model.h"

#include <gtest/gtest.h>

#include <cstring>

#include "stack/runtime/host/test_support.h"
#include "stack/runtime/plan/parser.h"
#include "stack/support/splitmix.h"

namespace stackcheck::oracles {
namespace {

runtime::OrchProgram parse(std::string_view text) {
  runtime::PlanParseResult r = runtime::parse_plan(text);
  EXPECT_TRUE(r.ok()) << r.error().to_string() << "\n" << text;
  return r.ok() ? r.program() : runtime::OrchProgram{};
}

std::vector<int32_t> as_i32(const std::vector<uint8_t>& bytes) {
  std::vector<int32_t> v(bytes.size() / 4);
  std::memcpy(v.data(), bytes.data(), v.size() * 4);
  return v;
}

// The model's entries, which must exist.
std::vector<ModelEntry> model_of(const runtime::OrchProgram& p, uint64_t seed = 0) {
  const PlanModelResult r = run_plan_model(p, seed);
  EXPECT_TRUE(r.ok()) << *r.error;
  return r.entries;
}

// The same program on the device, judged by the oracle: it must pass.
void expect_device_agrees(const runtime::OrchProgram& p, uint64_t seed = 0) {
  runtime::BindOptions o;
  o.seed = seed;
  o.fill_byte = 0xAA;
  o.schedule.mode = runtime::ScheduleOptions::Mode::kNewest;
  const runtime::BindResult r = runtime::bind_plan(p, o);
  ASSERT_EQ(r.status, 0) << r.detail;
  const Verdict v = check_plan_model(p, seed, r);
  EXPECT_TRUE(v.passed()) << v.to_string();
}

// The i32 inputs bind draws: one splitmix64 value per element, in declaration order.
std::vector<int32_t> inputs(uint64_t seed, size_t n) {
  support::SplitMix64 rng(seed);
  std::vector<int32_t> v(n);
  for (int32_t& x : v) x = static_cast<int32_t>(static_cast<uint32_t>(rng.next()));
  return v;
}

TEST(PlanModel, entries_filled_like_bind) {
  const runtime::OrchProgram p = parse("tensor x: In [4]\ntensor c: InOut [2, 3]\n");
  const std::vector<ModelEntry> e = model_of(p, 7);
  ASSERT_EQ(e.size(), 2u);
  const std::vector<int32_t> draws = inputs(7, 10);
  EXPECT_EQ(e[0].name, "x");
  EXPECT_FALSE(e[0].inout);
  EXPECT_EQ(as_i32(e[0].bytes), std::vector<int32_t>(draws.begin(), draws.begin() + 4));
  EXPECT_EQ(e[1].name, "c");
  EXPECT_TRUE(e[1].inout);
  EXPECT_EQ(as_i32(e[1].bytes), std::vector<int32_t>(draws.begin() + 4, draws.end()));
  expect_device_agrees(p, 7);
}

TEST(PlanModel, builtins_by_hand) {
  const runtime::OrchProgram p = parse(R"(tensor c: InOut [2, 2]
alloc a: [2, 2]
alloc b: [2, 2]
submit fill(output_existing a, scalar 3)
view a1 = a[1:1, 0:2]
submit fill(output_existing a1, scalar -1)
submit fill(output_existing b, scalar 2)
submit matmul(input a, input b, output m: [2, 2])
submit add(input m, input b, output s: [2, 2])
submit scale(input s, output_existing s, scalar 4294967298)
alloc r: [2, 1]
submit rowsum(input s, output_existing r)
submit copy(input s, output_existing c)
view c0 = c[0:2, 0:1]
submit acc(input r, inout c0)
)");
  // a = [[3,3],[-1,-1]], b = 2: m = [[12,12],[-4,-4]], s = m + 2 = [[14,14],[-2,-2]], then
  // s *= i32(2^32 + 2) = 2: [[28,28],[-4,-4]]; r = [[56],[-8]]; c = s, c[:,0] += r.
  const std::vector<ModelEntry> e = model_of(p);
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(as_i32(e[0].bytes), (std::vector<int32_t>{84, 28, -12, -4}));
  expect_device_agrees(p);
}

TEST(PlanModel, i32_wrap_around) {
  const runtime::OrchProgram p = parse(
      "tensor c: InOut [2]\nalloc a: [2]\nsubmit fill(output_existing a, scalar 2147483647)\n"
      "submit add(input a, input a, output_existing c)\n");
  EXPECT_EQ(as_i32(model_of(p)[0].bytes), (std::vector<int32_t>{-2, -2}));
  expect_device_agrees(p);
}

// gint from the plan: each GRAPH task's internal buffers, ALIGN64 each (8 i32: 32 -> 64 bytes;
// [3, 5]: 60 -> 64; [40]: 160 -> 192), summed over both submissions; nodes: 4 a submission
// (the alloc is a node too).
TEST(PlanModel, graph_internal_heap_and_nodes_predicted) {
  const runtime::OrchProgram p = parse(R"(tensor x: In [16]
tensor c: InOut [16]
graph g(a, b) {
  alloc t: [8], u: [3, 5]
  submit copy(input a, output_existing t)
  submit acc(input t, inout b)
  submit fill(output w: [40], scalar 1)
}
submit_graph g(input x[0:8], inout c[0:8])
submit_graph g(input x[8:8], inout c[8:8])
)");
  const PlanModelResult m = run_plan_model(p, 0);
  ASSERT_TRUE(m.ok()) << *m.error;
  EXPECT_EQ(m.graph_internal, 2u * (64 + 64 + 192));
  const runtime::BindResult r = runtime::bind_plan(p);
  ASSERT_EQ(r.status, 0) << r.detail;
  EXPECT_EQ(r.stats.graph_internal_heap, m.graph_internal);
  EXPECT_EQ(r.stats.nodes, 8u);
  EXPECT_TRUE(check_plan_model(m, r).passed()) << check_plan_model(m, r).message;
}

// A graph's view offset computed from $0 is evaluated when it is recorded and FROZEN at
// every replay; `scalar $1` is a slot, patched per submission (RUNTIME.md §9).
TEST(PlanModel, graph_values_frozen_at_recording) {
  const runtime::OrchProgram p = parse(R"(tensor x: In [8]
tensor c: InOut [4]
graph g(a, b) {
  set o = $0 * 4
  view v = a[o:4]
  submit acc(input v, inout b)
  submit scale(input b, output_existing b, scalar $1)
}
submit_graph g(input x, inout c, scalar 0, scalar 2)
submit_graph g(input x, inout c, scalar 1, scalar 3)
)");
  const std::vector<int32_t> in = inputs(0, 12);  // x then c
  std::vector<int32_t> frozen(4), live(4);
  for (size_t k = 0; k < 4; ++k) {
    const uint32_t x0 = static_cast<uint32_t>(in[k]), x1 = static_cast<uint32_t>(in[4 + k]);
    const uint32_t c = static_cast<uint32_t>(in[8 + k]);
    frozen[k] = static_cast<int32_t>(((c + x0) * 2u + x0) * 3u);
    live[k] = static_cast<int32_t>(((c + x0) * 2u + x1) * 3u);
  }
  const std::vector<ModelEntry> e = model_of(p);
  ASSERT_EQ(e.size(), 2u);
  EXPECT_EQ(as_i32(e[1].bytes), frozen);
  EXPECT_NE(frozen, live);  // the plan does tell the two apart
  expect_device_agrees(p);
}

// A boundary of another shape is another key: the graph records again, with the slot
// values of that submission; the first key still replays its own record.
TEST(PlanModel, new_key_records_again) {
  const runtime::OrchProgram p = parse(R"(tensor c: InOut [8]
graph g(b) {
  set o = $0
  view v = b[o:1]
  submit fill(output_existing v, scalar 9)
}
submit_graph g(inout c, scalar 1)
submit_graph g(inout c[0:4], scalar 2)
submit_graph g(inout c, scalar 5)
)");
  std::vector<int32_t> want = inputs(0, 8);
  want[1] = want[2] = 9;  // c[5] keeps its input: the third submission replays o = 1
  EXPECT_EQ(as_i32(model_of(p)[0].bytes), want);
  expect_device_agrees(p);
}

// The boundary's alias classes are part of the key: the same graph with two names of one
// buffer is another definition, recorded with its own slot values.
TEST(PlanModel, alias_classes_key_the_record) {
  const runtime::OrchProgram p = parse(R"(tensor c: InOut [8]
tensor d: InOut [8]
graph g(a, b) {
  set o = $0
  view v = a[o:1]
  submit fill(output_existing v, scalar 9)
}
submit_graph g(inout c, inout d, scalar 1)
submit_graph g(inout c, inout c[0:8], scalar 2)
submit_graph g(inout c, inout d, scalar 5)
)");
  std::vector<int32_t> want = inputs(0, 8);
  want[1] = want[2] = 9;  // ignoring the classes would replay o = 1 for the second call
  EXPECT_EQ(as_i32(model_of(p)[0].bytes), want);
  expect_device_agrees(p);
}

// The runtime keeps 16 definitions; a later miss runs the body inline with live values,
// each time, so no value is frozen for it.
TEST(PlanModel, inline_past_16_definitions) {
  const std::string text = runtime::testing::plan_past_16_definitions();
  const runtime::OrchProgram p = parse(text);
  EXPECT_EQ(as_i32(model_of(p)[0].bytes), (std::vector<int32_t>{15, 7, 7, 15}));  // frozen: {15, 7, 15, 15}
  expect_device_agrees(p);
}

// In entries report what was uploaded, and `read` reads that host copy, even after a
// kernel wrote the device copy.
TEST(PlanModel, in_entries_as_uploaded) {
  const runtime::OrchProgram p = parse(R"(tensor x: In [2]
tensor c: InOut [2]
submit fill(output_existing x, scalar 5)
read r = x[1]
submit fill(output_existing c, scalar r)
submit acc(input x, inout c)
)");
  const std::vector<int32_t> in = inputs(0, 4);
  const std::vector<ModelEntry> e = model_of(p);
  EXPECT_EQ(as_i32(e[0].bytes), std::vector<int32_t>(in.begin(), in.begin() + 2));
  EXPECT_EQ(as_i32(e[1].bytes), (std::vector<int32_t>{in[1] + 5, in[1] + 5}));
  expect_device_agrees(p);
}

TEST(PlanModel, refuses_what_it_cannot_model) {
  const std::pair<const char*, const char*> cases[] = {
      {"scope_begin\nalloc t: [4]\nscope_end\nsubmit fill(output_existing t, scalar 1)\n", "used after the scope"},
      {"scope_begin\nalloc t: [4]\nview v = t[0:2]\nscope_end\nsubmit fill(output_existing v, scalar 1)\n",
       "used after the scope"},
      {"fatal\n", "latches 9"},
      {"tensor x: In [4]\nwait_tensor x\n", "latches 8"},
      {"sync_start 25\n", "latches 7"},
      {"scope_begin\n", "left open"},
      {"scope_end\n", "without scope_begin"},
      {"set a = 1 / 0\n", "zero divisor"},
      {"for i = 0, 4, 0 {\n}\n", "step 0"},
      {"alloc t: [4]\nview v = t[2:4]\n", "outside dimension 0"},
      {"alloc t: [4]\nsubmit acc(input t)\n", "takes 2 tensors"},
      {"alloc t: [4]\nalloc u: [5]\nsubmit copy(input t, output_existing u)\n", "differ in shape"},
      {"alloc t: [4]\ngraph g(a) {\n  submit fill(output_existing a, scalar 1)\n}\nsubmit_graph g(no_dep t)\n",
       "boundary tag no_dep"},
      {"alloc t: [1099511627776]\n", "elements is exhausted"},
      {"for i = 0, 9223372036854775807, 1 {\n  set a = i\n}\n", "statements is exhausted"},
  };
  for (const auto& [text, why] : cases) {
    SCOPED_TRACE(text);
    const PlanModelResult r = run_plan_model(parse(text), 0);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error->find(why), std::string::npos) << *r.error;
    EXPECT_TRUE(r.entries.empty());
  }
  // Controls: the same shapes of program the model does run.
  for (const char* text : {"scope_begin\nalloc t: [4]\nsubmit fill(output_existing t, scalar 1)\nscope_end\n",
                           "config clusters=30\nsync_start 25\n", "scope_begin\nscope_end\n"})
    EXPECT_TRUE(run_plan_model(parse(text), 0).ok()) << text;
}

// check_plan_model's verdicts, each positive control beside the pass it breaks.
TEST(CheckPlanModel, verdicts_and_positive_controls) {
  const runtime::OrchProgram p = parse("tensor x: In [4]\ntensor c: InOut [4]\nsubmit acc(input x, inout c)\n");
  const runtime::BindResult good = runtime::bind_plan(p);
  ASSERT_EQ(good.status, 0) << good.detail;
  EXPECT_TRUE(check_plan_model(p, 0, good).passed());
  EXPECT_TRUE(check_plan_model(p, 1, good).failed());  // other inputs: the model's own control

  runtime::BindResult flipped = good;
  flipped.entries[1].bytes[9] ^= 1;  // element 2 of c
  const Verdict v = check_plan_model(p, 0, flipped);
  ASSERT_TRUE(v.failed());
  EXPECT_EQ(v.rule, "plan-model");
  EXPECT_NE(v.message.find("tensor c element 2: device"), std::string::npos) << v.message;

  runtime::BindResult renamed = good;
  renamed.entries[0].name = "y";
  EXPECT_TRUE(check_plan_model(p, 0, renamed).failed());
  runtime::BindResult swapped = good;
  std::swap(swapped.entries[0], swapped.entries[1]);
  EXPECT_TRUE(check_plan_model(p, 0, swapped).failed());
  runtime::BindResult dropped = good;
  dropped.entries.pop_back();
  EXPECT_TRUE(check_plan_model(p, 0, dropped).failed());
  runtime::BindResult shorter = good;
  shorter.entries[1].bytes.resize(12);
  EXPECT_TRUE(check_plan_model(p, 0, shorter).failed());

  // The stats line's counts are the model's too: tasks, graph nodes, resident definitions,
  // inlined graphs, graph-internal heap bytes (one too many is reported even where the plan
  // has no graph).
  for (uint64_t runtime::BindStats::*field :
       {&runtime::BindStats::tasks, &runtime::BindStats::nodes, &runtime::BindStats::defs,
        &runtime::BindStats::inlined, &runtime::BindStats::graph_internal_heap}) {
    runtime::BindResult miscounted = good;
    ++(miscounted.stats.*field);
    const Verdict m = check_plan_model(p, 0, miscounted);
    EXPECT_TRUE(m.failed());
    EXPECT_EQ(m.rule, "plan-model-stats") << m.message;
  }

  // A bind that did not complete has no result to compare: inconclusive, never a pass.
  runtime::BindResult latched = good;
  latched.status = -1002;
  EXPECT_EQ(check_plan_model(p, 0, latched).kind, VerdictKind::Inconclusive);
  EXPECT_EQ(check_plan_model(p, 0, latched).reason, Inconclusive::kResourceLatch);
  latched.status = -1;
  EXPECT_EQ(check_plan_model(p, 0, latched).reason, Inconclusive::kRuntimeRefused);
  const runtime::OrchProgram fatal = parse("fatal\n");
  const Verdict f = check_plan_model(fatal, 0, runtime::bind_plan(fatal));
  EXPECT_EQ(f.kind, VerdictKind::Inconclusive);
  EXPECT_EQ(f.reason, Inconclusive::kInterpreterError);
}

// check_plan_completes: a completed bind that the model agrees with passes; a status, a
// unit dispatched twice and a unit missing each fail (its positive controls).
TEST(CheckPlanCompletes, verdicts_and_positive_controls) {
  const runtime::OrchProgram p =
      parse("tensor x: In [4]\ntensor c: InOut [4]\nsubmit acc(input x, inout c)\nsubmit acc(input x, inout c)\n");
  const PlanModelResult model = run_plan_model(p, 0);
  ASSERT_TRUE(model.ok());
  const runtime::BindResult good = runtime::bind_plan(p);
  ASSERT_EQ(good.status, 0) << good.detail;
  ASSERT_EQ(good.trace.size(), 2u);
  EXPECT_TRUE(check_plan_completes(model, good).passed());

  runtime::BindResult stalled = good;
  stalled.status = -1100;
  stalled.detail = "every worker waits on an empty ring while 1 units remain";
  Verdict v = check_plan_completes(model, stalled);
  ASSERT_TRUE(v.failed());
  EXPECT_EQ(v.rule, "runtime-status");
  EXPECT_NE(v.message.find("every worker waits"), std::string::npos) << v.message;

  runtime::BindResult twice = good;
  twice.trace[1] = twice.trace[0];
  v = check_plan_completes(model, twice);
  ASSERT_TRUE(v.failed());
  EXPECT_EQ(v.rule, "each-unit-once");

  runtime::BindResult missing = good;
  missing.trace.pop_back();
  EXPECT_EQ(check_plan_completes(model, missing).rule, "each-unit-once");

  runtime::BindResult wrong = good;
  wrong.entries[1].bytes[0] ^= 1;
  EXPECT_EQ(check_plan_completes(model, wrong).rule, "plan-model");
}

}  // namespace
}  // namespace stackcheck::oracles
