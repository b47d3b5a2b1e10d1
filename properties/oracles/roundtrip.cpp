#include "properties/oracles/roundtrip.h"

#include <fmt/format.h>

#include <optional>
#include <string>

#include "stack/ir/equal.h"
#include "stack/ir/parser.h"
#include "stack/ir/printer.h"
#include "stack/runtime/plan/parser.h"
#include "stack/runtime/plan/printer.h"

namespace stackcheck::oracles {

// A line ending in `{` opens a block after it, a line starting with `}` closes one before it.
std::optional<std::string> canonical_layout_problem(const std::string& text) {
  if (text.empty()) return std::nullopt;  // a program of no functions prints nothing
  if (text.back() != '\n') return "the text does not end in a newline";
  size_t line_no = 0, depth = 0;
  const std::string_view whole(text);
  for (size_t at = 0; at < whole.size();) {
    const size_t end = whole.find('\n', at);
    const std::string_view line = whole.substr(at, end - at);  // a view: no copy per line
    at = end + 1;
    ++line_no;
    const size_t indent = line.find_first_not_of(' ');
    if (indent == std::string::npos) return fmt::format("line {} is blank", line_no);
    if (line.find('\t') != std::string::npos || line.find('#') != std::string::npos)
      return fmt::format("line {} holds a tab or a comment", line_no);
    if (line.back() == ' ' || line.find("  ", indent) != std::string::npos)
      return fmt::format("line {} has a trailing or doubled space", line_no);
    if (line[indent] == '}') {
      if (depth == 0) return fmt::format("line {} closes a block none opened", line_no);
      --depth;
    }
    if (indent != 2 * depth)
      return fmt::format("line {} is indented {} spaces at block depth {} (two per block)", line_no, indent, depth);
    if (line.back() == '{') ++depth;
  }
  if (depth != 0) return fmt::format("{} block(s) left open", depth);
  return std::nullopt;
}

Verdict check_print_roundtrip(const ir::Program& p) {
  const std::string printed = ir::print_program(p);
  if (std::optional<std::string> why = canonical_layout_problem(printed))
    return Verdict::fail("roundtrip", "the printed program is not in the canonical layout: " + *why);
  ir::ParseResult again = ir::parse_program(printed);
  if (!again.ok()) return Verdict::fail("roundtrip", "printed program does not parse: " + again.error().to_string());
  if (!ir::equal(again.program(), p)) return Verdict::fail("roundtrip", "parse(print(p)) differs structurally from p");
  const std::string reprinted = ir::print_program(again.program());
  if (reprinted != printed) return Verdict::fail("roundtrip", "print(parse(print(p))) != print(p)");
  return Verdict::pass();
}

Verdict check_plan_roundtrip(const runtime::OrchProgram& p) {
  const std::string printed = runtime::print_plan(p);
  runtime::PlanParseResult again = runtime::parse_plan(printed);
  if (!again.ok()) return Verdict::fail("plan-roundtrip", "printed plan does not parse: " + again.error().to_string());
  if (!(again.program() == p)) return Verdict::fail("plan-roundtrip", "parse(print(plan)) != plan");
  if (runtime::print_plan(again.program()) != printed)
    return Verdict::fail("plan-roundtrip", "print(parse(print(plan))) != print(plan)");
  return Verdict::pass();
}

}  // namespace stackcheck::oracles
