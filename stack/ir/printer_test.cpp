// Golden print cases: messy but valid input -> the canonical text; and structural equality.
#include "stack/ir/printer.h"

#include "stack/ir/builder.h"
#include "stack/ir/equal.h"
#include "stack/ir/parser.h"

#include <gtest/gtest.h>

namespace stackcheck::ir {
namespace {

std::string canon(std::string_view text) {
  ParseResult r = parse_program(text);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().to_string());
  return r.ok() ? print_program(r.program()) : "";
}

void expect_fixed_point(const std::string& printed) { EXPECT_EQ(canon(printed), printed); }

struct Golden {
  const char* name;
  const char* input;
  const char* expected;
};

const Golden kGolden[] = {
    {"spacing_and_comments",
     "# header\n\nkernel   kacc( x :In tensor < i32 > [ 8 ] ,a: InOut tensor<i32>[8])->(a)=builtin acc # c\n",
     "kernel kacc(x: In tensor<i32>[8], a: InOut tensor<i32>[8]) -> (a) = builtin acc\n"},
    {"empty_kernel_returns", "kernel k(a: In tensor<i32>[2, 3]) -> ( ) = builtin copy\n",
     "kernel k(a: In tensor<i32>[2, 3]) -> () = builtin copy\n"},
    {"minimal_parentheses",
     "orchestration m(n: In i64) {\n a = ((1 + 2)) + (3 * n)\n b = 1 - (2 - 3)\n c = (1 - 2) - 3\n"
     " d = (a + b) * (c % 4)\n e = a / (b * c)\n f = -3 * (0 - 4)\n}\n",
     "orchestration m(n: In i64) {\n  a = 1 + 2 + 3 * n\n  b = 1 - (2 - 3)\n  c = 1 - 2 - 3\n"
     "  d = (a + b) * (c % 4)\n  e = a / (b * c)\n  f = -3 * (0 - 4)\n}\n"},
    {"else_and_empty_else",
     "orchestration m(n: In i64) {\n if n<2 {\n a = 1\n }\n else {\n b = 2\n }\n if n==0 {\n } else {\n }\n}\n",
     nullptr},  // `else` on its own line is a grammar error: checked separately
    {"graph_without_results",
     "graph g(c: InOut tensor<i32>[8]) {\n  return\n}\norchestration m(c: InOut tensor<i32>[8]) {\n"
     "  call g(c)\n}\n",
     "graph g(c: InOut tensor<i32>[8]) {\n  return\n}\norchestration m(c: InOut tensor<i32>[8]) {\n"
     "  call g(c)\n}\n"},
    {"all_statement_forms",
     "orchestration m(x: In tensor<i32>[4, 4]) {\n"
     "t = create [4,4]\nf = full [2, 2] , 7\nv = slice(x,[1,dim(x,0)-3],[2,2])\nu = assemble(t,v,[0,0])\n"
     "r = submit k(x,t)\ny = r.0\ns = read(x,[0,1])\nfor i in range(0,4,1) {\nif i>=s {\ncall k(x,t)\n}"
     " else {\nz = i\n}\n}\n}\n",
     "orchestration m(x: In tensor<i32>[4, 4]) {\n"
     "  t = create [4, 4]\n  f = full [2, 2], 7\n  v = slice(x, [1, dim(x, 0) - 3], [2, 2])\n"
     "  u = assemble(t, v, [0, 0])\n  r = submit k(x, t)\n  y = r.0\n  s = read(x, [0, 1])\n"
     "  for i in range(0, 4, 1) {\n    if i >= s {\n      call k(x, t)\n    } else {\n      z = i\n    }\n  }\n}\n"},
};

TEST(Printer, golden_cases) {
  for (const Golden& g : kGolden) {
    if (!g.expected) continue;
    SCOPED_TRACE(g.name);
    EXPECT_EQ(canon(g.input), g.expected);
    expect_fixed_point(g.expected);
  }
}

TEST(Printer, else_must_follow_brace) {
  EXPECT_FALSE(parse_program(kGolden[3].input).ok());
  EXPECT_EQ(canon("orchestration m(n: In i64) {\n  if n < 2 {\n    a = 1\n  } else {\n  }\n}\n"),
            "orchestration m(n: In i64) {\n  if n < 2 {\n    a = 1\n  }\n}\n");
}

TEST(Printer, built_program_prints_and_reparses_equal) {
  using namespace build;
  Program p;
  p.functions.push_back(kernel(
      "kacc", {param("x", Dir::In, Type::tensor({8})), param("a", Dir::InOut, Type::tensor({8}))}, {"a"}, "acc"));
  p.functions.push_back(
      orchestration("main", {param("c", Dir::InOut, Type::tensor({8}))},
                    {create("t", lits({8})), let("n", sub(lit(INT64_MIN), add(lit(-1), mul(lit(2), lit(3))))),
                     for_("i", lit(0), var("n"), lit(1), {call("kacc", names({"t", "c"}))})}));
  const std::string text = print_program(p);
  EXPECT_EQ(text,
            "kernel kacc(x: In tensor<i32>[8], a: InOut tensor<i32>[8]) -> (a) = builtin acc\n"
            "orchestration main(c: InOut tensor<i32>[8]) {\n  t = create [8]\n"
            "  n = -9223372036854775808 - (-1 + 2 * 3)\n  for i in range(0, n, 1) {\n    call kacc(t, c)\n  }\n}\n");
  ParseResult r = parse_program(text);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_TRUE(equal(r.program(), p));
}

TEST(Equal, ignores_locations_but_not_content) {
  ParseResult a = parse_program("orchestration m() {\n  a = 1 + 2\n}\n");
  ParseResult b = parse_program("\n\norchestration   m() {\n      a = (1 + 2)\n}\n");
  ParseResult c = parse_program("orchestration m() {\n  a = 1 + 3\n}\n");
  ParseResult d = parse_program("orchestration m() {\n  a = 1 - 2\n}\n");
  ASSERT_TRUE(a.ok() && b.ok() && c.ok() && d.ok());
  EXPECT_TRUE(equal(a.program(), b.program()));
  EXPECT_FALSE(equal(a.program(), c.program()));
  EXPECT_FALSE(equal(a.program(), d.program()));
}

}  // namespace
}  // namespace stackcheck::ir
