// Builtin signatures and argument validation (kernel_sig.h).
#include "stack/runtime/host/kernel_sig.h"

#include <fmt/format.h>

namespace stackcheck::runtime {
namespace {

enum class Dir : uint8_t { In, Out, InOut };

struct Signature {
  const char* name;
  Dir params[3];
  uint32_t n_tensors;
  uint32_t n_scalars;
};

constexpr Signature kSignatures[] = {
    {"fill", {Dir::Out}, 1, 1},
    {"copy", {Dir::In, Dir::Out}, 2, 0},
    {"add", {Dir::In, Dir::In, Dir::Out}, 3, 0},
    {"acc", {Dir::In, Dir::InOut}, 2, 0},
    {"scale", {Dir::In, Dir::Out}, 2, 1},
    {"matmul", {Dir::In, Dir::In, Dir::Out}, 3, 0},
    {"rowsum", {Dir::In, Dir::Out}, 2, 0},
};

bool accepts(Dir d, uint32_t tag) {
  if (tag == kTagNoDep) return true;
  switch (d) {
    case Dir::In: return tag == kTagInput;
    case Dir::Out: return tag == kTagOutput || tag == kTagOutputExisting;
    case Dir::InOut: return tag == kTagInout;
  }
  return false;
}

const char* dir_name(Dir d) { return d == Dir::In ? "In" : d == Dir::Out ? "Out" : "InOut"; }

const char* tag_text(uint32_t tag) {
  switch (tag) {
    case kTagInput: return "input";
    case kTagOutput: return "output";
    case kTagInout: return "inout";
    case kTagOutputExisting: return "output_existing";
    case kTagNoDep: return "no_dep";
    default: return "invalid";
  }
}

std::string shape_text(const KernelTensorArg& t) {
  return fmt::format("[{}]", fmt::join(std::span<const int64_t>(t.shape, t.rank <= 4 ? t.rank : 4), ", "));
}

bool same_shape(const KernelTensorArg& a, const KernelTensorArg& b) {
  if (a.rank != b.rank) return false;
  for (uint32_t i = 0; i < a.rank && i < 4; ++i)
    if (a.shape[i] != b.shape[i]) return false;
  return true;
}

}  // namespace

const char* kernel_name(int32_t kernel_id) {
  if (kernel_id >= 0 && kernel_id <= kMaxSubmitKernelId) return kSignatures[kernel_id].name;
  return kernel_id == kAllocKernelId ? "zero" : "?";
}

std::optional<std::string> check_kernel_args(int32_t kernel_id, std::span<const KernelTensorArg> t,
                                             uint32_t n_scalars) {
  if (kernel_id < 0 || kernel_id > kMaxSubmitKernelId)
    return fmt::format("kernel id {} cannot be submitted (0..{})", kernel_id, kMaxSubmitKernelId);
  const Signature& sig = kSignatures[kernel_id];
  if (t.size() != sig.n_tensors || n_scalars != sig.n_scalars)
    return fmt::format("{} takes {} tensors and {} scalars, got {} and {}", sig.name, sig.n_tensors, sig.n_scalars,
                       t.size(), n_scalars);
  for (uint32_t i = 0; i < sig.n_tensors; ++i)
    if (!accepts(sig.params[i], t[i].tag))
      return fmt::format("{} argument {} is {} but its parameter is {}", sig.name, i, tag_text(t[i].tag),
                         dir_name(sig.params[i]));
  switch (kernel_id) {
    case 5: {  // matmul a [M,K], b [K,N], out [M,N]
      const auto &a = t[0], &b = t[1], &o = t[2];
      if (a.rank != 2 || b.rank != 2 || o.rank != 2 || a.shape[1] != b.shape[0] || o.shape[0] != a.shape[0] ||
          o.shape[1] != b.shape[1])
        return fmt::format("matmul shapes {} x {} -> {} do not fit [M,K] x [K,N] -> [M,N]", shape_text(a),
                           shape_text(b), shape_text(o));
      return std::nullopt;
    }
    case 6: {  // rowsum x [M,N], out [M,1]
      const auto &x = t[0], &o = t[1];
      if (x.rank != 2 || o.rank != 2 || o.shape[0] != x.shape[0] || o.shape[1] != 1)
        return fmt::format("rowsum shapes {} -> {} do not fit [M,N] -> [M,1]", shape_text(x), shape_text(o));
      return std::nullopt;
    }
    default:
      for (uint32_t i = 1; i < sig.n_tensors; ++i)
        if (!same_shape(t[0], t[i]))
          return fmt::format("{} needs equal shapes, got {} and {}", sig.name, shape_text(t[0]), shape_text(t[i]));
      return std::nullopt;
  }
}

}  // namespace stackcheck::runtime
