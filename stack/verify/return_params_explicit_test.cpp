// ReturnParamsExplicit (codes 101-102): the COMPILER.md §5.2 verifier cases, each with its
// positive control (the same program made explicit passes).
#include "stack/verify/return_params_explicit.h"

#include "stack/ir/testing.h"

#include <gtest/gtest.h>

#include <string>

namespace stackcheck::verify {
namespace {

const char* kKernels = "kernel kacc(x: In tensor<i32>[8], a: InOut tensor<i32>[8]) -> (a) = builtin acc\n";

ir::Diagnostics check(const std::string& text) { return check_return_params_explicit(ir::testing::parse_or_fail(text)); }

std::string graph(const std::string& body) {
  return std::string(kKernels) + "graph g(x: In tensor<i32>[8], c: InOut tensor<i32>[8]) -> (tensor<i32>[8]) {\n" +
         body + "}\n";
}

TEST(ReturnParamsExplicit, k2_unsorted_101) {
  const std::string k2 =
      "kernel k2(x: In tensor<i32>[8], o1: Out tensor<i32>[8], "
      "o2: InOut tensor<i32>[8]) -> ";
  ir::Diagnostics d = check(k2 + "(o2, o1) = builtin copy\n");
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].code, 101);
  EXPECT_EQ(d[0].rule, "ReturnParamsExplicit");
  EXPECT_EQ(d[0].location.function, "k2");
  EXPECT_EQ(d[0].location.line, 1u);
  EXPECT_TRUE(check(k2 + "(o1, o2) = builtin copy\n").empty());
  EXPECT_TRUE(check(k2 + "() = builtin copy\n").empty());
  // A repeated param is not strictly increasing either.
  EXPECT_EQ(check(k2 + "(o2, o2) = builtin copy\n").at(0).code, 101);
}

TEST(ReturnParamsExplicit, graph_writeback_102) {
  ir::Diagnostics d = check(graph("  c1 = call kacc(x, c)\n  return c1\n"));
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].code, 102);
  EXPECT_EQ(d[0].location.function, "g");
  EXPECT_EQ(d[0].location.line, 4u);
  EXPECT_EQ(d[0].location.column, 3u);
  EXPECT_TRUE(check(graph("  c1 = call kacc(x, c)\n  return c\n")).empty());
  // An alias of an In param is explicit only as that param too.
  EXPECT_EQ(check(graph("  y = x\n  return y\n")).at(0).code, 102);
}

TEST(ReturnParamsExplicit, untraceable_none) {
  EXPECT_TRUE(check(graph("  t = create [8]\n  t1 = call kacc(x, t)\n  return t1\n")).empty());
  EXPECT_TRUE(check(graph("  v = slice(c, [0], [8])\n  return v\n")).empty());
}

TEST(ReturnParamsExplicit, all_findings_in_program_order) {
  const std::string text =
      "kernel kb(x: In tensor<i32>[8], a: InOut tensor<i32>[8], b: InOut tensor<i32>[8]) -> (b, a)"
      " = builtin acc\n" +
      graph("  c1 = call kacc(x, c)\n  c2 = c1\n  return c2\n");
  ir::Diagnostics d = check(text);
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d[0].code, 101);
  EXPECT_EQ(d[1].code, 102);
}

TEST(ReturnParamsExplicit, ill_formed_never_crashes) {
  // Returns naming no param, missing returns, unknown callees: WellFormed's business.
  EXPECT_TRUE(check("kernel k(x: In tensor<i32>[8]) -> (nope, x) = builtin copy\n").empty());
  EXPECT_TRUE(check(graph("  r = call nope(c)\n  return r\n")).empty());
  EXPECT_TRUE(check(graph("  t = create [8]\n")).empty());
}

}  // namespace
}  // namespace stackcheck::verify
