// What the near-miss corruptions share (near_miss.h; internal to near_miss*.cpp): a valid text
// as lines, the tokens of a line as both lexers split them, the brace structure both parsers
// walk, the expected rejections, and each corruption's entry point, one family per file:
//   near_miss_layout.cpp  lines joined, split, a brace dropped or added, CRLF, the input cut off;
//   near_miss_names.cpp   a name bound twice or used first, an unknown callee or builtin, an
//                         argument left out;
//   near_miss_tokens.cpp  a literal out of range, a stray token, a wrong word, a keyword as a name;
//   near_miss_plan.cpp    the plan-only ones (config keys and values, mutate, order of lines).
// A corruption takes the text by value, draws its place and variant from the ChoiceSource, and
// returns nullopt where it does not apply. Expectations come from the grammars (COMPILER.md §1,
// RUNTIME.md §17), never from running the stack. No RapidCheck here.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "properties/gen/choice.h"
#include "properties/gen/near_miss.h"

namespace stackcheck::gen::near_miss_detail {

using oracles::ExpectedRejection;
using oracles::FrontEnd;

enum class Dialect : uint8_t { kGir, kPlan };

// ---------------------------------------------------------------- lines and tokens

struct Tok {
  enum Kind : uint8_t { kWord, kInt, kPunct } kind;
  std::string text;
  uint32_t col;  // 1-based
};

inline bool alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
inline bool digit(char c) { return c >= '0' && c <= '9'; }

// The tokens of one line, up to a comment.
std::vector<Tok> tokens(const std::string& s);

inline bool has_comment(const std::string& s) { return s.find('#') != std::string::npos; }

// How both parsers name a token in "expected X, found Y".
inline std::string describe(const Tok& t) { return t.kind == Tok::kInt ? "integer " + t.text : "'" + t.text + "'"; }

struct Text {
  std::vector<std::string> lines;
  bool trailing_newline = true;

  static Text of(std::string_view s) {
    Text t;
    std::string cur;
    for (char c : s) {
      if (c == '\n') {
        t.lines.push_back(cur);
        cur.clear();
      } else {
        cur += c;
      }
    }
    t.trailing_newline = s.empty() || s.back() == '\n';
    if (!t.trailing_newline) t.lines.push_back(cur);
    return t;
  }
  std::string str(const std::string& eol = "\n") const {
    std::string s;
    for (size_t i = 0; i < lines.size(); ++i) s += lines[i] + (i + 1 < lines.size() || trailing_newline ? eol : "");
    return s;
  }
  std::vector<Tok> toks(size_t i) const { return tokens(lines[i]); }
  // Where both lexers put the end-of-input token.
  std::pair<uint32_t, uint32_t> end() const {
    if (trailing_newline) return {static_cast<uint32_t>(lines.size() + 1), 1};
    return {static_cast<uint32_t>(lines.size()), static_cast<uint32_t>(lines.back().size() + 1)};
  }
};

std::string indent_of(const std::string& s);

ExpectedRejection parse_error(Dialect d, size_t line0, uint32_t col, std::string msg);
// A plan error of validate_plan (names, config keys, graphs), reached after a full parse.
ExpectedRejection plan_check(size_t line0, uint32_t col, std::string msg);
ExpectedRejection well_formed(size_t line0, uint32_t col, int code);

inline bool is_word(const std::vector<Tok>& t, size_t i, std::string_view w) {
  return i < t.size() && t[i].kind == Tok::kWord && t[i].text == w;
}
inline bool is_punct(const std::vector<Tok>& t, size_t i, std::string_view p) {
  return i < t.size() && t[i].kind == Tok::kPunct && t[i].text == p;
}

// Walks the lines as both parsers nest blocks: `X ... {` opens (a function, for, if), `}`
// closes, `} else {` closes a then-block and opens its else. The first line that no longer
// fits, or the end of input inside a block, is where the parser stops.
std::optional<ExpectedRejection> brace_walk(Dialect d, const Text& t);

// ---------------------------------------------------------------- corruptions

using Attempt = std::optional<NearMiss>;

NearMiss made(const Text& t, Corruption c, std::string what, ExpectedRejection e, const std::string& eol = "\n");
// Indices of lines with tokens satisfying `pred`.
std::vector<size_t> lines_where(const Text& t, const std::function<bool(size_t, const std::vector<Tok>&)>& pred);
// The next line holding a token after line i.
std::optional<size_t> next_token_line(const Text& t, size_t i);

// near_miss_layout.cpp
Attempt join_lines(ChoiceSource& c, Dialect d, Text t);
Attempt split_statement(ChoiceSource& c, Dialect d, Text t);
Attempt drop_brace(ChoiceSource& c, Dialect d, Text t);
Attempt extra_brace(ChoiceSource& c, Dialect d, Text t);
Attempt carriage_return(ChoiceSource& c, Dialect d, Text t);
Attempt truncated(ChoiceSource& c, Dialect d, Text t);

// near_miss_names.cpp
Attempt name_twice(ChoiceSource& c, Dialect d, Text t);
Attempt use_before_definition(ChoiceSource& c, Dialect d, Text t);
Attempt unknown_callee(ChoiceSource& c, Dialect d, Text t);
Attempt unknown_builtin(ChoiceSource& c, Dialect d, Text t);
Attempt missing_argument(ChoiceSource& c, Dialect d, Text t);

// near_miss_tokens.cpp
Attempt literal_range(ChoiceSource& c, Dialect d, Text t);
// The punctuation tokens of the dialect a stray may be (`}` left out: extra_brace's case).
const std::vector<std::string>& stray_punct(Dialect d);
// `punct`: that punctuation token (an index into stray_punct), else one of the three kinds drawn.
Attempt stray_token_of(ChoiceSource& c, Dialect d, Text t, std::optional<size_t> punct);
Attempt stray_token(ChoiceSource& c, Dialect d, Text t);
Attempt wrong_word(ChoiceSource& c, Dialect d, Text t);
Attempt keyword_name(ChoiceSource& c, Dialect d, Text t);  // .gir only

// near_miss_plan.cpp (and graph_after_use, config_value of near_miss.h)
Attempt config_key(ChoiceSource& c, Dialect, Text t);
Attempt mutate_range(ChoiceSource& c, Dialect, Text t);
Attempt tensor_after_statement(ChoiceSource& c, Dialect, Text t);

}  // namespace stackcheck::gen::near_miss_detail
