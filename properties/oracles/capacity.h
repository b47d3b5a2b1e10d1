// Runtime capacities at a plan's need and one past it (HARNESS.md §8 boundary values; RUNTIME.md
// §4 config keys, §8 latches, §13 codes). A capacity is hit exactly (the plan binds, with the
// results a roomy bind gives) and one past (the plan latches that capacity's own code, first and
// alone), with the need found by binding, never read from the runtime's report of itself:
//   - W (the task window, a power of two): the need is the number of tasks the plan model
//     counts; the plan is padded with tasks up to exactly W (at) or W + 1 (past, latch 3);
//   - scope_tasks_capacity (10), tensormap_capacity (11), task_heap and graph_heap (2): the
//     least value at which the plan binds, found by a galloping then binary search over binds;
//     for the heaps it must equal the high-water mark the roomy bind's stats report (a
//     cross-check of the latch against the runtime's own accounting), and for the others one
//     less must latch the key's code.
// A need below a key's least legal value cannot be met exactly: the finding says so (tag
// `below-min`) and nothing past it is judged.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>

#include "properties/oracles/oracle.h"
#include "stack/runtime/host/bind.h"
#include "stack/runtime/plan/program.h"

namespace stackcheck::oracles {

struct CapacityKey {
  const char* key;  // the config key (RUNTIME.md §4)
  int code;         // the fatal code one past it latches (§13)
  int64_t lo;       // its least legal value (runtime_config's rules)
  int64_t hi;       // the largest value the search tries
};
std::span<const CapacityKey> capacity_keys();

// Binds a plan on a fresh Runtime with the property's options (a control substitutes one).
using PlanBinder = std::function<runtime::BindResult(const runtime::OrchProgram&)>;

// `p` with `k` more tasks at the end of its root block: one `alloc` of a 1-element buffer, then
// k - 1 fills of it in a counting loop (entry tensors untouched). Names that `p` does not use.
runtime::OrchProgram pad_with_tasks(runtime::OrchProgram p, uint64_t k);
// `p` with config `key` = v (the entry replaced, or added).
runtime::OrchProgram with_config(runtime::OrchProgram p, const std::string& key, int64_t v);

// The least value of config `key` in [lo, hi] at which `bind` binds `p` with status 0 (a
// capacity that binds binds at every larger value): a galloping search up from lo, then a
// bisection; nullopt when it does not bind even at hi. Measured by binding.
std::optional<int64_t> least_binding(const runtime::OrchProgram& p, const std::string& key, int64_t lo, int64_t hi,
                                     const PlanBinder& bind);

struct CapacityFinding {
  std::string tag;              // at+past, below-min, ...: what the case reached
  std::optional<int64_t> need;  // the value the plan was bound at, at the limit
  std::string repro;            // the config (and padding) of the failing bind, one line
};

// Judges `p` (a clean plan that `bind` binds with status 0 under its own config: the roomy
// bind) at key `k`'s need and one past it. `tasks` is the plan model's task count (used for W).
// A task heap need below its least legal value (1 KiB) is raised by a 2 KiB `alloc` appended
// to the plan (tag `raised`), so that most cases meet that limit exactly.
Verdict check_capacity_at_need(const runtime::OrchProgram& p, const CapacityKey& k, uint64_t tasks,
                               const PlanBinder& bind, CapacityFinding* finding = nullptr);

// Limits of a plan's own shape (RUNTIME.md §8, §9; support/limits.h's figures read from the
// spec): statements appended at the end of a clean plan's root block that meet the limit
// exactly (the plan binds, with the roomy bind's entry tensors: the additions touch only
// buffers of their own) and one past it (the limit's code latched first, nothing shipped).
struct StructuralLimit {
  const char* name;
  int code;       // the fatal code one past it latches (§13)
  int64_t limit;  // the largest legal value
};
std::span<const StructuralLimit> structural_limits();

// `p` with the statements of limit `l` at value `n` appended (and a graph, for the graph
// limits), under names `p` does not use; W raised to 1024 where the additions need tasks.
runtime::OrchProgram append_at_limit(runtime::OrchProgram p, const StructuralLimit& l, int64_t n);

// Judges `p` (a clean plan; `bind` binds it with status 0) with limit `l` met exactly and one
// past it; `definitions` is the plan model's count of graph definitions (a graph limit needs
// room in the definition cache: 16).
Verdict check_structural_limit(const runtime::OrchProgram& p, const StructuralLimit& l, size_t definitions,
                               const PlanBinder& bind, CapacityFinding* finding = nullptr);

}  // namespace stackcheck::oracles
