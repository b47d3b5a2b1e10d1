// The dispatch-thread oracle (dispatch_threads.h): real binds under each policy pass it; a
// hook fired from more threads than the workers asked for, or a sequential policy's hook fired
// off the caller's thread (the positive controls), fail it.
#include <gtest/gtest.h>

#include <latch>
#include <thread>
#include <vector>

#include "properties/oracles/dispatch_threads.h"
#include "properties/oracles/end_to_end.h"
#include "stack/runtime/host/bind.h"
#include "stack/runtime/host/test_support.h"

namespace stackcheck::oracles {
namespace {

// Eight independent tasks: enough ready work that several workers dispatch.
constexpr const char* kWide = R"(tensor x: In [8]
tensor c: InOut [8]
alloc a: [8], b: [8], d: [8], e: [8]
submit copy(input x, output_existing a)
submit copy(input x, output_existing b)
submit copy(input x, output_existing d)
submit copy(input x, output_existing e)
submit acc(input a, inout c)
)";

runtime::ScheduleOptions schedule(const char* text, unsigned workers = 0) {
  runtime::ScheduleOptions s = *parse_schedule(text);
  s.workers = workers;
  return s;
}

TEST(DispatchThreads, real_binds_pass_under_every_policy) {
  const runtime::OrchProgram plan = runtime::testing::parse_or_fail(kWide);
  for (const char* text : {"threaded", "random:3", "newest", "oldest", "pct:5:2"})
    for (unsigned workers : {0u, 1u, 3u}) {
      const runtime::ScheduleOptions want = schedule(text, workers);
      runtime::BindOptions o;
      o.schedule = want;
      const DispatchThreads threads;
      threads.attach(o.schedule);
      ASSERT_EQ(runtime::bind_plan(plan, o).status, 0) << text;
      const Verdict v = threads.check(want, plan);
      EXPECT_TRUE(v.passed()) << text << " workers=" << workers << ": " << v.to_string();
      EXPECT_GE(threads.threads(), 1u);
      if (want.mode != runtime::ScheduleOptions::Mode::kThreaded && want.mode != runtime::ScheduleOptions::Mode::kPct)
        EXPECT_EQ(threads.threads(), 1u) << text;
    }
}

TEST(DispatchThreads, the_worker_count_comes_from_the_request_then_the_config) {
  const runtime::OrchProgram plain = runtime::testing::parse_or_fail(kWide);
  const runtime::OrchProgram configured = runtime::testing::parse_or_fail(std::string("config workers=7\n") + kWide);
  EXPECT_EQ(DispatchThreads::expected_workers(schedule("threaded"), plain), 4u);
  EXPECT_EQ(DispatchThreads::expected_workers(schedule("threaded"), configured), 7u);
  EXPECT_EQ(DispatchThreads::expected_workers(schedule("threaded", 2), configured), 2u);
  EXPECT_EQ(DispatchThreads::expected_workers(schedule("threaded", 500), plain), 64u);
}

// Fires the hook installed in `s` once from each of `n` new threads, all alive together (a
// finished thread's id may be given to the next one, as a worker's never is during a run).
void fire_from_threads(const runtime::ScheduleOptions& s, unsigned n) {
  std::latch all_fired(n);
  std::vector<std::thread> ts;
  for (unsigned i = 0; i < n; ++i)
    ts.emplace_back([&] {
      s.on_dispatch(runtime::TraceEntry{0, -1});
      all_fired.arrive_and_wait();
    });
  for (std::thread& t : ts) t.join();
}

TEST(DispatchThreads, control_more_threads_than_workers) {
  const runtime::OrchProgram plan = runtime::testing::parse_or_fail(kWide);
  const runtime::ScheduleOptions want = schedule("threaded", 2);
  for (unsigned n : {2u, 3u}) {
    runtime::ScheduleOptions s = want;
    const DispatchThreads threads;
    threads.attach(s);
    fire_from_threads(s, n);
    const Verdict v = threads.check(want, plan);
    EXPECT_EQ(v.failed(), n == 3) << v.to_string();
    if (n == 3) {
      EXPECT_EQ(v.rule, "dispatch-threads");
      EXPECT_NE(v.message.find("with 2 worker(s) dispatched its 3 units on 3 threads"), std::string::npos)
          << v.message;
    }
  }
}

TEST(DispatchThreads, control_a_sequential_policy_off_the_callers_thread) {
  const runtime::OrchProgram plan = runtime::testing::parse_or_fail(kWide);
  const runtime::ScheduleOptions want = schedule("newest");
  runtime::ScheduleOptions s = want;
  const DispatchThreads threads;
  threads.attach(s);
  fire_from_threads(s, 1);
  const Verdict v = threads.check(want, plan);
  EXPECT_TRUE(v.failed());
  EXPECT_NE(v.message.find("none of them the caller's"), std::string::npos) << v.message;
  // ... and a threaded run must never dispatch on the caller's thread
  const runtime::ScheduleOptions th = schedule("threaded", 4);
  runtime::ScheduleOptions s2 = th;
  const DispatchThreads on_caller;
  on_caller.attach(s2);
  s2.on_dispatch(runtime::TraceEntry{0, -1});
  EXPECT_TRUE(on_caller.check(th, plan).failed());
}

}  // namespace
}  // namespace stackcheck::oracles
