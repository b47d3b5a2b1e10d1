// TEST SUPPORT ONLY (graph_test.cpp, graph_bind_test.cpp): an orchestrator over a mirror
// poisoned with 0xAA and fake device addresses (nothing touches device memory), a decoder of
// GraphDefinition bytes, and a Runtime bench on its own poisoned DeviceMemory.
// Not for library code: it uses gtest assertions.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string_view>
#include <vector>

#include "stack/runtime/devmem/device_memory.h"
#include "stack/runtime/host/graph/recorder.h"
#include "stack/runtime/host/runtime.h"
#include "stack/runtime/image/graph_def.h"
#include "stack/runtime/plan/parser.h"

namespace stackcheck::runtime::testing {

// Reads a definition the way the device does: by offsets from its header.
struct DefView {
  explicit DefView(std::vector<std::byte> b) : bytes(std::move(b)) {
    EXPECT_FALSE(validate_graph_def_bytes(bytes, &h).has_value());
  }
  template <class T>
  T at(uint64_t off) const {
    T v;
    std::memcpy(&v, bytes.data() + off, sizeof v);
    return v;
  }
  NodeDef node(uint64_t i) const { return at<NodeDef>(h.nodes_off + i * sizeof(NodeDef)); }
  GraphTensorArgDef tensor(uint64_t node_i, uint64_t k) const {
    return at<GraphTensorArgDef>(h.tensor_args_off + (node(node_i).tensor_begin + k) * sizeof(GraphTensorArgDef));
  }
  GraphScalarArgDef scalar(uint64_t node_i, uint64_t k) const {
    return at<GraphScalarArgDef>(h.scalar_args_off + (node(node_i).scalar_begin + k) * sizeof(GraphScalarArgDef));
  }
  std::vector<uint16_t> fanin(uint64_t i) const {
    std::vector<uint16_t> v;
    for (uint32_t e = 0; e < node(i).n_fanin; ++e)
      v.push_back(at<uint16_t>(h.fanin_off + 2 * (node(i).fanin_begin + e)));
    return v;
  }
  std::vector<uint16_t> fanout(uint64_t i) const {
    std::vector<uint16_t> v;
    for (uint32_t e = 0; e < node(i).n_fanout; ++e)
      v.push_back(at<uint16_t>(h.fanout_off + 2 * (node(i).fanout_begin + e)));
    return v;
  }
  uint64_t internal_off(uint64_t k) const { return at<uint64_t>(h.internal_off_off + 8 * k); }

  std::vector<std::byte> bytes;
  GraphDefHeader h{};
};

// An orchestrator with the root scope open, as bind step 2 runs it. Entry tensor i lives at
// 0x4000'0000'0000 + i * 2^32.
struct GraphFixture {
  explicit GraphFixture(uint32_t W = 64, uint64_t graph_heap_bytes = 1ull << 32)
      : layout(LayoutPlanner::mirror(W)), mirror(layout.seg.total_bytes, std::byte{0xAA}) {
    OrchestratorSetup s;
    s.mirror = mirror;
    s.layout = layout;
    s.task_heap = DevAddr{0x2000'0000'0000ull};
    s.task_heap_bytes = 1 << 24;
    s.graph_heap = DevAddr{0x3000'0000'0000ull};
    s.graph_heap_bytes = graph_heap_bytes;
    orch = std::make_unique<Orchestrator>(s);
    orch->reset();
    orch->scope_begin();
  }
  TensorRef entry(uint64_t i, Shape s) { return orch->external(DevAddr{0x4000'0000'0000ull + (i << 32)}, s); }
  template <class T>
  T at(uint64_t off) const {
    T v;
    std::memcpy(&v, mirror.data() + off, sizeof v);
    return v;
  }
  TaskDescriptor desc(uint64_t i) const { return at<TaskDescriptor>(layout.seg.desc_at(i)); }
  TaskPayload payload(uint64_t i) const { return at<TaskPayload>(layout.seg.payload_at(i)); }
  std::vector<int32_t> fanin(uint64_t i) const {
    std::vector<int32_t> v;
    const TaskPayload p = payload(i);
    if (p.n_fanin == 0) return v;
    const uint64_t field = layout.seg.payload_at(i) + kPayloadFaninField;
    const uint64_t first = field + static_cast<int64_t>(p.fanin);
    for (uint32_t k = 0; k < p.n_fanin; ++k) v.push_back(at<int32_t>(first + 4 * k));
    return v;
  }
  DefView def(uint32_t k) const { return DefView(orch->graph_cache().at(k).bytes); }

  MirrorLayout layout;
  std::vector<std::byte> mirror;
  std::unique_ptr<Orchestrator> orch;
};

inline OrchProgram parse_or_fail(std::string_view text) {
  PlanParseResult r = parse_plan(text);
  EXPECT_TRUE(r.ok()) << r.error().to_string();
  return r.ok() ? r.program() : OrchProgram{};
}

// A Runtime on its own DeviceMemory poisoned with 0xAA, configured from the plan's config.
struct RuntimeBench {
  explicit RuntimeBench(const OrchProgram& p) : mem(DeviceMemoryConfig{0xAA, false}) {
    RuntimeConfig cfg;
    EXPECT_FALSE(apply_config(p.config, cfg).has_value());
    cfg.fill_byte = 0xAA;
    auto r = Runtime::create(mem, cfg);
    EXPECT_TRUE(r.has_value());
    if (r) rt = std::move(*r);
  }
  int reservations_named(std::string_view prefix) const {
    int n = 0;
    for (const ReservationInfo& i : mem.reservations())
      if (i.name.rfind(prefix, 0) == 0) ++n;
    return n;
  }
  DeviceMemory mem;
  std::unique_ptr<Runtime> rt;
};

}  // namespace stackcheck::runtime::testing
