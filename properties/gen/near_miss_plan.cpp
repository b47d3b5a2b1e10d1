// Plan-only near misses over the lines of a valid `.plan` (near_miss.h, near_miss_detail):
// a graph definition moved below its first use, a config value outside its field's range, an
// unknown or repeated config key, a `mutate` value past 255, and an entry tensor or config
// line out of its place. Each expectation comes from RUNTIME.md §17 and §4 as written there
// (the ranges are this file's own table), never from running the stack.
#include <fmt/format.h>

#include <optional>
#include <string>
#include <vector>

#include "properties/gen/near_miss.h"
#include "properties/gen/near_miss_text.h"

namespace stackcheck::gen::near_miss_detail {
namespace {

using oracles::ExpectedRejection;
using oracles::FrontEnd;

struct Lines {
  std::vector<std::string> v;
  bool trailing_newline = true;

  explicit Lines(std::string_view s) {
    size_t from = 0;
    while (from < s.size()) {
      const size_t nl = s.find('\n', from);
      if (nl == std::string_view::npos) {
        v.emplace_back(s.substr(from));
        trailing_newline = false;
        break;
      }
      v.emplace_back(s.substr(from, nl - from));
      from = nl + 1;
    }
  }
  std::string text() const {
    std::string out;
    for (size_t i = 0; i < v.size(); ++i) out += v[i] + (i + 1 < v.size() || trailing_newline ? "\n" : "");
    return out;
  }
};

bool starts(const std::string& s, std::string_view w) { return s.compare(0, w.size(), w) == 0; }

// Column (1-based) of `needle` in `line` outside a comment, or 0.
uint32_t column_of(const std::string& line, const std::string& needle) {
  const size_t at = line.find(needle);
  if (at == std::string::npos || line.substr(0, at).find('#') != std::string::npos) return 0;
  return static_cast<uint32_t>(at + 1);
}

}  // namespace

// A top-level `graph G(...) {` ... `}` (its closing brace at column 1, as printed) moved to
// the end of the statements, before any `mutate` line: every `submit_graph G(` now comes
// first, and the parser must refuse the first of them, at its `submit_graph`.
std::optional<NearMiss> graph_after_use(ChoiceSource& c, std::string_view valid) {
  Lines t(valid);
  struct Def {
    size_t first, last;  // the definition's lines
    std::string name;
  };
  std::vector<Def> defs;
  for (size_t i = 0; i < t.v.size(); ++i) {
    if (!starts(t.v[i], "graph ")) continue;
    const size_t open = t.v[i].find('(');
    size_t j = i + 1;
    while (j < t.v.size() && t.v[j] != "}") ++j;
    if (open == std::string::npos || j == t.v.size()) return std::nullopt;
    Def d{i, j, t.v[i].substr(6, open - 6)};
    for (size_t k = 0; k < t.v.size(); ++k)
      if ((k < d.first || k > d.last) && column_of(t.v[k], "submit_graph " + d.name + "(") != 0) {
        defs.push_back(d);
        break;
      }
    i = j;
  }
  if (defs.empty()) return std::nullopt;
  const Def d = c.pick(defs);
  const std::vector<std::string> block(t.v.begin() + static_cast<std::ptrdiff_t>(d.first),
                                       t.v.begin() + static_cast<std::ptrdiff_t>(d.last) + 1);
  t.v.erase(t.v.begin() + static_cast<std::ptrdiff_t>(d.first), t.v.begin() + static_cast<std::ptrdiff_t>(d.last) + 1);
  size_t at = 0;
  while (at < t.v.size() && !starts(t.v[at], "mutate")) ++at;
  if (at == t.v.size()) t.trailing_newline = true;
  t.v.insert(t.v.begin() + static_cast<std::ptrdiff_t>(at), block.begin(), block.end());
  for (size_t k = 0; k < t.v.size(); ++k)
    if (const uint32_t col = column_of(t.v[k], "submit_graph " + d.name + "(")) {
      const auto line = static_cast<uint32_t>(k + 1);
      return NearMiss{
          t.text(), Corruption::kGraphAfterUse,
          fmt::format("graph '{}' (lines {}-{}) moved below its use on line {}", d.name, d.first + 1, d.last + 1, line),
          ExpectedRejection{FrontEnd::kPlanParser, line, col,
                            fmt::format("graph '{}' used before its definition", d.name), 0}};
    }
  return std::nullopt;
}

// One `KEY=INT` of the config line set outside the range RUNTIME.md §4 gives its field
// (negative, zero where it must be positive, past its bound, W not a power of two), or such
// an entry added (a new config line when there is none): refused at its KEY.
std::optional<NearMiss> config_value(ChoiceSource& c, std::string_view valid) {
  struct Range {
    const char* key;
    int64_t lo, hi;
    const char* text;  // as the refusal states it
  };
  static constexpr Range kRanges[] = {
      {"W", 4, 1 << 19, "a power of two in [4, 2^19]"},
      {"task_heap", 1024, int64_t{1} << 40, "in [1024, 2^40]"},
      {"graph_heap", 64, int64_t{1} << 40, "in [64, 2^40]"},
      {"ready_capacity", 0, int64_t{1} << 32, "in [0, 2^32]"},
      {"tensormap_capacity", 1, int64_t{1} << 32, "in [1, 2^32]"},
      {"scope_tasks_capacity", 0, int64_t{1} << 32, "in [0, 2^32]"},
      {"workers", 1, 256, "in [1, 256]"},
      {"progress_timeout_ms", 1, int64_t{1} << 32, "in [1, 2^32]"},
      {"clusters", 1, 65536, "in [1, 65536]"},
      {"fill_byte", 0, 255, "in [0, 255]"},
  };
  const Range& r = kRanges[c.one_of(std::size(kRanges))];
  int64_t bad = 0;
  switch (c.one_of(4)) {
    case 0: bad = -1 - c.integer(0, 99); break;                            // negative
    case 1: bad = r.lo > 0 ? 0 : -(int64_t{1} << 40); break;               // zero where it must be positive
    case 2: bad = r.hi + 1 + c.integer(0, 99); break;                      // past the bound
    default: bad = r.key == std::string_view("W") ? 48 : r.lo - 1; break;  // W: in range, not a power of two
  }
  Lines t(valid);
  size_t cfg = t.v.size();
  for (size_t i = 0; i < t.v.size() && cfg == t.v.size(); ++i)
    if (starts(t.v[i], "config ")) cfg = i;
  uint32_t col = 8;
  std::string what;
  if (cfg == t.v.size()) {
    cfg = 0;
    t.v.insert(t.v.begin(), fmt::format("config {}={}", r.key, bad));
    what = fmt::format("config line `{}={}` added", r.key, bad);
  } else if (const uint32_t at = column_of(" " + t.v[cfg] + " ", fmt::format(" {}=", r.key))) {
    std::string& line = t.v[cfg];
    col = at;  // the key's column (the leading space padded in counts for the one before it)
    const size_t from = col - 1 + std::string_view(r.key).size() + 1, to = line.find(' ', from);
    line.replace(from, (to == std::string::npos ? line.size() : to) - from, std::to_string(bad));
    what = fmt::format("config {} of line {} set to {}", r.key, cfg + 1, bad);
  } else {
    col = static_cast<uint32_t>(t.v[cfg].size() + 2);
    t.v[cfg] += fmt::format(" {}={}", r.key, bad);
    what = fmt::format("config {}={} added to line {}", r.key, bad, cfg + 1);
  }
  return NearMiss{t.text(), Corruption::kConfigValue, what,
                  ExpectedRejection{FrontEnd::kPlanCheck, static_cast<uint32_t>(cfg + 1), col,
                                    fmt::format("config {}={} is not {}", r.key, bad, r.text), 0}};
}

// ---- on the shared line model (near_miss_text.h) ----

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

}  // namespace stackcheck::gen::near_miss_detail
