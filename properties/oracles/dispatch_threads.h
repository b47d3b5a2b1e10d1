// The threads a bind's units ran on, measured (RUNTIME.md §12: threaded runs `workers`
// threads, default 4; the other policies run on the caller's thread). A hook on the
// scheduler's dispatch seam (ScheduleOptions::on_dispatch, called on the dispatching worker's
// own thread) records each distinct std::thread::id; the verdict compares that count with the
// worker count the request and the plan's `config workers=` give, computed here. A scheduler
// that starts more workers than asked, or runs a sequential policy on a worker, fails it.
//
// Invariant: an upper bound only. Free-running workers need not all win a unit, so fewer
// threads than workers is never a failure. Ids are distinct among threads alive together,
// as a run's workers are; a finished thread's id may be reused.
#pragma once

#include <memory>

#include "properties/oracles/oracle.h"
#include "stack/runtime/device/scheduler.h"
#include "stack/runtime/plan/program.h"

namespace stackcheck::oracles {

class DispatchThreads {
 public:
  DispatchThreads();
  // Installs the recording hook in `s` (an earlier hook there still runs, first).
  void attach(runtime::ScheduleOptions& s) const;
  // The number of distinct threads that dispatched, and whether the caller's was one.
  size_t threads() const;
  // Judges the recorded run of `plan` bound with the schedule `requested` (as given, before
  // attach) on the calling thread of the bind.
  Verdict check(const runtime::ScheduleOptions& requested, const runtime::OrchProgram& plan) const;

  // The worker count a threaded or PCT bind of `plan` under `requested` runs: the request's,
  // else the plan's `config workers=`, else 4, at most 64 (a bitmap bit each).
  static unsigned expected_workers(const runtime::ScheduleOptions& requested, const runtime::OrchProgram& plan);

 private:
  struct State;
  std::shared_ptr<State> st_;
};

}  // namespace stackcheck::oracles
