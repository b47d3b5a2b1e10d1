// The orchestrator API (RUNTIME.md §8): what an orchestration (the plan interpreter, tests,
// later graph recording) calls to build one bind's task graph in the host MIRROR, a byte
// buffer laid out by LayoutPlanner::mirror(W) (image/layout.h) whose records are written at
// their offsets and whose deltas are set with set_at (image/self_relative.h).
// Invariants:
// - error() is the latched word; the first code wins; after a latch every call is a no-op
//   (submit returns kNoTask, allocations and windows return a null TensorRef).
// - A claim (id = submitted count, < W) rewrites every descriptor, payload, slot and flag
//   field of its index, whatever the mirror held (0xAA poison, an earlier bind); pool regions
//   are claimed in task order (tensors, scalars in whole 8-entry lines with zero pads, fanin
//   at its final count), so the mirror's live prefix is exactly what compaction ships.
// - Device addresses only: the orchestrator never touches device memory. Entry tensors come
//   in through external(); outputs and alloc_tensors buffers come from the task heap.
// - Graphs (§9): submit_graph is declared here and implemented in graph/submit.cpp with the
//   GraphRecorder (host/graph/recorder.h) and the definition cache (host/graph/cache.h), which lives as
//   long as the orchestrator (reset() keeps it). While a graph function runs, direct calls
//   that a graph body may not make latch 5. TensorRefs and ScalarSlots of a recording carry
//   its domain (a nonzero serial); outside it they are rejected (latch 5).
// Host-only.
#pragma once

#include <boost/container/small_vector.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "stack/runtime/devmem/dev_addr.h"
#include "stack/runtime/host/error_latch.h"
#include "stack/runtime/host/graph/cache.h"
#include "stack/runtime/host/heap.h"
#include "stack/runtime/host/mirror_buffer.h"
#include "stack/runtime/host/tensormap.h"
#include "stack/runtime/image/layout.h"
#include "stack/runtime/image/records.h"
#include "stack/support/limits.h"

namespace stackcheck::runtime {

using TaskId = int32_t;
inline constexpr TaskId kNoTask = -1;
inline constexpr TaskId kGraphInlined = -2;                            // submit_graph ran fn inline (cache full)
inline constexpr uint32_t kMaxTaskTensors = support::kTaskMaxTensors;  // kernel tasks, ALLOC tasks, graph nodes
inline constexpr uint32_t kMaxTaskScalars = support::kTaskMaxScalars;
inline constexpr uint32_t kMaxAllocBuffers = support::kAllocMaxBuffers;
inline constexpr uint32_t kMaxScopes = 64;  // open scopes, the root included
inline constexpr uint64_t kElemBytes = 4;   // every tensor holds i32
inline constexpr uint64_t kTensorAlign = 1024;
inline constexpr uint64_t kMaxTensorElements = 1ull << 40;

// A tensor shape: rank 1..4, each dim in [1, INT32_MAX], row-major strides within INT32_MAX,
// at most 2^40 elements (valid()). Anything else passed to the API latches 5.
struct Shape {
  uint32_t rank = 0;
  int64_t dims[4] = {};

  Shape() = default;
  Shape(std::initializer_list<int64_t> d);
  static Shape of(std::span<const int64_t> d);  // rank = d.size() (invalid when > 4)
  bool valid() const;
  uint64_t elements() const;  // valid shapes only
};

class Orchestrator;
class GraphRecorder;
class GraphArgs;

// Boundary scalar k of a graph (GraphRecorder::scalar): add_scalar records it as SLOT k in a
// recording, patched at every replay. value() is this submission's value, a plain integer:
// anything computed from it is recorded as a LITERAL (frozen).
struct ScalarSlot {
  uint32_t index = 0;
  uint64_t value_ = 0;
  uint64_t domain = 0;  // the recording it belongs to (0: an inline run, value only)
  uint64_t value() const { return value_; }
};

// A window of a buffer (host-side handle): buffer [base, base+buffer_bytes), window start
// offset_bytes, shape and strides in elements. Null after a latch.
class TensorRef {
 public:
  TensorRef() = default;
  bool is_null() const { return owner_ == nullptr; }
  DevAddr base() const { return base_; }
  uint64_t buffer_bytes() const { return buffer_bytes_; }
  uint64_t offset_bytes() const { return offset_bytes_; }
  uint32_t rank() const { return rank_; }
  int64_t dim(uint32_t i) const { return shape_[i]; }
  int64_t stride(uint32_t i) const { return stride_[i]; }
  Shape shape() const;
  // Bytes from the window start to the end of its last element (the bounding range, §7).
  uint64_t extent_bytes() const;

  // A window of this window: per dimension `sizes[i]` elements from element `offsets[i]`
  // (no task). Rank mismatch or a window outside this one latches 5 and returns null.
  TensorRef window(std::span<const int64_t> offsets, std::span<const int64_t> sizes) const;
  // Nonzero for a tensor of a graph recording (its virtual base is not a device address).
  uint64_t recording() const { return domain_; }
  // Writes the window's offset, rank, shape and strides (int32, as records carry them) and
  // `tag` into a record that has those fields (TensorArg, GraphTensorArgDef).
  template <class Record>
  void write_window(Record& r, uint32_t tag) const {
    r.offset_bytes = offset_bytes_;
    r.tag = tag;
    r.rank = rank_;
    for (uint32_t d = 0; d < rank_; ++d) {
      r.shape[d] = static_cast<int32_t>(shape_[d]);
      r.stride[d] = static_cast<int32_t>(stride_[d]);
    }
  }

 private:
  friend class Orchestrator;
  friend class GraphRecorder;
  Orchestrator* owner_ = nullptr;
  uint64_t domain_ = 0;
  DevAddr base_;
  uint64_t buffer_bytes_ = 0;
  uint64_t offset_bytes_ = 0;
  uint32_t rank_ = 0;
  int64_t shape_[4] = {};
  int64_t stride_[4] = {};
};

// The arguments of one submit, in parameter order: tensors, then scalars. Latches 5 at once
// on a tensor after a scalar, a 33rd tensor, a 17th scalar, a null or out-of-buffer window,
// or an invalid output shape. add_output's `out` must stay valid until submit, which stores
// the runtime-allocated tensor there (or a null TensorRef when the submit fails).
class Args {
 public:
  explicit Args(Orchestrator& o) : o_(&o) {}
  // Arguments of a graph body's submit (GraphRecorder::submit): in a recording its tensors
  // and slots must belong to that recording; in an inline run this is Args(orchestrator).
  explicit Args(GraphRecorder& r);
  Args& add_input(const TensorRef& t) { return add_tensor(kTagInput, t); }
  Args& add_inout(const TensorRef& t) { return add_tensor(kTagInout, t); }
  Args& add_output_existing(const TensorRef& t) { return add_tensor(kTagOutputExisting, t); }
  Args& add_no_dep(const TensorRef& t) { return add_tensor(kTagNoDep, t); }
  Args& add_output(TensorRef* out, const Shape& shape);
  Args& add_scalar(uint64_t v);
  // SLOT k inside its recording; elsewhere its value().
  Args& add_scalar(ScalarSlot s);

  size_t tensor_count() const { return tensors_.size(); }
  size_t scalar_count() const { return scalars_.size(); }
  // Why these arguments do not fit builtin `kernel_id`'s signature (§12), or nullopt.
  std::optional<std::string> signature_mismatch(int32_t kernel_id) const;

 private:
  friend class Orchestrator;
  friend class GraphRecorder;
  struct Tensor {
    uint32_t tag = kTagInvalid;
    TensorRef ref;             // all tags but output
    TensorRef* out = nullptr;  // output
    Shape shape;               // output
  };
  Args& add_tensor(uint32_t tag, const TensorRef& t);
  bool accepting_tensor();

  Orchestrator* o_;
  uint64_t domain_ = 0;  // the recording these arguments are for (0: none)
  // Inline up to four of each (one submit's arguments; a plan may pass up to 32 and 16).
  boost::container::small_vector<Tensor, 4> tensors_;
  boost::container::small_vector<uint64_t, 4> scalars_;
  boost::container::small_vector<int32_t, 4> slots_;  // per scalar: slot index k, or -1 for a literal
};

struct OrchestratorSetup {
  std::span<std::byte> mirror;  // >= layout.seg.total_bytes, owned by the caller
  // When set, `mirror` is this buffer's bytes, filled lazily: the orchestrator ensures each
  // block before it first reads or writes it. Null: `mirror` is filled already.
  MirrorBuffer* lazy = nullptr;
  MirrorLayout layout;  // LayoutPlanner::mirror(W)
  DevAddr task_heap;
  uint64_t task_heap_bytes = 0;
  DevAddr graph_heap;
  uint64_t graph_heap_bytes = 0;
  uint64_t tensormap_capacity = 65536;
  uint64_t scope_tasks_capacity = 0;  // 0: W
  uint64_t clusters = 24;
};

// One entry of the task log (submission order).
struct TaskRecord {
  TaskId id = kNoTask;
  uint32_t kind = kKindInvalid;
  int32_t kernel_id = 0;
  bool operator==(const TaskRecord&) const = default;
};

class Orchestrator {
 public:
  explicit Orchestrator(const OrchestratorSetup& setup);
  Orchestrator(const Orchestrator&) = delete;
  Orchestrator& operator=(const Orchestrator&) = delete;

  // Bind step 1: forget everything of the previous bind and zero the mirror header. The
  // records are NOT cleared: claims reset them (§8).
  void reset();
  // Bind step 2's end: latch 1 if a scope is still open, then write the mirror header
  // (n, cursors, orch_done = 1, orch_error).
  void finish();

  int32_t error() const { return latch_.code(); }
  const std::string& error_detail() const { return latch_.detail(); }
  bool latched() const { return latch_.latched(); }
  // Latches `c` (first code wins); the plan interpreter uses it for arithmetic (5).
  void latch(ErrorCode c, std::string detail = {}) { latch_.latch(c, std::move(detail)); }
  // A list of `size` argument entries taking one more past `limit` latches 5 ("more than
  // LIMIT WHAT"); true when it latched.
  bool beyond_limit(size_t size, size_t limit, std::string_view what);

  void scope_begin();
  void scope_end();
  uint32_t scope_depth() const { return static_cast<uint32_t>(scopes_.size()); }

  // A whole buffer the orchestration did not allocate (an entry tensor): no tensormap
  // writer. Invalid shape latches 5.
  TensorRef external(DevAddr base, const Shape& shape);

  TaskId submit(int32_t kernel_id, const Args& args);
  // One ALLOC task (kind 2, kernel 7) owning 1..16 fresh buffers, which it zero-fills when
  // scheduled; out[i] receives buffer i (null on failure). out.size() >= shapes.size().
  TaskId alloc_tensors(std::span<const Shape> shapes, std::span<TensorRef> out);
  // §9: record `fn` on a key miss (cache permitting), then replay: one outer GRAPH task with
  // the boundary's fanin and registrations and its graph-heap block. With the cache full a
  // miss runs `fn` inline as ordinary tasks and returns kGraphInlined. kNoTask after a latch
  // (or when fn cancelled). graph/submit.cpp.
  TaskId submit_graph(uint32_t fn_id, const std::function<void(GraphRecorder&)>& fn, const GraphArgs& args);
  // Bind step 7: the outer task's payload graph_ctx = its GraphSubmission record.
  void stage_graph_ctx(TaskId outer, DevAddr record);

  void wait_tensor(const TensorRef& t);  // nothing runs before upload: latches 8
  void fatal();                          // latches 9
  void sync_start(uint64_t block_num);   // latches 7 when block_num > clusters

  // ---- state ----
  uint32_t W() const { return static_cast<uint32_t>(layout_.W()); }
  uint32_t submitted() const { return submitted_; }
  PoolCounts cursors() const { return cursors_; }
  bool done() const { return done_; }
  const std::vector<TaskRecord>& task_log() const { return log_; }
  const TaskHeap& task_heap() const { return heap_; }
  const GraphHeap& graph_heap() const { return graph_heap_; }
  const TensorMap& tensormap() const { return tensormap_; }
  const std::vector<GraphSubmissionPlan>& graph_submissions() const { return graph_subs_; }
  uint64_t graphs_inlined() const { return graphs_inlined_; }
  const GraphCache& graph_cache() const { return graph_cache_; }
  GraphCache& graph_cache() { return graph_cache_; }  // bind step 6 marks uploads
  std::span<const std::byte> mirror() const { return mirror_; }
  const MirrorLayout& layout() const { return layout_; }

 private:
  friend class Args;
  friend class TensorRef;
  friend class GraphRecorder;
  friend class GraphArgs;
  friend class OrchestratorTestAccess;  // test support only (host/test_support.h)

  // Set while a graph function runs (submit_graph), so direct calls it must not make latch 5.
  enum class GraphMode : uint8_t { kNone, kRecording, kInline };
  bool graph_mode_allows(const char* what, bool allowed_inline);

  struct Scope {
    uint64_t heap_mark = 0;
    std::vector<TaskId> tasks;
  };
  // Pool regions of the task being submitted (element indices).
  struct Claim {
    TaskId id = kNoTask;
    uint64_t tensors = 0, scalars = 0, fanin = 0;
  };
  struct Published {
    uint32_t kind = kKindInvalid;
    int32_t kernel_id = 0;
    DevAddr heap_begin, heap_end;
    uint16_t n_nodes = 0;
    std::vector<TensorArg> tensors;
    std::span<const uint64_t> scalars;
  };

  bool valid_ref(const TensorRef& t, std::string* why, uint64_t domain = 0) const;
  TensorRef whole_buffer(DevAddr base, const Shape& s);
  static TensorArg tensor_arg(const TensorRef& t, uint32_t tag);
  bool claim(uint32_t n_tensors, uint32_t n_scalars, Claim& c);
  bool fanin_and_register(const Claim& c, const std::vector<TensorArg>& args);
  void publish(const Claim& c, const Published& p);
  bool append_to_scope(const Claim& c, uint32_t kind, int32_t kernel_id);

  template <class T>
  void put(uint64_t off, const T& v);
  void bind_delta(uint64_t field_off, uint64_t target_off);

  // The mirror bytes [off, off + n), their blocks filled first when the mirror is lazy.
  std::byte* mirror_at(uint64_t off, uint64_t n) {
    if (lazy_ != nullptr) lazy_->ensure(off, n);
    return mirror_.data() + off;
  }

  std::span<std::byte> mirror_;
  MirrorBuffer* lazy_ = nullptr;
  MirrorLayout layout_;
  uint64_t scope_tasks_capacity_;
  uint64_t clusters_;
  ErrorLatch latch_;
  TaskHeap heap_;
  GraphHeap graph_heap_;
  TensorMap tensormap_;
  FaninBuilder fanin_;
  // The graph recorders' node fanin (graph-local ids below kGraphMaxNodes): one builder for
  // every recording, whose epoch marks make a begin() O(1) after the first (a recorder of its
  // own zero-filled 1,024 marks per submit_graph). add_node is not reentrant, so sharing it is safe.
  FaninBuilder graph_fanin_;
  uint32_t submitted_ = 0;
  PoolCounts cursors_;
  std::vector<Scope> scopes_;
  std::vector<TaskRecord> log_;
  bool done_ = false;
  // Graphs: the cache outlives reset(); the rest is per bind.
  uint64_t tensormap_capacity_;
  GraphCache graph_cache_;
  std::vector<GraphSubmissionPlan> graph_subs_;
  uint64_t graphs_inlined_ = 0;
  GraphMode graph_mode_ = GraphMode::kNone;
  uint64_t recordings_ = 0;  // domains handed out (serials from 1)
};

}  // namespace stackcheck::runtime
