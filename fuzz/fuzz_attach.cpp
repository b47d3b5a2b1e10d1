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
// The oracle sequence is judge::judge_attach (properties/judge/judges.h), which the all-tier
// property calls too.
// Text form: a `.plan` with `mutate [header] OFF VAL` lines (RUNTIME.md §17) and
// `# replay: seed=S schedule=M` (properties/judge/cases.h); a plan without mutate lines binds as it is.
#include "fuzz/case_target.h"

STACKCHECK_CASE_TARGET("fuzz_attach", judge::parse_attach_case, judge::decode_attach, judge::judge_attach)
