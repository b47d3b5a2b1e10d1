// The Simplify fixed-point oracle and the trap-keeping half of the semantics oracle: each
// reports what it must (positive controls) and passes what the real pass makes.
#include <gtest/gtest.h>

#include <string>

#include "properties/oracles/compiler_oracles.h"
#include "stack/ir/parser.h"
#include "stack/passes/simplify.h"

namespace stackcheck::oracles {
namespace {

ir::Program parse(const std::string& text) {
  ir::ParseResult r = ir::parse_program(text);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().to_string());
  return r.ok() ? r.program() : ir::Program{};
}

const char* kScale = "kernel ksc(x: In tensor<i32>[8], o: Out tensor<i32>[8], s: In i64) -> (o) = builtin scale\n";

std::string entry(const std::string& body) {
  return std::string(kScale) + "orchestration main(x: In tensor<i32>[8], c: InOut tensor<i32>[8]) {\n" + body + "}\n";
}

void expect_left(const std::string& body, const std::string& what) {
  const Verdict v = check_simplified(parse(entry(body)));
  EXPECT_TRUE(v.failed()) << body;
  EXPECT_EQ(v.rule, "simplified");
  EXPECT_NE(v.message.find(what), std::string::npos) << v.message;
}

TEST(SimplifiedOracle, reports_what_simplify_leaves) {
  expect_left("  a = 2 * 3\n  c1 = call ksc(x, c, a)\n", "literal '2 * 3' is not folded");
  expect_left("  a = 7\n  c1 = call ksc(x, c, a)\n", "'a' is bound to 7 once and not substituted");
  expect_left("  c1 = call ksc(x, c, dim(x, 0))\n", "'dim(x, 0)' of a static shape is not folded");
  expect_left("  t = create [4]\n  c1 = call ksc(x, c, dim(t, 0))\n", "of a static shape is not folded");
  expect_left("  for i in range(4, 4, 1) {\n    c1 = call ksc(x, c, i)\n  }\n", "loop 'i' of 0 trips is kept");
  expect_left("  for i in range(3, 4, 1) {\n    c1 = call ksc(x, c, i)\n  }\n", "loop 'i' of 1 trip is kept");
  // Shapes through a kernel's result, a tuple element, an alias and an assemble's target.
  expect_left("  c1 = call ksc(x, c, 2)\n  c2 = call ksc(x, c, dim(c1, 0))\n", "'dim(c1, 0)' of a static shape");
  expect_left("  r = submit ksc(x, c, 2)\n  o = r.0\n  c2 = call ksc(x, c, dim(o, 0))\n", "'dim(o, 0)' of a static");
  expect_left("  y = x\n  c1 = call ksc(x, c, dim(y, 0))\n", "'dim(y, 0)' of a static shape");
  expect_left("  s = slice(x, [0], [2])\n  a = assemble(c, s, [1])\n  c1 = call ksc(x, c, dim(a, 0))\n",
              "'dim(a, 0)' of a static shape");
  // A 1-trip loop whose read stays inside its tensor once the var is bound: nothing to keep it.
  expect_left("  for i in range(7, 8, 1) {\n    q = read(x, [i])\n  }\n", "loop 'i' of 1 trip is kept");
}

TEST(SimplifiedOracle, passes_what_simplify_makes) {
  const char* bodies[] = {
      "  a = 2 * 3 + 1\n  c1 = call ksc(x, c, a)\n",
      "  c1 = call ksc(x, c, dim(x, 0))\n  for i in range(3, 4, 1) {\n    c2 = call ksc(x, c, i)\n  }\n",
      "  c1 = call ksc(x, c, 7 / (2 - 2))\n",  // a zero divisor stays
      "  for i in range(0, 2, 1) {\n    c1 = call ksc(x, c, i)\n  }\n",
      // A 1-trip loop whose var divides: inlining would make a static zero divisor.
      "  for i in range(2, 3, 1) {\n    a = 5 % (i - 2)\n  }\n",
      // ... or a read one past its tensor's end, or a window past it.
      "  for i in range(8, 9, 1) {\n    q = read(x, [i])\n  }\n",
      "  for i in range(7, 8, 1) {\n    s = slice(x, [i], [2])\n  }\n",
  };
  for (const char* body : bodies) {
    const ir::Program out = passes::simplify(parse(entry(body)));
    const Verdict v = check_simplified(out);
    EXPECT_TRUE(v.passed()) << body << v.message;
  }
  // Each of them is what the oracle reports before Simplify ran, except the last two.
  EXPECT_TRUE(check_simplified(parse(entry(bodies[0]))).failed());
  EXPECT_TRUE(check_simplified(parse(entry(bodies[1]))).failed());
}

TEST(SemanticsOracle, a_trap_must_be_kept) {
  const ir::Program traps = parse(entry("  q = read(x, [0])\n  z = q - q\n  a = 1 / z\n"));
  const ir::Program dropped = parse(entry("  q = read(x, [0])\n  z = q - q\n"));
  const ir::Program other = parse(entry("  q = read(x, [0])\n  z = q - q\n  a = read(x, [z + 9])\n"));
  Verdict v = check_same_semantics(traps, dropped, 3, "after P");
  EXPECT_TRUE(v.failed());
  EXPECT_NE(v.message.find("after P runs to its end where the original errs"), std::string::npos) << v.message;
  v = check_same_semantics(traps, other, 3, "after P");
  EXPECT_TRUE(v.failed());
  EXPECT_NE(v.message.find("errs with out of bounds where the original errs with zero divisor"), std::string::npos)
      << v.message;
  v = check_same_semantics(traps, traps, 3, "after P");
  EXPECT_EQ(v.kind, VerdictKind::Inconclusive);
  EXPECT_EQ(v.reason, Inconclusive::kInterpreterError);
  // An original that runs to its end is compared as before: the trap is the transform's.
  EXPECT_TRUE(check_same_semantics(dropped, traps, 3, "after P").failed());
}

}  // namespace
}  // namespace stackcheck::oracles
