// splitmix64: the seeded stream behind entry-tensor inputs (COMPILER.md §7: one draw per
// element, row-major, low 32 bits, over the entry tensors in declaration order). The
// reference interpreter draws the same stream, so device results can be compared byte for
// byte. Kept local: the runtime must not include interp/.
#pragma once

#include <cstdint>

namespace stackcheck::runtime {

class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}
  uint64_t next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }

 private:
  uint64_t state_;
};

}  // namespace stackcheck::runtime
