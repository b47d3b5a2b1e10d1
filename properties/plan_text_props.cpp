// The `.plan` text's layout carries no meaning (RUNTIME.md §17: lexing as COMPILER.md §1, blank
// lines skipped, a comment runs to the end of its line): a generated plan printed, then given
// blank and whitespace-only lines, comment lines, comments after statements, runs of spaces
// and tabs where the printer put one space, and a last line that is a comment with no newline,
// parses to the plan it came from (its canonical print is the same text); a token after a
// complete line is refused at its own column. Positive controls: noise that is not layout (a
// `;` where a comment begins), and a refusal predicted one column off, must fail.
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <sstream>
#include <string>
#include <vector>

#include "properties/gen/arbitrary.h"
#include "properties/property.h"
#include "stack/runtime/plan/parser.h"
#include "stack/runtime/plan/printer.h"

using namespace stackcheck;
using oracles::Verdict;

namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

// The printed text with layout noise; `comment` starts each comment (a control passes ";").
std::string with_noise(gen::ChoiceSource& c, const std::string& printed, const char* comment) {
  static const char* const kBlank[] = {"", "   ", "\t", " \t  "};
  std::string out;
  for (const std::string& line : lines_of(printed)) {
    while (c.chance(15)) out += c.chance(50) ? std::string(kBlank[c.one_of(4)]) + "\n" : fmt::format("{} note\n", comment);
    std::string l;
    for (char ch : line) l += ch == ' ' && c.chance(20) ? (c.chance(50) ? "\t" : "   ") : std::string(1, ch);
    if (c.chance(15)) l += fmt::format("  {} after the statement", comment);
    out += l + "\n";
  }
  if (c.chance(50)) out += fmt::format("{} the last line, with no newline", comment);
  return out;
}

void layout_case(const char* comment) {
  gen::ChoiceSource& c = gen::choices();
  const gen::GeneratedPlan g = gen::draw_plan();
  const std::string printed = runtime::print_plan(g.plan);
  const std::string noisy = with_noise(c, printed, comment);
  const runtime::PlanParseResult r = runtime::parse_plan(noisy);
  if (!r.ok())
    props::report(Verdict::fail("plan-layout", "the text with layout noise did not parse: " + r.error().to_string()),
                  props::counterexample("plan-layout", noisy));
  if (const std::string again = runtime::print_plan(r.program()); again != printed)
    props::report(Verdict::fail("plan-layout", "the text with layout noise parsed to another plan:\n" + again),
                  props::counterexample("plan-layout", noisy));
}

// A token after a complete line (§17: one statement, config, tensor or mutate line per line):
// the line of a generated plan, printed, gets one more token that no production continues
// with, and the parser stops there, at its column, saying it expected the end of the line and
// naming what it found. Lines that open or close a block are left alone.
void trailing_token_case(int column_skew) {
  gen::ChoiceSource& c = gen::choices();
  const gen::GeneratedPlan g = gen::draw_plan();
  std::vector<std::string> lines = lines_of(runtime::print_plan(g.plan));
  std::vector<size_t> complete;
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string& l = lines[i];
    const size_t first = l.find_first_not_of(' ');
    if (first == std::string::npos || l[first] == '#' || l[first] == '}' || l.back() == '{') continue;
    complete.push_back(i);
  }
  if (complete.empty()) return;
  static const char* const kJunk[] = {"7", ")", "}", "]"};
  const std::string junk = kJunk[c.one_of(std::size(kJunk))];
  const size_t i = complete[c.one_of(complete.size())];
  const auto column = static_cast<uint32_t>(lines[i].size() + 2 + column_skew);
  lines[i] += " " + junk;
  std::string text;
  for (const std::string& l : lines) text += l + "\n";
  gen::tag(fmt::format("trailing-token:{}", junk));
  const auto cx = props::counterexample("plan-trailing-token", text);
  const runtime::PlanParseResult r = runtime::parse_plan(text);
  if (r.ok())
    props::report(Verdict::fail("plan-trailing-token", fmt::format("'{}' after line {} parsed", junk, i + 1)), cx);
  const runtime::PlanError& e = r.error();
  const std::string found = junk == "7" ? "integer 7" : "'" + junk + "'";
  if (e.line != i + 1 || e.column != column || e.message.find("end of line") == std::string::npos ||
      e.message.find(found) == std::string::npos)
    props::report(Verdict::fail("plan-trailing-token", fmt::format("'{}' after line {}: refused as {}; expected "
                                                                   "{}:{}, end of line expected, {} found",
                                                                   junk, i + 1, e.to_string(), i + 1, column, found)),
                  cx);
}

}  // namespace

STACKCHECK_PROP(PlanText, layout_noise_parses_to_the_same_plan, 0.0) { layout_case("#"); }
STACKCHECK_PROP(PlanText, a_token_after_a_complete_line_is_refused_there, 0.0) { trailing_token_case(0); }
STACKCHECK_CONTROL(PlanTextControl, a_prediction_one_column_off_fails, "expected") { trailing_token_case(1); }

STACKCHECK_CONTROL(PlanTextControl, noise_that_is_not_layout_fails, "did not parse") { layout_case(";"); }
