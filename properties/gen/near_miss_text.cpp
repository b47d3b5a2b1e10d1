// The line and token model of the near-miss corruptions (near_miss_text.h): a line's tokens as
// both lexers split them, the brace structure both parsers walk, and the expected rejections.
#include "properties/gen/near_miss_text.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace stackcheck::gen::near_miss_detail {


// The tokens of one line, up to a comment.
std::vector<Tok> tokens(const std::string& s) {
  static const std::vector<std::string> kTwo = {"->", "==", "!=", "<=", ">="};
  std::vector<Tok> out;
  size_t i = 0;
  while (i < s.size()) {
    const char c = s[i];
    if (c == ' ' || c == '\t') {
      ++i;
      continue;
    }
    if (c == '#') break;
    size_t n = 1;
    Tok::Kind k = Tok::kPunct;
    if (alpha(c)) {
      k = Tok::kWord;
      while (i + n < s.size() && (alpha(s[i + n]) || digit(s[i + n]))) ++n;
    } else if (digit(c)) {
      k = Tok::kInt;
      while (i + n < s.size() && digit(s[i + n])) ++n;
    } else if (std::find(kTwo.begin(), kTwo.end(), s.substr(i, 2)) != kTwo.end()) {
      n = 2;
    }
    out.push_back(Tok{k, s.substr(i, n), static_cast<uint32_t>(i + 1)});
    i += n;
  }
  return out;
}

std::string indent_of(const std::string& s) {
  const size_t n = s.find_first_not_of(' ');
  return n == std::string::npos ? "" : s.substr(0, n);
}

ExpectedRejection parse_error(Dialect d, size_t line0, uint32_t col, std::string msg) {
  return ExpectedRejection{d == Dialect::kGir ? FrontEnd::kGirParser : FrontEnd::kPlanParser,
                           static_cast<uint32_t>(line0 + 1), col, std::move(msg), 0};
}
// A plan error of validate_plan (names, config keys, graphs), reached after a full parse.
ExpectedRejection plan_check(size_t line0, uint32_t col, std::string msg) {
  return ExpectedRejection{FrontEnd::kPlanCheck, static_cast<uint32_t>(line0 + 1), col, std::move(msg), 0};
}
ExpectedRejection well_formed(size_t line0, uint32_t col, int code) {
  return ExpectedRejection{FrontEnd::kWellFormed, static_cast<uint32_t>(line0 + 1), col, "", code};
}

std::optional<ExpectedRejection> brace_walk(Dialect d, const Text& t) {
  enum Open : uint8_t { kFunc, kFor, kThen, kElse };
  std::vector<Open> open;
  bool mutates = false;  // plan: past the first top-level mutate line
  for (size_t i = 0; i < t.lines.size(); ++i) {
    const std::vector<Tok> k = t.toks(i);
    if (k.empty()) continue;
    const Tok& f = k.front();
    const bool closes = is_punct(k, 0, "}");
    const bool opens = is_punct(k, k.size() - 1, "{");
    const bool close_else = closes && k.size() == 3 && is_word(k, 1, "else") && opens;
    if (open.empty()) {
      if (d == Dialect::kGir) {
        if (is_word(k, 0, "kernel")) continue;
        if ((is_word(k, 0, "graph") || is_word(k, 0, "orchestration")) && opens) {
          open.push_back(kFunc);
          continue;
        }
        return parse_error(d, i, f.col, "expected 'kernel', 'graph' or 'orchestration', found " + describe(f));
      }
      if (mutates && !is_word(k, 0, "mutate"))
        return parse_error(d, i, f.col, "expected 'mutate' after a mutate line, found " + describe(f));
      if (closes) return parse_error(d, i, f.col, "expected a statement, found '}'");
      if (is_word(k, 0, "mutate")) mutates = true;
      if (opens) open.push_back(is_word(k, 0, "graph") ? kFunc : is_word(k, 0, "for") ? kFor : kThen);
      continue;
    }
    if (closes) {
      const Open top = open.back();
      open.pop_back();
      if (close_else) {
        if (top != kThen) return parse_error(d, i, k[1].col, "expected end of line, found 'else'");
        open.push_back(kElse);
      }
      continue;
    }
    if (d == Dialect::kGir && (is_word(k, 0, "kernel") || is_word(k, 0, "graph") || is_word(k, 0, "orchestration")))
      return parse_error(d, i, f.col, "expected a statement, found " + describe(f));
    if (d == Dialect::kPlan) {
      if (is_word(k, 0, "graph")) {
        const bool in_graph = std::find(open.begin(), open.end(), kFunc) != open.end();
        return parse_error(
            d, i, f.col, in_graph ? "graphs cannot be defined inside a block" : "graphs are defined at top level only");
      }
      if (is_word(k, 0, "tensor") || is_word(k, 0, "config") || is_word(k, 0, "mutate"))
        return parse_error(d, i, f.col, "expected a statement, found " + describe(f));
    }
    if (opens) open.push_back(is_word(k, 0, "for") ? kFor : kThen);
  }
  if (open.empty()) return std::nullopt;
  const auto [line, col] = t.end();
  return parse_error(
      d, line - 1, col,
      d == Dialect::kGir ? "unterminated block: expected '}' before end of input" : "expected '}' before end of input");
}

NearMiss made(const Text& t, Corruption c, std::string what, ExpectedRejection e, const std::string& eol) {
  return NearMiss{t.str(eol), c, std::move(what), std::move(e)};
}

std::vector<size_t> lines_where(const Text& t, const std::function<bool(size_t, const std::vector<Tok>&)>& pred) {
  std::vector<size_t> v;
  for (size_t i = 0; i < t.lines.size(); ++i) {
    const auto k = t.toks(i);
    if (!k.empty() && pred(i, k)) v.push_back(i);
  }
  return v;
}

std::optional<size_t> next_token_line(const Text& t, size_t i) {
  for (size_t j = i + 1; j < t.lines.size(); ++j)
    if (!t.toks(j).empty()) return j;
  return std::nullopt;
}

}  // namespace stackcheck::gen::near_miss_detail
