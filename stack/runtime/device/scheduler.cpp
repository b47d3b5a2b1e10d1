// run_scheduler (scheduler.h): the two run loops over sched_detail::SchedulerRun.
// Threaded: worker w classifies tasks w, w+workers, ... and then pops FIFO, so classification
// overlaps with execution and the wake-list protocol really races; the calling thread is
// the watchdog (thread id `workers`) that latches 100 when no unit completes within the
// progress timeout. Adversarial: one thread classifies every task in id order, then pops by
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

void run_threaded(SchedulerRun& c, uint32_t n, unsigned workers, uint32_t timeout_ms) {
  std::mutex exit_mu;
  std::condition_variable exit_cv;
  unsigned running = workers;
  std::vector<std::thread> threads;
  auto worker = [&](unsigned w) {
    guarded(c, [&] {
      for (uint32_t i = w; i < n && !c.stopped(); i += workers) c.classify(i, w);
      while (!c.stopped() && !c.finished())
        if (const std::optional<uint64_t> e = c.pop_wait(std::chrono::milliseconds(2))) c.execute(*e, w);
    });
    std::lock_guard lk(exit_mu);
    --running;
    exit_cv.notify_all();
  };
  for (unsigned w = 0; w < workers; ++w) {
    try {
      threads.emplace_back(worker, w);
    } catch (const std::exception& e) {
      c.fail(fmt::format("cannot start worker {}: {}", w, e.what()));
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
  }
  return "?";
}

std::optional<ScheduleOptions::Mode> parse_schedule_mode(std::string_view name) {
  for (auto m : {ScheduleOptions::Mode::kThreaded, ScheduleOptions::Mode::kRandom, ScheduleOptions::Mode::kNewest,
                 ScheduleOptions::Mode::kOldest})
    if (name == schedule_mode_name(m)) return m;
  return std::nullopt;
}

ScheduleResult run_scheduler(DeviceAccess& dev, const DevImageView& view, const ScheduleOptions& opts) {
  const bool threaded = opts.mode == ScheduleOptions::Mode::kThreaded;
  const unsigned workers =
      threaded ? std::clamp(opts.workers == 0 ? kDefaultWorkers : opts.workers, 1u, kMaxWorkers) : 1u;
  const uint32_t timeout_ms = opts.progress_timeout_ms == 0 ? kDefaultProgressTimeoutMs : opts.progress_timeout_ms;
  SchedulerRun c(dev, view, opts.mode, opts.seed, workers, opts.on_dispatch);
  guarded(c, [&] { c.init(); });
  if (!c.stopped() && !c.finished()) {
    if (threaded)
      run_threaded(c, view.n, workers, timeout_ms);
    else
      run_adversarial(c, view.n);
  }
  return c.take_result();
}

}  // namespace stackcheck::runtime
