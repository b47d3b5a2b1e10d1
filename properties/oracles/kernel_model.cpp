// The device-kernel model (kernel_model.h).
#include "properties/oracles/kernel_model.h"

#include <fmt/format.h>

#include <optional>

namespace stackcheck::oracles {
namespace {

using runtime::DeviceOp;
using runtime::TensorArg;

constexpr const char* kName[] = {"fill", "copy", "add", "acc", "scale", "matmul", "rowsum", "zero"};
// Tensors and scalars of kernels 0..6 (zero takes 1..32 tensors and no scalar).
constexpr int kTensors[] = {1, 2, 3, 2, 2, 3, 2};
constexpr int kScalars[] = {1, 0, 0, 0, 1, 0, 0};
// The argument each kernel writes (the fault's op): fill and zero write every tensor.
bool written(int32_t kernel, size_t k) {
  if (kernel == 0 || kernel == 7) return true;
  if (kernel == 2 || kernel == 5) return k == 2;
  return k == 1;
}

KernelOutcome error(std::string m) {
  KernelOutcome o;
  o.kind = KernelOutcome::Kind::kError;
  o.message = std::move(m);
  return o;
}

std::string dims_text(const TensorArg& a) {
  std::string s = "[";
  for (uint32_t d = 0; d < a.rank; ++d) s += fmt::format("{}{}", d == 0 ? "" : ", ", a.shape[d]);
  return s + "]";
}

uint64_t elements(const TensorArg& a) {
  uint64_t n = 1;
  for (uint32_t d = 0; d < a.rank; ++d) n *= static_cast<uint64_t>(a.shape[d]);
  return n;
}

// Tensor k's own checks, in the device's order; nullopt when the window is usable.
std::optional<KernelOutcome> check_tensor(const TensorArg& a, size_t k, DeviceOp op, KernelModelFlaw flaw) {
  if (a.rank == 0 || a.rank > 4) return error(fmt::format("tensor {} has rank {} (1..4)", k, a.rank));
  for (uint32_t d = 0; d < a.rank; ++d)
    if (a.shape[d] <= 0) return error(fmt::format("tensor {} dim {} is {}", k, d, a.shape[d]));
  // The bounding byte range [low, high): every corner of the box, in 128-bit arithmetic.
  __int128 low = static_cast<__int128>(a.offset_bytes), high = low + 4;
  for (uint32_t d = 0; d < a.rank; ++d) {
    const __int128 far = static_cast<__int128>(a.shape[d] - 1) * a.stride[d] * 4;
    if (far < 0)
      low += far;
    else
      high += far;
  }
  if (low < 0 || high > static_cast<__int128>(a.buffer_bytes)) {
    KernelOutcome f;
    f.kind = KernelOutcome::Kind::kFault;
    f.op = op;
    const __int128 first = flaw == KernelModelFlaw::kFaultAtWindowStart ? static_cast<__int128>(a.offset_bytes) : low;
    f.addr = a.base.raw() + static_cast<uint64_t>(first);
    const __int128 n = high - low;
    f.n = n > static_cast<__int128>(UINT64_MAX) ? UINT64_MAX : static_cast<uint64_t>(n);
    return f;
  }
  unsigned __int128 count = 1;
  for (uint32_t d = 0; d < a.rank; ++d) count *= static_cast<unsigned __int128>(a.shape[d]);
  if (count > a.buffer_bytes / 4)
    return error(fmt::format("tensor {} window has {} elements, its buffer only {} bytes", k,
                             static_cast<uint64_t>(count), a.buffer_bytes));
  return std::nullopt;
}

// The shape rule of kernels 0..6 on valid windows; nullopt when they fit.
std::optional<KernelOutcome> check_shapes(int32_t kernel, std::span<const TensorArg> t) {
  const auto rank = [&](size_t i) { return t[i].rank; };
  if (kernel == 5) {
    if (rank(0) != 2 || rank(1) != 2 || rank(2) != 2 || t[0].shape[1] != t[1].shape[0] ||
        t[2].shape[0] != t[0].shape[0] || t[2].shape[1] != t[1].shape[1])
      return error(fmt::format("matmul shapes {} x {} -> {}", dims_text(t[0]), dims_text(t[1]), dims_text(t[2])));
    return std::nullopt;
  }
  if (kernel == 6) {
    if (rank(0) != 2 || rank(1) != 2 || t[1].shape[0] != t[0].shape[0] || t[1].shape[1] != 1)
      return error(fmt::format("rowsum shapes {} -> {}", dims_text(t[0]), dims_text(t[1])));
    return std::nullopt;
  }
  for (size_t k = 1; k < t.size(); ++k) {
    bool same = t[k].rank == t[0].rank;
    for (uint32_t d = 0; same && d < t[0].rank; ++d) same = t[k].shape[d] == t[0].shape[d];
    if (!same)
      return error(
          fmt::format("{} needs equal shapes, got {} and {}", kName[kernel], dims_text(t[0]), dims_text(t[k])));
  }
  return std::nullopt;
}

// The byte address of every element of a window, in row-major element order.
std::vector<uint64_t> addresses(const TensorArg& a, bool row_major) {
  int64_t stride[4] = {};
  for (uint32_t d = 0; d < a.rank; ++d) stride[d] = a.stride[d];
  if (row_major) {
    int64_t s = 1;
    for (uint32_t d = a.rank; d-- > 0;) stride[d] = s, s *= a.shape[d];
  }
  std::vector<uint64_t> out;
  out.reserve(elements(a));
  int64_t idx[4] = {};
  for (;;) {
    int64_t off = static_cast<int64_t>(a.offset_bytes);
    for (uint32_t d = 0; d < a.rank; ++d) off += idx[d] * stride[d] * 4;
    out.push_back(a.base.raw() + static_cast<uint64_t>(off));
    uint32_t d = a.rank;
    while (d > 0 && ++idx[d - 1] == a.shape[d - 1]) idx[--d] = 0;
    if (d == 0) return out;
  }
}

uint8_t* byte_in(KernelMemory& mem, uint64_t addr) {
  for (KernelMemory::Region& r : mem.regions)
    if (addr >= r.base && addr - r.base < r.bytes.size()) return &r.bytes[addr - r.base];
  return nullptr;
}

uint8_t& byte_at(KernelMemory& mem, uint64_t addr) {
  if (uint8_t* b = byte_in(mem, addr)) return *b;
  throw std::logic_error(fmt::format("kernel model: address {:#x} in no region", addr));
}

std::vector<uint32_t> read(KernelMemory& mem, const TensorArg& a) {
  std::vector<uint32_t> v;
  for (uint64_t at : addresses(a, false)) {
    uint32_t x = 0;
    for (int b = 3; b >= 0; --b) x = x << 8 | byte_at(mem, at + b);
    v.push_back(x);
  }
  return v;
}

void write(KernelMemory& mem, const TensorArg& a, const std::vector<uint32_t>& v, KernelModelFlaw flaw) {
  const bool row_major = flaw == KernelModelFlaw::kRowMajorWrites;
  const std::vector<uint64_t> at = addresses(a, row_major);
  for (size_t i = 0; i < at.size(); ++i)
    for (int b = 0; b < 4; ++b) {
      // The flawed model's row-major addresses may leave the window's buffer: it writes nothing
      // there, so the control fails on the bytes (not on the model's own error while shrinking).
      uint8_t* p = row_major ? byte_in(mem, at[i] + b) : &byte_at(mem, at[i] + b);
      if (p != nullptr) *p = static_cast<uint8_t>(v[i] >> (8 * b));
    }
}

// The values kernel 0..6 writes to its output, from its inputs.
std::vector<uint32_t> compute(KernelMemory& mem, int32_t kernel, std::span<const TensorArg> t, uint32_t s) {
  switch (kernel) {
    case 0: return std::vector<uint32_t>(elements(t[0]), s);
    case 1: return read(mem, t[0]);
    case 2:
    case 3: {
      std::vector<uint32_t> x = read(mem, t[0]);
      const std::vector<uint32_t> y = read(mem, t[1]);
      for (size_t i = 0; i < x.size(); ++i) x[i] += y[i];
      return x;
    }
    case 4: {
      std::vector<uint32_t> x = read(mem, t[0]);
      for (uint32_t& e : x) e *= s;
      return x;
    }
    case 5: {
      const std::vector<uint32_t> a = read(mem, t[0]), b = read(mem, t[1]);
      const int64_t m = t[0].shape[0], inner = t[0].shape[1], n = t[1].shape[1];
      std::vector<uint32_t> out(static_cast<size_t>(m * n), 0);
      for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < m; ++i)
          for (int64_t l = 0; l < inner; ++l) out[i * n + j] += a[i * inner + l] * b[l * n + j];
      return out;
    }
    default: {
      const std::vector<uint32_t> x = read(mem, t[0]);
      const int64_t m = t[0].shape[0], n = t[0].shape[1];
      std::vector<uint32_t> out(static_cast<size_t>(m), 0);
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) out[i] += x[i * n + j];
      return out;
    }
  }
}

}  // namespace

std::string KernelOutcome::describe() const {
  switch (kind) {
    case Kind::kDone: return "done";
    case Kind::kError: return fmt::format("KernelError \"{}\"", message);
    case Kind::kFault: return fmt::format("DeviceFault {} {:#x} n={} span", runtime::op_name(op), addr, n);
  }
  return "?";
}

KernelOutcome predict_kernel(KernelMemory& mem, int32_t kernel, std::span<const TensorArg> tensors,
                             std::span<const uint64_t> scalars, KernelModelFlaw flaw) {
  if (kernel < 0 || kernel > 7) return error(fmt::format("unknown kernel id {}", kernel));
  if (kernel == 7) {
    if (tensors.empty() || tensors.size() > 32 || !scalars.empty())
      return error(
          fmt::format("zero takes 1..32 tensors and no scalars, got {} and {}", tensors.size(), scalars.size()));
  } else if (tensors.size() != static_cast<size_t>(kTensors[kernel]) ||
             scalars.size() != static_cast<size_t>(kScalars[kernel])) {
    return error(fmt::format("{} takes {} tensors and {} scalars, got {} and {}", kName[kernel], kTensors[kernel],
                             kScalars[kernel], tensors.size(), scalars.size()));
  }
  for (size_t k = 0; k < tensors.size(); ++k)
    if (auto bad = check_tensor(tensors[k], k, written(kernel, k) ? DeviceOp::kWrite : DeviceOp::kRead, flaw)) {
      if (bad->kind == KernelOutcome::Kind::kError) bad->message = fmt::format("{}: {}", kName[kernel], bad->message);
      return *bad;
    }
  if (kernel == 7) {
    for (const TensorArg& a : tensors) write(mem, a, std::vector<uint32_t>(elements(a), 0), flaw);
    return {};
  }
  if (kernel != 0)
    if (auto bad = check_shapes(kernel, tensors)) return *bad;
  const uint32_t s = scalars.empty() ? 0 : static_cast<uint32_t>(scalars[0]);
  const size_t out = kernel == 2 || kernel == 5 ? 2 : kernel == 0 ? 0 : 1;
  write(mem, tensors[out], compute(mem, kernel, tensors, s), flaw);
  return {};
}

}  // namespace stackcheck::oracles
