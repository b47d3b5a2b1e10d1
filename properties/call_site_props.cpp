// A rule broken at one call site only (gen::break_at_call_site, COMPILER.md §5.3 Step D): the
// program is WellFormed, LegalizeGraphBoundary refuses it on each broken call's line naming the
// hoisted definition, and the last legal value at that site runs end to end; with its positive
// control.
#include "properties/gen/arbitrary.h"
#include "properties/gen/ir_breaker.h"
#include "properties/legal_pipeline.h"
#include "properties/oracles/compiler_oracles.h"
#include "properties/oracles/end_to_end.h"
#include "properties/property.h"
#include "stack/ir/parser.h"
#include "stack/ir/printer.h"
#include "stack/verify/well_formed.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <rapidcheck/gtest.h>

#include <functional>
#include <optional>
#include <string>

using namespace stackcheck;
using props::draw;

// A rule broken at one call site only (gen::break_at_call_site, COMPILER.md §5.3 Step D):
// WellFormed takes the program (zz_s is a dynamic param in the graph), the pipeline is refused
// by LegalizeGraphBoundary with exactly one diagnostic, the breaker's code, on the line of a
// call of that graph, its message naming the hoisted definition and what it gives there; with
// the last legal offset at that site (11's twin) the program compiles and runs end to end as
// the interpreter runs it.
namespace {
using PipelineFn = std::function<oracles::PipelineRun(const ir::Program&)>;
void call_site_case(const PipelineFn& pipeline) {
  const gen::GeneratedProgram g = draw(gen::ProgramKnobs{.min_graphs = 1});
  const ir::Program source = g.program;
  const auto b = gen::draw_value<std::optional<gen::BrokenProgram>>(
      [source](gen::ChoiceSource& c) { return gen::break_at_call_site(c, source); });
  if (!b) props::report(oracles::Verdict::inconclusive(oracles::Inconclusive::kUnsupported, "no called graph"));
  gen::tag(fmt::format("code-{}", b->code));
  const std::string text = ir::print_program(b->program);
  const auto cx = [&] { return props::counterexample("pipeline", text, {{"code", std::to_string(b->code)}}); };
  const ir::ParseResult parsed = ir::parse_program(text);
  if (!parsed.ok())
    props::report(
        oracles::Verdict::fail("breaker", "the printed program does not parse: " + parsed.error().to_string()), cx());
  if (const ir::Diagnostics wf = verify::check_well_formed(parsed.program()); !wf.empty())
    props::report(oracles::Verdict::fail("well-formed-code", fmt::format("{}: WellFormed reported {}, where only a "
                                                                         "call site makes it static",
                                                                         b->what, wf.front().render(""))),
                  cx());
  const oracles::PipelineRun run = pipeline(parsed.program());
  const auto line_of = [&](uint32_t line) {
    size_t at = 0;
    for (uint32_t l = 1; l < line && at != std::string::npos; ++l)
      at = text.find('\n', at) == std::string::npos ? std::string::npos : text.find('\n', at) + 1;
    return at == std::string::npos ? std::string() : text.substr(at, text.find('\n', at) - at);
  };
  // One diagnostic per broken site, each on a line calling the graph, in program order.
  bool each = run.rejected_by == "LegalizeGraphBoundary" && run.diagnostics.size() == b->broken_sites;
  for (size_t i = 0; each && i < run.diagnostics.size(); ++i)
    each = run.diagnostics[i].code == b->code &&
           line_of(run.diagnostics[i].location.line).find(b->graph + "(") != std::string::npos &&
           (i == 0 || run.diagnostics[i - 1].location.line < run.diagnostics[i].location.line);
  if (b->broken_sites > 1) gen::tag("every call site broken");
  if (!each)
    props::report(oracles::Verdict::fail(
                      "pass-code",
                      fmt::format("{}: expected LegalizeGraphBoundary's {} on {} in program order, got {} "
                                  "({} diagnostics, the first: {})",
                                  b->what, b->code,
                                  b->broken_sites == 1 ? "that call's line"
                                                       : fmt::format("each of the {} calls' lines", b->broken_sites),
                                  run.rejected_by.empty() ? "acceptance" : run.rejected_by, run.diagnostics.size(),
                                  run.diagnostics.empty() ? run.verdict.message : run.diagnostics.front().render(""))),
                  cx());
  for (const ir::Diagnostic& d : run.diagnostics)
    for (const std::string& want : b->message_has)
      if (d.message.find(want) == std::string::npos)
        props::report(oracles::Verdict::fail("pass-message", fmt::format("{}: the message \"{}\" does not say \"{}\"",
                                                                         b->what, d.message, want)),
                      cx());
  if (b->at_limit) {
    gen::tag("at-limit-11");
    const oracles::EndToEndRun e2e =
        oracles::check_end_to_end(*b->at_limit, 1, runtime::ScheduleOptions{}, {}, {{"W", 256, {}}});
    if (e2e.verdict.inconclusive() && e2e.verdict.reason == oracles::Inconclusive::kInputRejected)
      props::report(oracles::Verdict::fail("pipeline-limit", fmt::format("{} (legal): the pipeline rejected it: {}",
                                                                         b->limit, e2e.verdict.message)),
                    props::counterexample("end-to-end", ir::print_program(*b->at_limit)));
    if (!e2e.verdict.inconclusive())
      props::report(e2e.verdict, props::counterexample("end-to-end", ir::print_program(*b->at_limit)));
  }
}
// The positive control: a pipeline whose LegalizeGraphBoundary lets a zero divisor hoisted to a
// call site through (its one 13 dropped, the program taken as it was).
oracles::PipelineRun pipeline_blind_to_hoisted_divisors(const ir::Program& p) {
  oracles::PipelineRun r = oracles::run_pipeline(p);
  if (r.diagnostics.size() == 1 && r.diagnostics.front().code == 13) {
    r.diagnostics.clear();
    r.rejected_by.clear();
    r.verdict = oracles::Verdict::pass();
  }
  return r;
}
}  // namespace

STACKCHECK_PROP(CallSiteHoisting, hoisting_rejected_at_the_one_call_site, 0.3) {
  call_site_case([](const ir::Program& p) { return oracles::run_pipeline(p); });
}
STACKCHECK_CONTROL(CallSiteHoistingControl, a_pass_blind_to_divisors_hoisted_to_a_call_site_fails,
                   "expected LegalizeGraphBoundary's 13") {
  call_site_case(pipeline_blind_to_hoisted_divisors);
}
