// fuzz_program: bytes decoded by the program generator (gen/program_gen.h over ByteChoices:
// a seed, a schedule, step_c and the RuntimeConfig's W, then a Graph IR program, legal by
// construction) through every oracle tier, end to end:
//   roundtrip   parse(print(p)) == p (COMPILER.md §8.6);
//   pipeline    the verifier after every pass (§8.1); a generated program is never rejected;
//               node counts (§8.4), hoisted creates from depth 0 and InOut (§8.2), graph
//               writes through InOut params (§8.3);
//   semantics   the interpreter before == after every pass (§8.5);
//   codegen     codegen accepts the legalized program and its `.plan` round-trips;
//   end-to-end  the device result of the bound plan == the interpreter (HARNESS.md §2.5),
//               one image copy, every shipped byte read (0xAA device memory, strict
//               uninitialised reads);
//   bind-structure  the shipped image's deltas, graph storage spans (RUNTIME.md §15.1, §15.8);
//   plan-model  the device == the sequential plan model of the compiled plan (§15.11);
//   deps        the dependency oracle on the compiled plan's shipped bytes (§15.10).
// One pipeline run, one interpreter run of the original and one per pass that changed the
// program, one bind, one plan-model run.
// Text form: a `.gir` with `# replay: seed=S schedule=M step_c=0|1 W=N [generated=1]`
// (properties/judge/cases.h), parsed, not decoded.
#include <fmt/format.h>

#include "fuzz/case_target.h"
#include "properties/judge/cases.h"
#include "fuzz/fuzz_target.h"
#include "properties/oracles/bind_checks.h"
#include "properties/oracles/compiler_oracles.h"
#include "properties/oracles/end_to_end.h"
#include "properties/oracles/input_oracles.h"
#include "properties/oracles/roundtrip.h"
#include "stack/interp/interp.h"
#include "stack/ir/equal.h"

namespace stackcheck::fuzz {

namespace {

using oracles::Verdict;

// Smaller than the properties' programs (3 sites, 8 statements per body): a fifth fewer
// instructions per input (docs/throughput.md); three graphs still meet in one program.
gen::ProgramKnobs fuzz_knobs() { return {.max_sites = 2, .max_graph_stmts = 6, .max_entry_stmts = 6}; }
constexpr int kDefaultWPerMille = 10;  // W=16384 (a 45 MB mirror) one case in 100

// Every tier over one pipeline run, one bind and one plan-model run.
int judge_program(Judge& j, const ProgramCase& pc) {
  const ir::Program& p = pc.program;
  j.check("roundtrip", oracles::check_print_roundtrip(p));
  passes::PipelineOptions po;
  po.graph_boundary.step_c = pc.step_c;
  oracles::PipelineRun run = oracles::run_pipeline(p, po);
  if (run.verdict.inconclusive() && pc.generated)
    j.fail("pipeline", Verdict::fail("false-rejection", "a generated program is rejected: " + run.verdict.message));
  if (!j.check("pipeline", run.verdict)) return j.done();
  const ir::Program& legal = run.stages.back().program;
  j.observe([&] { return oracles::digest_program(support::kFnvOffset, legal); });
  // The boundary invariants (node counts, hoisted creates, graph writes InOut, Step C) on the
  // same run, as every property that draws a generated program judges its compile.
  j.check("pipeline", oracles::check_boundary_run(run, pc.step_c));
  const interp::Result original = interp::run(p, pc.seed);
  const ir::Program* before = &p;
  for (const oracles::Stage& st : run.stages) {
    // A pass that changed nothing keeps its input's semantics, already judged: no new run.
    if (ir::equal(st.program, *before)) continue;
    if (!j.check("semantics", oracles::check_same_semantics(original, st.program, pc.seed, "after " + st.pass)))
      return j.done();
    before = &st.program;
  }
  if (!original.ok()) {  // it traps (every changed stage traps alike, judged above): no outputs to run against
    const bool budget = original.error().kind == interp::ErrorKind::Budget;
    j.check("semantics", Verdict::inconclusive(budget ? oracles::Inconclusive::kInterpreterBudget
                                                      : oracles::Inconclusive::kInterpreterError,
                                               "original program errs: " + original.error().render()));
    return j.done();
  }
  const oracles::CompiledPlan compiled = oracles::compile_pipeline_run(std::move(run));
  if (!j.check("codegen", compiled.verdict)) return j.done();
  j.check("codegen", oracles::check_plan_roundtrip(compiled.plan));

  runtime::OrchProgram plan = compiled.plan;
  plan.config = pc.config;
  // 0xAA device memory and strict uninitialised reads: a compiled program is a valid plan
  // (RUNTIME.md §15.12), and poison shows a field nobody wrote. The config is the case's W,
  // which no generated=H mark covers: a rejected one is inconclusive.
  auto bench = case_bench(j, "end-to-end", plan, /*strict_uninit=*/true, /*generator_config=*/false);
  if (!bench) return j.done();
  const oracles::Captured c = bench->bind(plan, case_bind_options(pc));
  j.observe([&] { return oracles::digest_bind(support::kFnvOffset, c.result, c.staged); });
  const std::string context = fmt::format("schedule {} seed {}", oracles::schedule_text(pc.schedule), pc.seed);
  if (!j.check("end-to-end", oracles::judge_end_to_end(compiled, original.outputs(), c.result, context)))
    return j.done();
  j.check("bind-structure", oracles::check_image_deltas(c.image(), "shipped image"));
  j.check("bind-structure", oracles::check_graph_storage(c, bench->memory()));
  check_model_and_deps(j, c, *bench, oracles::run_plan_model(plan, pc.seed));
  return j.done();
}

ProgramCase decode(gen::ChoiceSource& c) { return decode_program_case(c, fuzz_knobs(), kDefaultWPerMille); }

}  // namespace

const char* target_name() { return "fuzz_program"; }
bool parses_text_form() { return true; }

std::string text_form(std::span<const uint8_t> in) {
  return case_text_form(in, [](gen::ChoiceSource& c) { return print_program_case(target_name(), decode(c)); });
}

}  // namespace stackcheck::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace stackcheck::fuzz;
  return run_input(data, size, parse_program_case, judge_program,
                   [](Judge& j, stackcheck::gen::ChoiceSource& c) { return judge_program(j, decode(c)); });
}
