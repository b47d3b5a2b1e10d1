// Expected rejections of near-miss texts (HARNESS.md §1, "maybe invalid" mode) and the oracle
// that holds the front ends to them: the `.gir` parser, WellFormed and the `.plan` parser
// (with its static check) must reject a near-miss at the stated line:column with the stated
// message (parsers) or diagnostic code (WellFormed, its first diagnostic). Accepting it is a
// failure as much as rejecting it elsewhere or crashing. The valid text a near-miss came from
// must be accepted (the control).
// FrontEnds names the functions under test, so a positive control can run the same oracle
// against a deliberately lax front end. RapidCheck-free.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "properties/oracles/oracle.h"
#include "stack/ir/parser.h"
#include "stack/runtime/plan/parser.h"
#include "stack/ir/diagnostic.h"

namespace stackcheck::oracles {

// kPlanCheck: validate_plan (check.h), which parse_plan runs after a syntactically valid parse.
enum class FrontEnd : uint8_t { kGirParser, kWellFormed, kPlanParser, kPlanCheck };
const char* front_end_name(FrontEnd f);

struct ExpectedRejection {
  FrontEnd stage = FrontEnd::kGirParser;
  uint32_t line = 0, column = 0;
  std::string message;  // the parsers' exact message
  int code = 0;         // WellFormed: the first diagnostic's code
  std::string to_string() const;
};

struct FrontEnds {
  std::function<ir::ParseResult(std::string_view)> parse_gir;
  std::function<ir::Diagnostics(const ir::Program&)> well_formed;
  std::function<runtime::PlanParseResult(std::string_view)> parse_plan;
  static FrontEnds of_stack();  // parse_program, check_well_formed, parse_plan
};

enum class TextKind : uint8_t { kGir, kPlan };

// The control: a `.gir` text parses and WellFormed finds nothing; a `.plan` text parses.
Verdict check_accepted(std::string_view text, TextKind kind, const FrontEnds& fe = FrontEnds::of_stack());

// The near-miss is rejected by `want.stage` exactly as stated (rule "near-miss/<stage>").
// The error as a user reads it (the CLI prints it), against its figures: "line:column: message"
// for the parsers, "file:line:column: error[N]: message" for a diagnostic (COMPILER.md §1, §4).
// check_rejected applies it to every rejection it judges.
Verdict check_rendered(FrontEnd stage, const std::string& got, const std::string& want);

Verdict check_rejected(std::string_view text, const ExpectedRejection& want,
                       const FrontEnds& fe = FrontEnds::of_stack());

}  // namespace stackcheck::oracles
