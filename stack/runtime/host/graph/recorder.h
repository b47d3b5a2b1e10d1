// Graph arguments and graph recording (RUNTIME.md §9): what a graph function sees.
// GraphArgs: the boundary of one submit_graph, add_input / add_inout / add_scalar only; any
// other tag, a tensor after a scalar, a 129th tensor or a 65th scalar latch 5.
// GraphRecorder: the `fn` of Orchestrator::submit_graph runs against it, in one of two modes.
// - Recording (a key miss with room in the cache): no slot, no heap. Boundary i is a tensor
//   at the virtual base (i+1)<<40, INTERNAL k (an `output` or an alloc_tensors buffer) at
//   (256+k)<<40; scalar(k) is a ScalarSlot recorded as SLOT k by Args::add_scalar, any other
//   scalar (even one computed from scalar(k).value()) is a LITERAL, and so is every view
//   offset: both stay frozen at replay. Each submit / alloc_tensors is one node; a local
//   tensormap gives the intra-graph edges, where every boundary tensor of a multi-member
//   alias class (cache.h) is one range (any access conflicts with any write to any
//   member), a singleton boundary and each INTERNAL its own exact window ranges. A node
//   writing an `input` boundary latches 5 (the outer task registers it as a read).
// - Inline (a miss with the cache full): boundary(i) is the submission's real tensor,
//   scalar(k) carries its live value, submit and alloc_tensors are ordinary tasks.
// Both modes: scopes, nested graphs and wait_tensor latch 5; 0 or more than 1024 nodes
// latch 5; a recording whose definition passes the §9 limits (<= 32 tensors / 16 scalars
// per node, required_heap + args + storage <= INT32_MAX) becomes a GraphDefSpec.
// Nothing is recorded or submitted when fn calls cancel() (its caller gave up, e.g. a
// statement budget ran out). Host-only.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <vector>

#include "stack/runtime/host/orchestrator.h"
#include "stack/runtime/host/tensormap.h"
#include "stack/runtime/image/graph_def.h"

namespace stackcheck::runtime {

constexpr uint64_t graph_boundary_base(uint64_t i) { return (i + 1) << 40; }
constexpr uint64_t graph_internal_base(uint64_t k) { return (256 + k) << 40; }

class GraphArgs {
 public:
  explicit GraphArgs(Orchestrator& o) : o_(&o) {}
  GraphArgs& add_input(const TensorRef& t) { return add_tensor(kTagInput, t); }
  GraphArgs& add_inout(const TensorRef& t) { return add_tensor(kTagInout, t); }
  GraphArgs& add_scalar(uint64_t v);
  // Not boundary tags (§9): each latches 5.
  GraphArgs& add_output(TensorRef* out, const Shape& shape);
  GraphArgs& add_output_existing(const TensorRef& t) { return add_tensor(kTagOutputExisting, t); }
  GraphArgs& add_no_dep(const TensorRef& t) { return add_tensor(kTagNoDep, t); }

  size_t tensor_count() const { return tensors_.size(); }
  size_t scalar_count() const { return scalars_.size(); }

 private:
  friend class Orchestrator;
  friend class GraphRecorder;
  GraphArgs& add_tensor(uint32_t tag, const TensorRef& t);

  Orchestrator* o_;
  std::vector<TensorRef> tensors_;
  std::vector<uint32_t> tags_;
  std::vector<uint64_t> scalars_;
};

using GraphFn = std::function<void(GraphRecorder&)>;

class GraphRecorder {
 public:
  GraphRecorder(const GraphRecorder&) = delete;
  GraphRecorder& operator=(const GraphRecorder&) = delete;

  bool recording() const { return domain_ != 0; }  // false: an inline run
  uint32_t fn_id() const { return fn_id_; }
  uint32_t boundary_tensors() const { return static_cast<uint32_t>(boundary_.size()); }
  uint32_t boundary_scalars() const { return static_cast<uint32_t>(args_.scalars_.size()); }
  uint32_t nodes() const { return nodes_; }
  Orchestrator& orchestrator() { return o_; }

  TensorRef boundary(uint32_t i);  // i >= boundary_tensors(): latch 5, null
  ScalarSlot scalar(uint32_t k);   // k >= boundary_scalars(): latch 5

  // One node (recording: returns its index) or one ordinary task (inline: its id).
  TaskId submit(int32_t kernel_id, const Args& args);
  TaskId alloc_tensors(std::span<const Shape> shapes, std::span<TensorRef> out);

  // Not allowed in a graph body: latch 5.
  void scope_begin();
  void scope_end();
  void wait_tensor(const TensorRef& t);
  TaskId submit_graph(uint32_t fn_id, const GraphFn& fn, const GraphArgs& args);
  // As on the orchestrator (no task): 9, and 7 beyond the clusters.
  void fatal() { o_.fatal(); }
  void sync_start(uint64_t block_num) { o_.sync_start(block_num); }

  void cancel() { cancelled_ = true; }
  bool cancelled() const { return cancelled_; }

 private:
  friend class Orchestrator;
  friend class Args;
  GraphRecorder(Orchestrator& o, uint32_t fn_id, const GraphArgs& args, std::vector<TensorArg> boundary,
                uint64_t domain);

  bool active();  // not latched, not cancelled
  bool count_node();
  uint32_t new_internal(const Shape& s, TensorRef* ref);
  // The local tensormap range of a tensor of this recording, and its definition arg.
  GraphTensorArgDef def_of(const TensorRef& t, uint32_t tag) const;
  std::pair<uint64_t, uint64_t> local_range(const GraphTensorArgDef& a) const;
  TaskId add_node(int32_t kernel_id, std::vector<GraphTensorArgDef> tensors, std::vector<GraphScalarArgDef> scalars);
  // After fn: true when the run may be submitted (recording: the spec is in spec()).
  bool finish();
  GraphDefSpec& spec() { return spec_; }

  Orchestrator& o_;
  uint32_t fn_id_;
  const GraphArgs& args_;
  std::vector<TensorArg> boundary_;  // real windows with their boundary tags
  std::vector<uint32_t> class_of_;   // alias class (smallest member index)
  std::vector<uint32_t> class_size_;
  uint64_t domain_;
  bool cancelled_ = false;
  uint32_t nodes_ = 0;
  GraphDefSpec spec_;
  TensorMap local_;
};

}  // namespace stackcheck::runtime
