// The graph-definition family (graph_def_edit.h): each node's rules (reserved word, kernel id,
// argument counts, consecutive ranges within the totals) and its argument records.
#include <fmt/format.h>

#include <cstdint>
#include <vector>

#include "properties/gen/breakers/graph_def_edit.h"

namespace stackcheck::gen::breakers {

// 13: node reserved
bool forge_node_reserved(GraphDefEdit& e) {
  auto [c, b, f] = e.context();
  const uint32_t i = e.draw_node();
  put<uint32_t>(b, e.node_at(i) + kNodeReserved, static_cast<uint32_t>(c.integer(1, UINT32_MAX)));
  f.pattern = fmt::format("node {} reserved field nonzero", i);
  f.edit = fmt::format("node {} reserved nonzero", i);
  return true;
}

// 14: kernel id
bool forge_kernel_id(GraphDefEdit& e) {
  auto [c, b, f] = e.context();
  const uint32_t i = e.draw_node();
  const int32_t v = c.boolean() ? static_cast<int32_t>(c.near_edges(INT32_MIN, -1))
                                : static_cast<int32_t>(c.near_edges(rt::kMaxBuiltinKernelId + 1, INT32_MAX));
  put<int32_t>(b, e.node_at(i) + kKernel, v);
  f.pattern = fmt::format("node {} kernel id {}", i, v);
  f.edit = fmt::format("node {} kernel id {}", i, v);
  return true;
}

// 15: node counts
bool forge_node_counts(GraphDefEdit& e) {
  auto [c, b, f] = e.context();
  const uint32_t i = e.draw_node();
  const bool tensors = c.boolean();
  const uint16_t v = static_cast<uint16_t>(
      c.near_edges((tensors ? rt::kGraphMaxNodeTensors : rt::kGraphMaxNodeScalars) + 1, UINT16_MAX));
  put<uint16_t>(b, e.node_at(i) + (tensors ? kNTensors : kNScalars), v);
  f.pattern = fmt::format("node {} argument counts over limit", i);
  f.edit = fmt::format("node {} n_{} {}", i, tensors ? "tensors" : "scalars", v);
  return true;
}

// 16: a range start off by one
bool forge_consecutive(GraphDefEdit& e) {
  auto [c, b, f] = e.context();
  const uint32_t i = e.draw_node();
  const size_t field = kTensorBegin + 4 * c.one_of(4);
  put<uint32_t>(b, e.node_at(i) + field, e.node32(i, field) + 1);
  f.pattern = fmt::format("node {} ranges are not consecutive", i);
  f.edit = fmt::format("node {} range start @{} + 1", i, field);
  return true;
}

// 17: the last node one argument more than the totals hold
bool forge_past_totals(GraphDefEdit& e) {
  auto [c, b, f] = e.context();
  const uint32_t i = e.n - 1;
  const bool tensors = c.boolean();
  const uint16_t cur = e.node16(i, tensors ? kNTensors : kNScalars);
  if (cur >= (tensors ? rt::kGraphMaxNodeTensors : rt::kGraphMaxNodeScalars)) return false;
  put<uint16_t>(b, e.node_at(i) + (tensors ? kNTensors : kNScalars), static_cast<uint16_t>(cur + 1));
  f.pattern = fmt::format("node {} ranges past the totals", i);
  f.edit = fmt::format("last node n_{} + 1", tensors ? "tensors" : "scalars");
  return true;
}

// 18: the last node one argument fewer: the totals are not covered
bool forge_cover_totals(GraphDefEdit& e) {
  auto [c, b, f] = e.context();
  const uint32_t i = e.n - 1;
  const bool tensors = e.node16(i, kNTensors) > 0 && (e.node16(i, kNScalars) == 0 || c.boolean());
  const uint16_t cur = e.node16(i, tensors ? kNTensors : kNScalars);
  if (cur == 0) return false;
  put<uint16_t>(b, e.node_at(i) + (tensors ? kNTensors : kNScalars), static_cast<uint16_t>(cur - 1));
  f.pattern = "node ranges do not cover the argument and edge totals";
  f.edit = fmt::format("last node n_{} - 1", tensors ? "tensors" : "scalars");
  return true;
}

// One argument record of a node that has arguments of the kind `count` counts (kNTensors or
// kNScalars): the node and the argument, drawn in that order, and the record's byte offset.
namespace {

struct ArgumentAt {
  uint32_t node, arg;
  uint64_t at;
};
ArgumentAt draw_argument(GraphDefEdit& e, NodeField count) {
  const bool tensors = count == kNTensors;
  const uint32_t i = *e.node_with([&](uint32_t x) { return e.node16(x, count) > 0; });
  const uint32_t a = static_cast<uint32_t>(e.c.integer(0, e.node16(i, count) - 1));
  const uint64_t first = e.node32(i, tensors ? kTensorBegin : kScalarBegin);
  const uint64_t at = get<uint64_t>(e.b, tensors ? kTensorArgsOff : kScalarArgsOff) +
                      (first + a) * (tensors ? kTensorArgBytes : kScalarArgBytes);
  return {i, a, at};
}

}  // namespace

// 19: a tensor argument: source, index, tag, rank or reserved
bool forge_tensor_arg(GraphDefEdit& e) {
  auto [c, b, f] = e.context();
  if (e.T == 0) return false;
  const auto [i, a, at] = draw_argument(e, kNTensors);
  const uint32_t source = get<uint32_t>(b, at);
  switch (c.one_of(5)) {
    case 0: put<uint32_t>(b, at, c.boolean() ? 0 : static_cast<uint32_t>(c.integer(3, UINT32_MAX))); f.edit = "source"; break;
    case 1:
      put<uint32_t>(b, at + 4, source == rt::kSrcBoundary ? e.n_bt : e.n_internal);
      f.edit = "index one past its pool";
      break;
    case 2: put<uint32_t>(b, at + 16, c.boolean() ? rt::kTagInput - 1 : rt::kTagNoDep + 1); f.edit = "tag"; break;
    case 3: put<uint32_t>(b, at + 20, c.boolean() ? 0 : 5); f.edit = "rank"; break;
    default: put<uint64_t>(b, at + 56, static_cast<uint64_t>(c.integer(1, INT64_MAX))); f.edit = "reserved"; break;
  }
  f.pattern = fmt::format("node {} tensor arg {} malformed", i, a);
  f.edit = fmt::format("node {} tensor arg {}: {}", i, a, f.edit);
  return true;
}

// 20: a scalar argument: source, slot index, reserved
bool forge_scalar_arg(GraphDefEdit& e) {
  auto [c, b, f] = e.context();
  if (e.K == 0) return false;
  const auto [i, a, at] = draw_argument(e, kNScalars);
  switch (c.one_of(3)) {
    case 0: put<uint32_t>(b, at, c.boolean() ? 0 : 3); f.edit = "source"; break;
    case 1:
      put<uint32_t>(b, at, rt::kScalarSlot);
      put<uint64_t>(b, at + 8, e.n_bs + static_cast<uint64_t>(c.integer(0, 3)));
      f.edit = "slot past the boundary scalars";
      break;
    default: put<uint32_t>(b, at + 4, static_cast<uint32_t>(c.integer(1, UINT32_MAX))); f.edit = "reserved"; break;
  }
  f.pattern = fmt::format("node {} scalar arg {} malformed", i, a);
  f.edit = fmt::format("node {} scalar arg {}: {}", i, a, f.edit);
  return true;
}

}  // namespace stackcheck::gen::breakers
