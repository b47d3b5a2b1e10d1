// Near misses in one token (near_miss_text.h): an integer literal past 2^63-1, a stray token,
// character or byte where a statement begins, and a word or operator of a fixed set replaced
// by one outside it.
#include <fmt/format.h>

#include <optional>
#include <string>
#include <vector>

#include "properties/gen/near_miss_text.h"

namespace stackcheck::gen::near_miss_detail {


// A literal past 2^63-1 (2^63 is legal only after a unary minus).
Attempt literal_range(ChoiceSource& c, Dialect d, Text t) {
  std::vector<std::pair<size_t, size_t>> at;
  for (size_t i = 0; i < t.lines.size(); ++i) {
    const auto k = t.toks(i);
    for (size_t j = 0; j < k.size(); ++j)
      if (k[j].kind == Tok::kInt) at.push_back({i, j});
  }
  if (at.empty()) return std::nullopt;
  const auto [i, j] = c.pick(at);
  const auto k = t.toks(i);
  const Tok& x = k[j];
  const bool negated = j > 0 && is_punct(k, j - 1, "-") && k[j - 1].col + 1 == x.col;
  static const std::vector<std::string> kHuge = {"9223372036854775809", "18446744073709551616", "99999999999999999999"};
  const std::string big = !negated && c.boolean() ? "9223372036854775808" : c.pick(kHuge);
  t.lines[i].replace(x.col - 1, x.text.size(), big);
  std::string msg = "integer literal too large";
  if (d == Dialect::kGir)
    msg = big == "9223372036854775808" ? "integer literal 9223372036854775808 out of range (max 9223372036854775807)"
                                       : fmt::format("integer literal '{}' out of range", big);
  return made(t, Corruption::kLiteralRange, fmt::format("literal {} of line {} became {}", x.text, i + 1, big),
              parse_error(d, i, x.col, msg));
}

// A stray token or character where a statement begins (before the first word of a statement
// line, inside a body or, in a plan, at top level): a punctuation token of the dialect (the
// parser's "expected a statement, found X"), a printable character no token starts with, or a
// byte outside printable ASCII (the lexer's refusal), all at the stray's own column. `}` is left
// out (it closes the block: extra_brace's case).
const std::vector<std::string>& stray_punct(Dialect d) {
  static const std::vector<std::string> kGirPunct = {"(", ")", "[", "]", "{", ",", ":", ".", "+", "-",  "->",
                                                     "*", "/", "%", "=", "==", "!=", "<", "<=", ">", ">="};
  static const std::vector<std::string> kPlanPunct = {"(", ")", "[", "]", "{", ",",  ":", "$", "+",
                                                      "-", "*", "/", "%", "=", "==", "!=", "<", "<=", ">", ">="};
  return d == Dialect::kGir ? kGirPunct : kPlanPunct;
}
// `punct`: that punctuation token (an index into stray_punct), else one of the three kinds drawn.
Attempt stray_token_of(ChoiceSource& c, Dialect d, Text t, std::optional<size_t> punct) {
  const auto cand = lines_where(t, [&](size_t i, const std::vector<Tok>& k) {
    if (k.front().kind != Tok::kWord) return false;
    if (d == Dialect::kGir) return !indent_of(t.lines[i]).empty();
    return !(is_word(k, 0, "config") || is_word(k, 0, "tensor") || is_word(k, 0, "mutate") || is_word(k, 0, "graph"));
  });
  if (cand.empty()) return std::nullopt;
  const size_t i = c.pick(cand);
  const uint32_t col = t.toks(i).front().col;
  static const std::vector<char> kChars = {'@', '?', ';', '`', '~', '^', '&', '|', '"', '\\', '\''};
  static const std::vector<unsigned char> kBytes = {0x01, 0x1b, 0x7f, 0x80, 0xc3, 0xe2, 0xff};
  std::string stray, msg;
  switch (punct ? 0 : c.one_of(3)) {
    case 0:
      stray = punct ? stray_punct(d).at(*punct) : c.pick(stray_punct(d));
      msg = "expected a statement, found '" + stray + "'";
      break;
    case 1: {
      // '!' alone, '$' in a .gir and '.' in a .plan start no token of that dialect either.
      std::vector<char> chars = kChars;
      chars.push_back('!');
      chars.push_back(d == Dialect::kGir ? '$' : '.');
      const char ch = c.pick(chars);
      stray = std::string(1, ch);
      msg = d == Dialect::kGir && ch == '!' ? "unexpected '!' (did you mean '!='?)"
                                            : fmt::format("unexpected character '{}'", ch);
      break;
    }
    default: {
      const unsigned char b = c.pick(kBytes);
      stray = std::string(1, static_cast<char>(b));
      msg = fmt::format("unexpected byte 0x{:02x}", b);
      break;
    }
  }
  t.lines[i].insert(col - 1, stray + " ");
  return made(t, Corruption::kStrayToken, fmt::format("'{}' put before the statement of line {}", stray, i + 1),
              parse_error(d, i, col, msg));
}
Attempt stray_token(ChoiceSource& c, Dialect d, Text t) { return stray_token_of(c, d, std::move(t), std::nullopt); }

// A word or operator the grammar takes from a fixed set, replaced by one outside it, where the
// parser must name what it found: a param's direction (In, Out, InOut) and its type (i64 or
// tensor, element type i32) in a .gir header, an entry tensor's direction (In, InOut) in a
// .plan, and the comparison of an if in either.
Attempt wrong_word(ChoiceSource& c, Dialect d, Text t) {
  struct Site {
    size_t line, tok;
    int what;  // 0 direction, 1 type, 2 element type, 3 comparison, 4 a plan argument's tag
  };
  static const std::vector<std::string> kTags = {"input", "inout", "output", "output_existing", "no_dep", "scalar"};
  static const std::vector<std::string> kCmp = {"==", "!=", "<", "<=", ">", ">="};
  std::vector<Site> at;
  for (size_t i = 0; i < t.lines.size(); ++i) {
    const auto k = t.toks(i);
    if (d == Dialect::kGir && !k.empty() &&
        (is_word(k, 0, "kernel") || is_word(k, 0, "graph") || is_word(k, 0, "orchestration"))) {
      for (size_t j = 1; j + 1 < k.size(); ++j) {
        if (!is_punct(k, j - 1, ":")) continue;
        if (is_word(k, j, "In") || is_word(k, j, "Out") || is_word(k, j, "InOut")) {
          at.push_back({i, j, 0});
          at.push_back({i, j + 1, 1});
          if (is_word(k, j + 1, "tensor") && is_punct(k, j + 2, "<") && k.size() > j + 3) at.push_back({i, j + 3, 2});
        }
      }
    }
    if (d == Dialect::kPlan && is_word(k, 0, "tensor") && k.size() > 3 && is_punct(k, 2, ":")) at.push_back({i, 3, 0});
    if (d == Dialect::kPlan && (is_word(k, 0, "submit") || is_word(k, 0, "submit_graph")))
      for (size_t j = 2; j < k.size(); ++j)
        if ((is_punct(k, j - 1, "(") || is_punct(k, j - 1, ",")) && k[j].kind == Tok::kWord &&
            std::find(kTags.begin(), kTags.end(), k[j].text) != kTags.end())
          at.push_back({i, j, 4});
    if (is_word(k, 0, "if"))
      for (size_t j = 1; j < k.size(); ++j)
        if (k[j].kind == Tok::kPunct && std::find(kCmp.begin(), kCmp.end(), k[j].text) != kCmp.end()) {
          at.push_back({i, j, 3});
          break;
        }
  }
  if (at.empty()) return std::nullopt;
  const Site s = c.pick(at);
  const Tok x = t.toks(s.line)[s.tok];
  static const std::vector<std::string> kDirs = {"in", "Inn", "OUT", "Output", "Inout", "inout"};
  static const std::vector<std::string> kTypes = {"tensr", "Tensor", "int", "i63", "f32"};
  static const std::vector<std::string> kElems = {"i64", "f32", "u32", "int"};
  static const std::vector<std::string> kNotCmp = {"=", ",", ":", "->"};
  std::string bad, msg;
  switch (s.what) {
    case 0:
      bad = c.pick(kDirs);
      msg = d == Dialect::kGir ? fmt::format("expected In, Out or InOut, found '{}'", bad)
                               : fmt::format("expected 'In' or 'InOut', found '{}'", bad);
      break;
    case 1:
      bad = c.pick(kTypes);
      msg = fmt::format("expected a type (i64 or tensor<i32>[...]), found '{}'", bad);
      break;
    case 2:
      bad = c.pick(kElems);
      msg = fmt::format("expected element type i32, found '{}'", bad);
      break;
    case 4:
      bad = c.pick(std::vector<std::string>{"inpt", "Input", "out", "nodep", "scalars"});
      msg = fmt::format("expected an argument tag (input, inout, output, output_existing, no_dep, scalar), found '{}'",
                        bad);
      break;
    default:
      bad = d == Dialect::kGir ? c.pick(kNotCmp) : c.pick(std::vector<std::string>{"=", ",", ":"});
      msg = d == Dialect::kGir ? fmt::format("expected a comparison (== != < <= > >=), found '{}'", bad)
                               : fmt::format("expected a comparison, found '{}'", bad);
  }
  t.lines[s.line].replace(x.col - 1, x.text.size(), bad);
  return made(t, Corruption::kWrongWord, fmt::format("'{}' of line {} made '{}'", x.text, s.line + 1, bad),
              parse_error(d, s.line, x.col, msg));
}

// A `.gir` name where the parser reads one first (a function's name, a param's, a loop
// variable) made a keyword: the grammar's quoted words (COMPILER.md §1), this table written
// from the grammar. The parser must say "'<kw>' is a keyword, not a name" at its column.
Attempt keyword_name(ChoiceSource& c, Dialect d, Text t) {
  if (d != Dialect::kGir) return std::nullopt;
  static const std::vector<std::string> kKeywords = {
      "kernel", "builtin", "graph",  "orchestration", "In",    "Out",      "InOut", "i64",
      "tensor", "i32",     "return", "for",           "in",    "range",    "if",    "else",
      "call",   "submit",  "create", "full",          "slice", "assemble", "dim",   "read"};
  struct Site {
    size_t line, tok;
  };
  std::vector<Site> at;
  for (size_t i = 0; i < t.lines.size(); ++i) {
    const auto k = t.toks(i);
    if (is_word(k, 0, "for") && k.size() > 1 && k[1].kind == Tok::kWord) at.push_back({i, 1});
    if (!(is_word(k, 0, "kernel") || is_word(k, 0, "graph") || is_word(k, 0, "orchestration"))) continue;
    if (k.size() > 1 && k[1].kind == Tok::kWord) at.push_back({i, 1});
    for (size_t j = 3; j + 1 < k.size(); ++j)  // `(` or `,`, a name, `:`
      if ((is_punct(k, j - 1, "(") || is_punct(k, j - 1, ",")) && k[j].kind == Tok::kWord && is_punct(k, j + 1, ":"))
        at.push_back({i, j});
  }
  if (at.empty()) return std::nullopt;
  const Site s = c.pick(at);
  const Tok x = t.toks(s.line)[s.tok];
  const std::string kw = c.pick(kKeywords);
  t.lines[s.line].replace(x.col - 1, x.text.size(), kw);
  return made(t, Corruption::kKeywordName, fmt::format("'{}' of line {} made the keyword '{}'", x.text, s.line + 1, kw),
              parse_error(d, s.line, x.col, fmt::format("'{}' is a keyword, not a name", kw)));
}

}  // namespace stackcheck::gen::near_miss_detail
