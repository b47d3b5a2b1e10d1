// The graph-definition family (graph_def_edit.h): the header's rules (magic, sizes, hash,
// counts and their limits, section offsets, storage, internal_off, required_heap).
#include <fmt/format.h>

#include <cstdint>
#include <vector>

#include "properties/gen/breakers/graph_def_edit.h"

namespace stackcheck::gen::breakers {

// 0: magic
bool forge_magic(GraphDefEdit& e) {
  auto [c, b, f] = e.context();
  const size_t at = c.one_of(8);
  put<uint8_t>(b, at, static_cast<uint8_t>(get<uint8_t>(b, at) ^ static_cast<uint8_t>(c.integer(1, 255))));
  f.pattern = "definition magic";
  f.edit = fmt::format("magic byte {} changed", at);
  return true;
}

// 1: total_bytes outside [128, available]
bool forge_total_bytes(GraphDefEdit& e) {
  auto [c, b, f] = e.context();
  const uint64_t v = c.boolean() ? b.size() + 8 * static_cast<uint64_t>(c.integer(1, 64))
                                 : static_cast<uint64_t>(c.integer(0, 127));
  put<uint64_t>(b, kTotalBytes, v);
  f.pattern = R"(definition total_bytes \d+ outside \[128, \d+\])";
  f.edit = fmt::format("total_bytes {} (the buffer holds {})", v, b.size());
  return true;
}

// 2: a byte after the header changed, the hash left as it was
bool forge_hash(GraphDefEdit& e) {
  auto [c, b, f] = e.context();
  const size_t at = static_cast<size_t>(c.integer(128, static_cast<int64_t>(b.size()) - 1));
  put<uint8_t>(b, at, static_cast<uint8_t>(get<uint8_t>(b, at) ^ static_cast<uint8_t>(c.integer(1, 255))));
  e.rehash = false;
  f.pattern = R"(definition hash 0x[0-9a-f]+ != stored 0x[0-9a-f]+)";
  f.edit = fmt::format("byte {} changed, hash kept", at);
  return true;
}

// 3: reserved
bool forge_reserved(GraphDefEdit& e) {
  auto [c, b, f] = e.context();
  put<uint64_t>(b, kReserved, static_cast<uint64_t>(c.integer(1, INT64_MAX)));
  f.pattern = "definition reserved field nonzero";
  f.edit = "header reserved nonzero";
  return true;
}

// 4: node count
bool forge_node_count(GraphDefEdit& e) {
  auto [c, b, f] = e.context();
  const uint32_t v = c.boolean() ? 0 : static_cast<uint32_t>(c.near_edges(rt::kGraphMaxNodes + 1, UINT32_MAX));
  put<uint32_t>(b, kNodes, v);
  f.pattern = R"(definition has \d+ nodes \(1\.\.1024\))";
  f.edit = fmt::format("n_nodes {}", v);
  return true;
}

// 5: boundary counts
bool forge_boundary_counts(GraphDefEdit& e) {
  auto [c, b, f] = e.context();
  const bool tensors = c.boolean();
  const uint32_t v = static_cast<uint32_t>(
      c.near_edges((tensors ? rt::kGraphMaxBoundaryTensors : rt::kGraphMaxBoundaryScalars) + 1, UINT32_MAX));
  put<uint32_t>(b, tensors ? kBoundaryTensors : kBoundaryScalars, v);
  f.pattern = "definition boundary counts over limit";
  f.edit = fmt::format("n_boundary_{} {}", tensors ? "tensors" : "scalars", v);
  return true;
}

// 6: arg totals
bool forge_arg_totals(GraphDefEdit& e) {
  auto [c, b, f] = e.context();
  const uint32_t n = e.n;
  const bool tensors = c.boolean();
  const uint64_t v = uint64_t{n} * (tensors ? rt::kGraphMaxNodeTensors : rt::kGraphMaxNodeScalars) + 1;
  put<uint32_t>(b, tensors ? kTensorArgs : kScalarArgs, static_cast<uint32_t>(v));
  f.pattern = "definition argument totals over limit";
  f.edit = fmt::format("n_{}_args {} for {} nodes", tensors ? "tensor" : "scalar", v, n);
  return true;
}

// 7: edge count
bool forge_edge_count(GraphDefEdit& e) {
  auto [c, b, f] = e.context();
  const uint32_t n = e.n;
  put<uint32_t>(b, kEdges, n * n + 1);
  f.pattern = "definition edge count";
  f.edit = fmt::format("n_edges {} for {} nodes", n * n + 1, n);
  return true;
}

// 8: an offset moved, or total_bytes grown with the buffer (both differ from the plan)
bool forge_offsets(GraphDefEdit& e) {
  auto [c, b, f] = e.context();
  const size_t which = c.one_of(7);
  if (which == 6) {
    b.resize(b.size() + 64, std::byte{0});
    put<uint64_t>(b, kTotalBytes, b.size());
    f.edit = "64 bytes appended, total_bytes grown to match";
  } else {
    const size_t field = kNodesOff + 8 * which;
    put<uint64_t>(b, field, get<uint64_t>(b, field) + 64);
    f.edit = fmt::format("section offset at @{} moved by 64", field);
  }
  f.pattern = "definition section offsets differ from the plan";
  return true;
}

// 9: storage
bool forge_storage(GraphDefEdit& e) {
  auto [c, b, f] = e.context();
  const uint64_t v = get<uint64_t>(b, kStorage) + (c.boolean() ? 64 : static_cast<uint64_t>(-64));
  put<uint64_t>(b, kStorage, v);
  f.pattern = R"(definition storage_bytes \d+ != \d+)";
  f.edit = "storage_bytes moved by 64";
  return true;
}

// 10: internal_off: entry 0 nonzero; a later entry misaligned, equal to or below the one before
bool forge_internal_off(GraphDefEdit& e) {
  auto [c, b, f] = e.context();
  const uint32_t k = static_cast<uint32_t>(c.integer(0, e.n_internal));
  const uint64_t at = e.internal_off_off + 8ull * k;
  const uint64_t prev = k == 0 ? 0 : get<uint64_t>(b, at - 8);
  const size_t how = k == 0 ? 0 : c.one_of(prev >= 64 ? 3 : 2);
  if (k == 0) {
    put<uint64_t>(b, at, 64 * static_cast<uint64_t>(c.integer(1, 4)));
    f.edit = "internal_off[0] nonzero";
  } else if (how == 0) {
    put<uint64_t>(b, at, get<uint64_t>(b, at) + static_cast<uint64_t>(c.integer(1, 63)));
    f.edit = fmt::format("internal_off[{}] not a multiple of 64", k);
  } else if (how == 1) {
    put<uint64_t>(b, at, prev);
    f.edit = fmt::format("internal_off[{}] = internal_off[{}]", k, k - 1);
  } else {
    put<uint64_t>(b, at, prev - 64);
    f.edit = fmt::format("internal_off[{}] below internal_off[{}]", k, k - 1);
  }
  f.pattern = how == 1 ? fmt::format("internal allocation {} is empty", k - 1)
                       : fmt::format(R"(internal_off\[{}\] = \d+ not an ALIGN64 prefix sum)", k);
  return true;
}

// 11: required heap
bool forge_required_heap(GraphDefEdit& e) {
  auto [c, b, f] = e.context();
  put<uint64_t>(b, kRequiredHeap, get<uint64_t>(b, kRequiredHeap) + 64);
  f.pattern = "internal_off does not end at required_heap";
  f.edit = "required_heap + 64";
  return true;
}

// 12: the last internal allocation grown to 2 GiB, required_heap with it
bool forge_heap_int32(GraphDefEdit& e) {
  auto [c, b, f] = e.context();
  if (e.n_internal == 0) return false;
  const uint64_t v = uint64_t{1} << 31;
  put<uint64_t>(b, e.internal_off_off + 8ull * e.n_internal, v);
  put<uint64_t>(b, kRequiredHeap, v);
  f.pattern = R"(required_heap \+ args \+ storage > INT32_MAX)";
  f.edit = "the last internal allocation grown to 2 GiB";
  return true;
}

}  // namespace stackcheck::gen::breakers
