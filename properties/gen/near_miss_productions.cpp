// near_miss_productions and its universe (limits.h). How the near-miss text differs from the
// valid one is read from the two texts (line endings, bytes, lines, braces, a cut, where the
// first difference stands); which corruption it is and which front end must reject it come
// from the generator's own record (NearMiss::corruption, NearMiss::expected): telling the
// nineteen corruptions apart from the text alone would be a second copy of the generator.
#include <fmt/format.h>

#include <algorithm>

#include "properties/gen/limits.h"
#include "properties/gen/near_miss.h"

namespace stackcheck::gen {

namespace {

// The plan-only corruptions (near_miss.cpp's table), and the one that is `.gir`'s alone.
constexpr Corruption kPlanOnly[] = {Corruption::kConfigKey, Corruption::kMutateRange,
                                    Corruption::kTensorAfterStatement, Corruption::kGraphAfterUse,
                                    Corruption::kConfigValue};

std::string slug(Corruption c) {
  std::string s = corruption_name(c);
  std::replace(s.begin(), s.end(), ' ', '-');
  return s;
}

const char* stage_name(oracles::FrontEnd f) {
  switch (f) {
    case oracles::FrontEnd::kGirParser: return "gir-parser";
    case oracles::FrontEnd::kWellFormed: return "WellFormed";
    case oracles::FrontEnd::kPlanParser: return "plan-parser";
    case oracles::FrontEnd::kPlanCheck: return "plan-check";
  }
  return "?";
}

// Lines without their end (a CR before the LF dropped too).
std::vector<std::string> lines_of(std::string_view t) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : t) {
    if (c == '\n') {
      if (!cur.empty() && cur.back() == '\r') cur.pop_back();
      out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

// Where the first line that differs stands in the valid text: its first line, inside a
// block (a brace open before it), or at the top level.
std::string first_difference(const std::vector<std::string>& valid, const std::vector<std::string>& text) {
  size_t i = 0;
  while (i < valid.size() && i < text.size() && valid[i] == text[i]) ++i;
  if (i == 0) return "first-line";
  int64_t depth = 0;
  for (size_t k = 0; k < i && k < valid.size(); ++k)
    depth += std::count(valid[k].begin(), valid[k].end(), '{') - std::count(valid[k].begin(), valid[k].end(), '}');
  return depth > 0 ? "in-a-block" : "top-level";
}

std::set<std::string> text_shape(std::string_view valid, std::string_view text) {
  std::set<std::string> out;
  if (text == valid) out.insert("unchanged");
  if (text.empty()) out.insert("empty");
  if (text.find("\r\n") != std::string_view::npos && valid.find("\r\n") == std::string_view::npos) out.insert("crlf");
  // Bytes the valid text holds fewer of (a comment of a corpus plan may hold UTF-8).
  const auto bytes = [](std::string_view s, auto pred) { return std::count_if(s.begin(), s.end(), pred); };
  const auto high = [](unsigned char c) { return c >= 0x80; };
  const auto control = [](unsigned char c) { return (c < 0x20 && c != '\n' && c != '\r' && c != '\t') || c == 0x7f; };
  if (bytes(text, high) > bytes(valid, high)) out.insert("non-ascii-byte");
  if (bytes(text, control) > bytes(valid, control)) out.insert("control-byte");
  // A cut: the text a prefix of the valid one, ending inside a line (its last lines dropped,
  // a trailing '}' among them, would end with its newline).
  if (!text.empty() && text.back() != '\n' && text.size() < valid.size() && valid.substr(0, text.size()) == text) {
    out.insert(valid[text.size()] == '\n' ? "cut-at-a-line-end" : "cut-mid-line");
    const auto opens = std::count(text.begin(), text.end(), '{'), closes = std::count(text.begin(), text.end(), '}');
    if (opens == closes) out.insert("cut-at-top-level");
  }
  const std::vector<std::string> v = lines_of(valid), t = lines_of(text);
  out.insert(t.size() < v.size() ? "lines-fewer" : t.size() > v.size() ? "lines-more" : "lines-same");
  const auto braces = [](std::string_view s) { return std::count(s.begin(), s.end(), '}'); };
  if (braces(text) != braces(valid)) out.insert(braces(text) < braces(valid) ? "closing-braces-fewer" : "closing-braces-more");
  if (t != v && std::is_permutation(t.begin(), t.end(), v.begin(), v.end())) out.insert("lines-reordered");
  size_t run = 0;
  for (char c : text) {
    run = c >= '0' && c <= '9' ? run + 1 : 0;
    if (run >= 19) out.insert("long-literal");
  }
  if (t != v) out.insert("first-difference-" + first_difference(v, t));
  return out;
}

constexpr const char* kShapes[] = {"crlf",
                                   "non-ascii-byte",
                                   "control-byte",
                                   "cut-at-a-line-end",
                                   "lines-fewer",
                                   "lines-more",
                                   "lines-same",
                                   "closing-braces-fewer",
                                   "closing-braces-more",
                                   "lines-reordered",
                                   "long-literal",
                                   "first-difference-first-line",
                                   "first-difference-in-a-block",
                                   "first-difference-top-level"};

}  // namespace

std::set<std::string> near_miss_productions(bool gir, std::string_view valid, const NearMiss& m) {
  const char* d = gir ? "gir" : "plan";
  std::set<std::string> out;
  out.insert(fmt::format("{}:{}", d, slug(m.corruption)));  // the generator's record
  out.insert(fmt::format("{}:rejected-by-{}", d, stage_name(m.expected.stage)));  // the generator's record
  for (const std::string& s : text_shape(valid, m.text)) out.insert(fmt::format("{}:text:{}", d, s));
  return out;
}

std::vector<Production> near_miss_production_universe() {
  std::vector<Production> u;
  for (const char* d : {"gir", "plan"}) {
    const bool gir = std::string_view(d) == "gir";
    for (size_t k = 0; k < static_cast<size_t>(Corruption::kCount); ++k) {
      const auto c = static_cast<Corruption>(k);
      Production p{fmt::format("{}:{}", d, slug(c)), "", ""};
      const bool plan_only = std::find(std::begin(kPlanOnly), std::end(kPlanOnly), c) != std::end(kPlanOnly);
      if (gir && c == Corruption::kGraphAfterUse)
        p.unreachable = "a .gir program may call a function above its definition (WellFormed looks callees up in all)";
      else if (gir && plan_only)
        p.unreachable = "the .gir grammar has no config, mutate or entry tensor lines (COMPILER.md §1)";
      else if (!gir && c == Corruption::kKeywordName)
        p.gap = "a .plan name made a keyword: the plan breaker's keyword-name rule makes it (plan_breaker.h), this "
                "corruption does not";
      else if (!gir && c == Corruption::kUseBeforeDefinition)
        p.gap = "two .plan statements swapped, a name used above its set, view or alloc (the check's \"undefined name\")";
      u.push_back(std::move(p));
    }
    for (const char* stage : {"gir-parser", "WellFormed", "plan-parser", "plan-check"}) {
      const bool mine = gir == (std::string_view(stage) == "gir-parser" || std::string_view(stage) == "WellFormed");
      if (mine) u.push_back({fmt::format("{}:rejected-by-{}", d, stage), "", ""});
    }
    for (const char* s : kShapes) u.push_back({fmt::format("{}:text:{}", d, s), "", ""});
    u.push_back({fmt::format("{}:text:unchanged", d), "every corruption changes the text (near_miss.h)", ""});
    u.push_back({fmt::format("{}:text:empty", d), "a text is cut after a name or literal, never before its first", ""});
    u.push_back({fmt::format("{}:text:cut-mid-line", d), "",
                 "the input is cut only at the end of a line whose last token is a name or a literal, never after an "
                 "operator, a comma or an open bracket"});
    u.push_back({fmt::format("{}:text:cut-at-top-level", d),
                 "a text cut where no block is open may well be valid (both parsers take the end of input for a "
                 "line's end): truncated() needs an open block",
                 ""});
  }
  return u;
}

}  // namespace stackcheck::gen
