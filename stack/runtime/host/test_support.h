// TEST SUPPORT ONLY (runtime unit tests under stack/runtime/: host, host/graph, plan and
// device; and the oracle tests of properties/oracles): the fixtures they share, defined once.
// - parse_or_fail, read_corpus_plan / corpus_plans_dir: plans from text and from corpus/plans;
//   plan_past_16_definitions: a plan whose 17th graph runs inline.
// - OrchestratorFixture: an orchestrator over a mirror poisoned 0xAA (STYLE.md 11) with fake
//   device addresses (nothing touches device memory), the root scope open as bind step 2
//   opens it, and readers of the mirror's records; GraphFixture adds a large graph heap and
//   DefView, a decoder of GraphDefinition bytes that reads by offsets as the device does.
// - RuntimeBench: a Runtime on its own DeviceMemory poisoned 0xAA, configured from a plan;
//   BoundPlan: a plan bound once on its own bench; expect_stats: chosen BindStats counters.
// - poisoned_bind_options, set_image_byte: bind options for poisoned runs, and a
//   before-upload hook that corrupts one staged image byte.
// - OrchestratorTestAccess: the orchestrator's test-only entry points (a friend).
// - STACKCHECK_UNDER_TSAN: 1 in a ThreadSanitizer build.
// Not for library code: it uses gtest assertions.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "stack/runtime/devmem/device_memory.h"
#include "stack/runtime/host/bind.h"
#include "stack/runtime/host/graph/recorder.h"
#include "stack/runtime/host/orchestrator.h"
#include "stack/runtime/host/runtime.h"
#include "stack/runtime/image/graph_def.h"
#include "stack/runtime/plan/parser.h"

// 1 in a ThreadSanitizer build (gcc's and clang's ways of saying so), else 0: the threaded
// tests run fewer repeats there, and the race control runs only there.
#if defined(__SANITIZE_THREAD__)
#define STACKCHECK_UNDER_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define STACKCHECK_UNDER_TSAN 1
#endif
#endif
#ifndef STACKCHECK_UNDER_TSAN
#define STACKCHECK_UNDER_TSAN 0
#endif

namespace stackcheck::runtime::testing {

// ---- plans ----

inline OrchProgram parse_or_fail(std::string_view text) {
  PlanParseResult r = parse_plan(text);
  EXPECT_TRUE(r.ok()) << r.error().to_string() << "\n" << text;
  return r.ok() ? r.program() : OrchProgram{};
}

inline std::filesystem::path corpus_plans_dir() {
  // This header is stack/runtime/host/test_support.h: four levels below the repository.
  return std::filesystem::path(STACKCHECK_SOURCE_DIR) / "corpus" / "plans";
}

inline std::string read_corpus_plan(std::string_view name) {
  const std::filesystem::path path = corpus_plans_dir() / name;
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << path;
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Sixteen one-node graphs g0..g15, each submitted once, then a 17th, h (a fill through a
// view at its slot $0), submitted with slots 1 and 2: past the 16 definitions the runtime
// keeps, h's body runs inline, with live values, each time.
inline std::string plan_past_16_definitions() {
  std::string text = "tensor c: InOut [4]\n";
  for (int k = 0; k < 16; ++k)
    text += fmt::format("graph g{}(a) {{\n  submit fill(output_existing a, scalar {})\n}}\n", k, k);
  text += "graph h(a) {\n  set o = $0\n  view v = a[o:1]\n  submit fill(output_existing v, scalar 7)\n}\n";
  for (int k = 0; k < 16; ++k) text += fmt::format("submit_graph g{}(inout c)\n", k);
  text += "submit_graph h(inout c, scalar 1)\nsubmit_graph h(inout c, scalar 2)\n";
  return text;
}

// ---- an orchestrator over a poisoned mirror ----

struct OrchestratorOptions {
  uint32_t W = 16;
  uint8_t fill = 0xAA;
  uint64_t scope_tasks = 0;  // 0: W
  uint64_t task_heap_bytes = 1 << 20;
  uint64_t graph_heap_bytes = 1 << 16;
};

struct OrchestratorFixture {
  static constexpr DevAddr kTaskHeap{0x2000'0000'0000ull};
  static constexpr DevAddr kGraphHeap{0x3000'0000'0000ull};
  static constexpr DevAddr kEntries{0x4000'0000'0000ull};  // entry i at kEntries + i * 2^32

  explicit OrchestratorFixture(const OrchestratorOptions& o = {})
      : layout(LayoutPlanner::mirror(o.W)), mirror(layout.seg.total_bytes, std::byte{o.fill}) {
    OrchestratorSetup s;
    s.mirror = mirror;
    s.layout = layout;
    s.task_heap = kTaskHeap;
    s.task_heap_bytes = o.task_heap_bytes;
    s.graph_heap = kGraphHeap;
    s.graph_heap_bytes = o.graph_heap_bytes;
    s.scope_tasks_capacity = o.scope_tasks;
    orch = std::make_unique<Orchestrator>(s);
    orch->reset();
    orch->scope_begin();  // the root scope, as bind opens it
  }

  TensorRef entry(uint64_t i, Shape s) { return orch->external(kEntries + (i << 32), s); }

  template <class T>
  T at(uint64_t off) const {
    T v;
    std::memcpy(&v, mirror.data() + off, sizeof v);
    return v;
  }
  TaskDescriptor desc(uint64_t i) const { return at<TaskDescriptor>(layout.seg.desc_at(i)); }
  TaskPayload payload(uint64_t i) const { return at<TaskPayload>(layout.seg.payload_at(i)); }
  SlotState slot(uint64_t i) const { return at<SlotState>(layout.seg.slot_at(i)); }
  uint8_t flag(uint64_t i) const { return at<uint8_t>(layout.seg.flag_at(i)); }
  TensorArg tensor_arg(uint64_t k) const { return at<TensorArg>(layout.seg.tensor_at(k)); }
  uint64_t scalar(uint64_t k) const { return at<uint64_t>(layout.seg.scalar_at(k)); }
  // Task i's producer ids, through its payload's fanin delta.
  std::vector<int32_t> fanin(uint64_t i) const {
    std::vector<int32_t> v;
    const TaskPayload p = payload(i);
    if (p.n_fanin == 0) return v;
    const uint64_t first = layout.seg.payload_at(i) + kPayloadFaninField + static_cast<int64_t>(p.fanin);
    for (uint32_t k = 0; k < p.n_fanin; ++k) v.push_back(at<int32_t>(first + 4 * k));
    return v;
  }

  MirrorLayout layout;
  std::vector<std::byte> mirror;
  std::unique_ptr<Orchestrator> orch;
};

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

// An orchestrator for graph tests: W 64, a 16 MiB task heap and a 4 GiB graph heap.
struct GraphFixture : OrchestratorFixture {
  GraphFixture() : OrchestratorFixture(OrchestratorOptions{64, 0xAA, 0, 1 << 24, 1ull << 32}) {}
  DefView def(uint32_t k) const { return DefView(orch->graph_cache().at(k).bytes); }
};

// ---- a Runtime on poisoned device memory ----

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
  bool has_reservation(std::string_view name) const {
    for (const ReservationInfo& i : mem.reservations())
      if (i.name == name) return true;
    return false;
  }
  DeviceMemory mem;
  std::unique_ptr<Runtime> rt;
};

// A plan parsed, a bench configured from it, and the result of one bind there (its status
// is the test's to check).
struct BoundPlan {
  explicit BoundPlan(std::string_view text, const BindOptions& o = {}) : p(parse_or_fail(text)), b(p) {
    if (b.rt) {
      r = b.rt->bind(p, o);
    } else {
      r.status = -1;  // RuntimeBench has failed the test already
      r.detail = "no Runtime to bind on";
    }
  }
  OrchProgram p;
  RuntimeBench b;
  BindResult r;
};

// The BindStats counters a test expects; the unset ones are not checked.
struct ExpectedStats {
  std::optional<uint64_t> tasks{}, nodes{}, defs{}, inlined{}, h2d{}, def_h2d{}, tensor_h2d{}, d2h{}, shipped{},
      graph_internal_heap{};
};

inline void expect_stats(const BindStats& got, const ExpectedStats& want) {
  auto check = [](const char* name, uint64_t g, const std::optional<uint64_t>& w) {
    if (w) {
      EXPECT_EQ(g, *w) << "BindStats." << name;
    }
  };
  check("tasks", got.tasks, want.tasks);
  check("nodes", got.nodes, want.nodes);
  check("defs", got.defs, want.defs);
  check("inlined", got.inlined, want.inlined);
  check("h2d", got.h2d, want.h2d);
  check("def_h2d", got.def_h2d, want.def_h2d);
  check("tensor_h2d", got.tensor_h2d, want.tensor_h2d);
  check("d2h", got.d2h, want.d2h);
  check("shipped", got.shipped, want.shipped);
  check("graph_internal_heap", got.graph_internal_heap, want.graph_internal_heap);
}

// Bind options for a run on device memory poisoned 0xAA, in scheduler mode `m`.
inline BindOptions poisoned_bind_options(ScheduleOptions::Mode m = ScheduleOptions::Mode::kThreaded,
                                         uint64_t schedule_seed = 0, unsigned workers = 0) {
  BindOptions o;
  o.fill_byte = 0xAA;
  o.schedule.mode = m;
  o.schedule.seed = schedule_seed;
  o.schedule.workers = workers;
  return o;
}

// A before-upload hook that sets byte `offset` of the staged image (counted from the
// ImageHeader, like a `mutate` line) to `value`; an offset past the staged bytes fails the
// test and stops the bind.
inline BeforeUploadHook set_image_byte(uint64_t offset, uint8_t value) {
  return [offset, value](StagedUpload& up) -> std::optional<std::string> {
    if (offset >= up.bytes.size() - up.image_offset) {
      ADD_FAILURE() << "image offset " << offset << " past the " << up.bytes.size() - up.image_offset
                    << " staged image bytes";
      return "offset past the staged image";
    }
    up.bytes[up.image_offset + offset] = std::byte{value};
    return std::nullopt;
  };
}

}  // namespace stackcheck::runtime::testing

namespace stackcheck::runtime {

// Entry points of the orchestrator that only tests need (a friend of Orchestrator), kept out
// of its public API.
class OrchestratorTestAccess {
 public:
  // Claims and publishes a bare outer GRAPH slot (kind 3, kernel -1, n_nodes, no tensor or
  // scalar args, no fanin, no heap block, graph_ctx 0), so claim tests can poison and reuse
  // a GRAPH slot without a recording; submit_graph publishes its outer task itself, with the
  // boundary's fanin and its graph-heap block.
  static TaskId claim_graph_outer(Orchestrator& o, uint16_t n_nodes) {
    if (o.latched() || !o.graph_mode_allows("claim_graph_outer", false)) return kNoTask;
    if (n_nodes < 1 || n_nodes > 1024) {
      o.latch_.latch(ErrorCode::kInvalidArgs, fmt::format("graph of {} nodes (1..1024)", n_nodes));
      return kNoTask;
    }
    Orchestrator::Claim c;
    if (!o.claim(0, 0, c)) return kNoTask;
    Orchestrator::Published p;
    p.kind = kKindGraph;
    p.kernel_id = kGraphKernelId;
    p.n_nodes = n_nodes;
    o.fanin_.begin(c.id, o.W());  // boundary fanin comes with a graph submission (§9)
    o.publish(c, p);
    if (!o.append_to_scope(c, p.kind, p.kernel_id)) return kNoTask;
    return c.id;
  }
};

}  // namespace stackcheck::runtime
