// The task heap and the graph heap (RUNTIME.md §6): bump allocators over device address
// ranges reserved once at Runtime creation (payloads embed heap addresses, so the ranges
// never move). They hand out DevAddrs only; nothing here touches device memory.
// TaskHeap invariants: sizes round up to 64; align is 64 or 1024; a size-0 request returns
// the aligned top without moving it (it aliases the next allocation); a failed request
// leaves the heap unchanged and latches 2; the top moves forward only, except rewind() to
// a scope_begin mark, after which later allocations reuse the range (the tensormap orders
// the reuse, §7). GraphHeap: one 64-aligned block per GRAPH submission, never reclaimed
// before reset(); exhaustion latches 2. Both track their high-water mark per bind.
#pragma once

#include <cstdint>
#include <optional>

#include "stack/runtime/devmem/dev_addr.h"
#include "stack/runtime/host/error_latch.h"

namespace stackcheck::runtime {

class TaskHeap {
 public:
  TaskHeap(DevAddr base, uint64_t capacity, ErrorLatch& latch) : base_(base), capacity_(capacity), latch_(&latch) {}

  // nullopt (and latch 2) when [aligned top, + round64(bytes)) does not fit.
  std::optional<DevAddr> alloc(uint64_t bytes, uint64_t align);

  uint64_t mark() const { return top_; }
  void rewind(uint64_t mark);  // back to a mark() taken earlier in this bind
  void reset() { top_ = high_water_ = 0; }

  DevAddr base() const { return base_; }
  uint64_t capacity() const { return capacity_; }
  uint64_t top() const { return top_; }  // bytes in use from base
  uint64_t high_water() const { return high_water_; }

 private:
  DevAddr base_;
  uint64_t capacity_;
  ErrorLatch* latch_;
  uint64_t top_ = 0;
  uint64_t high_water_ = 0;
};

class GraphHeap {
 public:
  GraphHeap(DevAddr base, uint64_t capacity, ErrorLatch& latch) : base_(base), capacity_(capacity), latch_(&latch) {}

  // One 64-aligned block of round64(bytes); nullopt (and latch 2) when it does not fit.
  std::optional<DevAddr> alloc(uint64_t bytes);
  void reset() { top_ = 0; }

  DevAddr base() const { return base_; }
  uint64_t capacity() const { return capacity_; }
  uint64_t high_water() const { return top_; }  // never reclaimed: the top is the high-water

 private:
  DevAddr base_;
  uint64_t capacity_;
  ErrorLatch* latch_;
  uint64_t top_ = 0;
};

}  // namespace stackcheck::runtime
