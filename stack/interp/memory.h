// The interpreter's memory model (COMPILER.md §1): a Buffer is a zero-based row-major block
// of i32 elements (held as uint32_t: arithmetic wraps); a Window is a box (offsets, shape)
// of a buffer. Every tensor name is a Window; all windows of one buffer see each other's
// writes. Invariant: a Window's box always lies inside its buffer (sub_window refuses
// boxes that do not fit), so element access never goes out of range.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include <boost/container/small_vector.hpp>

namespace stackcheck::interp {

// A shape or an offset vector: rank 1..3 (a fourth axis only in ill-formed programs, which
// spill to the heap), held inline so windows are made and copied without allocating.
using Extent = boost::container::small_vector<int64_t, 4>;
inline std::span<const int64_t> view(const Extent& e) { return {e.data(), e.size()}; }

struct Buffer {
  Extent dims;
  std::vector<uint32_t> data;
};

struct Window {
  std::shared_ptr<Buffer> buffer;
  Extent offsets;  // into the buffer, one per dim
  Extent shape;

  size_t rank() const { return shape.size(); }
  size_t element_count() const;
  // The elements, row-major over the window.
  std::vector<uint32_t> read_all() const;
  // The element at the window's origin (offsets); the window is never empty.
  uint32_t origin() const;
  // values.size() must equal element_count().
  void write_all(const std::vector<uint32_t>& values) const;
};

// The element count of `dims`, or nullopt if a dim is < 1 or the count exceeds `limit`.
std::optional<size_t> checked_element_count(std::span<const int64_t> dims, size_t limit);

// A fresh buffer of `dims` (checked by the caller) with every element `fill`, as a whole window.
Window fresh_window(std::span<const int64_t> dims, uint32_t fill);

// The window of `w` at `offsets` (relative to w) with `sizes`; nullopt when the ranks
// differ, a size is < 1 or the box does not fit inside w.
std::optional<Window> sub_window(const Window& w, std::span<const int64_t> offsets, std::span<const int64_t> sizes);

}  // namespace stackcheck::interp
