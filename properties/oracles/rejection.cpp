// The near-miss rejection oracle (rejection.h).
#include "properties/oracles/rejection.h"

#include <fmt/format.h>

#include "stack/verify/well_formed.h"
#include "stack/support/enum_names.h"

namespace stackcheck::oracles {
namespace {

std::string where(uint32_t line, uint32_t column) { return fmt::format("{}:{}", line, column); }

Verdict fail(FrontEnd f, const std::string& msg) {
  return Verdict::fail(fmt::format("near-miss/{}", front_end_name(f)), msg);
}

}  // namespace

const char* front_end_name(FrontEnd f) {
  static constexpr auto kNames = support::names_through<FrontEnd::kPlanCheck>({
      "gir-parser", "WellFormed", "plan-parser", "plan-check"});
  return support::enum_name(kNames, f);
}

std::string ExpectedRejection::to_string() const {
  if (stage == FrontEnd::kWellFormed) return fmt::format("WellFormed error[{}] at {}", code, where(line, column));
  return fmt::format("{} at {}: {}", front_end_name(stage), where(line, column), message);
}

FrontEnds FrontEnds::of_stack() {
  return FrontEnds{[](std::string_view t) { return ir::parse_program(t); },
                   [](const ir::Program& p) { return verify::check_well_formed(p); },
                   [](std::string_view t) { return runtime::parse_plan(t); }};
}

Verdict check_accepted(std::string_view text, TextKind kind, const FrontEnds& fe) {
  if (kind == TextKind::kPlan) {
    const runtime::PlanParseResult r = fe.parse_plan(text);
    if (!r.ok()) return fail(FrontEnd::kPlanParser, "the valid plan is rejected: " + r.error().to_string());
    return Verdict::pass();
  }
  const ir::ParseResult r = fe.parse_gir(text);
  if (!r.ok()) return fail(FrontEnd::kGirParser, "the valid program is rejected: " + r.error().to_string());
  const ir::Diagnostics d = fe.well_formed(r.program());
  if (!d.empty()) return fail(FrontEnd::kWellFormed, "the valid program is rejected: " + d.front().render(""));
  return Verdict::pass();
}

Verdict check_rendered(FrontEnd stage, const std::string& got, const std::string& want) {
  if (got != want) return fail(stage, fmt::format("rendered as \"{}\"; its figures give \"{}\"", got, want));
  return Verdict::pass();
}

Verdict check_rejected(std::string_view text, const ExpectedRejection& want, const FrontEnds& fe) {
  const std::string expected = "expected " + want.to_string();
  if (want.stage == FrontEnd::kPlanParser || want.stage == FrontEnd::kPlanCheck) {
    const runtime::PlanParseResult r = fe.parse_plan(text);
    if (r.ok()) return fail(want.stage, "accepted; " + expected);
    const runtime::PlanError& e = r.error();
    if (e.line != want.line || e.column != want.column || e.message != want.message)
      return fail(want.stage, fmt::format("rejected at {}: {}; {}", where(e.line, e.column), e.message, expected));
    return check_rendered(want.stage, e.to_string(), fmt::format("{}:{}: {}", want.line, want.column, want.message));
  }
  const ir::ParseResult r = fe.parse_gir(text);
  if (want.stage == FrontEnd::kGirParser) {
    if (r.ok()) {
      const ir::Diagnostics d = fe.well_formed(r.program());
      return fail(want.stage, fmt::format("accepted by the parser{}; {}",
                                          d.empty() ? "" : " (WellFormed: " + d.front().render("") + ")", expected));
    }
    const ir::ParseError& e = r.error();
    if (e.line != want.line || e.column != want.column || e.message != want.message)
      return fail(want.stage, fmt::format("rejected at {}: {}; {}", where(e.line, e.column), e.message, expected));
    return check_rendered(want.stage, e.to_string(), fmt::format("{}:{}: {}", want.line, want.column, want.message));
  }
  if (!r.ok()) return fail(want.stage, "rejected by the parser instead: " + r.error().to_string() + "; " + expected);
  const ir::Diagnostics d = fe.well_formed(r.program());
  if (d.empty()) return fail(want.stage, "accepted; " + expected);
  const ir::Diagnostic& first = d.front();
  if (first.code != want.code || first.location.line != want.line || first.location.column != want.column)
    return fail(want.stage, fmt::format("first diagnostic {}; {}", first.render(""), expected));
  const std::string want_text =
      fmt::format("in.gir:{}:{}: error[{}]: {}", want.line, want.column, want.code, first.message);
  return check_rendered(want.stage, first.render("in.gir"), want_text);
}

}  // namespace stackcheck::oracles
