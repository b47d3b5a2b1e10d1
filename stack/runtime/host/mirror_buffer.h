// The host mirror's bytes (RUNTIME.md §8): `size` bytes that all read as the fill byte when the
// buffer is made, backed lazily. The allocation is not filled up front (45 MB at the default W,
// and most binds touch a few KiB of it): a 4 KiB block is filled with the fill byte when an access
// first reaches it (ensure), so what a bind reads is exactly what a fully filled buffer would
// hold. materialize() fills every block left (for readers of the whole mirror: oracles, tests).
// An allocation moves from one buffer to the next (a reset Runtime's), reused without a refill.
// Host-only, single-threaded (the orchestrator's).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <utility>
#include <vector>

namespace stackcheck::runtime {

class MirrorBuffer {
 public:
  static constexpr uint64_t kBlockBytes = 4096;

  MirrorBuffer() = default;
  // A moved-from buffer is empty (no allocation, size and capacity 0).
  MirrorBuffer(MirrorBuffer&& o) noexcept { *this = std::move(o); }
  MirrorBuffer& operator=(MirrorBuffer&& o) noexcept {
    if (this == &o) return *this;
    bytes_ = std::move(o.bytes_);
    capacity_ = std::exchange(o.capacity_, 0);
    size_ = std::exchange(o.size_, 0);
    fill_ = o.fill_;
    filled_ = std::move(o.filled_);
    o.filled_.clear();
    return *this;
  }

  // `size` bytes, all reading as `fill`, in this buffer's allocation when it is large enough.
  void reset(uint64_t size, uint8_t fill);
  uint64_t size() const { return size_; }
  uint64_t capacity() const { return capacity_; }
  // The raw bytes: meaningful where ensure() or materialize() reached (every block a bind wrote
  // or read), the rest not yet filled.
  std::byte* data() { return bytes_.get(); }
  const std::byte* data() const { return bytes_.get(); }
  // Fills the blocks of [off, off + n) not filled yet (the part inside size(): a range past it
  // is the reader's to refuse).
  void ensure(uint64_t off, uint64_t n) {
    if (n == 0 || off >= size_) return;
    n = std::min(n, size_ - off);
    const uint64_t first = off / kBlockBytes, last = (off + n - 1) / kBlockBytes;
    if (first == last && (filled_[first / 64] >> (first % 64) & 1) != 0) return;
    fill_blocks(first, last);
  }
  uint8_t fill_byte() const { return fill_; }
  uint64_t blocks() const { return (size_ + kBlockBytes - 1) / kBlockBytes; }
  // Whether block b holds its bytes (ensured or materialized); a block that does not reads as
  // fill_byte() everywhere.
  bool filled(uint64_t b) const { return b < blocks() && (filled_[b / 64] >> (b % 64) & 1) != 0; }
  // Every block filled; the whole buffer.
  std::span<std::byte> materialize();
  // Blocks filled so far (tests and figures).
  uint64_t filled_blocks() const;

 private:
  void fill_blocks(uint64_t first, uint64_t last);

  std::unique_ptr<std::byte[]> bytes_;
  uint64_t capacity_ = 0, size_ = 0;
  uint8_t fill_ = 0;
  std::vector<uint64_t> filled_;  // bit b: block b holds its bytes
};

}  // namespace stackcheck::runtime
