// fuzz_attach: a valid bind image with bytes changed anywhere, the runtime header included
// (HARNESS.md §1 "image bytes"). Raw bytes decode to 1..8 byte changes (gen/mutation_gen.h,
// drawn first), a seed, an adversarial schedule and a clean plan (gen/plan_gen.h); the
// changes are placed on the upload the plan's bind staged and applied through its
// before-upload hook (oracles/image_mutation.h): the runtime never carries a corruption
// path. Oracle (`attach`): attach rejects the image with a class, or the run ends in a
// scheduler or device code, runs to completion, or a builtin faults on corrupt tensor args,
// contained (oracles::check_corrupt_image_run); attach's outcome is the one the independent
// model of RUNTIME.md §11 predicts, its class or acceptance (oracles::judge_corrupt_bind, the
// judgement the corrupt-image property and replay share); never a DeviceFault in the
// runtime's own accesses, a sanitizer report or a hang; an upload the changes left as it was
// completes.
// Text form: a `.plan` with `mutate [header] OFF VAL` lines (RUNTIME.md §17) and
// `# replay: seed=S schedule=M` (properties/judge/cases.h); a plan without mutate lines binds as it is.
#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "fuzz/case_target.h"
#include "properties/judge/cases.h"
#include "fuzz/fuzz_target.h"
#include "properties/gen/mutation_gen.h"
#include "properties/oracles/attach_model.h"
#include "properties/oracles/bind_checks.h"
#include "properties/oracles/image_checks.h"
#include "properties/oracles/image_mutation.h"
#include "stack/runtime/plan/printer.h"

namespace stackcheck::fuzz {

namespace {

using oracles::Verdict;

// Clean plans (every image valid before the changes), the default W (a 45 MB mirror) one in 100.
gen::PlanKnobs attach_knobs() { return {.small_w_percent = 99}; }

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

runtime::BindOptions options(const PlanCase& pc) {
  runtime::BindOptions o = case_bind_options(pc);
  o.schedule.progress_timeout_ms = 2000;  // (threaded only; the adversarial policies never wait)
  return o;
}

int judge_attach(Judge& j, const PlanCase& pc, const std::vector<gen::MutationDraw>* draws) {
  // With strict uninitialised reads, as the corrupt-image property and its replay: attach
  // reads only where the runtime header's layout puts shipped bytes (RUNTIME.md §5, §11).
  auto bench = case_bench(j, "attach", pc.plan, /*strict_uninit=*/true, /*generator_config=*/pc.generated);
  if (!bench) return j.done();
  Upload u;
  runtime::BindOptions o = options(pc);
  o.before_upload = mutate(u, pc, draws, false);
  const oracles::Captured c = bench->bind(pc.plan, o);
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

}  // namespace

const char* target_name() { return "fuzz_attach"; }
bool parses_text_form() { return true; }

std::string text_form(std::span<const uint8_t> in) {
  return case_text_form(in, [](gen::ChoiceSource& c) {
    const std::vector<gen::MutationDraw> draws = gen::draw_mutations(c);
    PlanCase pc = decode_plan_case(c, attach_knobs(), false);
    // The bind up to its upload (stopped there), to place the changes on it.
    if (auto bench = oracles::Bench::create(pc.plan, 0xAA, false)) {
      Upload u;
      runtime::BindOptions o = options(pc);
      o.before_upload = mutate(u, pc, &draws, true);
      (void)bench->bind(pc.plan, o);
      pc.plan.mutations = u.mutations;
    }
    return print_plan_case(target_name(), pc);
  });
}

}  // namespace stackcheck::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace stackcheck::fuzz;
  return run_input(
      data, size, [](std::string_view text) { return parse_plan_case(text, /*mutations=*/true); },
      [](Judge& j, const PlanCase& pc) { return judge_attach(j, pc, nullptr); },
      [](Judge& j, stackcheck::gen::ChoiceSource& c) {
        // The changes first: the first bytes decide the corruption, the rest the plan.
        const std::vector<stackcheck::gen::MutationDraw> draws = stackcheck::gen::draw_mutations(c);
        const PlanCase pc = decode_plan_case(c, attach_knobs(), false);
        return judge_attach(j, pc, &draws);
      });
}
