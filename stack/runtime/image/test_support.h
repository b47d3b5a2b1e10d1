// TEST SUPPORT ONLY (used by image/ and device/ unit tests): a hand-driven mirror that
// performs the §8 claim directly, so compaction and attach can be tested without the
// orchestrator. The buffer starts poisoned 0xAA (STYLE.md 11); like bind step 1, only the
// header is zeroed, and each claim rewrites every descriptor, payload, slot and flag field
// of its task and its whole pool regions (scalars in zero-padded 8-entry lines).
// Not for library code: it STACK_CHECKs instead of returning errors.
#pragma once

#include <cstring>
#include <vector>

#include "stack/runtime/image/layout.h"
#include "stack/runtime/image/records.h"
#include "stack/runtime/image/self_relative.h"
#include "stack/support/check.h"

namespace stackcheck::runtime::testing {

struct TaskSpec {
  TaskSpec(uint32_t kind_, int32_t kernel_id_, uint16_t n_tensors_, uint16_t n_scalars_,
           std::vector<int32_t> fanin_ = {}, uint16_t n_nodes_ = 0, DevAddr graph_ctx_ = {})
      : kind(kind_),
        kernel_id(kernel_id_),
        n_tensors(n_tensors_),
        n_scalars(n_scalars_),
        fanin(std::move(fanin_)),
        n_nodes(n_nodes_),
        graph_ctx(graph_ctx_) {}
  uint32_t kind;
  int32_t kernel_id;
  uint16_t n_tensors;
  uint16_t n_scalars;
  std::vector<int32_t> fanin;  // producer ids
  uint16_t n_nodes;
  DevAddr graph_ctx;
};

class TestMirror {
 public:
  explicit TestMirror(uint64_t W, uint8_t poison = 0xAA)
      : layout(LayoutPlanner::mirror(W)), bytes(layout.seg.total_bytes, std::byte{poison}) {
    reset();
  }

  // Bind step 1: zero the header, rewind the cursors; slots are reset by claims.
  void reset() {
    ImageHeader h{};
    h.orch_done = 1;
    std::memcpy(bytes.data(), &h, sizeof h);
    n = 0;
    cursors = PoolCounts{};
  }

  // Claims the next task and writes it fully. Tensor k of task i gets a recognisable base.
  int32_t add(const TaskSpec& t) {
    const SegmentLayout& L = layout.seg;
    const uint64_t i = n++;
    STACK_CHECK(i < L.pitch, "test mirror window full");
    TaskDescriptor d{};
    d.task_id = static_cast<int32_t>(i);
    d.kernel_id = t.kernel_id;
    d.kind = t.kind;
    d.heap_begin = DevAddr(0x2000'0000'0000ull + i * 4096);
    d.heap_end = d.heap_begin + 1024;
    put(L.desc_at(i), d);

    TaskPayload p{};
    p.n_tensors = t.n_tensors;
    p.n_scalars = t.n_scalars;
    p.n_fanin = static_cast<uint16_t>(t.fanin.size());
    p.n_nodes = t.n_nodes;
    p.graph_ctx = t.graph_ctx;
    put(L.payload_at(i), p);
    if (t.n_tensors) {
      STACK_CHECK(set_at(bytes.data(), L.payload_at(i) + kPayloadTensorsField, L.tensor_at(cursors.tensors)), "delta");
      for (uint64_t k = 0; k < t.n_tensors; ++k) {
        TensorArg a{};
        a.base = DevAddr(0x3000'0000'0000ull + (i << 20) + (k << 10));
        a.buffer_bytes = 1024;
        a.tag = kTagInput;
        a.rank = 1;
        a.shape[0] = 256;
        a.stride[0] = 1;
        put(L.tensor_at(cursors.tensors++), a);
      }
    }
    if (t.n_scalars) {
      STACK_CHECK(set_at(bytes.data(), L.payload_at(i) + kPayloadScalarsField, L.scalar_at(cursors.scalars)), "delta");
      const uint64_t region = scalar_region_entries(t.n_scalars);
      for (uint64_t k = 0; k < region; ++k)
        put<uint64_t>(L.scalar_at(cursors.scalars++), k < t.n_scalars ? 1000 * i + k + 1 : 0);
    }
    if (!t.fanin.empty()) {
      STACK_CHECK(set_at(bytes.data(), L.payload_at(i) + kPayloadFaninField, L.fanin_at(cursors.fanin)), "delta");
      for (int32_t f : t.fanin) put<int32_t>(L.fanin_at(cursors.fanin++), f);
    }

    SlotState s{};
    s.state = kSlotPending;
    s.last_consumer = -1;
    s.fanin_cursor = static_cast<int32_t>(t.fanin.size());
    put(L.slot_at(i), s);
    STACK_CHECK(set_at(bytes.data(), L.slot_at(i) + kSlotDescField, L.desc_at(i)), "delta");
    STACK_CHECK(set_at(bytes.data(), L.slot_at(i) + kSlotPayloadField, L.payload_at(i)), "delta");
    put<uint8_t>(L.flag_at(i), 0);
    return static_cast<int32_t>(i);
  }

  template <class T>
  void put(uint64_t off, const T& v) {
    std::memcpy(bytes.data() + off, &v, sizeof v);
  }
  template <class T>
  T get(uint64_t off) const {
    T v;
    std::memcpy(&v, bytes.data() + off, sizeof v);
    return v;
  }

  MirrorLayout layout;
  std::vector<std::byte> bytes;
  uint64_t n = 0;
  PoolCounts cursors;
};

// The RuntimeHeader bind would write for a hand-staged upload laid out as bind lays it out:
// the device-only zone at the region's start, then the copied zone (this header, then the
// image). Graph fields stay zero for the caller to fill.
inline RuntimeHeader hand_runtime_header(uint32_t W, uint64_t Q, DevAddr region, uint64_t device_only_bytes,
                                         uint64_t region_bytes, uint64_t image_bytes) {
  RuntimeHeader rt{};
  std::memcpy(rt.magic, kRuntimeMagic, sizeof rt.magic);
  rt.version = kRuntimeVersion;
  rt.W = W;
  rt.Q = static_cast<uint32_t>(Q);
  rt.image = region + device_only_bytes + sizeof(RuntimeHeader);
  rt.image_bytes = image_bytes;
  rt.device_only = region;
  rt.device_only_bytes = device_only_bytes;
  rt.region = region;
  rt.region_bytes = region_bytes;
  return rt;
}

template <class T>
T read_at(const std::vector<std::byte>& b, uint64_t off) {
  T v;
  std::memcpy(&v, b.data() + off, sizeof v);
  return v;
}

}  // namespace stackcheck::runtime::testing
