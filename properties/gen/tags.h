// Feature tags of a generated input (which parts of the input space one case reached), and
// the window arithmetic the program and plan generators share.
#pragma once

#include <bitset>
#include <cstdint>
#include <string>
#include <vector>

#include "properties/gen/choice.h"

namespace stackcheck::gen {

// The set of an enum's tags, named by `Name`; E has a last enumerator kCount.
template <class E, const char* (*Name)(E)>
class TagSet {
 public:
  void add(E f) { bits_.set(static_cast<unsigned>(f)); }
  bool has(E f) const { return bits_.test(static_cast<unsigned>(f)); }
  size_t count() const { return bits_.count(); }
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (unsigned i = 0; i < static_cast<unsigned>(E::kCount); ++i)
      if (bits_.test(i)) out.emplace_back(Name(static_cast<E>(i)));
    return out;
  }
  static std::vector<std::string> all_names() {
    std::vector<std::string> out;
    for (unsigned i = 0; i < static_cast<unsigned>(E::kCount); ++i) out.emplace_back(Name(static_cast<E>(i)));
    return out;
  }

 private:
  std::bitset<static_cast<unsigned>(E::kCount)> bits_;
};

using Dims = std::vector<int64_t>;

// Elements two boxes (offsets, dims; same rank) share: 0 when disjoint.
int64_t overlap_elements(const Dims& off_a, const Dims& dims_a, const Dims& off_b, const Dims& dims_b);

// Window dims inside `base`: per dim the base's own extent (choice 0, the simplest) or a
// power of two up to it, so windows of different shapes share elements in many ways.
Dims window_dims_within(ChoiceSource& c, const Dims& base);

}  // namespace stackcheck::gen
