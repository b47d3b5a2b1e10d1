#include "properties/gen/choice.h"

#include "stack/support/check.h"

namespace stackcheck::gen {

namespace {
// R - 1 for the range [lo, hi], as u64 (the full i64 range gives 2^64 - 1).
uint64_t span_of(int64_t lo, int64_t hi) { return static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo); }
}  // namespace

unsigned bytes_for_range(int64_t lo, int64_t hi) {
  uint64_t span = span_of(lo, hi);
  unsigned n = 0;
  while (span != 0) {
    ++n;
    span >>= 8;
  }
  return n;
}

int64_t ByteChoices::integer(int64_t lo, int64_t hi) {
  STACK_CHECK(lo <= hi, "ByteChoices::integer: empty range");
  const uint64_t span = span_of(lo, hi);
  const unsigned n = bytes_for_range(lo, hi);
  if (n == 0 || pos_ >= bytes_.size()) return lo;
  uint64_t v = 0;
  for (unsigned k = 0; k < n && pos_ < bytes_.size(); ++k) v |= uint64_t{bytes_[pos_++]} << (8 * k);
  if (span != UINT64_MAX) v %= span + 1;
  return static_cast<int64_t>(static_cast<uint64_t>(lo) + v);
}

int64_t SeededChoices::integer(int64_t lo, int64_t hi) {
  const uint64_t r = rng_.next();
  const uint64_t span = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo);
  return static_cast<int64_t>(static_cast<uint64_t>(lo) + (span == UINT64_MAX ? r : r % (span + 1)));
}

int64_t RecordingChoices::integer(int64_t lo, int64_t hi) {
  const int64_t v = inner_.integer(lo, hi);
  choices_.push_back({lo, hi, v});
  return v;
}

int64_t RecordingChoices::sized(int64_t lo, int64_t hi) {
  const int64_t v = inner_.sized(lo, hi);
  choices_.push_back({lo, hi, v});
  return v;
}

std::vector<uint8_t> encode_choices(const std::vector<Choice>& choices) {
  std::vector<uint8_t> out;
  for (const Choice& c : choices) {
    STACK_CHECK(c.lo <= c.value && c.value <= c.hi, "encode_choices: value outside its range");
    const uint64_t v = static_cast<uint64_t>(c.value) - static_cast<uint64_t>(c.lo);
    const unsigned n = bytes_for_range(c.lo, c.hi);
    for (unsigned k = 0; k < n; ++k) out.push_back(static_cast<uint8_t>(v >> (8 * k)));
  }
  return out;
}

}  // namespace stackcheck::gen
