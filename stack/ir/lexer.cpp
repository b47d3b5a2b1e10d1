#include "stack/ir/lexer.h"

#include <algorithm>
#include <array>
#include <iterator>
#include <utility>

#include <fmt/format.h>

namespace stackcheck::ir {

namespace {
constexpr std::array<std::string_view, 24> kKeywords = {
    "kernel", "builtin", "graph",  "orchestration", "In",    "Out",      "InOut", "i64",
    "tensor", "i32",     "return", "for",           "in",    "range",    "if",    "else",
    "call",   "submit",  "create", "full",          "slice", "assemble", "dim",   "read"};

// The tokens of one character; the one-or-two-character operators are in the lexer's switch.
constexpr std::pair<unsigned char, Tok> kOneCharTokens[] = {
    {'(', Tok::LParen}, {')', Tok::RParen}, {'[', Tok::LBracket}, {']', Tok::RBracket}, {'{', Tok::LBrace},
    {'}', Tok::RBrace}, {',', Tok::Comma},  {':', Tok::Colon},    {'.', Tok::Dot},      {'+', Tok::Plus},
    {'*', Tok::Star},   {'/', Tok::Slash},  {'%', Tok::Percent},
};

bool is_id_start(unsigned char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; }
bool is_digit(unsigned char c) { return c >= '0' && c <= '9'; }
}  // namespace

bool is_keyword(std::string_view word) {
  for (auto k : kKeywords)
    if (k == word) return true;
  return false;
}

const char* tok_name(Tok t) {
  switch (t) {
    case Tok::Ident: return "identifier";
    case Tok::Int: return "integer";
    case Tok::NL: return "end of line";
    case Tok::End: return "end of input";
    case Tok::LParen: return "'('";
    case Tok::RParen: return "')'";
    case Tok::LBracket: return "'['";
    case Tok::RBracket: return "']'";
    case Tok::LBrace: return "'{'";
    case Tok::RBrace: return "'}'";
    case Tok::Comma: return "','";
    case Tok::Colon: return "':'";
    case Tok::Dot: return "'.'";
    case Tok::Assign: return "'='";
    case Tok::Arrow: return "'->'";
    case Tok::Plus: return "'+'";
    case Tok::Minus: return "'-'";
    case Tok::Star: return "'*'";
    case Tok::Slash: return "'/'";
    case Tok::Percent: return "'%'";
    case Tok::EqEq: return "'=='";
    case Tok::NotEq: return "'!='";
    case Tok::Lt: return "'<'";
    case Tok::Le: return "'<='";
    case Tok::Gt: return "'>'";
    case Tok::Ge: return "'>='";
  }
  return "?";
}

// long: the lexer's one dispatch over the first character; each case is two or three lines
bool lex(std::string_view text, std::vector<Token>& out, LexError& error) {
  // A printed program has a token every 3 to 4 bytes: one block for most, not a dozen regrowths.
  out.reserve(out.size() + text.size() / 3 + 16);
  uint32_t line = 1, col = 1;
  bool line_has_token = false;
  size_t i = 0;
  auto push = [&](Tok k, size_t len, uint64_t value = 0) {
    out.push_back(Token{k, line, col, text.substr(i, len), value});
    line_has_token = true;
    i += len;
    col += static_cast<uint32_t>(len);
  };
  // `c`, or `c` and `second` when the next character is that: Minus or Arrow, Lt or Le, ...
  auto push_one_or_two = [&](unsigned char second, Tok two, Tok one) {
    const bool both = i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) == second;
    push(both ? two : one, both ? 2 : 1);
  };
  auto fail = [&](std::string msg) {
    error = LexError{line, col, std::move(msg)};
    return false;
  };
  while (i < text.size()) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    const unsigned char next = i + 1 < text.size() ? static_cast<unsigned char>(text[i + 1]) : 0;
    if (c == ' ' || c == '\t') {
      ++i;
      ++col;
      continue;
    }
    if (c == '\n') {
      if (line_has_token) out.push_back(Token{Tok::NL, line, col, text.substr(i, 1), 0});
      line_has_token = false;
      ++i;
      ++line;
      col = 1;
      continue;
    }
    if (c == '#') {  // a comment runs to the NL; a CR in it is still a CR (CRLF files are rejected)
      while (i < text.size() && text[i] != '\n') {
        if (text[i] == '\r') return fail("carriage return (CR) is not allowed; use LF line endings");
        ++i;
        ++col;
      }
      continue;
    }
    if (is_id_start(c)) {
      size_t n = 1;
      while (i + n < text.size() && (is_id_start(static_cast<unsigned char>(text[i + n])) ||
                                     is_digit(static_cast<unsigned char>(text[i + n]))))
        ++n;
      push(Tok::Ident, n);
      continue;
    }
    if (is_digit(c)) {
      size_t n = 0;
      uint64_t v = 0;
      bool too_big = false;
      while (i + n < text.size() && is_digit(static_cast<unsigned char>(text[i + n]))) {
        const uint64_t d = static_cast<uint64_t>(text[i + n] - '0');
        if (v > (UINT64_MAX - d) / 10)
          too_big = true;
        else
          v = v * 10 + d;
        ++n;
      }
      if (too_big || v > (uint64_t{1} << 63))
        return fail(fmt::format("integer literal '{}' out of range", text.substr(i, n)));
      push(Tok::Int, n, v);
      continue;
    }
    if (const auto* one = std::find_if(std::begin(kOneCharTokens), std::end(kOneCharTokens),
                                       [c](const auto& t) { return t.first == c; });
        one != std::end(kOneCharTokens)) {
      push(one->second, 1);
      continue;
    }
    switch (c) {
      case '-': push_one_or_two('>', Tok::Arrow, Tok::Minus); continue;
      case '=': push_one_or_two('=', Tok::EqEq, Tok::Assign); continue;
      case '!':
        if (next == '=') {
          push(Tok::NotEq, 2);
          continue;
        }
        return fail("unexpected '!' (did you mean '!='?)");
      case '<': push_one_or_two('=', Tok::Le, Tok::Lt); continue;
      case '>': push_one_or_two('=', Tok::Ge, Tok::Gt); continue;
      case '\r': return fail("carriage return (CR) is not allowed; use LF line endings");
      default: break;
    }
    if (c >= 0x21 && c < 0x7f) return fail(fmt::format("unexpected character '{}'", static_cast<char>(c)));
    return fail(fmt::format("unexpected byte 0x{:02x}", c));
  }
  if (line_has_token) out.push_back(Token{Tok::NL, line, col, std::string_view{}, 0});
  out.push_back(Token{Tok::End, line, col, std::string_view{}, 0});
  return true;
}

}  // namespace stackcheck::ir
