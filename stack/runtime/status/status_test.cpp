// Tests of the runtime error codes, status mapping and BindStats line (RUNTIME.md §13, §14).
#include <map>
#include <set>

#include <gtest/gtest.h>

#include "stack/runtime/status/bind_stats.h"
#include "stack/runtime/status/codes.h"
#include "stack/runtime/status/expected.h"

namespace stackcheck::runtime {
namespace {

TEST(Status, status_collision_free) {
  std::set<int> seen;
  for (int32_t c : all_codes()) {
    int s = to_status(c);
    EXPECT_LT(s, 0) << c;
    EXPECT_NE(s, kStatusOk);
    EXPECT_NE(s, kStatusGeneric);
    EXPECT_NE(s, kStatusUnsupported);
    EXPECT_NE(s, kStatusNeverReturned);
    EXPECT_TRUE(seen.insert(s).second) << "collision at code " << c;
  }
  EXPECT_EQ(seen.size(), 16u);
  EXPECT_EQ(to_status(ErrorCode::kScopeDeadlock), -1001);
  EXPECT_EQ(to_status(ErrorCode::kTensormapOverflow), -1011);
  EXPECT_EQ(to_status(ErrorCode::kSchedulerTimeout), -1100);
  EXPECT_EQ(to_status(ErrorCode::kReadyQueueOverflow), -1104);
}

TEST(Status, status_roundtrip) {
  for (int32_t c : all_codes()) {
    std::optional<int> back = status_to_code(to_status(c));
    ASSERT_TRUE(back.has_value()) << c;
    EXPECT_EQ(*back, c);
  }
  // Positive controls: statuses that are not a mapped code do not invert.
  for (int s : {0, -1, -2, -3, -1000, -1012, -1099, -1105, -999, 1001, INT32_MIN, INT32_MAX})
    EXPECT_FALSE(status_to_code(s).has_value()) << s;
}

TEST(Status, status_names_complete) {
  std::set<std::string> names;
  for (int32_t c : all_codes()) {
    std::string n = code_name(c);
    EXPECT_EQ(n.find("UNKNOWN"), std::string::npos) << c;
    EXPECT_TRUE(names.insert(n).second) << n;
  }
  EXPECT_EQ(code_name(1), "SCOPE_DEADLOCK");
  EXPECT_EQ(code_name(6), "DEPENDENCY_OVERFLOW");
  EXPECT_EQ(code_name(11), "TENSORMAP_OVERFLOW");
  EXPECT_EQ(code_name(103), "WAIT_REGISTRATION_FAILED");
  EXPECT_EQ(code_name(0), "NONE");
  EXPECT_EQ(code_name(12), "UNKNOWN(12)");
  EXPECT_EQ(code_name(-5), "UNKNOWN(-5)");
  EXPECT_EQ(code_name(105), "UNKNOWN(105)");
  EXPECT_FALSE(is_listed_code(0));
  EXPECT_FALSE(is_listed_code(99));
}

// The classes, written out here independently of the table in codes.cpp: every listed code
// has exactly the class RUNTIME.md §13 and codes.h give it.
TEST(Status, status_code_classes_cover_the_table) {
  const std::map<int32_t, CodeClass> expected = {
      {1, CodeClass::kUsageError},
      {2, CodeClass::kResourceLatch},
      {3, CodeClass::kResourceLatch},
      {4, CodeClass::kResourceLatch},
      {5, CodeClass::kUsageError},
      {6, CodeClass::kRetired},
      {7, CodeClass::kUsageError},
      {8, CodeClass::kUsageError},
      {9, CodeClass::kUsageError},
      {10, CodeClass::kResourceLatch},
      {11, CodeClass::kResourceLatch},
      {100, CodeClass::kDeviceInconsistency},
      {101, CodeClass::kDeviceInconsistency},
      {102, CodeClass::kResourceLatch},
      {103, CodeClass::kDeviceInconsistency},
      {104, CodeClass::kResourceLatch},
  };
  ASSERT_EQ(all_codes().size(), expected.size());
  std::set<int> latches;
  for (int32_t c : all_codes()) {
    const std::optional<CodeClass> cls = code_class(c);
    ASSERT_TRUE(cls.has_value()) << c;
    ASSERT_TRUE(expected.count(c)) << c;
    EXPECT_EQ(*cls, expected.at(c)) << c << " is " << code_class_name(*cls);
    if (is_resource_latch_status(to_status(c))) latches.insert(to_status(c));
  }
  EXPECT_EQ(latches, (std::set<int>{-1002, -1003, -1004, -1010, -1011, -1102, -1104}));
  // Positive controls: no class for 0 or unlisted codes; usage errors, generic, unsupported
  // and raw codes (not statuses) are not resource latches.
  EXPECT_FALSE(code_class(0).has_value());
  EXPECT_FALSE(code_class(12).has_value());
  EXPECT_FALSE(code_class(-2).has_value());
  for (int s : {0, -1, -2, -3, -1001, -1005, -1006, -1009, -1100, -1103, -1012, 2, 1002})
    EXPECT_FALSE(is_resource_latch_status(s)) << s;
  EXPECT_STREQ(code_class_name(CodeClass::kResourceLatch), "resource");
  EXPECT_STREQ(code_class_name(CodeClass::kUsageError), "usage");
}

TEST(BindStats, to_line_format) {
  BindStats s;
  s.tasks = 3;
  s.nodes = 2;
  s.defs = 1;
  s.h2d = 1;
  s.def_h2d = 1;
  s.tensor_h2d = 2;
  s.d2h = 2;
  s.shipped = 3000;
  s.read = 1500;
  s.image = 2000;
  s.image_read = 2000;
  s.mirror = 45629568;
  s.task_heap_high_water = 1024;
  s.graph_heap_high_water = 4096;
  s.graph_internal_heap = 128;
  s.reserved = ReservedBytes{1, 2, 3, 4, 5, 6, 7, 8};
  EXPECT_EQ(s.to_line(),
            "bind tasks=3 nodes=2 defs=1 inlined=0 h2d=1 def_h2d=1 tensor_h2d=2 d2h=2 "
            "shipped=3000 read=1500 ratio=0.500 image=2000 image_read=2000 mirror=45629568 "
            "task_hw=1024 graph_hw=4096 gint=128 "
            "reserved=(dev=1,cp=2,img=3,sub=4,th=5,gh=6,def=7,ent=8)");
}

TEST(BindStats, ratio_na_and_rounding) {
  BindStats s;
  EXPECT_EQ(s.ratio_text(), "n/a");
  EXPECT_NE(s.to_line().find(" ratio=n/a "), std::string::npos);
  s.shipped = 3;
  s.read = 2;
  EXPECT_EQ(s.ratio_text(), "0.667");
  s.read = 3;
  EXPECT_EQ(s.ratio_text(), "1.000");
}

TEST(Expected, value_and_error) {
  Expected<int, std::string> ok(5);
  ASSERT_TRUE(ok);
  EXPECT_EQ(*ok, 5);
  Expected<int, std::string> bad = unexpected(std::string("no"));
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error(), "no");
}

}  // namespace
}  // namespace stackcheck::runtime
