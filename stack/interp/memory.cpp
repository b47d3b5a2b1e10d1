#include "stack/interp/memory.h"

#include "stack/support/check.h"

// gcc 12 cannot see that moving an Extent copies its inline elements only when they are inline
// (at most 4), and warns that the copy may read past the 32-byte buffer (-Wstringop-overread).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wstringop-overread"
#endif

namespace stackcheck::interp {

size_t Window::element_count() const {
  size_t n = 1;
  for (int64_t d : shape) n *= static_cast<size_t>(d);
  return n;
}

namespace {

// Calls f(buffer index) for every element of `w`, row-major over the window: no index list.
template <class F>
void for_each_index(const Window& w, F&& f) {
  const size_t r = w.rank();
  boost::container::small_vector<size_t, 4> stride(r, 1);
  for (size_t k = r; k-- > 1;) stride[k - 1] = stride[k] * static_cast<size_t>(w.buffer->dims[k]);
  Extent idx(r, 0);  // odometer over the window
  const size_t n = w.element_count();
  for (size_t e = 0; e < n; ++e) {
    size_t lin = 0;
    for (size_t k = 0; k < r; ++k) lin += static_cast<size_t>(w.offsets[k] + idx[k]) * stride[k];
    f(lin);
    for (size_t k = r; k-- > 0;) {
      if (++idx[k] < w.shape[k]) break;
      idx[k] = 0;
    }
  }
}

}  // namespace

std::vector<uint32_t> Window::read_all() const {
  std::vector<uint32_t> out;
  out.reserve(element_count());
  const std::vector<uint32_t>& data = buffer->data;
  for_each_index(*this, [&](size_t i) { out.push_back(data[i]); });
  return out;
}

uint32_t Window::origin() const {
  size_t lin = 0;
  size_t stride = 1;
  for (size_t k = rank(); k-- > 0;) {
    lin += static_cast<size_t>(offsets[k]) * stride;
    stride *= static_cast<size_t>(buffer->dims[k]);
  }
  return buffer->data[lin];
}

void Window::write_all(const std::vector<uint32_t>& values) const {
  STACK_CHECK(values.size() == element_count(), "window write of the wrong element count");
  std::vector<uint32_t>& data = buffer->data;
  size_t e = 0;
  for_each_index(*this, [&](size_t i) { data[i] = values[e++]; });
}

std::optional<size_t> checked_element_count(std::span<const int64_t> dims, size_t limit) {
  if (dims.empty()) return std::nullopt;
  size_t n = 1;
  for (int64_t d : dims) {
    if (d < 1 || static_cast<uint64_t>(d) > limit) return std::nullopt;
    n *= static_cast<size_t>(d);
    if (n > limit) return std::nullopt;
  }
  return n;
}

Window fresh_window(std::span<const int64_t> dims, uint32_t fill) {
  auto buf = std::make_shared<Buffer>();
  buf->dims.assign(dims.begin(), dims.end());
  size_t n = 1;
  for (int64_t d : dims) n *= static_cast<size_t>(d);
  buf->data.assign(n, fill);
  Extent shape(dims.begin(), dims.end());
  return Window{std::move(buf), Extent(dims.size(), 0), std::move(shape)};
}

std::optional<Window> sub_window(const Window& w, std::span<const int64_t> offsets, std::span<const int64_t> sizes) {
  if (offsets.size() != w.rank() || sizes.size() != w.rank()) return std::nullopt;
  Window out{w.buffer, w.offsets, Extent(sizes.begin(), sizes.end())};
  for (size_t k = 0; k < w.rank(); ++k) {
    // offsets[k] + sizes[k] <= shape[k], written so that nothing can overflow.
    if (offsets[k] < 0 || sizes[k] < 1 || offsets[k] > w.shape[k] || sizes[k] > w.shape[k] - offsets[k]) {
      return std::nullopt;
    }
    out.offsets[k] = w.offsets[k] + offsets[k];
  }
  return out;
}

}  // namespace stackcheck::interp
