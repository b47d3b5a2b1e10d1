// Builtin kernel signatures and submit-time argument validation (RUNTIME.md §12, COMPILER.md
// §2). A submit whose arguments do not fit its builtin latches 5 before anything is claimed.
// Rules: exact tensor and scalar counts; a builtin In parameter accepts input/no_dep, Out
// accepts output/output_existing/no_dep, InOut accepts inout/no_dep; fill/copy/add/acc/scale
// need equal shapes (rank and dims); matmul a [M,K], b [K,N], out [M,N]; rowsum x [M,N],
// out [M,1]. Kernel 7 (zero) is the ALLOC task's fill and cannot be submitted.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "stack/runtime/image/records.h"

namespace stackcheck::runtime {

inline constexpr int32_t kMaxSubmitKernelId = 6;  // 0 fill .. 6 rowsum

// What validation needs of one tensor argument.
struct KernelTensorArg {
  uint32_t tag = kTagInvalid;  // TensorTag
  uint32_t rank = 0;
  int64_t shape[4] = {};
};

const char* kernel_name(int32_t kernel_id);  // "fill" .. "rowsum", "zero", "?"

// Why the arguments do not fit kernel `kernel_id`, or nullopt when they do.
std::optional<std::string> check_kernel_args(int32_t kernel_id, std::span<const KernelTensorArg> tensors,
                                             uint32_t n_scalars);

}  // namespace stackcheck::runtime
