// The cases of the generator targets (fuzz_program, fuzz_bind_plan, fuzz_attach) and of the
// all-tier properties, judged by judges.h: what raw
// bytes decode to (the shared generators over gen::ByteChoices, parameters first so that a
// change in the program's bytes never moves them) and what a text form parses to, and the
// canonical text of each. A text form is `# stackcheck <target>`, then comment lines, among
// them one `# replay: KEY=VALUE ...` line with the case's parameters (oracles/replay.h), then
// the `.gir` or `.plan` text:
//   programs: seed=S schedule=M step_c=0|1 W=N [generated=H]
//   plans:    seed=S schedule=M [generated=H planted=C]   (the config is the plan's own line)
// generated=H says the input came from the generator, which vouches for it: a generated
// program is legal (a pipeline rejection is a failure), a generated clean plan binds or
// latches only a resource its small config lacks, a planted one latches. H is the FNV-1a-64
// (16 hex digits) of the canonical text of the program (of the plan, then `planted=C`): a
// text whose program or plan was changed since (a libFuzzer mutant of a regression file, an
// edit) no longer matches, so nobody vouches for it any more and it is judged like any
// other text; comments and layout do not count. Absent parameters take their defaults:
// seed 0, schedule newest, step_c 1, the runtime's own config.
// A text asking for W > kMaxFuzzW is rejected: the runtime allows 2^19 (a 1.5 GB mirror,
// filled at creation), which no fuzz execution should pay for or hit the RSS limit with.
// Nothing here prints; a text that does not parse gives its error.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "properties/gen/choice.h"
#include "properties/gen/plan_gen.h"
#include "properties/gen/program_gen.h"
#include "stack/ir/ast.h"
#include "stack/runtime/device/scheduler.h"
#include "stack/runtime/plan/program.h"

namespace stackcheck::judge {

inline constexpr int64_t kMaxFuzzW = 16384;  // the runtime's default W: a 45 MB mirror

struct ProgramCase {
  ir::Program program;
  uint64_t seed = 0;
  runtime::ScheduleOptions schedule;
  bool step_c = true;
  std::vector<runtime::ConfigEntry> config;  // W (empty: the runtime's default)
  bool generated = false;                    // the generator vouches for it (decoded, or a matching generated=H)
  gen::FeatureSet features;                  // decoded: what the generator built in (empty when parsed)
  gen::SwarmMask swarm;                      // decoded: the case's swarm draw
};

struct PlanCase {
  runtime::OrchProgram plan;  // its config line, and for fuzz_attach its mutate lines
  uint64_t seed = 0;
  runtime::ScheduleOptions schedule;
  bool generated = false;  // the generator vouches for it (decoded, or a matching generated=H)
  int planted = 0;         // generated: the fatal code the generator planted (0: a clean plan)
  gen::PlanFeatureSet features;  // decoded: what the generator built in (empty when parsed)
  gen::SwarmMask swarm;          // decoded: the case's swarm draw
};

// A schedule: newest most often, oldest, random:S, and threaded when `threaded` allows it
// (a corrupt image has no business with real threads; the adversarial policies never hang).
runtime::ScheduleOptions decode_schedule(gen::ChoiceSource& c, bool threaded);

// seed, schedule, step_c, W (small mostly: 256, 64, 1024; the default 16384 one case in
// `default_w_per_mille`/1000), then the program.
ProgramCase decode_program_case(gen::ChoiceSource& c, const gen::ProgramKnobs& knobs, int default_w_per_mille);
// seed, schedule, then the plan (whose generator picks its own config).
PlanCase decode_plan_case(gen::ChoiceSource& c, const gen::PlanKnobs& knobs, bool threaded);

std::variant<ProgramCase, std::string> parse_program_case(std::string_view text);
// `mutations`: whether `mutate` lines are allowed (fuzz_attach) or an error (fuzz_bind_plan).
std::variant<PlanCase, std::string> parse_plan_case(std::string_view text, bool mutations);

// A case's `# replay:` parameters, in the order its text form prints them.
std::vector<std::pair<std::string, std::string>> replay_params(const ProgramCase& c);
std::vector<std::pair<std::string, std::string>> replay_params(const PlanCase& c);

std::string print_program_case(const char* target, const ProgramCase& c);
std::string print_plan_case(const char* target, const PlanCase& c);

}  // namespace stackcheck::judge
