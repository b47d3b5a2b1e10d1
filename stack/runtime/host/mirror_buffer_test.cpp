#include "stack/runtime/host/mirror_buffer.h"

#include <gtest/gtest.h>

#include <cstring>

namespace stackcheck::runtime {
namespace {

uint8_t at(MirrorBuffer& m, uint64_t off) {
  m.ensure(off, 1);
  return static_cast<uint8_t>(m.data()[off]);
}

TEST(MirrorBuffer, every_byte_an_access_reaches_reads_as_the_fill_byte) {
  MirrorBuffer m;
  m.reset(3 * MirrorBuffer::kBlockBytes + 100, 0xAA);
  EXPECT_EQ(m.filled_blocks(), 0u);
  for (uint64_t off : {uint64_t{0}, MirrorBuffer::kBlockBytes - 1, 2 * MirrorBuffer::kBlockBytes + 7, m.size() - 1})
    EXPECT_EQ(at(m, off), 0xAA) << off;
  EXPECT_EQ(m.filled_blocks(), 3u);  // blocks 0, 2 and 3 (the short last one)
}

TEST(MirrorBuffer, a_write_survives_later_accesses_of_its_block) {
  MirrorBuffer m;
  m.reset(2 * MirrorBuffer::kBlockBytes, 0xAA);
  m.ensure(10, 4);
  std::memset(m.data() + 10, 0x11, 4);
  m.ensure(0, MirrorBuffer::kBlockBytes);  // the block is filled already: no refill
  EXPECT_EQ(at(m, 10), 0x11);
  EXPECT_EQ(at(m, 9), 0xAA);
  // A range straddling two blocks fills the second and keeps the first.
  m.ensure(MirrorBuffer::kBlockBytes - 2, 4);
  EXPECT_EQ(at(m, 13), 0x11);
  EXPECT_EQ(at(m, MirrorBuffer::kBlockBytes + 1), 0xAA);
}

TEST(MirrorBuffer, a_reused_allocation_reads_as_fresh) {
  MirrorBuffer m;
  m.reset(4 * MirrorBuffer::kBlockBytes, 0xAA);
  std::memset(m.materialize().data(), 0x5C, m.size());  // an earlier bind's bytes everywhere
  const std::byte* before = m.data();
  MirrorBuffer next = std::move(m);
  EXPECT_EQ(m.capacity(), 0u);  // moved from: empty
  next.reset(3 * MirrorBuffer::kBlockBytes, 0x33);
  EXPECT_EQ(next.data(), before);  // the same allocation, not filled up front
  EXPECT_EQ(next.filled_blocks(), 0u);
  for (std::byte b : next.materialize()) ASSERT_EQ(static_cast<uint8_t>(b), 0x33);
  EXPECT_EQ(next.filled_blocks(), 3u);
}

TEST(MirrorBuffer, ranges_past_the_size_are_left_to_the_reader) {
  MirrorBuffer m;
  m.reset(100, 0xAA);
  m.ensure(90, 1000);  // clamped to the last 10 bytes
  m.ensure(200, 8);    // past the end: nothing
  EXPECT_EQ(m.filled_blocks(), 1u);
  EXPECT_EQ(at(m, 99), 0xAA);
}

}  // namespace
}  // namespace stackcheck::runtime
