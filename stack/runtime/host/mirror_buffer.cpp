#include "stack/runtime/host/mirror_buffer.h"

#include <algorithm>
#include <bit>
#include <cstring>

namespace stackcheck::runtime {

void MirrorBuffer::reset(uint64_t size, uint8_t fill) {
  if (size > capacity_) {
    bytes_.reset();  // the old allocation goes first: never two large ones at once
    bytes_.reset(new std::byte[size]);  // not value-initialised: pages are touched as blocks fill
    capacity_ = size;
  }
  size_ = size;
  fill_ = fill;
  filled_.assign((size + kBlockBytes - 1) / kBlockBytes / 64 + 1, 0);
}

void MirrorBuffer::fill_blocks(uint64_t first, uint64_t last) {
  for (uint64_t b = first; b <= last; ++b) {
    uint64_t& word = filled_[b / 64];
    const uint64_t bit = uint64_t{1} << (b % 64);
    if ((word & bit) != 0) continue;
    const uint64_t from = b * kBlockBytes, to = std::min(size_, from + kBlockBytes);
    std::memset(bytes_.get() + from, fill_, to - from);
    word |= bit;
  }
}

std::span<std::byte> MirrorBuffer::materialize() {
  if (size_ > 0) fill_blocks(0, (size_ - 1) / kBlockBytes);
  return {bytes_.get(), size_};
}

uint64_t MirrorBuffer::filled_blocks() const {
  uint64_t n = 0;
  for (uint64_t w : filled_) n += static_cast<uint64_t>(std::popcount(w));
  return n;
}

}  // namespace stackcheck::runtime
