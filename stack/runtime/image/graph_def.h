// GraphDefinition binary format (RUNTIME.md §9): offsets only, no addresses, so a definition
// is uploaded once into its own reservation and shared by every replay.
// Layout (every section at ALIGN64 of the previous end; planned by plan_graph_def):
//   GraphDefHeader (128 B) | NodeDef[n] | GraphTensorArgDef[T] | GraphScalarArgDef[K] |
//   u16 fanin[E] | u16 fanout[E] | u64 internal_off[n_internal + 1]
// Invariants checked by validate_graph_def (used by attach through DeviceAccess and by the
// host on byte buffers): magic "STKGDEF1"; hash = FNV-1a-64 of all total_bytes with the hash
// field zeroed; offsets equal the plan from the counts; node argument and edge ranges are
// consecutive prefix ranges; each fanin index < node < each fanout index, both ascending,
// and the two CSRs are transposes; args reference boundary i < n_bt / internal k <
// n_internal / slot k < n_bs; internal_off are ALIGN64 prefix sums ending at required_heap;
// storage_bytes == graph_storage_bytes(n); §9 limits; required_heap + args + storage <=
// INT32_MAX. Header-only validation; the encoder (graph_def.cpp) is host-side.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "stack/runtime/image/layout.h"
#include "stack/runtime/image/records.h"
#include "stack/support/fnv1a.h"
#include "stack/support/limits.h"

namespace stackcheck::runtime {

inline constexpr uint8_t kGraphDefMagic[8] = {'S', 'T', 'K', 'G', 'D', 'E', 'F', '1'};
inline constexpr uint32_t kGraphMaxNodes = support::kGraphMaxNodes;
inline constexpr uint32_t kGraphMaxBoundaryTensors = support::kGraphMaxTensors;
inline constexpr uint32_t kGraphMaxBoundaryScalars = support::kGraphMaxScalars;
inline constexpr uint32_t kGraphMaxNodeTensors = support::kTaskMaxTensors;
inline constexpr uint32_t kGraphMaxNodeScalars = support::kTaskMaxScalars;

struct GraphDefHeader {
  uint8_t magic[8];             // @0   "STKGDEF1"
  uint64_t hash;                // @8   FNV-1a-64, computed with this field zero
  uint64_t total_bytes;         // @16  whole definition
  uint32_t fn_id;               // @24
  uint32_t n_nodes;             // @28  1..1024
  uint32_t n_boundary_tensors;  // @32  <= 128
  uint32_t n_boundary_scalars;  // @36  <= 64
  uint32_t n_tensor_args;       // @40  T = sum of node n_tensors
  uint32_t n_scalar_args;       // @44  K = sum of node n_scalars
  uint32_t n_internal;          // @48  INTERNAL allocations
  uint32_t n_edges;             // @52  E (fanin entries == fanout entries)
  uint64_t required_heap;       // @56  == internal_off[n_internal]
  uint64_t storage_bytes;       // @64  == graph_storage_bytes(n_nodes)
  uint64_t nodes_off;           // @72
  uint64_t tensor_args_off;     // @80
  uint64_t scalar_args_off;     // @88
  uint64_t fanin_off;           // @96
  uint64_t fanout_off;          // @104
  uint64_t internal_off_off;    // @112
  uint64_t reserved;            // @120 0
};

struct NodeDef {
  int32_t kernel_id;      // @0  builtin 0..7 (7: an alloc_tensors node)
  uint32_t tensor_begin;  // @4  first GraphTensorArgDef
  uint32_t scalar_begin;  // @8  first GraphScalarArgDef
  uint32_t fanin_begin;   // @12 first fanin CSR entry
  uint32_t fanout_begin;  // @16 first fanout CSR entry
  uint16_t n_tensors;     // @20 <= 32
  uint16_t n_scalars;     // @22 <= 16
  uint16_t n_fanin;       // @24
  uint16_t n_fanout;      // @26
  uint32_t reserved;      // @28 0
};

enum GraphTensorSource : uint32_t { kSrcBoundary = 1, kSrcInternal = 2 };
struct GraphTensorArgDef {
  uint32_t source;        // @0  GraphTensorSource
  uint32_t index;         // @4  boundary i or internal k
  uint64_t offset_bytes;  // @8  frozen view offset inside the tensor's buffer
  uint32_t tag;           // @16 TensorTag
  uint32_t rank;          // @20 1..4
  int32_t shape[4];       // @24
  int32_t stride[4];      // @40
  uint64_t reserved;      // @56 0
};

enum GraphScalarSource : uint32_t { kScalarSlot = 1, kScalarLiteral = 2 };
struct GraphScalarArgDef {
  uint32_t source;    // @0 GraphScalarSource
  uint32_t reserved;  // @4 0
  uint64_t value;     // @8 slot index k (< n_boundary_scalars) or the literal
};

static_assert(sizeof(GraphDefHeader) == 128 && sizeof(NodeDef) == 32);
static_assert(sizeof(GraphTensorArgDef) == 64 && sizeof(GraphScalarArgDef) == 16);
static_assert(offsetof(GraphDefHeader, hash) == 8 && offsetof(GraphDefHeader, reserved) == 120);
static_assert(std::is_trivially_copyable_v<GraphDefHeader> && std::is_trivially_copyable_v<NodeDef>);

// ---- planning ----
struct GraphDefCounts {
  uint64_t n_nodes = 0, n_tensor_args = 0, n_scalar_args = 0, n_edges = 0, n_internal = 0;
};
struct GraphDefLayout {
  uint64_t nodes_off, tensor_args_off, scalar_args_off, fanin_off, fanout_off, internal_off_off;
  uint64_t total_bytes;
};
constexpr GraphDefLayout plan_graph_def(const GraphDefCounts& c) {
  GraphDefLayout l{};
  l.nodes_off = align64(sizeof(GraphDefHeader));
  l.tensor_args_off = align64(l.nodes_off + c.n_nodes * sizeof(NodeDef));
  l.scalar_args_off = align64(l.tensor_args_off + c.n_tensor_args * sizeof(GraphTensorArgDef));
  l.fanin_off = align64(l.scalar_args_off + c.n_scalar_args * sizeof(GraphScalarArgDef));
  l.fanout_off = align64(l.fanin_off + c.n_edges * 2);
  l.internal_off_off = align64(l.fanout_off + c.n_edges * 2);
  l.total_bytes = l.internal_off_off + (c.n_internal + 1) * 8;
  return l;
}
// Bytes of a submission's arg area: TensorArg x T then u64 x K.
constexpr uint64_t graph_args_bytes(uint64_t T, uint64_t K) { return T * sizeof(TensorArg) + K * 8; }

// ---- host-side encoding (graph_def.cpp) ----
struct GraphNodeSpec {
  int32_t kernel_id = 0;
  std::vector<GraphTensorArgDef> tensors;  // reserved fields are zeroed by the encoder
  std::vector<GraphScalarArgDef> scalars;
  std::vector<uint16_t> fanin;  // producer node indices (sorted, deduped by encoder)
};
struct GraphDefSpec {
  uint32_t fn_id = 0;
  uint32_t n_boundary_tensors = 0;
  uint32_t n_boundary_scalars = 0;
  std::vector<uint64_t> internal_bytes;  // size of INTERNAL k (each rounded up to 64)
  std::vector<GraphNodeSpec> nodes;
};
// Builds the bytes (fanout CSR, internal_off, storage_bytes, hash derived). Does not check
// the §9 limits: run validate_graph_def_bytes on the result.
std::vector<std::byte> encode_graph_def(const GraphDefSpec& spec);
// FNV-1a-64 over bytes with the hash field (bytes 8..15) taken as zero.
uint64_t graph_def_hash(std::span<const std::byte> bytes);

// ---- validation (header-only; device reads through a reader) ----
// read(off, dst, n) copies definition bytes [off, off+n) (caller guarantees they exist:
// validate_graph_def never reads past `available`). Returns nullopt when valid (and fills
// *header), else the first problem found.
template <class Reader>
std::optional<std::string> validate_graph_def(Reader&& read, uint64_t available, GraphDefHeader* header_out);
std::optional<std::string> validate_graph_def_bytes(std::span<const std::byte> bytes,
                                                    GraphDefHeader* header_out = nullptr);

}  // namespace stackcheck::runtime

#include "stack/runtime/image/graph_def_validate.inl"
