// Internal to the scheduler (not a public header): controlled concurrency for the threaded
// scheduler, ScheduleOptions::Mode::kPct. PCT is the probabilistic concurrency testing
// scheduler of Burckhardt, Kothari, Musuvathi and Nagarakatte (ASPLOS 2010), here driving
// the real worker threads.
// - One worker runs at a time. It holds the turn from one scheduling point to the next;
//   the points are the protocol's shared-memory steps (SchedulerRun::point: the fanin scan,
//   the wake-list registration, every state transition, the completion, the ring).
// - The n workers get the distinct initial priorities d .. d+n-1 in a random order, and
//   d-1 priority change points are drawn uniformly from the steps 1..k. When the running
//   worker takes the step of change point i (i = 1..d-1, in drawing order), its priority
//   drops to i, below every initial one. At every point the enabled worker with the highest
//   priority runs.
// - A worker that finds the ring empty blocks until something is pushed or the run ends.
//   When no worker is left enabled while units remain, the run has stalled (a lost wake-up):
//   block() says so at once instead of waiting for the progress timeout.
// For a bug of depth d (d ordering constraints between steps) each run finds it with
// probability at least 1/(n k^(d-1)). Whatever the workers do is a function of the seed,
// the depth and the image, so a failing run replays exactly.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <utility>
#include <vector>

namespace stackcheck::runtime::sched_detail {

class PctControl {
 public:
  // `steps` is k, the estimate of the run's scheduling points (at least 1).
  PctControl(unsigned workers, uint64_t seed, unsigned depth, uint64_t steps);

  // A worker starts: waits until every worker has arrived (or left) and it has the turn.
  void arrive(unsigned w);
  // A scheduling point of worker w (which has the turn): counts the step, applies a change
  // point that falls on it, and hands the turn to the enabled worker of highest priority.
  void point(unsigned w);
  // The ring is empty: w waits until unblock_all() and its turn. False when no other worker
  // is enabled (a stall): w keeps the turn and is enabled again.
  bool block(unsigned w);
  // A push, a stop or the last completion: every blocked worker is enabled again.
  void unblock_all();
  // A worker ends (or was never started): the turn passes on.
  void leave(unsigned w);

  uint64_t steps_taken();

 private:
  enum class State : uint8_t { kAbsent, kEnabled, kBlocked, kGone };
  void pass_turn();  // mu_ held: the enabled worker of highest priority gets the turn
  void wait_turn(std::unique_lock<std::mutex>& lk, unsigned w);

  std::mutex mu_;
  std::vector<std::condition_variable> cv_;  // one per worker: a handoff wakes only the new owner
  std::vector<uint64_t> priority_;
  std::vector<State> state_;
  std::vector<std::pair<uint64_t, uint64_t>> changes_;  // (step, new priority), by step
  size_t next_change_ = 0;
  unsigned arrived_ = 0;
  int owner_ = -1;
  uint64_t step_ = 0;
};

}  // namespace stackcheck::runtime::sched_detail
