// Near misses in the layout of the lines (near_miss_text.h): two statements joined on one line,
// a statement broken after an operator, a closing brace dropped or one too many, CRLF line
// endings, and the input cut off inside a block with no newline.
#include <fmt/format.h>

#include <optional>
#include <string>
#include <vector>

#include "properties/gen/near_miss_text.h"

namespace stackcheck::gen::near_miss_detail {


Attempt join_lines(ChoiceSource& c, Dialect d, Text t) {
  const auto cand = lines_where(t, [&](size_t i, const std::vector<Tok>& k) {
    if (has_comment(t.lines[i]) || !next_token_line(t, i) || *next_token_line(t, i) != i + 1) return false;
    if (d == Dialect::kGir) return !(k.size() == 1 && is_word(k, 0, "return"));  // `return` would take the next name
    return !is_word(k, 0, "config");  // a config line would take the next word as a key
  });
  if (cand.empty()) return std::nullopt;
  const size_t i = c.pick(cand);
  const std::string second = t.lines[i + 1].substr(t.lines[i + 1].find_first_not_of(" \t"));
  const Tok first = t.toks(i + 1).front();
  const bool after_brace = is_punct(t.toks(i), t.toks(i).size() - 1, "{");
  const auto col = static_cast<uint32_t>(t.lines[i].size() + 2);
  t.lines[i] += " " + second;
  t.lines.erase(t.lines.begin() + static_cast<std::ptrdiff_t>(i) + 1);
  const std::string msg = d == Dialect::kPlan && after_brace
                              ? "expected end of line after '{', found " + describe(first)
                              : "expected end of line, found " + describe(first);
  return made(t, Corruption::kJoinLines, fmt::format("lines {} and {} joined", i + 1, i + 2),
              parse_error(d, i, col, msg));
}

// A statement broken after a binary operator (or the `=` of an assignment): the parser meets
// the end of the line where an operand must come.
Attempt split_statement(ChoiceSource& c, Dialect d, Text t) {
  std::vector<std::pair<size_t, size_t>> at;  // (line, token)
  for (size_t i = 0; i < t.lines.size(); ++i) {
    const auto k = t.toks(i);
    const std::string& s = t.lines[i];
    for (size_t j = 1; j + 1 < k.size(); ++j) {
      const Tok& x = k[j];
      const bool spaced = x.col >= 2 && s[x.col - 2] == ' ' && x.col + x.text.size() - 1 < s.size() &&
                          s[x.col + x.text.size() - 1] == ' ';
      const bool op = x.kind == Tok::kPunct && x.text.size() == 1 &&
                      std::string_view("+-*/%").find(x.text[0]) != std::string_view::npos;
      const bool assign =
          is_punct(k, j, "=") && (d == Dialect::kGir ? j == 1 && k[0].kind == Tok::kWord && s[0] == ' '
                                                     : j == 2 && (is_word(k, 0, "set") || is_word(k, 0, "for")));
      if (spaced && (op || assign)) at.push_back({i, j});
    }
  }
  if (at.empty()) return std::nullopt;
  const auto [i, j] = c.pick(at);
  const Tok x = t.toks(i)[j];
  const size_t cut = x.col - 1 + x.text.size();
  const std::string rest = t.lines[i].substr(cut + 1);
  t.lines[i] = t.lines[i].substr(0, cut);
  t.lines.insert(t.lines.begin() + static_cast<std::ptrdiff_t>(i) + 1, indent_of(t.lines[i]) + "    " + rest);
  return made(t, Corruption::kSplitStatement, fmt::format("line {} broken after '{}'", i + 1, x.text),
              parse_error(d, i, static_cast<uint32_t>(cut + 1), "expected an expression, found end of line"));
}

Attempt drop_brace(ChoiceSource& c, Dialect d, Text t) {
  const auto cand =
      lines_where(t, [](size_t, const std::vector<Tok>& k) { return k.size() == 1 && is_punct(k, 0, "}"); });
  if (cand.empty()) return std::nullopt;
  const size_t i = c.pick(cand);
  t.lines.erase(t.lines.begin() + static_cast<std::ptrdiff_t>(i));
  auto e = brace_walk(d, t);
  if (!e) return std::nullopt;
  return made(t, Corruption::kDropBrace, fmt::format("the '}}' of line {} dropped", i + 1), *e);
}

Attempt extra_brace(ChoiceSource& c, Dialect d, Text t) {
  const size_t i = c.one_of(t.lines.size() + 1);  // a new line before line i
  t.lines.insert(t.lines.begin() + static_cast<std::ptrdiff_t>(i),
                 (i < t.lines.size() ? indent_of(t.lines[i]) : "") + "}");
  auto e = brace_walk(d, t);
  if (!e) return std::nullopt;
  return made(t, Corruption::kExtraBrace, fmt::format("an extra '}}' as line {}", i + 1), *e);
}

// CRLF line endings, on every line or one; a `.gir` may start with a `# stackcheck` header.
Attempt carriage_return(ChoiceSource& c, Dialect d, Text t) {
  if (c.boolean()) {
    if (d == Dialect::kGir && c.boolean()) t.lines.insert(t.lines.begin(), "# stackcheck near-miss: CRLF line endings");
    const std::string msg = d == Dialect::kGir ? "carriage return (CR) is not allowed; use LF line endings"
                                               : "carriage return (CRLF line endings are not accepted)";
    const auto col = static_cast<uint32_t>(t.lines[0].size() + 1);
    t.trailing_newline = true;
    return made(t, Corruption::kCarriageReturn, "CRLF line endings", parse_error(d, 0, col, msg), "\r\n");
  }
  const size_t i = c.one_of(t.lines.size() - (t.trailing_newline ? 0 : 1));
  const auto col = static_cast<uint32_t>(t.lines[i].size() + 1);
  t.lines[i] += "\r";
  const std::string msg = d == Dialect::kGir ? "carriage return (CR) is not allowed; use LF line endings"
                                             : "carriage return (CRLF line endings are not accepted)";
  return made(t, Corruption::kCarriageReturn, fmt::format("line {} ends in CRLF", i + 1), parse_error(d, i, col, msg));
}

// The input ends right after a name or an integer literal, with no newline after it: the lexers
// must stop at the buffer's end (a token that runs to the last byte), and the parser report
// what is missing there.
Attempt truncated(ChoiceSource& c, Dialect d, Text t) {
  const auto cand = lines_where(t, [&](size_t i, const std::vector<Tok>& k) {
    const char last = t.lines[i].empty() ? ' ' : t.lines[i].back();
    return (k.back().kind == Tok::kInt || k.back().kind == Tok::kWord) && (alpha(last) || digit(last));
  });
  if (cand.empty()) return std::nullopt;
  const size_t i = c.pick(cand);
  t.lines.resize(i + 1);
  t.trailing_newline = false;
  // Inside a block a `.plan` statement is a line ended by its newline (RUNTIME.md §17), which
  // the parser wants first; a `.gir` statement needs none, and the open block is what is missing.
  auto e = brace_walk(d, t);
  if (!e) return std::nullopt;  // no block open there: a shorter text that may well be valid
  if (d == Dialect::kPlan) {
    const auto [line, col] = t.end();
    return made(t, Corruption::kTruncated, fmt::format("the input cut off after line {}, with no newline", i + 1),
                parse_error(d, line - 1, col, "expected end of line, found end of input"));
  }
  return made(t, Corruption::kTruncated, fmt::format("the input cut off after line {}, with no newline", i + 1), *e);
}

}  // namespace stackcheck::gen::near_miss_detail
