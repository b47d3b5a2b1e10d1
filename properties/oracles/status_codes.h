// The status codes as RUNTIME.md §13 lists them: the oracles' own table. An oracle reads a bind's
// status through this, never through the stack's status_to_code or code_class, so a stack that
// maps or classes a code wrongly cannot turn its own failure into an inconclusive verdict.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace stackcheck::oracles {

// The code c a status -(1000 + c) names, for each listed c (orchestrator 1..11, scheduler
// 100..104); nullopt for 0, -1, -2 and any other status.
std::optional<int> latch_code(int32_t status);

// The name §13 gives a listed code (latch_code's), e.g. "TASK_WINDOW_EXHAUSTED"; "" for any other.
std::string_view spec_code_name(int code);

// A code that latches when a resource the RuntimeConfig sizes runs out: 2 (a heap, §6), 3 (the
// task window) and 4 (fanin, §7), 10 (scope tasks) and 11 (the tensormap, §8), 102 (the wait
// list) and 104 (the ready queue, §12). A plan with a small config may reach one before the
// outcome the case was built for; no other code is reached by running short of a resource.
bool config_bound_code(int code);
// The status names a config-bound code.
bool config_bound_status(int32_t status);

// The first code a latched bind of a generated plan may report (RUNTIME.md §13, §15.7): the
// code the generator planted (1..11; 0 for a clean plan), or a config-bound code, where the
// case's small config let the clean statements run short before the planted cause. A plan
// with a planted code that latched any other code latched for the wrong reason.
bool latched_as_planted(int32_t status, int planted);

}  // namespace stackcheck::oracles
