// Orchestrator::submit_graph (RUNTIME.md §9): key, cache lookup, recording or inline run on a
// miss, then the replay: one outer GRAPH task per submission, the first included.
// Order of a replay, as submit's (§8): claim the outer slot, allocate its graph-heap block,
// fanin from the boundary and register it (input reads; inout reads and writes), publish
// (kind 3, kernel -1, n_nodes = the definition's n, no tensor or scalar args, heap block =
// the graph-heap block, graph_ctx 0 until staging), then the scope list and the task log.
#include <fmt/format.h>
#include <cstring>

#include "stack/runtime/host/graph/recorder.h"
#include "stack/support/check.h"

namespace stackcheck::runtime {
namespace {

// Restores the orchestrator's graph mode however fn leaves.
template <class Mode>
class ModeGuard {
 public:
  ModeGuard(Mode& m, Mode v) : m_(m), old_(m) { m_ = v; }
  ~ModeGuard() { m_ = old_; }
  ModeGuard(const ModeGuard&) = delete;
  ModeGuard& operator=(const ModeGuard&) = delete;

 private:
  Mode& m_;
  Mode old_;
};

}  // namespace

TaskId Orchestrator::submit_graph(uint32_t fn_id, const std::function<void(GraphRecorder&)>& fn,
                                  const GraphArgs& args) {
  if (latched() || !graph_mode_allows("submit_graph", false)) return kNoTask;
  STACK_CHECK(args.o_ == this, "GraphArgs built for another orchestrator");
  std::vector<TensorArg> boundary;
  boundary.reserve(args.tensors_.size());
  for (size_t i = 0; i < args.tensors_.size(); ++i) boundary.push_back(tensor_arg(args.tensors_[i], args.tags_[i]));

  GraphKey key = make_graph_key(fn_id, boundary, static_cast<uint32_t>(args.scalars_.size()));
  std::optional<uint32_t> def = graph_cache_.find(key);
  if (!def) {
    const bool record = !graph_cache_.full();
    GraphRecorder rec(*this, fn_id, args, boundary, record ? ++recordings_ : 0);
    {
      ModeGuard<GraphMode> guard(graph_mode_, record ? GraphMode::kRecording : GraphMode::kInline);
      if (fn) fn(rec);
    }
    if (!rec.finish()) return kNoTask;  // latched, or cancelled by fn
    if (!record) {
      ++graphs_inlined_;
      return kGraphInlined;
    }
    def = graph_cache_.insert(std::move(key), encode_graph_def(rec.spec()));
  }
  const GraphDefinition& d = graph_cache_.at(*def);

  Claim c;
  if (!claim(0, 0, c)) return kNoTask;
  const uint64_t block_bytes = graph_block_bytes(d.header);
  const auto block = graph_heap_.alloc(block_bytes);
  if (!block) return kNoTask;  // latched 2
  if (!fanin_and_register(c, boundary)) return kNoTask;
  Published p;
  p.kind = kKindGraph;
  p.kernel_id = kGraphKernelId;
  p.n_nodes = static_cast<uint16_t>(d.header.n_nodes);
  p.heap_begin = *block;
  p.heap_end = *block + block_bytes;
  publish(c, p);
  if (!append_to_scope(c, p.kind, p.kernel_id)) return kNoTask;
  graph_subs_.push_back(GraphSubmissionPlan{c.id, *def, *block, block_bytes, std::move(boundary), args.scalars_});
  return c.id;
}

void Orchestrator::stage_graph_ctx(TaskId outer, DevAddr record) {
  STACK_CHECK(outer >= 0 && static_cast<uint32_t>(outer) < submitted_, "graph_ctx of an unclaimed task");
  const auto i = static_cast<uint64_t>(outer);
  TaskDescriptor d{};
  std::memcpy(&d, mirror_at(layout_.seg.desc_at(i), sizeof d), sizeof d);
  STACK_CHECK(d.kind == kKindGraph, "graph_ctx is staged for GRAPH tasks only");
  const uint64_t field = layout_.seg.payload_at(i) + offsetof(TaskPayload, graph_ctx);
  STACK_CHECK(field + sizeof record <= mirror_.size(), "graph_ctx past the mirror");
  std::memcpy(mirror_at(field, sizeof record), &record, sizeof record);
}

}  // namespace stackcheck::runtime
