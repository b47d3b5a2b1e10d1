// The graph-definition family's catalog and its dispatcher (graph_def_edit.h).
#include <algorithm>
#include <array>

#include "properties/gen/breakers/graph_def_edit.h"

namespace stackcheck::gen::breakers {
namespace {

constexpr std::array<GraphDefRuleEntry, kGraphDefEdits> kCatalog = {{
    {"magic", forge_magic},
    {"total-bytes", forge_total_bytes},
    {"hash", forge_hash},
    {"reserved", forge_reserved},
    {"node-count", forge_node_count},
    {"boundary-counts", forge_boundary_counts},
    {"arg-totals", forge_arg_totals},
    {"edge-count", forge_edge_count},
    {"offsets", forge_offsets},
    {"storage", forge_storage},
    {"internal-off", forge_internal_off},
    {"required-heap", forge_required_heap},
    {"heap-int32", forge_heap_int32},
    {"node-reserved", forge_node_reserved},
    {"kernel-id", forge_kernel_id},
    {"node-counts", forge_node_counts},
    {"consecutive", forge_consecutive},
    {"past-totals", forge_past_totals},
    {"cover-totals", forge_cover_totals},
    {"tensor-arg", forge_tensor_arg},
    {"scalar-arg", forge_scalar_arg},
    {"fanin-order", forge_fanin_order},
    {"edge-missing", forge_edge_missing},
    {"fanout-order", forge_fanout_order},
}};

}  // namespace

std::span<const GraphDefRuleEntry> graph_def_rule_catalog() { return kCatalog; }

rt::GraphDefSpec draw_graph_def_spec(ChoiceSource& c) {
  rt::GraphDefSpec s;
  s.fn_id = static_cast<uint32_t>(c.integer(0, 7));
  s.n_boundary_tensors = static_cast<uint32_t>(c.near_edges(0, rt::kGraphMaxBoundaryTensors));
  s.n_boundary_scalars = static_cast<uint32_t>(c.near_edges(0, rt::kGraphMaxBoundaryScalars));
  const size_t n_internal = c.length(4);
  for (size_t k = 0; k < n_internal; ++k) s.internal_bytes.push_back(static_cast<uint64_t>(c.integer(1, 4096)));
  const bool at_limit = c.chance(5);
  const size_t n = at_limit ? rt::kGraphMaxNodes : 1 + c.length(15);
  for (size_t i = 0; i < n; ++i) {
    rt::GraphNodeSpec node;
    node.kernel_id = static_cast<int32_t>(c.near_edges(0, rt::kMaxBuiltinKernelId));
    const bool sources = s.n_boundary_tensors > 0 || n_internal > 0;
    const size_t nt = !sources ? 0 : !at_limit && c.chance(3) ? rt::kGraphMaxNodeTensors : c.length(3);
    for (size_t a = 0; a < nt; ++a) {
      rt::GraphTensorArgDef t{};
      const bool boundary = s.n_boundary_tensors > 0 && (n_internal == 0 || c.boolean());
      t.source = boundary ? rt::kSrcBoundary : rt::kSrcInternal;
      t.index = static_cast<uint32_t>(
          c.near_edges(0, static_cast<int64_t>(boundary ? s.n_boundary_tensors : n_internal) - 1));
      t.tag = static_cast<uint32_t>(c.integer(rt::kTagInput, rt::kTagNoDep));
      t.rank = static_cast<uint32_t>(c.integer(1, 4));
      for (uint32_t d = 0; d < t.rank; ++d) {
        t.shape[d] = static_cast<int32_t>(c.integer(1, 64));
        t.stride[d] = static_cast<int32_t>(c.integer(1, 4096));
      }
      t.offset_bytes = static_cast<uint64_t>(c.integer(0, 1 << 16)) * 4;
      node.tensors.push_back(t);
    }
    const size_t ns = !at_limit && c.chance(3) ? rt::kGraphMaxNodeScalars : c.length(2);
    for (size_t a = 0; a < ns; ++a) {
      rt::GraphScalarArgDef v{};
      const bool slot = s.n_boundary_scalars > 0 && c.boolean();
      v.source = slot ? rt::kScalarSlot : rt::kScalarLiteral;
      v.value = slot ? static_cast<uint64_t>(c.near_edges(0, s.n_boundary_scalars - 1))
                     : static_cast<uint64_t>(c.integer(-1000, 1000));
      node.scalars.push_back(v);
    }
    const size_t nf = i == 0 ? 0 : c.length(std::min<size_t>(i, 3));
    for (size_t e = 0; e < nf; ++e) node.fanin.push_back(static_cast<uint16_t>(c.integer(0, static_cast<int64_t>(i) - 1)));
    s.nodes.push_back(std::move(node));
  }
  return s;
}

std::optional<uint32_t> GraphDefEdit::node_with(const std::function<bool(uint32_t)>& ok) {
  std::vector<uint32_t> v;
  for (uint32_t i = 0; i < n; ++i)
    if (ok(i)) v.push_back(i);
  if (v.empty()) return std::nullopt;
  return v[c.one_of(v.size())];
}

std::optional<Forged> forge_graph_def(ChoiceSource& c, std::vector<std::byte> b, int kind) {
  if (kind < 0 || kind >= kGraphDefEdits) return std::nullopt;
  Forged f;
  f.rule = kCatalog[static_cast<size_t>(kind)].name;
  GraphDefEdit e{c, b, f};
  e.n = get<uint32_t>(b, kNodes);
  e.n_bt = get<uint32_t>(b, kBoundaryTensors);
  e.n_bs = get<uint32_t>(b, kBoundaryScalars);
  e.T = get<uint32_t>(b, kTensorArgs);
  e.K = get<uint32_t>(b, kScalarArgs);
  e.n_internal = get<uint32_t>(b, kInternal);
  e.nodes_off = get<uint64_t>(b, kNodesOff);
  e.internal_off_off = get<uint64_t>(b, kInternalOffOff);
  if (!kCatalog[static_cast<size_t>(kind)].forge(e)) return std::nullopt;
  if (e.rehash) {  // over what the validator hashes: total_bytes bytes (all of them when it lies)
    const uint64_t total = get<uint64_t>(b, kTotalBytes);
    const size_t len = total >= 128 && total <= b.size() ? static_cast<size_t>(total) : b.size();
    put<uint64_t>(b, kHash, rt::graph_def_hash(std::span<const std::byte>(b).first(len)));
  }
  f.bytes = std::move(b);
  return f;
}

}  // namespace stackcheck::gen::breakers
