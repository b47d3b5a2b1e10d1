// Implementation of validate_graph_def (included by graph_def.h; header-only so device/
// can validate definitions through DeviceAccess without linking host code).
// Reads are bounded: every read is checked against `available` and the header's
// total_bytes before it is issued; memory use is O(1) besides one edge lookup per edge.
#pragma once

#include <algorithm>
#include <cstring>
#include <limits>

#include <fmt/format.h>

namespace stackcheck::runtime {

namespace graph_def_detail {
template <class T, class Reader>
T read_rec(Reader& read, uint64_t off) {
  T v;
  read(off, &v, sizeof(T));
  return v;
}
}  // namespace graph_def_detail

template <class Reader>
std::optional<std::string> validate_graph_def(Reader&& read, uint64_t available, GraphDefHeader* header_out) {
  using graph_def_detail::read_rec;
  if (available < sizeof(GraphDefHeader)) return std::string("definition shorter than its header");
  const auto h = read_rec<GraphDefHeader>(read, 0);
  if (std::memcmp(h.magic, kGraphDefMagic, 8) != 0) return std::string("definition magic");
  if (h.total_bytes < sizeof(GraphDefHeader) || h.total_bytes > available)
    return fmt::format("definition total_bytes {} outside [128, {}]", h.total_bytes, available);
  if (h.total_bytes > static_cast<uint64_t>(std::numeric_limits<int32_t>::max()))
    return std::string("definition larger than INT32_MAX");
  // Hash first: a definition that is not the one recorded is rejected whatever it says.
  {
    uint64_t hash = support::kFnvOffset;
    unsigned char buf[4096];
    for (uint64_t off = 0; off < h.total_bytes; off += sizeof buf) {
      uint64_t n = std::min<uint64_t>(sizeof buf, h.total_bytes - off);
      read(off, buf, n);
      if (off == 0) std::memset(buf + offsetof(GraphDefHeader, hash), 0, 8);
      hash = support::fnv1a64(hash, buf, n);
    }
    if (hash != h.hash) return fmt::format("definition hash {:#x} != stored {:#x}", hash, h.hash);
  }
  if (h.reserved != 0) return std::string("definition reserved field nonzero");
  if (h.n_nodes < 1 || h.n_nodes > kGraphMaxNodes)
    return fmt::format("definition has {} nodes (1..{})", h.n_nodes, kGraphMaxNodes);
  if (h.n_boundary_tensors > kGraphMaxBoundaryTensors || h.n_boundary_scalars > kGraphMaxBoundaryScalars)
    return std::string("definition boundary counts over limit");
  if (h.n_tensor_args > uint64_t{h.n_nodes} * kGraphMaxNodeTensors ||
      h.n_scalar_args > uint64_t{h.n_nodes} * kGraphMaxNodeScalars)
    return std::string("definition argument totals over limit");
  if (h.n_edges > uint64_t{h.n_nodes} * h.n_nodes) return std::string("definition edge count");
  const GraphDefLayout l =
      plan_graph_def(GraphDefCounts{h.n_nodes, h.n_tensor_args, h.n_scalar_args, h.n_edges, h.n_internal});
  if (l.total_bytes != h.total_bytes || l.nodes_off != h.nodes_off || l.tensor_args_off != h.tensor_args_off ||
      l.scalar_args_off != h.scalar_args_off || l.fanin_off != h.fanin_off || l.fanout_off != h.fanout_off ||
      l.internal_off_off != h.internal_off_off)
    return std::string("definition section offsets differ from the plan");
  if (h.storage_bytes != graph_storage_bytes(h.n_nodes))
    return fmt::format("definition storage_bytes {} != {}", h.storage_bytes, graph_storage_bytes(h.n_nodes));
  // internal_off: ALIGN64 prefix sums from 0 ending at required_heap.
  uint64_t prev = 0;
  for (uint64_t k = 0; k <= h.n_internal; ++k) {
    uint64_t v = read_rec<uint64_t>(read, h.internal_off_off + 8 * k);
    if ((k == 0 && v != 0) || v % 64 != 0 || v < prev)
      return fmt::format("internal_off[{}] = {} not an ALIGN64 prefix sum", k, v);
    if (k > 0 && v == prev) return fmt::format("internal allocation {} is empty", k - 1);
    prev = v;
  }
  if (prev != h.required_heap) return std::string("internal_off does not end at required_heap");
  const uint64_t int32max = static_cast<uint64_t>(std::numeric_limits<int32_t>::max());
  if (h.required_heap > int32max ||
      h.required_heap + graph_args_bytes(h.n_tensor_args, h.n_scalar_args) + h.storage_bytes > int32max)
    return std::string("required_heap + args + storage > INT32_MAX");
  // Nodes: consecutive ranges, limits, edges.
  uint64_t t_next = 0, s_next = 0, in_next = 0, out_next = 0;
  for (uint32_t i = 0; i < h.n_nodes; ++i) {
    const auto nd = read_rec<NodeDef>(read, h.nodes_off + uint64_t{i} * sizeof(NodeDef));
    if (nd.reserved != 0) return fmt::format("node {} reserved field nonzero", i);
    if (nd.kernel_id < 0 || nd.kernel_id > kMaxBuiltinKernelId)
      return fmt::format("node {} kernel id {}", i, nd.kernel_id);
    if (nd.n_tensors > kGraphMaxNodeTensors || nd.n_scalars > kGraphMaxNodeScalars)
      return fmt::format("node {} argument counts over limit", i);
    if (nd.tensor_begin != t_next || nd.scalar_begin != s_next || nd.fanin_begin != in_next ||
        nd.fanout_begin != out_next)
      return fmt::format("node {} ranges are not consecutive", i);
    t_next += nd.n_tensors;
    s_next += nd.n_scalars;
    in_next += nd.n_fanin;
    out_next += nd.n_fanout;
    if (t_next > h.n_tensor_args || s_next > h.n_scalar_args || in_next > h.n_edges || out_next > h.n_edges)
      return fmt::format("node {} ranges past the totals", i);
    for (uint32_t a = 0; a < nd.n_tensors; ++a) {
      const auto ta = read_rec<GraphTensorArgDef>(
          read, h.tensor_args_off + (uint64_t{nd.tensor_begin} + a) * sizeof(GraphTensorArgDef));
      bool src_ok = (ta.source == kSrcBoundary && ta.index < h.n_boundary_tensors) ||
                    (ta.source == kSrcInternal && ta.index < h.n_internal);
      if (!src_ok || ta.tag < kTagInput || ta.tag > kTagNoDep || ta.rank < 1 || ta.rank > 4 || ta.reserved != 0)
        return fmt::format("node {} tensor arg {} malformed", i, a);
    }
    for (uint32_t a = 0; a < nd.n_scalars; ++a) {
      const auto sa = read_rec<GraphScalarArgDef>(
          read, h.scalar_args_off + (uint64_t{nd.scalar_begin} + a) * sizeof(GraphScalarArgDef));
      bool ok = (sa.source == kScalarSlot && sa.value < h.n_boundary_scalars) || sa.source == kScalarLiteral;
      if (!ok || sa.reserved != 0) return fmt::format("node {} scalar arg {} malformed", i, a);
    }
    auto edge = [&](uint64_t base, uint64_t k) { return read_rec<uint16_t>(read, base + 2 * k); };
    int64_t last = -1;
    for (uint32_t e = 0; e < nd.n_fanin; ++e) {
      uint16_t p = edge(h.fanin_off, uint64_t{nd.fanin_begin} + e);
      if (p >= i || static_cast<int64_t>(p) <= last)
        return fmt::format("node {} fanin {} not ascending below the node", i, p);
      last = p;
      // Transpose check: i must be in p's fanout (p < i, so p's NodeDef was seen; re-read).
      const auto pd = read_rec<NodeDef>(read, h.nodes_off + uint64_t{p} * sizeof(NodeDef));
      bool found = false;
      for (uint32_t f = 0; f < pd.n_fanout && !found; ++f)
        found = uint64_t{pd.fanout_begin} + f < h.n_edges && edge(h.fanout_off, uint64_t{pd.fanout_begin} + f) == i;
      if (!found) return fmt::format("edge {}->{} missing from the fanout CSR", p, i);
    }
    last = i;
    for (uint32_t e = 0; e < nd.n_fanout; ++e) {
      uint16_t c = edge(h.fanout_off, uint64_t{nd.fanout_begin} + e);
      if (c >= h.n_nodes || static_cast<int64_t>(c) <= last)
        return fmt::format("node {} fanout {} not ascending above the node", i, c);
      last = c;
    }
  }
  if (t_next != h.n_tensor_args || s_next != h.n_scalar_args || in_next != h.n_edges || out_next != h.n_edges)
    return std::string("node ranges do not cover the argument and edge totals");
  // Every fanin edge is in a fanout list and both have n_edges entries, and fanout lists are
  // duplicate-free: the CSRs are transposes.
  if (header_out) *header_out = h;
  return std::nullopt;
}

}  // namespace stackcheck::runtime
