// Parser tests: the grammar's constructs, one error test per malformed-input class, and
// locations on nodes.
#include "stack/ir/parser.h"

#include "stack/ir/printer.h"

#include <gtest/gtest.h>

namespace stackcheck::ir {
namespace {

ParseError parse_error(std::string_view text) {
  ParseResult r = parse_program(text);
  EXPECT_FALSE(r.ok()) << "expected a parse error for:\n" << text;
  return r.ok() ? ParseError{} : r.error();
}

// The parse error of `text`, which must say `part` and, where given (not 0), stand at that
// line and column.
ParseError expect_error(std::string_view text, std::string_view part, uint32_t line = 0, uint32_t column = 0) {
  ParseError e = parse_error(text);
  if (line != 0) {
    EXPECT_EQ(e.line, line) << text;
  }
  if (column != 0) {
    EXPECT_EQ(e.column, column) << text;
  }
  EXPECT_NE(e.message.find(part), std::string::npos) << e.message;
  return e;
}

const char* kExample =
    "kernel kacc(x: In tensor<i32>[8], a: InOut tensor<i32>[8]) -> (a) = builtin acc\n"
    "graph g(x: In tensor<i32>[16], c: InOut tensor<i32>[8], n: In i64) -> (tensor<i32>[8]) {\n"
    "  v = slice(x, [n * 8], [8])\n"
    "  t = create [8]\n"
    "  t1 = call kacc(v, t)\n"
    "  c1 = call kacc(t1, c)\n"
    "  return c1\n"
    "}\n"
    "orchestration main(x: In tensor<i32>[16], c: InOut tensor<i32>[8]) {\n"
    "  for i in range(0, 2, 1) {\n"
    "    call g(x, c, i)\n"
    "  }\n"
    "}\n";

TEST(Parser, example_parses_with_locations) {
  ParseResult r = parse_program(kExample);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  const Program& p = r.program();
  ASSERT_EQ(p.functions.size(), 3u);
  EXPECT_EQ(p.functions[0].kind, Function::Kind::Kernel);
  EXPECT_EQ(p.functions[0].builtin, "acc");
  const Function& g = p.functions[1];
  EXPECT_EQ(g.kind, Function::Kind::Graph);
  ASSERT_EQ(g.results.size(), 1u);
  ASSERT_EQ(g.body.size(), 5u);
  EXPECT_EQ(g.body[1].loc.line, 4u);
  EXPECT_EQ(g.body[1].loc.column, 3u);
  const auto& slice = std::get<SliceRhs>(g.body[0].rhs);
  EXPECT_EQ(slice.source, "x");
  EXPECT_EQ(slice.offsets[0].kind, Expr::Kind::Binary);
  EXPECT_EQ(slice.offsets[0].loc.column, 17u);
  const Function& m = p.functions[2];
  EXPECT_EQ(m.body[0].kind, Stmt::Kind::For);
  EXPECT_EQ(m.body[0].body[0].invoke.callee, "g");
}

TEST(Parser, empty_input_is_empty_program) {
  for (const char* text : {"", "\n\n", "# only a comment\n", "   \t\n# c"}) {
    ParseResult r = parse_program(text);
    ASSERT_TRUE(r.ok()) << text;
    EXPECT_TRUE(r.program().functions.empty());
  }
}

TEST(Parser, last_line_without_newline) {
  ParseResult r = parse_program("kernel k(a: Out tensor<i32>[2]) -> (a) = builtin fill");
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_EQ(r.program().functions[0].builtin, "fill");
}

TEST(Parser, negative_literals_and_min_int) {
  ParseResult r = parse_program(
      "orchestration m() {\n  a = -9223372036854775808\n  b = 3 - -4 * 2\n  c = 9223372036854775807\n}\n");
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  const auto& body = r.program().functions[0].body;
  EXPECT_EQ(std::get<ExprRhs>(body[0].rhs).expr.value, INT64_MIN);
  const Expr& b = std::get<ExprRhs>(body[1].rhs).expr;
  ASSERT_EQ(b.kind, Expr::Kind::Binary);
  EXPECT_EQ(b.op, BinOp::Sub);
  EXPECT_EQ(b.args[1].op, BinOp::Mul);
  EXPECT_EQ(b.args[1].args[0].value, -4);
}

TEST(Parser, tuple_get_dim_read_if_else) {
  ParseResult r = parse_program(R"(orchestration m(x: In tensor<i32>[2, 3]) {
  r = submit k(x)
  y = r.1
  d = dim(x, 1)
  e = read(x, [1, d - 1])
  if e >= 2 {
    z = 1
  } else {
    w = 2
  }
  if e != 0 {
  } else {
  }
}
)");
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  const auto& body = r.program().functions[0].body;
  EXPECT_TRUE(std::get<InvokeRhs>(body[0].rhs).invoke.submit);
  EXPECT_EQ(std::get<TupleGetRhs>(body[1].rhs).index, 1);
  EXPECT_EQ(std::get<ExprRhs>(body[2].rhs).expr.kind, Expr::Kind::Dim);
  EXPECT_EQ(std::get<ExprRhs>(body[3].rhs).expr.args.size(), 2u);
  EXPECT_EQ(body[4].cmp, CmpOp::Ge);
  EXPECT_EQ(body[4].else_body.size(), 1u);
  EXPECT_TRUE(body[5].else_body.empty());  // an empty else parses as no else
}

// ---- one test per malformed class ----

TEST(ParserErrors, bad_byte) {
  expect_error("orchestration m() {\n  a = 1 @ 2\n}\n", "'@'", 2, 9);
  expect_error("orchestration m() {\r\n}\r\n", "CR", 1);
  // A CRLF file whose first line is a comment is rejected at that comment's CR, not later.
  expect_error("# header\r\norchestration m() {\r\n}\r\n", "CR", 1, 9);
  EXPECT_EQ(parse_error("orchestration m() {\n}\n# only this line ends in CRLF\r\n").line, 3u);
  expect_error(std::string_view("kernel \x00", 8), "0x00");
  expect_error("kernel \xff", "0xff");
}

TEST(ParserErrors, unterminated_block) {
  expect_error("orchestration m() {\n  a = 1\n", "unterminated block", 3);  // at the end of input
  expect_error("orchestration m() {\n  for i in range(0, 2, 1) {\n    a = 1\n}\n", "unterminated");
}

TEST(ParserErrors, bad_type) {
  expect_error("orchestration m(x: In tensor<f32>[8]) {\n}\n", "i32", 1, 30);
  expect_error("orchestration m(x: In float) {\n}\n", "expected a type");
  expect_error("orchestration m(x: Both i64) {\n}\n", "In, Out or InOut");
}

TEST(ParserErrors, integer_overflow) {
  expect_error("orchestration m() {\n  a = 9223372036854775808\n}\n", "out of range", 2, 7);
  expect_error("orchestration m() {\n  a = -9223372036854775809\n}\n", "out of range");
  EXPECT_EQ(parse_error("orchestration m() {\n  a = 99999999999999999999999\n}\n").column, 7u);
  expect_error("orchestration m(x: In tensor<i32>[9223372036854775808]) {\n}\n", "out of range");
}

TEST(ParserErrors, deep_nesting) {
  std::string deep = "orchestration m() {\n  a = " + std::string(300, '(') + "1" + std::string(300, ')') + "\n}\n";
  ParseError e = parse_error(deep);
  EXPECT_NE(e.message.find("nesting"), std::string::npos) << e.message;
  std::string ok = "orchestration m() {\n  a = " + std::string(200, '(') + "1" + std::string(200, ')') + "\n}\n";
  EXPECT_TRUE(parse_program(ok).ok());
  // Nested blocks count too.
  std::string blocks = "orchestration m() {\n";
  for (int i = 0; i < 300; ++i) blocks += "if 1 < 2 {\n";
  e = parse_error(blocks);
  EXPECT_NE(e.message.find("nesting"), std::string::npos) << e.message;
  // Long operator chains are bounded too (they nest without brackets).
  std::string chain = "orchestration m() {\n  a = 1";
  for (int i = 0; i < 5000; ++i) chain += " + 1";
  e = parse_error(chain + "\n}\n");
  EXPECT_NE(e.message.find("deeper than"), std::string::npos) << e.message;
}

TEST(ParserErrors, grammar_errors_have_locations) {
  struct Case {
    const char* text;
    uint32_t line, col;
    const char* needle;
  };
  const Case cases[] = {
      {"orchestration m() {\n  a = -x\n}\n", 2, 8, "unary '-'"},
      {"orchestration m() {\n  for = 1\n}\n", 2, 7, "loop variable"},
      {"orchestration m() {\n  call f(\n}\n", 2, 10, "expected an expression"},
      {"kernel k(a: Out tensor<i32>[2]) = builtin fill\n", 1, 33, "'->'"},
      {"graph g() -> () {\n}\n", 1, 15, "expected a type"},
      {"orchestration m() { a = 1 }\n", 1, 21, "end of line"},
      {"func f() {\n}\n", 1, 1, "expected 'kernel'"},
      {"orchestration m() {\n  a = b.c\n}\n", 2, 9, "tuple index"},
      {"orchestration m() {\n  if a = b {\n  }\n}\n", 2, 8, "comparison"},
      {"orchestration m() {\n  a = 1 ! 2\n}\n", 2, 9, "'!='"},
  };
  for (const Case& c : cases) {
    ParseError e = parse_error(c.text);
    EXPECT_EQ(e.line, c.line) << c.text << " -> " << e.to_string();
    EXPECT_EQ(e.column, c.col) << c.text << " -> " << e.to_string();
    EXPECT_NE(e.message.find(c.needle), std::string::npos) << c.text << " -> " << e.to_string();
  }
}

TEST(ParserErrors, size_limit) {
  ParseLimits limits;
  limits.max_bytes = 16;
  ParseResult r = parse_program("orchestration m() {\n}\n", limits);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("exceeds"), std::string::npos);
}

}  // namespace
}  // namespace stackcheck::ir
