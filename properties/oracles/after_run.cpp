// The device state a completed run leaves (after_run.h).
#include "properties/oracles/after_run.h"

#include <fmt/format.h>

#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "properties/oracles/dispatch_threads.h"
#include "properties/oracles/spec_layout.h"
#include "stack/runtime/image/graph_def.h"
#include "stack/runtime/image/records.h"

namespace stackcheck::oracles {
namespace {

using namespace runtime;

template <class T>
std::optional<T> staged_at(const Captured& c, uint64_t off) {
  if (off > c.staged.size() || c.staged.size() - off < sizeof(T)) return std::nullopt;
  T v;
  std::memcpy(&v, c.staged.data() + off, sizeof v);
  return v;
}

template <class T>
T device_at(const DeviceMemory& mem, DevAddr a) {
  T v;
  mem.inspect(a, &v, sizeof v);
  return v;
}

Verdict fail(std::string m) { return Verdict::fail("after-run", std::move(m)); }

// One graph submission's block after its outer task completed.
class BlockCheck {
 public:
  BlockCheck(const DeviceMemory& mem, const GraphSubmission& s, const std::vector<TensorArg>& boundary,
             const std::vector<uint64_t>& slots, AfterRunFlaw flaw)
      : mem_(mem), s_(s), boundary_(boundary), slots_(slots), flaw_(flaw) {
    dh_ = device_at<GraphDefHeader>(mem, s.definition_addr);
  }
  uint32_t nodes() const { return dh_.n_nodes; }

  std::optional<std::string> run() {
    const std::string who = fmt::format("graph task {}", s_.outer_id);
    const uint64_t args = s_.block_base.raw() + dh_.required_heap;
    const uint64_t scalar_area = args + 64 * uint64_t{dh_.n_tensor_args};
    const uint64_t storage = scalar_area + 8 * uint64_t{dh_.n_scalar_args};
    if (storage + graph_storage_bytes(dh_.n_nodes) != s_.block_base.raw() + s_.block_bytes)
      return who + ": its block is not [required_heap][args][storage]";
    const auto ex = device_at<GraphExecution>(mem_, DevAddr(storage));
    if (ex.magic != kGraphExecutionMagic || ex.n != dh_.n_nodes || ex.nodes_remaining != 0 || ex.outer != s_.outer_id ||
        ex.reserved0 != 0 || ex.reserved1 != 0)
      return fmt::format("{}: GraphExecution n {} remaining {} outer {}; expected n {}, none remaining", who, ex.n,
                         ex.nodes_remaining, ex.outer, dh_.n_nodes);
    for (uint32_t j = 0; j < dh_.n_nodes; ++j) {
      const auto nd = device_at<NodeDef>(mem_, s_.definition_addr + dh_.nodes_off + uint64_t{j} * sizeof(NodeDef));
      for (uint32_t a = 0; a < nd.n_tensors; ++a)
        if (auto e = tensor_arg(args, uint64_t{nd.tensor_begin} + a)) return fmt::format("{} node {}: {}", who, j, *e);
      for (uint32_t a = 0; a < nd.n_scalars; ++a)
        if (auto e = scalar_arg(scalar_area, uint64_t{nd.scalar_begin} + a))
          return fmt::format("{} node {}: {}", who, j, *e);
      if (auto e = node_entry(j, nd, storage + 32 + 128 * uint64_t{j}, args, scalar_area))
        return fmt::format("{} node {}: {}", who, j, *e);
    }
    return std::nullopt;
  }

 private:
  std::optional<std::string> tensor_arg(uint64_t args, uint64_t idx) {
    const auto d =
        device_at<GraphTensorArgDef>(mem_, s_.definition_addr + dh_.tensor_args_off + idx * sizeof(GraphTensorArgDef));
    TensorArg want{};
    if (d.source == kSrcBoundary && d.index < boundary_.size()) {
      const TensorArg& b = boundary_[d.index];
      want.base = b.base, want.buffer_bytes = b.buffer_bytes, want.offset_bytes = b.offset_bytes + d.offset_bytes;
    } else if (d.source == kSrcInternal && d.index < dh_.n_internal) {
      const DevAddr io = s_.definition_addr + dh_.internal_off_off + 8 * uint64_t{d.index};
      const auto lo = device_at<uint64_t>(mem_, io), hi = device_at<uint64_t>(mem_, io + 8);
      want.base = s_.block_base + lo, want.buffer_bytes = hi - lo, want.offset_bytes = d.offset_bytes;
    } else {
      return fmt::format("tensor arg {} names source {} index {}", idx, d.source, d.index);
    }
    want.tag = d.tag, want.rank = d.rank;
    std::memcpy(want.shape, d.shape, sizeof want.shape);
    std::memcpy(want.stride, d.stride, sizeof want.stride);
    const auto got = device_at<TensorArg>(mem_, DevAddr(args + 64 * idx));
    if (std::memcmp(&got, &want, sizeof got) != 0)
      return fmt::format("arg area tensor {}: base {:#x} bytes {} offset {} tag {} rank {}; expected {:#x} {} {} {} {}",
                         idx, got.base.raw(), got.buffer_bytes, got.offset_bytes, got.tag, got.rank, want.base.raw(),
                         want.buffer_bytes, want.offset_bytes, want.tag, want.rank);
    return std::nullopt;
  }

  std::optional<std::string> scalar_arg(uint64_t area, uint64_t idx) {
    const auto d =
        device_at<GraphScalarArgDef>(mem_, s_.definition_addr + dh_.scalar_args_off + idx * sizeof(GraphScalarArgDef));
    uint64_t want = d.value;
    if (d.source == kScalarSlot) {
      if (d.value >= slots_.size()) return fmt::format("scalar arg {} names slot {}", idx, d.value);
      want = slots_[d.value];
    }
    if (const auto got = device_at<uint64_t>(mem_, DevAddr(area + 8 * idx)); got != want)
      return fmt::format("arg area scalar {} is {}, expected {}", idx, got, want);
    return std::nullopt;
  }

  std::optional<std::string> node_entry(uint32_t j, const NodeDef& nd, uint64_t e, uint64_t args, uint64_t area) {
    GraphNodeStorage want{};
    want.descriptor.task_id = static_cast<int32_t>(j);
    want.descriptor.kernel_id = nd.kernel_id;
    want.descriptor.kind = kKindGraphNode;
    want.slot.state = kSlotDone;
    want.slot.desc = static_cast<int32_t>(0 - (32 + 4));  // to the descriptor, from the slot's field
    want.slot.payload = static_cast<int32_t>(64 - (32 + 8));
    want.slot.wake_head = flaw_ == AfterRunFlaw::kNodesOpenWakeLists ? -1 : 0;
    want.slot.last_consumer = -1;
    if (nd.n_fanout > 0)
      want.slot.last_consumer = device_at<uint16_t>(
          mem_, s_.definition_addr + dh_.fanout_off + 2 * (uint64_t{nd.fanout_begin} + nd.n_fanout - 1));
    want.payload.n_tensors = nd.n_tensors;
    want.payload.n_scalars = nd.n_scalars;
    if (nd.n_tensors > 0)
      want.payload.tensors = static_cast<int32_t>(static_cast<int64_t>(args + 64 * uint64_t{nd.tensor_begin}) -
                                                  static_cast<int64_t>(e + 64 + 8));
    if (nd.n_scalars > 0)
      want.payload.scalars = static_cast<int32_t>(static_cast<int64_t>(area + 8 * uint64_t{nd.scalar_begin}) -
                                                  static_cast<int64_t>(e + 64 + 12));
    const auto got = device_at<GraphNodeStorage>(mem_, DevAddr(e));
    if (std::memcmp(&got, &want, sizeof got) == 0) return std::nullopt;
    return fmt::format(
        "entry: task_id {} kernel {} kind {}, state {} deltas {} {} wake {} last_consumer {} cursor {}, payload {} "
        "tensors @{} {} scalars @{}, fanin_remaining {}; expected {} {} {}, {} {} {} {} {} {}, {} @{} {} @{}, {}",
        got.descriptor.task_id, got.descriptor.kernel_id, got.descriptor.kind, got.slot.state, got.slot.desc,
        got.slot.payload, got.slot.wake_head, got.slot.last_consumer, got.slot.fanin_cursor, got.payload.n_tensors,
        got.payload.tensors, got.payload.n_scalars, got.payload.scalars, got.fanin_remaining, want.descriptor.task_id,
        want.descriptor.kernel_id, want.descriptor.kind, want.slot.state, want.slot.desc, want.slot.payload,
        want.slot.wake_head, want.slot.last_consumer, want.slot.fanin_cursor, want.payload.n_tensors,
        want.payload.tensors, want.payload.n_scalars, want.payload.scalars, want.fanin_remaining);
  }

  const DeviceMemory& mem_;
  const GraphSubmission& s_;
  const std::vector<TensorArg>& boundary_;
  const std::vector<uint64_t>& slots_;
  AfterRunFlaw flaw_;
  GraphDefHeader dh_{};
};

}  // namespace

// long: one walk of the shipped records (header, tasks, graph submissions), each against what device memory holds
// after the run; the checks share the walk's offsets
Verdict check_after_run(const Captured& c, const DeviceMemory& mem, const ScheduleOptions& schedule,
                        const OrchProgram& plan, AfterRunFlaw flaw) {
  using Mode = ScheduleOptions::Mode;
  const bool threads = schedule.mode == Mode::kThreaded || schedule.mode == Mode::kPct;
  const uint32_t workers = threads ? DispatchThreads::expected_workers(schedule, plan) : 1;
  const auto rt = staged_at<RuntimeHeader>(c, 0);
  const auto ih = staged_at<ImageHeader>(c, c.image_offset);
  if (!rt || !ih) return fail("nothing was shipped");
  const uint64_t dest = c.destination.raw();
  const auto image_off = [&](uint64_t seg, uint64_t at) { return c.image_offset + ih->seg_off[seg] + at; };
  // Tasks.
  uint64_t units = 0;
  std::vector<bool> unflagged(ih->n);
  for (uint32_t i = 0; i < ih->n; ++i) {
    const auto shipped_flag = staged_at<uint8_t>(c, image_off(spec::kFlag, i));
    const auto shipped_slot = staged_at<SlotState>(c, image_off(spec::kSlot, 32 * uint64_t{i}));
    if (!shipped_flag || !shipped_slot) return fail(fmt::format("task {}'s records lie past the shipped bytes", i));
    const DevAddr slot_at(dest + image_off(spec::kSlot, 32 * uint64_t{i}));
    const auto flag = device_at<uint8_t>(mem, DevAddr(dest + image_off(spec::kFlag, i)));
    const auto slot = device_at<SlotState>(mem, slot_at);
    if (flag != 1) return fail(fmt::format("task {}'s flag is {} after the run", i, flag));
    if (*shipped_flag != 0) {
      if (std::memcmp(&slot, &*shipped_slot, sizeof slot) != 0)
        return fail(fmt::format("task {} was complete at upload, but its slot changed (state {})", i, slot.state));
      continue;
    }
    unflagged[i] = true;
    ++units;
    if (slot.state != kSlotDone || slot.wake_head != -1 || slot.fanin_cursor != 0 || slot.reserved != 0 ||
        slot.wake_count > ih->n - 1 - i || slot.desc != shipped_slot->desc || slot.payload != shipped_slot->payload ||
        slot.last_consumer != shipped_slot->last_consumer)
      return fail(fmt::format(
          "task {}: state {} wake_head {} cursor {} waiters {} deltas {} {} last_consumer {}; "
          "expected DONE (5), -1, 0, at most {}, as shipped {} {} {}",
          i, slot.state, slot.wake_head, slot.fanin_cursor, slot.wake_count, slot.desc, slot.payload,
          slot.last_consumer, ih->n - 1 - i, shipped_slot->desc, shipped_slot->payload, shipped_slot->last_consumer));
  }
  // Graph submissions (§9: 64-aligned records in task order).
  uint64_t off = rt->submissions.raw() - dest;
  for (uint32_t k = 0; k < rt->graph_count; ++k) {
    const auto s = staged_at<GraphSubmission>(c, off);
    if (!s) return fail(fmt::format("submission {} lies past the shipped bytes", k));
    std::vector<TensorArg> boundary(s->n_bt);
    std::vector<uint64_t> slots(s->n_bs);
    for (uint64_t i = 0; i < s->n_bt; ++i)
      if (auto t = staged_at<TensorArg>(c, off + sizeof(GraphSubmission) + 64 * i)) boundary[i] = *t;
    for (uint64_t i = 0; i < s->n_bs; ++i)
      if (auto v = staged_at<uint64_t>(c, off + sizeof(GraphSubmission) + 64 * uint64_t{s->n_bt} + 8 * i))
        slots[i] = *v;
    off = spec::up64(off + s->record_bytes);
    if (s->outer_id < 0 || static_cast<uint32_t>(s->outer_id) >= ih->n || !unflagged[s->outer_id]) continue;
    BlockCheck block(mem, *s, boundary, slots, flaw);
    units += block.nodes();
    if (auto e = block.run()) return fail(*e);
  }
  // SchedControl.
  const auto sc = device_at<SchedControl>(mem, rt->device_only);
  const uint64_t pushed = schedule.mode == Mode::kNewest ? 0 : units;  // newest pops by moving the tail back
  if (sc.ring_head != pushed || sc.ring_tail != pushed || sc.units_dispatched != units || sc.units_completed != units ||
      sc.units_remaining != 0 || sc.ring_capacity != rt->Q || sc.fault != 0 || sc.workers != workers ||
      sc.reserved != 0)
    return fail(
        fmt::format("SchedControl head {} tail {} dispatched {} completed {} remaining {} capacity {} fault {} "
                    "workers {} reserved {}; expected head and tail {}, {} units dispatched and completed, none "
                    "remaining, capacity {}, no fault, {} workers",
                    sc.ring_head, sc.ring_tail, sc.units_dispatched, sc.units_completed, sc.units_remaining,
                    sc.ring_capacity, sc.fault, sc.workers, sc.reserved, pushed, units, rt->Q, workers));
  return Verdict::pass();
}

}  // namespace stackcheck::oracles
