// The real orchestrator of a model case and its comparison with the model (orchestrator_sut.h).
#include "properties/oracles/orchestrator_sut.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstring>
#include <string>

#include "properties/oracles/spare_mirrors.h"
#include "properties/oracles/spec_layout.h"
#include "stack/runtime/host/graph/recorder.h"
#include "stack/runtime/image/graph_def.h"
#include "stack/runtime/host/interpreter.h"
#include "stack/runtime/plan/parser.h"
#include "stack/support/check.h"

namespace stackcheck::oracles::orch {
namespace {

using namespace stackcheck::runtime;

Shape shape_of(const Dims& d) { return Shape::of(d); }

TensorRef window_of(const TensorRef& t, const std::optional<Window>& w) {
  if (!w) return t;
  return t.window(w->off, w->size);
}

template <class A>
void add_by_tag(A& a, uint32_t tag, const TensorRef& t) {
  switch (tag) {
    case kTagInput: a.add_input(t); break;
    case kTagInout: a.add_inout(t); break;
    case kTagOutputExisting: a.add_output_existing(t); break;
    default: a.add_no_dep(t); break;
  }
}

std::string dims_text(const Dims& d) { return fmt::format("[{}]", fmt::join(d, ", ")); }

OrchestratorSetup orchestrator_setup(const ModelConfig& c, MirrorBuffer& mirror, const MirrorLayout& layout) {
  OrchestratorSetup s;
  s.mirror = std::span<std::byte>(mirror.data(), mirror.size());
  s.lazy = &mirror;
  s.layout = layout;
  s.task_heap = DevAddr(kTaskHeapBase);
  s.task_heap_bytes = c.task_heap;
  s.graph_heap = DevAddr(kGraphHeapBase);
  s.graph_heap_bytes = c.graph_heap;
  s.tensormap_capacity = c.tensormap_capacity;
  s.scope_tasks_capacity = c.scope_tasks_capacity;
  s.clusters = c.clusters;
  return s;
}

// A mirror reading as 0xAA everywhere, in one of the thread's spare allocations (a case makes a
// SUT per provoking kind): its blocks are filled only as the orchestrator reaches them.
MirrorBuffer poisoned_mirror(uint64_t bytes) {
  MirrorBuffer b = take_spare_mirror();
  b.reset(bytes, 0xAA);
  return b;
}

}  // namespace

OrchestratorSut::OrchestratorSut(std::shared_ptr<const ModelSetup> setup)
    : setup_(std::move(setup)),
      layout_(LayoutPlanner::mirror(setup_->config.W)),
      mirror_(poisoned_mirror(layout_.seg.total_bytes)) {
  orch_ = std::make_unique<Orchestrator>(orchestrator_setup(setup_->config, mirror_, layout_));
  orch_->reset();
  for (size_t i = 0; i < setup_->entries.size(); ++i)
    buffers_.push_back(
        orch_->external(DevAddr(kEntryBase + (static_cast<uint64_t>(i) << 32)), shape_of(setup_->entries[i].dims)));
  orch_->scope_begin();  // the root scope, as bind step 2 opens it
}

OrchestratorSut::~OrchestratorSut() {
  foreign_.reset();
  orch_.reset();
  keep_spare_mirror(std::move(foreign_mirror_));
  keep_spare_mirror(std::move(mirror_));
}

TensorRef OrchestratorSut::foreign_ref() {
  if (!foreign_) {
    foreign_mirror_ = poisoned_mirror(layout_.seg.total_bytes);
    foreign_ = std::make_unique<Orchestrator>(orchestrator_setup(setup_->config, foreign_mirror_, layout_));
    foreign_->reset();
  }
  // The same address and shape as this orchestrator's entry 0: only the owner tells them apart.
  return foreign_->external(DevAddr(kEntryBase), shape_of(setup_->entries.at(0).dims));
}

TensorRef OrchestratorSut::operand_ref(const TensorOperand& t) {
  if (t.buffer == kForeignBuffer) return foreign_ref();
  return t.buffer < buffers_.size() ? window_of(buffers_[t.buffer], t.win) : TensorRef{};
}

std::optional<int32_t> OrchestratorSut::run(const Call& call) {
  Orchestrator& o = *orch_;
  return std::visit(
      [&](const auto& c) -> std::optional<int32_t> {
        using T = std::decay_t<decltype(c)>;
        if constexpr (std::is_same_v<T, ScopeBegin>) {
          o.scope_begin();
          return std::nullopt;
        } else if constexpr (std::is_same_v<T, ScopeEnd>) {
          o.scope_end();
          return std::nullopt;
        } else if constexpr (std::is_same_v<T, AllocTensors>) {
          std::vector<Shape> shapes;
          for (const Dims& d : c.shapes) shapes.push_back(shape_of(d));
          std::vector<TensorRef> out(shapes.size());
          const TaskId id = o.alloc_tensors(shapes, out);
          if (id >= 0) buffers_.insert(buffers_.end(), out.begin(), out.end());
          return id;
        } else if constexpr (std::is_same_v<T, Submit>) {
          Args a(o);
          std::vector<TensorRef> outs(c.items.size());
          for (size_t k = 0; k < c.items.size(); ++k) {
            const ArgItem& it = c.items[k];
            if (it.is_scalar)
              a.add_scalar(it.scalar);
            else if (it.tensor.tag == kTagOutput)
              a.add_output(&outs[k], shape_of(it.tensor.out_dims));
            else
              add_by_tag(a, it.tensor.tag, operand_ref(it.tensor));
          }
          const TaskId id = o.submit(c.kernel, a);
          if (id >= 0)
            for (size_t k = 0; k < c.items.size(); ++k)
              if (!c.items[k].is_scalar && c.items[k].tensor.tag == kTagOutput) buffers_.push_back(outs[k]);
          return id;
        } else if constexpr (std::is_same_v<T, SubmitGraph>) {
          GraphArgs g(o);
          TensorRef unused;
          for (const ArgItem& it : c.items) {
            if (it.is_scalar)
              g.add_scalar(it.scalar);
            else if (it.tensor.tag == kTagOutput)
              g.add_output(&unused, shape_of(it.tensor.out_dims));
            else
              add_by_tag(g, it.tensor.tag, operand_ref(it.tensor));
          }
          const GraphFnSpec& fn = setup_->graphs.at(c.fn);
          body_accepted_ = 0;
          return o.submit_graph(
              c.fn, [&](GraphRecorder& r) { run_body(r, fn); }, g);
        } else if constexpr (std::is_same_v<T, Read>) {
          return run_read(c);
        } else if constexpr (std::is_same_v<T, WaitTensor>) {
          o.wait_tensor(c.buffer < buffers_.size() ? buffers_[c.buffer] : TensorRef{});
          return std::nullopt;
        } else if constexpr (std::is_same_v<T, Fatal>) {
          o.fatal();
          return std::nullopt;
        } else {
          o.sync_start(c.blocks);
          return std::nullopt;
        }
      },
      call);
}

// A graph function from its spec. Tensors an inline run creates are real buffers: they join
// the model's buffer order (a recording's are virtual and stay local).
void OrchestratorSut::run_body(GraphRecorder& r, const GraphFnSpec& fn) {
  std::vector<TensorRef> internal;
  auto keep = [&](const TensorRef& t) {
    internal.push_back(t);
    if (!r.recording()) buffers_.push_back(t);
  };
  for (const BodyNode& node : fn.nodes) {
    switch (node.kind) {
      case BodyNode::Kind::kScopeBegin: r.scope_begin(); continue;
      case BodyNode::Kind::kScopeEnd: r.scope_end(); continue;
      case BodyNode::Kind::kNestedGraph: r.submit_graph(0, {}, GraphArgs(r.orchestrator())); continue;
      case BodyNode::Kind::kWaitTensor: r.wait_tensor(r.boundary(0)); continue;
      case BodyNode::Kind::kAlloc: {
        std::vector<Shape> shapes;
        for (const Dims& d : node.alloc) shapes.push_back(shape_of(d));
        std::vector<TensorRef> out(shapes.size());
        if (r.alloc_tensors(shapes, out) != kNoTask) {
          ++body_accepted_;
          for (const TensorRef& t : out) keep(t);
        }
        continue;
      }
      case BodyNode::Kind::kSubmit: break;
    }
    Args a(r);
    std::vector<TensorRef> outs(node.tensors.size());
    for (size_t k = 0; k < node.tensors.size(); ++k) {
      const BodyTensor& bt = node.tensors[k];
      if (bt.source == BodyTensor::Source::kOutput) {
        a.add_output(&outs[k], shape_of(bt.out_dims));
        continue;
      }
      const TensorRef src = bt.source == BodyTensor::Source::kBoundary ? r.boundary(bt.index)
                            : bt.source == BodyTensor::Source::kOuter  ? buffers_.at(bt.index)  // captured
                            : bt.index < internal.size()               ? internal[bt.index]
                                                                       : TensorRef{};
      add_by_tag(a, bt.tag, src.window(bt.win.off, bt.win.size));
    }
    for (const BodyScalar& sc : node.scalars) {
      if (sc.kind == BodyScalar::Kind::kLiteral)
        a.add_scalar(sc.literal);
      else if (sc.kind == BodyScalar::Kind::kSlot)
        a.add_scalar(r.scalar(sc.slot));
      else if (sc.kind == BodyScalar::Kind::kHandSlot)  // made by hand, with the recording's domain
        a.add_scalar(ScalarSlot{sc.slot, sc.literal, r.boundary(0).recording()});
      else if (sc.kind == BodyScalar::Kind::kForeignSlot)  // made by hand, of no recording
        a.add_scalar(ScalarSlot{sc.slot, sc.literal, 0});
      else
        a.add_scalar(3 * r.scalar(sc.slot).value() + 1);  // computed now: frozen when recording
    }
    if (r.submit(node.kernel, a) != kNoTask) {
      ++body_accepted_;
      for (size_t k = 0; k < node.tensors.size(); ++k)
        if (node.tensors[k].source == BodyTensor::Source::kOutput) keep(outs[k]);
    }
  }
}

// `read v = x[index]` then `submit fill(output_existing t, scalar v)`, through run_plan.
std::optional<int32_t> OrchestratorSut::run_read(const Read& r) {
  const EntrySpec& e = setup_->entries.at(r.entry);
  const uint32_t entry_buffer = r.entry;  // entries are the first buffers
  const bool same = r.target.buffer == entry_buffer;
  const TensorRef target = r.target.buffer < buffers_.size() ? buffers_[r.target.buffer] : TensorRef{};
  std::string text = fmt::format("tensor x: In {}\n", dims_text(e.dims));
  if (!same) {
    Dims td;
    for (uint32_t i = 0; i < target.rank(); ++i) td.push_back(target.dim(i));
    text += fmt::format("tensor t: InOut {}\n", dims_text(td));
  }
  text += fmt::format("read v = x[{}]\n", fmt::join(r.index, ", "));
  std::string win;
  if (r.target.win) {
    std::vector<std::string> parts;
    for (size_t i = 0; i < r.target.win->off.size(); ++i)
      parts.push_back(fmt::format("{}:{}", r.target.win->off[i], r.target.win->size[i]));
    win = fmt::format("[{}]", fmt::join(parts, ", "));
  }
  text += fmt::format("submit fill(output_existing {}{}, scalar v)\n", same ? "x" : "t", win);
  PlanParseResult p = parse_plan(text);
  STACK_CHECK(p.ok(), "the model's read plan must parse");
  std::vector<EntryView> views = {EntryView{"x", buffers_[entry_buffer], e.host, false}};
  if (!same) views.push_back(EntryView{"t", target, {}, true});
  run_plan(p.program(), *orch_, views);
  return std::nullopt;  // run_plan hands back no task id: the mirror shows the task
}

// ---------------------------------------------------------------- comparison

namespace {

template <class T>
T load(std::span<const std::byte> m, uint64_t off) {
  STACK_CHECK(off <= m.size() && sizeof(T) <= m.size() - off, "a comparison read past the bytes it compares");
  T v;
  std::memcpy(&v, m.data() + off, sizeof v);
  return v;
}
// A read at an offset the bytes themselves give (a definition's header): nullopt when outside.
template <class T>
std::optional<T> load_at(std::span<const std::byte> m, uint64_t off) {
  if (off > m.size() || sizeof(T) > m.size() - off) return std::nullopt;
  return load<T>(m, off);
}

Verdict fail(const std::string& rule, const std::string& msg) { return Verdict::fail("orch-model/" + rule, msg); }

bool all_zero(std::span<const std::byte> m, uint64_t off, uint64_t n) {
  for (uint64_t i = 0; i < n; ++i)
    if (m[off + i] != std::byte{0}) return false;
  return true;
}

// The SUT's lazy mirror as a comparison reads it: the blocks a read reaches are filled first.
template <class T>
T load(MirrorBuffer& m, uint64_t off) {
  m.ensure(off, sizeof(T));
  return load<T>(std::span<const std::byte>(m.data(), m.size()), off);
}
bool all_zero(MirrorBuffer& m, uint64_t off, uint64_t n) {
  STACK_CHECK(off <= m.size() && n <= m.size() - off, "a comparison read past the bytes it compares");
  m.ensure(off, n);
  return all_zero(std::span<const std::byte>(m.data(), m.size()), off, n);
}

// Where a delta field points, as a mirror offset (0 when unbound).
uint64_t delta_target(uint64_t field, int32_t delta) {
  return delta == 0 ? 0 : static_cast<uint64_t>(static_cast<int64_t>(field) + delta);
}

std::string arg_text(const TensorArg& a) {
  return fmt::format("base {:#x} bytes {} off {} tag {} rank {} shape [{}, {}, {}, {}] stride [{}, {}, {}, {}]",
                     a.base.raw(), a.buffer_bytes, a.offset_bytes, a.tag, a.rank, a.shape[0], a.shape[1], a.shape[2],
                     a.shape[3], a.stride[0], a.stride[1], a.stride[2], a.stride[3]);
}

Verdict compare_task(const ModelTask& t, MirrorBuffer& m, const SegmentLayout& L) {
  const auto i = static_cast<uint64_t>(t.id);
  const std::string who = fmt::format("task {}", t.id);
  if (!t.published) {  // claimed, then a latch: the claim's zeroed records (§8 step 2)
    if (!all_zero(m, L.desc_at(i), sizeof(TaskDescriptor)) || !all_zero(m, L.payload_at(i), sizeof(TaskPayload)) ||
        !all_zero(m, L.slot_at(i), sizeof(SlotState)) || !all_zero(m, L.flag_at(i), 1))
      return fail("claim-reset", who + " was claimed but not published: its records are not the zeroed ones");
    return Verdict::pass();
  }
  const auto d = load<TaskDescriptor>(m, L.desc_at(i));
  if (d.task_id != t.id || d.kind != t.kind || d.kernel_id != t.kernel_id || d.reserved != 0)
    return fail("descriptor", fmt::format("{}: descriptor id {} kind {} kernel {}, model kind {} kernel {}", who,
                                          d.task_id, d.kind, d.kernel_id, t.kind, t.kernel_id));
  if (d.heap_begin.raw() != t.heap_begin || d.heap_end.raw() != t.heap_end)
    return fail("heap-block", fmt::format("{}: heap block [{:#x}, {:#x}), model [{:#x}, {:#x})", who,
                                          d.heap_begin.raw(), d.heap_end.raw(), t.heap_begin, t.heap_end));
  const auto p = load<TaskPayload>(m, L.payload_at(i));
  if (p.n_tensors != t.tensors.size() || p.n_scalars != t.scalars.size() || p.n_nodes != t.n_nodes || p.reserved != 0 ||
      p.graph_ctx.raw() != 0)
    return fail("payload",
                fmt::format("{}: payload n_tensors {} n_scalars {} n_nodes {}, model {} {} {}", who, p.n_tensors,
                            p.n_scalars, p.n_nodes, t.tensors.size(), t.scalars.size(), t.n_nodes));
  const uint64_t pf = L.payload_at(i);
  const uint64_t want_t = t.tensors.empty() ? 0 : L.tensor_at(t.tensor_at);
  const uint64_t want_s = t.scalars.empty() ? 0 : L.scalar_at(t.scalar_at);
  if (delta_target(pf + kPayloadTensorsField, p.tensors) != want_t ||
      delta_target(pf + kPayloadScalarsField, p.scalars) != want_s)
    return fail("pool-region", who + ": tensor or scalar delta does not reach the model's pool region");
  for (size_t k = 0; k < t.tensors.size(); ++k) {
    const auto a = load<TensorArg>(m, want_t + k * sizeof(TensorArg));
    if (std::memcmp(&a, &t.tensors[k], sizeof a) != 0)
      return fail("tensor-arg",
                  fmt::format("{} tensor {}: mirror {}; model {}", who, k, arg_text(a), arg_text(t.tensors[k])));
  }
  const uint64_t region = (t.scalars.size() + 7) / 8 * 8;
  for (uint64_t k = 0; k < region; ++k) {
    const auto v = load<uint64_t>(m, want_s + 8 * k);
    const uint64_t want = k < t.scalars.size() ? t.scalars[k] : 0;
    if (v != want) return fail("scalar", fmt::format("{} scalar entry {}: mirror {}, model {}", who, k, v, want));
  }
  // The fanin as shipped: through the payload's delta.
  std::vector<int32_t> fanin;
  const uint64_t fa = delta_target(pf + kPayloadFaninField, p.fanin);
  if ((p.n_fanin == 0) != (fa == 0)) return fail("fanin", who + ": fanin delta bound <=> n_fanin > 0 does not hold");
  if (fa != 0 && fa != L.fanin_at(t.fanin_at))
    return fail("fanin", fmt::format("{}: fanin delta reaches pool entry {}, model {}", who,
                                     (fa - L.off[kSegFanin]) / 4, t.fanin_at));
  if (p.n_fanin != t.fanin.size())
    return fail("fanin", fmt::format("{}: {} producers, model [{}]", who, p.n_fanin, fmt::join(t.fanin, ", ")));
  for (uint32_t k = 0; k < p.n_fanin; ++k) fanin.push_back(load<int32_t>(m, fa + 4 * k));
  if (fanin != t.fanin)
    return fail("fanin",
                fmt::format("{}: fanin [{}], model [{}]", who, fmt::join(fanin, ", "), fmt::join(t.fanin, ", ")));
  const auto s = load<SlotState>(m, L.slot_at(i));
  if (s.state != kSlotPending || delta_target(L.slot_at(i) + kSlotDescField, s.desc) != L.desc_at(i) ||
      delta_target(L.slot_at(i) + kSlotPayloadField, s.payload) != L.payload_at(i) || s.wake_head != 0 ||
      s.wake_next != 0 || s.wake_count != 0 || s.reserved != 0 || s.fanin_cursor != static_cast<int32_t>(fanin.size()))
    return fail("slot", who + ": slot is not PENDING with its deltas, an open wake list and fanin_cursor = n_fanin");
  if (load<uint8_t>(m, L.flag_at(i)) != 0) return fail("flag", who + ": flag is not 0");
  return Verdict::pass();
}

// A new definition's bytes, read by the offsets of their header (as the device reads them);
// an offset outside the bytes is a failure, not a read.
Verdict compare_def(const ModelDef& d, std::span<const std::byte> b, uint32_t k) {
  const std::string who = fmt::format("definition {} (fn {})", k, d.fn_id);
  const auto outside = [&] { return fail("definition", who + ": an offset of its header lies outside its bytes"); };
  const auto hdr = load_at<GraphDefHeader>(b, 0);
  if (!hdr) return outside();
  const GraphDefHeader& h = *hdr;
  if (h.fn_id != d.fn_id || h.n_nodes != d.nodes.size() || h.n_boundary_tensors != d.n_bt ||
      h.n_boundary_scalars != d.n_bs || h.n_tensor_args != d.tensor_args() || h.n_scalar_args != d.scalar_args() ||
      h.n_internal != d.internal_bytes.size() || h.required_heap != d.required_heap())
    return fail("definition",
                fmt::format("{}: header fn {} nodes {} bt {} bs {} T {} K {} internal {} required_heap {}; model {} {} "
                            "{} {} {} {} {} {}",
                            who, h.fn_id, h.n_nodes, h.n_boundary_tensors, h.n_boundary_scalars, h.n_tensor_args,
                            h.n_scalar_args, h.n_internal, h.required_heap, d.fn_id, d.nodes.size(), d.n_bt, d.n_bs,
                            d.tensor_args(), d.scalar_args(), d.internal_bytes.size(), d.required_heap()));
  for (size_t i = 0; i < d.nodes.size(); ++i) {
    const ModelNodeDef& mn = d.nodes[i];
    const auto node = load_at<NodeDef>(b, h.nodes_off + i * sizeof(NodeDef));
    if (!node) return outside();
    const NodeDef& nd = *node;
    if (nd.kernel_id != mn.kernel_id || nd.n_tensors != mn.tensors.size() || nd.n_scalars != mn.scalars.size())
      return fail("definition", fmt::format("{} node {}: kernel {} with {} tensors and {} scalars, model {} {} {}", who,
                                            i, nd.kernel_id, nd.n_tensors, nd.n_scalars, mn.kernel_id,
                                            mn.tensors.size(), mn.scalars.size()));
    std::vector<uint16_t> fanin;
    for (uint32_t e = 0; e < nd.n_fanin; ++e) {
      const auto p = load_at<uint16_t>(b, h.fanin_off + 2 * (uint64_t{nd.fanin_begin} + e));
      if (!p) return outside();
      fanin.push_back(*p);
    }
    if (fanin != mn.fanin)
      return fail("node-fanin", fmt::format("{} node {}: fanin [{}], model [{}]", who, i, fmt::join(fanin, ", "),
                                            fmt::join(mn.fanin, ", ")));
    for (size_t t = 0; t < mn.tensors.size(); ++t) {
      const auto arg =
          load_at<GraphTensorArgDef>(b, h.tensor_args_off + (nd.tensor_begin + t) * sizeof(GraphTensorArgDef));
      if (!arg) return outside();
      const GraphTensorArgDef& a = *arg;
      const ModelTensorDef& w = mn.tensors[t];
      bool same = a.source == w.source && a.index == w.index && a.tag == w.tag && a.offset_bytes == w.offset_bytes &&
                  a.rank == w.shape.size();
      for (size_t j = 0; same && j < w.shape.size(); ++j) same = a.shape[j] == w.shape[j] && a.stride[j] == w.stride[j];
      if (!same)
        return fail("node-arg",
                    fmt::format("{} node {} tensor {}: source {} index {} tag {} offset {}; model {} {} {} {}", who, i,
                                t, a.source, a.index, a.tag, a.offset_bytes, w.source, w.index, w.tag, w.offset_bytes));
    }
    for (size_t t = 0; t < mn.scalars.size(); ++t) {
      const auto arg =
          load_at<GraphScalarArgDef>(b, h.scalar_args_off + (nd.scalar_begin + t) * sizeof(GraphScalarArgDef));
      if (!arg) return outside();
      if (arg->source != mn.scalars[t].first || arg->value != mn.scalars[t].second)
        return fail("node-scalar", fmt::format("{} node {} scalar {}: source {} value {}; model {} {}", who, i, t,
                                               arg->source, arg->value, mn.scalars[t].first, mn.scalars[t].second));
    }
  }
  return Verdict::pass();
}

}  // namespace

// What the orchestrator keeps between calls and ships nowhere: the open scopes, done(), the
// task log (one record per task appended to its scope, §8 step 6, in id order, kind and kernel
// as the model published them) and the mirror header, zero until finish (§9 step 1 zeroes it; finish writes it).
Verdict compare_state(const OrchestratorModel& m, const OrchestratorSut& s) {
  const Orchestrator& orch = s.orch();
  if (orch.scope_depth() != m.scope_depth())
    return fail("scopes", fmt::format("{} scope(s) open, model {}", orch.scope_depth(), m.scope_depth()));
  if (orch.done()) return fail("done", "done() is true before finish");
  const std::vector<runtime::TaskRecord>& log = orch.task_log();
  std::vector<const ModelTask*> logged;
  for (const ModelTask& t : m.tasks())
    if (t.logged) logged.push_back(&t);
  if (log.size() != logged.size())
    return fail("task-log", fmt::format("task log of {} records, model {}", log.size(), logged.size()));
  for (size_t i = 0; i < log.size(); ++i) {
    const ModelTask& t = *logged[i];
    if (log[i].id != t.id || log[i].kind != t.kind || log[i].kernel_id != t.kernel_id)
      return fail("task-log", fmt::format("task log record {}: id {} kind {} kernel {}; model {} {} {}", i, log[i].id,
                                          log[i].kind, log[i].kernel_id, t.id, t.kind, t.kernel_id));
  }
  const auto h = load<ImageHeader>(s.mirror(), 0);
  const ImageHeader zero{};
  if (std::memcmp(&h, &zero, sizeof h) != 0) return fail("header", "the mirror header is not zero before finish");
  return Verdict::pass();
}

// The header finish writes for a mirror of pitch W (§4): magic, version 1, W and pitch W,
// image_bytes and segment offsets of the mirror layout (oracles/spec_layout.h), no scheduler
// word, reserved 0.
Verdict check_finished_header(const ImageHeader& h, uint32_t W) {
  static constexpr unsigned char kMagic[8] = {'S', 'T', 'K', 'I', 'M', 'G', 0, 1};
  const spec::Layout L = spec::mirror_layout(W);
  if (std::memcmp(h.magic, kMagic, sizeof kMagic) != 0 || h.version != 1 || h.W != W || h.pitch != W ||
      h.image_bytes != L.total || h.sched_error != 0 || h.sched_error_thread != 0 || h.sched_error_bitmap != 0 ||
      h.reserved != 0)
    return fail("header", fmt::format("after finish: version {} W {} pitch {} image_bytes {} sched {} {} {} reserved "
                                      "{}; expected version 1, W = pitch = {}, image_bytes {}, the rest 0",
                                      h.version, h.W, h.pitch, h.image_bytes, h.sched_error, h.sched_error_thread,
                                      h.sched_error_bitmap, h.reserved, W, L.total));
  for (int k = 0; k < spec::kSegs; ++k)
    if (h.seg_off[k] != L.off[k])
      return fail("header", fmt::format("after finish: segment {} at {}, the mirror layout's {}", k, h.seg_off[k], L.off[k]));
  return Verdict::pass();
}

Verdict compare_step(const OrchestratorModel& m, const OrchestratorSut& s, std::optional<int32_t> returned) {
  const StepOutcome& o = m.last();
  const Orchestrator& orch = s.orch();
  if (returned && o.returns_task && *returned != o.returned)
    return fail("task-id", fmt::format("returned {}, model {}", *returned, o.returned));
  if (o.body_accepted >= 0 && s.body_accepted() != o.body_accepted)
    return fail("body-returns", fmt::format("{} of the graph body's submit / alloc_tensors calls handed back a node or "
                                            "task, model {} (the rest must get kNoTask)",
                                            s.body_accepted(), o.body_accepted));
  if (orch.error() != m.error())
    return fail("error-word",
                fmt::format("error word {} ({}), model {}", orch.error(), orch.error_detail(), m.error()));
  if (m.error() != 0 && !states_in_order(orch.error_detail(), m.latch_figures()))
    return fail("latch-detail", fmt::format("the detail '{}' does not state [{}] in that order", orch.error_detail(),
                                            fmt::join(m.latch_figures(), ", ")));
  if (m.error() != 0 && !m.latch_text().empty() && orch.error_detail() != m.latch_text())
    return fail("latch-detail", fmt::format("the detail '{}', model '{}'", orch.error_detail(), m.latch_text()));
  if (s.buffers().size() != m.buffers().size())
    return fail("buffers",
                fmt::format("{} tensors handed back in all, model {}", s.buffers().size(), m.buffers().size()));
  for (uint32_t b : o.new_buffers) {
    const TensorRef& t = s.buffers()[b];
    const ModelBuffer& mb = m.buffers()[b];
    Dims dims;
    for (uint32_t i = 0; i < t.rank(); ++i) dims.push_back(t.dim(i));
    if (t.is_null() || t.base().raw() != mb.base || t.buffer_bytes() != mb.bytes() || t.offset_bytes() != 0 ||
        dims != mb.dims || t.extent_bytes() != mb.bytes())
      return fail("heap-address",
                  fmt::format("tensor {} at {:#x} ({} B, extent {} B, {}), model {:#x} ({} B, {})", b, t.base().raw(),
                              t.buffer_bytes(), t.extent_bytes(), dims_text(dims), mb.base, mb.bytes(),
                              dims_text(mb.dims)));
  }
  const SegmentLayout& L = s.layout().seg;
  for (int32_t id : o.tasks)
    if (Verdict v = compare_task(m.tasks()[static_cast<size_t>(id)], s.mirror(), L); !v.passed()) return v;
  if (orch.task_heap().top() != m.heap_top() || orch.task_heap().high_water() != m.heap_high_water())
    return fail("task-heap", fmt::format("task heap top {} high-water {}, model {} {}", orch.task_heap().top(),
                                         orch.task_heap().high_water(), m.heap_top(), m.heap_high_water()));
  if (orch.graph_heap().high_water() != m.graph_heap_top())
    return fail("graph-heap",
                fmt::format("graph heap top {}, model {}", orch.graph_heap().high_water(), m.graph_heap_top()));
  if (orch.graph_cache().size() != m.defs().size())
    return fail("definition",
                fmt::format("{} definitions cached, model {}", orch.graph_cache().size(), m.defs().size()));
  if (o.new_def) {
    const uint32_t k = *o.new_def;
    if (Verdict v = compare_def(m.defs()[k], orch.graph_cache().at(k).bytes, k); !v.passed()) return v;
  }
  return compare_state(m, s);
}

Verdict compare_finish(OrchestratorModel& m, OrchestratorSut& s) {
  m.finish();
  s.orch().finish();
  const auto h = load<ImageHeader>(s.mirror(), 0);
  if (h.orch_error != m.error() || s.orch().error() != m.error())
    return fail("error-word", fmt::format("after finish: header orch_error {}, error() {}, model {}", h.orch_error,
                                          s.orch().error(), m.error()));
  if (h.n != m.submitted() || h.orch_done != 1 || h.tensor_count != m.tensor_cursor() ||
      h.scalar_count != m.scalar_cursor() || h.fanin_count != m.fanin_cursor())
    return fail("header",
                fmt::format("header n {} cursors {}/{}/{}, model {} {}/{}/{}", h.n, h.tensor_count, h.scalar_count,
                            h.fanin_count, m.submitted(), m.tensor_cursor(), m.scalar_cursor(), m.fanin_cursor()));
  if (Verdict v = check_finished_header(h, m.setup().config.W); !v.passed()) return v;
  if (!s.orch().done()) return fail("done", "done() is false after finish");
  const SegmentLayout& L = s.layout().seg;
  const std::vector<int32_t> last = m.last_consumers();
  for (const ModelTask& t : m.tasks()) {
    if (Verdict v = compare_task(t, s.mirror(), L); !v.passed()) return v;
    if (!t.published) continue;
    const auto slot = load<SlotState>(s.mirror(), L.slot_at(static_cast<uint64_t>(t.id)));
    if (slot.last_consumer != last[static_cast<size_t>(t.id)])
      return fail("last-consumer", fmt::format("task {}: last_consumer {}, model {}", t.id, slot.last_consumer,
                                               last[static_cast<size_t>(t.id)]));
  }
  return Verdict::pass();
}

}  // namespace stackcheck::oracles::orch
