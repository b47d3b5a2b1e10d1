// Dispatch threads, measured (dispatch_threads.h).
#include "properties/oracles/dispatch_threads.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <set>
#include <thread>

namespace stackcheck::oracles {

namespace {
constexpr unsigned kSpecDefaultWorkers = 4;  // RUNTIME.md §4's RuntimeConfig default
constexpr unsigned kSpecMaxWorkers = 64;     // one bit each of the 64-bit error bitmap (§12)
}  // namespace

// Each instance has its own generation; a thread records its id under the instance's lock
// only at its first dispatch of that instance, so the hook takes no lock on the hot path and
// perturbs a free-running schedule as little as a relaxed counter does.
namespace {
std::atomic<uint64_t> g_generation{0};
thread_local uint64_t t_seen_generation = 0;
}  // namespace

struct DispatchThreads::State {
  std::mutex mu;
  std::set<std::thread::id> ids;
  std::atomic<uint64_t> dispatches{0};
  std::thread::id caller = std::this_thread::get_id();
  const uint64_t generation = g_generation.fetch_add(1) + 1;
};

DispatchThreads::DispatchThreads() : st_(std::make_shared<State>()) {}

void DispatchThreads::attach(runtime::ScheduleOptions& s) const {
  std::function<void(const runtime::TraceEntry&)> earlier = s.on_dispatch;
  std::shared_ptr<State> st = st_;
  s.on_dispatch = [st, earlier](const runtime::TraceEntry& e) {
    if (earlier) earlier(e);
    st->dispatches.fetch_add(1, std::memory_order_relaxed);
    if (t_seen_generation == st->generation) return;
    t_seen_generation = st->generation;
    std::lock_guard lk(st->mu);
    st->ids.insert(std::this_thread::get_id());
  };
}

size_t DispatchThreads::threads() const {
  std::lock_guard lk(st_->mu);
  return st_->ids.size();
}

unsigned DispatchThreads::expected_workers(const runtime::ScheduleOptions& requested,
                                           const runtime::OrchProgram& plan) {
  uint64_t w = requested.workers;
  if (w == 0) {
    w = kSpecDefaultWorkers;
    for (const runtime::ConfigEntry& c : plan.config)
      if (c.key == "workers" && c.value > 0) w = static_cast<uint64_t>(c.value);
  }
  return static_cast<unsigned>(std::clamp<uint64_t>(w, 1, kSpecMaxWorkers));
}

Verdict DispatchThreads::check(const runtime::ScheduleOptions& requested, const runtime::OrchProgram& plan) const {
  using Mode = runtime::ScheduleOptions::Mode;
  std::lock_guard lk(st_->mu);
  const bool threaded = requested.mode == Mode::kThreaded || requested.mode == Mode::kPct;
  const bool on_caller = st_->ids.count(st_->caller) != 0;
  if (!threaded) {
    if (st_->ids.size() > 1 || (!st_->ids.empty() && !on_caller))
      return Verdict::fail("dispatch-threads",
                           fmt::format("the {} policy ran its {} units on {} thread(s){}, not on the caller's alone",
                                       runtime::schedule_mode_name(requested.mode), st_->dispatches.load(), st_->ids.size(),
                                       on_caller ? "" : " none of them the caller's"));
    return Verdict::pass();
  }
  const unsigned workers = expected_workers(requested, plan);
  if (st_->ids.size() > workers || on_caller)
    return Verdict::fail("dispatch-threads",
                         fmt::format("a {} run with {} worker(s) dispatched its {} units on {} threads{}",
                                     runtime::schedule_mode_name(requested.mode), workers, st_->dispatches.load(),
                                     st_->ids.size(), on_caller ? ", the caller's among them" : ""));
  return Verdict::pass();
}

}  // namespace stackcheck::oracles
