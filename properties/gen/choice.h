// A source of choices (HARNESS.md §1): the one interface every generator is written against,
// so the same generator runs on two engines. RapidCheck (rc_choices.h) draws each choice from
// rc::gen with integrated shrinking; bytes (ByteChoices) decode a libFuzzer input the way
// FuzzedDataProvider does, taking the smallest choice once the input is exhausted. Because a
// generator only ever asks for integers in a range, every choice sequence (and so every byte
// string) builds a valid input, and shrinking toward smaller choices never leaves the valid
// space. Choice 0 of every `one_of` must therefore be the simplest option.
//
// RecordingChoices wraps a source and keeps the sequence; encode_choices turns a recorded
// sequence into the bytes that make ByteChoices replay it exactly (the two-engine property).
// No RapidCheck here: fuzz targets link this header's library without it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <boost/container/small_vector.hpp>

#include "stack/support/splitmix.h"

namespace stackcheck::gen {

class ChoiceSource {
 public:
  virtual ~ChoiceSource() = default;
  // An integer in [lo, hi] (lo <= hi); smaller is simpler. The primitive choice.
  virtual int64_t integer(int64_t lo, int64_t hi) = 0;
  // The same, for sizes (statement counts, list lengths) and for any draw whose range may grow
  // with the run (a property's seed or knob, drawn as RapidCheck's inRange draws it): an engine
  // may scale these with its own notion of size (RapidCheck grows them over a run, and shrinks
  // them exactly as a plain inRange); the byte engine does not.
  virtual int64_t sized(int64_t lo, int64_t hi) { return integer(lo, hi); }

  bool boolean() { return integer(0, 1) == 1; }  // false is simpler
  size_t one_of(size_t n) { return static_cast<size_t>(integer(0, static_cast<int64_t>(n) - 1)); }
  size_t length(size_t max) { return static_cast<size_t>(sized(0, static_cast<int64_t>(max))); }
  bool chance(int percent) { return integer(0, 99) >= 100 - percent; }  // 0 (the simplest) is "no"
  // An integer in [lo, hi] that favours the ends of the range: four times in five one of lo,
  // lo + 1, hi - 1, hi (a value at a limit, and one inside it), else any; the simplest is any.
  int64_t near_edges(int64_t lo, int64_t hi) {
    switch (one_of(5)) {
      case 1: return lo;
      case 2: return hi;
      case 3: return lo < hi ? lo + 1 : lo;
      case 4: return lo < hi ? hi - 1 : hi;
      default: return integer(lo, hi);
    }
  }
  template <class T, size_t N>
  const T& pick(const boost::container::small_vector<T, N>& v) {
    return v[one_of(v.size())];
  }
  template <class T>
  const T& pick(const std::vector<T>& v) {
    return v[one_of(v.size())];
  }
};

// One recorded choice: the range asked for and the value given.
struct Choice {
  int64_t lo = 0, hi = 0, value = 0;
  bool operator==(const Choice&) const = default;
};

// FuzzedDataProvider-style decoder over a byte string. A choice in a range of R values reads
// the fewest bytes that can express R values (little-endian) and takes lo + (v mod R); past
// the end of the input every choice is lo. Deterministic: the same bytes, the same choices.
class ByteChoices final : public ChoiceSource {
 public:
  explicit ByteChoices(std::span<const uint8_t> bytes) : bytes_(bytes) {}
  int64_t integer(int64_t lo, int64_t hi) override;
  size_t consumed() const { return pos_; }
  bool exhausted() const { return pos_ >= bytes_.size(); }

 private:
  std::span<const uint8_t> bytes_;
  size_t pos_ = 0;
};

// Choices from a seed (SplitMix64): a generator's n-th case from seed S + n, the same on every
// machine; for measurements and tables that draw many cases without an engine.
class SeededChoices final : public ChoiceSource {
 public:
  explicit SeededChoices(uint64_t seed) : rng_(seed) {}
  int64_t integer(int64_t lo, int64_t hi) override;

 private:
  support::SplitMix64 rng_;
};

// Forwards to `inner` and records every choice.
class RecordingChoices final : public ChoiceSource {
 public:
  explicit RecordingChoices(ChoiceSource& inner) : inner_(inner) {}
  int64_t integer(int64_t lo, int64_t hi) override;
  int64_t sized(int64_t lo, int64_t hi) override;
  const std::vector<Choice>& choices() const { return choices_; }

 private:
  ChoiceSource& inner_;
  std::vector<Choice> choices_;
};

// The bytes ByteChoices decodes into exactly `choices` (each value must lie in its range).
std::vector<uint8_t> encode_choices(const std::vector<Choice>& choices);

// How many bytes ByteChoices reads for a choice in [lo, hi].
unsigned bytes_for_range(int64_t lo, int64_t hi);

}  // namespace stackcheck::gen
