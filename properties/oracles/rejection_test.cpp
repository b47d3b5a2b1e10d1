// The near-miss rejection oracle (rejection.h): a near-miss that is accepted, or rejected at
// another place, by another front end or with another message or code, fails; the stated
// rejection passes; the control accepts a valid text and fails an invalid one.
#include "properties/oracles/rejection.h"

#include <gtest/gtest.h>

namespace stackcheck::oracles {
namespace {

constexpr const char* kGir = "orchestration m(x: In tensor<i32>[8]) {\n  a = 1\n}\n";

TEST(Rejection, an_accepted_near_miss_fails) {
  const Verdict v = check_rejected(kGir, ExpectedRejection{FrontEnd::kGirParser, 2, 3, "anything", 0});
  EXPECT_TRUE(v.failed());
  EXPECT_EQ(v.rule, "near-miss/gir-parser");
  EXPECT_NE(v.message.find("accepted"), std::string::npos) << v.message;
  EXPECT_TRUE(check_rejected(kGir, ExpectedRejection{FrontEnd::kWellFormed, 2, 3, "", 2}).failed());
}

TEST(Rejection, a_parser_error_must_match_place_and_message) {
  const std::string bad = "orchestration m() {\n  a = 1 @ 2\n}\n";
  const ExpectedRejection right{FrontEnd::kGirParser, 2, 9, "unexpected character '@'", 0};
  EXPECT_TRUE(check_rejected(bad, right).passed()) << check_rejected(bad, right).to_string();
  ExpectedRejection col = right, msg = right;
  col.column = 8;
  msg.message = "unexpected character '#'";
  EXPECT_TRUE(check_rejected(bad, col).failed());
  EXPECT_TRUE(check_rejected(bad, msg).failed());
}

TEST(Rejection, a_well_formed_error_must_match_code_and_place) {
  const std::string twice = "orchestration m(x: In tensor<i32>[8]) {\n  a = 1\n  a = 2\n}\n";
  EXPECT_TRUE(check_rejected(twice, ExpectedRejection{FrontEnd::kWellFormed, 3, 3, "", 2}).passed());
  EXPECT_TRUE(check_rejected(twice, ExpectedRejection{FrontEnd::kWellFormed, 3, 3, "", 3}).failed());
  EXPECT_TRUE(check_rejected(twice, ExpectedRejection{FrontEnd::kWellFormed, 2, 3, "", 2}).failed());
  // A parse error where WellFormed was expected is another front end's rejection: a failure.
  EXPECT_TRUE(
      check_rejected("orchestration m( {\n}\n", ExpectedRejection{FrontEnd::kWellFormed, 1, 1, "", 1}).failed());
}

TEST(Rejection, plan_parser_and_check) {
  const std::string bad = "tensor x: In [8]\nsubmit fil(output y: [8], scalar 1)\n";
  const ExpectedRejection want{FrontEnd::kPlanParser, 2, 8,
                               "unknown builtin 'fil' (fill, copy, add, acc, scale, matmul, rowsum)", 0};
  EXPECT_TRUE(check_rejected(bad, want).passed()) << check_rejected(bad, want).to_string();
  const std::string twice = "tensor x: In [8]\nset x = 1\n";
  EXPECT_TRUE(
      check_rejected(twice, ExpectedRejection{FrontEnd::kPlanCheck, 2, 1, "name 'x' bound twice in one body", 0})
          .passed());
  EXPECT_TRUE(check_rejected("tensor x: In [8]\n", want).failed());
}

TEST(Rejection, the_control_accepts_valid_texts_only) {
  EXPECT_TRUE(check_accepted(kGir, TextKind::kGir).passed());
  EXPECT_TRUE(check_accepted("orchestration m(x: In tensor<i32>[8]) {\n  a = b\n}\n", TextKind::kGir).failed());
  EXPECT_TRUE(check_accepted("tensor x: In [8]\nsync_start 1\n", TextKind::kPlan).passed());
  EXPECT_TRUE(check_accepted("sync_start -1\n", TextKind::kPlan).failed());
}

// A lax front end is what the oracle is for: a parser that drops CRs accepts a CRLF near-miss.
// The rendered form against the figures: a rendering with line and column swapped fails.
TEST(Rejection, a_rendering_that_swaps_line_and_column_fails) {
  EXPECT_TRUE(check_rendered(FrontEnd::kPlanParser, "3:7: unexpected token", "3:7: unexpected token").passed());
  const Verdict v = check_rendered(FrontEnd::kPlanParser, "7:3: unexpected token", "3:7: unexpected token");
  EXPECT_TRUE(v.failed());
  EXPECT_NE(v.message.find("rendered as"), std::string::npos) << v.message;
}

TEST(Rejection, a_lax_front_end_is_caught) {
  FrontEnds lax = FrontEnds::of_stack();
  lax.parse_gir = [](std::string_view t) {
    std::string s(t);
    std::erase(s, '\r');
    return ir::parse_program(s);
  };
  const std::string crlf = "orchestration m() {\r\n}\r\n";
  const ExpectedRejection want{FrontEnd::kGirParser, 1, 20, "carriage return (CR) is not allowed; use LF line endings",
                               0};
  EXPECT_TRUE(check_rejected(crlf, want).passed()) << check_rejected(crlf, want).to_string();
  EXPECT_TRUE(check_rejected(crlf, want, lax).failed());
}

}  // namespace
}  // namespace stackcheck::oracles
