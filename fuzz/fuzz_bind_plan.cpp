// fuzz_bind_plan: bytes decoded by the bind-plan generator (gen/plan_gen.h over ByteChoices:
// a seed, a schedule, then an orchestration program with its own RuntimeConfig, clean or
// with one planted fatal code) through the runtime alone. Oracles, over ONE bind:
//   plan-text       the plan prints and parses back to itself;
//   bind-structure  a latched bind uploads nothing (RUNTIME.md §15.7); a generated clean plan
//                   completes or latches a resource its config lacks, a planted one latches;
//                   on completion: one image copy, one definition copy per new definition
//                   and one upload per entry tensor (§15.4), image bytes read == shipped
//                   (§15.5), every delta int32 or unbound (§15.1), position independence near
//                   2^31 and 2^32 (§15.3), compaction reads only the live prefix (§15.2),
//                   graph storage spans exact (§15.8);
//   deps            the Boost.Graph dependency oracle on the shipped bytes (§15.10);
//   plan-model      the device result == the sequential plan model (§15.11).
// One bind (on a Bench: 0xAA memory, strict uninitialised reads) and one plan-model run
// serve them all.
// Text form: a `.plan` with `# replay: seed=S schedule=M [generated=1 planted=C]`
// (properties/judge/cases.h), parsed, not decoded.
#include "fuzz/case_target.h"
#include "properties/judge/cases.h"
#include "fuzz/fuzz_target.h"
#include "properties/oracles/bind_checks.h"
#include "properties/oracles/roundtrip.h"
#include "stack/runtime/status/codes.h"

#include <fmt/format.h>

namespace stackcheck::fuzz {

namespace {

using oracles::Verdict;

// The default W=16384 (a 45 MB mirror) one clean plan in 100.
gen::PlanKnobs fuzz_knobs() { return {.planted_percent = 10, .small_w_percent = 99}; }

int judge_plan(Judge& j, const PlanCase& pc) {
  const runtime::OrchProgram& plan = pc.plan;
  j.check("plan-text", oracles::check_plan_roundtrip(plan));
  auto bench = case_bench(j, "bind-structure", plan, /*strict_uninit=*/true, /*generator_config=*/pc.generated);
  if (!bench) return j.done();
  const oracles::Captured c = bench->bind(plan, case_bind_options(pc));
  j.observe([&] { return oracles::digest_bind(support::kFnvOffset, c.result, c.staged); });
  const runtime::BindResult& r = c.result;
  if (r.status != 0) {
    if (r.failure == runtime::BindFailure::kLatched) j.check("bind-structure", oracles::check_latch_uploads_nothing(c));
    if (pc.generated && pc.planted == 0 && !runtime::is_resource_latch_status(r.status))
      j.fail("bind-structure",
             Verdict::fail(r.failure == runtime::BindFailure::kDeviceFault ? "device-fault" : "bind-status",
                           fmt::format("a clean generated plan: {} ({})", runtime::status_line(r), r.detail)));
    j.check("bind-structure", oracles::bind_status_verdict(r));
    return j.done();
  }
  if (pc.planted != 0)
    j.fail("bind-structure", Verdict::fail("planted-latches", fmt::format("a plan with a planted code {} bound with "
                                                                          "status 0",
                                                                          pc.planted)));
  oracles::PlanModelResult model = oracles::run_plan_model(plan, pc.seed);
  if (model.ok()) j.check("bind-structure", oracles::check_copies(r.stats, model.definitions, plan.tensors.size()));
  j.check("bind-structure", oracles::check_image_read(c, bench->memory()));
  j.check("bind-structure", oracles::check_image_deltas(c.image(), "shipped image"));
  for (uint64_t off :
       {(uint64_t{1} << 31) - ((c.image_bytes / 2) & ~uint64_t{7}), (uint64_t{1} << 32) - c.image_bytes - 64})
    j.check("bind-structure", oracles::check_position_independent(c.image(), off));
  const runtime::Orchestrator& orch = bench->runtime().orchestrator();
  j.check("bind-structure",
          oracles::check_compaction_live_prefix(oracles::runtime_compactor(), bench->runtime().mirror(), orch.layout(),
                                                orch.cursors(), orch.submitted(), c.image()));
  j.check("bind-structure", oracles::check_graph_storage(c, bench->memory()));
  // The same bind and model serve the plan-model and dependency oracles.
  check_model_and_deps(j, c, *bench, std::move(model));
  return j.done();
}

PlanCase decode(gen::ChoiceSource& c) { return decode_plan_case(c, fuzz_knobs(), true); }

}  // namespace

const char* target_name() { return "fuzz_bind_plan"; }
bool parses_text_form() { return true; }

std::string text_form(std::span<const uint8_t> in) {
  return case_text_form(in, [](gen::ChoiceSource& c) { return print_plan_case(target_name(), decode(c)); });
}

}  // namespace stackcheck::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace stackcheck::fuzz;
  return run_input(
      data, size, [](std::string_view text) { return parse_plan_case(text, /*mutations=*/false); }, judge_plan,
      [](Judge& j, stackcheck::gen::ChoiceSource& c) { return judge_plan(j, decode(c)); });
}
