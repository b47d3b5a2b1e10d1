// The builtin kernel library as the device runs it (RUNTIME.md §12, COMPILER.md §2):
//   0 fill(out; s)  1 copy(src, dst)  2 add(a, b, out)  3 acc(x, acc)  4 scale(x, out; s)
//   5 matmul(a [M,K], b [K,N], out [M,N])  6 rowsum(x [M,N], out [M,1])
//   7 zero (an ALLOC task or alloc node: zero-fill each of its buffers)
// Invariants:
// - A kernel sees tensor k only through DevSpan{base, buffer_bytes} of its TensorArg; the
//   window (offset_bytes, shape, strides in elements) must lie inside that span, else the
//   kernel throws DeviceFault{kSpan} before touching any element.
// - Elements are i32; arithmetic wraps (u32 math); a scalar s counts as i32(s) = its low 32
//   bits.
// - Every input element is read before any output element is written, so arguments may
//   alias (acc(x, x), add(a, b, a), a window of the output as an input).
// - Arguments are re-validated on the device (counts, ranks, shapes, window sizes); a
//   mismatch is a KernelError, never a crash or an unbounded loop.
// Device code: includes devmem/ and image/records.h only (RUNTIME.md §1 wall).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "stack/runtime/devmem/device_access.h"
#include "stack/runtime/image/records.h"

namespace stackcheck::runtime {

enum BuiltinKernel : int32_t {
  kKernelFill = 0,
  kKernelCopy = 1,
  kKernelAdd = 2,
  kKernelAcc = 3,
  kKernelScale = 4,
  kKernelMatmul = 5,
  kKernelRowsum = 6,
  kKernelZero = 7,
};

// "fill" .. "rowsum", "zero"; "?" for any other id.
const char* builtin_kernel_name(int32_t kernel_id);

// Why the arguments do not fit the kernel (device-side check of an uploaded task).
struct KernelError {
  std::string message;
};

// Runs builtin `kernel_id` over `tensors` and `scalars` (loaded by value from the pools or
// a graph block's arg area). nullopt on success. Throws DeviceFault when a window leaves
// its buffer span or device memory refuses an access.
std::optional<KernelError> run_kernel(DeviceAccess& dev, int32_t kernel_id, std::span<const TensorArg> tensors,
                                      std::span<const uint64_t> scalars);

}  // namespace stackcheck::runtime
