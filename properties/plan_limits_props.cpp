// The `.plan` parser's own limits (stack/runtime/plan/parser.h, check.h PlanLimits), met exactly
// and one past, under limits the case draws: open ( [ { together at most max_nesting (a block's
// { counts: nested for-loops), a tensor's dims at most max_rank, and an expression tree at most
// max_expr_depth deep (a left chain of n operators is n + 1 deep; a right-nested one through
// parentheses too). At the limit the
// text parses; one past, parsing stops at the token that passes it (its line and column are
// computed here from the text this file writes) with a message that names the limit and its
// figure. Integer literals at and past the i64 edges parse to their value or are refused where
// they stand. Positive control: a wrong prediction of where the opener is must fail.
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <string>

#include "properties/gen/arbitrary.h"
#include "properties/gen/literal_edges.h"
#include "properties/literal_judge.h"
#include "properties/property.h"
#include "stack/runtime/plan/check.h"
#include "stack/runtime/plan/parser.h"
#include "stack/runtime/plan/printer.h"

using namespace stackcheck;
using oracles::Verdict;

namespace {

enum class Shape : uint8_t { kParens, kBlocks, kLeftChain, kRightNested, kRank, kCount };
constexpr const char* kShapeName[] = {"parens", "blocks", "left-chain", "right-nested", "rank"};

struct LimitText {
  std::string text;
  runtime::PlanLimits limits;
  uint32_t line = 0, column = 0;  // where the limit is passed (one past), 0: nothing passes
  std::string words;              // the message names this and the limit's figure
  unsigned figure = 0;
};

// The text of `shape` at `k` (nesting or depth; the limit is `limit`). The first line is a
// comment, so every statement is on line 2 or later.
LimitText limit_text(Shape shape, unsigned limit, unsigned k, int column_skew) {
  LimitText t;
  t.text = "# a plan parser limit\n";
  const std::string set = "set s = ";
  switch (shape) {
    case Shape::kParens: {  // set s = ((...(1)...)): k openers
      t.limits.max_nesting = limit;
      t.text += set + std::string(k, '(') + "1" + std::string(k, ')') + "\n";
      if (k > limit) t.line = 2, t.column = static_cast<uint32_t>(set.size() + limit + 1);
      t.words = "nesting";
      break;
    }
    case Shape::kBlocks: {  // k nested one-trip for-loops, two spaces of indent per level
      t.limits.max_nesting = limit;
      for (unsigned d = 0; d < k; ++d) {
        const std::string head = std::string(2 * d, ' ') + fmt::format("for i{} = 0, 1, 1 ", d);
        t.text += head + "{\n";
        if (d == limit) t.line = 2 + d, t.column = static_cast<uint32_t>(head.size() + 1);
      }
      t.text += std::string(2 * k, ' ') + "set s = 1\n";
      for (unsigned d = k; d-- > 0;) t.text += std::string(2 * d, ' ') + "}\n";
      t.words = "nesting";
      break;
    }
    case Shape::kLeftChain: {  // set s = 1 + 1 + ...: k - 1 operators, k deep
      t.limits.max_expr_depth = limit;
      std::string e = "1";
      for (unsigned i = 1; i < k; ++i) {
        e += " + ";
        if (i == limit) t.line = 2, t.column = static_cast<uint32_t>(set.size() + e.size() - 1);
        e += "1";
      }
      t.text += set + e + "\n";
      t.words = "expression";
      break;
    }
    case Shape::kRank: {  // tensor x: In [1, 1, ...]: k dims, at most max_rank (1..4)
      t.limits.max_rank = limit;
      const std::string head = "tensor x: In [";
      std::string dims;
      for (unsigned i = 0; i < k; ++i) {
        if (i == limit) t.line = 2, t.column = static_cast<uint32_t>(head.size() + dims.size() + 1);
        dims += i + 1 < k ? "1, " : "1";
      }
      t.text += head + dims + "]\n";
      t.words = "dimensions";
      break;
    }
    default: {  // set s = 1 - (1 - (... (1 - 1))): k - 1 operators, k deep; the innermost
                // operator combines first, so the first to pass the limit is the (k - limit)-th
      t.limits.max_expr_depth = limit;
      std::string e = "1", tail;
      for (unsigned i = 1; i < k; ++i) {
        e += i + 1 < k ? " - (1" : " - 1";
        if (i + 1 < k) tail += ")";
        if (k > limit && i == k - limit)
          t.line = 2, t.column = static_cast<uint32_t>(set.size() + e.size() - (i + 1 < k ? 3 : 2));
      }
      t.text += set + e + tail + "\n";
      t.words = "expression";
      break;
    }
  }
  t.figure = limit;
  if (t.line != 0) t.column = static_cast<uint32_t>(static_cast<int>(t.column) + column_skew);
  return t;
}

Verdict judge_limit_text(const LimitText& t) {
  const runtime::PlanParseResult r = runtime::parse_plan(t.text, t.limits);
  if (t.line == 0)
    return r.ok() ? Verdict::pass()
                  : Verdict::fail("plan-limit", "at the limit the parser refused it: " + r.error().to_string());
  if (r.ok()) return Verdict::fail("plan-limit", fmt::format("one past the limit, it parsed (expected {}:{})", t.line, t.column));
  const runtime::PlanError& e = r.error();
  if (e.line != t.line || e.column != t.column || e.message.find(t.words) == std::string::npos ||
      e.message.find(std::to_string(t.figure)) == std::string::npos)
    return Verdict::fail("plan-limit", fmt::format("refused as {}; expected {}:{} naming {} and {}", e.to_string(),
                                                   t.line, t.column, t.words, t.figure));
  return Verdict::pass();
}

void limit_case(int column_skew) {
  gen::ChoiceSource& c = gen::choices();
  const auto shape = static_cast<Shape>(c.one_of(static_cast<size_t>(Shape::kCount)));
  const auto limit = static_cast<unsigned>(shape == Shape::kRank ? 1 + c.integer(0, 3) : 2 + c.integer(0, 14));
  const bool past = c.chance(50);
  gen::tag(fmt::format("plan-limit:{}:{}", kShapeName[static_cast<int>(shape)], past ? "one-past" : "at"));
  const LimitText t = limit_text(shape, limit, past ? limit + 1 : limit, column_skew);
  if (const Verdict v = judge_limit_text(t); !v.passed())
    props::report(v, props::counterexample("plan-limit", t.text,
                                           {{"max_nesting", std::to_string(t.limits.max_nesting)},
                                            {"max_rank", std::to_string(t.limits.max_rank)},
                                            {"max_expr_depth", std::to_string(t.limits.max_expr_depth)}}));
}

// An integer literal of `set s = [-]DIGITS` around the i64 edges (COMPILER.md §1, as the plan
// lexes: INT <= 2^63 - 1, 2^63 only right after a unary minus): parsed to its value (printed
// back as the canonical decimal), or refused at the digits' column as too large.
Verdict judge_literal(const gen::EdgeLiteral& l, bool flawed = false) {
  const std::string text = "set s = " + std::string(l.minus ? "-" : "") + l.digits;
  const runtime::PlanParseResult r = runtime::parse_plan(text + "\n");
  props::LiteralOutcome o{.ok = r.ok()};
  if (r.ok()) o.printed = runtime::print_plan(r.program());
  else o = {false, "", r.error().line, r.error().column, r.error().to_string(), r.error().message};
  return props::judge_edge_literal("plan-literal", l, flawed, text, 1, 9 + (l.minus ? 1 : 0), "too large", "set s = ",
                                   o);
}

void literal_case(bool flawed = false) {
  static const char* const kEdges[] = {"9223372036854775807", "9223372036854775808", "9223372036854775809",
                                       "922337203685477580",  "922337203685477581",  "9999999999999999999",
                                       "18446744073709551616", "1000000000000000000", "0"};
  const gen::EdgeLiteral l = gen::draw_edge_literal(gen::choices(), kEdges, 2);  // 18 to 20 random digits
  gen::tag(fmt::format("plan-literal:{}{}", l.minus ? "-" : "", l.digits.size()));
  if (const Verdict v = judge_literal(l, flawed); !v.passed())
    props::report(v, props::counterexample("plan-literal", "set s = " + std::string(l.minus ? "-" : "") + l.digits + "\n"));
}

}  // namespace

STACKCHECK_PROP(PlanLimits, nesting_and_depth_at_and_one_past, 0.0) { limit_case(0); }
STACKCHECK_PROP(PlanLimits, integer_literals_at_the_i64_edges, 0.0) { literal_case(); }

// The positive control: a prediction one column off is caught.
STACKCHECK_CONTROL(PlanLimitsControl, a_prediction_one_column_off_fails, "expected") { limit_case(1); }
// And a model of the literals that lets 2^63 through without a minus. Only 2^63 unsigned shows
// it, about one case in 21, so 100 cases missed it about one run in 120 (the control runs at
// a fresh seed each time): five literals a case miss it about once in 10^10 runs.
STACKCHECK_CONTROL(PlanLimitsControl, a_model_admitting_2_63_fails, "refused") {
  for (int i = 0; i < 5; ++i) literal_case(true);
}
