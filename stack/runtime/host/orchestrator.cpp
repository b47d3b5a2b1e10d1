// The orchestrator API (orchestrator.h): submit steps 1-6 of RUNTIME.md §8 writing into the
// host mirror.
#include "stack/runtime/host/orchestrator.h"

#include <fmt/format.h>
#include <cstring>
#include <limits>

#include "stack/defects/defects.h"
#include "stack/runtime/host/kernel_sig.h"
#include "stack/runtime/image/self_relative.h"
#include "stack/support/check.h"

namespace stackcheck::runtime {
namespace {

constexpr int64_t kInt32Max = std::numeric_limits<int32_t>::max();

std::string dims_text(std::span<const int64_t> d) { return fmt::format("[{}]", fmt::join(d, ", ")); }

// The byte range an access covers: the window's bounding range (§7).
uint64_t window_lo(const TensorArg& a) { return a.base.raw() + a.offset_bytes; }
uint64_t window_hi(const TensorArg& a) {
  uint64_t last = 0;
  for (uint32_t i = 0; i < a.rank && i < 4; ++i)
    last += static_cast<uint64_t>(a.shape[i] - 1) * static_cast<uint64_t>(a.stride[i]);
  return window_lo(a) + (last + 1) * kElemBytes;
}

}  // namespace

// ---------------------------------------------------------------- Shape

Shape::Shape(std::initializer_list<int64_t> d) : rank(static_cast<uint32_t>(d.size())) {
  uint32_t i = 0;
  for (int64_t x : d)
    if (i < 4) dims[i++] = x;
}

Shape Shape::of(std::span<const int64_t> d) {
  Shape s;
  s.rank = static_cast<uint32_t>(std::min<size_t>(d.size(), 5));  // 5: marks "too many"
  for (size_t i = 0; i < d.size() && i < 4; ++i) s.dims[i] = d[i];
  return s;
}

bool Shape::valid() const {
  if (rank < 1 || rank > 4) return false;
  uint64_t stride = 1;  // row-major stride of the dimension being checked
  for (uint32_t i = rank; i-- > 0;) {
    if (dims[i] < 1 || dims[i] > kInt32Max) return false;
    if (stride > static_cast<uint64_t>(kInt32Max)) return false;  // stride i as an i32
    stride *= static_cast<uint64_t>(dims[i]);                     // <= 2^31 * 2^31: no wrap
    if (stride > kMaxTensorElements) return false;
  }
  return true;
}

uint64_t Shape::elements() const {
  uint64_t n = 1;
  for (uint32_t i = 0; i < rank && i < 4; ++i) n *= static_cast<uint64_t>(dims[i]);
  return n;
}

// ---------------------------------------------------------------- TensorRef

Shape TensorRef::shape() const { return Shape::of(std::span<const int64_t>(shape_, rank_)); }

uint64_t TensorRef::extent_bytes() const {
  uint64_t last = 0;  // element offset of the window's last element
  for (uint32_t i = 0; i < rank_; ++i) last += static_cast<uint64_t>(shape_[i] - 1) * static_cast<uint64_t>(stride_[i]);
  return (last + 1) * kElemBytes;
}

TensorRef TensorRef::window(std::span<const int64_t> offsets, std::span<const int64_t> sizes) const {
  if (owner_ == nullptr || owner_->latched()) return {};
  if (offsets.size() != rank_ || sizes.size() != rank_) {
    owner_->latch(ErrorCode::kInvalidArgs,
                  fmt::format("window of rank {}/{} on a tensor of rank {}", offsets.size(), sizes.size(), rank_));
    return {};
  }
  TensorRef w = *this;
  for (uint32_t i = 0; i < rank_; ++i) {
    const int64_t o = offsets[i], n = sizes[i];
    if (o < 0 || n < 1 || n > shape_[i] || o > shape_[i] - n) {
      owner_->latch(ErrorCode::kInvalidArgs,
                    fmt::format("window {} + {} outside its tensor {}", dims_text(offsets), dims_text(sizes),
                                dims_text(std::span<const int64_t>(shape_, rank_))));
      return {};
    }
    w.offset_bytes_ += static_cast<uint64_t>(o) * static_cast<uint64_t>(stride_[i]) * kElemBytes;
    w.shape_[i] = n;
  }
  return w;
}

// ---------------------------------------------------------------- Args

bool Args::accepting_tensor() {
  if (o_->latched()) return false;
  if (!scalars_.empty()) return o_->latch_.latch(ErrorCode::kInvalidArgs, "a tensor argument after a scalar");
  return !o_->beyond_limit(tensors_.size(), kMaxTaskTensors, "tensor arguments");
}

Args& Args::add_tensor(uint32_t tag, const TensorRef& t) {
  if (!accepting_tensor()) return *this;
  std::string why;
  if (!o_->valid_ref(t, &why, domain_)) {
    o_->latch(ErrorCode::kInvalidArgs, why);
    return *this;
  }
  tensors_.push_back(Tensor{tag, t, nullptr, {}});
  return *this;
}

Args& Args::add_output(TensorRef* out, const Shape& shape) {
  STACK_CHECK(out != nullptr, "add_output needs somewhere to put the tensor");
  *out = {};
  if (!accepting_tensor()) return *this;
  if (!shape.valid()) {
    o_->latch(ErrorCode::kInvalidArgs, "invalid output shape");
    return *this;
  }
  tensors_.push_back(Tensor{kTagOutput, {}, out, shape});
  return *this;
}

Args& Args::add_scalar(uint64_t v) {
  if (o_->latched() || o_->beyond_limit(scalars_.size(), kMaxTaskScalars, "scalar arguments")) return *this;
  scalars_.push_back(v);
  slots_.push_back(-1);
  return *this;
}

Args& Args::add_scalar(ScalarSlot s) {
  if (domain_ == 0) return add_scalar(s.value());  // outside a recording: the live value
  if (o_->latched()) return *this;
  if (s.domain != domain_) {
    o_->latch(ErrorCode::kInvalidArgs, "a scalar slot of another graph recording");
    return *this;
  }
  add_scalar(s.value());
  if (!slots_.empty() && slots_.size() == scalars_.size()) slots_.back() = static_cast<int32_t>(s.index);
  return *this;
}

// ---------------------------------------------------------------- Orchestrator

Orchestrator::Orchestrator(const OrchestratorSetup& s)
    : mirror_(s.mirror),
      lazy_(s.lazy),
      layout_(s.layout),
      scope_tasks_capacity_(s.scope_tasks_capacity == 0 ? s.layout.W() : s.scope_tasks_capacity),
      clusters_(s.clusters),
      heap_(s.task_heap, s.task_heap_bytes, latch_),
      graph_heap_(s.graph_heap, s.graph_heap_bytes, latch_),
      tensormap_(s.tensormap_capacity, latch_),
      tensormap_capacity_(s.tensormap_capacity) {
  STACK_CHECK(LayoutPlanner::valid_W(layout_.W()), "mirror W must be a power of two");
  STACK_CHECK(layout_ == LayoutPlanner::mirror(layout_.W()), "the mirror layout is the planner's");
  STACK_CHECK(mirror_.size() >= layout_.seg.total_bytes, "mirror shorter than its layout");
  // Every mirror delta then fits an int32 (§4: the config keeps W <= 2^19).
  STACK_CHECK(layout_.seg.total_bytes <= static_cast<uint64_t>(kInt32Max), "mirror larger than INT32_MAX");
}

void Orchestrator::reset() {
  latch_.reset();
  heap_.reset();
  graph_heap_.reset();
  tensormap_.reset();
  submitted_ = 0;
  cursors_ = {};
  scopes_.clear();
  log_.clear();
  done_ = false;
  graph_subs_.clear();  // the graph cache stays (§9: definitions live as long as the Runtime)
  graphs_inlined_ = 0;
  graph_mode_ = GraphMode::kNone;
  std::memset(mirror_at(0, sizeof(ImageHeader)), 0, sizeof(ImageHeader));
}

template <class T>
void Orchestrator::put(uint64_t off, const T& v) {
  STACK_CHECK(off + sizeof(T) <= layout_.seg.total_bytes, "mirror write past its layout");
  std::memcpy(mirror_at(off, sizeof(T)), &v, sizeof(T));
}

void Orchestrator::bind_delta(uint64_t field_off, uint64_t target_off) {
  mirror_at(field_off, sizeof(int32_t));  // set_at stores the 4-byte delta there
  const bool ok = set_at(mirror_.data(), field_off, target_off);
  STACK_CHECK(ok, "a mirror delta is out of int32 reach");
}

void Orchestrator::finish() {
  if (!scopes_.empty()) latch_.latch(ErrorCode::kScopeDeadlock, fmt::format("{} scope(s) left open", scopes_.size()));
  ImageHeader h{};
  std::memcpy(h.magic, kImageMagic, sizeof h.magic);
  h.version = kImageVersion;
  h.W = W();
  h.pitch = W();
  h.n = submitted_;
  h.orch_done = 1;
  h.orch_error = latch_.code();
  h.image_bytes = layout_.seg.total_bytes;
  for (uint32_t s = 0; s < kSegCount; ++s) h.seg_off[s] = layout_.seg.off[s];
  h.tensor_count = static_cast<uint32_t>(cursors_.tensors);
  h.scalar_count = static_cast<uint32_t>(cursors_.scalars);
  h.fanin_count = static_cast<uint32_t>(cursors_.fanin);
  put(0, h);
  done_ = true;
}

bool Orchestrator::graph_mode_allows(const char* what, bool allowed_inline) {
  if (graph_mode_ == GraphMode::kNone || (allowed_inline && graph_mode_ == GraphMode::kInline)) return true;
  return latch_.latch(ErrorCode::kInvalidArgs,
                      fmt::format("{} called on the orchestrator while a graph function runs", what));
}

void Orchestrator::scope_begin() {
  if (latched() || !graph_mode_allows("scope_begin", false)) return;
  if (scopes_.size() >= kMaxScopes) {
    latch_.latch(ErrorCode::kScopeDeadlock, fmt::format("scope_begin beyond {} open scopes", kMaxScopes));
    return;
  }
  scopes_.push_back(Scope{heap_.mark(), {}});
}

void Orchestrator::scope_end() {
  if (latched() || !graph_mode_allows("scope_end", false)) return;
  if (scopes_.empty()) {
    latch_.latch(ErrorCode::kScopeDeadlock, "scope_end without an open scope");
    return;
  }
  heap_.rewind(scopes_.back().heap_mark);
  scopes_.pop_back();
}

bool Orchestrator::valid_ref(const TensorRef& t, std::string* why, uint64_t domain) const {
  if (t.owner_ != this) {
    *why = t.is_null() ? "null tensor argument" : "tensor of another orchestrator";
    return false;
  }
  if (t.domain_ != domain) {  // a recording's virtual tensor outside it, or a real one inside
    *why = t.domain_ != 0 ? "tensor of a graph recording used outside it" : "tensor from outside the graph recording";
    return false;
  }
  // Handles come from external(), outputs and window(), so this only fails on a forged one.
  if (t.rank_ < 1 || t.rank_ > 4 || t.offset_bytes_ % kElemBytes != 0) {
    *why = "malformed tensor handle";
    return false;
  }
  for (uint32_t i = 0; i < t.rank_; ++i)
    if (t.shape_[i] < 1 || t.shape_[i] > kInt32Max || t.stride_[i] < 1 || t.stride_[i] > kInt32Max) {
      *why = "malformed tensor handle";
      return false;
    }
  if (t.offset_bytes_ > t.buffer_bytes_ || t.extent_bytes() > t.buffer_bytes_ - t.offset_bytes_) {
    *why =
        fmt::format("window [{}, +{}) outside its {}-byte buffer", t.offset_bytes_, t.extent_bytes(), t.buffer_bytes_);
    return false;
  }
  return true;
}

TensorRef Orchestrator::whole_buffer(DevAddr base, const Shape& s) {
  TensorRef t;
  t.owner_ = this;
  t.base_ = base;
  t.buffer_bytes_ = s.elements() * kElemBytes;
  t.rank_ = s.rank;
  int64_t stride = 1;
  for (uint32_t i = s.rank; i-- > 0;) {
    t.shape_[i] = s.dims[i];
    t.stride_[i] = stride;
    stride *= s.dims[i];
  }
  return t;
}

TensorRef Orchestrator::external(DevAddr base, const Shape& shape) {
  if (latched()) return {};
  if (!shape.valid()) {
    latch_.latch(ErrorCode::kInvalidArgs, "invalid external tensor shape");
    return {};
  }
  return whole_buffer(base, shape);
}

bool Orchestrator::beyond_limit(size_t size, size_t limit, std::string_view what) {
  if (size < limit) return false;
  latch_.latch(ErrorCode::kInvalidArgs, fmt::format("more than {} {}", limit, what));
  return true;
}

TensorArg Orchestrator::tensor_arg(const TensorRef& t, uint32_t tag) {
  TensorArg a{};
  a.base = t.base_;
  a.buffer_bytes = t.buffer_bytes_;
  t.write_window(a, tag);
  return a;
}

// Step 2: id and pool regions; the records of the index are reset to their zeroed values.
bool Orchestrator::claim(uint32_t n_tensors, uint32_t n_scalars, Claim& c) {
  if (submitted_ >= W())
    return latch_.latch(ErrorCode::kTaskWindowExhausted, fmt::format("task window W={} exhausted", W()));
  const PoolCounts cap = layout_.seg.counts;
  // Zoo: scalar regions not rounded to whole 64-byte lines.
  const uint64_t scalar_region =
      defects::active(defects::Defect::kScalarRegionsUnrounded) ? n_scalars : scalar_region_entries(n_scalars);
  if (cursors_.tensors + n_tensors > cap.tensors || cursors_.scalars + scalar_region > cap.scalars ||
      cursors_.fanin + kMaxFanin > cap.fanin)
    return latch_.latch(ErrorCode::kTaskWindowExhausted, "a mirror pool is full");
  c.id = static_cast<TaskId>(submitted_++);
  c.tensors = cursors_.tensors;
  c.scalars = cursors_.scalars;
  c.fanin = cursors_.fanin;  // bound now; the cursor advances by the final count at publish
  cursors_.tensors += n_tensors;
  cursors_.scalars += scalar_region;
  const auto i = static_cast<uint64_t>(c.id);
  put(layout_.seg.desc_at(i), TaskDescriptor{});
  put(layout_.seg.payload_at(i), TaskPayload{});
  // Zoo: the slot record is not reset (publish then writes only the fields it sets).
  if (!defects::active(defects::Defect::kClaimedSlotNotReset)) put(layout_.seg.slot_at(i), SlotState{});
  put(layout_.seg.flag_at(i), uint8_t{0});
  return true;
}

// Step 4: fanin from every argument first, then the registrations.
bool Orchestrator::fanin_and_register(const Claim& c, const std::vector<TensorArg>& args) {
  fanin_.begin(c.id, W());
  for (const TensorArg& a : args) {
    Access how = access_of(a.tag);
    // Zoo: a fresh allocation (alloc, runtime output) is taken to have no readers to wait
    // for, only the range's last writer: after a scope rewinds the heap, no WAR edge.
    if (a.tag == kTagOutput && defects::active(defects::Defect::kWarEdgeMissingOnReuse)) how = Access::Read;
    tensormap_.collect(window_lo(a), window_hi(a), how, fanin_);
  }
  if (!fanin_.finish(latch_)) return false;  // latched 4
  for (const TensorArg& a : args) tensormap_.record(window_lo(a), window_hi(a), access_of(a.tag), c.id);
  return !latched();  // latched 11
}

// Step 5: descriptor, payload, pools, slot PENDING, flag 0; producers' last_consumer raised.
void Orchestrator::publish(const Claim& c, const Published& p) {
  const auto i = static_cast<uint64_t>(c.id);
  const SegmentLayout& L = layout_.seg;
  const std::vector<int32_t>& fanin = fanin_.producers();

  TaskDescriptor d{};
  d.task_id = c.id;
  d.kernel_id = p.kernel_id;
  d.kind = p.kind;
  d.heap_begin = p.heap_begin;
  d.heap_end = p.heap_end;
  put(L.desc_at(i), d);

  TaskPayload pl{};
  pl.n_tensors = static_cast<uint16_t>(p.tensors.size());
  pl.n_scalars = static_cast<uint16_t>(p.scalars.size());
  pl.n_fanin = static_cast<uint16_t>(fanin.size());
  pl.n_nodes = p.n_nodes;
  put(L.payload_at(i), pl);
  if (!p.tensors.empty()) bind_delta(L.payload_at(i) + kPayloadTensorsField, L.tensor_at(c.tensors));
  if (!p.scalars.empty()) bind_delta(L.payload_at(i) + kPayloadScalarsField, L.scalar_at(c.scalars));
  if (!fanin.empty()) bind_delta(L.payload_at(i) + kPayloadFaninField, L.fanin_at(c.fanin));

  for (size_t k = 0; k < p.tensors.size(); ++k) put(L.tensor_at(c.tensors + k), p.tensors[k]);
  // Whole 64-byte lines: the pad entries are written as zeros (attach reads them).
  const uint64_t region = defects::active(defects::Defect::kScalarRegionsUnrounded)
                              ? p.scalars.size()
                              : scalar_region_entries(p.scalars.size());
  for (uint64_t k = 0; k < region; ++k)
    put(L.scalar_at(c.scalars + k), k < p.scalars.size() ? p.scalars[k] : uint64_t{0});
  for (size_t k = 0; k < fanin.size(); ++k) put(L.fanin_at(c.fanin + k), fanin[k]);
  cursors_.fanin += fanin.size();
  // Zoo (the lane split's control): a checksum of a graph task's wide fan-in list over a copy
  // sized to it, its loop one entry too long. Nothing reads the sum; only ASan sees the read.
  if (defects::active(defects::Defect::kFaninChecksumOverread) && fanin.size() >= 3 && p.kind == kKindGraph) {
    const std::vector<int32_t> copy(fanin.begin(), fanin.end());
    uint32_t sum = 0;
    for (size_t k = 0; k <= copy.size(); ++k) sum += static_cast<uint32_t>(copy.data()[k]);
    asm volatile("" : : "r"(sum));
  }

  SlotState s{};
  // Zoo: the slot as the claim left it, only the published fields set.
  if (defects::active(defects::Defect::kClaimedSlotNotReset))
    std::memcpy(&s, mirror_at(L.slot_at(i), sizeof s), sizeof s);
  s.state = kSlotPending;
  s.fanin_cursor = static_cast<int32_t>(fanin.size());
  put(L.slot_at(i), s);
  bind_delta(L.slot_at(i) + kSlotDescField, L.desc_at(i));
  bind_delta(L.slot_at(i) + kSlotPayloadField, L.payload_at(i));
  put(L.flag_at(i), uint8_t{0});

  // Each edge raises its producer's last consumer (producers are published, lower ids).
  for (int32_t prod : fanin) {
    const uint64_t field = L.slot_at(static_cast<uint64_t>(prod)) + offsetof(SlotState, last_consumer);
    int32_t last = 0;
    std::memcpy(&last, mirror_at(field, sizeof last), sizeof last);
    if (c.id > last) put(field, c.id);
  }
}

// Step 6.
bool Orchestrator::append_to_scope(const Claim& c, uint32_t kind, int32_t kernel_id) {
  if (!scopes_.empty()) {
    std::vector<TaskId>& tasks = scopes_.back().tasks;
    if (tasks.size() >= scope_tasks_capacity_)
      return latch_.latch(ErrorCode::kScopeTasksOverflow,
                          fmt::format("scope task list beyond {} tasks", scope_tasks_capacity_));
    tasks.push_back(c.id);
  }
  log_.push_back(TaskRecord{c.id, kind, kernel_id});
  return true;
}

std::optional<std::string> Args::signature_mismatch(int32_t kernel_id) const {
  const size_t nt = tensors_.size();
  if (nt > kMaxTaskTensors) return "too many tensors";
  KernelTensorArg sig[kMaxTaskTensors];
  for (size_t k = 0; k < nt; ++k) {
    const Tensor& t = tensors_[k];
    const Shape s = t.tag == kTagOutput ? t.shape : t.ref.shape();
    sig[k].tag = t.tag;
    sig[k].rank = s.rank;
    for (uint32_t j = 0; j < 4; ++j) sig[k].shape[j] = s.dims[j];
  }
  return check_kernel_args(kernel_id, std::span(sig, nt), static_cast<uint32_t>(scalars_.size()));
}

TaskId Orchestrator::submit(int32_t kernel_id, const Args& args) {
  if (latched() || !graph_mode_allows("submit", true)) return kNoTask;
  STACK_CHECK(args.o_ == this, "Args built for another orchestrator");
  if (args.domain_ != 0) {
    latch_.latch(ErrorCode::kInvalidArgs, "submit of arguments built for a graph recording");
    return kNoTask;
  }
  const size_t nt = args.tensors_.size();
  // 1. Validate against the builtin's signature.
  if (auto why = args.signature_mismatch(kernel_id)) {
    latch_.latch(ErrorCode::kInvalidArgs, fmt::format("submit {}: {}", kernel_name(kernel_id), *why));
    return kNoTask;
  }
  // 2. Claim.
  Claim c;
  if (!claim(static_cast<uint32_t>(nt), static_cast<uint32_t>(args.scalars_.size()), c)) return kNoTask;
  // 3. Allocate outputs (one packed block in submission order).
  Published p;
  p.kind = kKindKernel;
  p.kernel_id = kernel_id;
  p.scalars = std::span<const uint64_t>(args.scalars_.data(), args.scalars_.size());
  p.tensors.reserve(nt);
  boost::container::small_vector<TensorRef, 4> outs(nt);
  for (size_t k = 0; k < nt; ++k) {
    const Args::Tensor& t = args.tensors_[k];
    if (t.tag != kTagOutput) {
      p.tensors.push_back(tensor_arg(t.ref, t.tag));
      continue;
    }
    const auto at = heap_.alloc(t.shape.elements() * kElemBytes, kTensorAlign);
    if (!at) return kNoTask;  // latched 2
    outs[k] = whole_buffer(*at, t.shape);
    if (p.heap_begin.is_null()) p.heap_begin = *at;
    p.heap_end = heap_.base() + heap_.top();
    p.tensors.push_back(tensor_arg(outs[k], kTagOutput));
  }
  // 4. Fanin, then register.
  if (!fanin_and_register(c, p.tensors)) return kNoTask;
  // 5. Write the records.
  publish(c, p);
  // 6. Scope list and task log.
  if (!append_to_scope(c, p.kind, kernel_id)) return kNoTask;
  for (size_t k = 0; k < nt; ++k)
    if (args.tensors_[k].tag == kTagOutput) *args.tensors_[k].out = outs[k];
  return c.id;
}

TaskId Orchestrator::alloc_tensors(std::span<const Shape> shapes, std::span<TensorRef> out) {
  STACK_CHECK(out.size() >= shapes.size(), "alloc_tensors needs one TensorRef per buffer");
  for (size_t k = 0; k < shapes.size(); ++k) out[k] = {};
  if (latched() || !graph_mode_allows("alloc_tensors", true)) return kNoTask;
  if (shapes.empty() || shapes.size() > kMaxAllocBuffers) {
    latch_.latch(ErrorCode::kInvalidArgs,
                 fmt::format("alloc_tensors of {} buffers (1..{})", shapes.size(), kMaxAllocBuffers));
    return kNoTask;
  }
  for (const Shape& s : shapes)
    if (!s.valid()) {
      latch_.latch(ErrorCode::kInvalidArgs, "alloc_tensors: invalid shape");
      return kNoTask;
    }
  Claim c;
  if (!claim(static_cast<uint32_t>(shapes.size()), 0, c)) return kNoTask;
  Published p;
  p.kind = kKindAlloc;
  p.kernel_id = kAllocKernelId;
  std::vector<TensorRef> bufs(shapes.size());
  for (size_t k = 0; k < shapes.size(); ++k) {
    const auto at = heap_.alloc(shapes[k].elements() * kElemBytes, kTensorAlign);
    if (!at) return kNoTask;
    bufs[k] = whole_buffer(*at, shapes[k]);
    if (p.heap_begin.is_null()) p.heap_begin = *at;
    p.heap_end = heap_.base() + heap_.top();
    p.tensors.push_back(tensor_arg(bufs[k], kTagOutput));  // the ALLOC task writes (zeroes) them
  }
  if (!fanin_and_register(c, p.tensors)) return kNoTask;
  publish(c, p);
  if (!append_to_scope(c, p.kind, p.kernel_id)) return kNoTask;
  for (size_t k = 0; k < shapes.size(); ++k) out[k] = bufs[k];
  return c.id;
}

void Orchestrator::wait_tensor(const TensorRef&) {
  if (!graph_mode_allows("wait_tensor", false)) return;  // a graph body: 5, not 8
  latch_.latch(ErrorCode::kTensorWaitTimeout, "wait_tensor: nothing runs before the upload");
}

void Orchestrator::fatal() { latch_.latch(ErrorCode::kExplicitFatal, "fatal()"); }

void Orchestrator::sync_start(uint64_t block_num) {
  if (block_num > clusters_)
    latch_.latch(ErrorCode::kSyncStartInvalid, fmt::format("sync_start({}) > {} clusters", block_num, clusters_));
}

}  // namespace stackcheck::runtime
