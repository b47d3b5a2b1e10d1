// The orchestrator model (orchestrator_model.h), from RUNTIME.md §6-§8 and §13: heaps, claims,
// fanin and registration, scopes, alloc_tensors, submit and read. Graphs: orchestrator_model_graph.cpp.
// Every rule restates a paragraph of the spec; nothing is taken from stack/runtime/host.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <set>

#include "properties/oracles/orchestrator_model_rules.h"

namespace stackcheck::oracles::orch {

using namespace rules;

// ---------------------------------------------------------------- small helpers

uint64_t ModelBuffer::bytes() const { return elements(dims) * kElem; }

const char* edge_kind_name(EdgeKind k) {
  switch (k) {
    case EdgeKind::kRaw: return "RAW";
    case EdgeKind::kWaw: return "WAW";
    case EdgeKind::kWar: return "WAR";
    default: return "?";
  }
}

uint64_t ModelDef::required_heap() const {
  uint64_t r = 0;
  for (uint64_t b : internal_bytes) r += std::max<uint64_t>(64, up(b, 64));
  return r;
}
uint64_t ModelDef::tensor_args() const {
  uint64_t t = 0;
  for (const ModelNodeDef& n : nodes) t += n.tensors.size();
  return t;
}
uint64_t ModelDef::scalar_args() const {
  uint64_t k = 0;
  for (const ModelNodeDef& n : nodes) k += n.scalars.size();
  return k;
}
uint64_t ModelDef::block_bytes() const {
  return required_heap() + 64 * tensor_args() + 8 * scalar_args() + 32 + 128 * (nodes.size() - 1) + 104;
}

namespace {

// The words a refusal puts around its figures (the detail a user reads): builtin names, the
// parameter directions, the argument tags, shapes as `[d0, d1]`.
constexpr const char* kBuiltinNames[] = {"fill", "copy", "add", "acc", "scale", "matmul", "rowsum"};

const char* dir_word(char d) { return d == 'I' ? "In" : d == 'O' ? "Out" : "InOut"; }

const char* tag_word(uint32_t tag) {
  static const std::pair<uint32_t, const char*> words[] = {{runtime::kTagInput, "input"},
                                                           {runtime::kTagOutput, "output"},
                                                           {runtime::kTagInout, "inout"},
                                                           {runtime::kTagOutputExisting, "output_existing"},
                                                           {runtime::kTagNoDep, "no_dep"}};
  for (const auto& [t, w] : words)
    if (t == tag) return w;
  return "invalid";
}

std::string dims_word(const Dims& d) { return fmt::format("[{}]", fmt::join(d, ", ")); }

}  // namespace

std::string builtin_name(int32_t kernel) {
  if (kernel >= 0 && kernel <= 6) return kBuiltinNames[kernel];
  return kernel == runtime::kAllocKernelId ? "zero" : "?";
}

std::optional<Mismatch> builtin_mismatch(int32_t kernel, const std::vector<uint32_t>& tags,
                                         const std::vector<Dims>& shapes, size_t n_scalars) {
  // COMPILER.md §2 / RUNTIME.md §12: parameter directions and scalar counts per builtin.
  static const std::vector<std::vector<char>> dirs = {{'O'},      {'I', 'O'},      {'I', 'I', 'O'}, {'I', 'X'},
                                                      {'I', 'O'}, {'I', 'I', 'O'}, {'I', 'O'}};
  static const size_t scalars[] = {1, 0, 0, 0, 1, 0, 0};
  // The dims of every shape named, in order: what a shape refusal states.
  const auto dims_of = [&](std::initializer_list<size_t> which) {
    std::vector<int64_t> f;
    for (size_t i : which) f.insert(f.end(), shapes[i].begin(), shapes[i].end());
    return f;
  };
  if (kernel < 0 || kernel > 6)
    return Mismatch{fmt::format("kernel id {} cannot be submitted (0..6)", kernel), {kernel, 6}};
  const std::string name = kBuiltinNames[kernel];
  const auto& d = dirs[static_cast<size_t>(kernel)];
  if (tags.size() != d.size() || n_scalars != scalars[kernel])
    return Mismatch{fmt::format("{} takes {} tensors and {} scalars, got {} and {}", name, d.size(), scalars[kernel],
                                tags.size(), n_scalars),
                    {static_cast<int64_t>(d.size()), static_cast<int64_t>(scalars[kernel]),
                     static_cast<int64_t>(tags.size()), static_cast<int64_t>(n_scalars)}};
  for (size_t i = 0; i < d.size(); ++i) {
    const uint32_t t = tags[i];
    const bool ok = t == runtime::kTagNoDep || (d[i] == 'I' && t == runtime::kTagInput) ||
                    (d[i] == 'O' && (t == runtime::kTagOutput || t == runtime::kTagOutputExisting)) ||
                    (d[i] == 'X' && t == runtime::kTagInout);
    if (!ok)
      return Mismatch{
          fmt::format("{} argument {} is {} but its parameter is {}", name, i, tag_word(t), dir_word(d[i])),
          {static_cast<int64_t>(i)}};
  }
  if (kernel == 5) {
    const Dims &a = shapes[0], &b = shapes[1], &o = shapes[2];
    if (a.size() != 2 || b.size() != 2 || o.size() != 2 || a[1] != b[0] || o[0] != a[0] || o[1] != b[1])
      return Mismatch{fmt::format("matmul shapes {} x {} -> {} do not fit [M,K] x [K,N] -> [M,N]", dims_word(a),
                                  dims_word(b), dims_word(o)),
                      dims_of({0, 1, 2})};
    return std::nullopt;
  }
  if (kernel == 6) {
    const Dims &x = shapes[0], &o = shapes[1];
    if (x.size() != 2 || o.size() != 2 || o[0] != x[0] || o[1] != 1)
      return Mismatch{fmt::format("rowsum shapes {} -> {} do not fit [M,N] -> [M,1]", dims_word(x), dims_word(o)),
                      dims_of({0, 1})};
    return std::nullopt;
  }
  for (size_t i = 1; i < shapes.size(); ++i)
    if (shapes[i] != shapes[0])
      return Mismatch{
          fmt::format("{} needs equal shapes, got {} and {}", name, dims_word(shapes[0]), dims_word(shapes[i])),
          dims_of({0, i})};
  return std::nullopt;
}

// ---------------------------------------------------------------- state

OrchestratorModel::OrchestratorModel(std::shared_ptr<const ModelSetup> setup, ModelFlaw flaw)
    : setup_(std::move(setup)), flaw_(flaw) {
  for (size_t i = 0; i < setup_->entries.size(); ++i) {
    const uint32_t b = new_buffer(kEntryBase + (static_cast<uint64_t>(i) << 32), setup_->entries[i].dims);
    buffers_[b].entry = static_cast<int32_t>(i);
  }
  scopes_.push_back(Scope{0, 0});
}

bool OrchestratorModel::latch(int32_t code, std::vector<int64_t> figures, std::string text) {
  if (error_ == 0) {
    latch_figures_ = std::move(figures);
    latch_text_ = std::move(text);
  }
  if (error_ == 0 || flaw_ == ModelFlaw::kLatestCodeWins) error_ = code;
  return false;
}

int32_t OrchestratorModel::no_task(int32_t code, std::vector<int64_t> figures) {
  latch(code, std::move(figures));
  return kNoTask;
}

std::string OrchestratorModel::mismatch_detail(const std::string& call, int32_t kernel, std::string text) const {
  const int32_t named = flaw_ == ModelFlaw::kMismatchNameShifted && kernel >= 0 && kernel < 6 ? kernel + 1 : kernel;
  return fmt::format("{} {}: {}", call, builtin_name(named), text);
}

std::nullopt_t OrchestratorModel::refuse(int32_t code, std::vector<int64_t> figures) {
  latch(code, std::move(figures));
  return std::nullopt;
}

uint64_t OrchestratorModel::bookkeeping_size() const { return book_size(book_); }

std::vector<int32_t> OrchestratorModel::last_consumers() const {
  std::vector<int32_t> last(tasks_.size(), 0);
  for (const ModelTask& t : tasks_)
    for (int32_t p : t.fanin) last[static_cast<size_t>(p)] = std::max(last[static_cast<size_t>(p)], t.id);
  return last;
}

uint32_t OrchestratorModel::new_buffer(uint64_t base, const Dims& dims) {
  buffers_.push_back(ModelBuffer{base, dims, -1});
  return static_cast<uint32_t>(buffers_.size() - 1);
}

void OrchestratorModel::note_access(uint32_t buffer, const Window& w) {
  recent_.push_back(Access{buffer, w});
  if (recent_.size() > kRecent) recent_.erase(recent_.begin());
}

bool OrchestratorModel::window_ok(const Dims& dims, const Window& w) const {
  if (w.off.size() != dims.size() || w.size.size() != dims.size()) return false;
  for (size_t i = 0; i < dims.size(); ++i)
    if (w.off[i] < 0 || w.size[i] < 1 || w.size[i] > dims[i] || w.off[i] > dims[i] - w.size[i]) return false;
  return true;
}

TensorArg OrchestratorModel::arg_of(uint32_t buffer, const std::optional<Window>& win, uint32_t tag) const {
  const ModelBuffer& b = buffers_[buffer];
  const Dims stride = row_major(b.dims);
  TensorArg a{};
  a.base = runtime::DevAddr(b.base);
  a.buffer_bytes = b.bytes();
  a.tag = tag;
  a.rank = static_cast<uint32_t>(b.dims.size());
  for (size_t i = 0; i < b.dims.size(); ++i) {
    const int64_t off = win ? win->off[i] : 0, size = win ? win->size[i] : b.dims[i];
    a.offset_bytes += static_cast<uint64_t>(off * stride[i]) * kElem;
    a.shape[i] = static_cast<int32_t>(size);
    a.stride[i] = static_cast<int32_t>(stride[i]);
  }
  return a;
}

// §6: bump allocation; sizes round to 64, tensors align to 1024; a failure changes nothing.
std::optional<uint64_t> OrchestratorModel::heap_alloc(uint64_t bytes) {
  const uint64_t cap = setup_->config.task_heap;
  const uint64_t start = up(heap_top_, kTensorAlign), size = up(bytes, 64);
  if (start > cap || size > cap - start) return refuse(kHeapExhausted);
  if (size == 0) return kTaskHeapBase + start;
  heap_top_ = start + size;
  heap_hw_ = std::max(heap_hw_, heap_top_);
  return kTaskHeapBase + start;
}

// §8 step 2: id = submitted count (< W), pools within 32W / 16W / 128W; scalars in lines of 8.
std::optional<int32_t> OrchestratorModel::claim(uint64_t n_tensors, uint64_t n_scalars) {
  const uint64_t W = setup_->config.W;
  if (tasks_.size() >= W) return refuse(kTaskWindow);
  if (cursor_tensors_ + n_tensors > 32 * W || cursor_scalars_ + up(n_scalars, 8) > 16 * W ||
      cursor_fanin_ + kMaxFanin > 128 * W)
    return refuse(kTaskWindow);
  ModelTask t;
  t.id = static_cast<int32_t>(tasks_.size());
  t.tensor_at = cursor_tensors_;
  t.scalar_at = cursor_scalars_;
  t.fanin_at = cursor_fanin_;
  cursor_tensors_ += n_tensors;
  cursor_scalars_ += up(n_scalars, 8);
  tasks_.push_back(t);
  last_.tasks.push_back(t.id);
  return t.id;
}

// §7: fanin from every argument first (dedup, sorted, self dropped, > 128 latches 4), then
// the registrations (ranges + reader records beyond the capacity latch 11).
bool OrchestratorModel::fanin_and_register(int32_t id, const std::vector<Resolved>& args, std::vector<int32_t>& fanin) {
  std::vector<Edge> edges;
  for (const Resolved& r : args)
    producers(book_, r.lo, r.hi, mode_of(r.arg.tag), flaw_ == ModelFlaw::kForgetWar, edges);
  std::set<int32_t> ids;
  std::set<std::pair<int32_t, EdgeKind>> kinds;
  for (const Edge& e : edges)
    if (e.producer != id) ids.insert(e.producer), kinds.insert({e.producer, e.kind});
  if (ids.size() > kMaxFanin) return latch(kFaninOverflow);
  for (const auto& [p, k] : kinds) ++last_.edges[static_cast<int>(k)];
  fanin.assign(ids.begin(), ids.end());
  for (const Resolved& r : args) {
    record(book_, r.lo, r.hi, mode_of(r.arg.tag), id);
    if (book_size(book_) > setup_->config.tensormap_capacity) return latch(kTensormap);
  }
  return true;
}

// §8 step 6: the innermost scope's list holds at most scope_tasks_capacity (default W); a task
// it takes goes into the task log too.
bool OrchestratorModel::append_to_scope() {
  if (scopes_.empty()) {
    tasks_.back().logged = true;
    return true;
  }
  const uint64_t cap = setup_->config.scope_tasks_capacity ? setup_->config.scope_tasks_capacity : setup_->config.W;
  if (scopes_.back().tasks >= cap) return latch(kScopeTasks);
  ++scopes_.back().tasks;
  tasks_.back().logged = true;  // and the task log
  return true;
}

// ---------------------------------------------------------------- calls

void OrchestratorModel::apply(const Call& c) {
  last_ = StepOutcome{};
  std::visit(
      [&](const auto& call) {
        using T = std::decay_t<decltype(call)>;
        if constexpr (std::is_same_v<T, ScopeBegin>)
          scope_begin();
        else if constexpr (std::is_same_v<T, ScopeEnd>)
          scope_end();
        else if constexpr (std::is_same_v<T, AllocTensors>) {
          last_.returns_task = true;
          last_.returned = alloc_tensors(call.shapes, nullptr);
        } else if constexpr (std::is_same_v<T, Submit>)
          submit(call);
        else if constexpr (std::is_same_v<T, SubmitGraph>)
          submit_graph(call);
        else if constexpr (std::is_same_v<T, Read>)
          read(call);
        else if constexpr (std::is_same_v<T, WaitTensor>)
          latch(kWaitTimeout);
        else if constexpr (std::is_same_v<T, Fatal>)
          latch(kExplicitFatal);
        else if constexpr (std::is_same_v<T, SyncStart>) {
          if (call.blocks > setup_->config.clusters)
            latch(kSyncStart, {static_cast<int64_t>(call.blocks), static_cast<int64_t>(setup_->config.clusters)});
        }
      },
      c);
}

void OrchestratorModel::finish() {
  if (!scopes_.empty()) latch(kScopeDeadlock);
}

void OrchestratorModel::scope_begin() {
  if (latched()) return;
  if (scopes_.size() >= kMaxScopes) return void(latch(kScopeDeadlock));
  scopes_.push_back(Scope{heap_top_, 0});
}

void OrchestratorModel::scope_end() {
  if (latched()) return;
  if (scopes_.empty()) return void(latch(kScopeDeadlock));
  if (flaw_ != ModelFlaw::kNoHeapRewind) heap_top_ = scopes_.back().heap_mark;
  scopes_.pop_back();
}

int32_t OrchestratorModel::alloc_tensors(const std::vector<Dims>& shapes, std::vector<uint32_t>* out) {
  if (latched()) return kNoTask;
  if (shapes.empty() || shapes.size() > kMaxAlloc) return no_task(kInvalidArgs);
  for (const Dims& d : shapes)
    if (!dims_ok(d)) return no_task(kInvalidArgs);
  const auto id = claim(shapes.size(), 0);
  if (!id) return kNoTask;
  ModelTask t = tasks_.back();
  std::vector<Resolved> args;
  std::vector<uint32_t> made;
  // The buffers exist only if the call succeeds: a later latch drops them again.
  auto fail = [&] {
    buffers_.resize(buffers_.size() - made.size());
    return kNoTask;
  };
  for (const Dims& d : shapes) {
    const auto at = heap_alloc(elements(d) * kElem);
    if (!at) return fail();
    if (t.heap_begin == 0) t.heap_begin = *at;
    t.heap_end = kTaskHeapBase + heap_top_;
    made.push_back(new_buffer(*at, d));
    const TensorArg a = arg_of(made.back(), std::nullopt, runtime::kTagOutput);
    const auto [lo, hi] = range_of(a);
    args.push_back(Resolved{a, lo, hi});
  }
  if (!fanin_and_register(*id, args, t.fanin)) return fail();
  t.published = true;
  t.kind = runtime::kKindAlloc;
  t.kernel_id = runtime::kAllocKernelId;
  for (const Resolved& r : args) t.tensors.push_back(r.arg);
  cursor_fanin_ += t.fanin.size();
  tasks_.back() = t;
  if (!append_to_scope()) return fail();
  for (uint32_t b : made) {
    note_access(b, Window{Dims(buffers_[b].dims.size(), 0), buffers_[b].dims});
    last_.new_buffers.push_back(b);
  }
  if (out) *out = made;
  return *id;
}

std::optional<OrchestratorModel::Built> OrchestratorModel::build_args(const std::vector<ArgItem>& items,
                                                                      bool graph_boundary) {
  Built b;
  for (const ArgItem& it : items) {
    if (latched()) return std::nullopt;
    if (it.is_scalar) {
      if (b.scalars.size() >= (graph_boundary ? kMaxBoundaryScalars : kMaxScalars)) return refuse(kInvalidArgs);
      b.scalars.push_back(it.scalar);
      continue;
    }
    TensorOperand t = it.tensor;
    if (flaw_ == ModelFlaw::kTakesForeignHandles && t.buffer == kForeignBuffer) t.buffer = 0;  // same address, shape
    // A null or foreign handle is refused when it is added (after the checks every tensor meets first).
    const bool null = t.tag != runtime::kTagOutput && refused_handle(t.buffer);
    // A window is made on the host first (TensorRef::window, latch 5 when outside).
    if (!null && t.tag != runtime::kTagOutput && t.win && !window_ok(buffers_[t.buffer].dims, *t.win)) {
      const Dims& d = buffers_[t.buffer].dims;
      const Window& w = *t.win;
      std::vector<int64_t> f;
      if (w.off.size() != d.size() || w.size.size() != d.size()) {
        f = {static_cast<int64_t>(w.off.size()), static_cast<int64_t>(w.size.size()), static_cast<int64_t>(d.size())};
      } else {
        const bool swapped = flaw_ == ModelFlaw::kWindowSizesFirst;
        f.insert(f.end(), (swapped ? w.size : w.off).begin(), (swapped ? w.size : w.off).end());
        f.insert(f.end(), (swapped ? w.off : w.size).begin(), (swapped ? w.off : w.size).end());
        f.insert(f.end(), d.begin(), d.end());
      }
      return refuse(kInvalidArgs, std::move(f));
    }
    if (graph_boundary && t.tag != runtime::kTagInput && t.tag != runtime::kTagInout) return refuse(kInvalidArgs);
    if (!b.scalars.empty()) return refuse(kInvalidArgs);
    if (b.tensors.size() >= (graph_boundary ? kMaxBoundaryTensors : kMaxTensors)) return refuse(kInvalidArgs);
    if (t.tag == runtime::kTagOutput && !dims_ok(t.out_dims)) return refuse(kInvalidArgs);
    if (null) return refuse(kInvalidArgs);
    b.tensors.push_back(t);
  }
  if (latched()) return std::nullopt;
  return b;
}

int32_t OrchestratorModel::submit_built(int32_t kernel, const Built& b, std::vector<uint32_t>* outs) {
  if (latched()) return kNoTask;
  std::vector<uint32_t> tags;
  std::vector<Dims> shapes;
  for (const TensorOperand& t : b.tensors) {
    tags.push_back(t.tag);
    shapes.push_back(t.tag == runtime::kTagOutput ? t.out_dims : t.win ? t.win->size : buffers_[t.buffer].dims);
  }
  if (auto m = builtin_mismatch(kernel, tags, shapes, b.scalars.size())) {
    if (flaw_ == ModelFlaw::kMismatchFiguresReversed) std::reverse(m->figures.begin(), m->figures.end());
    latch(kInvalidArgs, std::move(m->figures), mismatch_detail("submit", kernel, m->text));
    return kNoTask;
  }
  const auto id = claim(b.tensors.size(), b.scalars.size());
  if (!id) return kNoTask;
  ModelTask t = tasks_.back();
  std::vector<Resolved> args;
  std::vector<uint32_t> made;
  auto drop = [&] { buffers_.resize(buffers_.size() - made.size()); };
  for (const TensorOperand& op : b.tensors) {
    TensorArg a;
    if (op.tag == runtime::kTagOutput) {
      const auto at = heap_alloc(elements(op.out_dims) * kElem);
      if (!at) {
        drop();
        return kNoTask;
      }
      if (t.heap_begin == 0) t.heap_begin = *at;
      t.heap_end = kTaskHeapBase + heap_top_;
      made.push_back(new_buffer(*at, op.out_dims));
      a = arg_of(made.back(), std::nullopt, runtime::kTagOutput);
    } else {
      a = arg_of(op.buffer, op.win, op.tag);
    }
    const auto [lo, hi] = range_of(a);
    args.push_back(Resolved{a, lo, hi});
  }
  if (!fanin_and_register(*id, args, t.fanin)) {
    drop();
    return kNoTask;
  }
  t.published = true;
  t.kind = runtime::kKindKernel;
  t.kernel_id = kernel;
  for (const Resolved& r : args) t.tensors.push_back(r.arg);
  t.scalars = b.scalars;
  cursor_fanin_ += t.fanin.size();
  tasks_.back() = t;
  if (!append_to_scope()) {
    drop();
    return kNoTask;
  }
  size_t k = 0;
  for (const TensorOperand& op : b.tensors) {
    const uint32_t buf = op.tag == runtime::kTagOutput ? made[k++] : op.buffer;
    const Dims& d = buffers_[buf].dims;
    note_access(buf, op.win && op.tag != runtime::kTagOutput ? *op.win : Window{Dims(d.size(), 0), d});
  }
  for (uint32_t m : made) last_.new_buffers.push_back(m);
  if (outs) *outs = made;
  return *id;
}

std::optional<OrchestratorModel::Built> OrchestratorModel::task_args(const std::vector<ArgItem>& items,
                                                                     bool graph_boundary) {
  last_.returns_task = true;
  last_.returned = kNoTask;
  if (latched()) return std::nullopt;
  return build_args(items, graph_boundary);
}

void OrchestratorModel::submit(const Submit& s) {
  if (const auto b = task_args(s.items, false)) last_.returned = submit_built(s.kernel, *b, nullptr);
}

void OrchestratorModel::read(const Read& r) {
  // The plan interpreter's read (§12 "Host reads"): an index outside the entry latches 5;
  // the value is the i32 element, sign-extended.
  last_.returns_task = true;
  last_.returned = kNoTask;
  if (latched()) return;
  const EntrySpec& e = setup_->entries[r.entry];
  if (r.index.size() != e.dims.size()) return void(latch(kInvalidArgs));
  const Dims stride = row_major(e.dims);
  uint64_t elem = 0;
  for (size_t i = 0; i < e.dims.size(); ++i) {
    if (r.index[i] < 0 || r.index[i] >= e.dims[i]) return void(latch(kInvalidArgs));
    elem += static_cast<uint64_t>(r.index[i] * stride[i]);
  }
  const uint64_t value = static_cast<uint64_t>(static_cast<int64_t>(e.host[elem]));
  Submit fill{0, {ArgItem{false, r.target, 0}, ArgItem{true, {}, value}}};
  const auto b = build_args(fill.items, false);
  if (!b) return;
  last_.returned = submit_built(0, *b, nullptr);
}

}  // namespace stackcheck::oracles::orch
