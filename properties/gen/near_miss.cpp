// Near-miss texts (near_miss.h): which corruption a choice picks, with the fallback order when
// it does not apply. The corruptions themselves live in files by family (near_miss_text.h);
// each works on the canonical lines of a valid text and states its expected rejection from the
// grammars of COMPILER.md §1 and RUNTIME.md §17: what the parser must find at the first place
// the text stops fitting them.
#include "properties/gen/near_miss.h"

#include <array>
#include <cstddef>
#include <optional>
#include <string_view>
#include <vector>

#include "properties/gen/near_miss_text.h"

namespace stackcheck::gen {
namespace {

using near_miss_detail::Attempt;
using near_miss_detail::Dialect;
using near_miss_detail::Text;
using near_miss_detail::carriage_return;
using near_miss_detail::config_key;
using near_miss_detail::drop_brace;
using near_miss_detail::extra_brace;
using near_miss_detail::join_lines;
using near_miss_detail::literal_range;
using near_miss_detail::missing_argument;
using near_miss_detail::mutate_range;
using near_miss_detail::name_twice;
using near_miss_detail::split_statement;
using near_miss_detail::stray_punct;
using near_miss_detail::stray_token;
using near_miss_detail::stray_token_of;
using near_miss_detail::tensor_after_statement;
using near_miss_detail::truncated;
using near_miss_detail::unknown_builtin;
using near_miss_detail::unknown_callee;
using near_miss_detail::use_before_definition;
using near_miss_detail::wrong_word;
using near_miss_detail::keyword_name;

Attempt graph_after_use(ChoiceSource& c, Dialect, Text t) { return near_miss_detail::graph_after_use(c, t.str()); }
Attempt config_value(ChoiceSource& c, Dialect, Text t) { return near_miss_detail::config_value(c, t.str()); }

// Each corruption, in Corruption's order: its name, the function that makes it, and the one
// dialect it applies to (nullopt: both).
struct CorruptionEntry {
  Corruption kind;
  const char* name;
  Attempt (*make)(ChoiceSource&, Dialect, Text);
  std::optional<Dialect> only;
};
constexpr std::array<CorruptionEntry, static_cast<size_t>(Corruption::kCount)> kCorruptions = {{
    {Corruption::kJoinLines, "joined lines", join_lines, std::nullopt},
    {Corruption::kSplitStatement, "statement split", split_statement, std::nullopt},
    {Corruption::kDropBrace, "dropped brace", drop_brace, std::nullopt},
    {Corruption::kExtraBrace, "extra brace", extra_brace, std::nullopt},
    {Corruption::kNameTwice, "name bound twice", name_twice, std::nullopt},
    {Corruption::kUseBeforeDefinition, "statements swapped", use_before_definition, Dialect::kGir},
    {Corruption::kLiteralRange, "literal out of range", literal_range, std::nullopt},
    {Corruption::kUnknownCallee, "unknown callee or graph", unknown_callee, std::nullopt},
    {Corruption::kUnknownBuiltin, "unknown builtin", unknown_builtin, std::nullopt},
    {Corruption::kMissingArgument, "missing argument", missing_argument, std::nullopt},
    {Corruption::kCarriageReturn, "CRLF line endings", carriage_return, std::nullopt},
    {Corruption::kConfigKey, "unknown or repeated config key", config_key, Dialect::kPlan},
    {Corruption::kMutateRange, "mutate value past 255", mutate_range, Dialect::kPlan},
    {Corruption::kTensorAfterStatement, "entry tensor after statements", tensor_after_statement, Dialect::kPlan},
    {Corruption::kGraphAfterUse, "graph defined below its use", graph_after_use, Dialect::kPlan},
    {Corruption::kConfigValue, "config value out of range", config_value, Dialect::kPlan},
    {Corruption::kTruncated, "input cut off", truncated, std::nullopt},
    {Corruption::kStrayToken, "stray token", stray_token, std::nullopt},
    {Corruption::kWrongWord, "wrong word", wrong_word, std::nullopt},
    {Corruption::kKeywordName, "keyword as a name", keyword_name, Dialect::kGir},
}};

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
  if (d == Dialect::kGir) kinds.push_back(keyword_name);
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
  for (const CorruptionEntry& e : kCorruptions)
    if (e.kind == c) return e.name;
  return "?";
}

std::optional<NearMiss> near_miss_of(ChoiceSource& c, Dialect d, std::string_view valid, Corruption kind) {
  for (const CorruptionEntry& e : kCorruptions)
    if (e.kind == kind) return e.only && *e.only != d ? std::nullopt : e.make(c, d, Text::of(valid));
  return std::nullopt;
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
