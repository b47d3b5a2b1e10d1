// Random input for a ByteChoices in the generators' unit tests: the catalogs' tests decode their
// programs, plans and edits from bytes drawn from a seeded engine, so each run is the same.
#pragma once

#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

namespace stackcheck::gen {

// n bytes, each the low byte of one draw of rng, in order.
inline std::vector<uint8_t> random_bytes(std::mt19937_64& rng, size_t n) {
  std::vector<uint8_t> out(n);
  for (uint8_t& x : out) x = static_cast<uint8_t>(rng());
  return out;
}

}  // namespace stackcheck::gen
