// fuzz_pipeline: `.gir` text through the whole compiler. Oracles: the verify instrument
// after every pass (a pass producing invalid IR is a finding; a rejected input is not), and
// codegen on every legalized program: it must succeed, and its `.plan` text must parse back
// to an equal orchestration program, except where codegen.h documents a refusal of a
// WellFormed program that the program itself predicts: an entry scalar param (306; a plan has
// no scalar inputs) must be refused with 306 alone, and the input is then outside the domain. Text-form inputs (`# stackcheck ...`) are `.gir` too,
// so the text form of an input is the input under the header line.
#include <algorithm>

#include "fuzz/fuzz_target.h"
#include "properties/oracles/compiler_oracles.h"
#include "properties/oracles/roundtrip.h"
#include "stack/codegen/codegen.h"
#include "stack/ir/parser.h"
#include "stack/verify/well_formed.h"

const char* stackcheck::fuzz::target_name() { return "fuzz_pipeline"; }  // its text form: raw_text.cpp

namespace {

// An orchestration (entry) param that is not a tensor: codegen.h's refusal 306.
bool entry_scalar_param(const stackcheck::ir::Program& p) {
  for (const stackcheck::ir::Function& f : p.functions)
    if (f.kind == stackcheck::ir::Function::Kind::Orchestration)
      for (const stackcheck::ir::Param& param : f.params)
        if (!param.type.is_tensor()) return true;
  return false;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace stackcheck;
  fuzz::Judge judge(fuzz::target_name());
  ir::ParseLimits limits;
  limits.max_bytes = 64 << 10;  // keeps each execution short; larger inputs are not interesting here
  ir::ParseResult r = ir::parse_program(fuzz::as_text(data, size), limits);
  if (!r.ok()) return judge.reject(r.error().to_string());
  if (!verify::check_well_formed(r.program()).empty()) return judge.reject("not WellFormed");
  for (bool step_c : {true, false}) {
    const oracles::PipelineRun run =
        oracles::run_pipeline(r.program(), passes::PipelineOptions{.graph_boundary = {.step_c = step_c}});
    if (!judge.check("pipeline", run.verdict)) break;  // rejected: outside the codegen oracle's domain
    judge.observe([&] { return oracles::digest_program(support::kFnvOffset, run.stages.back().program); });
    const codegen::CodegenResult cg = codegen::generate_orchestration(run.stages.back().program);
    if (entry_scalar_param(run.stages.back().program)) {
      const bool only_306 = !cg.ok && !cg.diagnostics.empty() &&
                            std::all_of(cg.diagnostics.begin(), cg.diagnostics.end(),
                                        [](const ir::Diagnostic& d) { return d.code == codegen::kEntryScalarParam; });
      if (!only_306)
        judge.fail("codegen", oracles::Verdict::fail("codegen-306", cg.ok ? "codegen accepts an entry scalar param"
                                                                          : "codegen refuses an entry scalar param "
                                                                            "with another code: " +
                                                                                cg.diagnostics.front().render("")));
      return judge.reject("an entry scalar param: codegen refuses it (306), as codegen.h says");
    }
    if (!cg.ok)
      judge.fail("codegen",
                 oracles::Verdict::fail(
                     "codegen", "codegen rejects a legalized program: " +
                                    (cg.diagnostics.empty() ? std::string("?") : cg.diagnostics.front().render(""))));
    judge.check("codegen", oracles::check_plan_roundtrip(cg.program));
  }
  return judge.done();
}
