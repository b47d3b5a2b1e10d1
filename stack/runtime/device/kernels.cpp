// The builtin kernels (kernels.h). Each kernel first turns every TensorArg into a checked
// Window (shape sane, every element inside its buffer span), then reads all inputs into
// host vectors, computes, and only then writes outputs: that ordering is what makes
// aliasing arguments safe, and doing all checks first means a bad argument faults before
// any output byte changes.
#include "stack/runtime/device/kernels.h"

#include <array>
#include <vector>

#include <fmt/format.h>

namespace stackcheck::runtime {
namespace {

constexpr uint64_t kElem = 4;

// A checked view of one tensor argument: row-major element order over `shape`.
class Window {
 public:
  // Validates the shape (KernelError) and that the whole bounding range of the window lies
  // in [base, base+buffer_bytes) (DeviceFault kSpan, with `op` the intended access).
  static std::optional<KernelError> make(const TensorArg& a, size_t index, DeviceOp op, Window& out) {
    if (a.rank < 1 || a.rank > 4) return KernelError{fmt::format("tensor {} has rank {} (1..4)", index, a.rank)};
    out.span_ = DevSpan{a.base, a.buffer_bytes};
    out.rank_ = a.rank;
    __int128 lo = static_cast<__int128>(a.offset_bytes), hi = lo + kElem;
    unsigned __int128 count = 1;
    for (uint32_t d = 0; d < a.rank; ++d) {
      if (a.shape[d] < 1) return KernelError{fmt::format("tensor {} dim {} is {}", index, d, a.shape[d])};
      out.shape_[d] = a.shape[d];
      out.stride_[d] = a.stride[d];
      const __int128 reach = static_cast<__int128>(a.shape[d] - 1) * a.stride[d] * kElem;
      (reach < 0 ? lo : hi) += reach;
      count *= static_cast<unsigned>(a.shape[d]);
    }
    if (lo < 0 || hi > static_cast<__int128>(a.buffer_bytes)) {
      const __int128 n = hi - lo;
      throw DeviceFault(op, a.base + static_cast<uint64_t>(lo),
                        n > static_cast<__int128>(UINT64_MAX) ? UINT64_MAX : static_cast<uint64_t>(n),
                        FaultKind::kSpan);
    }
    // Distinct elements cannot outnumber the buffer's; a window that claims more (stride 0
    // broadcasting) is refused rather than looped over.
    if (count > a.buffer_bytes / kElem)
      return KernelError{fmt::format("tensor {} window has {} elements, its buffer only {} bytes", index,
                                     static_cast<uint64_t>(count), a.buffer_bytes)};
    out.off_ = static_cast<int64_t>(a.offset_bytes);
    out.count_ = static_cast<uint64_t>(count);
    return std::nullopt;
  }

  uint32_t rank() const { return rank_; }
  int64_t dim(uint32_t d) const { return shape_[d]; }
  uint64_t count() const { return count_; }
  bool same_shape(const Window& o) const {
    if (rank_ != o.rank_) return false;
    for (uint32_t d = 0; d < rank_; ++d)
      if (shape_[d] != o.shape_[d]) return false;
    return true;
  }

  std::vector<uint32_t> read(DeviceAccess& dev) const {
    std::vector<uint32_t> v(count_);
    for_rows([&](int64_t row_off, uint64_t first, int64_t len, int64_t stride) {
      if (stride == 1) {
        span_.read(dev, static_cast<uint64_t>(row_off), v.data() + first, static_cast<uint64_t>(len) * kElem);
        return;
      }
      for (int64_t e = 0; e < len; ++e)
        v[first + e] = span_.load<uint32_t>(dev, static_cast<uint64_t>(row_off + e * stride * 4));
    });
    return v;
  }

  void write(DeviceAccess& dev, const std::vector<uint32_t>& v) const {
    for_rows([&](int64_t row_off, uint64_t first, int64_t len, int64_t stride) {
      if (stride == 1) {
        span_.write(dev, static_cast<uint64_t>(row_off), v.data() + first, static_cast<uint64_t>(len) * kElem);
        return;
      }
      for (int64_t e = 0; e < len; ++e)
        span_.store<uint32_t>(dev, static_cast<uint64_t>(row_off + e * stride * 4), v[first + e]);
    });
  }

 private:
  // fn(byte offset of the row's first element, its row-major index, row length, inner
  // stride) for every row of the innermost dimension. make() proved every offset lies in
  // [0, buffer_bytes), so the int64 sums cannot overflow.
  template <class Fn>
  void for_rows(Fn&& fn) const {
    const uint32_t inner = rank_ - 1;
    std::array<int64_t, 4> idx{};
    uint64_t first = 0;
    for (;;) {
      int64_t off = off_;
      for (uint32_t d = 0; d < inner; ++d) off += idx[d] * stride_[d] * static_cast<int64_t>(kElem);
      fn(off, first, shape_[inner], stride_[inner]);
      first += static_cast<uint64_t>(shape_[inner]);
      int32_t d = static_cast<int32_t>(inner) - 1;
      for (; d >= 0; --d) {
        if (++idx[d] < shape_[d]) break;
        idx[d] = 0;
      }
      if (d < 0) return;
    }
  }

  DevSpan span_;
  int64_t off_ = 0;
  uint32_t rank_ = 0;
  int64_t shape_[4] = {};
  int64_t stride_[4] = {};
  uint64_t count_ = 0;
};

std::string shape_text(const Window& w) {
  std::string s = "[";
  for (uint32_t d = 0; d < w.rank(); ++d) s += fmt::format("{}{}", d ? ", " : "", w.dim(d));
  return s + "]";
}

// Input (read) and output (write) directions, per kernel, for the fault's op.
bool is_output(int32_t kernel, size_t k) {
  switch (kernel) {
    case kKernelFill:
    case kKernelZero: return true;
    case kKernelCopy:
    case kKernelAcc:
    case kKernelScale:
    case kKernelRowsum: return k == 1;
    case kKernelAdd:
    case kKernelMatmul: return k == 2;
    default: return false;
  }
}

struct Arity {
  size_t tensors;
  size_t scalars;
};
constexpr Arity kArity[] = {{1, 1}, {2, 0}, {3, 0}, {2, 0}, {2, 1}, {3, 0}, {2, 0}};

}  // namespace

const char* builtin_kernel_name(int32_t kernel_id) {
  static constexpr const char* kNames[] = {"fill", "copy", "add", "acc", "scale", "matmul", "rowsum", "zero"};
  return kernel_id >= 0 && kernel_id <= kKernelZero ? kNames[kernel_id] : "?";
}

// long: the builtins' one dispatch: the arity check, then each kernel's shape rule and arithmetic, a few lines each
std::optional<KernelError> run_kernel(DeviceAccess& dev, int32_t kernel, std::span<const TensorArg> tensors,
                                      std::span<const uint64_t> scalars) {
  if (kernel < 0 || kernel > kKernelZero) return KernelError{fmt::format("unknown kernel id {}", kernel)};
  const char* name = builtin_kernel_name(kernel);
  if (kernel == kKernelZero) {
    if (tensors.empty() || tensors.size() > 32 || !scalars.empty())
      return KernelError{
          fmt::format("zero takes 1..32 tensors and no scalars, got {} and {}", tensors.size(), scalars.size())};
  } else if (tensors.size() != kArity[kernel].tensors || scalars.size() != kArity[kernel].scalars) {
    return KernelError{fmt::format("{} takes {} tensors and {} scalars, got {} and {}", name, kArity[kernel].tensors,
                                   kArity[kernel].scalars, tensors.size(), scalars.size())};
  }
  std::vector<Window> w(tensors.size());
  for (size_t k = 0; k < tensors.size(); ++k)
    if (auto e = Window::make(tensors[k], k, is_output(kernel, k) ? DeviceOp::kWrite : DeviceOp::kRead, w[k]))
      return KernelError{fmt::format("{}: {}", name, e->message)};
  const uint32_t s = scalars.empty() ? 0 : static_cast<uint32_t>(scalars[0]);  // i32(s): low 32 bits

  switch (kernel) {
    case kKernelZero:
      for (const Window& t : w) t.write(dev, std::vector<uint32_t>(t.count(), 0));
      return std::nullopt;
    case kKernelFill: w[0].write(dev, std::vector<uint32_t>(w[0].count(), s)); return std::nullopt;
    case kKernelMatmul: {
      const Window &a = w[0], &b = w[1], &o = w[2];
      if (a.rank() != 2 || b.rank() != 2 || o.rank() != 2 || a.dim(1) != b.dim(0) || o.dim(0) != a.dim(0) ||
          o.dim(1) != b.dim(1))
        return KernelError{fmt::format("matmul shapes {} x {} -> {}", shape_text(a), shape_text(b), shape_text(o))};
      const std::vector<uint32_t> va = a.read(dev), vb = b.read(dev);
      const uint64_t M = a.dim(0), K = a.dim(1), N = b.dim(1);
      std::vector<uint32_t> out(M * N, 0);
      for (uint64_t i = 0; i < M; ++i)
        for (uint64_t k = 0; k < K; ++k) {
          const uint32_t x = va[i * K + k];
          for (uint64_t j = 0; j < N; ++j) out[i * N + j] += x * vb[k * N + j];
        }
      o.write(dev, out);
      return std::nullopt;
    }
    case kKernelRowsum: {
      const Window &x = w[0], &o = w[1];
      if (x.rank() != 2 || o.rank() != 2 || o.dim(0) != x.dim(0) || o.dim(1) != 1)
        return KernelError{fmt::format("rowsum shapes {} -> {}", shape_text(x), shape_text(o))};
      const std::vector<uint32_t> vx = x.read(dev);
      const uint64_t M = x.dim(0), N = x.dim(1);
      std::vector<uint32_t> out(M, 0);
      for (uint64_t i = 0; i < M; ++i)
        for (uint64_t j = 0; j < N; ++j) out[i] += vx[i * N + j];
      o.write(dev, out);
      return std::nullopt;
    }
    default: break;
  }
  // Elementwise kernels: equal shapes.
  for (size_t k = 1; k < w.size(); ++k)
    if (!w[0].same_shape(w[k]))
      return KernelError{fmt::format("{} needs equal shapes, got {} and {}", name, shape_text(w[0]), shape_text(w[k]))};
  switch (kernel) {
    case kKernelCopy: w[1].write(dev, w[0].read(dev)); break;
    case kKernelAdd: {
      const std::vector<uint32_t> a = w[0].read(dev), b = w[1].read(dev);
      std::vector<uint32_t> out(a.size());
      for (size_t i = 0; i < a.size(); ++i) out[i] = a[i] + b[i];
      w[2].write(dev, out);
      break;
    }
    case kKernelAcc: {
      const std::vector<uint32_t> x = w[0].read(dev);
      std::vector<uint32_t> acc = w[1].read(dev);
      for (size_t i = 0; i < acc.size(); ++i) acc[i] += x[i];
      w[1].write(dev, acc);
      break;
    }
    case kKernelScale: {
      std::vector<uint32_t> x = w[0].read(dev);
      for (uint32_t& v : x) v *= s;
      w[1].write(dev, x);
      break;
    }
    default: break;
  }
  return std::nullopt;
}

}  // namespace stackcheck::runtime
