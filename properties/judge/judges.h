// The oracle sequence of each input kind, written once (HARNESS.md §9): a generated or parsed
// program, a plan, and a plan whose staged upload is corrupted before attach. The fuzz targets
// (fuzz_program, fuzz_bind_plan, fuzz_attach) are thin wrappers over these, the all-tier
// properties (judge_props.cpp) call them on the same decoded cases, and the replay driver's
// classification and determinism digest go through them; so what a fuzz target checks and what
// a property checks cannot drift. Each judge sends its verdicts to a Judgement and returns
// what done() returns.
//
//   judge_program  roundtrip; pipeline (verifier after every pass, no false rejection of a
//                  generated program, the boundary invariants); semantics before == after every
//                  pass; codegen and the `.plan` round trip; end-to-end (device == interpreter,
//                  one image copy, every shipped byte read, 0xAA memory with strict
//                  uninitialised reads); bind-structure (deltas, graph storage spans);
//                  plan-model; deps.
//   judge_plan     plan-text; bind-structure (a latched bind uploads nothing, the status a
//                  generated plan must end with, copies, image bytes read == shipped, deltas,
//                  position independence near 2^31 and 2^32, compaction, graph storage);
//                  plan-model; deps.
//   judge_attach   the corrupted upload judged as one (oracles::judge_corrupt_bind: contained
//                  outcome, the attach model's class, accepted graph blocks, fanin).
#pragma once

#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "properties/gen/choice.h"
#include "properties/gen/mutation_gen.h"
#include "properties/judge/cases.h"
#include "properties/judge/judgement.h"
#include "stack/runtime/plan/program.h"

namespace stackcheck::judge {

// The fuzz targets' decodings of raw bytes (also what the all-tier properties draw):
// fuzz_program's smaller programs (3 sites, 8 statements a body) with W=16384 one case in 100;
// fuzz_bind_plan's plans, a planted fatal code in a tenth; fuzz_attach's clean plans with the
// changes drawn first (the first bytes decide the corruption, the rest the plan).
// Each case draws a swarm mask first (gen/swarm.h) unless STACKCHECK_NO_SWARM is set (not
// empty, not 0): then the bytes decode as they did before swarm generation, so the committed
// bench corpus measures the same inputs across commits (scripts/throughput sets it).
bool swarm_enabled();
// The knobs the three generator targets decode with.
gen::ProgramKnobs program_knobs();
gen::PlanKnobs plan_knobs();
gen::PlanKnobs attach_knobs();
inline constexpr int kDefaultWPerMille = 10;  // fuzz_program: W=16384 (a 45 MB mirror) one case in 100
ProgramCase decode_program(gen::ChoiceSource& c);
PlanCase decode_plan(gen::ChoiceSource& c);
struct AttachCase {
  std::vector<gen::MutationDraw> draws;
  PlanCase plan;
};
AttachCase decode_attach(gen::ChoiceSource& c);

// The text forms each target parses (cases.h): fuzz_bind_plan's takes no `mutate` lines.
std::variant<PlanCase, std::string> parse_bind_plan_case(std::string_view text);
std::variant<PlanCase, std::string> parse_attach_case(std::string_view text);

int judge_program(Judgement& j, const ProgramCase& pc);
int judge_plan(Judgement& j, const PlanCase& pc);
// `draws` (a decoded case) are placed on the staged upload; without them the plan's own
// `mutate` lines apply (a text form). `applied` (optional) receives the changes as applied,
// set before the first verdict, so a failure can print the case with them.
int judge_attach(Judgement& j, const PlanCase& pc, const std::vector<gen::MutationDraw>* draws,
                 std::vector<runtime::Mutation>* applied = nullptr);
// A case of either kind, as fuzz_attach judges it: a parsed one with its `mutate` lines, a
// decoded one with its draws.
int judge_attach(Judgement& j, const PlanCase& pc);
int judge_attach(Judgement& j, const AttachCase& a);

// A decoded attach case as a text form's case: the bind run up to its upload (stopped there)
// to place the draws on it, which become the plan's `mutate` lines.
PlanCase with_placed_draws(const AttachCase& a);

// A case's text form under `target`'s header (a decoded attach case with its draws placed).
std::string print_case(const char* target, const ProgramCase& c);
std::string print_case(const char* target, const PlanCase& c);
std::string print_case(const char* target, const AttachCase& c);

}  // namespace stackcheck::judge
