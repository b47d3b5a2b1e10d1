// The oracles' own status table (status_codes.h) against RUNTIME.md §13 as written, not against
// the stack's status_to_code or code_class.
#include "properties/oracles/status_codes.h"

#include <gtest/gtest.h>

namespace stackcheck::oracles {
namespace {

TEST(StatusCodes, every_listed_code_and_nothing_else_decodes) {
  for (int c = -5; c <= 1200; ++c) {
    const bool listed = (c >= 1 && c <= 11) || (c >= 100 && c <= 104);
    EXPECT_EQ(latch_code(-(1000 + c)), listed ? std::optional<int>(c) : std::nullopt) << c;
  }
  for (int32_t s : {0, -1, -2, -3, 1001, 1009, -1000, INT32_MIN, INT32_MAX}) EXPECT_EQ(latch_code(s), std::nullopt) << s;
}

TEST(StatusCodes, every_listed_code_has_its_name) {
  EXPECT_EQ(spec_code_name(3), "TASK_WINDOW_EXHAUSTED");
  EXPECT_EQ(spec_code_name(103), "WAIT_REGISTRATION_FAILED");
  int named = 0;
  for (int c = -5; c <= 1200; ++c) named += !spec_code_name(c).empty();
  EXPECT_EQ(named, 16);
  EXPECT_EQ(spec_code_name(0), "");
  EXPECT_EQ(spec_code_name(12), "");
}

TEST(StatusCodes, only_the_resources_a_config_sizes_are_config_bound) {
  for (int c = 0; c <= 110; ++c) {
    const bool bound = c == 2 || c == 3 || c == 4 || c == 10 || c == 11 || c == 102 || c == 104;
    EXPECT_EQ(config_bound_code(c), bound) << c;
    EXPECT_EQ(config_bound_status(-(1000 + c)), bound && latch_code(-(1000 + c)).has_value()) << c;
  }
}

// Positive control of latched_as_planted: the planted code or a config-bound one, never another.
TEST(StatusCodes, a_planted_plan_latches_its_code_or_a_config_bound_one) {
  EXPECT_TRUE(latched_as_planted(-1009, 9));
  EXPECT_TRUE(latched_as_planted(-1003, 9));   // a small window ran out first
  EXPECT_FALSE(latched_as_planted(-1005, 9));  // invalid arguments: another cause
  EXPECT_FALSE(latched_as_planted(-1008, 9));
  EXPECT_FALSE(latched_as_planted(0, 9));
  EXPECT_FALSE(latched_as_planted(-1, 9));
  EXPECT_TRUE(latched_as_planted(-1011, 0));   // a clean plan: config-bound codes only
  EXPECT_FALSE(latched_as_planted(-1009, 0));
}

}  // namespace
}  // namespace stackcheck::oracles
