// The limits of each generator (HARNESS.md §8 "a complete vocabulary", STYLE.md 16): for the
// generators that have no grammar of their own to walk (image mutations, orchestrator calls,
// stress-shaped plans, near misses, swarm draws), the productions their outputs can hold, each
// marked with the rule or design choice that forbids it (`unreachable`) or as a known gap of
// the generator (`gap`), in the form of productions.h so that production_table prints them and
// production_problems holds the generators to them: a production no input uses fails its test,
// and so does an unreachable one or a gap that some input uses (the list only shrinks).
//
// Each reader names the productions of one generated input from the input itself (the
// corrupted bytes against the clean ones, the call sequence run on a fresh model, the plan's
// statements and loop bounds, the near-miss text against the valid one, the knobs a case was
// built with against the caller's); where it must rely on the generator's own record it says
// so. The universes are in table order. No RapidCheck, no printing here.
#pragma once

#include <cstddef>
#include <cstdint>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "properties/gen/productions.h"
#include "properties/oracles/orchestrator_model.h"
#include "stack/runtime/plan/program.h"

namespace stackcheck::gen {

struct NearMiss;
struct ProgramKnobs;
struct PlanKnobs;

// Image mutations (mutation_gen.h): `muts` applied to a copy of `staged` (the clean upload,
// its ImageHeader at `image_offset`) and every changed byte placed by the clean upload's own
// layout (RUNTIME.md §4, §5, §9): the field of the record it falls in, the task record's
// index, what the field's value became against its old one, how many bytes and lines.
std::set<std::string> image_mutation_productions(std::span<const std::byte> staged, uint64_t image_offset,
                                                 std::span<const runtime::Mutation> muts);
std::vector<Production> image_mutation_production_universe();

// Orchestrator calls (orchestrator_calls.h): the setup's resources and graph bodies, and each
// call of the sequence in the state a fresh model of `setup` is in when it runs (after the
// calls before it), with its arguments, windows and handles; the code the sequence latches.
std::set<std::string> orchestrator_call_productions(const oracles::orch::ModelSetup& setup,
                                                    const std::vector<oracles::orch::Call>& calls);
std::vector<Production> orchestrator_call_production_universe();
// The command kinds of the orchestrator calls, in the order of oracles::orch::Call's
// alternatives: the name of one call is call_kind_names()[call.index()].
std::span<const char* const> call_kind_names();

// Stress-shaped plans (stress_plan.h): the shapes recognised from the plan's statements, each
// with its size class read from its loop bounds, the task count the loops make, the workers.
std::set<std::string> stress_plan_productions(const runtime::OrchProgram& p);
std::vector<Production> stress_plan_production_universe();

// Near misses (near_miss.h) of `valid` (a `.gir` text when `gir`, else a `.plan`): how the
// text differs from the valid one (lines, braces, line endings, bytes, a cut), and the
// corruption and rejecting front end the generator recorded.
std::set<std::string> near_miss_productions(bool gir, std::string_view valid, const NearMiss& m);
std::vector<Production> near_miss_production_universe();

// Swarm draws (swarm.h): the knobs a case is built with against the caller's `base`: each
// feature switch kept or turned off, each count cut, kept or widened, and whether the case
// kept the caller's knobs whole.
std::set<std::string> swarm_program_productions(const ProgramKnobs& base, const ProgramKnobs& drawn);
std::set<std::string> swarm_plan_productions(const PlanKnobs& base, const PlanKnobs& drawn);
std::vector<Production> swarm_production_universe();

}  // namespace stackcheck::gen
