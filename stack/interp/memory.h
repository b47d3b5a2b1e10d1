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
#include <vector>

namespace stackcheck::interp {

struct Buffer {
  std::vector<int64_t> dims;
  std::vector<uint32_t> data;
};

struct Window {
  std::shared_ptr<Buffer> buffer;
  std::vector<int64_t> offsets;  // into the buffer, one per dim
  std::vector<int64_t> shape;

  size_t rank() const { return shape.size(); }
  size_t element_count() const;
  // Buffer index of every element, row-major over the window.
  std::vector<size_t> element_indices() const;
  std::vector<uint32_t> read_all() const;
  // values.size() must equal element_count().
  void write_all(const std::vector<uint32_t>& values) const;
};

// The element count of `dims`, or nullopt if a dim is < 1 or the count exceeds `limit`.
std::optional<size_t> checked_element_count(const std::vector<int64_t>& dims, size_t limit);

// A fresh buffer of `dims` (checked by the caller) with every element `fill`, as a whole window.
Window fresh_window(const std::vector<int64_t>& dims, uint32_t fill);

// The window of `w` at `offsets` (relative to w) with `sizes`; nullopt when the ranks
// differ, a size is < 1 or the box does not fit inside w.
std::optional<Window> sub_window(const Window& w, const std::vector<int64_t>& offsets,
                                 const std::vector<int64_t>& sizes);

}  // namespace stackcheck::interp
