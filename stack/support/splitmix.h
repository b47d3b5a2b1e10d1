// splitmix64 (Steele, Lea, Flood 2014): the one seeded stream of the stack. It fills entry
// tensors (COMPILER.md §7: one draw per element, row-major, low 32 bits) for the reference
// interpreter and the runtime alike, so device results compare byte for byte, and drives the
// scheduler's Random policy. Header-only and dependency-free: every layer may include it.
#pragma once

#include <cstdint>

namespace stackcheck::support {

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

}  // namespace stackcheck::support
