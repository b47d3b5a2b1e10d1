// The graph-definition family of the rule catalog (RUNTIME.md §9): one entry per rule of the
// definition validator (runtime/image/graph_def.h), each a function that forges one field of a
// valid encoded definition so that exactly that rule breaks (every rule checked before it still
// holds) and says what the refusal must match. forge_graph_def (graph_def_catalog.cpp) runs an
// entry and recomputes the hash, unless the hash is what was forged. Field offsets are the
// spec's (§9's header at fixed offsets, 32-byte NodeDefs, 64-byte tensor and 16-byte scalar
// argument records), written here, not read from the encoder's structs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include "properties/gen/choice.h"
#include "stack/runtime/image/graph_def.h"
#include "stack/runtime/image/records.h"

namespace stackcheck::gen::breakers {

namespace rt = stackcheck::runtime;

// §9's header fields, by byte offset.
enum HeaderField : size_t {
  kHash = 8, kTotalBytes = 16, kNodes = 28, kBoundaryTensors = 32, kBoundaryScalars = 36, kTensorArgs = 40,
  kScalarArgs = 44, kInternal = 48, kEdges = 52, kRequiredHeap = 56, kStorage = 64, kNodesOff = 72,
  kTensorArgsOff = 80, kScalarArgsOff = 88, kFaninOff = 96, kFanoutOff = 104, kInternalOffOff = 112, kReserved = 120,
};
constexpr size_t kNodeBytes = 32, kTensorArgBytes = 64, kScalarArgBytes = 16;
// NodeDef fields.
enum NodeField : size_t {
  kKernel = 0, kTensorBegin = 4, kScalarBegin = 8, kFaninBegin = 12, kFanoutBegin = 16, kNTensors = 20,
  kNScalars = 22, kNFanin = 24, kNFanout = 26, kNodeReserved = 28,
};

template <class T>
T get(const std::vector<std::byte>& b, size_t off) {
  T v;
  std::memcpy(&v, b.data() + off, sizeof v);
  return v;
}
template <class T>
void put(std::vector<std::byte>& b, size_t off, T v) {
  std::memcpy(b.data() + off, &v, sizeof v);
}

// One forged definition: the bytes (hash recomputed unless the hash is what was forged), the
// rule broken and the pattern its message must match.
struct Forged {
  std::vector<std::byte> bytes;
  std::string rule;
  std::string pattern;
  std::string edit;
};

// One forge in progress: the definition's bytes, the header figures read before the edit, and
// the Forged being filled.
struct GraphDefEdit {
  ChoiceSource& c;
  std::vector<std::byte>& b;
  Forged& f;
  bool rehash = true;
  uint32_t n = 0, n_bt = 0, n_bs = 0, T = 0, K = 0, n_internal = 0;
  uint64_t nodes_off = 0, internal_off_off = 0;

  // What every entry edits, to name as c, b and f: auto [c, b, f] = e.context().
  std::tuple<ChoiceSource&, std::vector<std::byte>&, Forged&> context() { return {c, b, f}; }
  // A node drawn from 0..n-1.
  uint32_t draw_node() { return static_cast<uint32_t>(c.integer(0, n - 1)); }
  uint64_t node_at(uint32_t i) const { return nodes_off + uint64_t{i} * kNodeBytes; }
  uint16_t node16(uint32_t i, size_t field) const { return get<uint16_t>(b, node_at(i) + field); }
  uint32_t node32(uint32_t i, size_t field) const { return get<uint32_t>(b, node_at(i) + field); }
  // One of the nodes with a property (drawn), or nullopt.
  std::optional<uint32_t> node_with(const std::function<bool(uint32_t)>& ok);
};

struct GraphDefRuleEntry {
  const char* name;  // the rule, as Forged::rule names it
  bool (*forge)(GraphDefEdit& e);  // false: the definition has no place for the edit
};

// A definition within §9: 1..16 nodes, or exactly the 1,024 limit; 0..128 boundary tensors and
// 0..64 boundary scalars, favouring the limits; internal allocations; nodes of up to the 32
// tensor and 16 scalar arguments, each from the boundary, an internal allocation, a slot or a
// literal; fanin from earlier nodes.
rt::GraphDefSpec draw_graph_def_spec(ChoiceSource& c);

// Every rule, in the validator's order (the edit kinds 0..23).
std::span<const GraphDefRuleEntry> graph_def_rule_catalog();
inline constexpr int kGraphDefEdits = 24;

// Applies edit `kind` to a valid definition; nullopt when it has no place for it (no internal
// allocation, no node with a fanin, ...).
std::optional<Forged> forge_graph_def(ChoiceSource& c, std::vector<std::byte> b, int kind);

// The entries, by file: the header, the nodes and their arguments, the edges.
bool forge_magic(GraphDefEdit& e);
bool forge_total_bytes(GraphDefEdit& e);
bool forge_hash(GraphDefEdit& e);
bool forge_reserved(GraphDefEdit& e);
bool forge_node_count(GraphDefEdit& e);
bool forge_boundary_counts(GraphDefEdit& e);
bool forge_arg_totals(GraphDefEdit& e);
bool forge_edge_count(GraphDefEdit& e);
bool forge_offsets(GraphDefEdit& e);
bool forge_storage(GraphDefEdit& e);
bool forge_internal_off(GraphDefEdit& e);
bool forge_required_heap(GraphDefEdit& e);
bool forge_heap_int32(GraphDefEdit& e);
bool forge_node_reserved(GraphDefEdit& e);
bool forge_kernel_id(GraphDefEdit& e);
bool forge_node_counts(GraphDefEdit& e);
bool forge_consecutive(GraphDefEdit& e);
bool forge_past_totals(GraphDefEdit& e);
bool forge_cover_totals(GraphDefEdit& e);
bool forge_tensor_arg(GraphDefEdit& e);
bool forge_scalar_arg(GraphDefEdit& e);
bool forge_fanin_order(GraphDefEdit& e);
bool forge_edge_missing(GraphDefEdit& e);
bool forge_fanout_order(GraphDefEdit& e);

}  // namespace stackcheck::gen::breakers
