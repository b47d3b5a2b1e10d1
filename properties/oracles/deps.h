// The dependency oracle (HARNESS.md §2.4, RUNTIME.md §15.10). It decodes the task DAG from
// the SHIPPED bytes alone (the staged [RuntimeHeader][image][submissions] captured by a
// before-upload hook, and each graph definition read back from device memory), never from
// the host's orchestrator, tensormap or definition cache, and checks that
//   - the DAG is acyclic, and
//   - every two tracked accesses (no_dep excluded) of different units whose exact element
//     footprints overlap, at least one of them a write, are ordered by a path from the
//     earlier unit (submission order; a graph's nodes in index order, between the tasks
//     before and after it) to the later.
// Units: kernel and ALLOC tasks (one vertex each), each GRAPH task as two vertices (start and
// completion) and each of its nodes, with the tensor addresses the scheduler materialises
// (patched boundary address or block_base + internal_off[k], plus the frozen offset). Edges:
// task fanin (producer completion -> consumer start), outer start -> node, node fanout CSR,
// node -> outer completion. Reads and writes: the tag (input reads; output/output_existing
// write; inout both) joined with what the builtin does with the parameter; ALLOC tasks write.
// A decode problem (bad delta, index out of range, a window outside its buffer) is a fail
// naming it, never a crash. A failure names both units, their windows and the `.plan` lines
// behind them (the plan model's provenance; for compiled programs also the .gir line).
// No RapidCheck here (oracles/ rule); nothing prints.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <boost/graph/adjacency_list.hpp>

#include "properties/oracles/image_checks.h"
#include "properties/oracles/oracle.h"
#include "properties/oracles/plan_model.h"
#include "stack/ir/ast.h"
#include "stack/passes/pipeline.h"
#include "stack/runtime/devmem/device_memory.h"
#include "stack/runtime/host/bind.h"
#include "stack/runtime/plan/program.h"

namespace stackcheck::oracles {

// ---- the decoded DAG ----

struct ByteRange {  // device bytes [lo, hi)
  uint64_t lo = 0, hi = 0;
  bool operator==(const ByteRange&) const = default;
};

// One tensor argument as its kernel receives it.
struct DecodedWindow {
  uint64_t base = 0, buffer_bytes = 0, offset_bytes = 0;
  uint32_t tag = 0, rank = 0;
  std::array<int32_t, 4> shape{}, stride{};  // elements
};

struct UnitAccess {
  uint32_t arg = 0;  // argument index within its unit
  DecodedWindow window;
  bool tracked = true;  // false: no_dep, excluded from the rule (no footprint)
  bool reads = false, writes = false;
  std::vector<ByteRange> footprint;  // the elements' bytes: sorted, disjoint, non-adjacent
};

enum class UnitKind : uint8_t { kKernel, kAlloc, kGraphStart, kGraphEnd, kNode };
const char* unit_kind_name(UnitKind k);

struct Unit {
  UnitKind kind = UnitKind::kKernel;
  int32_t task = -1;       // its task id (a node's: its GRAPH task's)
  int32_t node = -1;       // kNode: the node index
  int32_t kernel_id = -1;  // the builtin (kKernel, kNode; ALLOC 7); -1 for graph start/end
  uint32_t order = 0;      // position in submission order (start/end: that of their task)
  std::vector<UnitAccess> accesses;
};

enum class EdgeKind : uint8_t { kFanin, kOuterToNode, kNodeCsr, kNodeToOuter };
struct UnitEdge {
  EdgeKind kind = EdgeKind::kFanin;
};

using TaskDag = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS, Unit, UnitEdge>;
using UnitId = TaskDag::vertex_descriptor;

struct TaskGraph {
  TaskDag dag;
  std::vector<UnitId> task_start, task_end;     // per task id (equal for kernel and ALLOC tasks)
  std::vector<std::vector<UnitId>> task_nodes;  // per task id: a GRAPH's nodes in index order
};

// Reads `out.size()` bytes of device memory at `addr`; a message when it cannot.
using DefinitionReader = std::function<std::optional<std::string>(uint64_t addr, std::span<std::byte> out)>;
// Over DeviceMemory::inspect (no read bits, no counters); a DeviceFault becomes the message.
DefinitionReader device_definition_reader(const runtime::DeviceMemory& mem);

struct DecodeLimits {
  uint64_t max_ranges = 1ull << 24;  // footprint byte ranges over the whole graph
};
// Graphs travel by pointer: boost::adjacency_list has no move constructor, so a "move" of a
// TaskGraph is a deep copy.
struct DecodeResult {
  std::shared_ptr<TaskGraph> graph;  // null on an error
  std::string error;                 // why not, naming the record
  bool ok() const { return graph != nullptr; }
};
// `shipped`: the bytes of the one image copy, landing at device address `destination`.
DecodeResult decode_task_graph(std::span<const std::byte> shipped, uint64_t destination,
                               const DefinitionReader& read_definition, const DecodeLimits& limits = {});

// ---- provenance: the plan statements behind task ids and node indices ----

// A named device range (a reservation of the DeviceMemory ledger: `entry:x`, `task_heap`,
// `graph_heap`), so a report can say which buffer a window lies in.
struct NamedRange {
  ByteRange range;
  std::string name;
};

struct Provenance {
  std::vector<TaskOrigin> plan;    // `.plan` locations, by task id (the plan model's)
  std::vector<TaskOrigin> source;  // compiled programs: the .gir locations of the same tasks
  std::string note;                // why `plan` is empty, if it is
  std::vector<NamedRange> ranges;  // sorted by range.lo, disjoint
  // "entry:x+32" for an address inside a named range, else the address in hex.
  std::string address_name(uint64_t addr) const;
};
// The plan model's task origins for `p` with entry inputs from `seed` (reads steer ifs).
Provenance plan_provenance(const runtime::OrchProgram& p, uint64_t seed);
// The same from a model already run (run_plan_model of the plan and the seed).
Provenance plan_provenance(PlanModelResult model);

// ---- the checks ----

// How "a path from u to v" is answered: reachability rows (bitsets) built sinks first, one
// bit test per pair (the default; a breadth-first search per source past 16,384 units); a
// breadth_first_search from each unit that is the earlier of a conflicting pair; or
// boost::transitive_closure of the whole DAG. Measured by DepsOracle.thousand_tasks_timings
// (1,000 kernel tasks over overlapping 2-D windows: 1,000 units, 6,889 edges, 9,851 adjacent
// of 59,705 conflicting access pairs; dev preset, gcc -O1, best of 5 on 2 cores): decode
// 0.9 ms; check 3.0 ms by rows (6.7 ms asking every pair), 15 ms by BFS, 35 ms by the closure,
// most of the rows' time in the footprint sweep that finds the pairs. The other two are the
// cross-check (DepsOracle.bfs_and_closure_agree: all three agree).
enum class Reachability : uint8_t { kRows, kBfs, kClosure };
inline constexpr Reachability kDefaultReachability = Reachability::kRows;

// Which conflicting access pairs are asked. kAll: every pair of accesses of different units
// overlapping on some byte, one of them a write (quadratic in the accesses sharing a byte).
// kAdjacent (the default): on each byte, in submission order, each access against the last
// write before it, and each write against the reads since the previous write. Every pair of
// kAll is then ordered exactly when every adjacent pair is: an earlier access x and a later y
// conflicting on a byte reach each other through the writes between them on that byte
// (x -> the last write w before y -> y, x -> w by the same argument), and paths compose. So
// the verdict is the same; when an adjacent pair is unordered, the check asks kAll's pairs
// too, and reports and counts what kAll would (DepsOracle.adjacent_and_all_pairs_agree and
// DepsProps.adjacent_pairs_decide_as_all_pairs hold the two to the same verdict).
enum class Pairs : uint8_t { kAdjacent, kAll };

struct Conflict {
  UnitId earlier = 0, later = 0;
  uint32_t earlier_access = 0, later_access = 0;  // indices into Unit::accesses
  ByteRange overlap;                              // the first overlapping bytes found
};

struct DepsCheck {
  Verdict verdict;
  std::vector<UnitId> cycle;        // a cycle, in path order, when the DAG has one
  std::vector<Conflict> unordered;  // one per unordered unit pair (at most kMaxReported)
  uint64_t unordered_pairs = 0;     // all of them
  uint64_t conflicting_pairs = 0;   // distinct conflicting access pairs asked (kAll's on a fail)
  static constexpr size_t kMaxReported = 64;
};
DepsCheck check_task_graph(const TaskGraph& g, const Provenance& prov = {}, Reachability how = kDefaultReachability,
                           Pairs pairs = Pairs::kAdjacent);

// "task 3 (acc)", "task 2 node 1 (scale)", "task 2 (graph start)", with its plan line.
std::string describe_unit(const TaskGraph& g, UnitId u, const Provenance& prov);

// ---- whole runs ----

struct DepsRun {
  Verdict verdict;
  runtime::BindResult bind;
  std::shared_ptr<TaskGraph> graph;  // decoded whenever the upload happened (else null)
  DepsCheck check;
  Provenance provenance;
  std::string plan_text;  // compiled programs: the bound plan, whose lines the report names
};

// Binds `p` on its own DeviceMemory and Runtime (as bind_plan does) with `opts`, whose own
// before-upload hook runs first; captures the shipped bytes, decodes them (definitions read
// back while the Runtime lives) and checks them.
//   inconclusive: the bind did not complete (a resource latch with its code, -2 unsupported,
//                 else runtime-refused with the status);
//   fail:         deps-decode, deps-acyclic or deps-order.
DepsRun check_plan_dependencies(const runtime::OrchProgram& p, const runtime::BindOptions& opts = {});

// The same checks on a bind already made: `c` as a Bench (image_checks.h) captured it, `mem`
// the device memory it ran on, still holding the uploaded definitions (its Runtime alive).
// Lets one bind serve this oracle and the others (the fuzz targets bind once per input).
DepsRun check_captured_dependencies(const Captured& c, const runtime::DeviceMemory& mem, Provenance prov = {});

// Compiles `p` (pipeline + codegen), prints and reparses the plan (so the report names its
// lines; the codegen output itself gives the .gir lines), then check_plan_dependencies.
//   inconclusive: also the pipeline rejecting p; fail: also codegen rejecting a legal program.
DepsRun check_program_dependencies(const ir::Program& p, const runtime::BindOptions& opts = {},
                                   const passes::PipelineOptions& pipeline = {},
                                   const std::vector<runtime::ConfigEntry>& config = {});

// ---- Graphviz (boost::write_graphviz) ----

// The DAG as a `digraph`: one vertex per unit (task id, kind, builtin / node index, plan
// line), its edges by kind, and every unordered conflicting pair as a red dashed edge
// labelled with the overlapping bytes' window.
std::string dependency_dot(const TaskGraph& g, const DepsCheck& c, const Provenance& prov = {});

}  // namespace stackcheck::oracles
