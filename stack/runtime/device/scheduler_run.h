// Internal to the scheduler (not a public header): SchedulerRun is one scheduling of one
// attached image, the state and unit operations shared by the run loops (scheduler.cpp) and
// the graph execution (scheduler_graph.cpp).
// Invariants:
// - Device records are the truth: unit states, flags, wake lists, cursors, the ring and its
//   counters live in device memory and are only touched through DeviceAccess. Host-side
//   members are synchronisation (the ring mutex, the stop flag, the clock of the last
//   completion) and the result being built (trace, detail).
// - A unit moves PENDING -> READY (pushed) -> RUNNING (dispatched) -> DONE (completed), each
//   step a CAS; any other state at a step latches 101.
// - Exactly one thread advances a task's fanin scan at a time: the classifier until the
//   task parks, then the completer of the producer it parked on.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "stack/runtime/device/pct.h"
#include "stack/runtime/device/scheduler.h"
#include "stack/runtime/image/graph_def.h"
#include "stack/support/splitmix.h"

namespace stackcheck::runtime::sched_detail {

// A record that cannot be followed (unbound delta, count or index that disagrees with what
// attach validated): memory changed after attach. Stops the run like a DeviceFault.
struct BadRecord : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Everything a GRAPH task's execution needs, loaded from its submission and definition.
struct GraphCtx {
  DevAddr sub;  // GraphSubmission record (graph_ctx)
  GraphSubmission s{};
  DevAddr def;  // GraphDefinition
  GraphDefHeader dh{};
  DevSpan block;     // the whole graph-heap block
  DevAddr arg_area;  // block_base + required_heap: TensorArg[T] then u64[K]
  DevSpan storage;   // GraphExecution + GraphNodeStorage[n], exact span
  DevAddr node(uint64_t j) const { return storage.addr + graph_node_offset(j); }
};

class SchedulerRun {
 public:
  using Mode = ScheduleOptions::Mode;
  SchedulerRun(DeviceAccess& dev, const DevImageView& view, Mode mode, uint64_t seed, unsigned workers,
               std::function<void(const TraceEntry&)> on_dispatch = {});

  // SchedControl and the ring bookkeeping; counts the units that must complete.
  void init();
  uint64_t initial_units() const { return initial_units_; }
  // Pct mode: the controller whose turn the workers take (set before they start).
  void set_pct(PctControl* pct) { pct_ = pct; }
  // A scheduling point of worker `tid`: under Pct the turn may pass here; otherwise nothing.
  void point(unsigned tid) {
    if (pct_ != nullptr) pct_->point(tid);
  }
  // Reads task i's flag and, when unflagged, scans its fanin (parks or pushes).
  void classify(uint32_t task, unsigned tid);
  // Pops one entry: by policy (adversarial) or FIFO waiting up to `wait` (threaded).
  std::optional<uint64_t> pop_policy();
  std::optional<uint64_t> pop_wait(std::chrono::milliseconds wait);
  // Dispatches one ring entry: kernel, ALLOC, GRAPH materialisation or graph node.
  void execute(uint64_t entry, unsigned tid);

  void latch(int32_t code, unsigned tid, std::string why);
  // DeviceFault / KernelError: stops the run; `kernel` when a builtin raised it.
  void fail(std::string detail, bool kernel = false);
  bool stopped() const { return stop_.load(std::memory_order_acquire); }
  bool finished() const { return finished_.load(std::memory_order_acquire); }
  uint64_t remaining();
  std::chrono::steady_clock::time_point last_progress() const {
    return std::chrono::steady_clock::time_point(
        std::chrono::steady_clock::duration(last_progress_.load(std::memory_order_acquire)));
  }
  void wake_all();  // stop or finish: idle workers re-check

  ScheduleResult take_result();

 private:
  // ---- tasks ----
  DevAddr slot(uint64_t i) const { return v_.slot(i); }
  DevAddr follow(DevAddr field);  // resolve the int32 delta stored at `field` (fault if unbound)
  void scan(uint32_t task, unsigned tid);
  void count_waiter(uint32_t producer, unsigned tid);
  bool transition(DevAddr state, uint32_t from, uint32_t to, unsigned tid, const std::string& unit);
  void make_ready(uint32_t task, unsigned tid);
  void run_task(uint32_t task, unsigned tid);
  void complete_task(uint32_t task, unsigned tid);
  void unit_done();
  bool call_kernel(int32_t kernel, const std::vector<TensorArg>& t, const std::vector<uint64_t>& s,
                   const std::string& unit);
  void record(uint32_t task, int32_t node);

  // ---- ring (device-only zone) ----
  void push(uint32_t task, int32_t node, unsigned tid);
  DevAddr ring_at(uint64_t pos) const { return ring_ + 8 * (pos % q_); }

  // ---- graphs (scheduler_graph.cpp) ----
  GraphCtx graph_ctx(uint32_t task);
  void start_graph(uint32_t task, unsigned tid);
  void run_node(uint32_t task, uint32_t node, unsigned tid);
  void complete_node(const GraphCtx& g, uint32_t task, uint32_t node, unsigned tid);

  DeviceAccess& dev_;
  const DevImageView& v_;
  Mode mode_;
  support::SplitMix64 rng_;
  unsigned workers_;
  std::function<void(const TraceEntry&)> on_dispatch_;  // ScheduleOptions::on_dispatch
  PctControl* pct_ = nullptr;
  uint64_t initial_units_ = 0;
  DevAddr ctl_, ring_;
  uint64_t q_ = 0;
  uint32_t n_ = 0;

  std::mutex ring_mu_;
  std::condition_variable ring_cv_;
  std::atomic<bool> stop_{false}, finished_{false};
  std::atomic<int64_t> last_progress_{0};

  std::mutex result_mu_;
  ScheduleResult result_;
};

}  // namespace stackcheck::runtime::sched_detail
