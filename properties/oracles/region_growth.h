// The region's size and placement over a Runtime's binds (RUNTIME.md §5 "Region"), predicted
// from what each bind measurably shipped: the region is one live reservation named "region",
// [device-only | copied | image | submissions]; a bind needs align64(64 + 8·Q) (SchedControl and
// the ring of Q entries, Q read from the shipped RuntimeHeader) plus the bytes of its one image
// copy; when that passes the region's size the region grows to max(need, 2·old) (the first
// bind: need), else it stays. The RuntimeHeader lands at the region's base plus the device-only
// zone. A bind that copies nothing (a latched fatal) leaves the region as it was. Read from the
// device memory's reservation ledger and the copy the bind made, never from the Runtime's own
// figures.
#pragma once

#include <cstdint>

#include "properties/oracles/image_checks.h"
#include "properties/oracles/oracle.h"
#include "stack/runtime/devmem/device_memory.h"

namespace stackcheck::oracles {

class RegionGrowth {
 public:
  // Judges the bind `c` just made on the device memory `mem` of the Runtime this object follows
  // (one object per Runtime, fed every bind in order).
  Verdict after_bind(const Captured& c, const runtime::DeviceMemory& mem);
  uint64_t predicted() const { return predicted_; }

 private:
  uint64_t predicted_ = 0;  // 0: no region yet
  int binds_ = 0;
};

}  // namespace stackcheck::oracles
