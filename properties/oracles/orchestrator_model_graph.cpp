// The orchestrator model's graphs (RUNTIME.md §9): key and alias classes, the 16-definition
// cache, recording (local book, frozen literals, slot scalars), inline runs once the cache is
// full, and the outer GRAPH task with its graph-heap block.
#include <set>

#include "properties/oracles/orchestrator_model_rules.h"
#include "stack/runtime/image/graph_def.h"

namespace stackcheck::oracles::orch {

using namespace rules;

// §9: key, cache (16), record or inline on a miss, then the outer GRAPH task.
void OrchestratorModel::submit_graph(const SubmitGraph& s) {
  last_.body_accepted = 0;  // a refused submit_graph runs no body
  const auto b = task_args(s.items, true);
  if (!b) return;
  std::vector<TensorArg> boundary;
  for (const TensorOperand& t : b->tensors) boundary.push_back(arg_of(t.buffer, t.win, t.tag));
  const std::vector<uint32_t> cls = classes_of(boundary);
  std::vector<int64_t> key = {static_cast<int64_t>(s.fn), static_cast<int64_t>(boundary.size())};
  for (size_t i = 0; i < boundary.size(); ++i) {
    const TensorArg& a = boundary[i];
    key.push_back(a.tag);
    key.push_back(a.rank);
    for (uint32_t d = 0; d < a.rank; ++d) key.push_back(a.shape[d]), key.push_back(a.stride[d]);
    key.push_back(cls[i]);
  }
  key.push_back(static_cast<int64_t>(b->scalars.size()));
  const GraphFnSpec& fn = setup_->graphs[s.fn];

  std::optional<size_t> def;
  for (size_t i = 0; i < defs_.size(); ++i)
    if (defs_[i].key == key) def = i;
  if (def) {
    last_.graph_hit = true;
  } else if (defs_.size() < kCacheCapacity) {
    ModelDef d;
    d.key = key;
    d.fn_id = s.fn;
    d.n_bt = static_cast<uint32_t>(boundary.size());
    d.n_bs = static_cast<uint32_t>(b->scalars.size());
    // RUNTIME.md §10 limits: required_heap + args + storage <= INT32_MAX, checked when the
    // recording ends; the refusal states the graph's function id and what it needs.
    const bool recorded = record_graph(fn, boundary, b->scalars, d) &&
                          (d.block_bytes() <= static_cast<uint64_t>(INT32_MAX) ||
                           latch(kInvalidArgs, {static_cast<int64_t>(d.fn_id), static_cast<int64_t>(d.block_bytes())}));
    last_.body_accepted = static_cast<int32_t>(d.nodes.size()) + (!recorded && flaw_ == ModelFlaw::kCountsLatchingNode);
    if (!recorded) return;
    defs_.push_back(std::move(d));
    def = defs_.size() - 1;
    last_.new_def = static_cast<uint32_t>(*def);
  } else {
    last_.graph_inline = true;
    last_.returned = run_inline(fn, *b) ? kGraphInlined : kNoTask;
    return;
  }
  const ModelDef& d = defs_[*def];
  const auto id = claim(0, 0);
  if (!id) return;
  const uint64_t block = d.block_bytes(), size = up(block, 64);
  if (size > setup_->config.graph_heap - graph_top_) return void(latch(kHeapExhausted));
  ModelTask t = tasks_.back();
  t.heap_begin = kGraphHeapBase + graph_top_;
  t.heap_end = t.heap_begin + block;
  graph_top_ += size;
  std::vector<Resolved> args;
  for (const TensorArg& a : boundary) {
    const auto [lo, hi] = range_of(a);
    args.push_back(Resolved{a, lo, hi});
  }
  if (!fanin_and_register(*id, args, t.fanin)) return;
  t.published = true;
  t.kind = runtime::kKindGraph;
  t.kernel_id = runtime::kGraphKernelId;
  t.n_nodes = static_cast<uint16_t>(d.nodes.size());
  cursor_fanin_ += t.fanin.size();
  tasks_.back() = t;
  if (!append_to_scope()) return;
  for (const TensorOperand& op : b->tensors)
    note_access(op.buffer,
                op.win ? *op.win : Window{Dims(buffers_[op.buffer].dims.size(), 0), buffers_[op.buffer].dims});
  last_.returned = *id;
}

// Recording (§9): no slot, no heap; a local book over per-tensor spaces gives the node edges,
// every multi-member alias class one whole space; a node writing an `input` boundary, a bad
// window or slot, a scope, a nested graph, wait_tensor or zero nodes latch 5.
// long: one walk over the body's nodes that checks, places and links each against the local book; every check is
// a latch that ends the recording, so the walk's steps share its early returns
bool OrchestratorModel::record_graph(const GraphFnSpec& fn, const std::vector<TensorArg>& boundary,
                                     const std::vector<uint64_t>& scalars, ModelDef& def) {
  const std::vector<uint32_t> cls = classes_of(boundary);
  std::vector<uint32_t> members(boundary.size(), 0);
  for (uint32_t c : cls) ++members[c];
  std::vector<Dims> internals;
  Book local;
  constexpr uint64_t kSpace = 1ull << 48;
  for (const BodyNode& node : fn.nodes) {
    if (node.kind != BodyNode::Kind::kSubmit && node.kind != BodyNode::Kind::kAlloc) return latch(kInvalidArgs);
    if (def.nodes.size() >= kMaxNodes) return latch(kInvalidArgs);
    ModelNodeDef nd;
    std::vector<std::pair<uint64_t, uint64_t>> ranges;
    std::vector<Mode> modes;
    auto add_tensor = [&](uint32_t source, uint32_t index, const Dims& dims, const Dims& stride, const Window& w,
                          uint32_t tag) {
      ModelTensorDef td{source, index, tag, 0, w.size, stride};
      uint64_t last = 0;
      for (size_t i = 0; i < dims.size(); ++i) {
        td.offset_bytes += static_cast<uint64_t>(w.off[i] * stride[i]) * kElem;
        last += static_cast<uint64_t>((w.size[i] - 1) * stride[i]);
      }
      uint64_t lo, hi;
      if (source == runtime::kSrcBoundary && members[cls[index]] > 1) {
        lo = (1 + cls[index]) * kSpace, hi = lo + kSpace;  // the whole class is one range
      } else {
        lo = (source == runtime::kSrcBoundary ? 1 + index : 1 + kMaxBoundaryTensors + index) * kSpace + td.offset_bytes;
        hi = lo + (last + 1) * kElem;
      }
      nd.tensors.push_back(std::move(td));
      ranges.push_back({lo, hi});
      modes.push_back(mode_of(tag));
    };
    if (node.kind == BodyNode::Kind::kAlloc) {
      if (node.alloc.empty() || node.alloc.size() > kMaxAlloc) return latch(kInvalidArgs);
      nd.kernel_id = runtime::kAllocKernelId;
      for (const Dims& d : node.alloc) {
        if (!dims_ok(d)) return latch(kInvalidArgs);
        internals.push_back(d);
        def.internal_bytes.push_back(elements(d) * kElem);
        add_tensor(runtime::kSrcInternal, static_cast<uint32_t>(internals.size() - 1), d, row_major(d),
                   Window{Dims(d.size(), 0), d}, runtime::kTagOutput);
      }
    } else {
      std::vector<uint32_t> tags;
      std::vector<Dims> shapes;
      for (const BodyTensor& bt : node.tensors) {
        if (bt.source == BodyTensor::Source::kOutput) continue;
        if (bt.source == BodyTensor::Source::kOuter) return latch(kInvalidArgs);  // from outside the recording
        if (bt.source == BodyTensor::Source::kBoundary) {
          if (bt.index >= boundary.size()) return latch(kInvalidArgs);
          const TensorArg& a = boundary[bt.index];
          if (!window_ok(Dims(a.shape, a.shape + a.rank), bt.win)) return latch(kInvalidArgs);
        } else if (bt.index >= internals.size() || !window_ok(internals[bt.index], bt.win)) {
          return latch(kInvalidArgs);
        }
      }
      for (const BodyScalar& sc : node.scalars)
        if ((sc.kind == BodyScalar::Kind::kForeignSlot && flaw_ != ModelFlaw::kTakesForeignSlots) ||
            (sc.kind != BodyScalar::Kind::kLiteral && sc.kind != BodyScalar::Kind::kForeignSlot &&
             sc.slot >= scalars.size()))
          return latch(kInvalidArgs);
      for (const BodyTensor& bt : node.tensors) {
        tags.push_back(bt.tag);
        shapes.push_back(bt.source == BodyTensor::Source::kOutput ? bt.out_dims : bt.win.size);
      }
      if (auto m = builtin_mismatch(node.kernel, tags, shapes, node.scalars.size()))
        return latch(kInvalidArgs, std::move(m->figures),
                     mismatch_detail(fmt::format("graph {} submit", def.fn_id), node.kernel, m->text));
      nd.kernel_id = node.kernel;
      for (const BodyTensor& bt : node.tensors) {
        if (bt.source == BodyTensor::Source::kOutput) {
          internals.push_back(bt.out_dims);
          def.internal_bytes.push_back(elements(bt.out_dims) * kElem);
          add_tensor(runtime::kSrcInternal, static_cast<uint32_t>(internals.size() - 1), bt.out_dims,
                     row_major(bt.out_dims), Window{Dims(bt.out_dims.size(), 0), bt.out_dims}, bt.tag);
        } else if (bt.source == BodyTensor::Source::kBoundary) {
          const TensorArg& a = boundary[bt.index];
          add_tensor(runtime::kSrcBoundary, bt.index, Dims(a.shape, a.shape + a.rank),
                     Dims(a.stride, a.stride + a.rank), bt.win, bt.tag);
        } else {
          add_tensor(runtime::kSrcInternal, bt.index, internals[bt.index], row_major(internals[bt.index]), bt.win,
                     bt.tag);
        }
      }
      for (const BodyScalar& sc : node.scalars) {
        if (sc.kind == BodyScalar::Kind::kSlot || sc.kind == BodyScalar::Kind::kHandSlot)
          nd.scalars.push_back({runtime::kScalarSlot, sc.slot});
        else if (sc.kind == BodyScalar::Kind::kLiteral || sc.kind == BodyScalar::Kind::kForeignSlot)
          nd.scalars.push_back({runtime::kScalarLiteral, sc.literal});  // (a foreign slot only under the flaw)
        else
          nd.scalars.push_back({runtime::kScalarLiteral, 3 * scalars[sc.slot] + 1});  // frozen now
      }
      for (const ModelTensorDef& td : nd.tensors)
        if (td.source == runtime::kSrcBoundary && boundary[td.index].tag == runtime::kTagInput &&
            (mode_of(td.tag) == Mode::kWrite || mode_of(td.tag) == Mode::kReadWrite))
          return latch(kInvalidArgs);
    }
    const int32_t self = static_cast<int32_t>(def.nodes.size());
    std::vector<Edge> edges;
    for (size_t k = 0; k < ranges.size(); ++k)
      producers(local, ranges[k].first, ranges[k].second, modes[k], flaw_ == ModelFlaw::kForgetWar, edges);
    std::set<uint16_t> in;
    for (const Edge& e : edges)
      if (e.producer != self) in.insert(static_cast<uint16_t>(e.producer));
    nd.fanin.assign(in.begin(), in.end());
    for (size_t k = 0; k < ranges.size(); ++k) {
      record(local, ranges[k].first, ranges[k].second, modes[k], self);
      if (book_size(local) > setup_->config.tensormap_capacity) return latch(kTensormap);
    }
    def.nodes.push_back(std::move(nd));
  }
  if (def.nodes.empty()) return latch(kInvalidArgs);
  return true;
}

// An inline run (cache full): the body's calls are ordinary tasks on the real windows, with
// live scalar values.
bool OrchestratorModel::run_inline(const GraphFnSpec& fn, const Built& b) {
  std::vector<uint32_t> internal;  // internal k -> model buffer
  uint32_t nodes = 0;
  for (const BodyNode& node : fn.nodes) {
    if (latched()) return false;
    if (node.kind != BodyNode::Kind::kSubmit && node.kind != BodyNode::Kind::kAlloc) return latch(kInvalidArgs);
    if (nodes >= kMaxNodes) return latch(kInvalidArgs);
    if (node.kind == BodyNode::Kind::kAlloc) {
      ++nodes;
      std::vector<uint32_t> made;
      if (alloc_tensors(node.alloc, &made) == kNoTask) return false;
      ++last_.body_accepted;
      internal.insert(internal.end(), made.begin(), made.end());
      continue;
    }
    Built nb;
    for (const BodyTensor& bt : node.tensors) {
      TensorOperand op;
      op.tag = bt.tag;
      if (bt.source == BodyTensor::Source::kOutput) {
        op.out_dims = bt.out_dims;
      } else {
        if (bt.source == BodyTensor::Source::kBoundary && bt.index >= b.tensors.size()) return latch(kInvalidArgs);
        if (bt.source == BodyTensor::Source::kInternal && bt.index >= internal.size()) return latch(kInvalidArgs);
        const TensorOperand* outer = bt.source == BodyTensor::Source::kBoundary ? &b.tensors[bt.index] : nullptr;
        op.buffer = outer                                     ? outer->buffer
                    : bt.source == BodyTensor::Source::kOuter ? bt.index  // the captured buffer, whole
                                                              : internal[bt.index];
        const Dims& bd = buffers_[op.buffer].dims;
        const Window base = outer && outer->win ? *outer->win : Window{Dims(bd.size(), 0), bd};
        if (!window_ok(base.size, bt.win)) return latch(kInvalidArgs);
        Window w = bt.win;
        for (size_t i = 0; i < w.off.size(); ++i) w.off[i] += base.off[i];
        op.win = w;
      }
      nb.tensors.push_back(op);
    }
    for (const BodyScalar& sc : node.scalars) {
      const bool by_value = sc.kind == BodyScalar::Kind::kLiteral || sc.kind == BodyScalar::Kind::kHandSlot ||
                            sc.kind == BodyScalar::Kind::kForeignSlot;  // a hand-made slot inline: its value
      if (!by_value && sc.slot >= b.scalars.size()) return latch(kInvalidArgs);
      nb.scalars.push_back(by_value                             ? sc.literal
                           : sc.kind == BodyScalar::Kind::kSlot ? b.scalars[sc.slot]
                                                                : 3 * b.scalars[sc.slot] + 1);
    }
    ++nodes;
    std::vector<uint32_t> outs;
    if (submit_built(node.kernel, nb, &outs) == kNoTask) return false;
    ++last_.body_accepted;
    internal.insert(internal.end(), outs.begin(), outs.end());
  }
  if (nodes == 0) return latch(kInvalidArgs);
  return true;
}

}  // namespace stackcheck::oracles::orch
