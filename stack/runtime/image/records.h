// Shipped and device-only records of the runtime (RUNTIME.md §4, §5, §9).
// Invariant: every record is trivially copyable, standard layout, holds only integers,
// DevAddrs and int32 deltas (stored as int32_t; see self_relative.h), and has the size and
// field offsets pinned below by static_assert. Every byte is a named field: "reserved"
// fields must be zero (attach rejects them otherwise, DirtyPadding), so a record has no
// implicit padding and a zeroed record is the "unbound/empty" record.
// Deltas are relative to the delta field's own address (field address + delta = target).
// Header-only: device/ may include it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "stack/runtime/devmem/dev_addr.h"

namespace stackcheck::runtime {

// ---- enums stored in records ----
enum TaskKind : uint32_t {
  kKindInvalid = 0,
  kKindKernel = 1,
  kKindAlloc = 2,
  kKindGraph = 3,      // outer GRAPH task (the image holds kinds 1..3)
  kKindGraphNode = 4,  // only in GraphNodeStorage
};
inline constexpr int32_t kAllocKernelId = 7;   // ALLOC descriptors: the zero builtin
inline constexpr int32_t kGraphKernelId = -1;  // GRAPH descriptors
inline constexpr int32_t kMaxBuiltinKernelId = 7;

enum SlotStateValue : uint32_t {
  kSlotPending = 1,    // host
  kSlotCompleted = 2,  // host
  kSlotReady = 3,      // device
  kSlotRunning = 4,    // device
  kSlotDone = 5,       // device
};

// Tensor tags of TensorArg::tag (0 invalid).
enum TensorTag : uint32_t {
  kTagInvalid = 0,
  kTagInput = 1,
  kTagOutput = 2,
  kTagInout = 3,
  kTagOutputExisting = 4,
  kTagNoDep = 5,
};

// wake_head/wake_next values: 0 open/end, -1 closed, k+1 = waiter task k.
inline constexpr int32_t kWakeOpen = 0;
inline constexpr int32_t kWakeClosed = -1;

// ---- ImageHeader (128 B, image offset 0) ----
inline constexpr uint8_t kImageMagic[8] = {'S', 'T', 'K', 'I', 'M', 'G', 0, 1};
inline constexpr uint32_t kImageVersion = 1;

// Segment indices of ImageHeader::seg_off (header is at offset 0 and not listed).
enum Segment : uint32_t {
  kSegDesc = 0,
  kSegPayload = 1,
  kSegSlot = 2,
  kSegFlag = 3,
  kSegTensor = 4,
  kSegScalar = 5,
  kSegFanin = 6,
  kSegCount = 7,
};

struct ImageHeader {
  uint8_t magic[8];             // @0  "STKIMG\0\1"
  uint32_t version;             // @8  1
  uint32_t W;                   // @12 mirror pitch (task window), power of two in [4, 2^30]
  uint32_t pitch;               // @16 image pitch = max(n, 1)
  uint32_t n;                   // @20 submitted tasks
  uint32_t orch_done;           // @24 1 once the orchestration finished
  int32_t orch_error;           // @28 latched orchestrator code (0 none)
  int32_t sched_error;          // @32 scheduler code, CAS'd from 0 on device
  int32_t sched_error_thread;   // @36 worker id that latched sched_error
  uint64_t sched_error_bitmap;  // @40 one bit per worker that tried to latch
  uint64_t image_bytes;         // @48 end of the fanin pool
  uint64_t seg_off[kSegCount];  // @56 desc, payload, slot, flag, tensor, scalar, fanin
  uint32_t tensor_count;        // @112 TensorArg entries in the tensor pool
  uint32_t scalar_count;        // @116 u64 entries in the scalar pool (multiple of 8)
  uint32_t fanin_count;         // @120 i32 entries in the fanin pool
  uint32_t reserved;            // @124 0
};

// ---- TaskDescriptor (32 B) ----
struct TaskDescriptor {
  int32_t task_id;     // @0  == its index
  int32_t kernel_id;   // @4  KERNEL/GRAPH_NODE: builtin 0..7; ALLOC: 7; GRAPH: -1
  uint32_t kind;       // @8  TaskKind
  uint32_t reserved;   // @12 0
  DevAddr heap_begin;  // @16 packed task-heap block of its outputs (0,0 when none)
  DevAddr heap_end;    // @24
};

// ---- TaskPayload (32 B) ----
struct TaskPayload {
  uint16_t n_tensors;  // @0
  uint16_t n_scalars;  // @2
  uint16_t n_fanin;    // @4
  uint16_t n_nodes;    // @6  GRAPH: the definition's n; other kinds 0
  int32_t tensors;     // @8  delta -> TensorArg[n_tensors] in the tensor pool (bound <=> n>0)
  int32_t scalars;     // @12 delta -> u64[n_scalars] in the scalar pool (8-entry aligned)
  int32_t fanin;       // @16 delta -> i32[n_fanin] producer ids, ascending
  uint32_t reserved;   // @20 0
  DevAddr graph_ctx;   // @24 GRAPH: its GraphSubmission record; else 0
};

// ---- SlotState (32 B) ----
struct SlotState {
  uint32_t state;         // @0  SlotStateValue
  int32_t desc;           // @4  delta -> desc[i] (same index)
  int32_t payload;        // @8  delta -> payload[i]
  int32_t wake_head;      // @12 0 open, -1 closed, k+1 = first waiter k
  int32_t wake_next;      // @16 next waiter in the list this task waits in (k+1, 0 end)
  uint16_t wake_count;    // @20 waiters registered
  uint16_t reserved;      // @22 0
  int32_t last_consumer;  // @24 highest consumer id (host-computed)
  int32_t fanin_cursor;   // @28 == n_fanin at upload; scan position on device
};

// ---- TensorArg (64 B) ----
struct TensorArg {
  DevAddr base;           // @0  buffer base
  uint64_t buffer_bytes;  // @8  the kernel's span is [base, base+buffer_bytes)
  uint64_t offset_bytes;  // @16 window start inside the buffer
  uint32_t tag;           // @24 TensorTag
  uint32_t rank;          // @28 1..4
  int32_t shape[4];       // @32 elements; unused dims 0
  int32_t stride[4];      // @48 elements (i32); unused dims 0
};

// ---- RuntimeHeader (128 B, start of the copied zone) ----
inline constexpr uint8_t kRuntimeMagic[8] = {'S', 'T', 'K', 'R', 'T', 'H', 0, 1};
inline constexpr uint32_t kRuntimeVersion = 1;

struct RuntimeHeader {
  uint8_t magic[8];            // @0  "STKRTH\0\1"
  uint32_t version;            // @8  1
  uint32_t W;                  // @12 RuntimeConfig::W (== ImageHeader::W)
  uint32_t Q;                  // @16 ready ring capacity (entries)
  uint32_t graph_count;        // @20 GRAPH tasks in the image (== submission records)
  DevAddr image;               // @24 image start (inside the copied zone)
  uint64_t image_bytes;        // @32
  DevAddr submissions;         // @40 first GraphSubmission (64-aligned), 0 when none
  uint64_t submissions_bytes;  // @48
  DevAddr device_only;         // @56 SchedControl, then the ring of Q u64
  uint64_t device_only_bytes;  // @64
  DevAddr task_heap;           // @72
  uint64_t task_heap_bytes;    // @80
  DevAddr graph_heap;          // @88
  uint64_t graph_heap_bytes;   // @96
  DevAddr region;              // @104 the region reservation [device-only|copied|...]
  uint64_t region_bytes;       // @112
  uint64_t reserved;           // @120 0
};

// ---- SchedControl (64 B, start of the device-only zone; never shipped) ----
struct SchedControl {
  uint64_t ring_head;         // @0  next entry to pop (monotonic)
  uint64_t ring_tail;         // @8  next entry to push (monotonic)
  uint64_t ring_capacity;     // @16 Q
  uint64_t units_remaining;   // @24 tasks + nodes not yet completed
  uint64_t units_completed;   // @32
  uint64_t units_dispatched;  // @40
  int32_t fault;              // @48 nonzero: a worker hit a DeviceFault, all stop
  uint32_t workers;           // @52 worker threads running
  uint64_t reserved;          // @56
};
// Ring entry: (task << 16) | (node + 1); node + 1 == 0 for a plain task.
constexpr uint64_t ring_entry(uint64_t task, int64_t node) { return (task << 16) | static_cast<uint64_t>(node + 1); }

// ---- GraphSubmission (48 B header + TensorArg[n_bt] + u64[n_bs], 64-aligned, task order) --
struct GraphSubmission {
  DevAddr definition_addr;   // @0  its GraphDefinition (own reservation)
  uint64_t definition_hash;  // @8  == the definition's hash field
  DevAddr block_base;        // @16 graph-heap block [required_heap][args][storage]
  uint64_t block_bytes;      // @24
  int32_t outer_id;          // @32 the GRAPH task's id
  uint16_t n_bt;             // @36 boundary tensors
  uint16_t n_bs;             // @38 boundary scalars
  uint64_t record_bytes;     // @40 == 48 + 64 n_bt + 8 n_bs
  // followed by TensorArg boundary[n_bt] at +48 (unaligned to 64 is fine: 8-aligned)
  // and u64 scalars[n_bs]
};
constexpr uint64_t graph_submission_bytes(uint64_t n_bt, uint64_t n_bs) {
  return sizeof(GraphSubmission) + sizeof(TensorArg) * n_bt + 8 * n_bs;
}

// ---- GraphExecution (32 B, start of a submission's storage span) ----
inline constexpr uint64_t kGraphExecutionMagic = 0x31455845'474B5453ull;  // "STKGEXE1" LE
struct GraphExecution {
  uint64_t magic;            // @0
  uint32_t n;                // @8  nodes
  uint32_t nodes_remaining;  // @12 decremented per finished node; 0 completes the outer task
  int32_t outer;             // @16 outer GRAPH task id
  uint32_t reserved0;        // @20
  uint64_t reserved1;        // @24
};

// ---- GraphNodeStorage (104 B, at a 128 B stride after GraphExecution) ----
struct GraphNodeStorage {
  TaskDescriptor descriptor;  // @0   kind GRAPH_NODE
  SlotState slot;             // @32  deltas -> descriptor/payload of this entry
  TaskPayload payload;        // @64  deltas -> the block's arg area
  int32_t fanin_remaining;    // @96
  uint32_t reserved;          // @100
};
inline constexpr uint64_t kGraphNodeStride = 128;
// Storage span of n >= 1 nodes: ends at the last entry's full object, not at stride * n.
constexpr uint64_t graph_storage_bytes(uint64_t n) {
  return sizeof(GraphExecution) + kGraphNodeStride * (n - 1) + sizeof(GraphNodeStorage);
}
constexpr uint64_t graph_node_offset(uint64_t i) { return sizeof(GraphExecution) + kGraphNodeStride * i; }

// ---- pinned layouts ----
#define STK_RECORD(T, size)                       \
  static_assert(sizeof(T) == (size), #T " size"); \
  static_assert(std::is_trivially_copyable_v<T> && std::is_standard_layout_v<T>, #T)
STK_RECORD(ImageHeader, 128);
STK_RECORD(TaskDescriptor, 32);
STK_RECORD(TaskPayload, 32);
STK_RECORD(SlotState, 32);
STK_RECORD(TensorArg, 64);
STK_RECORD(RuntimeHeader, 128);
STK_RECORD(SchedControl, 64);
STK_RECORD(GraphSubmission, 48);
STK_RECORD(GraphExecution, 32);
STK_RECORD(GraphNodeStorage, 104);
#undef STK_RECORD
static_assert(offsetof(ImageHeader, image_bytes) == 48 && offsetof(ImageHeader, seg_off) == 56);
static_assert(offsetof(ImageHeader, tensor_count) == 112 && offsetof(ImageHeader, reserved) == 124);
static_assert(offsetof(TaskDescriptor, heap_begin) == 16);
static_assert(offsetof(TaskPayload, tensors) == 8 && offsetof(TaskPayload, scalars) == 12);
static_assert(offsetof(TaskPayload, fanin) == 16 && offsetof(TaskPayload, graph_ctx) == 24);
static_assert(offsetof(SlotState, desc) == 4 && offsetof(SlotState, payload) == 8);
static_assert(offsetof(SlotState, wake_count) == 20 && offsetof(SlotState, fanin_cursor) == 28);
static_assert(offsetof(TensorArg, shape) == 32 && offsetof(TensorArg, stride) == 48);
static_assert(offsetof(RuntimeHeader, region) == 104);
static_assert(offsetof(GraphSubmission, record_bytes) == 40);
static_assert(offsetof(GraphNodeStorage, slot) == 32 && offsetof(GraphNodeStorage, payload) == 64);
static_assert(offsetof(GraphNodeStorage, fanin_remaining) == 96);

// Field offsets used with the offset API (set_at / resolve).
inline constexpr uint64_t kSlotDescField = offsetof(SlotState, desc);
inline constexpr uint64_t kSlotPayloadField = offsetof(SlotState, payload);
inline constexpr uint64_t kPayloadTensorsField = offsetof(TaskPayload, tensors);
inline constexpr uint64_t kPayloadScalarsField = offsetof(TaskPayload, scalars);
inline constexpr uint64_t kPayloadFaninField = offsetof(TaskPayload, fanin);

// The three pools a TaskPayload points into, as compaction writes them and attach checks them:
// the name messages use, the delta field's offset in TaskPayload, the segment, the element bytes.
struct PayloadPool {
  const char* name;
  uint64_t field;
  Segment seg;
  uint64_t elem;
};
inline constexpr PayloadPool kPayloadPools[3] = {
    {"tensors", kPayloadTensorsField, kSegTensor, sizeof(TensorArg)},
    {"scalars", kPayloadScalarsField, kSegScalar, 8},
    {"fanin", kPayloadFaninField, kSegFanin, 4},
};

// Scalars are written in whole 64-byte lines: a task's scalar region spans
// align8(n_scalars) entries, the pad entries zero.
inline constexpr uint64_t kScalarLine = 8;
constexpr uint64_t scalar_region_entries(uint64_t n_scalars) {
  return (n_scalars + kScalarLine - 1) / kScalarLine * kScalarLine;
}

}  // namespace stackcheck::runtime
