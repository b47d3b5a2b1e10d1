// Tensormap and fanin (tensormap.h).
#include "stack/runtime/host/tensormap.h"

#include <fmt/format.h>
#include <algorithm>

#include "stack/runtime/image/records.h"
#include "stack/support/check.h"

namespace stackcheck::runtime {

Access access_of(uint32_t tag) {
  switch (tag) {
    case kTagInput: return Access::Read;
    case kTagInout: return Access::ReadWrite;
    case kTagOutput:
    case kTagOutputExisting: return Access::Write;
    default: return Access::None;  // no_dep
  }
}

void FaninBuilder::begin(int32_t self, uint32_t window) {
  if (epoch_of_.size() < window) epoch_of_.resize(window, 0);
  if (++epoch_ == 0) {  // wrapped: forget every old mark
    std::fill(epoch_of_.begin(), epoch_of_.end(), 0);
    epoch_ = 1;
  }
  self_ = self;
  producers_.clear();
}

void FaninBuilder::add(int32_t producer) {
  if (producer == self_ || producer < 0) return;  // self edges are dropped; -1: no writer
  STACK_CHECK(static_cast<size_t>(producer) < epoch_of_.size(), "fanin producer outside the window");
  uint32_t& mark = epoch_of_[static_cast<size_t>(producer)];
  if (mark == epoch_) return;
  mark = epoch_;
  producers_.push_back(producer);
}

bool FaninBuilder::finish(ErrorLatch& latch) {
  std::sort(producers_.begin(), producers_.end());
  if (producers_.size() > kMaxFanin)
    return latch.latch(ErrorCode::kFaninOverflow,
                       fmt::format("task {} depends on {} producers (> {})", self_, producers_.size(), kMaxFanin));
  return true;
}

void TensorMap::reset() {
  map_.clear();
  readers_ = 0;
}

void TensorMap::collect(uint64_t lo, uint64_t hi, Access a, FaninBuilder& fanin) const {
  if (a == Access::None || lo >= hi) return;
  // First entry that may overlap: the one starting at or before lo, if it reaches past lo.
  auto it = map_.upper_bound(lo);
  if (it != map_.begin() && std::prev(it)->second.hi > lo) --it;
  for (; it != map_.end() && it->first < hi; ++it) {
    fanin.add(it->second.writer);
    if (a != Access::Read)
      for (int32_t r : it->second.readers) fanin.add(r);
  }
}

void TensorMap::split_at(uint64_t x) {
  auto it = map_.upper_bound(x);
  if (it == map_.begin()) return;
  --it;
  if (it->first >= x || it->second.hi <= x) return;  // starts at x, or ends at/before x
  Entry right = it->second;                          // same writer and readers
  it->second.hi = x;
  readers_ += right.readers.size();
  map_.emplace(x, std::move(right));
}

void TensorMap::fill_gaps(uint64_t lo, uint64_t hi) {
  uint64_t at = lo;
  auto it = map_.lower_bound(lo);
  while (at < hi) {
    const uint64_t next = (it == map_.end() || it->first >= hi) ? hi : it->first;
    if (next > at) map_.emplace_hint(it, at, Entry{next, -1, {}});
    if (it == map_.end() || it->first >= hi) break;
    at = it->second.hi;
    ++it;
  }
}

void TensorMap::record(uint64_t lo, uint64_t hi, Access a, int32_t task) {
  if (a == Access::None || lo >= hi || latch_->latched()) return;
  split_at(lo);
  split_at(hi);
  if (a == Access::Read) {
    fill_gaps(lo, hi);
    for (auto it = map_.lower_bound(lo); it != map_.end() && it->first < hi; ++it) {
      auto& rs = it->second.readers;
      if (rs.empty() || rs.back() != task) {  // one record per task (tasks arrive in order)
        rs.push_back(task);
        ++readers_;
      }
    }
  } else {  // Write or ReadWrite: the range becomes one entry owned by `task`
    auto it = map_.lower_bound(lo);
    while (it != map_.end() && it->first < hi) {
      readers_ -= it->second.readers.size();
      it = map_.erase(it);
    }
    map_.emplace(lo, Entry{hi, task, {}});
  }
  if (size() > capacity_)
    latch_->latch(ErrorCode::kTensormapOverflow, fmt::format("tensormap holds {} ranges + {} reader records (> {})",
                                                             map_.size(), readers_, capacity_));
}

}  // namespace stackcheck::runtime
