// Simplify golden tests: every named case of COMPILER.md §5.1 (Before / Expected in the
// §5 fixture's graph g), plus fixed-point, scoping and robustness cases.
#include "stack/passes/simplify.h"

#include "stack/passes/golden_test_util.h"

#include <gtest/gtest.h>

namespace stackcheck::passes {
namespace {

using testing::expect_golden;
using testing::fixture;

void golden(const std::string& before_body, const std::string& expected_body) {
  expect_golden([](const ir::Program& p) { return simplify(p); }, fixture(before_body), fixture(expected_body));
}
void unchanged(const std::string& body) { golden(body, body); }

TEST(Simplify, fold_and_substitute) {
  golden("  a = 2 * 3 + 1\n  c1 = call ksc(x, c, a)\n", "  a = 7\n  c1 = call ksc(x, c, 7)\n");
}

TEST(Simplify, fold_dim) {
  golden("  d = dim(x, 0)\n  c1 = call ksc(x, c, d)\n", "  d = 8\n  c1 = call ksc(x, c, 8)\n");
  // Local tensors have static shapes too: slices, creates, writebacks, tuple elements.
  golden(
      "  v = slice(x, [0], [4])\n  t = create [2, 3]\n  t1 = call kacc(x, c)\n"
      "  r = call k2(x, c, c)\n  y = r.1\n"
      "  c2 = call ksc(x, c, dim(v, 0) + dim(t, 1) + dim(t1, 0) + dim(y, 0))\n",
      "  v = slice(x, [0], [4])\n  t = create [2, 3]\n  t1 = call kacc(x, c)\n"
      "  r = call k2(x, c, c)\n  y = r.1\n  c2 = call ksc(x, c, 23)\n");
}

TEST(Simplify, floor_division_and_wrap) {
  golden("  a = -7 / 2\n  b = -7 % 2\n  m = 9223372036854775807 + 1\n",
         "  a = -4\n  b = 1\n  m = -9223372036854775808\n");
}

TEST(Simplify, zero_trip_loops_removed) {
  golden(
      "  for j in range(4, 4, 1) {\n    c1 = call ksc(x, c, j)\n  }\n"
      "  for k in range(0, 4, -1) {\n    c2 = call ksc(x, c, k)\n  }\n",
      "");
}

TEST(Simplify, one_trip_loop_inlined) {
  golden("  for i in range(3, 4, 1) {\n    v = slice(x, [i], [4])\n  }\n", "  v = slice(x, [3], [4])\n");
}

TEST(Simplify, unchanged_dynamic_loop) { unchanged("  for j in range(0, n, 1) {\n    c1 = call ksc(x, c, j)\n  }\n"); }

TEST(Simplify, unchanged_if) { unchanged("  if 1 < 2 {\n    c1 = call ksc(x, c, 1)\n  }\n"); }

TEST(Simplify, unchanged_max_trip_loop) {
  // 2^64 - 1 trips: neither 0 nor 1 (the u64 trip count must not overflow to either).
  unchanged(
      "  for j in range(-9223372036854775808, 9223372036854775807, 1) {\n"
      "    c1 = call ksc(x, c, j)\n  }\n");
}

TEST(Simplify, fixed_point_through_loops) {
  // m folds to 1, so the outer loop has one trip; its var makes the inner one a 1-trip loop.
  golden(
      "  m = 1 + 0\n  for i in range(0, m, 1) {\n    for j in range(i, m, 1) {\n"
      "      c1 = call ksc(x, c, j + i * 10)\n    }\n  }\n",
      "  m = 1\n  c1 = call ksc(x, c, 0)\n");
}

TEST(Simplify, folds_inside_if_and_loops_but_keeps_them) {
  golden(
      "  if n < 2 + 2 {\n    c1 = call ksc(x, c, 3 * 3)\n  } else {\n"
      "    for j in range(0, 4 / 2, 1) {\n      c2 = call ksc(x, c, j)\n    }\n  }\n",
      "  if n < 4 {\n    c1 = call ksc(x, c, 9)\n  } else {\n"
      "    for j in range(0, 2, 1) {\n      c2 = call ksc(x, c, j)\n    }\n  }\n");
}

TEST(Simplify, partial_expressions_keep_their_shape) {
  // Left-associative: (n + 2) + 3 has no literal subexpression; 2 * (1 + 1) has.
  golden("  a = n + 2 + 3\n  b = n * (1 + 1)\n  c1 = call ksc(x, c, a + b)\n",
         "  a = n + 2 + 3\n  b = n * 2\n  c1 = call ksc(x, c, a + b)\n");
}

TEST(Simplify, shapes_and_offsets_fold) {
  golden(
      "  s = 8\n  t = create [s]\n  f = full [s / 2], s - 1\n  v = slice(c, [s - 4], [4])\n"
      "  u = slice(t, [2 * 2], [4])\n  u1 = call kacc4(f, u)\n  t1 = assemble(t, v, [s % 3])\n",
      "  s = 8\n  t = create [8]\n  f = full [4], 7\n  v = slice(c, [4], [4])\n"
      "  u = slice(t, [4], [4])\n  u1 = call kacc4(f, u)\n  t1 = assemble(t, v, [2])\n");
}

TEST(Simplify, zero_divisor_never_folded) {
  // Not WellFormed (13), so run the transformation directly: the division must stay.
  ir::Program p = testing::parse_or_fail(fixture("  a = 5 / 0\n  b = 5 % (1 - 1)\n"));
  EXPECT_EQ(ir::print_program(simplify(p)), testing::canonical(fixture("  a = 5 / 0\n  b = 5 % 0\n")));
}

// A well-formed input must give a well-formed output: a 1-trip loop whose var (bound to its
// start) would make a divisor in its body statically zero stays a loop, folded inside.
TEST(Simplify, one_trip_loop_kept_when_inlining_makes_a_zero_divisor) {
  unchanged("  for i in range(0, 1, 1) {\n    a = 5 / i\n  }\n");
  golden("  for i in range(2, 3, 1) {\n    a = (1 + 1) % (i - 2)\n  }\n",
         "  for i in range(2, 3, 1) {\n    a = 2 % (i - 2)\n  }\n");
  golden("  for i in range(0, 1, 1) {\n    for j in range(0, 1, 1) {\n      a = 5 / (i + j)\n    }\n  }\n",
         "  for j in range(0, 1, 1) {\n    a = 5 / (0 + j)\n  }\n");  // only the inner one divides by zero
  golden("  for i in range(1, 2, 1) {\n    a = 5 / i\n  }\n", "  a = 5\n");
  // Through a scalar the body binds to the var: substitution would reach the divisor too.
  golden("  for i in range(0, 1, 1) {\n    q = i + 1\n    a = 5 % (q - 1)\n  }\n",
         "  for i in range(0, 1, 1) {\n    q = i + 1\n    a = 5 % (q - 1)\n  }\n");
}

// ... nor a slice or an assemble window statically out of bounds (x and c are [8]).
TEST(Simplify, one_trip_loop_kept_when_inlining_puts_a_window_out_of_bounds) {
  unchanged("  for i in range(0, 1, 1) {\n    v = slice(x, [i + 5], [4])\n  }\n");  // 5 + 4 > 8
  golden("  for i in range(0, 1, 1) {\n    v = slice(x, [i + 4], [4])\n  }\n", "  v = slice(x, [4], [4])\n");
  unchanged("  for i in range(0, 1, 1) {\n    v = slice(x, [i - 1], [4])\n  }\n");  // below 0
  unchanged("  v = slice(x, [0], [4])\n  for i in range(0, 1, 1) {\n    c1 = assemble(c, v, [i + 5])\n  }\n");
  golden("  v = slice(x, [0], [4])\n  for i in range(0, 1, 1) {\n    c1 = assemble(c, v, [i + 4])\n  }\n",
         "  v = slice(x, [0], [4])\n  c1 = assemble(c, v, [4])\n");
}

TEST(Simplify, entry_is_simplified_too) {
  const std::string head =
      std::string(testing::kFixtureKernels) + "orchestration main(a: In tensor<i32>[8], b: InOut tensor<i32>[8]) {\n";
  expect_golden([](const ir::Program& p) { return simplify(p); },
                head + "  for i in range(0, 1, 1) {\n    b1 = call ksc(a, b, i + 2)\n  }\n}\n",
                head + "  b1 = call ksc(a, b, 2)\n}\n");
}

TEST(Simplify, pass_interface) {
  Simplify s;
  EXPECT_EQ(s.name(), "Simplify");
  EXPECT_EQ(s.required(), PropertySet{kWellFormed});
  EXPECT_EQ(s.produced(), PropertySet{0});
  EXPECT_EQ(s.invalidated(), PropertySet{kGraphBoundaryLegalized});
  PassResult r = s.run(testing::parse_or_fail(fixture("  a = 1 + 1\n")));
  ASSERT_TRUE(r.ok);
  EXPECT_EQ(ir::print_program(r.program), testing::canonical(fixture("  a = 2\n")));
}

TEST(Simplify, ill_formed_duplicates_not_substituted) {
  // `a` defined twice (WellFormed 2): substituting either value could change meaning.
  ir::Program p =
      testing::parse_or_fail(fixture("  a = 1\n  a = 2\n  c1 = call ksc(x, c, a)\n"
                                     "  for j in range(0, 1, 1) {\n    j = 3\n    c2 = call ksc(x, c, j)\n  }\n"));
  const std::string out = ir::print_program(simplify(p));
  EXPECT_NE(out.find("call ksc(x, c, a)"), std::string::npos) << out;
  EXPECT_NE(out.find("call ksc(x, c, j)"), std::string::npos) << out;
}

}  // namespace
}  // namespace stackcheck::passes
