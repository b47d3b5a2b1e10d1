// Graph execution on the device (RUNTIME.md §9, §12): a GRAPH task, once dispatched,
// materialises its definition into its graph-heap block
//   [required_heap][args: TensorArg x T, u64 x K][GraphExecution][GraphNodeStorage x n]
// and pushes the root nodes; each finished node releases its fanout and decrements
// nodes_remaining, and the last one completes the outer task.
// Materialisation per argument:
//   BOUNDARY i: the submission's (patched) TensorArg i; the node's window starts at the
//               frozen offset from the boundary window: offset_bytes = boundary offset +
//               frozen offset, base and buffer_bytes those of the boundary's buffer.
//   INTERNAL k: buffer [block_base + internal_off[k], block_base + internal_off[k+1]),
//               offset_bytes = the frozen offset.
//   SLOT k:     the submission's scalar k; LITERAL v: v.
// Node storage records (deltas relative to their own fields, like the image's):
//   descriptor {task_id = node index, kernel_id, kind GRAPH_NODE, heap 0..0}
//   slot {state, desc -> this descriptor, payload -> this payload, wake fields 0,
//         last_consumer = last fanout node or -1, fanin_cursor 0}
//   payload {n_tensors, n_scalars, n_fanin 0 (edges stay in the definition's CSR; the
//            count lives in fanin_remaining), tensors/scalars -> the arg area}
// Writes go through DevSpans: the block, and the storage's exact span.
#include <fmt/format.h>

#include "stack/runtime/device/scheduler_run.h"
#include "stack/runtime/image/self_relative.h"
#include "stack/runtime/status/codes.h"

namespace stackcheck::runtime::sched_detail {
namespace {

constexpr uint64_t kNodeSlot = offsetof(GraphNodeStorage, slot);
constexpr uint64_t kNodePayload = offsetof(GraphNodeStorage, payload);
constexpr uint64_t kNodeState = kNodeSlot + offsetof(SlotState, state);
constexpr uint64_t kNodeFaninRemaining = offsetof(GraphNodeStorage, fanin_remaining);
constexpr uint64_t kNodesRemaining = offsetof(GraphExecution, nodes_remaining);

int32_t delta(DevAddr field, DevAddr target) {
  const std::optional<int32_t> d = delta_for(field.raw(), target.raw());
  if (!d) throw BadRecord(fmt::format("no int32 delta from {:#x} to {:#x}", field.raw(), target.raw()));
  return *d;
}

}  // namespace

GraphCtx SchedulerRun::graph_ctx(uint32_t task) {
  GraphCtx g;
  const auto p = dev_.load<TaskPayload>(follow(slot(task) + kSlotPayloadField));
  g.sub = p.graph_ctx;
  g.s = dev_.load<GraphSubmission>(g.sub);
  g.def = g.s.definition_addr;
  g.dh = dev_.load<GraphDefHeader>(g.def);
  if (g.dh.n_nodes == 0 || g.dh.n_nodes != p.n_nodes || g.s.outer_id != static_cast<int32_t>(task))
    throw BadRecord(fmt::format("task {}: submission/definition disagree with the payload", task));
  g.block = DevSpan{g.s.block_base, g.s.block_bytes};
  g.arg_area = g.block.at(g.dh.required_heap, 1, DeviceOp::kWrite);
  const uint64_t exec_off = g.dh.required_heap + graph_args_bytes(g.dh.n_tensor_args, g.dh.n_scalar_args);
  g.storage = g.block.sub(exec_off, graph_storage_bytes(g.dh.n_nodes));
  return g;
}

// long: one pass writing every node's arguments and storage from the definition and the boundary, then the
// roots released: no root may go out before the last node is written
void SchedulerRun::start_graph(uint32_t task, unsigned tid) {
  const GraphCtx g = graph_ctx(task);
  const GraphDefHeader& dh = g.dh;
  const uint32_t n = dh.n_nodes;
  // The whole boundary is read once (every submission byte is read by the run).
  std::vector<TensorArg> boundary(g.s.n_bt);
  std::vector<uint64_t> slots(g.s.n_bs);
  for (uint64_t i = 0; i < g.s.n_bt; ++i)
    boundary[i] = dev_.load<TensorArg>(g.sub + sizeof(GraphSubmission) + i * sizeof(TensorArg));
  for (uint64_t k = 0; k < g.s.n_bs; ++k)
    slots[k] = dev_.load<uint64_t>(g.sub + graph_submission_bytes(g.s.n_bt, 0) + 8 * k);

  GraphExecution ex{};
  ex.magic = kGraphExecutionMagic;
  ex.n = n;
  ex.nodes_remaining = n;
  ex.outer = static_cast<int32_t>(task);
  g.storage.store(dev_, 0, ex);
  // The nodes become units before any of them can complete, so units_remaining cannot
  // reach 0 early.
  dev_.fetch_add<uint64_t>(v_.rt.device_only + offsetof(SchedControl, units_remaining), n);

  const uint64_t scalar_area = dh.required_heap + uint64_t{dh.n_tensor_args} * sizeof(TensorArg);
  std::vector<uint32_t> roots;
  for (uint32_t j = 0; j < n; ++j) {
    const auto nd = dev_.load<NodeDef>(g.def + dh.nodes_off + uint64_t{j} * sizeof(NodeDef));
    if (uint64_t{nd.tensor_begin} + nd.n_tensors > dh.n_tensor_args ||
        uint64_t{nd.scalar_begin} + nd.n_scalars > dh.n_scalar_args)
      throw BadRecord(fmt::format("task {} node {}: argument range past the definition's totals", task, j));
    for (uint32_t a = 0; a < nd.n_tensors; ++a) {
      const uint64_t idx = uint64_t{nd.tensor_begin} + a;
      const auto d = dev_.load<GraphTensorArgDef>(g.def + dh.tensor_args_off + idx * sizeof(GraphTensorArgDef));
      TensorArg t{};
      if (d.source == kSrcBoundary && d.index < boundary.size()) {
        t.base = boundary[d.index].base;
        t.buffer_bytes = boundary[d.index].buffer_bytes;
        t.offset_bytes = boundary[d.index].offset_bytes + d.offset_bytes;
      } else if (d.source == kSrcInternal && d.index < dh.n_internal) {
        const DevAddr io = g.def + dh.internal_off_off + 8 * uint64_t{d.index};
        const auto lo = dev_.load<uint64_t>(io), hi = dev_.load<uint64_t>(io + 8);
        t.base = g.s.block_base + lo;
        t.buffer_bytes = hi - lo;
        t.offset_bytes = d.offset_bytes;
      } else {
        throw BadRecord(fmt::format("task {} node {} tensor {}: source {} index {}", task, j, a, d.source, d.index));
      }
      t.tag = d.tag;
      t.rank = d.rank;
      for (int r = 0; r < 4; ++r) {
        t.shape[r] = d.shape[r];
        t.stride[r] = d.stride[r];
      }
      g.block.store(dev_, dh.required_heap + idx * sizeof(TensorArg), t);
    }
    for (uint32_t a = 0; a < nd.n_scalars; ++a) {
      const uint64_t idx = uint64_t{nd.scalar_begin} + a;
      const auto d = dev_.load<GraphScalarArgDef>(g.def + dh.scalar_args_off + idx * sizeof(GraphScalarArgDef));
      uint64_t v = d.value;
      if (d.source == kScalarSlot) {
        if (d.value >= slots.size()) throw BadRecord(fmt::format("task {} node {}: slot {}", task, j, d.value));
        v = slots[d.value];
      }
      g.block.store(dev_, scalar_area + 8 * idx, v);
    }

    const DevAddr e = g.node(j);
    GraphNodeStorage ns{};
    ns.descriptor.task_id = static_cast<int32_t>(j);
    ns.descriptor.kernel_id = nd.kernel_id;
    ns.descriptor.kind = kKindGraphNode;
    ns.slot.state = kSlotPending;
    ns.slot.desc = delta(e + kNodeSlot + kSlotDescField, e);
    ns.slot.payload = delta(e + kNodeSlot + kSlotPayloadField, e + kNodePayload);
    ns.slot.last_consumer = -1;
    if (nd.n_fanout > 0)
      ns.slot.last_consumer =
          dev_.load<uint16_t>(g.def + dh.fanout_off + 2 * (uint64_t{nd.fanout_begin} + nd.n_fanout - 1));
    ns.payload.n_tensors = nd.n_tensors;
    ns.payload.n_scalars = nd.n_scalars;
    if (nd.n_tensors > 0)
      ns.payload.tensors =
          delta(e + kNodePayload + kPayloadTensorsField, g.arg_area + uint64_t{nd.tensor_begin} * sizeof(TensorArg));
    if (nd.n_scalars > 0)
      ns.payload.scalars =
          delta(e + kNodePayload + kPayloadScalarsField, g.block.addr + scalar_area + 8 * uint64_t{nd.scalar_begin});
    ns.fanin_remaining = nd.n_fanin;
    g.storage.store(dev_, graph_node_offset(j), ns);
    if (nd.n_fanin == 0) roots.push_back(j);
  }
  // Roots go out only once every node is written: a popped root may complete at once and
  // release any later node.
  for (uint32_t j : roots) {
    if (!transition(g.storage.at(graph_node_offset(j) + kNodeState, 4, DeviceOp::kCas), kSlotPending, kSlotReady, tid,
                    fmt::format("task {} node {}", task, j)))
      return;
    push(task, static_cast<int32_t>(j), tid);
  }
}

void SchedulerRun::run_node(uint32_t task, uint32_t j, unsigned tid) {
  const GraphCtx g = graph_ctx(task);
  if (j >= g.dh.n_nodes)
    throw BadRecord(fmt::format("ring names node {} of task {} ({} nodes)", j, task, g.dh.n_nodes));
  const std::string unit = fmt::format("task {} node {}", task, j);
  const uint64_t off = graph_node_offset(j);
  if (!transition(g.storage.at(off + kNodeState, 4, DeviceOp::kCas), kSlotReady, kSlotRunning, tid, unit)) return;
  record(task, static_cast<int32_t>(j));
  const DevAddr e = g.node(j);
  const auto sl = g.storage.load<SlotState>(dev_, off + kNodeSlot);
  const std::optional<DevAddr> da = resolve(e + kNodeSlot + kSlotDescField, sl.desc);
  const std::optional<DevAddr> pa = resolve(e + kNodeSlot + kSlotPayloadField, sl.payload);
  if (!da || !pa) throw BadRecord(unit + ": unbound storage delta");
  const auto d = g.storage.load<TaskDescriptor>(dev_, *da - g.storage.addr);
  const auto p = g.storage.load<TaskPayload>(dev_, *pa - g.storage.addr);
  std::vector<TensorArg> tensors(p.n_tensors);
  std::vector<uint64_t> scalars(p.n_scalars);
  if (p.n_tensors > 0) {
    const std::optional<DevAddr> base = resolve(*pa + kPayloadTensorsField, p.tensors);
    if (!base) throw BadRecord(unit + ": unbound tensors delta");
    for (uint64_t k = 0; k < p.n_tensors; ++k)
      tensors[k] = g.block.load<TensorArg>(dev_, (*base - g.block.addr) + k * sizeof(TensorArg));
  }
  if (p.n_scalars > 0) {
    const std::optional<DevAddr> base = resolve(*pa + kPayloadScalarsField, p.scalars);
    if (!base) throw BadRecord(unit + ": unbound scalars delta");
    for (uint64_t k = 0; k < p.n_scalars; ++k)
      scalars[k] = g.block.load<uint64_t>(dev_, (*base - g.block.addr) + 8 * k);
  }
  if (!call_kernel(d.kernel_id, tensors, scalars, unit)) return;
  complete_node(g, task, j, tid);
}

void SchedulerRun::complete_node(const GraphCtx& g, uint32_t task, uint32_t j, unsigned tid) {
  const std::string unit = fmt::format("task {} node {}", task, j);
  if (!transition(g.storage.at(graph_node_offset(j) + kNodeState, 4, DeviceOp::kCas), kSlotRunning, kSlotDone, tid,
                  unit))
    return;
  const auto nd = dev_.load<NodeDef>(g.def + g.dh.nodes_off + uint64_t{j} * sizeof(NodeDef));
  for (uint32_t f = 0; f < nd.n_fanout && !stopped(); ++f) {
    const auto c = dev_.load<uint16_t>(g.def + g.dh.fanout_off + 2 * (uint64_t{nd.fanout_begin} + f));
    if (c <= j || c >= g.dh.n_nodes) throw BadRecord(fmt::format("{}: fanout names node {}", unit, c));
    point(tid);
    const auto old =
        dev_.fetch_add<int32_t>(g.storage.at(graph_node_offset(c) + kNodeFaninRemaining, 4, DeviceOp::kFetchAdd), -1);
    if (old == 1) {
      if (!transition(g.storage.at(graph_node_offset(c) + kNodeState, 4, DeviceOp::kCas), kSlotPending, kSlotReady, tid,
                      fmt::format("task {} node {}", task, c)))
        return;
      push(task, c, tid);
    } else if (old <= 0) {
      latch(code_value(ErrorCode::kCompletionInvalid), tid, fmt::format("{} released node {} past its fanin", unit, c));
      return;
    }
  }
  unit_done();
  point(tid);
  const auto left = dev_.fetch_add<uint32_t>(g.storage.at(kNodesRemaining, 4, DeviceOp::kFetchAdd), ~uint32_t{0});
  if (left == 1) {
    complete_task(task, tid);
  } else if (left == 0) {
    latch(code_value(ErrorCode::kCompletionInvalid), tid, fmt::format("{} completed past nodes_remaining 0", unit));
  }
}

}  // namespace stackcheck::runtime::sched_detail
