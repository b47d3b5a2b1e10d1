// The scheduler's unit operations on tasks and the ready ring (scheduler_run.h, RUNTIME.md §12):
// classification (the fanin scan and wake-list registration), the PENDING -> READY ->
// RUNNING -> DONE transitions, dispatch of KERNEL/ALLOC tasks, completion (flag, closing the
// wake list, resuming waiters), the ring and the error latch.
#include "stack/runtime/device/scheduler_run.h"

#include <algorithm>
#include <cstddef>
#include <utility>

#include <fmt/format.h>

#include "stack/defects/defects.h"
#include "stack/runtime/device/kernels.h"
#include "stack/runtime/image/self_relative.h"
#include "stack/runtime/status/codes.h"

namespace stackcheck::runtime::sched_detail {
namespace {

// SchedControl fields (device-only zone offsets).
constexpr uint64_t kHead = offsetof(SchedControl, ring_head);
constexpr uint64_t kTail = offsetof(SchedControl, ring_tail);
constexpr uint64_t kRemaining = offsetof(SchedControl, units_remaining);
constexpr uint64_t kCompleted = offsetof(SchedControl, units_completed);
constexpr uint64_t kDispatched = offsetof(SchedControl, units_dispatched);
constexpr uint64_t kFault = offsetof(SchedControl, fault);
// SlotState fields.
constexpr uint64_t kState = offsetof(SlotState, state);
constexpr uint64_t kWakeHead = offsetof(SlotState, wake_head);
constexpr uint64_t kWakeNext = offsetof(SlotState, wake_next);
constexpr uint64_t kWakeCountWord = offsetof(SlotState, wake_count);  // u16 count | u16 reserved
constexpr uint64_t kCursor = offsetof(SlotState, fanin_cursor);
static_assert(kWakeCountWord % 4 == 0 && offsetof(SlotState, reserved) == kWakeCountWord + 2);
constexpr uint32_t kMaxWaiters = 65535;

int64_t now_ticks() { return std::chrono::steady_clock::now().time_since_epoch().count(); }

}  // namespace

SchedulerRun::SchedulerRun(DeviceAccess& dev, const DevImageView& view, Mode mode, uint64_t seed, unsigned workers,
                           std::function<void(const TraceEntry&)> on_dispatch)
    : dev_(dev), v_(view), mode_(mode), rng_(seed), workers_(workers), on_dispatch_(std::move(on_dispatch)) {
  ctl_ = v_.rt.device_only;
  ring_ = ctl_ + sizeof(SchedControl);
  q_ = v_.rt.Q;
  n_ = v_.n;
  last_progress_.store(now_ticks(), std::memory_order_release);
}

DevAddr SchedulerRun::follow(DevAddr field) {
  const auto d = dev_.load<int32_t>(field);
  const std::optional<DevAddr> t = resolve(field, d);
  if (!t) throw BadRecord(fmt::format("unbound delta at {:#x}", field.raw()));
  return *t;
}

void SchedulerRun::init() {
  // Every flag byte of the segment is read here once (n = 0 still ships one, unused); the
  // unflagged tasks are the units that must complete (graph nodes are added when their
  // GRAPH task materialises them).
  uint64_t units = 0;
  for (uint64_t i = 0; i < v_.layout.pitch; ++i)
    if (dev_.load<uint8_t>(v_.flag(i)) == 0 && i < n_) ++units;
  SchedControl c{};
  c.ring_capacity = q_;
  c.units_remaining = units;
  c.workers = workers_;
  dev_.store(ctl_, c);
  initial_units_ = units;
  if (units == 0) finished_.store(true, std::memory_order_release);
}

uint64_t SchedulerRun::remaining() { return dev_.load<uint64_t>(ctl_ + kRemaining, std::memory_order_acquire); }

void SchedulerRun::classify(uint32_t task, unsigned tid) {
  if (dev_.load<uint8_t>(v_.flag(task), std::memory_order_acquire) != 0) return;  // done before upload
  scan(task, tid);
}

// Continues task i's scan at its saved cursor: entries [0, cursor) are still to check. On
// parking the cursor is saved as the index of the producer parked on, so the resumed scan
// (run by that producer's completer) starts below it.
void SchedulerRun::scan(uint32_t i, unsigned tid) {
  const DevAddr s = slot(i);
  int32_t k = dev_.load<int32_t>(s + kCursor);
  if (k < 0) {
    latch(code_value(ErrorCode::kWaitRegistrationFailed), tid, fmt::format("task {} fanin_cursor {}", i, k));
    return;
  }
  DevAddr fan{};
  if (k > 0) fan = follow(follow(s + kSlotPayloadField) + kPayloadFaninField);
  while (k > 0) {
    point(tid);
    if (stopped()) return;
    const auto p = dev_.load<int32_t>(fan + 4 * static_cast<uint64_t>(k - 1));
    if (p < 0 || static_cast<uint32_t>(p) >= i || static_cast<uint32_t>(p) >= n_) {
      latch(code_value(ErrorCode::kWaitRegistrationFailed), tid,
            fmt::format("task {} fanin entry {} names producer {} (n={})", i, k - 1, p, n_));
      return;
    }
    if (dev_.load<uint8_t>(v_.flag(p), std::memory_order_acquire) != 0) {
      --k;
      continue;
    }
    // Cursor and link are written before the CAS publishes them (release): once the CAS
    // succeeds, p's completer may resume this task at any moment.
    point(tid);
    dev_.store<int32_t>(s + kCursor, k - 1);
    const DevAddr head = slot(p) + kWakeHead;
    auto h = dev_.load<int32_t>(head, std::memory_order_acquire);
    while (h != kWakeClosed) {
      dev_.store<int32_t>(s + kWakeNext, h);
      point(tid);
      if (dev_.cas<int32_t>(head, h, static_cast<int32_t>(i) + 1)) {
        count_waiter(static_cast<uint32_t>(p), tid);
        return;  // parked
      }
    }
    --k;  // p completed while we looked: its list is closed, its flag set
  }
  dev_.store<int32_t>(s + kCursor, 0);
  make_ready(i, tid);
}

void SchedulerRun::count_waiter(uint32_t p, unsigned tid) {
  const DevAddr word = slot(p) + kWakeCountWord;
  auto cur = dev_.load<uint32_t>(word, std::memory_order_relaxed);
  for (;;) {
    if ((cur & 0xFFFF) >= kMaxWaiters) {
      latch(code_value(ErrorCode::kWaitOverflow), tid, fmt::format("task {} has more than {} waiters", p, kMaxWaiters));
      return;
    }
    if (dev_.cas<uint32_t>(word, cur, cur + 1)) return;
  }
}

bool SchedulerRun::transition(DevAddr state, uint32_t from, uint32_t to, unsigned tid, const std::string& unit) {
  point(tid);
  uint32_t cur = from;
  if (dev_.cas<uint32_t>(state, cur, to)) return true;
  latch(code_value(ErrorCode::kCompletionInvalid), tid,
        fmt::format("{}: state {} where {} was expected (-> {})", unit, cur, from, to));
  return false;
}

void SchedulerRun::make_ready(uint32_t task, unsigned tid) {
  if (!transition(slot(task) + kState, kSlotPending, kSlotReady, tid, fmt::format("task {}", task))) return;
  push(task, -1, tid);
}

void SchedulerRun::push(uint32_t task, int32_t node, unsigned tid) {
  point(tid);
  {
    std::lock_guard lk(ring_mu_);
    const auto head = dev_.load<uint64_t>(ctl_ + kHead), tail = dev_.load<uint64_t>(ctl_ + kTail);
    if (tail - head < q_) {
      dev_.store<uint64_t>(ring_at(tail), ring_entry(task, node));
      dev_.store<uint64_t>(ctl_ + kTail, tail + 1);
      ring_cv_.notify_one();
      if (pct_ != nullptr) pct_->unblock_all();
      return;
    }
  }
  latch(code_value(ErrorCode::kReadyQueueOverflow), tid,
        node < 0 ? fmt::format("ready ring of {} full at task {}", q_, task)
                 : fmt::format("ready ring of {} full at task {} node {}", q_, task, node));
}

std::optional<uint64_t> SchedulerRun::pop_policy() {
  std::lock_guard lk(ring_mu_);
  auto head = dev_.load<uint64_t>(ctl_ + kHead), tail = dev_.load<uint64_t>(ctl_ + kTail);
  if (tail == head) return std::nullopt;
  uint64_t e = 0;
  switch (mode_) {
    case Mode::kNewest:
      e = dev_.load<uint64_t>(ring_at(--tail));
      dev_.store<uint64_t>(ctl_ + kTail, tail);
      return e;
    case Mode::kRandom: {
      // Take entry r and move the oldest into its place: O(1), and still a pure function of
      // the seed and the pushes.
      const uint64_t pos = head + rng_.next() % (tail - head);
      e = dev_.load<uint64_t>(ring_at(pos));
      if (pos != head) dev_.store<uint64_t>(ring_at(pos), dev_.load<uint64_t>(ring_at(head)));
      break;
    }
    default: e = dev_.load<uint64_t>(ring_at(head)); break;
  }
  dev_.store<uint64_t>(ctl_ + kHead, head + 1);
  return e;
}

std::optional<uint64_t> SchedulerRun::pop_wait(std::chrono::milliseconds wait) {
  std::unique_lock lk(ring_mu_);
  for (int round = 0; round < 2; ++round) {
    const auto head = dev_.load<uint64_t>(ctl_ + kHead), tail = dev_.load<uint64_t>(ctl_ + kTail);
    if (tail != head) {
      const auto e = dev_.load<uint64_t>(ring_at(head));
      dev_.store<uint64_t>(ctl_ + kHead, head + 1);
      return e;
    }
    if (round == 0 && !stopped() && !finished()) ring_cv_.wait_for(lk, wait);
  }
  return std::nullopt;
}

void SchedulerRun::execute(uint64_t entry, unsigned tid) {
  const uint64_t task = entry >> 16;
  const auto node = static_cast<int32_t>(entry & 0xFFFF) - 1;
  if (task >= n_) throw BadRecord(fmt::format("ring entry {:#x} names task {} (n={})", entry, task, n_));
  dev_.fetch_add<uint64_t>(ctl_ + kDispatched, 1);
  if (node < 0)
    run_task(static_cast<uint32_t>(task), tid);
  else
    run_node(static_cast<uint32_t>(task), static_cast<uint32_t>(node), tid);
}

void SchedulerRun::record(uint32_t task, int32_t node) {
  const TraceEntry e{static_cast<int32_t>(task), node};
  {
    std::lock_guard lk(result_mu_);
    result_.trace.push_back(e);
  }
  if (on_dispatch_) on_dispatch_(e);  // outside the lock: the seam adds no synchronisation
}

bool SchedulerRun::call_kernel(int32_t kernel, const std::vector<TensorArg>& t, const std::vector<uint64_t>& s,
                               const std::string& unit) {
  try {
    if (auto e = run_kernel(dev_, kernel, t, s)) {
      fail(fmt::format("{}: kernel error: {}", unit, e->message), /*kernel=*/true);
      return false;
    }
  } catch (const DeviceFault& f) {
    fail(fmt::format("{} ({}): {}", unit, builtin_kernel_name(kernel), f.describe()), /*kernel=*/true);
    return false;
  }
  return true;
}

void SchedulerRun::run_task(uint32_t i, unsigned tid) {
  const DevAddr s = slot(i);
  const std::string unit = fmt::format("task {}", i);
  if (!transition(s + kState, kSlotReady, kSlotRunning, tid, unit)) return;
  const auto d = dev_.load<TaskDescriptor>(follow(s + kSlotDescField));
  const DevAddr pa = follow(s + kSlotPayloadField);
  const auto p = dev_.load<TaskPayload>(pa);
  record(i, -1);
  if (d.kind == kKindGraph) {
    start_graph(i, tid);
    return;
  }
  if (d.kind != kKindKernel && d.kind != kKindAlloc) throw BadRecord(fmt::format("{} has kind {}", unit, d.kind));
  std::vector<TensorArg> tensors(p.n_tensors);
  std::vector<uint64_t> scalars(p.n_scalars);
  if (p.n_tensors > 0) {
    const DevAddr base = follow(pa + kPayloadTensorsField);
    for (uint64_t k = 0; k < p.n_tensors; ++k) tensors[k] = dev_.load<TensorArg>(base + k * sizeof(TensorArg));
  }
  if (p.n_scalars > 0) {
    const DevAddr base = follow(pa + kPayloadScalarsField);
    for (uint64_t k = 0; k < p.n_scalars; ++k) scalars[k] = dev_.load<uint64_t>(base + 8 * k);
  }
  if (!call_kernel(d.kernel_id, tensors, scalars, unit)) return;
  complete_task(i, tid);
}

void SchedulerRun::complete_task(uint32_t i, unsigned tid) {
  const DevAddr s = slot(i);
  if (!transition(s + kState, kSlotRunning, kSlotDone, tid, fmt::format("task {}", i))) return;
  // The flag first, then the list closed in one exchange: a scan that saw the flag unset
  // and registers after the exchange finds the list closed and passes this task.
  int32_t h = 0;
  if (defects::active(defects::Defect::kWakeListClosedByStore)) {
    // The list read, then closed by a plain store, then the flag: a consumer that reads the
    // flag unset and registers between the read and the store is never resumed.
    h = dev_.load<int32_t>(s + kWakeHead, std::memory_order_acquire);
    point(tid);
    dev_.store<int32_t>(s + kWakeHead, kWakeClosed, std::memory_order_release);
    dev_.store<uint8_t>(v_.flag(i), 1, std::memory_order_release);
  } else {
    dev_.store<uint8_t>(v_.flag(i), 1, std::memory_order_release);
    point(tid);
    h = dev_.exchange<int32_t>(s + kWakeHead, kWakeClosed);
  }
  // Resume the waiters. Each one's link is read before its scan resumes, because the
  // resumed scan may park it on another producer and overwrite wake_next.
  for (uint32_t walked = 0; h > 0 && !stopped(); ++walked) {
    point(tid);
    const auto w = static_cast<uint32_t>(h - 1);
    if (w <= i || w >= n_ || walked >= n_) {
      latch(code_value(ErrorCode::kCompletionInvalid), tid, fmt::format("task {} wake list names task {}", i, w));
      return;
    }
    h = dev_.load<int32_t>(slot(w) + kWakeNext);
    scan(w, tid);
  }
  if (h < 0 && !stopped()) {
    latch(code_value(ErrorCode::kCompletionInvalid), tid, fmt::format("task {} wake list ends in {}", i, h));
    return;
  }
  unit_done();
}

void SchedulerRun::unit_done() {
  dev_.fetch_add<uint64_t>(ctl_ + kCompleted, 1);
  const auto old = dev_.fetch_add<uint64_t>(ctl_ + kRemaining, ~uint64_t{0});
  last_progress_.store(now_ticks(), std::memory_order_release);
  if (old == 1) {
    finished_.store(true, std::memory_order_release);
    wake_all();
  }
}

void SchedulerRun::wake_all() {
  // Taking the lock orders this notify after any waiter's predicate check.
  { std::lock_guard lk(ring_mu_); }
  ring_cv_.notify_all();
  if (pct_ != nullptr) pct_->unblock_all();
}

void SchedulerRun::latch(int32_t code, unsigned tid, std::string why) {
  bool first = false;
  try {
    const DevAddr hdr = v_.image;
    int32_t expected = 0;
    first = dev_.cas<int32_t>(hdr + offsetof(ImageHeader, sched_error), expected, code);
    if (first) dev_.store<int32_t>(hdr + offsetof(ImageHeader, sched_error_thread), static_cast<int32_t>(tid));
    const DevAddr bm = hdr + offsetof(ImageHeader, sched_error_bitmap);
    const uint64_t bit = uint64_t{1} << std::min(tid, 63u);
    auto cur = dev_.load<uint64_t>(bm);
    while (!dev_.cas<uint64_t>(bm, cur, cur | bit)) {
    }
  } catch (const DeviceFault& f) {
    fail(fmt::format("latching code {}: {}", code, f.describe()));
  }
  if (first) {
    std::lock_guard lk(result_mu_);
    result_.code = code;
    result_.code_thread = static_cast<int32_t>(tid);
    if (result_.detail.empty()) result_.detail = std::move(why);
  }
  stop_.store(true, std::memory_order_release);
  wake_all();
}

void SchedulerRun::fail(std::string detail, bool kernel) {
  {
    std::lock_guard lk(result_mu_);
    if (!result_.faulted) result_.kernel_fault = kernel;  // the first fault says where
    result_.faulted = true;
    if (result_.detail.empty()) result_.detail = std::move(detail);
  }
  try {
    dev_.store<int32_t>(ctl_ + kFault, 1);
  } catch (const DeviceFault&) {
    // The control block itself is gone; the stop flag below still ends the run.
  }
  stop_.store(true, std::memory_order_release);
  wake_all();
}

ScheduleResult SchedulerRun::take_result() {
  uint64_t completed = 0;
  try {
    completed = dev_.load<uint64_t>(ctl_ + kCompleted);
  } catch (const DeviceFault&) {
  }
  std::lock_guard lk(result_mu_);
  result_.units_completed = completed;
  if (pct_ != nullptr) result_.pct_steps = pct_->steps_taken();
  return std::move(result_);
}

}  // namespace stackcheck::runtime::sched_detail
