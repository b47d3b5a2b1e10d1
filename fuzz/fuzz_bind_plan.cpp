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
// The oracle sequence is judge::judge_plan (properties/judge/judges.h), which the all-tier
// property calls too. One bind (on a Bench: 0xAA memory, strict uninitialised reads) and one plan-model run
// serve them all.
// Text form: a `.plan` with `# replay: seed=S schedule=M [generated=1 planted=C]`
// (properties/judge/cases.h), parsed, not decoded.
#include "fuzz/case_target.h"

STACKCHECK_CASE_TARGET("fuzz_bind_plan", judge::parse_bind_plan_case, judge::decode_plan, judge::judge_plan)
