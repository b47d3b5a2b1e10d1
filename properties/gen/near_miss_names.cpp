// Near misses in names and calls (near_miss_text.h): a name bound twice in one body, a `.gir`
// name used before its definition, an unknown callee, graph or builtin, and an argument (or a
// `.plan` argument's operand or tag) left out.
#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "properties/gen/near_miss_text.h"

namespace stackcheck::gen::near_miss_detail {


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

}  // namespace stackcheck::gen::near_miss_detail
