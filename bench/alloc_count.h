// A counting allocator hook for the benchmark (bench/): every global operator new and delete of
// the process goes through alloc_count.cpp, which counts calls, bytes and frees while counting
// is on.
// Counts are process-wide (relaxed atomics), so a bind's worker threads are counted too.
#pragma once

#include <cstdint>

namespace stackcheck::bench {

struct AllocCounts {
  uint64_t allocations = 0;
  uint64_t bytes = 0;
  uint64_t frees = 0;  // operator delete of a non-null pointer
};

// Counting starts off; the benchmark turns it on around what it measures.
void set_counting(bool on);
AllocCounts alloc_counts();

}  // namespace stackcheck::bench
