// The host orchestrator's plan interpreter (RUNTIME.md §17, §8): runs the statements of an
// orchestration program, in order, against an Orchestrator. Scalars are i64 with the
// orchestration arithmetic (orch_arith.h: a zero divisor or zero step latches 5); `read`
// reads the host copy of an entry In tensor (§12 "Host reads"; an index outside the window
// latches 5); `alloc`, `view`, `submit` map to alloc_tensors, TensorRef::window and submit.
// It stops at the first latch (every later call would be a no-op anyway) or when the
// statement budget runs out (so no plan can hang the host).
// The program must have passed validate_plan; a violated assumption is a STACK_CHECK.
// submit_graph (§9) runs the graph's body against the GraphRecorder (host/graph/recorder.h): when
// recording, `scalar $k` passes SLOT k and every other scalar, `$k` arithmetic included, is
// evaluated now and frozen; its statements count against the same budget.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "stack/runtime/host/orchestrator.h"
#include "stack/runtime/plan/program.h"

namespace stackcheck::runtime {

// An entry tensor as the orchestration sees it: a whole external buffer and its host copy.
struct EntryView {
  std::string name;
  TensorRef ref;
  std::span<const int32_t> host;  // row-major values, as uploaded
  bool inout = false;
};

struct InterpretResult {
  enum class Outcome : uint8_t {
    kCompleted,        // ran to the end, or stopped at a latch (see Orchestrator::error)
    kBudgetExhausted,  // more than max_statements statements (loop iterations included)
  };
  Outcome outcome = Outcome::kCompleted;
  std::string detail;
  uint64_t statements = 0;  // executed, loop iterations counted once each
};

// Runs p.body (not the root scope: bind opens and closes it) against `orch`. graph_ids[i] is
// the function id of p.graphs[i] (missing entries: i, definition order); a Runtime passes
// ids that stay distinct for distinct graphs across the programs it binds, since its graph
// cache outlives one bind.
InterpretResult run_plan(const OrchProgram& p, Orchestrator& orch, std::span<const EntryView> entries,
                         uint64_t max_statements = 10'000'000, std::span<const uint32_t> graph_ids = {});

}  // namespace stackcheck::runtime
