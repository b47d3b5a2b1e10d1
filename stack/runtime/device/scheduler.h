// The device-side scheduler (RUNTIME.md §5, §12): runs an attached image to completion.
// - Initialises SchedControl and the ready ring (Q entries `(task<<16)|(node+1)`) in the
//   device-only zone before reading them.
// - Classifies every unflagged task by scanning its fanin from fanin_cursor-1 down: a
//   flagged producer is passed; otherwise the task CASes itself onto the producer's
//   wake_head list (0 open, -1 closed, k+1 = waiter k; chained through wake_next), saves its
//   cursor and parks; a task whose scan finishes becomes READY and goes to the ring.
// - Completes a unit by setting its flag (release), swapping wake_head to -1 and resuming
//   the waiters' scans. A GRAPH task, when dispatched, materialises its nodes into its
//   graph-heap block (GraphExecution, args, GraphNodeStorage) and pushes the roots; a
//   finished node releases its fanout and the last one completes the outer task.
// - Modes: Threaded (`workers` threads; no completion within progress_timeout_ms -> 100);
//   Pct, the same threads under controlled concurrency (pct.h: one runs at a time, by PCT's
//   random priorities with pct_depth-1 change points; a stall latches 100 at once); and the
//   adversarial single-thread policies Random (splitmix64(seed), next() % size), Newest
//   (LIFO) and Oldest (FIFO). Under Pct and the policies the trace is a pure function of the
//   options and the image.
// - Errors: a code 100..104 is CAS'd from 0 into ImageHeader::sched_error with the thread id
//   and a bitmap bit, then every worker stops. A DeviceFault or a KernelError stops the run
//   and becomes `detail` (code stays 0).
// The scheduler reads every flag and every pool entry, so a completed run has read exactly
// the shipped image. Device code: DeviceAccess + DevAddr only (RUNTIME.md §1 wall).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "stack/runtime/device/attach.h"
#include "stack/runtime/devmem/device_access.h"

namespace stackcheck::runtime {

// One dispatched unit: a task (node -1) or node `node` of GRAPH task `task`. A GRAPH task
// appears when it is dispatched (materialised), before its nodes.
struct TraceEntry {
  int32_t task = -1;
  int32_t node = -1;
  bool operator==(const TraceEntry&) const = default;
};

struct ScheduleOptions {
  enum class Mode : uint8_t { kThreaded, kRandom, kNewest, kOldest, kPct };
  Mode mode = Mode::kThreaded;
  uint64_t seed = 0;                 // Random policy, Pct's priorities and change points
  unsigned workers = 0;              // Threaded and Pct; 0 = the default 4
  uint32_t progress_timeout_ms = 0;  // Threaded and Pct; 0 = the default 10000
  unsigned pct_depth = 0;            // Pct: the bug depth d it targets; 0 = the default 3
  uint64_t pct_steps = 0;            // Pct: k, the run's expected scheduling points; 0 = estimated
                                     // from the units (kPctStepsPerUnit each)
  // A test seam, never set by the runtime (like BindOptions::before_upload): called on the
  // dispatching worker's thread as each unit starts, after its RUNNING transition and before
  // its kernel, concurrently from every worker and outside any scheduler lock. Empty: none.
  std::function<void(const TraceEntry&)> on_dispatch;
};
// "threaded", "random", "newest", "oldest", "pct".
const char* schedule_mode_name(ScheduleOptions::Mode m);
std::optional<ScheduleOptions::Mode> parse_schedule_mode(std::string_view name);

inline constexpr unsigned kDefaultWorkers = 4;
inline constexpr uint32_t kDefaultProgressTimeoutMs = 10000;
inline constexpr unsigned kMaxWorkers = 64;  // one sched_error_bitmap bit each
inline constexpr unsigned kDefaultPctDepth = 3;
inline constexpr unsigned kMaxPctDepth = 16;
inline constexpr uint64_t kPctStepsPerUnit = 8;

struct ScheduleResult {
  int32_t code = 0;           // the latched scheduler code (100..104), 0 when none
  int32_t code_thread = -1;   // the thread that latched it (Threaded: `workers` = watchdog)
  bool faulted = false;       // a DeviceFault or KernelError stopped the run
  bool kernel_fault = false;  // ... raised by a builtin's own accesses through its tensor args
                              // (the scheduler's reads of its records were sound)
  std::string detail;         // why the run stopped (fault text, kernel error, code reason)
  std::vector<TraceEntry> trace;
  uint64_t units_completed = 0;  // tasks + graph nodes
  uint64_t pct_steps = 0;        // Pct: the scheduling points the run took (0 in other modes)

  bool completed() const { return code == 0 && !faulted; }
};

// Runs the image attached as `view` (attach_populated's result; nothing else may run on it
// concurrently). Never throws: device faults and kernel errors end up in the result.
ScheduleResult run_scheduler(DeviceAccess& dev, const DevImageView& view, const ScheduleOptions& opts);

}  // namespace stackcheck::runtime
