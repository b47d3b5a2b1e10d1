// Runtime creation and bind steps 1-9 (runtime.h, RUNTIME.md §10).
#include "stack/runtime/host/runtime.h"

#include <fmt/format.h>
#include <algorithm>
#include <array>
#include <bit>
#include <cstring>

#include "stack/defects/defects.h"
#include "stack/runtime/device/attach.h"
#include "stack/runtime/device/scheduler.h"
#include "stack/runtime/devmem/device_access.h"
#include "stack/runtime/host/bind_measure.h"
#include "stack/runtime/host/graph/cache.h"
#include "stack/runtime/image/compact.h"
#include "stack/runtime/plan/check.h"
#include "stack/runtime/host/interpreter.h"
#include "stack/support/splitmix.h"

namespace stackcheck::runtime {
namespace {

static_assert(std::endian::native == std::endian::little, "entry bytes are little-endian i32");

// The error words of the image header, read back in one D2H copy after attach.
struct ErrorWords {
  uint32_t orch_done;
  int32_t orch_error;
  int32_t sched_error;
  int32_t sched_error_thread;
  uint64_t sched_error_bitmap;
};
static_assert(sizeof(ErrorWords) == 24);
constexpr uint64_t kErrorWordsOff = offsetof(ImageHeader, orch_done);
static_assert(offsetof(ImageHeader, sched_error_bitmap) == kErrorWordsOff + 16);

std::vector<uint8_t> to_bytes(std::span<const int32_t> v) {
  std::vector<uint8_t> out(v.size() * sizeof(int32_t));
  if (!v.empty()) std::memcpy(out.data(), v.data(), out.size());
  return out;
}

uint64_t elements_of(const std::vector<int64_t>& shape) {
  uint64_t n = 1;
  for (int64_t d : shape) n *= static_cast<uint64_t>(d);
  return n;
}

}  // namespace

Expected<std::unique_ptr<Runtime>, std::string> Runtime::create(DeviceMemory& mem, const RuntimeConfig& cfg,
                                                                MirrorBuffer* storage) {
  if (auto why = validate_config(cfg)) return unexpected(*why);
  try {
    return std::unique_ptr<Runtime>(new Runtime(mem, cfg, storage));
  } catch (const DeviceFault& f) {
    return unexpected(f.describe());
  }
}

Runtime::Runtime(DeviceMemory& mem, const RuntimeConfig& cfg, MirrorBuffer* storage)
    : mem_(&mem), link_(mem), cfg_(cfg) {
  if (storage) mirror_ = std::move(*storage);
  // Reserved once: payloads embed heap addresses, so the heaps never move.
  task_heap_ = link_.reserve(cfg_.task_heap, kTensorAlign, "task_heap");
  graph_heap_ = link_.reserve(cfg_.graph_heap, 64, "graph_heap");
  const MirrorLayout layout = LayoutPlanner::mirror(cfg_.W);
  mirror_.reset(layout.seg.total_bytes, static_cast<uint8_t>(cfg_.fill_byte));
  OrchestratorSetup s;
  s.mirror = std::span<std::byte>(mirror_.data(), mirror_.size());
  s.lazy = &mirror_;
  s.layout = layout;
  s.task_heap = task_heap_;
  s.task_heap_bytes = cfg_.task_heap;
  s.graph_heap = graph_heap_;
  s.graph_heap_bytes = cfg_.graph_heap;
  s.tensormap_capacity = cfg_.tensormap_capacity;
  s.scope_tasks_capacity = cfg_.effective_scope_tasks_capacity();
  s.clusters = cfg_.clusters;
  orch_ = std::make_unique<Orchestrator>(s);
}

Runtime::~Runtime() {
  try {
    release_entries();
    for (size_t k = 0; k < orch_->graph_cache().size(); ++k)
      if (DevAddr d = orch_->graph_cache().at(static_cast<uint32_t>(k)).device; !d.is_null()) link_.release(d);
    if (!region_.is_null()) link_.release(region_);
    link_.release(graph_heap_);
    link_.release(task_heap_);
  } catch (const DeviceFault&) {
    // Only a DeviceMemory misused behind our back gets here; a destructor must not throw.
  }
}

std::vector<uint32_t> Runtime::graph_ids_for(const OrchProgram& p) {
  std::vector<uint32_t> ids;
  for (const PlanGraph& g : p.graphs) {
    size_t k = 0;
    while (k < known_graphs_.size() && !(known_graphs_[k] == g)) ++k;
    if (k == known_graphs_.size()) known_graphs_.push_back(g);
    ids.push_back(static_cast<uint32_t>(k));
  }
  return ids;
}

void Runtime::release_entries() {
  for (DevAddr a : entries_) link_.release(a);
  entries_.clear();
}

BindResult Runtime::bind(const OrchProgram& p, const BindOptions& opts) {
  BindResult r;
  const uint64_t first_copy = mem_->host_copy_count();
  run_bind(p, opts, r);
  // Copies, bytes, reservations and reads: what device memory saw, whatever path was taken.
  measure_bind(*mem_, link_.id(), first_copy, r.stats);
  return r;
}

void Runtime::run_bind(const OrchProgram& p, const BindOptions& opts, BindResult& r) {
  // Host bookkeeping only (bind_stats.h); the measured figures come from measure_bind.
  BindStats& st = r.stats;
  st.mirror = orch_->layout().seg.total_bytes;
  auto graph_stats = [&] {
    const GraphCache& cache = orch_->graph_cache();
    st.inlined = orch_->graphs_inlined();
    st.nodes = st.graph_internal_heap = 0;
    for (const GraphSubmissionPlan& s : orch_->graph_submissions()) {
      st.nodes += cache.at(s.definition).header.n_nodes;
      st.graph_internal_heap += cache.at(s.definition).header.required_heap;
    }
  };
  if (auto err = validate_plan(p)) {
    r.status = kStatusGeneric;
    r.failure = BindFailure::kInvalidPlan;
    r.detail = "invalid plan: " + err->to_string();
    return;
  }
  try {
    // Entry tensors, before step 1: one reservation and one upload each.
    release_entries();
    support::SplitMix64 rng(opts.seed);
    std::vector<std::vector<int32_t>> host(p.tensors.size());
    std::vector<DevAddr> bases;
    for (size_t i = 0; i < p.tensors.size(); ++i) {
      const EntryTensor& t = p.tensors[i];
      host[i].resize(elements_of(t.shape));
      for (int32_t& v : host[i]) v = static_cast<int32_t>(static_cast<uint32_t>(rng.next()));
      const uint64_t bytes = host[i].size() * sizeof(int32_t);
      const DevAddr b = link_.reserve(bytes, kTensorAlign, "entry:" + t.name);
      entries_.push_back(b);
      bases.push_back(b);
      link_.copy_to_device(b, host[i].data(), bytes);
    }
    // Steps 1-2: reset, root scope, the program, scope end, done.
    orch_->reset();
    std::vector<EntryView> views;
    for (size_t i = 0; i < p.tensors.size(); ++i)
      views.push_back(EntryView{p.tensors[i].name, orch_->external(bases[i], Shape::of(p.tensors[i].shape)), host[i],
                                p.tensors[i].inout});
    orch_->scope_begin();
    const InterpretResult ir = run_plan(p, *orch_, views, opts.max_statements, graph_ids_for(p));
    st.tasks = orch_->submitted();
    st.task_heap_high_water = orch_->task_heap().high_water();
    st.graph_heap_high_water = orch_->graph_heap().high_water();
    graph_stats();
    if (ir.outcome == InterpretResult::Outcome::kBudgetExhausted) {
      r.status = kStatusGeneric;
      r.failure = BindFailure::kBudget;
      r.detail = ir.detail;
      return;
    }
    orch_->scope_end();
    orch_->finish();
    // Step 3: a latched code refuses the upload; nothing is planned, reserved or copied.
    if (orch_->latched()) {
      if (defects::active(defects::Defect::kFatalLatchedUploaded)) {
        // Zoo: the latch is looked at only after planning, reserving and uploading.
        ship(p, r, bases, host, opts);
        r.attach_class.reset();
        r.trace.clear();
        r.entries.clear();
      }
      r.status = to_status(orch_->error());
      r.failure = BindFailure::kLatched;
      r.detail = orch_->error_detail().empty()
                     ? code_name(orch_->error())
                     : fmt::format("{}: {}", code_name(orch_->error()), orch_->error_detail());
      return;
    }
    ship(p, r, bases, host, opts);
  } catch (const DeviceFault& f) {
    r.status = kStatusGeneric;
    r.failure = BindFailure::kDeviceFault;
    r.detail = f.describe();
    r.entries.clear();
  }
}

// Step 4's figures, read by the later steps.
struct Runtime::ShipPlan {
  uint32_t n = 0;
  PoolCounts cursors;
  SegmentLayout img;
  uint64_t graph_tasks = 0;
  uint64_t Q = 0;
  uint64_t dev_bytes = 0;
  uint64_t copied_off = 0;
  SubmissionZone zone;
  uint64_t sub_off = 0;
  uint64_t sub_bytes = 0;
  uint64_t shipped = 0;
  uint64_t need = 0;
};

void Runtime::ship(const OrchProgram& p, BindResult& r, const std::vector<DevAddr>& entry_bases,
                   const std::vector<std::vector<int32_t>>& host, const BindOptions& opts) {
  const ShipPlan sp = plan_image();
  grow_region(sp);
  upload_definitions();
  std::vector<std::byte> staged(sp.shipped, std::byte{0});
  if (!stage(sp, staged, r, opts)) return;
  upload_image(sp, staged);
  run_and_collect(p, r, entry_bases, host, opts);
}

// Step 4: plan the image, the device-only zone and the region layout.
Runtime::ShipPlan Runtime::plan_image() const {
  ShipPlan sp;
  sp.n = orch_->submitted();
  sp.cursors = orch_->cursors();
  // Zoo: the image pitched to the task window instead of the submitted count.
  sp.img = defects::active(defects::Defect::kImagePitchedToCapacity) ? LayoutPlanner::plan(cfg_.W, sp.cursors)
                                                                      : LayoutPlanner::image(sp.n, sp.cursors);
  const std::vector<GraphSubmissionPlan>& subs = orch_->graph_submissions();
  sp.graph_tasks = subs.size();
  sp.Q = cfg_.ready_capacity != 0 ? cfg_.ready_capacity : sp.img.pitch + 1024 * sp.graph_tasks;
  sp.dev_bytes = sizeof(SchedControl) + 8 * sp.Q;
  sp.copied_off = align64(sp.dev_bytes);
  // Submissions: a 64-aligned tail of the copied zone, records in task order (§9).
  sp.zone = plan_submission_zone(subs);
  sp.sub_off = align64(sizeof(RuntimeHeader) + sp.img.total_bytes);  // from the copied zone's start
  sp.sub_bytes = sp.zone.bytes;
  sp.shipped = subs.empty() ? sizeof(RuntimeHeader) + sp.img.total_bytes : sp.sub_off + sp.sub_bytes;
  sp.need = sp.copied_off + sp.shipped;
  return sp;
}

// Step 5: grow the region (reserve the new one, release the old, re-derive addresses).
void Runtime::grow_region(const ShipPlan& sp) {
  if (region_.is_null() || sp.need > region_bytes_) {
    const uint64_t bytes = std::max(sp.need, 2 * region_bytes_);
    const DevAddr fresh = link_.reserve(bytes, 64, "region");
    if (!region_.is_null()) link_.release(region_);
    region_ = fresh;
    region_bytes_ = bytes;
  }
  const DevAddr copied = region_ + sp.copied_off;
  plan_ = RegionPlan{copied,          copied + sizeof(RuntimeHeader),
                     sp.img.total_bytes, region_,
                     sp.dev_bytes,    sp.Q,
                     sp.shipped,      orch_->graph_submissions().empty() ? DevAddr() : copied + sp.sub_off,
                     sp.sub_bytes};
}

// Step 6: each definition this bind submits that is not resident yet: its own reservation
// and copy; resident from now on for the Runtime's life.
void Runtime::upload_definitions() {
  GraphCache& cache = orch_->graph_cache();
  for (const GraphSubmissionPlan& s : orch_->graph_submissions()) {
    const GraphDefinition& d = cache.at(s.definition);
    if (!d.device.is_null()) continue;
    const DevAddr at = link_.reserve(d.bytes.size(), 64, fmt::format("graph_def:{}", s.definition));
    link_.copy_to_device(at, d.bytes.data(), d.bytes.size());
    cache.mark_uploaded(s.definition, at);
  }
}

// Step 7: stage [RuntimeHeader][image][submissions] and compact; then a harness's hook.
bool Runtime::stage(const ShipPlan& sp, std::vector<std::byte>& staged, BindResult& r, const BindOptions& opts) {
  const std::vector<GraphSubmissionPlan>& subs = orch_->graph_submissions();
  GraphCache& cache = orch_->graph_cache();
  RuntimeHeader rh{};
  std::memcpy(rh.magic, kRuntimeMagic, sizeof rh.magic);
  rh.version = kRuntimeVersion;
  rh.W = static_cast<uint32_t>(cfg_.W);
  rh.Q = static_cast<uint32_t>(sp.Q);
  rh.graph_count = static_cast<uint32_t>(sp.graph_tasks);
  rh.submissions = plan_.submissions;
  rh.submissions_bytes = sp.sub_bytes;
  rh.image = plan_.image;
  rh.image_bytes = sp.img.total_bytes;
  rh.device_only = region_;
  rh.device_only_bytes = sp.dev_bytes;
  rh.task_heap = task_heap_;
  rh.task_heap_bytes = cfg_.task_heap;
  rh.graph_heap = graph_heap_;
  rh.graph_heap_bytes = cfg_.graph_heap;
  rh.region = region_;
  rh.region_bytes = region_bytes_;
  std::memcpy(staged.data(), &rh, sizeof rh);
  // Submissions first: each record's address goes into its outer task's mirror graph_ctx.
  for (size_t k = 0; k < subs.size(); ++k) {
    orch_->stage_graph_ctx(subs[k].outer, plan_.submissions + sp.zone.offsets[k]);
    write_graph_submission(std::span(staged).subspan(sp.sub_off + sp.zone.offsets[k]), subs[k],
                           cache.at(subs[k].definition));
  }
  // What compaction reads, filled first: a live byte no claim wrote reads as the fill byte, as
  // in a mirror filled up front (the rest of the mirror stays unfilled).
  mirror_.ensure(0, sizeof(ImageHeader));
  const std::array<uint64_t, kSegCount> live = live_segment_bytes(sp.cursors, sp.n);
  for (uint32_t s = 0; s < kSegCount; ++s) mirror_.ensure(orch_->layout().seg.off[s], live[s]);
  auto compacted = compact_live_image(orch_->mirror(), orch_->layout(), sp.cursors, sp.n,
                                      std::span(staged).subspan(sizeof(RuntimeHeader), sp.img.total_bytes));
  if (!compacted) {
    r.status = kStatusGeneric;
    r.failure = BindFailure::kCompaction;
    r.detail = fmt::format("compaction: {}: {}", compact_error_name(compacted.error().kind), compacted.error().message);
    return false;
  }
  if (opts.before_upload) {
    StagedUpload upload{staged, sizeof(RuntimeHeader), sp.img.total_bytes, plan_.runtime_header, link_};
    if (std::optional<std::string> stop = opts.before_upload(upload)) {
      r.status = kStatusGeneric;
      r.failure = BindFailure::kHook;
      r.detail = std::move(*stop);
      return false;
    }
  }
  return true;
}

// Step 8: the one image copy.
void Runtime::upload_image(const ShipPlan& sp, const std::vector<std::byte>& staged) {
  const DevAddr copied = plan_.runtime_header;
  mem_->clear_read_bits(copied, sp.shipped);
  const std::vector<GraphSubmissionPlan>& subs = orch_->graph_submissions();
  if (defects::active(defects::Defect::kSubmissionsCopiedEach) && !subs.empty()) {
    // Zoo: the runtime header and image in one copy, then each submission record in its own.
    link_.copy_to_device(copied, staged.data(), sp.sub_off);
    for (size_t k = 0; k < subs.size(); ++k) {
      const uint64_t end = k + 1 < subs.size() ? sp.zone.offsets[k + 1] : sp.sub_bytes;
      link_.copy_to_device(plan_.submissions + sp.zone.offsets[k], staged.data() + sp.sub_off + sp.zone.offsets[k],
                           end - sp.zone.offsets[k]);
    }
  } else {
    link_.copy_to_device(copied, staged.data(), sp.shipped);
  }
}

// Step 9: attach and schedule, then the error words (one D2H) and the InOut entries.
void Runtime::run_and_collect(const OrchProgram& p, BindResult& r, const std::vector<DevAddr>& entry_bases,
                              const std::vector<std::vector<int32_t>>& host, const BindOptions& opts) {
  DeviceAccess dev(*mem_);
  auto view = attach_populated(dev, plan_.runtime_header);
  if (!view) {
    r.status = kStatusGeneric;
    r.failure = BindFailure::kAttach;
    r.attach_class = view.error().cls;
    r.detail = fmt::format("attach: {}: {}", attach_error_name(view.error().cls), view.error().message);
    return;
  }
  ScheduleOptions so = opts.schedule;
  if (so.workers == 0) so.workers = static_cast<unsigned>(std::min<uint64_t>(cfg_.workers, kMaxWorkers));
  if (so.progress_timeout_ms == 0)
    so.progress_timeout_ms = static_cast<uint32_t>(std::min<uint64_t>(cfg_.progress_timeout_ms, UINT32_MAX));
  ScheduleResult sched = run_scheduler(dev, *view, so);
  r.trace = std::move(sched.trace);
  r.pct_steps = sched.pct_steps;
  ErrorWords w{};
  link_.copy_to_host(&w, plan_.image + kErrorWordsOff, sizeof w);
  if (w.sched_error != 0 || w.orch_error != 0) {
    const int32_t code = w.orch_error != 0 ? w.orch_error : w.sched_error;
    r.status = to_status(code);
    r.failure = w.orch_error != 0 ? BindFailure::kLatched : BindFailure::kScheduler;
    r.detail = sched.detail.empty() ? code_name(code) : fmt::format("{}: {}", code_name(code), sched.detail);
    return;
  }
  if (!sched.completed()) {  // a DeviceFault or kernel error stopped the run
    r.status = kStatusGeneric;
    r.failure = sched.kernel_fault ? BindFailure::kKernelFault : BindFailure::kDeviceFault;
    r.detail = sched.detail;
    return;
  }
  for (size_t i = 0; i < p.tensors.size(); ++i) {
    EntryResult e{p.tensors[i].name, p.tensors[i].inout, {}};
    if (e.inout) {
      e.bytes.resize(host[i].size() * sizeof(int32_t));
      link_.copy_to_host(e.bytes.data(), entry_bases[i], e.bytes.size());
    } else {
      e.bytes = to_bytes(host[i]);
    }
    r.entries.push_back(std::move(e));
  }
}

}  // namespace stackcheck::runtime
