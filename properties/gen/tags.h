// Feature tags of a generated input (which parts of the input space one case reached), the
// tags the program and plan generators give alike, and the window arithmetic they share.
#pragma once

#include <algorithm>
#include <bitset>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <boost/container/small_vector.hpp>

#include "properties/gen/choice.h"

namespace stackcheck::gen {

// The tags both generators give a builtin's write: the 2-D kernels, and how its window meets
// an earlier access of its buffer (a non-commuting write onto the same window, a part of it,
// or a single element). A generator's tag enum E holds them as one run from E::kWrite on, in
// this order, with its own tags before and after (write_tag, tag_name).
enum class WriteTag : unsigned {
  kMatmul,
  kRowsum,
  kNonCommutingWrite,
  kOverlapExact,
  kOverlapPartial,
  kOverlapSingleElement,
  kCount
};
inline constexpr unsigned kWriteTags = static_cast<unsigned>(WriteTag::kCount);
const char* write_tag_name(WriteTag t);

template <class E>
constexpr E write_tag(WriteTag t) {
  return static_cast<E>(static_cast<unsigned>(E::kWrite) + static_cast<unsigned>(t));
}

// The name of tag `f` of such an enum: `own` names its own tags in order (the run left out).
template <class E, size_t N>
const char* tag_name(const char* const (&own)[N], E f) {
  static_assert(N + kWriteTags == static_cast<size_t>(E::kCount), "one name per tag of E outside the WriteTags");
  const unsigned i = static_cast<unsigned>(f), w = static_cast<unsigned>(E::kWrite);
  if (i < w) return own[i];
  if (i < w + kWriteTags) return write_tag_name(static_cast<WriteTag>(i - w));
  return own[i - kWriteTags];
}

// The set of an enum's tags, named by `Name`; E has a last enumerator kCount.
template <class E, const char* (*Name)(E)>
class TagSet {
 public:
  void add(E f) { bits_.set(static_cast<unsigned>(f)); }
  // One of the WriteTags of an enum that holds them (write_tag).
  void add(WriteTag t) { add(write_tag<E>(t)); }
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

// Inline up to rank 4 (the IR's own dims type): boxes are copied as generators fork bodies.
using Dims = boost::container::small_vector<int64_t, 4>;

// Elements two boxes (offsets, dims; same rank) share: 0 when disjoint.
int64_t overlap_elements(std::span<const int64_t> off_a, std::span<const int64_t> dims_a,
                         std::span<const int64_t> off_b, std::span<const int64_t> dims_b);
template <class D>
std::span<const int64_t> box_span(const D& d) {
  return {d.data(), d.size()};
}

// Tags a write of the window (off, dims) that meets an earlier access (a_off, a_dims) of its
// buffer: kNonCommutingWrite and one of exact / single element / partial. False, and no tag,
// when the two are disjoint.
// (The boxes are the generators' std::vector dims or the IR's ir::Dims.)
template <class Tags, class A, class B>
bool tag_write_overlap(Tags& tags, const A& a_off, const A& a_dims, const B& off, const B& dims) {
  const int64_t n = overlap_elements(box_span(a_off), box_span(a_dims), box_span(off), box_span(dims));
  if (n == 0) return false;
  tags.add(WriteTag::kNonCommutingWrite);
  if (std::ranges::equal(a_off, off) && std::ranges::equal(a_dims, dims))
    tags.add(WriteTag::kOverlapExact);
  else if (n == 1)
    tags.add(WriteTag::kOverlapSingleElement);
  else
    tags.add(WriteTag::kOverlapPartial);
  return true;
}

// Window dims inside `base`: per dim the base's own extent (choice 0, the simplest) or a
// power of two up to it, so windows of different shapes share elements in many ways.
Dims window_dims_within(ChoiceSource& c, const Dims& base);

}  // namespace stackcheck::gen
