// The Pct schedule (pct.h, scheduler.h): the real workers under controlled concurrency.
// - A run is a pure function of its seed, depth and image: the same options give the same
//   trace on a fresh device, and the seeds steer the order (a control: some differ).
// - Its results equal a sequential run's.
// - One worker runs at a time: a dispatch seam that counts the workers inside it never sees
//   two (free-running threads do, the control).
// - Change points move the order.
// The stall it latches at once (code 100) has its positive control in the zoo build: the
// defect wake_list_closed_by_store, found by Threaded.stress_shaped_plans_under_pct.
#include "stack/runtime/device/scheduler.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <chrono>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "stack/runtime/host/bind.h"
#include "stack/runtime/host/test_support.h"

namespace stackcheck::runtime {
namespace {

using Mode = ScheduleOptions::Mode;
using testing::parse_or_fail;
using testing::poisoned_bind_options;
using testing::read_corpus_plan;

BindOptions pct(uint64_t seed, unsigned depth, unsigned workers) {
  BindOptions o = poisoned_bind_options(Mode::kPct, seed, workers);
  o.schedule.pct_depth = depth;
  return o;
}

std::vector<std::pair<int32_t, int32_t>> order(const BindResult& r) {
  std::vector<std::pair<int32_t, int32_t>> out;
  for (const TraceEntry& e : r.trace) out.emplace_back(e.task, e.node);
  return out;
}

TEST(Pct, runs_replay_exactly_and_seeds_steer_them) {
  // graph_two_submissions is one chain of units: a single order exists.
  for (const char* name : {"hazards_dag.plan", "wide_fan_reduce.plan", "graph_two_submissions.plan"}) {
    const bool orders = std::string(name) != "graph_two_submissions.plan";
    SCOPED_TRACE(name);
    const OrchProgram p = parse_or_fail(read_corpus_plan(name));
    const BindResult sequential = bind_plan(p, poisoned_bind_options(Mode::kOldest));
    ASSERT_EQ(sequential.status, 0) << sequential.detail;
    std::set<std::vector<std::pair<int32_t, int32_t>>> distinct;
    for (uint64_t seed = 0; seed < 8; ++seed) {
      const unsigned depth = 1 + seed % 4;
      const BindResult a = bind_plan(p, pct(seed, depth, 4));
      const BindResult b = bind_plan(p, pct(seed, depth, 4));
      ASSERT_EQ(a.status, 0) << a.detail;
      EXPECT_EQ(a.trace, b.trace) << "seed " << seed;
      EXPECT_EQ(a.entries, sequential.entries) << "seed " << seed;
      EXPECT_EQ(a.trace.size(), sequential.trace.size());
      EXPECT_GT(a.stats.image_read, 0u);
      distinct.insert(order(a));
    }
    if (orders) EXPECT_GT(distinct.size(), 1u);  // control: the seed does steer the order
  }
}

TEST(Pct, one_worker_at_a_time) {
  const OrchProgram p = parse_or_fail(read_corpus_plan("wide_fan_reduce.plan"));
  for (uint64_t seed = 0; seed < 4; ++seed) {
    std::atomic<int> inside{0}, most{0};
    BindOptions o = pct(seed, 3, 8);
    o.schedule.on_dispatch = [&](const TraceEntry&) {
      const int now = ++inside;
      int seen = most.load();
      while (now > seen && !most.compare_exchange_weak(seen, now)) {
      }
      std::this_thread::sleep_for(std::chrono::microseconds(200));  // room for another worker to come in
      --inside;
    };
    const BindResult r = bind_plan(p, o);
    ASSERT_EQ(r.status, 0) << r.detail;
    EXPECT_EQ(most.load(), 1) << "seed " << seed;
  }
  // Control: free-running threads do overlap in the same seam.
  std::atomic<int> inside{0}, most{0};
  BindOptions o = poisoned_bind_options(Mode::kThreaded, 0, 8);
  o.schedule.on_dispatch = [&](const TraceEntry&) {
    const int now = ++inside;
    int seen = most.load();
    while (now > seen && !most.compare_exchange_weak(seen, now)) {
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    --inside;
  };
  ASSERT_EQ(bind_plan(p, o).status, 0);
  EXPECT_GT(most.load(), 1);
}

TEST(Pct, change_points_move_the_order) {
  // Depth 1 has no change point: the order is the priorities' alone. Depth 2 and more adds
  // change points at drawn steps; over seeds the traces of depth 4 must not all be depth 1's.
  const OrchProgram p = parse_or_fail(read_corpus_plan("wide_fan_reduce.plan"));
  size_t moved = 0;
  for (uint64_t seed = 0; seed < 8; ++seed) {
    const BindResult d1 = bind_plan(p, pct(seed, 1, 4)), d4 = bind_plan(p, pct(seed, 4, 4));
    ASSERT_EQ(d1.status, 0);
    ASSERT_EQ(d4.status, 0);
    moved += d1.trace != d4.trace;
  }
  EXPECT_GT(moved, 0u);
}

// k, the step estimate the change points are drawn over, is kPctStepsPerUnit per unit: the
// runs must take about that many (a change point drawn past the last step never fires).
TEST(Pct, steps_per_unit_near_the_estimate) {
  for (const char* name : {"hazards_dag.plan", "wide_fan_reduce.plan", "graph_two_submissions.plan"}) {
    const OrchProgram p = parse_or_fail(read_corpus_plan(name));
    const BindResult r = bind_plan(p, pct(1, 3, 4));
    ASSERT_EQ(r.status, 0) << r.detail;
    const double per_unit = static_cast<double>(r.pct_steps) / static_cast<double>(r.trace.size());
    std::printf("%s: %zu units, %llu steps, %.1f per unit\n", name, r.trace.size(),
                static_cast<unsigned long long>(r.pct_steps), per_unit);
    EXPECT_GT(per_unit, kPctStepsPerUnit / 2.0) << name;
    EXPECT_LT(per_unit, kPctStepsPerUnit * 2.0) << name;
    EXPECT_EQ(bind_plan(p, poisoned_bind_options(Mode::kThreaded)).pct_steps, 0u);  // control: other modes take none
  }
}

TEST(Pct, names_parse_and_print) {
  EXPECT_EQ(parse_schedule_mode("pct"), Mode::kPct);
  EXPECT_STREQ(schedule_mode_name(Mode::kPct), "pct");
}

}  // namespace
}  // namespace stackcheck::runtime
