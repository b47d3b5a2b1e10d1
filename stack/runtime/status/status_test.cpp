// Tests of the runtime error codes, status mapping and BindStats line (RUNTIME.md §13, §14).
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
  s.task_hw = 1024;
  s.graph_hw = 4096;
  s.gint = 128;
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
