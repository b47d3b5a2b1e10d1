// GraphArgs and GraphRecorder (recorder.h).
#include "stack/runtime/host/graph/recorder.h"

#include <fmt/format.h>
#include <limits>

#include "stack/defects/defects.h"
#include "stack/runtime/host/kernel_sig.h"
#include "stack/support/check.h"

namespace stackcheck::runtime {
namespace {

constexpr uint64_t kLocalShift = 44;  // local tensormap: one 2^44-byte space per buffer
constexpr uint64_t kLocalInternal = 256;

const char* boundary_tag_name(uint32_t tag) {
  switch (tag) {
    case kTagOutput: return "output";
    case kTagOutputExisting: return "output_existing";
    case kTagNoDep: return "no_dep";
    default: return "?";
  }
}

}  // namespace

// ---------------------------------------------------------------- GraphArgs

GraphArgs& GraphArgs::add_tensor(uint32_t tag, const TensorRef& t) {
  if (o_->latched()) return *this;
  if (tag != kTagInput && tag != kTagInout) {
    o_->latch(ErrorCode::kInvalidArgs,
              fmt::format("graph boundary tag {} (only input and inout)", boundary_tag_name(tag)));
    return *this;
  }
  if (!scalars_.empty()) {
    o_->latch(ErrorCode::kInvalidArgs, "a graph boundary tensor after a scalar");
    return *this;
  }
  if (o_->beyond_limit(tensors_.size(), kGraphMaxBoundaryTensors, "graph boundary tensors")) return *this;
  std::string why;
  if (!o_->valid_ref(t, &why)) {
    o_->latch(ErrorCode::kInvalidArgs, "graph boundary: " + why);
    return *this;
  }
  tensors_.push_back(t);
  tags_.push_back(tag);
  return *this;
}

GraphArgs& GraphArgs::add_output(TensorRef* out, const Shape&) {
  if (out != nullptr) *out = {};
  return add_tensor(kTagOutput, {});
}

GraphArgs& GraphArgs::add_scalar(uint64_t v) {
  if (o_->latched() || o_->beyond_limit(scalars_.size(), kGraphMaxBoundaryScalars, "graph boundary scalars"))
    return *this;
  scalars_.push_back(v);
  return *this;
}

// ---------------------------------------------------------------- Args of a graph body

Args::Args(GraphRecorder& r) : o_(&r.orchestrator()), domain_(r.domain_) {}

// ---------------------------------------------------------------- GraphRecorder

GraphRecorder::GraphRecorder(Orchestrator& o, uint32_t fn_id, const GraphArgs& args, std::vector<TensorArg> boundary,
                             uint64_t domain)
    : o_(o),
      fn_id_(fn_id),
      args_(args),
      boundary_(std::move(boundary)),
      class_of_(graph_alias_classes(boundary_)),
      class_size_(boundary_.size(), 0),
      domain_(domain),
      local_(o.tensormap_capacity_, o.latch_) {
  for (uint32_t c : class_of_) ++class_size_[c];
  spec_.fn_id = fn_id;
  spec_.n_boundary_tensors = static_cast<uint32_t>(boundary_.size());
  spec_.n_boundary_scalars = static_cast<uint32_t>(args.scalars_.size());
}

bool GraphRecorder::active() { return !cancelled_ && !o_.latched(); }

bool GraphRecorder::count_node() {
  if (nodes_ >= kGraphMaxNodes)
    return o_.latch_.latch(ErrorCode::kInvalidArgs,
                           fmt::format("graph {} has more than {} nodes", fn_id_, kGraphMaxNodes));
  ++nodes_;
  return true;
}

TensorRef GraphRecorder::boundary(uint32_t i) {
  if (!active()) return {};
  if (i >= boundary_.size()) {
    o_.latch(ErrorCode::kInvalidArgs, fmt::format("graph boundary tensor {} of {}", i, boundary_.size()));
    return {};
  }
  if (!recording()) return args_.tensors_[i];
  const TensorArg& b = boundary_[i];
  TensorRef t;
  t.owner_ = &o_;
  t.domain_ = domain_;
  t.base_ = DevAddr(graph_boundary_base(i));
  t.buffer_bytes_ = tensor_arg_extent(b);  // the window itself is the whole boundary tensor
  t.rank_ = b.rank;
  for (uint32_t d = 0; d < b.rank; ++d) {
    t.shape_[d] = b.shape[d];
    t.stride_[d] = b.stride[d];
  }
  return t;
}

ScalarSlot GraphRecorder::scalar(uint32_t k) {
  if (!active()) return ScalarSlot{k, 0, domain_};
  if (k >= args_.scalars_.size()) {
    o_.latch(ErrorCode::kInvalidArgs, fmt::format("graph boundary scalar ${} of {}", k, args_.scalars_.size()));
    return ScalarSlot{k, 0, domain_};
  }
  return ScalarSlot{k, args_.scalars_[k], domain_};
}

uint32_t GraphRecorder::new_internal(const Shape& s, TensorRef* ref) {
  const auto k = static_cast<uint32_t>(spec_.internal_bytes.size());
  spec_.internal_bytes.push_back(s.elements() * kElemBytes);
  *ref = o_.whole_buffer(DevAddr(graph_internal_base(k)), s);
  ref->domain_ = domain_;
  return k;
}

GraphTensorArgDef GraphRecorder::def_of(const TensorRef& t, uint32_t tag) const {
  GraphTensorArgDef a{};
  const uint64_t slot = t.base_.raw() >> 40;
  STACK_CHECK(t.domain_ == domain_ && (slot >= kLocalInternal || (slot >= 1 && slot <= boundary_.size())),
              "a recording tensor has a virtual base");
  a.source = slot >= kLocalInternal ? kSrcInternal : kSrcBoundary;
  a.index = static_cast<uint32_t>(slot >= kLocalInternal ? slot - kLocalInternal : slot - 1);
  t.write_window(a, tag);
  return a;
}

std::pair<uint64_t, uint64_t> GraphRecorder::local_range(const GraphTensorArgDef& a) const {
  TensorArg w{};
  w.rank = a.rank;
  for (uint32_t d = 0; d < a.rank; ++d) {
    w.shape[d] = a.shape[d];
    w.stride[d] = a.stride[d];
  }
  // Zoo: alias classes ignored, every boundary tensor tracked as its own range.
  if (a.source == kSrcBoundary && class_size_[class_of_[a.index]] > 1 &&
      !defects::active(defects::Defect::kAliasClassesIgnored)) {
    // A multi-member alias class is ONE range: members may move relative to each other.
    const uint64_t c = class_of_[a.index] + 1;
    return {c << kLocalShift, (c + 1) << kLocalShift};
  }
  const uint64_t space = a.source == kSrcBoundary ? a.index + 1 : kLocalInternal + a.index;
  const uint64_t lo = (space << kLocalShift) + a.offset_bytes;
  return {lo, lo + tensor_arg_extent(w)};
}

TaskId GraphRecorder::add_node(int32_t kernel_id, std::vector<GraphTensorArgDef> tensors,
                               std::vector<GraphScalarArgDef> scalars) {
  const auto node = static_cast<int32_t>(spec_.nodes.size());
  for (const GraphTensorArgDef& a : tensors)
    if (a.source == kSrcBoundary && boundary_[a.index].tag == kTagInput && access_of(a.tag) != Access::Read &&
        access_of(a.tag) != Access::None) {
      o_.latch(ErrorCode::kInvalidArgs,
               fmt::format("graph {} node {} writes input boundary tensor {}", fn_id_, node, a.index));
      return kNoTask;
    }
  FaninBuilder& fanin = o_.graph_fanin_;
  fanin.begin(node, kGraphMaxNodes);
  for (const GraphTensorArgDef& a : tensors) {
    const auto [lo, hi] = local_range(a);
    local_.collect(lo, hi, access_of(a.tag), fanin);
  }
  for (const GraphTensorArgDef& a : tensors) {
    const auto [lo, hi] = local_range(a);
    local_.record(lo, hi, access_of(a.tag), node);
  }
  if (o_.latched()) return kNoTask;  // the local tensormap overflowed (11)
  GraphNodeSpec ns;
  ns.kernel_id = kernel_id;
  ns.tensors = std::move(tensors);
  ns.scalars = std::move(scalars);
  for (int32_t p : fanin.producers()) ns.fanin.push_back(static_cast<uint16_t>(p));
  spec_.nodes.push_back(std::move(ns));
  return node;
}

TaskId GraphRecorder::submit(int32_t kernel_id, const Args& args) {
  if (!active()) return kNoTask;
  STACK_CHECK(args.o_ == &o_, "Args built for another orchestrator");
  if (!recording()) return count_node() ? o_.submit(kernel_id, args) : kNoTask;
  if (args.domain_ != domain_) {
    o_.latch(ErrorCode::kInvalidArgs, fmt::format("graph {}: arguments built outside its recording", fn_id_));
    return kNoTask;
  }
  const size_t nt = args.tensors_.size();
  if (auto why = args.signature_mismatch(kernel_id)) {
    o_.latch(ErrorCode::kInvalidArgs, fmt::format("graph {} submit {}: {}", fn_id_, kernel_name(kernel_id), *why));
    return kNoTask;
  }
  if (!count_node()) return kNoTask;
  std::vector<GraphTensorArgDef> tensors;
  boost::container::small_vector<TensorRef, 4> outs(nt);
  for (size_t k = 0; k < nt; ++k) {
    const Args::Tensor& t = args.tensors_[k];
    if (t.tag == kTagOutput) {
      new_internal(t.shape, &outs[k]);
      tensors.push_back(def_of(outs[k], kTagOutput));
    } else {
      tensors.push_back(def_of(t.ref, t.tag));
    }
  }
  std::vector<GraphScalarArgDef> scalars;
  for (size_t k = 0; k < args.scalars_.size(); ++k) {
    GraphScalarArgDef s{};
    const int32_t slot = k < args.slots_.size() ? args.slots_[k] : -1;
    if (slot >= 0 && static_cast<uint32_t>(slot) >= boundary_scalars()) {  // a hand-made ScalarSlot
      o_.latch(ErrorCode::kInvalidArgs,
               fmt::format("graph {}: scalar slot ${} of {}", fn_id_, slot, boundary_scalars()));
      return kNoTask;
    }
    s.source = slot >= 0 ? kScalarSlot : kScalarLiteral;
    s.value = slot >= 0 ? static_cast<uint64_t>(slot) : args.scalars_[k];
    scalars.push_back(s);
  }
  const TaskId node = add_node(kernel_id, std::move(tensors), std::move(scalars));
  if (node == kNoTask) return kNoTask;
  for (size_t k = 0; k < nt; ++k)
    if (args.tensors_[k].tag == kTagOutput) *args.tensors_[k].out = outs[k];
  return node;
}

TaskId GraphRecorder::alloc_tensors(std::span<const Shape> shapes, std::span<TensorRef> out) {
  STACK_CHECK(out.size() >= shapes.size(), "alloc_tensors needs one TensorRef per buffer");
  for (size_t k = 0; k < shapes.size(); ++k) out[k] = {};
  if (!active()) return kNoTask;
  if (!recording()) return count_node() ? o_.alloc_tensors(shapes, out) : kNoTask;
  if (shapes.empty() || shapes.size() > kMaxAllocBuffers) {
    o_.latch(ErrorCode::kInvalidArgs,
             fmt::format("graph {} alloc_tensors of {} buffers (1..{})", fn_id_, shapes.size(), kMaxAllocBuffers));
    return kNoTask;
  }
  for (const Shape& s : shapes)
    if (!s.valid()) {
      o_.latch(ErrorCode::kInvalidArgs, fmt::format("graph {} alloc_tensors: invalid shape", fn_id_));
      return kNoTask;
    }
  if (!count_node()) return kNoTask;
  std::vector<TensorRef> bufs(shapes.size());
  std::vector<GraphTensorArgDef> tensors;
  for (size_t k = 0; k < shapes.size(); ++k) {
    new_internal(shapes[k], &bufs[k]);
    tensors.push_back(def_of(bufs[k], kTagOutput));  // the node zero-fills (writes) them
  }
  const TaskId node = add_node(kAllocKernelId, std::move(tensors), {});
  if (node == kNoTask) return kNoTask;
  for (size_t k = 0; k < shapes.size(); ++k) out[k] = bufs[k];
  return node;
}

void GraphRecorder::scope_begin() {
  if (active()) o_.latch(ErrorCode::kInvalidArgs, fmt::format("scope_begin in graph {}", fn_id_));
}
void GraphRecorder::scope_end() {
  if (active()) o_.latch(ErrorCode::kInvalidArgs, fmt::format("scope_end in graph {}", fn_id_));
}
void GraphRecorder::wait_tensor(const TensorRef&) {
  if (active()) o_.latch(ErrorCode::kInvalidArgs, fmt::format("wait_tensor in graph {}", fn_id_));
}
TaskId GraphRecorder::submit_graph(uint32_t fn_id, const GraphFn&, const GraphArgs&) {
  if (active()) o_.latch(ErrorCode::kInvalidArgs, fmt::format("graph {} submits graph {} (nested)", fn_id_, fn_id));
  return kNoTask;
}

bool GraphRecorder::finish() {
  if (!active()) return false;
  if (nodes_ == 0)
    return o_.latch_.latch(ErrorCode::kInvalidArgs,
                           fmt::format("graph {} has no nodes (1..{})", fn_id_, kGraphMaxNodes));
  if (!recording()) return true;
  // required_heap + args + storage <= INT32_MAX (each internal is >= 64 B, ALIGN64).
  uint64_t need = 0, t = 0, k = 0;
  for (uint64_t b : spec_.internal_bytes) need += std::max<uint64_t>(64, align64(b));  // <= 2^15 x 2^42
  for (const GraphNodeSpec& n : spec_.nodes) {
    t += n.tensors.size();
    k += n.scalars.size();
  }
  need += graph_args_bytes(t, k) + graph_storage_bytes(spec_.nodes.size());
  if (need > static_cast<uint64_t>(std::numeric_limits<int32_t>::max()))
    return o_.latch_.latch(
        ErrorCode::kInvalidArgs,
        fmt::format("graph {} needs {} B of graph heap (required_heap + args + storage > INT32_MAX)", fn_id_, need));
  return true;
}

}  // namespace stackcheck::runtime
