// Lexer of the `.gir` format (COMPILER.md §1): turns bytes into tokens with 1-based
// line:column, emitting NL only for lines that hold a token, and NL at end of input when
// the last line holds one. Rejects any byte outside the grammar (CR included) and integer
// literals above 2^63 (2^63 itself is left to the parser: legal only after unary minus).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace stackcheck::ir {

enum class Tok : uint8_t {
  Ident,
  Int,
  NL,
  End,
  LParen,
  RParen,
  LBracket,
  RBracket,
  LBrace,
  RBrace,
  Comma,
  Colon,
  Dot,
  Assign,
  Arrow,
  Plus,
  Minus,
  Star,
  Slash,
  Percent,
  EqEq,
  NotEq,
  Lt,
  Le,
  Gt,
  Ge,
};

struct Token {
  Tok kind = Tok::End;
  uint32_t line = 0, column = 0;
  std::string_view text;  // view into the input
  uint64_t value = 0;     // Int only
};

struct LexError {
  uint32_t line = 0, column = 0;
  std::string message;
};

// Tokenizes all of `text`; on error returns false and fills `error`.
bool lex(std::string_view text, std::vector<Token>& out, LexError& error);

const char* tok_name(Tok t);
bool is_keyword(std::string_view word);

}  // namespace stackcheck::ir
