// GraphDefinition encoding and byte-buffer validation (host side of graph_def.h).
#include "stack/runtime/image/graph_def.h"

#include <algorithm>
#include <cstring>

#include "stack/support/fnv1a.h"

namespace stackcheck::runtime {

uint64_t graph_def_hash(std::span<const std::byte> bytes) {
  uint64_t h = support::kFnvOffset;
  const uint64_t hash_at = offsetof(GraphDefHeader, hash);
  const uint64_t zero = 0;
  if (bytes.size() < hash_at + 8) return support::fnv1a64(h, bytes.data(), bytes.size());
  h = support::fnv1a64(h, bytes.data(), hash_at);
  h = support::fnv1a64(h, &zero, 8);
  return support::fnv1a64(h, bytes.data() + hash_at + 8, bytes.size() - hash_at - 8);
}

std::vector<std::byte> encode_graph_def(const GraphDefSpec& spec) {
  const uint64_t n = spec.nodes.size();
  std::vector<std::vector<uint16_t>> fanin(n), fanout(n);
  GraphDefCounts c;
  c.n_nodes = n;
  c.n_internal = spec.internal_bytes.size();
  for (uint64_t i = 0; i < n; ++i) {
    fanin[i] = spec.nodes[i].fanin;
    std::sort(fanin[i].begin(), fanin[i].end());
    fanin[i].erase(std::unique(fanin[i].begin(), fanin[i].end()), fanin[i].end());
    for (uint16_t p : fanin[i])
      if (p < n) fanout[p].push_back(static_cast<uint16_t>(i));  // ascending: i increases
    c.n_tensor_args += spec.nodes[i].tensors.size();
    c.n_scalar_args += spec.nodes[i].scalars.size();
    c.n_edges += fanin[i].size();
  }
  const GraphDefLayout l = plan_graph_def(c);
  std::vector<std::byte> out(l.total_bytes, std::byte{0});
  auto put = [&](uint64_t off, const void* p, size_t len) { std::memcpy(out.data() + off, p, len); };

  GraphDefHeader h{};
  std::memcpy(h.magic, kGraphDefMagic, 8);
  h.total_bytes = l.total_bytes;
  h.fn_id = spec.fn_id;
  h.n_nodes = static_cast<uint32_t>(n);
  h.n_boundary_tensors = spec.n_boundary_tensors;
  h.n_boundary_scalars = spec.n_boundary_scalars;
  h.n_tensor_args = static_cast<uint32_t>(c.n_tensor_args);
  h.n_scalar_args = static_cast<uint32_t>(c.n_scalar_args);
  h.n_internal = static_cast<uint32_t>(c.n_internal);
  h.n_edges = static_cast<uint32_t>(c.n_edges);
  h.storage_bytes = n > 0 ? graph_storage_bytes(n) : 0;
  h.nodes_off = l.nodes_off;
  h.tensor_args_off = l.tensor_args_off;
  h.scalar_args_off = l.scalar_args_off;
  h.fanin_off = l.fanin_off;
  h.fanout_off = l.fanout_off;
  h.internal_off_off = l.internal_off_off;

  uint64_t t = 0, s = 0, in = 0, outn = 0;
  for (uint64_t i = 0; i < n; ++i) {
    const GraphNodeSpec& ns = spec.nodes[i];
    NodeDef nd{};
    nd.kernel_id = ns.kernel_id;
    nd.tensor_begin = static_cast<uint32_t>(t);
    nd.scalar_begin = static_cast<uint32_t>(s);
    nd.fanin_begin = static_cast<uint32_t>(in);
    nd.fanout_begin = static_cast<uint32_t>(outn);
    nd.n_tensors = static_cast<uint16_t>(ns.tensors.size());
    nd.n_scalars = static_cast<uint16_t>(ns.scalars.size());
    nd.n_fanin = static_cast<uint16_t>(fanin[i].size());
    nd.n_fanout = static_cast<uint16_t>(fanout[i].size());
    put(l.nodes_off + i * sizeof(NodeDef), &nd, sizeof nd);
    for (GraphTensorArgDef a : ns.tensors) {
      a.reserved = 0;
      put(l.tensor_args_off + t++ * sizeof a, &a, sizeof a);
    }
    for (GraphScalarArgDef a : ns.scalars) {
      a.reserved = 0;
      put(l.scalar_args_off + s++ * sizeof a, &a, sizeof a);
    }
    for (uint16_t p : fanin[i]) put(l.fanin_off + 2 * in++, &p, 2);
    for (uint16_t q : fanout[i]) put(l.fanout_off + 2 * outn++, &q, 2);
  }
  // INTERNAL k gets a non-empty 64-aligned range; internal_off are the prefix sums.
  uint64_t acc = 0;
  put(l.internal_off_off, &acc, 8);
  for (uint64_t k = 0; k < c.n_internal; ++k) {
    acc += std::max<uint64_t>(64, align64(spec.internal_bytes[k]));
    put(l.internal_off_off + 8 * (k + 1), &acc, 8);
  }
  h.required_heap = acc;
  put(0, &h, sizeof h);
  h.hash = graph_def_hash(out);
  put(0, &h, sizeof h);
  return out;
}

std::optional<std::string> validate_graph_def_bytes(std::span<const std::byte> bytes, GraphDefHeader* header_out) {
  auto read = [&](uint64_t off, void* dst, uint64_t n) { std::memcpy(dst, bytes.data() + off, n); };
  return validate_graph_def(read, bytes.size(), header_out);
}

}  // namespace stackcheck::runtime
