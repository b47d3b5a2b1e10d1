// Task and graph heaps (RUNTIME.md §6), the §16 Heap cases.
#include "stack/runtime/host/heap.h"

#include <gtest/gtest.h>

namespace stackcheck::runtime {
namespace {

constexpr DevAddr kBase{0x1000'0000'0000ull};

// A task heap of `bytes` at kBase with an error latch of its own.
struct LatchedTaskHeap {
  explicit LatchedTaskHeap(uint64_t bytes) : heap(kBase, bytes, latch) {}
  ErrorLatch latch;
  TaskHeap heap;
};

TEST(Heap, heap_align_64_1024) {
  ErrorLatch latch;
  TaskHeap h(kBase, 64 * 1024, latch);
  EXPECT_EQ(h.alloc(10, 64), kBase + 0);  // 10 rounds to 64
  EXPECT_EQ(h.top(), 64u);
  EXPECT_EQ(h.alloc(100, 1024), kBase + 1024);  // tensors align to 1024; 100 rounds to 128
  EXPECT_EQ(h.top(), 1152u);
  EXPECT_EQ(h.alloc(1, 64), kBase + 1152);
  EXPECT_EQ(h.alloc(65, 64), kBase + 1216);  // 65 rounds to 128
  EXPECT_EQ(h.top(), 1344u);
  EXPECT_EQ(h.high_water(), 1344u);
  EXPECT_FALSE(latch.latched());
}

TEST(Heap, heap_zero_aliases) {
  ErrorLatch latch;
  TaskHeap h(kBase, 4096, latch);
  ASSERT_TRUE(h.alloc(64, 64));
  auto z = h.alloc(0, 1024);
  ASSERT_TRUE(z);
  EXPECT_EQ(*z, kBase + 1024);      // the aligned top ...
  EXPECT_EQ(h.top(), 64u);          // ... without moving it
  EXPECT_EQ(h.alloc(64, 1024), z);  // the next allocation starts there
  // At the very end a size-0 request still succeeds (an empty range at the top).
  TaskHeap full(kBase, 1024, latch);
  ASSERT_TRUE(full.alloc(1024, 1024));
  EXPECT_EQ(full.alloc(0, 64), kBase + 1024);
  EXPECT_FALSE(latch.latched());
}

TEST(Heap, heap_unchanged_on_fail) {
  ErrorLatch latch;
  TaskHeap h(kBase, 2048, latch);
  ASSERT_EQ(h.alloc(64, 64), kBase);
  EXPECT_FALSE(h.alloc(2048, 1024));  // 1024 + 2048 > 2048
  EXPECT_EQ(h.top(), 64u);
  EXPECT_EQ(h.high_water(), 64u);
  EXPECT_EQ(latch.code(), 2);
  // Huge sizes never wrap.
  LatchedTaskHeap g(2048);
  EXPECT_FALSE(g.heap.alloc(~uint64_t{0}, 64));
  EXPECT_FALSE(g.heap.alloc(~uint64_t{0} - 62, 1024));
  EXPECT_EQ(g.heap.top(), 0u);
  EXPECT_EQ(g.latch.code(), 2);
  // Positive control: the same request fits a larger heap.
  LatchedTaskHeap big(4096);
  ASSERT_TRUE(big.heap.alloc(64, 64));
  EXPECT_EQ(big.heap.alloc(2048, 1024), kBase + 1024);
  EXPECT_FALSE(big.latch.latched());
}

TEST(Heap, heap_scope_rewind_reuse) {
  ErrorLatch latch;
  TaskHeap h(kBase, 1 << 20, latch);
  ASSERT_TRUE(h.alloc(100, 1024));
  const uint64_t mark = h.mark();
  auto a = h.alloc(4096, 1024);
  auto b = h.alloc(64, 1024);
  ASSERT_TRUE(a && b);
  const uint64_t hw = h.high_water();
  h.rewind(mark);
  EXPECT_EQ(h.top(), mark);
  EXPECT_EQ(h.alloc(64, 1024), a);  // the range is reused after the scope
  EXPECT_EQ(h.high_water(), hw);    // the high-water mark remembers the peak
  h.reset();
  EXPECT_EQ(h.top(), 0u);
  EXPECT_EQ(h.high_water(), 0u);
}

TEST(Heap, heap_exhausted_2) {
  ErrorLatch latch;
  TaskHeap h(kBase, 1024, latch);
  ASSERT_TRUE(h.alloc(1024, 1024));
  EXPECT_FALSE(h.alloc(64, 64));
  EXPECT_EQ(latch.code(), 2);
  EXPECT_EQ(code_name(latch.code()), "HEAP_EXHAUSTED");
  // The first error wins: a heap failure after another latch keeps the earlier code.
  ErrorLatch first;
  first.latch(ErrorCode::kExplicitFatal);
  TaskHeap g(kBase, 1024, first);
  EXPECT_FALSE(g.alloc(4096, 64));
  EXPECT_EQ(first.code(), 9);
  EXPECT_EQ(g.top(), 0u);  // and a latched heap allocates nothing at all
  EXPECT_FALSE(g.alloc(64, 64));
}

TEST(Heap, heap_graph_hw) {
  ErrorLatch latch;
  GraphHeap g(kBase, 1024, latch);
  EXPECT_EQ(g.alloc(100), kBase);  // 64-aligned blocks, sizes rounded to 64
  EXPECT_EQ(g.alloc(64), kBase + 128);
  EXPECT_EQ(g.high_water(), 192u);
  EXPECT_EQ(g.alloc(832), kBase + 192);  // exactly fills it
  EXPECT_EQ(g.high_water(), 1024u);
  EXPECT_FALSE(latch.latched());
  EXPECT_FALSE(g.alloc(1));
  EXPECT_EQ(latch.code(), 2);
  EXPECT_EQ(g.high_water(), 1024u);
  g.reset();
  EXPECT_EQ(g.high_water(), 0u);
}

}  // namespace
}  // namespace stackcheck::runtime
