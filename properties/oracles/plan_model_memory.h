// The plan model's memory and builtins (plan_model.h; internal to plan_model*.cpp): row-major
// i32 buffers, windows (boxes) of them as the runtime's TensorRef gives them, and the builtins
// of COMPILER.md §2 run on windows with i32 wrap-around, every input read before any output is
// written. A program the model cannot run is a ModelError, thrown by fail() and caught by
// run_plan_model: it never leaves the model.
#pragma once

#include <boost/container/small_vector.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "stack/runtime/plan/program.h"

namespace stackcheck::oracles::plan_model_detail {

struct ModelError {
  std::string message;
};
[[noreturn]] void fail(std::string message);

// ---- memory: row-major i32 buffers and windows (boxes) of them ----

// A window's offsets, shape and strides: inline up to rank 4 (a window is copied per argument).
using Dims = boost::container::small_vector<int64_t, 4>;

struct Buffer {
  std::vector<int64_t> dims;
  std::vector<uint32_t> data;
  bool dead = false;  // its scope ended: the runtime may hand its memory to a later buffer
};

struct Window {
  std::shared_ptr<Buffer> buffer;
  Dims offsets, shape;  // offsets into the buffer, one per dimension
  int entry = -1;       // the entry tensor it is rooted at, if any

  size_t elements() const {
    size_t count = 1;
    for (int64_t s : shape) count *= static_cast<size_t>(s);
    return count;
  }
  // Calls f(k, i) for the k-th element, row-major over the window, at buffer index i.
  template <class F>
  void for_each_index(F&& f) const {
    const size_t rank = shape.size();
    boost::container::small_vector<size_t, 4> stride(rank, 1);
    for (size_t d = rank; d-- > 1;) stride[d - 1] = stride[d] * static_cast<size_t>(buffer->dims[d]);
    const size_t count = elements();
    Dims at(rank, 0);
    for (size_t k = 0; k < count; ++k) {
      size_t i = 0;
      for (size_t d = 0; d < rank; ++d) i += static_cast<size_t>(offsets[d] + at[d]) * stride[d];
      f(k, i);
      for (size_t d = rank; d-- > 0;) {
        if (++at[d] < shape[d]) break;
        at[d] = 0;
      }
    }
  }
  // Buffer index of the first element.
  size_t first_index() const {
    size_t i = 0;
    for_each_index([&](size_t k, size_t at) {
      if (k == 0) i = at;
    });
    return i;
  }
  std::vector<uint32_t> read() const {
    std::vector<uint32_t> v(elements());
    for_each_index([&](size_t k, size_t i) { v[k] = buffer->data[i]; });
    return v;
  }
  void write(const std::vector<uint32_t>& v) const {
    for_each_index([&](size_t k, size_t i) { buffer->data[i] = v[k]; });
  }
  // [first, last] buffer indices of the window: the bounding range the runtime's alias
  // classes compare (RUNTIME.md §9).
  std::pair<size_t, size_t> bounds() const {
    const Dims s = strides();
    size_t first = 0, last = 0;
    for (size_t d = 0; d < shape.size(); ++d) {
      first += static_cast<size_t>(offsets[d] * s[d]);
      last += static_cast<size_t>((offsets[d] + shape[d] - 1) * s[d]);
    }
    return {first, last};
  }
  // Element strides in the buffer, as the runtime's TensorArg carries them.
  Dims strides() const {
    Dims s(shape.size(), 1);
    for (size_t d = shape.size(); d-- > 1;) s[d - 1] = s[d] * buffer->dims[d];
    return s;
  }
};

// `sizes[d]` elements from `offsets[d]` of `w`, as TensorRef::window (outside: latch 5).
Window sub_window(const Window& w, const Dims& offsets, const Dims& sizes);

// Element operations of one call, for the budget (matmul: one per multiply-add).
uint64_t builtin_ops(runtime::Builtin b, const std::vector<Window>& t);
// Runs builtin `b` on the windows `t` and scalars `s`, checking its arity and shapes first.
void run_builtin(runtime::Builtin b, const std::vector<Window>& t, const std::vector<int64_t>& s);

}  // namespace stackcheck::oracles::plan_model_detail
