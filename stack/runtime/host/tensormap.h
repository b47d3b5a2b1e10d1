// The tensormap and fanin construction (RUNTIME.md §7): host-only dependency tracking over
// device byte ranges.
// TensorMap invariants: entries are disjoint half-open ranges [lo, hi); each holds the last
// writer (or none) and the readers since that write (ascending task ids, no repeats); an
// access covers its window's bounding range. Per tag:
//   input: edges from overlapping writers, then it joins the readers;
//   output / output_existing / alloc: edges from overlapping writers and readers, then the
//     range becomes one entry (this writer, no readers), straddlers split;
//   inout: both (edges from writers and readers; then the writer);  no_dep: nothing.
// Entries are never dropped when a scope ends, which is what orders address reuse after a
// task-heap rewind (RAW, WAW and WAR edges across scopes). Ranges + reader records are
// capped at the capacity; exceeding it latches 11.
// FaninBuilder: one task's producers, epoch-deduplicated, self dropped, sorted ascending;
// more than 128 latches 4.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "stack/runtime/host/error_latch.h"
#include "stack/support/limits.h"

namespace stackcheck::runtime {

// How an access uses its range (the tensormap's view of a tag).
enum class Access : uint8_t { Read, Write, ReadWrite, None };
// How a submit's TensorArg tag (records.h) touches its window; no_dep is not tracked.
Access access_of(uint32_t tag);

inline constexpr uint32_t kMaxFanin = support::kTaskMaxFanin;

class FaninBuilder {
 public:
  // Starts the fanin of task `self` (a new epoch); ids are < window.
  void begin(int32_t self, uint32_t window);
  void add(int32_t producer);
  // Sorted producers; latches 4 (and returns false) when more than 128.
  bool finish(ErrorLatch& latch);
  const std::vector<int32_t>& producers() const { return producers_; }

 private:
  std::vector<uint32_t> epoch_of_;  // per task id: the epoch that last added it
  uint32_t epoch_ = 0;
  int32_t self_ = -1;
  std::vector<int32_t> producers_;
};

class TensorMap {
 public:
  TensorMap(uint64_t capacity, ErrorLatch& latch) : capacity_(capacity), latch_(&latch) {}

  // Adds to `fanin` the producers an access of [lo, hi) must wait for. Reads nothing else.
  void collect(uint64_t lo, uint64_t hi, Access a, FaninBuilder& fanin) const;
  // Registers the access of task `task`; latches 11 when the map outgrows its capacity.
  void record(uint64_t lo, uint64_t hi, Access a, int32_t task);

  void reset();
  uint64_t ranges() const { return map_.size(); }
  uint64_t reader_records() const { return readers_; }
  uint64_t size() const { return map_.size() + readers_; }

  struct Entry {
    uint64_t hi = 0;
    int32_t writer = -1;           // -1: no writer since the map was reset
    std::vector<int32_t> readers;  // since that write
  };
  const std::map<uint64_t, Entry>& entries() const { return map_; }  // lo -> entry (tests)

 private:
  void split_at(uint64_t x);  // ensures no entry straddles x
  void fill_gaps(uint64_t lo, uint64_t hi);

  uint64_t capacity_;
  ErrorLatch* latch_;
  std::map<uint64_t, Entry> map_;
  uint64_t readers_ = 0;
};

}  // namespace stackcheck::runtime
