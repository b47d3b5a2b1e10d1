// The device state a completed run leaves (RUNTIME.md §5, §9, §12), read from device memory
// after a bind with status 0 and predicted from the shipped bytes and the definitions alone:
// - SchedControl: every unit pushed, popped, dispatched and completed once (head = tail = the
//   units, 0 under `newest`; dispatched = completed = the units), none remaining, capacity Q, no fault, the worker
//   count the run was asked for, the reserved word 0. The units are counted from the shipped flags (every unflagged
//   task) and the definitions' node counts (every node of an unflagged GRAPH task), never from the run's own report.
// - Every task's flag set. A task flagged at upload keeps its shipped slot byte for byte; an
//   unflagged one ends DONE with its wake list closed (-1), its fanin cursor at 0, no more
//   waiters than later tasks, its deltas and last consumer as shipped.
// - Each graph block (§12 "Graph outer task"): the GraphExecution of its outer task with no
//   node remaining; every node's TensorArg materialised in the arg area (a boundary tensor's
//   buffer with the frozen offset added, or block_base + internal_off[k] with its 64-aligned
//   range), every scalar (the submission's slot value or the literal); every node entry: its
//   descriptor (index, kernel, kind GRAPH_NODE, nothing else), its slot DONE with deltas to its
//   own descriptor and payload and the last of its fanout as last consumer, its payload's counts
//   and deltas into the arg area, no fanin remaining.
#pragma once

#include <cstdint>

#include "properties/oracles/image_checks.h"
#include "properties/oracles/oracle.h"
#include "stack/runtime/device/scheduler.h"
#include "stack/runtime/devmem/device_memory.h"
#include "stack/runtime/plan/program.h"

namespace stackcheck::oracles {

// A wrong rule, for the positive control.
enum class AfterRunFlaw : uint8_t {
  kNone,
  kNodesOpenWakeLists,  // a node slot's wake_head predicted -1 (closed), as a task's, not 0
};

// Oracle "after-run" on the capture of a bind of `plan` under `schedule` that returned 0. The
// worker count is DispatchThreads::expected_workers' for threads and PCT, else 1; the newest
// policy pops from the tail, so its ring ends with head = tail = 0.
Verdict check_after_run(const Captured& c, const runtime::DeviceMemory& mem, const runtime::ScheduleOptions& schedule,
                        const runtime::OrchProgram& plan, AfterRunFlaw flaw = AfterRunFlaw::kNone);

}  // namespace stackcheck::oracles
