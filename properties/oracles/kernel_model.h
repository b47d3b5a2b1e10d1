// A model of the device's builtin kernels on raw TensorArgs (RUNTIME.md §12 Kernels, and the
// contract in stack/runtime/device/kernels.h), written from that contract alone. The plan model
// runs the builtins on the row-major windows an orchestrator builds; the device takes any
// TensorArg an image carries: strides of any sign, 0 (broadcast), inner strides other than 1,
// unaligned offsets, ranks and dims out of range, counts that do not fit the kernel. For those,
// this model predicts run_kernel's whole outcome:
// - a KernelError with its exact message (the arity, then each tensor in order: rank 1..4, each
//   dim >= 1, then its bounding range inside [base, base + buffer_bytes) or a DeviceFault
//   {read|write, base + lowest byte, bounding length, span}, then no more elements than the
//   buffer holds; then the kernel's shape rule);
// - or the bytes every output leaves in memory. Elements are addressed one at a time (offset +
//   sum of index * stride * 4), inputs are read before any output is written, and outputs are
//   written in row-major element order, so with a broadcast output the last element wins.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "stack/runtime/devmem/fault.h"
#include "stack/runtime/image/records.h"

namespace stackcheck::oracles {

// The model's memory: the bytes of each device buffer a case uses, by base address.
struct KernelMemory {
  struct Region {
    uint64_t base = 0;
    std::vector<uint8_t> bytes;
  };
  std::vector<Region> regions;
};

struct KernelOutcome {
  enum class Kind : uint8_t { kDone, kError, kFault };
  Kind kind = Kind::kDone;
  std::string message;                              // kError: the KernelError's message
  runtime::DeviceOp op = runtime::DeviceOp::kRead;  // kFault: the access intended
  uint64_t addr = 0, n = 0;                         // kFault: first byte and length (kind span)
  std::string describe() const;
};

// A wrong rule, for the positive controls: each must make the kernel property fail.
enum class KernelModelFlaw : uint8_t {
  kNone,
  kRowMajorWrites,      // outputs written as if their strides were row-major over their shape
  kFaultAtWindowStart,  // a span fault reported at the window's first element, not its lowest byte
};

// The outcome of run_kernel(kernel, tensors, scalars); on kDone `mem` holds the bytes after it.
// Every tensor's window must lie, when it lies inside its span at all, inside one region.
KernelOutcome predict_kernel(KernelMemory& mem, int32_t kernel, std::span<const runtime::TensorArg> tensors,
                             std::span<const uint64_t> scalars, KernelModelFlaw flaw = KernelModelFlaw::kNone);

}  // namespace stackcheck::oracles
