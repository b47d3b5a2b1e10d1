// Graph definitions cache, graph submissions and their staging (RUNTIME.md §9, §10).
// - GraphKey: function id + each boundary tensor's (tag, rank, shape, stride, alias class)
//   + the boundary scalar count. The alias class of boundary i is the smallest index of the
//   boundary tensors whose device byte ranges (window bounding ranges) overlap i's,
//   transitively, at this submission: the partition is part of the key because a recording
//   treats each multi-member class as one range.
// - GraphCache: at most 16 definitions per Runtime (kCapacity), each the encoded bytes of a
//   valid definition (graph_def.h) and, once bind step 6 uploaded it, its own reservation.
//   Entries are never evicted or changed except for that upload mark.
// - GraphSubmissionPlan: one replay of one bind (the outer task, its graph-heap block, the
//   boundary tensors as real TensorArgs and the slot values). Staging writes the
//   GraphSubmission records of a bind in task order, each at ALIGN64 of the previous end,
//   record_bytes = 48 + 64 n_bt + 8 n_bs exactly, padding zero.
// Host-only; touches no device memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "stack/runtime/devmem/dev_addr.h"
#include "stack/runtime/image/graph_def.h"
#include "stack/runtime/image/records.h"

namespace stackcheck::runtime {

struct GraphKey {
  uint32_t fn_id = 0;
  // Per boundary tensor: tag, rank, shape[rank], stride[rank], alias class; then n_bs.
  std::vector<int64_t> words;
  bool operator==(const GraphKey&) const = default;
};

// Bytes from a window's start to the end of its last element (its bounding range).
uint64_t tensor_arg_extent(const TensorArg& a);
// Alias class of each boundary tensor: the smallest index of its overlap component.
std::vector<uint32_t> graph_alias_classes(std::span<const TensorArg> boundary);
GraphKey make_graph_key(uint32_t fn_id, std::span<const TensorArg> boundary, uint32_t n_scalars);

struct GraphDefinition {
  GraphKey key;
  std::vector<std::byte> bytes;  // encode_graph_def output, validated
  GraphDefHeader header{};       // decoded header of `bytes`
  DevAddr device;                // its reservation once uploaded (bind step 6); null before
};

class GraphCache {
 public:
  static constexpr size_t kCapacity = 16;

  std::optional<uint32_t> find(const GraphKey& key) const;
  bool full() const { return defs_.size() >= kCapacity; }
  // Adds a definition (the cache must not be full; bytes must validate). Returns its index.
  uint32_t insert(GraphKey key, std::vector<std::byte> bytes);
  size_t size() const { return defs_.size(); }
  const GraphDefinition& at(uint32_t i) const { return defs_.at(i); }
  void mark_uploaded(uint32_t i, DevAddr at);

 private:
  std::vector<GraphDefinition> defs_;
};

// One replay (one outer GRAPH task) of the current bind.
struct GraphSubmissionPlan {
  int32_t outer = -1;               // the GRAPH task's id
  uint32_t definition = 0;          // index in the GraphCache
  DevAddr block;                    // graph-heap block [required_heap][args][GraphExecution][nodes]
  uint64_t block_bytes = 0;         // required_heap + 64 T + 8 K + storage_bytes (exact)
  std::vector<TensorArg> boundary;  // this submission's real windows
  std::vector<uint64_t> slots;      // this submission's scalar values
};

// [required_heap][TensorArg x T, u64 x K][GraphExecution 32][GraphNodeStorage x n]: exact.
uint64_t graph_block_bytes(const GraphDefHeader& h);

// Offsets of each record inside the submissions zone (task order, each 64-aligned) and the
// zone's size (the end of the last record; 0 when there is none).
struct SubmissionZone {
  std::vector<uint64_t> offsets;
  uint64_t bytes = 0;
};
SubmissionZone plan_submission_zone(std::span<const GraphSubmissionPlan> subs);

// Writes submission `s` (definition `d`, uploaded) at out[0, record_bytes).
void write_graph_submission(std::span<std::byte> out, const GraphSubmissionPlan& s, const GraphDefinition& d);

}  // namespace stackcheck::runtime
