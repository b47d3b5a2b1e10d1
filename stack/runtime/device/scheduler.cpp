// run_scheduler (scheduler.h): the two run loops over sched_detail::SchedulerRun.
// Threaded: worker w classifies tasks w, w+workers, ... and then pops FIFO, so classification
// overlaps with execution and the wake-list protocol really races; the calling thread is
// the watchdog (thread id `workers`) that latches 100 when no unit completes within the
// progress timeout. Pct: the same workers take turns under a PctControl (pct.h); a worker
// facing an empty ring blocks in it, and when every worker is blocked the last one latches
// 100 at once (a stall; no valid image can stall). Adversarial: one thread classifies every task in id order, then pops by
// policy until no unit remains; an empty ring while units remain latches 100 at once (no
// valid image can stall, so waiting would only hide the bug).
#include "stack/runtime/device/scheduler.h"

#include <algorithm>
#include <exception>
#include <thread>

#include <fmt/format.h>

#include "stack/runtime/device/scheduler_run.h"
#include "stack/runtime/status/codes.h"

namespace stackcheck::runtime {
namespace {

using sched_detail::BadRecord;
using sched_detail::SchedulerRun;

// Runs fn; anything it throws stops the run with a detail instead of escaping a thread.
template <class Fn>
void guarded(SchedulerRun& c, Fn&& fn) {
  try {
    fn();
  } catch (const DeviceFault& f) {
    c.fail(f.describe());
  } catch (const BadRecord& e) {
    c.fail(fmt::format("bad record: {}", e.what()));
  } catch (const std::exception& e) {
    c.fail(fmt::format("scheduler: {}", e.what()));
  }
}

void run_adversarial(SchedulerRun& c, uint32_t n) {
  guarded(c, [&] {
    for (uint32_t i = 0; i < n && !c.stopped(); ++i) c.classify(i, 0);
    while (!c.stopped() && !c.finished()) {
      const std::optional<uint64_t> e = c.pop_policy();
      if (!e) {
        c.latch(code_value(ErrorCode::kSchedulerTimeout), 0,
                fmt::format("nothing ready while {} units remain", c.remaining()));
        return;
      }
      c.execute(*e, 0);
    }
  });
}

// One worker's loop: classify its share, then pop and dispatch until the run ends.
void work(SchedulerRun& c, uint32_t n, unsigned workers, unsigned w, sched_detail::PctControl* pct) {
  for (uint32_t i = w; i < n && !c.stopped(); i += workers) c.classify(i, w);
  while (!c.stopped() && !c.finished()) {
    if (pct == nullptr) {
      if (const std::optional<uint64_t> e = c.pop_wait(std::chrono::milliseconds(2))) c.execute(*e, w);
      continue;
    }
    c.point(w);
    if (const std::optional<uint64_t> e = c.pop_policy()) {
      c.execute(*e, w);
    } else if (!c.stopped() && !c.finished() && !pct->block(w)) {
      c.latch(code_value(ErrorCode::kSchedulerTimeout), w,
              fmt::format("every worker waits on an empty ring while {} units remain", c.remaining()));
    }
  }
}

void run_threaded(SchedulerRun& c, uint32_t n, unsigned workers, uint32_t timeout_ms,
                  sched_detail::PctControl* pct = nullptr) {
  std::mutex exit_mu;
  std::condition_variable exit_cv;
  unsigned running = workers;
  std::vector<std::thread> threads;
  auto worker = [&](unsigned w) {
    if (pct != nullptr) pct->arrive(w);
    guarded(c, [&] { work(c, n, workers, w, pct); });
    if (pct != nullptr) pct->leave(w);
    std::lock_guard lk(exit_mu);
    --running;
    exit_cv.notify_all();
  };
  for (unsigned w = 0; w < workers; ++w) {
    try {
      threads.emplace_back(worker, w);
    } catch (const std::exception& e) {
      c.fail(fmt::format("cannot start worker {}: {}", w, e.what()));
      if (pct != nullptr)
        for (unsigned u = w; u < workers; ++u) pct->leave(u);
      std::lock_guard lk(exit_mu);
      running -= workers - w;
      break;
    }
  }
  const auto timeout = std::chrono::milliseconds(timeout_ms);
  const auto poll = std::clamp(timeout / 4, std::chrono::milliseconds(1), std::chrono::milliseconds(20));
  {
    std::unique_lock lk(exit_mu);
    while (running > 0) {
      exit_cv.wait_for(lk, poll);
      if (running == 0 || c.stopped() || c.finished()) continue;
      if (std::chrono::steady_clock::now() - c.last_progress() > timeout) {
        lk.unlock();
        guarded(c, [&] {
          c.latch(code_value(ErrorCode::kSchedulerTimeout), workers,
                  fmt::format("no completion within {} ms ({} units remain)", timeout_ms, c.remaining()));
        });
        lk.lock();
      }
    }
  }
  for (std::thread& t : threads) t.join();
}

}  // namespace

const char* schedule_mode_name(ScheduleOptions::Mode m) {
  switch (m) {
    case ScheduleOptions::Mode::kThreaded: return "threaded";
    case ScheduleOptions::Mode::kRandom: return "random";
    case ScheduleOptions::Mode::kNewest: return "newest";
    case ScheduleOptions::Mode::kOldest: return "oldest";
    case ScheduleOptions::Mode::kPct: return "pct";
  }
  return "?";
}

std::optional<ScheduleOptions::Mode> parse_schedule_mode(std::string_view name) {
  for (auto m : {ScheduleOptions::Mode::kThreaded, ScheduleOptions::Mode::kRandom, ScheduleOptions::Mode::kNewest,
                 ScheduleOptions::Mode::kOldest, ScheduleOptions::Mode::kPct})
    if (name == schedule_mode_name(m)) return m;
  return std::nullopt;
}

ScheduleResult run_scheduler(DeviceAccess& dev, const DevImageView& view, const ScheduleOptions& opts) {
  const bool pct = opts.mode == ScheduleOptions::Mode::kPct;
  const bool threaded = opts.mode == ScheduleOptions::Mode::kThreaded || pct;
  const unsigned workers =
      threaded ? std::clamp(opts.workers == 0 ? kDefaultWorkers : opts.workers, 1u, kMaxWorkers) : 1u;
  const uint32_t timeout_ms = opts.progress_timeout_ms == 0 ? kDefaultProgressTimeoutMs : opts.progress_timeout_ms;
  SchedulerRun c(dev, view, opts.mode, opts.seed, workers, opts.on_dispatch);
  guarded(c, [&] { c.init(); });
  if (!c.stopped() && !c.finished()) {
    if (pct) {
      const unsigned depth = std::min(opts.pct_depth == 0 ? kDefaultPctDepth : opts.pct_depth, kMaxPctDepth);
      const uint64_t steps = opts.pct_steps != 0 ? opts.pct_steps : kPctStepsPerUnit * std::max<uint64_t>(c.initial_units(), 1);
      sched_detail::PctControl control(workers, opts.seed, depth, steps);
      c.set_pct(&control);
      run_threaded(c, view.n, workers, timeout_ms, &control);
      ScheduleResult r = c.take_result();
      c.set_pct(nullptr);
      return r;
    }
    if (threaded)
      run_threaded(c, view.n, workers, timeout_ms);
    else
      run_adversarial(c, view.n);
  }
  return c.take_result();
}

}  // namespace stackcheck::runtime
