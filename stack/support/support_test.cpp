// The support base (support/): wrapping arithmetic, splitmix64 and FNV-1a-64, which the IR,
// the interpreter and the runtime share, pinned here once.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "stack/support/enum_names.h"
#include "stack/support/fnv1a.h"
#include "stack/support/splitmix.h"
#include "stack/support/wrapping.h"

namespace stackcheck {
namespace {

TEST(Wrapping, floor_wrap_and_zero) {
  EXPECT_EQ(support::floor_div(-7, 2), -4);
  EXPECT_EQ(support::floor_mod(-7, 2), 1);
  EXPECT_EQ(support::floor_mod(7, -2), -1);
  EXPECT_EQ(support::floor_div(INT64_MIN, -1), INT64_MIN);
  EXPECT_EQ(support::floor_mod(INT64_MIN, -1), 0);
  EXPECT_EQ(support::wrap_add(INT64_MAX, 1), INT64_MIN);
  EXPECT_EQ(support::wrap_mul(INT64_MIN, -1), INT64_MIN);
  EXPECT_FALSE(support::floor_div(1, 0));
  EXPECT_FALSE(support::floor_mod(1, 0));
  EXPECT_FALSE(support::trip_count(0, 4, 0));
  EXPECT_EQ(support::trip_count(0, 4, 1), 4u);
  EXPECT_EQ(support::trip_count(10, 0, -3), 4u);
  EXPECT_EQ(support::trip_count(0, 4, -1), 0u);
  EXPECT_EQ(support::trip_count(INT64_MIN, INT64_MAX, 1), ~uint64_t{0});
}

TEST(Wrapping, apply_and_compare_cover_every_operator) {
  using support::ArithOp;
  using support::CompareOp;
  EXPECT_EQ(support::apply(ArithOp::Add, 2, 3), 5);
  EXPECT_EQ(support::apply(ArithOp::Sub, 2, 3), -1);
  EXPECT_EQ(support::apply(ArithOp::Mul, -2, 3), -6);
  EXPECT_EQ(support::apply(ArithOp::Div, -7, 2), -4);
  EXPECT_EQ(support::apply(ArithOp::Mod, -7, 2), 1);
  EXPECT_FALSE(support::apply(ArithOp::Div, 1, 0));
  EXPECT_TRUE(support::compare(CompareOp::Le, 2, 2));
  EXPECT_FALSE(support::compare(CompareOp::Lt, 2, 2));
  EXPECT_TRUE(support::compare(CompareOp::Ne, 1, 2));
  EXPECT_TRUE(support::compare(CompareOp::Ge, 3, 2));
  EXPECT_FALSE(support::compare(CompareOp::Gt, 2, 3));
  EXPECT_TRUE(support::compare(CompareOp::Eq, -1, -1));
}

TEST(SplitMix, reference_values) {
  // The first outputs of splitmix64 from seed 0 (the published reference sequence).
  support::SplitMix64 r(0);
  EXPECT_EQ(r.next(), 0xe220a8397b1dcdafull);
  EXPECT_EQ(r.next(), 0x6e789e6aa1b965f4ull);
  EXPECT_EQ(r.next(), 0x06c45d188009454full);
}

TEST(Fnv1a, reference_values_and_increments) {
  EXPECT_EQ(support::fnv1a64(std::span<const uint8_t>{}), 0xcbf29ce484222325ull);
  const std::vector<uint8_t> a = {'a'};
  EXPECT_EQ(support::fnv1a64(a), 0xaf63dc4c8601ec8cull);
  const std::vector<uint8_t> ab = {'a', 'b'};
  const uint64_t h = support::fnv1a64(support::fnv1a64(support::kFnvOffset, "a", 1), "b", 1);
  EXPECT_EQ(h, support::fnv1a64(ab));
  const std::vector<uint8_t> foobar = {'f', 'o', 'o', 'b', 'a', 'r'};
  EXPECT_EQ(support::fnv1a64(foobar), 0x85944171f73967e8ull);
}

enum class Three : uint8_t { A, B, C };

TEST(EnumNames, one_name_per_enumerator_and_a_mark_outside) {
  static constexpr auto kNames = support::names_through<Three::C>({"a", "b", "c"});
  EXPECT_STREQ(support::enum_name(kNames, Three::A), "a");
  EXPECT_STREQ(support::enum_name(kNames, Three::C), "c");
  EXPECT_STREQ(support::enum_name(kNames, static_cast<Three>(3)), "?");
  EXPECT_STREQ(support::enum_name(kNames, static_cast<Three>(255)), "?");
  // The operators spell alike in .gir and .plan.
  EXPECT_STREQ(support::op_text(support::ArithOp::Mod), "%");
  EXPECT_STREQ(support::op_text(support::CompareOp::Le), "<=");
  EXPECT_STREQ(support::op_text(static_cast<support::CompareOp>(6)), "?");
}

}  // namespace
}  // namespace stackcheck
