// fuzz_pipeline: `.gir` text through the whole compiler. Oracles: the verify instrument
// after every pass (a pass producing invalid IR is a finding; a rejected input is not), and
// codegen on every legalized program: it must succeed, and its `.plan` text must parse back
// to an equal orchestration program. Text-form inputs (`# stackcheck ...`) are `.gir` too.
#include "fuzz/fuzz_target.h"
#include "properties/oracles/compiler_oracles.h"
#include "stack/codegen/codegen.h"
#include "stack/ir/parser.h"
#include "stack/runtime/plan/parser.h"
#include "stack/runtime/plan/printer.h"
#include "stack/verify/well_formed.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace stackcheck;
  ir::ParseLimits limits;
  limits.max_bytes = 64 << 10;  // keeps each execution short; larger inputs are not interesting here
  ir::ParseResult r = ir::parse_program(fuzz::as_text(data, size), limits);
  if (!r.ok() || !verify::check_well_formed(r.program()).empty()) return 0;
  for (bool step_c : {true, false}) {
    const oracles::PipelineRun run =
        oracles::run_pipeline(r.program(), passes::PipelineOptions{.graph_boundary = {.step_c = step_c}});
    if (run.verdict.failed()) fuzz::report_finding("fuzz_pipeline", run.verdict);
    if (!run.verdict.passed()) return 0;  // rejected: outside the codegen oracle's domain
    const codegen::CodegenResult cg = codegen::generate_orchestration(run.stages.back().program);
    if (!cg.ok)
      fuzz::report_finding(
          "fuzz_pipeline",
          oracles::Verdict::fail("codegen",
                                 "codegen rejects a legalized program: " +
                                     (cg.diagnostics.empty() ? std::string("?") : cg.diagnostics.front().render(""))));
    const std::string text = runtime::print_plan(cg.program);
    runtime::PlanParseResult back = runtime::parse_plan(text);
    if (!back.ok())
      fuzz::report_finding("fuzz_pipeline", oracles::Verdict::fail("plan-roundtrip", "emitted plan does not parse: " +
                                                                                         back.error().to_string()));
    if (!(back.program() == cg.program))
      fuzz::report_finding("fuzz_pipeline", oracles::Verdict::fail("plan-roundtrip", "parse(print(plan)) != plan"));
  }
  return 0;
}
