// Near-miss texts (near_miss.h). Each corruption works on the canonical lines of a valid text
// and states its expected rejection from the grammars of COMPILER.md §1 and RUNTIME.md §17:
// what the parser must find at the first place the text stops fitting them.
#include "properties/gen/near_miss.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <optional>
#include <set>
#include <vector>

namespace stackcheck::gen {
namespace {

using oracles::ExpectedRejection;
using oracles::FrontEnd;

enum class Dialect : uint8_t { kGir, kPlan };

// ---------------------------------------------------------------- lines and tokens

struct Tok {
  enum Kind : uint8_t { kWord, kInt, kPunct } kind;
  std::string text;
  uint32_t col;  // 1-based
};

bool alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool digit(char c) { return c >= '0' && c <= '9'; }

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

bool has_comment(const std::string& s) { return s.find('#') != std::string::npos; }

// How both parsers name a token in "expected X, found Y".
std::string describe(const Tok& t) { return t.kind == Tok::kInt ? "integer " + t.text : "'" + t.text + "'"; }

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

bool is_word(const std::vector<Tok>& t, size_t i, std::string_view w) {
  return i < t.size() && t[i].kind == Tok::kWord && t[i].text == w;
}
bool is_punct(const std::vector<Tok>& t, size_t i, std::string_view p) {
  return i < t.size() && t[i].kind == Tok::kPunct && t[i].text == p;
}

// ---------------------------------------------------------------- brace structure

// Walks the lines as both parsers nest blocks: `X ... {` opens (a function, for, if), `}`
// closes, `} else {` closes a then-block and opens its else. The first line that no longer
// fits, or the end of input inside a block, is where the parser stops.
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

// ---------------------------------------------------------------- corruptions

using Attempt = std::optional<NearMiss>;

NearMiss made(const Text& t, Corruption c, std::string what, ExpectedRejection e, const std::string& eol = "\n") {
  return NearMiss{t.str(eol), c, std::move(what), std::move(e)};
}

// Indices of lines with tokens satisfying `pred`.
std::vector<size_t> lines_where(const Text& t, const std::function<bool(size_t, const std::vector<Tok>&)>& pred) {
  std::vector<size_t> v;
  for (size_t i = 0; i < t.lines.size(); ++i) {
    const auto k = t.toks(i);
    if (!k.empty() && pred(i, k)) v.push_back(i);
  }
  return v;
}

// The next line holding a token after line i.
std::optional<size_t> next_token_line(const Text& t, size_t i) {
  for (size_t j = i + 1; j < t.lines.size(); ++j)
    if (!t.toks(j).empty()) return j;
  return std::nullopt;
}

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

// ---- names bound twice ----

struct Site {
  size_t line, tok;
  uint32_t col;                      // where the binding is reported
  std::vector<std::string> earlier;  // names bound before it in the same body
};

// `.gir`: assignments, with the params, assignments and loop variables before them in their
// function. WellFormed reports code 2 at the second definition.
std::vector<Site> gir_binding_sites(const Text& t) {
  std::vector<Site> sites;
  std::vector<std::string> names;
  for (size_t i = 0; i < t.lines.size(); ++i) {
    const auto k = t.toks(i);
    if (k.empty()) continue;
    if (k.front().col == 1 && (is_word(k, 0, "graph") || is_word(k, 0, "orchestration") || is_word(k, 0, "kernel"))) {
      names.clear();
      for (size_t j = 0; j + 2 < k.size(); ++j)
        if (k[j].kind == Tok::kWord && is_punct(k, j + 1, ":") &&
            (is_word(k, j + 2, "In") || is_word(k, j + 2, "Out") || is_word(k, j + 2, "InOut")))
          names.push_back(k[j].text);
      if (is_word(k, 0, "kernel")) names.clear();
      continue;
    }
    if (k.size() >= 2 && k[0].kind == Tok::kWord && is_punct(k, 1, "=")) {
      if (!names.empty()) sites.push_back(Site{i, 0, k[0].col, names});
      names.push_back(k[0].text);
    } else if (is_word(k, 0, "for") && k.size() > 1) {
      names.push_back(k[1].text);
    }
  }
  return sites;
}

// `.plan`: set, view, read, for, alloc buffers and `output` names, with the entry tensors or
// graph params and the names bound before them in their body (RUNTIME.md §17: once per body).
std::vector<Site> plan_binding_sites(const Text& t) {
  std::vector<Site> sites;
  std::vector<std::string> root, graph;
  bool in_graph = false;
  auto bind = [&](size_t i, size_t tok, uint32_t col, const std::string& name) {
    std::vector<std::string>& names = in_graph ? graph : root;
    if (!names.empty()) sites.push_back(Site{i, tok, col, names});
    names.push_back(name);
  };
  for (size_t i = 0; i < t.lines.size(); ++i) {
    const auto k = t.toks(i);
    if (k.empty()) continue;
    if (is_word(k, 0, "tensor") && k.size() > 1) {
      root.push_back(k[1].text);
      continue;
    }
    if (is_word(k, 0, "graph")) {
      in_graph = true;
      graph.clear();
      for (size_t j = 3; j < k.size(); ++j)
        if (k[j].kind == Tok::kWord) graph.push_back(k[j].text);
      continue;
    }
    if (in_graph && k.size() == 1 && is_punct(k, 0, "}") && k[0].col == 1) {
      in_graph = false;
      continue;
    }
    if ((is_word(k, 0, "set") || is_word(k, 0, "view") || is_word(k, 0, "read") || is_word(k, 0, "for")) &&
        k.size() > 1)
      bind(i, 1, k[0].col, k[1].text);
    if (is_word(k, 0, "alloc"))
      for (size_t j = 1; j + 1 < k.size(); ++j)
        if (k[j].kind == Tok::kWord && is_punct(k, j + 1, ":")) bind(i, j, k[0].col, k[j].text);
    if (is_word(k, 0, "submit") || is_word(k, 0, "submit_graph"))
      for (size_t j = 2; j + 1 < k.size(); ++j)
        if (is_word(k, j, "output") && k[j + 1].kind == Tok::kWord) bind(i, j + 1, k[j].col, k[j + 1].text);
  }
  return sites;
}

Attempt name_twice(ChoiceSource& c, Dialect d, Text t) {
  const std::vector<Site> sites = d == Dialect::kGir ? gir_binding_sites(t) : plan_binding_sites(t);
  if (sites.empty()) return std::nullopt;
  const Site& s = c.pick(sites);
  const Tok x = t.toks(s.line)[s.tok];
  std::vector<std::string> others;
  for (const std::string& n : s.earlier)
    if (n != x.text) others.push_back(n);
  if (others.empty()) return std::nullopt;
  const std::string y = c.pick(others);
  t.lines[s.line].replace(x.col - 1, x.text.size(), y);
  const std::string what = fmt::format("'{}' of line {} renamed to the earlier '{}'", x.text, s.line + 1, y);
  if (d == Dialect::kGir) return made(t, Corruption::kNameTwice, what, well_formed(s.line, s.col, 2));
  return made(t, Corruption::kNameTwice, what,
              plan_check(s.line, s.col, fmt::format("name '{}' bound twice in one body", y)));
}

// `.gir`: an assignment and the statement after it, which uses its name once, swapped.
// WellFormed reports code 3 where that use sits: the name itself in an expression or call
// argument, the `dim` / `read` keyword for theirs, the statement for a slice or assemble
// operand or a tuple element `r.k`.
Attempt use_before_definition(ChoiceSource& c, Dialect d, Text t) {
  if (d != Dialect::kGir) return std::nullopt;
  std::vector<std::pair<size_t, uint32_t>> at;  // (line of the assignment, column of the use after the swap)
  auto simple = [&](size_t i, const std::vector<Tok>& k) {
    for (const Tok& x : k)
      if (x.text == "{" || x.text == "}") return false;
    return !k.empty() && !is_word(k, 0, "return") && t.lines[i][0] == ' ';
  };
  for (size_t i = 0; i + 1 < t.lines.size(); ++i) {
    const auto a = t.toks(i), b = t.toks(i + 1);
    if (!simple(i, a) || !simple(i + 1, b) || indent_of(t.lines[i]) != indent_of(t.lines[i + 1])) continue;
    if (a.size() < 2 || a[0].kind != Tok::kWord || !is_punct(a, 1, "=")) continue;
    const std::string& name = a[0].text;
    std::vector<size_t> uses;
    for (size_t j = 0; j < b.size(); ++j)
      if (b[j].kind == Tok::kWord && b[j].text == name) uses.push_back(j);
    if (uses.size() != 1 || uses[0] == 0) continue;
    const size_t j = uses[0];
    if (j >= 1 && (is_word(b, j - 1, "call") || is_word(b, j - 1, "submit"))) continue;  // a callee, not a use
    uint32_t col = b[j].col;
    const bool in_call = j >= 2 && is_punct(b, j - 1, "(");
    if (in_call && (is_word(b, j - 2, "dim") || is_word(b, j - 2, "read"))) col = b[j - 2].col;
    const bool assemble =
        (in_call && is_word(b, j - 2, "assemble")) ||
        (j >= 4 && is_word(b, j - 4, "assemble") && is_punct(b, j - 3, "(") && is_punct(b, j - 1, ","));
    if ((in_call && is_word(b, j - 2, "slice")) || assemble || is_punct(b, j + 1, ".")) col = b[0].col;
    at.push_back({i, col});
  }
  if (at.empty()) return std::nullopt;
  const auto [i, col] = c.pick(at);
  std::swap(t.lines[i], t.lines[i + 1]);
  return made(t, Corruption::kUseBeforeDefinition, fmt::format("lines {} and {} swapped", i + 1, i + 2),
              well_formed(i, col, 3));
}

// ---- callees and builtins ----

// (line, token) of each `call F(` / `submit F(` (gir) or `submit_graph G(` (plan).
std::vector<std::pair<size_t, size_t>> invokes(const Text& t, Dialect d) {
  std::vector<std::pair<size_t, size_t>> at;
  for (size_t i = 0; i < t.lines.size(); ++i) {
    const auto k = t.toks(i);
    for (size_t j = 0; j + 2 < k.size(); ++j) {
      const bool kw =
          d == Dialect::kGir ? is_word(k, j, "call") || is_word(k, j, "submit") : is_word(k, j, "submit_graph");
      if (kw && k[j + 1].kind == Tok::kWord && is_punct(k, j + 2, "(")) at.push_back({i, j});
    }
  }
  return at;
}

Attempt unknown_callee(ChoiceSource& c, Dialect d, Text t) {
  const auto at = invokes(t, d);
  if (at.empty()) return std::nullopt;
  const auto [i, j] = c.pick(at);
  const auto k = t.toks(i);
  const std::string name = "nosuch_" + k[j + 1].text;
  t.lines[i].replace(k[j + 1].col - 1, k[j + 1].text.size(), name);
  const std::string what = fmt::format("callee '{}' of line {} renamed '{}'", k[j + 1].text, i + 1, name);
  if (d == Dialect::kGir) return made(t, Corruption::kUnknownCallee, what, well_formed(i, k[j].col, 4));
  return made(t, Corruption::kUnknownCallee, what, plan_check(i, k[j].col, fmt::format("undefined graph '{}'", name)));
}

Attempt unknown_builtin(ChoiceSource& c, Dialect d, Text t) {
  static const std::vector<std::pair<std::string, std::string>> kTypos = {
      {"fill", "fil"},   {"copy", "cpy"},       {"add", "addd"},      {"acc", "accum"},
      {"scale", "scal"}, {"matmul", "mat_mul"}, {"rowsum", "row_sum"}};
  std::vector<std::pair<size_t, size_t>> at;  // (line, token of the builtin name)
  for (size_t i = 0; i < t.lines.size(); ++i) {
    const auto k = t.toks(i);
    if (d == Dialect::kGir && is_word(k, 0, "kernel") && k.size() >= 2 && is_word(k, k.size() - 2, "builtin"))
      at.push_back({i, k.size() - 1});
    if (d == Dialect::kPlan)
      for (size_t j = 0; j + 1 < k.size(); ++j)
        if (is_word(k, j, "submit") && k[j + 1].kind == Tok::kWord) at.push_back({i, j + 1});
  }
  if (at.empty()) return std::nullopt;
  const auto [i, j] = c.pick(at);
  const Tok x = t.toks(i)[j];
  auto typo = std::find_if(kTypos.begin(), kTypos.end(), [&](const auto& p) { return p.first == x.text; });
  const std::string bad = typo != kTypos.end() ? typo->second : x.text + "_v2";
  t.lines[i].replace(x.col - 1, x.text.size(), bad);
  const std::string what = fmt::format("builtin '{}' of line {} misspelt '{}'", x.text, i + 1, bad);
  if (d == Dialect::kGir) return made(t, Corruption::kUnknownBuiltin, what, well_formed(i, 1, 4));
  return made(
      t, Corruption::kUnknownBuiltin, what,
      parse_error(d, i, x.col, fmt::format("unknown builtin '{}' (fill, copy, add, acc, scale, matmul, rowsum)", bad)));
}

// ---- missing arguments ----

// The arguments between the '(' at token p and its ')': [first, last] token ranges.
std::vector<std::pair<size_t, size_t>> arguments(const std::vector<Tok>& k, size_t p) {
  std::vector<std::pair<size_t, size_t>> args;
  int depth = 0;
  size_t first = p + 1;
  for (size_t j = p + 1; j < k.size(); ++j) {
    const bool open = is_punct(k, j, "(") || is_punct(k, j, "["), close = is_punct(k, j, ")") || is_punct(k, j, "]");
    if (depth == 0 && (close || is_punct(k, j, ","))) {
      if (j > first) args.push_back({first, j - 1});
      first = j + 1;
      if (close) break;
      continue;
    }
    depth += open ? 1 : close ? -1 : 0;
  }
  return args;
}

// `.gir`: one argument of a call left out (WellFormed 5 at the call). `.plan`: the operand of
// one tagged argument left out (the parser finds what follows where the operand should be).
Attempt missing_argument(ChoiceSource& c, Dialect d, Text t) {
  std::vector<std::pair<size_t, size_t>> at;
  for (size_t i = 0; i < t.lines.size(); ++i) {
    const auto k = t.toks(i);
    for (size_t j = 0; j + 2 < k.size(); ++j) {
      const bool kw = d == Dialect::kGir ? is_word(k, j, "call") || is_word(k, j, "submit")
                                         : is_word(k, j, "submit") || is_word(k, j, "submit_graph");
      if (kw && k[j + 1].kind == Tok::kWord && is_punct(k, j + 2, "(") && !arguments(k, j + 2).empty())
        at.push_back({i, j});
    }
  }
  if (at.empty()) return std::nullopt;
  const auto [i, j] = c.pick(at);
  const auto k = t.toks(i);
  const auto args = arguments(k, j + 2);
  const size_t m = c.one_of(args.size());
  const auto [first, last] = args[m];
  const auto end_of = [&](size_t tok) { return k[tok].col - 1 + k[tok].text.size(); };  // 0-based end
  std::string& line = t.lines[i];
  if (d == Dialect::kGir) {
    size_t from = k[first].col - 1, to = end_of(last);
    if (args.size() > 1 && m + 1 < args.size())
      to = k[args[m + 1].first].col - 1;
    else if (args.size() > 1)
      from = end_of(args[m - 1].second);
    line.erase(from, to - from);
    return made(t, Corruption::kMissingArgument,
                fmt::format("argument {} of the call on line {} left out", m + 1, i + 1), well_formed(i, k[j].col, 5));
  }
  const Tok& tag = k[first];
  if (last == first) return std::nullopt;  // a bare tag: nothing to leave out
  if (c.chance(35)) {
    // The tag left out: the operand stands where the tag was. A word there is a tag the
    // parser does not know; anything else is not a tag at all.
    const Tok& operand = k[first + 1];
    line.erase(tag.col - 1, operand.col - tag.col);
    const std::string msg =
        operand.kind == Tok::kWord
            ? "expected an argument tag (input, inout, output, output_existing, no_dep, scalar), found " + describe(operand)
            : "expected an argument tag, found " + describe(operand);
    return made(t, Corruption::kMissingArgument,
                fmt::format("the tag of argument {} ({}) on line {} left out", m + 1, tag.text, i + 1),
                parse_error(d, i, tag.col, msg));
  }
  size_t from = k[first + 1].col - 1, to = end_of(first + 1);
  std::string msg;
  if (tag.text == "scalar") {
    to = last + 1 < k.size() ? k[last + 1].col - 1 : end_of(last);
    msg = "expected an expression, found " + describe(k[last + 1]);
  } else if (tag.text == "output") {
    msg = "expected a name, found " + describe(k[first + 2]);
  } else {
    msg = "expected a tensor name, found " + describe(k[first + 2]);
  }
  line.erase(from, to - from);
  return made(t, Corruption::kMissingArgument,
              fmt::format("the operand of argument {} ({}) on line {} left out", m + 1, tag.text, i + 1),
              parse_error(d, i, k[first + 1].col, msg));
}

// ---- plan only ----

Attempt config_key(ChoiceSource& c, Dialect, Text t) {
  static const std::vector<std::string> kUnknown = {"w",         "window",      "task_heap_bytes", "graph_heaps",
                                                    "tensormap", "scope_tasks", "worker",          "timeout_ms",
                                                    "cluster",   "fill"};
  std::optional<size_t> cfg;
  for (size_t i = 0; i < t.lines.size() && !cfg; ++i)
    if (is_word(t.toks(i), 0, "config")) cfg = i;
  const std::string bad = c.pick(kUnknown);
  if (!cfg) {
    t.lines.insert(t.lines.begin(), fmt::format("config {}=64", bad));
    return made(t, Corruption::kConfigKey, fmt::format("config line with key '{}' added", bad),
                plan_check(0, 8, fmt::format("unknown config key '{}'", bad)));
  }
  const auto k = t.toks(*cfg);
  std::vector<size_t> keys;
  for (size_t j = 1; j + 1 < k.size(); ++j)
    if (k[j].kind == Tok::kWord && is_punct(k, j + 1, "=")) keys.push_back(j);
  if (keys.empty()) return std::nullopt;
  const Tok& key = k[c.pick(keys)];
  if (c.boolean()) {
    const auto col = static_cast<uint32_t>(t.lines[*cfg].size() + 2);
    t.lines[*cfg] += fmt::format(" {}=1", key.text);
    return made(t, Corruption::kConfigKey, fmt::format("config key '{}' repeated", key.text),
                plan_check(*cfg, col, fmt::format("config key '{}' repeated", key.text)));
  }
  t.lines[*cfg].replace(key.col - 1, key.text.size(), bad);
  return made(t, Corruption::kConfigKey, fmt::format("config key '{}' misspelt '{}'", key.text, bad),
              plan_check(*cfg, key.col, fmt::format("unknown config key '{}'", bad)));
}

Attempt mutate_range(ChoiceSource& c, Dialect, Text t) {
  const std::string value = std::to_string(c.integer(256, 70000));
  const std::string msg = "mutate value is not in 0..255";
  const auto lines = lines_where(t, [](size_t, const std::vector<Tok>& k) { return is_word(k, 0, "mutate"); });
  if (!lines.empty() && c.boolean()) {
    const size_t i = c.pick(lines);
    const Tok v = t.toks(i).back();
    t.lines[i].replace(v.col - 1, v.text.size(), value);
    return made(t, Corruption::kMutateRange, fmt::format("mutate value {} of line {} became {}", v.text, i + 1, value),
                parse_error(Dialect::kPlan, i, v.col, msg));
  }
  const std::string head = fmt::format("mutate {}{} ", c.boolean() ? "header " : "", c.integer(0, 200));
  t.lines.push_back(head + value);
  t.trailing_newline = true;
  return made(t, Corruption::kMutateRange, fmt::format("`{}{}` appended", head, value),
              parse_error(Dialect::kPlan, t.lines.size() - 1, static_cast<uint32_t>(head.size() + 1), msg));
}

Attempt tensor_after_statement(ChoiceSource& c, Dialect, Text t) {
  if (c.chance(40)) {  // or a config line after the entry tensors, before the first graph or statement
    std::optional<size_t> after_tensors;
    for (size_t i = 0; i < t.lines.size(); ++i) {
      const auto k = t.toks(i);
      if (k.empty() || is_word(k, 0, "config") || is_word(k, 0, "tensor")) continue;
      if (!is_word(k, 0, "mutate")) after_tensors = i;
      break;
    }
    if (after_tensors) {
      t.lines.insert(t.lines.begin() + static_cast<std::ptrdiff_t>(*after_tensors), "config W=64");
      return made(t, Corruption::kTensorAfterStatement,
                  fmt::format("a config line put before line {}", *after_tensors + 1),
                  parse_error(Dialect::kPlan, *after_tensors, 1, "config must be the first line"));
    }
  }
  std::optional<size_t> tensor, last;  // the last entry tensor line, the last line before any mutate
  for (size_t i = 0; i < t.lines.size(); ++i) {
    const auto k = t.toks(i);
    if (k.empty()) continue;
    if (is_word(k, 0, "mutate")) break;
    if (is_word(k, 0, "tensor"))
      tensor = i;
    else if (!is_word(k, 0, "config"))
      last = i;
  }
  if (!tensor || !last || *last < *tensor) return std::nullopt;
  const std::string moved = t.lines[*tensor];
  t.lines.erase(t.lines.begin() + static_cast<std::ptrdiff_t>(*tensor));
  t.lines.insert(t.lines.begin() + static_cast<std::ptrdiff_t>(*last), moved);  // after `last`, which moved up one
  return made(t, Corruption::kTensorAfterStatement,
              fmt::format("entry tensor line {} moved after line {}", *tensor + 1, *last + 1),
              parse_error(Dialect::kPlan, *last, 1, "entry tensors must come before graphs and statements"));
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

Attempt graph_after_use(ChoiceSource& c, Dialect, Text t) { return near_miss_detail::graph_after_use(c, t.str()); }
Attempt config_value(ChoiceSource& c, Dialect, Text t) { return near_miss_detail::config_value(c, t.str()); }

NearMiss near_miss(ChoiceSource& c, Dialect d, std::string_view valid) {
  const Text t = Text::of(valid);
  using Fn = Attempt (*)(ChoiceSource&, Dialect, Text);
  std::vector<Fn> kinds = {join_lines,    split_statement, drop_brace,      extra_brace,      name_twice,
                           literal_range, unknown_callee,  unknown_builtin, missing_argument, carriage_return};
  if (d == Dialect::kGir) kinds.push_back(use_before_definition);
  if (d == Dialect::kPlan)
    kinds.insert(kinds.end(), {config_key, mutate_range, tensor_after_statement, graph_after_use, config_value});
  kinds.push_back(stray_token);
  kinds.push_back(wrong_word);
  // One choice in kinds + 1 cuts the input off (the others' fallback order stays as it was).
  const size_t pick = c.one_of(kinds.size() + 1);
  if (pick == kinds.size())
    if (Attempt a = truncated(c, d, t)) return std::move(*a);
  const size_t start = pick % kinds.size();
  for (size_t n = 0; n < kinds.size(); ++n)
    if (Attempt a = kinds[(start + n) % kinds.size()](c, d, t)) return std::move(*a);
  return *extra_brace(c, d, t);  // always applies: one '}' too many never parses
}

}  // namespace

const char* corruption_name(Corruption c) {
  switch (c) {
    case Corruption::kJoinLines: return "joined lines";
    case Corruption::kSplitStatement: return "statement split";
    case Corruption::kDropBrace: return "dropped brace";
    case Corruption::kExtraBrace: return "extra brace";
    case Corruption::kNameTwice: return "name bound twice";
    case Corruption::kUseBeforeDefinition: return "statements swapped";
    case Corruption::kLiteralRange: return "literal out of range";
    case Corruption::kUnknownCallee: return "unknown callee or graph";
    case Corruption::kUnknownBuiltin: return "unknown builtin";
    case Corruption::kMissingArgument: return "missing argument";
    case Corruption::kCarriageReturn: return "CRLF line endings";
    case Corruption::kConfigKey: return "unknown or repeated config key";
    case Corruption::kMutateRange: return "mutate value past 255";
    case Corruption::kTensorAfterStatement: return "entry tensor after statements";
    case Corruption::kGraphAfterUse: return "graph defined below its use";
    case Corruption::kConfigValue: return "config value out of range";
    case Corruption::kTruncated: return "input cut off";
    case Corruption::kStrayToken: return "stray token";
    case Corruption::kWrongWord: return "wrong word";
    case Corruption::kCount: break;
  }
  return "?";
}

std::optional<NearMiss> near_miss_of(ChoiceSource& c, Dialect d, std::string_view valid, Corruption kind) {
  using Fn = Attempt (*)(ChoiceSource&, Dialect, Text);
  Fn f = nullptr;
  switch (kind) {
    case Corruption::kJoinLines: f = join_lines; break;
    case Corruption::kSplitStatement: f = split_statement; break;
    case Corruption::kDropBrace: f = drop_brace; break;
    case Corruption::kExtraBrace: f = extra_brace; break;
    case Corruption::kNameTwice: f = name_twice; break;
    case Corruption::kUseBeforeDefinition: f = d == Dialect::kGir ? use_before_definition : nullptr; break;
    case Corruption::kLiteralRange: f = literal_range; break;
    case Corruption::kUnknownCallee: f = unknown_callee; break;
    case Corruption::kUnknownBuiltin: f = unknown_builtin; break;
    case Corruption::kMissingArgument: f = missing_argument; break;
    case Corruption::kCarriageReturn: f = carriage_return; break;
    case Corruption::kConfigKey: f = d == Dialect::kPlan ? config_key : nullptr; break;
    case Corruption::kMutateRange: f = d == Dialect::kPlan ? mutate_range : nullptr; break;
    case Corruption::kTensorAfterStatement: f = d == Dialect::kPlan ? tensor_after_statement : nullptr; break;
    case Corruption::kGraphAfterUse: f = d == Dialect::kPlan ? graph_after_use : nullptr; break;
    case Corruption::kConfigValue: f = d == Dialect::kPlan ? config_value : nullptr; break;
    case Corruption::kTruncated: f = truncated; break;
    case Corruption::kStrayToken: f = stray_token; break;
    case Corruption::kWrongWord: f = wrong_word; break;
    case Corruption::kCount: break;
  }
  if (f == nullptr) return std::nullopt;
  return f(c, d, Text::of(valid));
}

NearMiss near_miss_gir(ChoiceSource& c, std::string_view valid) { return near_miss(c, Dialect::kGir, valid); }
NearMiss near_miss_plan(ChoiceSource& c, std::string_view valid) { return near_miss(c, Dialect::kPlan, valid); }

std::optional<NearMiss> near_miss_of_kind(ChoiceSource& c, bool gir, std::string_view valid, Corruption kind) {
  return near_miss_of(c, gir ? Dialect::kGir : Dialect::kPlan, valid, kind);
}

size_t stray_punct_count(bool gir) { return stray_punct(gir ? Dialect::kGir : Dialect::kPlan).size(); }
std::optional<NearMiss> stray_punct_near_miss(ChoiceSource& c, bool gir, std::string_view valid, size_t punct) {
  const Dialect d = gir ? Dialect::kGir : Dialect::kPlan;
  if (punct >= stray_punct(d).size()) return std::nullopt;
  return stray_token_of(c, d, Text::of(valid), punct);
}

}  // namespace stackcheck::gen
