// Near-miss texts (near_miss.h): which corruption a choice picks, with the fallback order when
// it does not apply. The corruptions themselves live in files by family (near_miss_text.h);
// each works on the canonical lines of a valid text and states its expected rejection from the
// grammars of COMPILER.md §1 and RUNTIME.md §17: what the parser must find at the first place
// the text stops fitting them.
#include "properties/gen/near_miss.h"

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
