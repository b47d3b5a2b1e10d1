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
// The oracle sequence is judge::judge_program (properties/judge/judges.h), which the all-tier
// property calls too. One pipeline run, one interpreter run of the original and one per pass that changed the
// program, one bind, one plan-model run.
// Text form: a `.gir` with `# replay: seed=S schedule=M step_c=0|1 W=N [generated=1]`
// (properties/judge/cases.h), parsed, not decoded.
#include "fuzz/case_target.h"

STACKCHECK_CASE_TARGET("fuzz_program", judge::parse_program_case, judge::decode_program, judge::judge_program)
