#include "stack/ir/lexer.h"

#include <algorithm>
#include <array>
#include <span>
#include <utility>

#include <fmt/format.h>

namespace stackcheck::ir {

namespace {
// What a byte starts: the lexer dispatches on one table load per token and scans names and
// numbers by table, not by chains of comparisons (each of which costs a coverage hook in the
// fuzz builds).
enum class Class : uint8_t { Invalid, Blank, Newline, Comment, Name, Digit, Single, Double, Bang, CR };

struct Tables {
  std::array<Class, 256> cls{};
  std::array<bool, 256> name_char{};  // letters, digits, '_'
  std::array<Tok, 256> single{};      // the one-character tokens
};

constexpr Tables make_tables() {
  Tables t;
  for (int c = 'a'; c <= 'z'; ++c) t.cls[c] = t.cls[c - 'a' + 'A'] = Class::Name;
  t.cls['_'] = Class::Name;
  for (int c = '0'; c <= '9'; ++c) t.cls[c] = Class::Digit;
  for (int c = 0; c < 256; ++c) t.name_char[c] = t.cls[c] == Class::Name || t.cls[c] == Class::Digit;
  t.cls[' '] = t.cls['\t'] = Class::Blank;
  t.cls['\n'] = Class::Newline;
  t.cls['#'] = Class::Comment;
  t.cls['\r'] = Class::CR;
  t.cls['!'] = Class::Bang;
  for (unsigned char c : {'-', '=', '<', '>'}) t.cls[c] = Class::Double;
  const std::pair<unsigned char, Tok> singles[] = {
      {'(', Tok::LParen}, {')', Tok::RParen}, {'[', Tok::LBracket}, {']', Tok::RBracket}, {'{', Tok::LBrace},
      {'}', Tok::RBrace}, {',', Tok::Comma},  {':', Tok::Colon},    {'.', Tok::Dot},      {'+', Tok::Plus},
      {'*', Tok::Star},   {'/', Tok::Slash},  {'%', Tok::Percent},
  };
  for (const auto& [c, tok] : singles) {
    t.cls[c] = Class::Single;
    t.single[c] = tok;
  }
  return t;
}
constexpr Tables kTables = make_tables();

// The keywords by length (COMPILER.md §1): a name is compared with the few of its own length.
constexpr std::string_view kKeywords2[] = {"In", "in", "if"};
constexpr std::string_view kKeywords3[] = {"Out", "i64", "i32", "for", "dim"};
constexpr std::string_view kKeywords4[] = {"else", "call", "full", "read"};
constexpr std::string_view kKeywords5[] = {"graph", "InOut", "range", "slice"};
constexpr std::string_view kKeywords6[] = {"kernel", "tensor", "return", "submit", "create"};
constexpr std::string_view kKeywords7[] = {"builtin"};
constexpr std::string_view kKeywords8[] = {"assemble"};
constexpr std::string_view kKeywords13[] = {"orchestration"};

bool one_of(std::span<const std::string_view> words, std::string_view w) {
  for (std::string_view k : words)
    if (k == w) return true;
  return false;
}
}  // namespace

bool is_keyword(std::string_view word) {
  switch (word.size()) {
    case 2: return one_of(kKeywords2, word);
    case 3: return one_of(kKeywords3, word);
    case 4: return one_of(kKeywords4, word);
    case 5: return one_of(kKeywords5, word);
    case 6: return one_of(kKeywords6, word);
    case 7: return one_of(kKeywords7, word);
    case 8: return one_of(kKeywords8, word);
    case 13: return one_of(kKeywords13, word);
    default: return false;
  }
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
  // `c`, or `c` and `second` when `next` is that: Minus or Arrow, Lt or Le, ...
  auto push_one_or_two = [&](unsigned char next, unsigned char second, Tok two, Tok one) {
    const bool both = next == second;
    push(both ? two : one, both ? 2 : 1);
  };
  auto fail = [&](std::string msg) {
    error = LexError{line, col, std::move(msg)};
    return false;
  };
  const size_t size = text.size();
  while (i < size) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    switch (kTables.cls[c]) {
      case Class::Blank:
        ++i;
        ++col;
        continue;
      case Class::Newline:
        if (line_has_token) out.push_back(Token{Tok::NL, line, col, text.substr(i, 1), 0});
        line_has_token = false;
        ++i;
        ++line;
        col = 1;
        continue;
      case Class::Comment: {  // runs to the NL; a CR in it is still a CR (CRLF files are rejected)
        const size_t nl = std::min(text.find('\n', i), size);
        const size_t cr = text.substr(i, nl - i).find('\r');
        if (cr != std::string_view::npos) {
          col += static_cast<uint32_t>(cr);
          return fail("carriage return (CR) is not allowed; use LF line endings");
        }
        col += static_cast<uint32_t>(nl - i);
        i = nl;
        continue;
      }
      case Class::Name: {
        size_t n = 1;
        while (i + n < size && kTables.name_char[static_cast<unsigned char>(text[i + n])]) ++n;
        push(Tok::Ident, n);
        continue;
      }
      case Class::Digit: {
        size_t n = 0;
        uint64_t v = 0;
        bool too_big = false;
        while (i + n < size && kTables.cls[static_cast<unsigned char>(text[i + n])] == Class::Digit) {
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
      case Class::Single: push(kTables.single[c], 1); continue;
      case Class::Double: {
        const unsigned char next = i + 1 < size ? static_cast<unsigned char>(text[i + 1]) : 0;
        if (c == '-') push_one_or_two(next, '>', Tok::Arrow, Tok::Minus);
        else if (c == '=') push_one_or_two(next, '=', Tok::EqEq, Tok::Assign);
        else if (c == '<') push_one_or_two(next, '=', Tok::Le, Tok::Lt);
        else push_one_or_two(next, '=', Tok::Ge, Tok::Gt);
        continue;
      }
      case Class::Bang:
        if (i + 1 < size && text[i + 1] == '=') {
          push(Tok::NotEq, 2);
          continue;
        }
        return fail("unexpected '!' (did you mean '!='?)");
      case Class::CR: return fail("carriage return (CR) is not allowed; use LF line endings");
      case Class::Invalid: break;
    }
    if (c >= 0x21 && c < 0x7f) return fail(fmt::format("unexpected character '{}'", static_cast<char>(c)));
    return fail(fmt::format("unexpected byte 0x{:02x}", c));
  }
  if (line_has_token) out.push_back(Token{Tok::NL, line, col, std::string_view{}, 0});
  out.push_back(Token{Tok::End, line, col, std::string_view{}, 0});
  return true;
}

}  // namespace stackcheck::ir
