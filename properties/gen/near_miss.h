// Near-miss texts (HARNESS.md §1, "maybe invalid" mode): a valid `.gir` or `.plan` text with
// ONE realistic corruption chosen by a ChoiceSource, and the rejection it must meet: which
// front end (the `.gir` parser, WellFormed, the `.plan` parser or its static check), at which
// line:column, with which message (parsers) or code (WellFormed, COMPILER.md §4).
// Corruptions: two statements joined on one line; a statement broken after an operator; a
// closing brace dropped or an extra one; a name bound twice; an integer literal past 2^63-1;
// an unknown callee, graph or builtin; a missing argument; CRLF line endings; and for plans an
// unknown or repeated config key, a `mutate` value past 255, an entry tensor after the
// statements, a graph defined below its first use, and a config value outside its range; and
// the input cut off right after a name or an integer literal inside a block, with no newline;
// and a stray token, character or byte where a statement begins; a wrong word from a fixed
// set; a `.gir` name made a keyword. The expectation is derived
// from the valid text's own lines (a small tokenizer and a brace-structure walk written from the grammars), never from
// running the stack. Choice 0 is the simplest corruption (joined lines). No RapidCheck here.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "properties/gen/choice.h"
#include "properties/oracles/rejection.h"

namespace stackcheck::gen {

enum class Corruption : uint8_t {
  kJoinLines,
  kSplitStatement,
  kDropBrace,
  kExtraBrace,
  kNameTwice,
  kUseBeforeDefinition,  // .gir: two statements swapped
  kLiteralRange,
  kUnknownCallee,
  kUnknownBuiltin,
  kMissingArgument,
  kCarriageReturn,
  kConfigKey,             // .plan: unknown or repeated key
  kMutateRange,           // .plan: a mutate value past 255
  kTensorAfterStatement,  // .plan: an entry tensor after graphs and statements, or a config line late
  kGraphAfterUse,         // .plan: a graph definition moved below its first submit_graph
  kConfigValue,           // .plan: a config value outside its field's range
  kTruncated,             // the input ends right after a name or a literal, no newline, a block open
  kStrayToken,            // a stray token, character or byte where a statement begins
  kWrongWord,             // a keyword or operator of a fixed set replaced by one outside it
  kKeywordName,           // .gir: a function, param or loop variable named by a keyword
  kCount
};
const char* corruption_name(Corruption c);

struct NearMiss {
  std::string text;
  Corruption corruption = Corruption::kJoinLines;
  std::string what;  // one line: what was changed where
  oracles::ExpectedRejection expected;
};

// `valid` must be accepted by its front ends and hold at least two lines with tokens.
NearMiss near_miss_gir(ChoiceSource& c, std::string_view valid);
NearMiss near_miss_plan(ChoiceSource& c, std::string_view valid);

// The stray-token corruption with its stray given: punctuation token `punct` (0 ..
// stray_punct_count - 1) of the dialect put before a drawn statement, where the parser must
// say "expected a statement, found '<token>'" at its column. nullopt where no statement fits.
// One near miss of the corruption `kind` (nullopt where it does not apply to the text or the
// dialect).
std::optional<NearMiss> near_miss_of_kind(ChoiceSource& c, bool gir, std::string_view valid, Corruption kind);
size_t stray_punct_count(bool gir);
std::optional<NearMiss> stray_punct_near_miss(ChoiceSource& c, bool gir, std::string_view valid, size_t punct);

// The plan-only corruptions of near_miss_plan.cpp (nullopt where one does not apply).
namespace near_miss_detail {
std::optional<NearMiss> graph_after_use(ChoiceSource& c, std::string_view valid);
std::optional<NearMiss> config_value(ChoiceSource& c, std::string_view valid);
}  // namespace near_miss_detail

}  // namespace stackcheck::gen
