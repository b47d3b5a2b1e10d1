// FNV-1a-64: the digest of graph definitions (RUNTIME.md §9) and of entry tensors in the CLI
// (`interp`, `bind`). Incremental: fnv1a64(fnv1a64(kFnvOffset, a), b) digests a then b.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace stackcheck::support {

inline constexpr uint64_t kFnvOffset = 0xcbf29ce484222325ull;
inline constexpr uint64_t kFnvPrime = 0x100000001b3ull;

inline uint64_t fnv1a64(uint64_t h, const void* data, size_t n) {
  auto* p = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < n; ++i) h = (h ^ p[i]) * kFnvPrime;
  return h;
}
inline uint64_t fnv1a64(std::span<const uint8_t> bytes) { return fnv1a64(kFnvOffset, bytes.data(), bytes.size()); }

}  // namespace stackcheck::support
