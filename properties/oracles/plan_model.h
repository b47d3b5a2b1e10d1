// The plan model: the runtime's own oracle (HARNESS.md §2.5, RUNTIME.md §15.11). The device
// result of an orchestration program must equal its SEQUENTIAL execution in submission
// order, each graph submission replaying its recorded nodes in index order with the values
// frozen at recording. The model runs the program directly on host buffers:
//   - entry tensors filled like bind fills them (splitmix64(seed), one draw per element, low
//     32 bits, in declaration order); In entries report their uploaded values, InOut entries
//     their final ones; `read` reads the uploaded (host) copy of an In entry;
//   - `alloc` buffers start zeroed; the builtins (COMPILER.md §2) are its own few lines of
//     i32 wrap-around arithmetic, every input read before any output is written;
//   - a graph is RECORDED on a key miss (graph, each boundary tensor's tag, shape, stride and
//     alias class, the scalar count, as the runtime keys its cache) with every value evaluated
//     then and `scalar $k` kept as slot k; every submission, the first included, REPLAYS its
//     record with its own boundary windows and slot values; past 16 definitions a miss runs
//     the body once with live values, as the runtime inlines it;
//   - scopes are tracked so that the model never disagrees by accident: using a buffer after
//     the scope that allocated it ended (the runtime may reuse its memory) is a model error.
// It needs no compiler: only the program type, the support arithmetic and the bind result.
// A program the runtime would latch on (fatal, wait_tensor, bad windows, zero divisors,
// unbalanced scopes, ...) or that exceeds the model's budgets gives a model error, never a
// crash. Argument tags only matter to it where they change values (output allocation,
// graph keys): checking them is the orchestrator's job (latch 5).
// Assumption: the device result comes from a Runtime with an empty definition cache (one
// bind_plan), since the cache decides which submissions record.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "properties/oracles/oracle.h"
#include "stack/runtime/host/bind.h"
#include "stack/runtime/plan/program.h"

namespace stackcheck::oracles {

struct PlanModelLimits {
  uint64_t max_statements = 10'000'000;   // statements executed, loop iterations included
  uint64_t max_elements = 1ull << 26;     // i32 elements allocated over the whole run
  uint64_t max_element_ops = 1ull << 30;  // element operations of the builtins
};

struct ModelEntry {
  std::string name;
  bool inout = false;
  std::vector<uint8_t> bytes;  // little-endian i32, row-major, like runtime::EntryResult
};

// Provenance of one task, in submission order (the runtime's task ids): the statement that
// created it, and for a GRAPH task the body statement behind each node of its definition, in
// node index order (the recording's, so a replay names the lines recorded). A graph run inline
// (a full definition cache) gives one kKernel/kAlloc task per body statement instead.
struct TaskOrigin {
  enum class Kind : uint8_t { kKernel, kAlloc, kGraph };
  Kind kind = Kind::kKernel;
  runtime::PlanLoc loc;
  std::vector<runtime::PlanLoc> nodes;  // kGraph only
};

struct PlanModelResult {
  std::optional<std::string> error;  // why the model gives no result for this program
  std::vector<ModelEntry> entries;   // declaration order (on success)
  size_t definitions = 0;            // graph definitions recorded (distinct keys, at most 16)
  size_t inlined = 0;                // graph submissions run inline (a miss with the cache full)
  uint64_t graph_internal = 0;       // Σ required_heap over the GRAPH tasks (the stats' gint)
  std::vector<TaskOrigin> tasks;     // submission order (on success)
  uint64_t statements = 0;           // statements executed, loop trips included (BindOptions::max_statements)
  bool ok() const { return !error.has_value(); }
};

PlanModelResult run_plan_model(const runtime::OrchProgram& p, uint64_t seed, const PlanModelLimits& limits = {});

// Compares `device` (the bind of `p` with entry inputs from `seed`) with the model, entry by
// entry, by name and position.
//   inconclusive: the model errs on p ("plan-model"), or the bind did not complete (a nonzero
//                 status; "resource-latch" for a resource latch, else "bind-status": other
//                 oracles judge statuses);
//   fail:         ("plan-model") a different entry list (count, name, direction) or a byte
//                 that differs, naming tensor and element with both values; ("plan-model-stats")
//                 a bind (of a fresh Runtime, as bind_plan makes) whose stats line reports other
//                 counts of tasks, graph nodes, resident definitions, inlined graph
//                 submissions or graph-internal heap bytes than the model's run gives.
Verdict check_plan_model(const runtime::OrchProgram& p, uint64_t seed, const runtime::BindResult& device);
// The same comparison against a model already run (run_plan_model of p and the seed), so one
// model run serves this oracle and others (the dependency oracle's provenance, copy counts).
Verdict check_plan_model(const PlanModelResult& model, const runtime::BindResult& device);

// A plan that fits every resource by construction must complete, and as the model says
// (oracle "plan-completes", for the stress-shaped plans of gen/stress_plan.h):
//   fail: ("runtime-status") any nonzero status, a stall's code 100 among them; then what
//         check_plan_model fails on; then ("each-unit-once") a unit dispatched twice, or a
//         trace whose length is not the model's tasks plus the graph nodes (the stats' count,
//         which check_plan_model has held to the model).
Verdict check_plan_completes(const PlanModelResult& model, const runtime::BindResult& device);

}  // namespace stackcheck::oracles
