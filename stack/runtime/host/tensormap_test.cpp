// Tensormap and fanin (RUNTIME.md §7), the §16 Tensormap cases.
#include "stack/runtime/host/tensormap.h"

#include <gtest/gtest.h>

#include "stack/runtime/host/heap.h"

namespace stackcheck::runtime {
namespace {

using Ids = std::vector<int32_t>;

// Submits one task's accesses the way the orchestrator does: fanin first, then register.
struct Harness {
  ErrorLatch latch;
  TensorMap tm{65536, latch};
  FaninBuilder fb;
  int32_t next = 0;

  struct Acc {
    uint64_t lo, hi;
    Access a;
  };
  Ids task(std::initializer_list<Acc> accesses) {
    const int32_t self = next++;
    fb.begin(self, 1024);
    for (const Acc& x : accesses) tm.collect(x.lo, x.hi, x.a, fb);
    fb.finish(latch);
    for (const Acc& x : accesses) tm.record(x.lo, x.hi, x.a, self);
    return fb.producers();
  }
};

TEST(Tensormap, tm_raw) {
  Harness h;
  EXPECT_EQ(h.task({{0, 64, Access::Write}}), Ids{});
  EXPECT_EQ(h.task({{0, 64, Access::Read}}), Ids{0});
  EXPECT_EQ(h.task({{32, 40, Access::Read}}), Ids{0});  // readers do not order readers
  EXPECT_EQ(h.task({{64, 128, Access::Read}}), Ids{});  // adjacent, not overlapping
}

TEST(Tensormap, tm_waw) {
  Harness h;
  h.task({{0, 64, Access::Write}});
  EXPECT_EQ(h.task({{32, 96, Access::Write}}), Ids{0});
  EXPECT_EQ(h.task({{0, 128, Access::Write}}), (Ids{0, 1}));
}

TEST(Tensormap, tm_war) {
  Harness h;
  h.task({{0, 64, Access::Read}});                                  // 0: reads never-written memory (an entry tensor)
  h.task({{0, 64, Access::Read}});                                  // 1
  EXPECT_EQ(h.task({{16, 32, Access::Write}}), (Ids{0, 1}));        // 2: WAR on both readers
  EXPECT_EQ(h.task({{0, 64, Access::ReadWrite}}), (Ids{0, 1, 2}));  // inout: writers and readers
  EXPECT_EQ(h.task({{0, 64, Access::Read}}), Ids{3});               // the old readers are gone
}

TEST(Tensormap, tm_reuse_after_scope) {
  Harness h;
  TaskHeap heap(DevAddr{1 << 20}, 1 << 20, h.latch);
  const uint64_t mark = heap.mark();
  const uint64_t a = heap.alloc(256, 1024)->raw();
  h.task({{a, a + 256, Access::Write}});  // 0 writes a scoped buffer
  h.task({{a, a + 256, Access::Read}});   // 1 reads it
  heap.rewind(mark);                      // scope_end
  const uint64_t b = heap.alloc(128, 1024)->raw();
  ASSERT_EQ(a, b);
  // The new buffer's first writer (an ALLOC task, tag output) follows both: WAW and WAR.
  EXPECT_EQ(h.task({{b, b + 128, Access::Write}}), (Ids{0, 1}));
}

TEST(Tensormap, tm_split) {
  Harness h;
  h.task({{0, 128, Access::Write}});  // 0
  h.task({{32, 64, Access::Write}});  // 1 splits the straddler into three entries
  ASSERT_EQ(h.tm.ranges(), 3u);
  const auto& e = h.tm.entries();
  EXPECT_EQ(e.at(0).hi, 32u);
  EXPECT_EQ(e.at(0).writer, 0);
  EXPECT_EQ(e.at(32).writer, 1);
  EXPECT_EQ(e.at(64).writer, 0);
  EXPECT_EQ(h.task({{0, 40, Access::Read}}), (Ids{0, 1}));
  EXPECT_EQ(h.task({{64, 128, Access::Read}}), Ids{0});
  EXPECT_EQ(h.task({{40, 48, Access::Read}}), Ids{1});
  // A read splitting an entry copies its reader list into both halves.
  EXPECT_EQ(h.task({{100, 200, Access::Write}}), (Ids{0, 3}));
  EXPECT_EQ(h.task({{90, 100, Access::Write}}), (Ids{0, 3}));
}

TEST(Tensormap, tm_no_dep) {
  Harness h;
  h.task({{0, 64, Access::Write}});
  const uint64_t before = h.tm.size();
  EXPECT_EQ(h.task({{0, 64, Access::None}}), Ids{});
  EXPECT_EQ(h.tm.size(), before);
  EXPECT_EQ(h.task({{0, 64, Access::Read}}), Ids{0});  // still ordered after the writer
}

TEST(Tensormap, tm_capacity_11) {
  ErrorLatch latch;
  TensorMap tm(3, latch);
  tm.record(0, 64, Access::Write, 0);  // 1 range
  tm.record(0, 64, Access::Read, 1);   // + 1 reader = 2
  tm.record(0, 64, Access::Read, 2);   // 3: at capacity, fine
  EXPECT_FALSE(latch.latched());
  tm.record(0, 64, Access::Read, 3);  // 4 > 3
  EXPECT_EQ(latch.code(), 11);
  EXPECT_EQ(code_name(latch.code()), "TENSORMAP_OVERFLOW");
  const uint64_t frozen = tm.size();
  tm.record(128, 192, Access::Write, 4);  // a latched map records nothing more
  EXPECT_EQ(tm.size(), frozen);
  // Splits count too: one write splitting a range in three.
  ErrorLatch l2;
  TensorMap t2(2, l2);
  t2.record(0, 96, Access::Write, 0);
  t2.record(32, 64, Access::Write, 1);
  EXPECT_EQ(l2.code(), 11);
}

TEST(Tensormap, tm_fanin_dedup) {
  ErrorLatch latch;
  FaninBuilder fb;
  fb.begin(7, 16);
  for (int32_t p : {5, 3, 5, 7, 1, 3, -1, 5}) fb.add(p);  // repeats, self, "no writer"
  ASSERT_TRUE(fb.finish(latch));
  EXPECT_EQ(fb.producers(), (Ids{1, 3, 5}));
  fb.begin(8, 16);  // a new epoch forgets the previous task's marks
  fb.add(5);
  ASSERT_TRUE(fb.finish(latch));
  EXPECT_EQ(fb.producers(), Ids{5});
  // Through the map: one producer reached through two ranges and two arguments.
  Harness h;
  h.task({{0, 64, Access::Write}, {128, 192, Access::Write}});
  EXPECT_EQ(h.task({{0, 64, Access::Read}, {128, 192, Access::Read}, {0, 256, Access::ReadWrite}}), Ids{0});
}

TEST(Tensormap, tm_fanin_128_ok_129_fails) {
  for (int32_t producers : {128, 129}) {
    ErrorLatch latch;
    TensorMap tm(65536, latch);
    FaninBuilder fb;
    for (int32_t t = 0; t < producers; ++t) tm.record(64u * t, 64u * t + 64, Access::Write, t);
    fb.begin(producers, 1024);
    tm.collect(0, 64u * producers, Access::Read, fb);
    const bool ok = fb.finish(latch);
    EXPECT_EQ(fb.producers().size(), static_cast<size_t>(producers));
    if (producers == 128) {
      EXPECT_TRUE(ok);
      EXPECT_FALSE(latch.latched());
    } else {
      EXPECT_FALSE(ok);
      EXPECT_EQ(latch.code(), 4);
    }
  }
}

}  // namespace
}  // namespace stackcheck::runtime
