// The scheduler against the plan model (RUNTIME.md §15.11; §16 sched_threaded_vs_reference,
// sched_missing_edge_exposed): plans are bound by the whole runtime on poisoned device
// memory and scheduled in every mode; check_plan_model compares the entries with sequential
// execution. The positive control drops one dependency edge from the shipped image (a
// `mutate` line applied by the mutation hook): `newest` must expose it.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "properties/oracles/image_mutation.h"
#include "properties/oracles/plan_model.h"
#include "stack/runtime/devmem/device_access.h"
#include "stack/runtime/host/runtime.h"
#include "stack/runtime/plan/parser.h"

namespace stackcheck::oracles {
namespace {

using Mode = runtime::ScheduleOptions::Mode;

runtime::OrchProgram parse(std::string_view text) {
  runtime::PlanParseResult r = runtime::parse_plan(text);
  EXPECT_TRUE(r.ok()) << r.error().to_string();
  return r.ok() ? r.program() : runtime::OrchProgram{};
}

std::string corpus_plan(const std::string& name) {
  std::ifstream in(std::string(STACKCHECK_CORPUS_DIR) + "/plans/" + name, std::ios::binary);
  EXPECT_TRUE(in.good()) << name;
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

runtime::BindOptions options(Mode m, uint64_t schedule_seed = 0, unsigned workers = 0) {
  runtime::BindOptions o;
  o.fill_byte = 0xAA;
  o.schedule.mode = m;
  o.schedule.seed = schedule_seed;
  o.schedule.workers = workers;
  return o;
}

const char* const kPlans[] = {"hazards_dag.plan",          "wide_fan_reduce.plan",      "example.plan",
                              "loops_views.plan",          "graph_alias_internal.plan", "graph_frozen_view.plan",
                              "graph_two_submissions.plan"};

void expect_matches_model(const runtime::OrchProgram& p, uint64_t input_seed, const runtime::BindOptions& o) {
  runtime::BindOptions with_inputs = o;
  with_inputs.seed = input_seed;
  const runtime::BindResult r = runtime::bind_plan(p, with_inputs);
  ASSERT_EQ(r.status, 0) << r.detail;
  const Verdict v = check_plan_model(p, input_seed, r);
  EXPECT_TRUE(v.passed()) << v.to_string();
  EXPECT_EQ(r.stats.image_read, r.stats.image);  // §15.5: a completed run read the shipped image
}

TEST(SchedulerPlanModel, sched_threaded_vs_reference) {
  for (const char* name : kPlans) {
    SCOPED_TRACE(name);
    const runtime::OrchProgram p = parse(corpus_plan(name));
    for (unsigned workers : {1u, 2u, 4u, 8u})
      for (int rep = 0; rep < 3; ++rep) {
        SCOPED_TRACE(fmt::format("workers={} rep={}", workers, rep));
        expect_matches_model(p, 0, options(Mode::kThreaded, 0, workers));
      }
  }
}

TEST(SchedulerPlanModel, sched_policies_vs_reference) {
  for (const char* name : kPlans) {
    SCOPED_TRACE(name);
    const runtime::OrchProgram p = parse(corpus_plan(name));
    std::vector<runtime::BindOptions> runs = {options(Mode::kNewest), options(Mode::kOldest)};
    for (uint64_t s = 0; s < 8; ++s) runs.push_back(options(Mode::kRandom, s));
    for (uint64_t input_seed : {0ull, 11ull})
      for (const runtime::BindOptions& o : runs) {
        SCOPED_TRACE(fmt::format("{} seed={} inputs={}", runtime::schedule_mode_name(o.schedule.mode), o.schedule.seed,
                                 input_seed));
        expect_matches_model(p, input_seed, o);
      }
  }
}

// Task 3 = acc(input t, inout d) has fanin [1, 2] (ALLOC d, fill t); a `mutate` line turns
// its entry "2" into "1" in the shipped image, so the RAW edge fill(t) -> acc is gone while
// every count stays valid and attach accepts the image.
constexpr const char* kMissing = R"(config W=16
tensor c: InOut [8]
alloc t: [8]
alloc d: [8]
submit fill(output_existing t, scalar 5)
submit acc(input t, inout d)
submit acc(input d, inout c)
)";

TEST(SchedulerPlanModel, sched_missing_edge_exposed) {
  const runtime::OrchProgram control = parse(kMissing);
  // Where task 3's fanin entries sit in the image: read from a control bind's device copy.
  runtime::DeviceMemory mem(runtime::DeviceMemoryConfig{0xAA, false});
  runtime::RuntimeConfig cfg;
  ASSERT_FALSE(runtime::apply_config(control.config, cfg).has_value());
  auto rt = runtime::Runtime::create(mem, cfg);
  ASSERT_TRUE(rt.has_value());
  ASSERT_EQ((*rt)->bind(control, options(Mode::kNewest)).status, 0);
  runtime::DeviceAccess dev(mem);
  const runtime::DevAddr image = (*rt)->last_plan().image;
  const auto ih = dev.load<runtime::ImageHeader>(image);
  ASSERT_EQ(ih.n, 5u);
  const uint64_t fanin = ih.seg_off[runtime::kSegFanin];
  ASSERT_EQ(dev.load<int32_t>(image + fanin + 4), 1);  // task 3: [1, 2]
  ASSERT_EQ(dev.load<int32_t>(image + fanin + 8), 2);
  const runtime::OrchProgram dropped = parse(std::string(kMissing) + fmt::format("mutate {} 1\n", fanin + 8));

  // Control: with the edge, every policy matches the model.
  for (Mode m : {Mode::kNewest, Mode::kOldest, Mode::kThreaded}) {
    SCOPED_TRACE(runtime::schedule_mode_name(m));
    expect_matches_model(control, 0, options(m));
  }
  // Without it, `newest` runs acc(t, d) as soon as ALLOC d is done, before t is zeroed and
  // filled: t still holds the 0xAA poison, and c differs from sequential execution.
  runtime::BindOptions newest = options(Mode::kNewest);
  newest.before_upload = mutation_hook(dropped.mutations);
  const runtime::BindResult r = runtime::bind_plan(dropped, newest);
  ASSERT_EQ(r.status, 0) << r.detail;  // nothing the scheduler can see: a wrong result
  const Verdict v = check_plan_model(dropped, 0, r);
  ASSERT_TRUE(v.failed()) << v.to_string();
  EXPECT_EQ(v.rule, "plan-model");
  EXPECT_NE(v.message.find("tensor c element 0"), std::string::npos) << v.message;
  const PlanModelResult model = run_plan_model(dropped, 0);
  ASSERT_TRUE(model.ok());
  std::vector<uint32_t> got(8), want(8);
  std::memcpy(got.data(), r.entries[0].bytes.data(), 32);
  std::memcpy(want.data(), model.entries[0].bytes.data(), 32);
  for (int k = 0; k < 8; ++k) EXPECT_EQ(got[k], want[k] - 5u + 0xAAAAAAAAu);  // + poison instead of + 5
  const auto pos = [&](int32_t task) {
    return std::find(r.trace.begin(), r.trace.end(), runtime::TraceEntry{task, -1}) - r.trace.begin();
  };
  EXPECT_LT(pos(3), pos(2));  // the consumer ran before the producer whose edge was dropped
  // `oldest` happens to run the fill first here: only the adversarial order exposes it.
  runtime::BindOptions oldest = options(Mode::kOldest);
  oldest.before_upload = mutation_hook(dropped.mutations);
  EXPECT_TRUE(check_plan_model(dropped, 0, runtime::bind_plan(dropped, oldest)).passed());
}

}  // namespace
}  // namespace stackcheck::oracles
