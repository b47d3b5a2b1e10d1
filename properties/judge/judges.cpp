#include "properties/judge/judges.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "properties/oracles/after_run.h"
#include "properties/oracles/attach_model.h"
#include "properties/oracles/bind_checks.h"
#include "properties/oracles/compiler_oracles.h"
#include "properties/oracles/deps.h"
#include "properties/oracles/digest.h"
#include "properties/oracles/end_to_end.h"
#include "properties/oracles/image_checks.h"
#include "properties/oracles/image_mutation.h"
#include "properties/oracles/input_oracles.h"
#include "properties/oracles/plan_model.h"
#include "properties/oracles/roundtrip.h"
#include "properties/oracles/status_codes.h"
#include "stack/interp/interp.h"
#include "stack/ir/equal.h"
#include "stack/runtime/status/codes.h"

namespace stackcheck::judge {

namespace {

using oracles::Verdict;

// The Bench a case binds `plan` on (0xAA device memory), or null with the config's outcome
// judged under `oracle`: a failure when the generator chose the config (`generator_config`),
// else inconclusive (unsupported). The process's spare bench, reset (Bench::acquire): one
// device memory, mirror and set of pages serve every input a process judges.
oracles::BenchLease case_bench(Judgement& j, std::string_view oracle, const runtime::OrchProgram& plan,
                               bool strict_uninit, bool generator_config) {
  std::string why;
  auto bench = oracles::lease_bench(plan, 0xAA, strict_uninit, &why);
  if (bench) return bench;
  if (generator_config) j.fail(oracle, Verdict::fail("config", "the generator's config was rejected: " + why));
  j.check(oracle, Verdict::inconclusive(oracles::Inconclusive::kUnsupported, "config rejected: " + why));
  return nullptr;
}

// A case's bind options: its seed and schedule.
template <class Case>
runtime::BindOptions case_bind_options(const Case& c) {
  runtime::BindOptions o;
  o.seed = c.seed;
  o.schedule = c.schedule;
  return o;
}

// Over one bind `c` on `bench`: plan-model, the device result == the sequential plan model
// (RUNTIME.md §15.11); deps, the dependency oracle on the shipped bytes, its provenance
// naming the model's plan lines (§15.10).
void check_model_and_deps(Judgement& j, const oracles::Captured& c, oracles::Bench& bench,
                          oracles::PlanModelResult model) {
  j.check("plan-model", oracles::check_plan_model(model, c.result));
  j.check("deps",
          oracles::check_captured_dependencies(c, bench.memory(), oracles::plan_provenance(std::move(model))).verdict);
}

// ---- attach ----

struct Upload {
  bool reached = false;  // the bind staged an upload (it did not latch first)
  bool changed = false;  // the mutations changed a byte of it
  std::optional<std::string> error;
  std::vector<runtime::Mutation> mutations;  // as applied
};

// The before-upload hook: the draws of a raw input are placed on the staged upload, else the
// plan's own `mutate` lines apply; `stop` ends the bind there (decoding only).
runtime::BeforeUploadHook mutate(Upload& u, const PlanCase& pc, const std::vector<gen::MutationDraw>* draws,
                                 bool stop) {
  return [&u, &pc, draws, stop](runtime::StagedUpload& up) -> std::optional<std::string> {
    u.reached = true;
    u.mutations = draws ? gen::resolve_mutations(*draws, up.bytes, up.image_offset) : pc.plan.mutations;
    if (stop) return std::string("decoded");
    const std::vector<std::byte> before(up.bytes.begin(), up.bytes.end());
    if (auto why = oracles::apply_mutations(u.mutations, up)) return u.error = *why;
    u.changed = !std::equal(before.begin(), before.end(), up.bytes.begin(), up.bytes.end());
    return std::nullopt;
  };
}

runtime::BindOptions attach_options(const PlanCase& pc) {
  runtime::BindOptions o = case_bind_options(pc);
  o.schedule.progress_timeout_ms = 2000;  // (threaded only; the adversarial policies never wait)
  return o;
}

}  // namespace

bool swarm_enabled() {
  static const bool on = [] {
    const char* v = std::getenv("STACKCHECK_NO_SWARM");
    return v == nullptr || *v == '\0' || std::string_view(v) == "0";
  }();
  return on;
}

// Smaller than the properties' programs (3 sites, 8 statements per body): a fifth fewer
// instructions per input (docs/throughput.md); three graphs still meet in one program.
gen::ProgramKnobs program_knobs() {
  return {.swarm = swarm_enabled(), .max_sites = 2, .max_graph_stmts = 6, .max_entry_stmts = 6};
}
// The default W=16384 one clean plan in 100.
gen::PlanKnobs plan_knobs() { return {.swarm = swarm_enabled(), .planted_percent = 10, .small_w_percent = 99}; }
// Clean plans (every image valid before the changes), the default W one in 100.
gen::PlanKnobs attach_knobs() { return {.swarm = swarm_enabled(), .small_w_percent = 99}; }

ProgramCase decode_program(gen::ChoiceSource& c) { return decode_program_case(c, program_knobs(), kDefaultWPerMille); }

PlanCase decode_plan(gen::ChoiceSource& c) { return decode_plan_case(c, plan_knobs(), true); }

AttachCase decode_attach(gen::ChoiceSource& c) {
  AttachCase a;
  a.draws = gen::draw_mutations(c);
  a.plan = decode_plan_case(c, attach_knobs(), false);
  return a;
}

int judge_program(Judgement& j, const ProgramCase& pc) {
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
    before = &st.program.get();
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
  j.check("bind-structure", oracles::check_bind_report(c, bench->memory()));
  j.check("bind-structure", oracles::check_image_deltas(c.image(), "shipped image"));
  j.check("bind-structure", oracles::check_graph_storage(c, bench->memory()));
  j.check("bind-structure", oracles::check_after_run(c, bench->memory(), pc.schedule, plan));
  check_model_and_deps(j, c, *bench, oracles::run_plan_model(plan, pc.seed));
  return j.done();
}

int judge_plan(Judgement& j, const PlanCase& pc) {
  const runtime::OrchProgram& plan = pc.plan;
  j.check("plan-text", oracles::check_plan_roundtrip(plan));
  auto bench = case_bench(j, "bind-structure", plan, /*strict_uninit=*/true, /*generator_config=*/pc.generated);
  if (!bench) return j.done();
  const oracles::Captured c = bench->bind(plan, case_bind_options(pc));
  j.observe([&] { return oracles::digest_bind(support::kFnvOffset, c.result, c.staged); });
  const runtime::BindResult& r = c.result;
  j.check("bind-structure", oracles::check_bind_report(c, bench->memory()));
  if (r.status == 0 || r.failure == runtime::BindFailure::kLatched)  // both reserved the entries first
    j.check("bind-structure", oracles::check_reserved_from_plan(plan, r.stats));
  if (r.status != 0) {
    if (r.failure == runtime::BindFailure::kLatched) j.check("bind-structure", oracles::check_latch_uploads_nothing(c));
    // A generated plan latches its planted code, or a config-bound one its small config ran
    // short of first (oracles/status_codes.h); a clean one only the latter.
    if (pc.generated && pc.planted == 0 && !oracles::config_bound_status(r.status))
      j.fail("bind-structure",
             Verdict::fail(r.failure == runtime::BindFailure::kDeviceFault ? "device-fault" : "bind-status",
                           fmt::format("a clean generated plan: {} ({})", runtime::status_line(r), r.detail)));
    if (pc.generated && pc.planted != 0 && !oracles::latched_as_planted(r.status, pc.planted))
      j.fail("bind-structure", Verdict::fail("planted-latches", fmt::format("a plan with planted code {}: {} ({})",
                                                                            pc.planted, runtime::status_line(r), r.detail)));
    j.check("bind-structure", oracles::bind_status_verdict(r));
    j.check("bind-structure", bench->check_teardown());  // a latched bind releases all the same
    return j.done();
  }
  if (pc.planted != 0)
    j.fail("bind-structure",
           Verdict::fail("planted-latches", fmt::format("a plan with a planted code {} bound with status 0", pc.planted)));
  oracles::PlanModelResult model = oracles::run_plan_model(plan, pc.seed);
  if (model.ok()) j.check("bind-structure", oracles::check_copies(r.stats, model.definitions, plan.tensors));
  j.check("bind-structure", oracles::check_image_read(c, bench->memory()));
  j.check("bind-structure", oracles::check_image_deltas(c.image(), "shipped image"));
  for (uint64_t off :
       {(uint64_t{1} << 31) - ((c.image_bytes / 2) & ~uint64_t{7}), (uint64_t{1} << 32) - c.image_bytes - 64})
    j.check("bind-structure", oracles::check_position_independent(c.image(), off));
  const runtime::Orchestrator& orch = bench->runtime().orchestrator();
  j.check("bind-structure",
          oracles::check_compaction_live_prefix(oracles::runtime_compactor(), bench->runtime().mirror_live(), orch.layout(),
                                                orch.cursors(), orch.submitted(), c.image()));
  j.check("bind-structure", oracles::check_graph_storage(c, bench->memory()));
  j.check("bind-structure", oracles::check_after_run(c, bench->memory(), pc.schedule, plan));
  // The same bind and model serve the plan-model and dependency oracles.
  check_model_and_deps(j, c, *bench, std::move(model));
  j.check("bind-structure", bench->check_teardown());
  return j.done();
}

int judge_attach(Judgement& j, const PlanCase& pc, const std::vector<gen::MutationDraw>* draws,
                 std::vector<runtime::Mutation>* applied) {
  // With strict uninitialised reads, as the corrupt-image property and its replay: attach
  // reads only where the runtime header's layout puts shipped bytes (RUNTIME.md §5, §11).
  auto bench = case_bench(j, "attach", pc.plan, /*strict_uninit=*/true, /*generator_config=*/pc.generated);
  if (!bench) return j.done();
  Upload u;
  runtime::BindOptions o = attach_options(pc);
  o.before_upload = mutate(u, pc, draws, false);
  const oracles::Captured c = bench->bind(pc.plan, o);
  if (applied) *applied = u.mutations;
  const runtime::BindResult& r = c.result;
  j.observe([&] { return oracles::digest_bind(support::kFnvOffset, r); });
  if (!u.reached) {  // nothing to corrupt: the orchestration latched (or the plan was refused)
    if (r.status == 0) j.fail("attach", Verdict::fail("hook", "a completed bind never reached its upload"));
    j.check("attach", oracles::bind_status_verdict(r));
    return j.done();
  }
  if (u.error) return j.reject("mutate: " + *u.error);
  if (!u.changed && r.status != 0)
    j.fail("attach", Verdict::fail("unchanged-image", fmt::format("an upload left as it was: {} ({})",
                                                                  runtime::status_line(r), r.detail)));
  for (const Verdict& v : oracles::judge_corrupt_bind(c, bench->memory(), u.mutations).verdicts) j.check("attach", v);
  return j.done();
}

std::variant<PlanCase, std::string> parse_bind_plan_case(std::string_view text) {
  return parse_plan_case(text, /*mutations=*/false);
}

std::variant<PlanCase, std::string> parse_attach_case(std::string_view text) {
  return parse_plan_case(text, /*mutations=*/true);
}

int judge_attach(Judgement& j, const PlanCase& pc) { return judge_attach(j, pc, nullptr); }

int judge_attach(Judgement& j, const AttachCase& a) { return judge_attach(j, a.plan, &a.draws); }

std::string print_case(const char* target, const ProgramCase& c) { return print_program_case(target, c); }

std::string print_case(const char* target, const PlanCase& c) { return print_plan_case(target, c); }

std::string print_case(const char* target, const AttachCase& c) { return print_plan_case(target, with_placed_draws(c)); }

PlanCase with_placed_draws(const AttachCase& a) {
  PlanCase pc = a.plan;
  if (auto bench = oracles::lease_bench(pc.plan, 0xAA, false)) {
    Upload u;
    runtime::BindOptions o = attach_options(pc);
    o.before_upload = mutate(u, pc, &a.draws, true);
    (void)bench->bind(pc.plan, o);
    pc.plan.mutations = u.mutations;
  }
  return pc;
}

}  // namespace stackcheck::judge
