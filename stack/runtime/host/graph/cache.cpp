// Graph keys, the definition cache and submission staging (cache.h).
#include "stack/runtime/host/graph/cache.h"

#include <algorithm>
#include <cstring>
#include <numeric>

#include "stack/defects/defects.h"
#include "stack/support/check.h"

namespace stackcheck::runtime {

uint64_t tensor_arg_extent(const TensorArg& a) {
  uint64_t last = 0;
  for (uint32_t i = 0; i < a.rank && i < 4; ++i)
    last += static_cast<uint64_t>(a.shape[i] - 1) * static_cast<uint64_t>(a.stride[i]);
  return (last + 1) * 4;  // i32 elements
}

std::vector<uint32_t> graph_alias_classes(std::span<const TensorArg> b) {
  const size_t n = b.size();
  std::vector<uint32_t> parent(n);
  std::iota(parent.begin(), parent.end(), 0u);
  auto root = [&](uint32_t x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  };
  for (size_t i = 0; i < n; ++i) {
    const uint64_t lo_i = b[i].base.raw() + b[i].offset_bytes, hi_i = lo_i + tensor_arg_extent(b[i]);
    for (size_t j = i + 1; j < n; ++j) {
      const uint64_t lo_j = b[j].base.raw() + b[j].offset_bytes, hi_j = lo_j + tensor_arg_extent(b[j]);
      if (lo_i < hi_j && lo_j < hi_i) {
        const uint32_t ri = root(static_cast<uint32_t>(i)), rj = root(static_cast<uint32_t>(j));
        parent[std::max(ri, rj)] = std::min(ri, rj);  // the smaller index stays the root
      }
    }
  }
  std::vector<uint32_t> cls(n);
  for (size_t i = 0; i < n; ++i) cls[i] = root(static_cast<uint32_t>(i));
  return cls;
}

GraphKey make_graph_key(uint32_t fn_id, std::span<const TensorArg> boundary, uint32_t n_scalars) {
  GraphKey k;
  k.fn_id = fn_id;
  const std::vector<uint32_t> cls = graph_alias_classes(boundary);
  k.words.reserve(2 + 11 * boundary.size());
  k.words.push_back(static_cast<int64_t>(boundary.size()));
  for (size_t i = 0; i < boundary.size(); ++i) {
    const TensorArg& a = boundary[i];
    k.words.push_back(a.tag);
    k.words.push_back(a.rank);
    for (uint32_t d = 0; d < a.rank && d < 4; ++d) k.words.push_back(a.shape[d]);
    for (uint32_t d = 0; d < a.rank && d < 4; ++d) k.words.push_back(a.stride[d]);
    k.words.push_back(cls[i]);
  }
  k.words.push_back(n_scalars);
  return k;
}

std::optional<uint32_t> GraphCache::find(const GraphKey& key) const {
  for (size_t i = 0; i < defs_.size(); ++i)
    if (defs_[i].key == key) return static_cast<uint32_t>(i);
  return std::nullopt;
}

uint32_t GraphCache::insert(GraphKey key, std::vector<std::byte> bytes) {
  STACK_CHECK(!full(), "graph cache insert beyond its capacity");
  GraphDefinition d;
  const auto err = validate_graph_def_bytes(bytes, &d.header);
  STACK_CHECK(!err.has_value(), "a recorded graph definition must validate");
  d.key = std::move(key);
  d.bytes = std::move(bytes);
  defs_.push_back(std::move(d));
  return static_cast<uint32_t>(defs_.size() - 1);
}

void GraphCache::mark_uploaded(uint32_t i, DevAddr at) {
  STACK_CHECK(defs_.at(i).device.is_null(), "a graph definition is uploaded once");
  defs_.at(i).device = at;
}

uint64_t graph_block_bytes(const GraphDefHeader& h) {
  // Zoo: execution storage reserved as stride x n (past the last entry's object).
  const uint64_t storage = defects::active(defects::Defect::kStorageStrideTimesN)
                               ? sizeof(GraphExecution) + kGraphNodeStride * h.n_nodes
                               : h.storage_bytes;
  return h.required_heap + graph_args_bytes(h.n_tensor_args, h.n_scalar_args) + storage;
}

SubmissionZone plan_submission_zone(std::span<const GraphSubmissionPlan> subs) {
  SubmissionZone z;
  uint64_t end = 0;
  for (const GraphSubmissionPlan& s : subs) {
    const uint64_t at = align64(end);
    z.offsets.push_back(at);
    end = at + graph_submission_bytes(s.boundary.size(), s.slots.size());
  }
  z.bytes = end;
  return z;
}

void write_graph_submission(std::span<std::byte> out, const GraphSubmissionPlan& s, const GraphDefinition& d) {
  const uint64_t bytes = graph_submission_bytes(s.boundary.size(), s.slots.size());
  STACK_CHECK(out.size() >= bytes, "submission record past its zone");
  STACK_CHECK(!d.device.is_null(), "a submission's definition is uploaded before staging");
  STACK_CHECK(s.boundary.size() == d.header.n_boundary_tensors && s.slots.size() == d.header.n_boundary_scalars,
              "submission boundary counts differ from its definition");
  GraphSubmission g{};
  g.definition_addr = d.device;
  g.definition_hash = d.header.hash;
  g.block_base = s.block;
  g.block_bytes = s.block_bytes;
  g.outer_id = s.outer;
  g.n_bt = static_cast<uint16_t>(s.boundary.size());
  g.n_bs = static_cast<uint16_t>(s.slots.size());
  g.record_bytes = bytes;
  std::memcpy(out.data(), &g, sizeof g);
  uint64_t at = sizeof g;
  for (const TensorArg& a : s.boundary) {
    std::memcpy(out.data() + at, &a, sizeof a);
    at += sizeof a;
  }
  for (uint64_t v : s.slots) {
    std::memcpy(out.data() + at, &v, sizeof v);
    at += sizeof v;
  }
}

}  // namespace stackcheck::runtime
