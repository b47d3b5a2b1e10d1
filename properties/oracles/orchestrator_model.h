// A model of the orchestrator API (HARNESS.md §2.7), written from RUNTIME.md §6-§9 and §13
// alone, to be run step by step beside the real Orchestrator (orchestrator_sut.h compares
// them). It predicts, for every call: the task id returned (kNoTask after a latch,
// kGraphInlined for an inline graph run), each new task's descriptor, payload, pool entries
// and fanin (RAW, WAW, WAR over bounding byte ranges; dedup, sorted, self dropped; more than
// 128 latches 4), the task-heap top and high-water (sizes round to 64, tensors align 1024,
// scope_end rewinds to the scope_begin mark), the graph-heap top (one 64-aligned block per
// GRAPH submission), each new graph definition's counts, node fanin and arguments, and the
// latched error word (first code wins; after a latch every call is a no-op).
// Invariant: the model shares no code with stack/runtime/host: its interval bookkeeping, heap
// arithmetic, alias classes and graph keys are its own; it uses only the runtime's record
// types and constants (tags, kinds, kernel ids) as vocabulary. A ModelFlaw makes it
// deliberately wrong, for positive controls. RapidCheck-free (fuzz targets may link it).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "stack/runtime/image/records.h"

namespace stackcheck::oracles::orch {

// ---------------------------------------------------------------- setup

struct ModelConfig {
  uint32_t W = 16;
  uint64_t task_heap = 1 << 20;
  uint64_t graph_heap = 1 << 20;
  uint64_t tensormap_capacity = 65536;
  uint64_t scope_tasks_capacity = 0;  // 0: W
  uint64_t clusters = 24;
};

// Fake device addresses of the setup (nothing touches device memory before upload).
inline constexpr uint64_t kTaskHeapBase = 0x2000'0000'0000ull;
inline constexpr uint64_t kGraphHeapBase = 0x3000'0000'0000ull;
inline constexpr uint64_t kEntryBase = 0x4000'0000'0000ull;  // entry i at + (i << 32)

using Dims = std::vector<int64_t>;  // rank 1..2 in the calls this model generates

struct EntrySpec {
  Dims dims;
  bool inout = false;
  std::vector<int32_t> host;  // row-major values of the host copy (In entries are readable)
};

// A window in elements: per dimension `size` elements from `off` (rank = off.size()).
struct Window {
  Dims off, size;
  bool operator==(const Window&) const = default;
};

// ---------------------------------------------------------------- graph functions

// An operand of a graph body node: a window of boundary tensor i, of internal allocation k,
// a new internal allocation (`output` of out_dims), or (kOuter) a window of model buffer i
// captured from outside the body: a tensor from outside the recording, latch 5, when the
// body is recorded; an ordinary operand when it runs inline.
struct BodyTensor {
  enum class Source : uint8_t { kBoundary, kInternal, kOutput, kOuter } source = Source::kBoundary;
  uint32_t index = 0;
  uint32_t tag = runtime::kTagInput;
  Window win;     // relative to that tensor; unused for kOutput
  Dims out_dims;  // kOutput
};
// A scalar of a graph body node: a literal, boundary slot $k, 3 * $k + 1 computed from it, or a
// ScalarSlot made by hand with `literal` as its value: kHandSlot carries the recording's own
// domain (SLOT k when recorded, latch 5 past the boundary's scalars), kForeignSlot no domain
// (another recording's: latch 5 when recorded). Run inline, both are their value.
struct BodyScalar {
  enum class Kind : uint8_t {
    kSlot,
    kLiteral,
    kFrozen,
    kHandSlot,
    kForeignSlot
  } kind = Kind::kLiteral;  // frozen: 3 * $k + 1
  uint32_t slot = 0;
  uint64_t literal = 0;
};
struct BodyNode {
  enum class Kind : uint8_t { kSubmit, kAlloc, kScopeBegin, kNestedGraph, kWaitTensor, kScopeEnd } kind = Kind::kSubmit;
  int32_t kernel = 0;
  std::vector<BodyTensor> tensors;
  std::vector<BodyScalar> scalars;
  std::vector<Dims> alloc;  // kAlloc shapes
};
// A graph function: the boundary it is written for (shape and tag per tensor, scalar count)
// and its body. Its id is its index in ModelSetup::graphs.
struct GraphFnSpec {
  std::vector<Dims> params;
  std::vector<uint32_t> tags;  // kTagInput / kTagInout: what the body may write
  uint32_t n_scalars = 0;
  std::vector<BodyNode> nodes;
};

struct ModelSetup {
  ModelConfig config;
  std::vector<EntrySpec> entries;
  std::vector<GraphFnSpec> graphs;
};

// ---------------------------------------------------------------- calls

// A tensor argument: a window of model buffer `buffer` (whole buffer when win is empty), or
// for tag output a runtime-allocated tensor of out_dims.
// kNullBuffer names no buffer: the call passes a null TensorRef (latch 5, "null tensor argument").
inline constexpr uint32_t kNullBuffer = UINT32_MAX;
// kForeignBuffer names a buffer of another orchestrator (entry 0's whole buffer there, at the
// same address): refused like a null handle (latch 5, "tensor of another orchestrator").
inline constexpr uint32_t kForeignBuffer = UINT32_MAX - 1;
inline bool refused_handle(uint32_t buffer) { return buffer == kNullBuffer || buffer == kForeignBuffer; }
struct TensorOperand {
  uint32_t tag = runtime::kTagInput;
  uint32_t buffer = 0;  // or kNullBuffer
  std::optional<Window> win;
  Dims out_dims;
};
// One add_* call on an Args / GraphArgs, in order.
struct ArgItem {
  bool is_scalar = false;
  TensorOperand tensor;
  uint64_t scalar = 0;
};

struct ScopeBegin {};
struct ScopeEnd {};
struct AllocTensors {
  std::vector<Dims> shapes;
};
struct Submit {
  int32_t kernel = 0;
  std::vector<ArgItem> items;
};
struct SubmitGraph {
  uint32_t fn = 0;
  std::vector<ArgItem> items;
};
// `read v = entry[index]` of an entry In tensor's host copy (the plan interpreter's read),
// then `submit fill(output_existing target, scalar v)`, so the value read lands in a scalar.
struct Read {
  uint32_t entry = 0;
  Dims index;
  TensorOperand target;
};
struct WaitTensor {
  uint32_t buffer = 0;
};
struct Fatal {};
struct SyncStart {
  uint64_t blocks = 0;
};

using Call = std::variant<ScopeBegin, ScopeEnd, AllocTensors, Submit, SubmitGraph, Read, WaitTensor, Fatal, SyncStart>;
std::string show_call(const Call& c);
std::string show_setup(const ModelSetup& s);  // config, entries, graph functions (a few lines)

// ---------------------------------------------------------------- predictions

// A buffer the orchestration can name: an entry (external) or a heap allocation.
struct ModelBuffer {
  uint64_t base = 0;
  Dims dims;
  int32_t entry = -1;  // entry index, or -1
  uint64_t bytes() const;
};

enum class EdgeKind : uint8_t { kRaw, kWaw, kWar, kCount };
const char* edge_kind_name(EdgeKind k);

// A task as the model expects to find it in the mirror. Claimed-only tasks (a latch between
// claim and publish) must hold the zeroed records of a fresh claim.
struct ModelTask {
  int32_t id = -1;
  bool published = false;
  bool logged = false;  // in the task log: appended to its scope (§8 step 6)
  uint32_t kind = runtime::kKindInvalid;
  int32_t kernel_id = 0;
  uint64_t heap_begin = 0, heap_end = 0;
  uint16_t n_nodes = 0;
  std::vector<runtime::TensorArg> tensors;
  std::vector<uint64_t> scalars;
  std::vector<int32_t> fanin;
  uint64_t tensor_at = 0, scalar_at = 0, fanin_at = 0;  // pool regions (element indices)
};

// A graph definition as the model expects it in the cache.
struct ModelTensorDef {
  uint32_t source = 0, index = 0, tag = 0;
  uint64_t offset_bytes = 0;
  Dims shape, stride;
};
struct ModelNodeDef {
  int32_t kernel_id = 0;
  std::vector<ModelTensorDef> tensors;
  std::vector<std::pair<uint32_t, uint64_t>> scalars;  // (source, value)
  std::vector<uint16_t> fanin;
};
struct ModelDef {
  std::vector<int64_t> key;  // the model's own key words (fn, boundary, classes, scalars)
  uint32_t fn_id = 0;
  uint32_t n_bt = 0, n_bs = 0;
  std::vector<uint64_t> internal_bytes;
  std::vector<ModelNodeDef> nodes;
  uint64_t required_heap() const;
  uint64_t tensor_args() const;
  uint64_t scalar_args() const;
  uint64_t block_bytes() const;  // required_heap + 64 T + 8 K + 32 + 128 (n - 1) + 104
};

// What the last call did, as predicted.
struct StepOutcome {
  int32_t returned = -1;              // task id, kNoTask (-1) or kGraphInlined (-2); 0 for no-task calls
  bool returns_task = false;          // submit / alloc_tensors / submit_graph / read
  std::vector<int32_t> tasks;         // ids claimed by this call (published or not)
  std::vector<uint32_t> new_buffers;  // model buffer indices created by this call
  std::optional<uint32_t> new_def;    // definition recorded by this call
  bool graph_hit = false, graph_inline = false;
  // submit_graph: how many of its body's submit / alloc_tensors calls hand back a node or task
  // (the rest, from the first latch on, kNoTask); -1 for other calls.
  int32_t body_accepted = -1;
  uint32_t edges[static_cast<int>(EdgeKind::kCount)] = {};
};

enum class ModelFlaw : uint8_t {
  kNone,
  kForgetWar,                // no edges from readers to a later writer
  kNoHeapRewind,             // scope_end keeps the heap top
  kLatestCodeWins,           // a later latch overwrites the error word
  kTakesForeignHandles,      // another orchestrator's handle taken as this one's entry 0
  kCountsLatchingNode,       // a recording's latching body call counted as handing back a node
  kTakesForeignSlots,        // a recording takes another recording's ScalarSlot by its value, as inline would
  kWindowSizesFirst,         // a window latch's detail predicted with the sizes before the offsets
  kMismatchFiguresReversed,  // a builtin refusal's figures predicted in reverse order
  kMismatchNameShifted,      // a builtin refusal's detail naming the builtin of the next id
};

// ---------------------------------------------------------------- the model

class OrchestratorModel {
 public:
  // The root scope is open, as bind step 2 opens it.
  explicit OrchestratorModel(std::shared_ptr<const ModelSetup> setup, ModelFlaw flaw = ModelFlaw::kNone);

  void apply(const Call& c);
  // Bind step 2's end: latch 1 if a scope is still open.
  void finish();

  const ModelSetup& setup() const { return *setup_; }
  const StepOutcome& last() const { return last_; }
  int32_t error() const { return error_; }
  // The figures the latched detail states, in order, where the model knows them (a builtin
  // refusal: see builtin_mismatch; a window outside its tensor: offsets, sizes, the tensor's
  // dims, or the ranks; sync_start: the blocks asked and the clusters); empty otherwise.
  const std::vector<int64_t>& latch_figures() const { return latch_figures_; }
  // The whole latched detail, where the model knows its words too (a refused builtin: `submit
  // NAME: TEXT`, or `graph FN submit NAME: TEXT` in a recording); empty otherwise.
  const std::string& latch_text() const { return latch_text_; }
  bool latched() const { return error_ != 0; }
  uint32_t submitted() const { return static_cast<uint32_t>(tasks_.size()); }
  uint32_t scope_depth() const { return static_cast<uint32_t>(scopes_.size()); }
  uint64_t heap_top() const { return heap_top_; }
  uint64_t heap_high_water() const { return heap_hw_; }
  uint64_t graph_heap_top() const { return graph_top_; }
  uint64_t tensor_cursor() const { return cursor_tensors_; }
  uint64_t scalar_cursor() const { return cursor_scalars_; }
  uint64_t fanin_cursor() const { return cursor_fanin_; }
  const std::vector<ModelBuffer>& buffers() const { return buffers_; }
  const std::vector<ModelTask>& tasks() const { return tasks_; }
  const std::vector<ModelDef>& defs() const { return defs_; }
  // The highest consumer of each task (0 when none), from the predicted fanin.
  std::vector<int32_t> last_consumers() const;
  // Recent accesses (buffer, window), newest last: what a generator places new windows near.
  struct Access {
    uint32_t buffer;
    Window win;
  };
  const std::vector<Access>& recent() const { return recent_; }
  uint64_t bookkeeping_size() const;  // ranges + reader records of the model's own map

  // One byte-range bookkeeping (the model's tensormap): disjoint segments, each with the
  // last writer and the readers since.
  struct Segment {
    uint64_t lo, hi;
    int32_t writer;
    std::vector<int32_t> readers;
  };
  enum class Mode : uint8_t { kRead, kWrite, kReadWrite, kNone };

 private:
  using Book = std::vector<Segment>;
  struct Scope {
    uint64_t heap_mark;
    uint64_t tasks;
  };
  // A resolved tensor argument: its record and its byte range.
  struct Resolved {
    runtime::TensorArg arg;
    uint64_t lo, hi;
  };

  // false, for `return latch(c);`; `figures`: what the first latch's detail states, in order
  bool latch(int32_t code, std::vector<int64_t> figures = {}, std::string text = {});
  // A refused builtin's detail: `CALL NAME: TEXT`.
  std::string mismatch_detail(const std::string& call, int32_t kernel, std::string text) const;
  std::nullopt_t refuse(int32_t code, std::vector<int64_t> figures = {});  // latches, then nullopt
  int32_t no_task(int32_t code, std::vector<int64_t> figures = {});        // latches, then kNoTask
  bool window_ok(const Dims& dims, const Window& w) const;
  runtime::TensorArg arg_of(uint32_t buffer, const std::optional<Window>& win, uint32_t tag) const;
  std::optional<uint64_t> heap_alloc(uint64_t bytes);
  std::optional<int32_t> claim(uint64_t n_tensors, uint64_t n_scalars);
  bool fanin_and_register(int32_t id, const std::vector<Resolved>& args, std::vector<int32_t>& fanin);
  bool append_to_scope();
  uint32_t new_buffer(uint64_t base, const Dims& dims);
  void note_access(uint32_t buffer, const Window& w);

  void scope_begin();
  void scope_end();
  int32_t alloc_tensors(const std::vector<Dims>& shapes, std::vector<uint32_t>* out);
  // Arguments in order: validated into resolved tensors (outputs with out_dims) and scalars.
  struct Built {
    std::vector<TensorOperand> tensors;
    std::vector<uint64_t> scalars;
  };
  std::optional<Built> build_args(const std::vector<ArgItem>& items, bool graph_boundary);
  // The arguments of a call that returns a task (none yet: kNoTask); nullopt when the model
  // has latched or refuses them.
  std::optional<Built> task_args(const std::vector<ArgItem>& items, bool graph_boundary);
  int32_t submit_built(int32_t kernel, const Built& b, std::vector<uint32_t>* outs);
  void submit(const Submit& s);
  void submit_graph(const SubmitGraph& s);
  bool record_graph(const GraphFnSpec& fn, const std::vector<runtime::TensorArg>& boundary,
                    const std::vector<uint64_t>& scalars, ModelDef& def);
  bool run_inline(const GraphFnSpec& fn, const Built& b);
  void read(const Read& r);

  std::shared_ptr<const ModelSetup> setup_;
  ModelFlaw flaw_;
  int32_t error_ = 0;
  std::vector<int64_t> latch_figures_;
  std::string latch_text_;
  std::vector<ModelTask> tasks_;
  std::vector<ModelBuffer> buffers_;
  std::vector<Scope> scopes_;
  std::vector<ModelDef> defs_;
  Book book_;
  uint64_t heap_top_ = 0, heap_hw_ = 0, graph_top_ = 0;
  uint64_t cursor_tensors_ = 0, cursor_scalars_ = 0, cursor_fanin_ = 0;
  std::vector<Access> recent_;
  StepOutcome last_;
};

// Shapes and kernels the model validates submit arguments against (§12): why the arguments
// do not fit builtin `kernel`, with the figures the refusal states in order (the kernel id and
// the highest submittable one; the tensors and scalars taken, then given; the argument whose
// tag does not fit; the dims of the shapes that do not fit, in argument order) and the words
// around them, or nullopt.
struct Mismatch {
  std::string text;  // the refusal as a user reads it, its figures among its words
  std::vector<int64_t> figures;
};
std::string builtin_name(int32_t kernel);  // a builtin's name; `zero` for ALLOC, `?` for no builtin
std::optional<Mismatch> builtin_mismatch(int32_t kernel, const std::vector<uint32_t>& tags,
                                         const std::vector<Dims>& shapes, size_t n_scalars);

}  // namespace stackcheck::oracles::orch
