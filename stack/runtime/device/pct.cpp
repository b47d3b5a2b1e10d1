// PctControl (pct.h): PCT's priorities, change points and the one turn over real threads.
#include "stack/runtime/device/pct.h"

#include <algorithm>

#include "stack/support/splitmix.h"

namespace stackcheck::runtime::sched_detail {

PctControl::PctControl(unsigned workers, uint64_t seed, unsigned depth, uint64_t steps)
    : cv_(workers), priority_(workers), state_(workers, State::kAbsent) {
  support::SplitMix64 rng(seed);
  depth = std::max(depth, 1u);
  steps = std::max<uint64_t>(steps, 1);
  // Initial priorities depth .. depth+n-1, shuffled (Fisher-Yates).
  for (unsigned w = 0; w < workers; ++w) priority_[w] = depth + w;
  for (unsigned w = workers; w > 1; --w) std::swap(priority_[w - 1], priority_[rng.next() % w]);
  // Change point i (1..depth-1) at a uniform step in 1..k; applied in step order.
  for (unsigned i = 1; i < depth; ++i) changes_.emplace_back(1 + rng.next() % steps, i);
  std::stable_sort(changes_.begin(), changes_.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
}

void PctControl::pass_turn() {
  int best = -1;
  for (unsigned w = 0; w < state_.size(); ++w)
    if (state_[w] == State::kEnabled && (best < 0 || priority_[w] > priority_[static_cast<unsigned>(best)]))
      best = static_cast<int>(w);
  if (best == owner_) return;  // the turn stays: no wake-up to pay for
  owner_ = best;
  if (best >= 0) cv_[static_cast<unsigned>(best)].notify_one();
}

void PctControl::wait_turn(std::unique_lock<std::mutex>& lk, unsigned w) {
  cv_[w].wait(lk, [&] { return owner_ == static_cast<int>(w); });
}

void PctControl::arrive(unsigned w) {
  std::unique_lock lk(mu_);
  state_[w] = State::kEnabled;
  if (++arrived_ == state_.size()) pass_turn();
  wait_turn(lk, w);
}

void PctControl::point(unsigned w) {
  std::unique_lock lk(mu_);
  ++step_;
  while (next_change_ < changes_.size() && changes_[next_change_].first <= step_)
    priority_[w] = changes_[next_change_++].second;
  pass_turn();
  wait_turn(lk, w);
}

bool PctControl::block(unsigned w) {
  std::unique_lock lk(mu_);
  state_[w] = State::kBlocked;
  pass_turn();
  if (owner_ < 0) {  // nobody can run: a stall
    state_[w] = State::kEnabled;
    owner_ = static_cast<int>(w);
    return false;
  }
  wait_turn(lk, w);
  return true;
}

void PctControl::unblock_all() {
  std::lock_guard lk(mu_);
  for (State& s : state_)
    if (s == State::kBlocked) s = State::kEnabled;
  // A stall answered by the last blocker leaves no owner only when every worker is gone;
  // otherwise the turn stays where it is (unblocking is not a scheduling point).
  if (owner_ < 0 && arrived_ == state_.size()) pass_turn();
}

void PctControl::leave(unsigned w) {
  std::unique_lock lk(mu_);
  if (state_[w] == State::kAbsent) ++arrived_;
  state_[w] = State::kGone;
  if (arrived_ == state_.size() && (owner_ < 0 || owner_ == static_cast<int>(w))) pass_turn();
}

uint64_t PctControl::steps_taken() {
  std::lock_guard lk(mu_);
  return step_;
}

}  // namespace stackcheck::runtime::sched_detail
