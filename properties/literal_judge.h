// The judge of one integer literal at the i64 edges (gen/literal_edges.h), shared by the `.gir`
// and `.plan` parsers' literal properties: what the parser made of the text, against the value
// COMPILER.md §1 gives the literal.
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <string>

#include "properties/gen/literal_edges.h"
#include "properties/oracles/oracle.h"

namespace stackcheck::props {

// What the parser made of the text: parsed (and the text its printer writes back), or the
// error's place and words.
struct LiteralOutcome {
  bool ok = false;
  std::string printed;
  uint32_t line = 0, column = 0;
  std::string error;  // "line:column: message"
  std::string message;
};

// `shown`: the literal's line as written; refused where out of range, at (line, column) and
// saying `must_say` (empty: any words); else printed back as `prefix` followed by its value.
inline oracles::Verdict judge_edge_literal(const char* rule, const gen::EdgeLiteral& l, bool admit_2_63,
                                           const std::string& shown, uint32_t line, uint32_t column,
                                           const std::string& must_say, const std::string& prefix,
                                           const LiteralOutcome& o) {
  using oracles::Verdict;
  const std::optional<int64_t> value = gen::edge_literal_value(l, admit_2_63);
  if (!value) {
    if (o.ok) return Verdict::fail(rule, fmt::format("`{}` parsed; it is out of the i64 range", shown));
    if (o.line != line || o.column != column || o.message.find(must_say) == std::string::npos)
      return Verdict::fail(rule, fmt::format("`{}` refused as {}; expected it at {}:{}{}", shown, o.error, line, column,
                                             must_say.empty() ? "" : " saying " + must_say));
    return Verdict::pass();
  }
  if (!o.ok) return Verdict::fail(rule, fmt::format("`{}` refused: {}", shown, o.error));
  if (o.printed.find(fmt::format("{}{}\n", prefix, *value)) == std::string::npos)
    return Verdict::fail(rule, fmt::format("`{}` parsed to a text printed as:\n{}", shown, o.printed));
  return Verdict::pass();
}

}  // namespace stackcheck::props
