// Task and graph heaps (heap.h).
#include "stack/runtime/host/heap.h"

#include <fmt/format.h>

#include "stack/support/check.h"

namespace stackcheck::runtime {
namespace {

// round64 / align-up without wrapping: nullopt when the result would pass `limit`.
std::optional<uint64_t> round_up(uint64_t x, uint64_t align, uint64_t limit) {
  if (x > limit) return std::nullopt;
  const uint64_t r = (x + (align - 1)) & ~(align - 1);  // x <= limit <= 2^40: no wrap
  if (r > limit) return std::nullopt;
  return r;
}

}  // namespace

std::optional<DevAddr> TaskHeap::alloc(uint64_t bytes, uint64_t align) {
  STACK_CHECK(align == 64 || align == 1024, "task heap alignment is 64 or 1024");
  if (latch_->latched()) return std::nullopt;
  const auto start = round_up(top_, align, capacity_);
  const auto size = round_up(bytes, 64, capacity_);
  if (!start || !size || *size > capacity_ - *start) {
    latch_->latch(ErrorCode::kHeapExhausted, fmt::format("task heap: {} B at align {} does not fit ({} of {} B in use)",
                                                         bytes, align, top_, capacity_));
    return std::nullopt;
  }
  if (*size == 0) return base_ + *start;  // aliases the top; the top does not move
  top_ = *start + *size;
  if (top_ > high_water_) high_water_ = top_;
  return base_ + *start;
}

void TaskHeap::rewind(uint64_t mark) {
  STACK_CHECK(mark <= top_, "task heap rewinds only backwards, to a scope_begin mark");
  top_ = mark;
}

std::optional<DevAddr> GraphHeap::alloc(uint64_t bytes) {
  if (latch_->latched()) return std::nullopt;
  const auto size = round_up(bytes, 64, capacity_);
  if (!size || *size > capacity_ - top_) {
    latch_->latch(ErrorCode::kHeapExhausted,
                  fmt::format("graph heap: {} B do not fit ({} of {} B in use)", bytes, top_, capacity_));
    return std::nullopt;
  }
  const DevAddr at = base_ + top_;
  top_ += *size;
  return at;
}

}  // namespace stackcheck::runtime
