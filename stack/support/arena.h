// A scratch arena for one short-lived computation (a pass sweep, a verifier run): a
// monotonic resource whose first N bytes are inline (on the stack with its owner), so the
// tables of a program of the generators' size cost no heap allocation (docs/throughput.md).
// Memory is released only when the arena is destroyed: it must outlive every container that
// uses it, and nothing allocated from it may escape the computation.
#pragma once

#include <cstddef>
#include <memory_resource>

namespace stackcheck::support {

template <std::size_t N>
class InlineArena {
 public:
  InlineArena() = default;
  InlineArena(const InlineArena&) = delete;
  InlineArena& operator=(const InlineArena&) = delete;

  std::pmr::memory_resource* resource() { return &resource_; }

 private:
  alignas(std::max_align_t) std::byte first_[N];
  std::pmr::monotonic_buffer_resource resource_{first_, N};
};

}  // namespace stackcheck::support
