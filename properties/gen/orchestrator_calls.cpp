// Orchestrator API calls over a ChoiceSource (orchestrator_calls.h).
#include "properties/gen/orchestrator_calls.h"

#include <algorithm>

namespace stackcheck::gen {
namespace {

using namespace oracles::orch;
namespace rt = stackcheck::runtime;

constexpr uint32_t kMaxScopesForCalls = 64;  // open scopes, the root included (RUNTIME.md §8)
constexpr size_t kGraphCacheCapacity = 16;   // definitions per Runtime (§9)

int64_t elements(const Dims& d) {
  int64_t n = 1;
  for (int64_t x : d) n *= x;
  return n;
}

Window whole(const Dims& d) { return Window{Dims(d.size(), 0), d}; }

bool holds(const Dims& dims, const Dims& size) {
  if (dims.size() != size.size()) return false;
  for (size_t i = 0; i < dims.size(); ++i)
    if (dims[i] < size[i]) return false;
  return true;
}

Dims small_dims(ChoiceSource& c, bool two_d) {
  if (two_d) return {c.integer(1, 4), c.integer(1, 6)};
  return {c.integer(1, 16)};
}

Dims sub_size(ChoiceSource& c, const Dims& d) {
  Dims s;
  for (int64_t x : d) s.push_back(c.integer(1, x));
  return s;
}

// A window of `size` inside `dims`: anywhere, or against `near` (a recent window of the same
// buffer): exactly on it, partly over it, on its last element, or just past it.
Window place(ChoiceSource& c, const Dims& dims, const Dims& size, const Window* near) {
  Window w{Dims(dims.size(), 0), size};
  const size_t mode = near ? c.one_of(5) : 0;
  for (size_t i = 0; i < dims.size(); ++i) {
    const int64_t hi = dims[i] - size[i];
    int64_t o = 0;
    switch (mode) {
      case 0: o = c.integer(0, hi); break;
      case 1: o = near->off[i]; break;
      case 2: o = near->off[i] + (c.boolean() ? 1 : -1) * c.integer(1, std::max<int64_t>(1, size[i] - 1)); break;
      case 3: o = near->off[i] + near->size[i] - 1; break;
      default: o = near->off[i] + near->size[i]; break;
    }
    w.off[i] = std::clamp<int64_t>(o, 0, hi);
  }
  return w;
}

// A window of `size` in some buffer holding it, near a recent access when one fits.
std::optional<TensorOperand> window_operand(ChoiceSource& c, const OrchestratorModel& m, uint32_t tag,
                                            const Dims& size) {
  std::vector<const OrchestratorModel::Access*> near;
  for (const auto& a : m.recent())
    if (holds(m.buffers()[a.buffer].dims, size)) near.push_back(&a);
  std::vector<uint32_t> fit;
  for (uint32_t b = 0; b < m.buffers().size(); ++b)
    if (holds(m.buffers()[b].dims, size)) fit.push_back(b);
  if (fit.empty()) return std::nullopt;
  TensorOperand t;
  t.tag = tag;
  const Window* around = nullptr;
  if (!near.empty() && c.chance(70)) {
    const auto* a = near[near.size() - 1 - c.one_of(near.size())];
    t.buffer = a->buffer;
    around = &a->win;
  } else {
    t.buffer = c.pick(fit);
  }
  const Dims& dims = m.buffers()[t.buffer].dims;
  const Window w = place(c, dims, size, around && around->size.size() == dims.size() ? around : nullptr);
  if (!(w == whole(dims) && c.boolean())) t.win = w;
  return t;
}

ArgItem tensor_item(TensorOperand t) { return ArgItem{false, std::move(t), 0}; }
ArgItem scalar_item(uint64_t v) { return ArgItem{true, {}, v}; }
ArgItem output_item(const Dims& d) {
  TensorOperand t;
  t.tag = rt::kTagOutput;
  t.out_dims = d;
  return tensor_item(t);
}

uint64_t scalar_value(ChoiceSource& c) {
  return c.chance(20) ? static_cast<uint64_t>(c.integer(INT64_MIN, INT64_MAX))
                      : static_cast<uint64_t>(c.integer(0, 99));
}

// Tags a parameter direction accepts (§12), choice 0 first.
uint32_t in_tag(ChoiceSource& c) { return c.chance(10) ? rt::kTagNoDep : rt::kTagInput; }
uint32_t inout_tag(ChoiceSource& c) { return c.chance(10) ? rt::kTagNoDep : rt::kTagInout; }

// A builtin submit over existing windows; fill with a runtime-allocated output when nothing
// else fits.
Submit generate_submit(ChoiceSource& c, const OrchestratorModel& m) {
  static const std::vector<int32_t> kernels = {0, 1, 2, 3, 4, 1, 2, 3, 4, 5, 6};
  const int32_t k = c.pick(kernels);
  Submit s{k, {}};
  const auto& bufs = m.buffers();
  if (k == 5 || k == 6) {
    const int64_t M = c.integer(1, 3), K = c.integer(1, 3), N = c.integer(1, 3);
    const Dims a = k == 5 ? Dims{M, K} : Dims{M, N}, b = {K, N}, o = k == 5 ? Dims{M, N} : Dims{M, 1};
    auto x = window_operand(c, m, in_tag(c), a);
    auto y = k == 5 ? window_operand(c, m, in_tag(c), b) : std::optional<TensorOperand>(TensorOperand{});
    if (x && y) {
      s.items.push_back(tensor_item(*x));
      if (k == 5) s.items.push_back(tensor_item(*y));
      std::optional<TensorOperand> out;
      if (!c.chance(30)) out = window_operand(c, m, c.chance(10) ? rt::kTagNoDep : rt::kTagOutputExisting, o);
      s.items.push_back(out ? tensor_item(*out) : output_item(o));
      return s;
    }
    s.kernel = 0;
  }
  // Equal shapes: the size of a recent access or of part of some buffer.
  Dims size;
  if (!m.recent().empty() && c.chance(60))
    size = m.recent()[m.recent().size() - 1 - c.one_of(m.recent().size())].win.size;
  else
    size = sub_size(c, bufs[c.one_of(bufs.size())].dims);
  static const std::vector<std::vector<char>> dirs = {{'O'}, {'I', 'O'}, {'I', 'I', 'O'}, {'I', 'X'}, {'I', 'O'}};
  for (char d : dirs[static_cast<size_t>(s.kernel)]) {
    if (d == 'O' && c.chance(30)) {
      s.items.push_back(output_item(size));
      continue;
    }
    const uint32_t tag = d == 'I'       ? in_tag(c)
                         : d == 'X'     ? inout_tag(c)
                         : c.chance(10) ? rt::kTagNoDep
                                        : rt::kTagOutputExisting;
    auto t = window_operand(c, m, tag, size);  // some buffer holds `size`: it came from one
    s.items.push_back(t ? tensor_item(*t) : output_item(size));
  }
  if (s.kernel == 0 || s.kernel == 4) s.items.push_back(scalar_item(scalar_value(c)));
  return s;
}

bool body_latches(const GraphFnSpec& fn) {
  if (fn.nodes.empty()) return true;
  for (const BodyNode& n : fn.nodes)
    if (n.kind != BodyNode::Kind::kSubmit && n.kind != BodyNode::Kind::kAlloc) return true;
  return false;
}

// submit_graph of fn: a window of each boundary shape (sometimes over an earlier boundary's
// buffer: alias classes), allocating a buffer first when none holds the shape.
// `pending`: buffers that calls drawn before these (in the same command) will have created.
std::vector<Call> generate_graph(ChoiceSource& c, const OrchestratorModel& m, uint32_t fi, bool flip_tag,
                                 uint32_t pending = 0) {
  const GraphFnSpec& fn = m.setup().graphs[fi];
  std::vector<Call> calls;
  SubmitGraph g{fi, {}};
  uint32_t allocated = pending;
  for (size_t i = 0; i < fn.params.size(); ++i) {
    const Dims& p = fn.params[i];
    uint32_t tag = fn.tags[i];
    if (flip_tag && tag == rt::kTagInout) tag = rt::kTagInput, flip_tag = false;
    std::optional<TensorOperand> t;
    if (i > 0 && c.chance(25)) {  // over an earlier boundary tensor's buffer
      const TensorOperand& e = g.items[c.one_of(i)].tensor;
      const Dims& dims = e.buffer < m.buffers().size() ? m.buffers()[e.buffer].dims : Dims{};
      if (holds(dims, p)) {
        const Window ew = e.win ? *e.win : whole(dims);
        const Window w = place(c, dims, p, ew.size.size() == dims.size() ? &ew : nullptr);
        t = TensorOperand{tag, e.buffer, w, {}};
      }
    }
    if (!t) t = window_operand(c, m, tag, p);
    if (!t) {
      Dims d = p;
      if (c.boolean()) d.back() += c.integer(1, 4);  // another row stride for 2-D shapes
      calls.push_back(AllocTensors{{d}});
      t = TensorOperand{tag, static_cast<uint32_t>(m.buffers().size() + allocated++), Window{Dims(d.size(), 0), p}, {}};
    }
    g.items.push_back(tensor_item(*t));
  }
  for (uint32_t k = 0; k < fn.n_scalars; ++k) g.items.push_back(scalar_item(scalar_value(c)));
  calls.push_back(std::move(g));
  return calls;
}

std::vector<uint32_t> graph_choices(const ModelSetup& s, bool bad) {
  std::vector<uint32_t> v;
  for (uint32_t i = 0; i < s.graphs.size(); ++i)
    if (body_latches(s.graphs[i]) == bad) v.push_back(i);
  return v;
}

Read generate_read(ChoiceSource& c, const OrchestratorModel& m, bool out_of_range) {
  Read r;
  for (uint32_t e = 0; e < m.setup().entries.size(); ++e)
    if (!m.setup().entries[e].inout) r.entry = e;  // entry 0 is In
  const Dims& d = m.setup().entries[r.entry].dims;
  for (int64_t x : d) r.index.push_back(c.integer(0, x - 1));
  if (out_of_range) {
    const size_t i = c.one_of(d.size());
    r.index[i] = c.boolean() ? d[i] : -1;
  }
  const uint32_t b = static_cast<uint32_t>(c.one_of(m.buffers().size()));
  r.target = *window_operand(c, m, rt::kTagOutputExisting, sub_size(c, m.buffers()[b].dims));
  return r;
}

// k single-element fills of one buffer, then a copy reading all of it: k producers.
std::vector<Call> generate_fan(ChoiceSource& c, const OrchestratorModel& m) {
  uint32_t b = 0;
  for (uint32_t i = 0; i < m.buffers().size(); ++i)
    if (elements(m.buffers()[i].dims) > elements(m.buffers()[b].dims)) b = i;
  const Dims& d = m.buffers()[b].dims;
  const int64_t n = elements(d);
  if (n < 2) return {};
  const int64_t k =
      n > 129 && c.chance(50) ? c.integer(129, std::min<int64_t>(n, 140)) : c.integer(2, std::min<int64_t>(n, 24));
  std::vector<Call> calls;
  for (int64_t e = 0; e < k; ++e) {
    Window w{Dims(d.size(), 0), Dims(d.size(), 1)};
    int64_t rest = e;
    for (size_t i = d.size(); i-- > 0;) w.off[i] = rest % d[i], rest /= d[i];
    calls.push_back(Submit{
        0, {tensor_item(TensorOperand{rt::kTagOutputExisting, b, w, {}}), scalar_item(static_cast<uint64_t>(e))}});
  }
  calls.push_back(Submit{1, {tensor_item(TensorOperand{rt::kTagInput, b, std::nullopt, {}}), output_item(d)}});
  return calls;
}

// long: one switch over the provocation kinds, a few lines of draws each; a generator, kept whole so its choice
// order stays byte-identical
std::vector<Call> provoke_kind(ChoiceSource& c, const OrchestratorModel& m, size_t kind) {
  const auto& bufs = m.buffers();
  const uint32_t b = static_cast<uint32_t>(c.one_of(bufs.size()));
  const Dims& d = bufs[b].dims;
  auto whole_of = [&](uint32_t tag) { return tensor_item(TensorOperand{tag, b, std::nullopt, {}}); };
  switch (kind) {
    case 14: {  // a null tensor handle or another orchestrator's, in a kernel's arguments or at a graph's boundary
      const uint32_t bad = c.boolean() ? oracles::orch::kForeignBuffer : oracles::orch::kNullBuffer;
      const auto good = graph_choices(m.setup(), false);
      if (!good.empty() && c.boolean()) {
        auto calls = generate_graph(c, m, c.pick(good), false);
        SubmitGraph& g = std::get<SubmitGraph>(calls.back());
        for (ArgItem& it : g.items)
          if (!it.is_scalar) {
            it.tensor.buffer = bad;
            it.tensor.win.reset();
            break;
          }
        return calls;
      }
      return {Submit{
          1,
          {tensor_item(TensorOperand{rt::kTagInput, bad, std::nullopt, {}}), output_item(d)}}};
    }
    case 15: {  // an output's or an alloc_tensors buffer's shape at each limit of RUNTIME.md §3's TensorArg
      // (rank 1..4; extents and row-major strides i32; at most 2^40 elements): on the limit (a
      // shape, and so a buffer the heap then cannot hold: latch 3) or one past it (latch 5).
      constexpr int64_t kI32 = 2147483647, k20 = int64_t{1} << 20;
      static const std::vector<Dims> kAtLimits = {
          {},                       // rank 0
          {1, 1, 1, 1, 1},          // rank 5
          {0},       {4, -1},       // an extent below 1
          {kI32},    {kI32 + 1},    // an extent at and past i32
          {2, kI32}, {2, 2, k20 * 1024},  // a row-major stride at i32 (2^31 - 1), one past (2^31)
          {k20, k20}, {k20, k20, 2},      // 2^40 elements, 2^41
          {1024, 1024, 1024, 1024},       // 2^40 at rank 4
      };
      const Dims bad = c.pick(kAtLimits);
      if (c.boolean()) return {AllocTensors{{Dims{4}, bad}}};
      return {Submit{1, {whole_of(rt::kTagInput), output_item(bad)}}};
    }
    case 0: return {Fatal{}};
    case 1: return {WaitTensor{b}};
    case 2: return {SyncStart{m.setup().config.clusters + 1 + static_cast<uint64_t>(c.integer(0, 3))}};
    case 3:
      return std::vector<Call>(kMaxScopesForCalls + 1 - std::min<uint32_t>(m.scope_depth(), kMaxScopesForCalls),
                               ScopeBegin{});
    case 4: return std::vector<Call>(m.scope_depth() + 1, ScopeEnd{});
    case 5: {  // a window outside its buffer
      Window w = whole(d);
      const size_t i = c.one_of(d.size());
      if (c.boolean())
        w.off[i] = c.integer(1, 3);
      else
        w.size[i] = d[i] + c.integer(1, 3);
      return {Submit{1, {tensor_item(TensorOperand{rt::kTagInput, b, w, {}}), output_item(d)}}};
    }
    case 6: return {Submit{0, {scalar_item(1), whole_of(rt::kTagOutputExisting)}}};  // a tensor after a scalar
    case 7: return {Submit{2, std::vector<ArgItem>(33, whole_of(rt::kTagInput))}};
    case 8: {
      Submit s{0, {whole_of(rt::kTagOutputExisting)}};
      for (int k = 0; k < 17; ++k) s.items.push_back(scalar_item(static_cast<uint64_t>(k)));
      return {s};
    }
    case 9: return {Submit{0, {whole_of(rt::kTagInput), scalar_item(1)}}};  // In tag for an Out param
    case 10: return {AllocTensors{std::vector<Dims>(c.boolean() ? 0 : 17, Dims{4})}};
    case 11: return {generate_read(c, m, true)};
    case 12: {  // a boundary tag GraphArgs refuses, or a boundary tensor after a scalar
      const auto good = graph_choices(m.setup(), false);
      if (good.empty()) return {Fatal{}};
      auto calls = generate_graph(c, m, c.pick(good), false);
      SubmitGraph& g = std::get<SubmitGraph>(calls.back());
      if (c.boolean())
        g.items.front().tensor.tag =
            c.pick(std::vector<uint32_t>{rt::kTagOutputExisting, rt::kTagNoDep, rt::kTagOutput});
      else
        g.items.insert(g.items.begin(), scalar_item(7));
      return calls;
    }
    case 16: {  // a kernel submission its builtin's signature refuses (RUNTIME.md §12): latch 5
      // matmul and rowsum take a rank-2 buffer where there is one, so that only the output's
      // extent is wrong (every other condition of their shape rule holds).
      uint32_t b2 = b;
      for (uint32_t i = 0; i < bufs.size(); ++i)
        if (bufs[i].dims.size() == 2) b2 = i;
      const Dims& m2 = bufs[b2].dims;
      auto whole2 = [&] { return tensor_item(TensorOperand{rt::kTagInput, b2, std::nullopt, {}}); };
      switch (c.one_of(5)) {
        case 0:  // a kernel id no submit may name
          return {Submit{static_cast<int32_t>(c.pick(std::vector<int64_t>{-1, 7, 8, 1000})),
                         {whole_of(rt::kTagInput), output_item(d)}}};
        case 1:  // one tensor fewer, one more, or a scalar too many
          switch (c.one_of(3)) {
            case 0: return {Submit{2, {whole_of(rt::kTagInput), output_item(d)}}};
            case 1: return {Submit{1, {whole_of(rt::kTagInput), whole_of(rt::kTagInput), output_item(d)}}};
            default: return {Submit{1, {whole_of(rt::kTagInput), output_item(d), scalar_item(3)}}};
          }
        case 2:  // matmul x x -> [M, N + 1]: the output one column wider than [M,K] x [K,N] gives
          return {Submit{5, {whole2(), whole2(), output_item(Dims{m2.front(), m2.back() + 1})}}};
        case 3:  // rowsum x -> [M, 2], not [M, 1]
          return {Submit{6, {whole2(), output_item(Dims{m2.front(), 2})}}};
        default:  // an argument whose tag its parameter's direction does not take
          switch (c.one_of(4)) {
            case 0: return {Submit{3, {whole_of(rt::kTagInput), whole_of(rt::kTagInput)}}};  // acc's InOut
            case 1: return {Submit{1, {whole_of(rt::kTagOutputExisting), output_item(d)}}};
            case 2: return {Submit{1, {whole_of(rt::kTagInout), output_item(d)}}};
            default: return {Submit{1, {output_item(d), output_item(d)}}};
          }
      }
    }
    default: {  // a body that latches, or an `input` boundary the body writes
      const auto bad = graph_choices(m.setup(), true);
      if (!bad.empty() && c.boolean()) return generate_graph(c, m, c.pick(bad), false);
      const auto good = graph_choices(m.setup(), false);
      if (good.empty()) return {Fatal{}};
      return generate_graph(c, m, c.pick(good), true);
    }
  }
}

// ---- setup ----

BodyScalar body_scalar(ChoiceSource& c, uint32_t n_scalars) {
  BodyScalar s;
  s.literal = static_cast<uint64_t>(c.integer(0, 99));
  if (n_scalars > 0) {
    const size_t k = c.one_of(3);
    s.kind = k == 0 ? BodyScalar::Kind::kLiteral : k == 1 ? BodyScalar::Kind::kSlot : BodyScalar::Kind::kFrozen;
    s.slot = static_cast<uint32_t>(c.integer(0, n_scalars - 1));
  }
  return s;
}

// A last alloc node whose one buffer brings the definition's need (required_heap + args +
// storage, RUNTIME.md §10) to the largest multiple of 64 within INT32_MAX, or one line past it.
BodyNode alloc_at_the_graph_limit(ChoiceSource& c, const GraphFnSpec& fn) {
  const uint64_t need = graph_body_need(fn) + 64 + 128;  // the new node's tensor and storage entry
  const uint64_t limit = static_cast<uint64_t>(INT32_MAX);
  const uint64_t bytes = (limit - need) / 64 * 64 + (c.boolean() ? 64 : 0);
  BodyNode node;
  node.kind = BodyNode::Kind::kAlloc;
  node.alloc.push_back(Dims{static_cast<int64_t>(bytes / 4)});
  return node;
}

// `pools`: the mirror pools are the tight resource (W of 4 or 8), so a graph takes boundary
// counts that fill them to the entry or one line past: scalars in lines of 8 against 16W,
// tensors against 32W (RUNTIME.md §8 step 2; a graph's own limits are 64 and 128).
GraphFnSpec generate_fn(ChoiceSource& c, bool pools = false) {
  GraphFnSpec fn;
  const int64_t n_params = pools && c.chance(30) ? c.pick(std::vector<int64_t>{32, 64, 128, 31}) : c.integer(1, 3);
  for (int64_t i = 0; i < n_params; ++i) {
    fn.params.push_back(c.chance(25) ? Dims{c.integer(1, 3), c.integer(1, 4)} : Dims{c.integer(1, 6)});
    fn.tags.push_back(c.chance(60) ? rt::kTagInout : rt::kTagInput);
  }
  fn.n_scalars = static_cast<uint32_t>(pools ? c.pick(std::vector<int64_t>{16, 64, 8, 32, 9, 57}) : c.integer(0, 2));
  struct Tensor {
    BodyTensor::Source source;
    uint32_t index;
    Dims dims;
    bool writable;
  };
  std::vector<Tensor> ts;
  for (uint32_t i = 0; i < fn.params.size(); ++i)
    ts.push_back({BodyTensor::Source::kBoundary, i, fn.params[i], fn.tags[i] == rt::kTagInout});
  uint32_t internals = 0;
  const int64_t n_nodes = c.integer(1, 4);
  for (int64_t k = 0; k < n_nodes; ++k) {
    BodyNode node;
    if (c.chance(20)) {
      node.kind = BodyNode::Kind::kAlloc;
      const int64_t n = c.integer(1, 2);
      for (int64_t j = 0; j < n; ++j) {
        node.alloc.push_back(small_dims(c, c.chance(30)));
        ts.push_back({BodyTensor::Source::kInternal, internals++, node.alloc.back(), true});
      }
      fn.nodes.push_back(std::move(node));
      continue;
    }
    const Tensor& anchor = c.pick(ts);
    const Dims size = sub_size(c, anchor.dims);
    auto fits = [&](bool writable) {
      std::vector<size_t> v;
      for (size_t i = 0; i < ts.size(); ++i)
        if (holds(ts[i].dims, size) && (!writable || ts[i].writable)) v.push_back(i);
      return v;
    };
    node.kernel = c.pick(std::vector<int32_t>{1, 0, 2, 3, 4});
    if (node.kernel == 3 && fits(true).empty()) node.kernel = 4;  // acc needs a writable window
    static const std::vector<std::vector<char>> dirs = {{'O'}, {'I', 'O'}, {'I', 'I', 'O'}, {'I', 'X'}, {'I', 'O'}};
    std::vector<BodyTensor> made;
    for (char d : dirs[static_cast<size_t>(node.kernel)]) {
      BodyTensor bt;
      const auto cand = fits(d != 'I');
      if (d == 'O' && (cand.empty() || c.chance(30))) {
        bt.source = BodyTensor::Source::kOutput;
        bt.tag = rt::kTagOutput;
        bt.out_dims = size;
        made.push_back(bt);
        node.tensors.push_back(bt);
        continue;
      }
      const Tensor& t = ts[c.pick(cand)];
      bt.source = t.source;
      bt.index = t.index;
      bt.tag = d == 'I' ? in_tag(c) : d == 'X' ? inout_tag(c) : c.chance(10) ? rt::kTagNoDep : rt::kTagOutputExisting;
      bt.win = place(c, t.dims, size, nullptr);
      node.tensors.push_back(bt);
    }
    if (node.kernel == 0 || node.kernel == 4) node.scalars.push_back(body_scalar(c, fn.n_scalars));
    for (const BodyTensor& o : made) ts.push_back({BodyTensor::Source::kInternal, internals++, o.out_dims, true});
    fn.nodes.push_back(std::move(node));
  }
  if (c.chance(4)) fn.nodes.push_back(alloc_at_the_graph_limit(c, fn));
  return fn;
}

}  // namespace

uint64_t graph_body_need(const GraphFnSpec& fn) {
  const auto internal = [](const Dims& d) {
    uint64_t n = 4;
    for (int64_t x : d) n *= static_cast<uint64_t>(x);
    return std::max<uint64_t>(64, (n + 63) / 64 * 64);
  };
  uint64_t need = 8 + 128 * fn.nodes.size();  // the storage: 32 + 128 (n - 1) + 104
  for (const BodyNode& node : fn.nodes) {
    for (const Dims& d : node.alloc) need += internal(d) + 64;
    for (const BodyTensor& t : node.tensors)
      need += 64 + (t.source == BodyTensor::Source::kOutput ? internal(t.out_dims) : 0);
    need += 8 * node.scalars.size();
  }
  return need;
}

const char* call_kind_name(CallKind k) {
  switch (k) {
    case CallKind::kScopeBegin: return "scope_begin";
    case CallKind::kScopeEnd: return "scope_end";
    case CallKind::kAlloc: return "alloc_tensors";
    case CallKind::kSubmit: return "submit";
    case CallKind::kSubmitGraph: return "submit_graph";
    case CallKind::kRead: return "read";
    case CallKind::kFan: return "fan";
    case CallKind::kGraphSweep: return "graph_sweep";
    case CallKind::kSyncStart: return "sync_start";
    case CallKind::kProvoke: return "provoke";
  }
  return "?";
}

// A body node's new output of `dims`, and a fill node writing a new output of 1-4 elements
// (its scalar left to the caller).
BodyTensor output_of(Dims dims) {
  BodyTensor t;
  t.source = BodyTensor::Source::kOutput;
  t.tag = rt::kTagOutput;
  t.out_dims = std::move(dims);
  return t;
}
BodyNode fill_of_output(ChoiceSource& c) {
  BodyNode node;
  node.kind = BodyNode::Kind::kSubmit;
  node.kernel = 0;
  node.tensors = {output_of(Dims{c.integer(1, 4)})};
  return node;
}

// long: the config's draws, then one switch over the eleven ways a provoking graph body breaks a rule; a
// generator, kept whole so its choice order stays byte-identical
ModelSetup generate_model_setup(ChoiceSource& c, bool provoking) {
  ModelSetup s;
  ModelConfig& k = s.config;
  // At most one resource is tight in most cases, so each resource latch has its own cases
  // and the rest of a sequence runs long enough to build edges, scopes and graph keys.
  enum Tight : size_t { kNone, kWindow, kTaskHeap, kGraphHeap, kTensormap, kScopeTasks, kPools, kAll, kTightCount };
  const size_t pick_tight = c.one_of(kTightCount + 2);  // kNone three times as often
  const size_t tight = pick_tight >= kTightCount ? kNone : pick_tight;
  auto is = [&](Tight t) { return tight == t || tight == kAll; };
  k.W = static_cast<uint32_t>(is(kPools)    ? c.pick(std::vector<uint64_t>{4, 8})
                              : is(kWindow) ? c.pick(std::vector<uint64_t>{16, 8})
                                            : c.pick(std::vector<uint64_t>{64, 256, 32}));
  k.task_heap = is(kTaskHeap) ? c.pick(std::vector<uint64_t>{16384, 8192, 4096, 2048}) : 1 << 20;
  k.graph_heap = is(kGraphHeap) ? c.pick(std::vector<uint64_t>{4096, 2048, 1024}) : 1 << 20;
  k.tensormap_capacity = is(kTensormap) ? c.pick(std::vector<uint64_t>{48, 24, 12}) : 65536;
  k.scope_tasks_capacity = is(kScopeTasks) ? c.pick(std::vector<uint64_t>{16, 8, 4}) : 0;
  k.clusters = c.pick(std::vector<uint64_t>{24, 4, 1});
  auto entry = [&](bool inout, Dims dims) {
    EntrySpec e{std::move(dims), inout, {}};
    for (int64_t i = 0; i < elements(e.dims); ++i)
      e.host.push_back(static_cast<int32_t>(c.integer(INT32_MIN, INT32_MAX)));
    s.entries.push_back(std::move(e));
  };
  entry(false, c.chance(30) ? Dims{c.integer(2, 4), c.integer(2, 6)} : Dims{c.integer(4, 16)});
  entry(true, c.chance(30) ? Dims{c.integer(2, 4), c.integer(2, 6)} : Dims{c.integer(4, 16)});
  if (c.chance(40)) entry(true, {c.chance(50) ? 160 : c.integer(16, 64)});
  const int64_t n_fns = c.chance(12) ? c.integer(17, 20) : c.integer(1, 3);  // > 16: the cache fills
  for (int64_t i = 0; i < n_fns; ++i) s.graphs.push_back(generate_fn(c, is(kPools) && tight != kAll));
  // A provoking setup holds three graphs whose bodies break a rule (each of the eleven ways
  // drawn on its own), so a case's provoking submit_graph meets the rarer ways often.
  for (int b = 0; provoking && b < 3; ++b) {
    GraphFnSpec bad = generate_fn(c);
    const auto at = bad.nodes.begin() + static_cast<std::ptrdiff_t>(c.one_of(bad.nodes.size() + 1));
    BodyNode node;
    bool insert = true;
    switch (c.one_of(11)) {
      case 0: bad.nodes.clear(), insert = false; break;
      case 8: {  // a copy from an entry buffer captured from outside the body (legal only inline)
        const uint32_t e = static_cast<uint32_t>(c.one_of(2));  // entries 0 and 1 exist in every setup
        node.kind = BodyNode::Kind::kSubmit;
        node.kernel = 1;
        BodyTensor src;
        src.source = BodyTensor::Source::kOuter;
        src.index = e;
        const Dims& d = s.entries[e].dims;
        const Dims size = sub_size(c, d);
        src.win = place(c, d, size, nullptr);
        node.tensors = {src, output_of(size)};
        break;
      }
      case 9:     // a fill whose scalar is a ScalarSlot made by hand: $k at, past or inside the boundary's count
      case 10: {  // or one of no recording (another recording's)
        node = fill_of_output(c);
        BodyScalar sc;
        sc.kind = c.boolean() ? BodyScalar::Kind::kHandSlot : BodyScalar::Kind::kForeignSlot;
        sc.literal = static_cast<uint64_t>(c.integer(0, 99));
        sc.slot = static_cast<uint32_t>(c.near_edges(0, bad.n_scalars + 1));
        node.scalars = {sc};
        break;
      }
      case 6: {  // a copy from boundary tensor n of a graph of n boundary tensors (one past the last)
        node.kind = BodyNode::Kind::kSubmit;
        node.kernel = 1;
        BodyTensor src;
        src.source = BodyTensor::Source::kBoundary;
        src.index = static_cast<uint32_t>(bad.params.size());
        src.win = Window{Dims{0}, Dims{1}};
        node.tensors = {src, output_of(Dims{1})};
        break;
      }
      case 7: {  // a fill whose scalar is slot $n of a graph of n boundary scalars (one past the last)
        node = fill_of_output(c);
        node.scalars = {BodyScalar{BodyScalar::Kind::kSlot, bad.n_scalars, 0}};
        break;
      }
      case 1: node.kind = c.boolean() ? BodyNode::Kind::kScopeBegin : BodyNode::Kind::kScopeEnd; break;
      case 2: node.kind = BodyNode::Kind::kNestedGraph; break;
      case 3: node.kind = BodyNode::Kind::kWaitTensor; break;
      case 4:  // a kernel node its builtin's signature refuses: a kernel id no node may name, or fill without its tensor
        node.kind = BodyNode::Kind::kSubmit;
        if (c.boolean()) {
          node.kernel = 0;
          node.scalars.push_back(BodyScalar{});
        } else {
          node.kernel = static_cast<int32_t>(c.pick(std::vector<int64_t>{-1, 7, 9}));
        }
        break;
      default:  // an alloc node of no shape, of one more shape than the limit, or of a zero extent
        node.kind = BodyNode::Kind::kAlloc;
        switch (c.one_of(4)) {
          case 0: break;
          case 1: node.alloc.assign(17, Dims{4}); break;  // one past the 16 of one alloc
          default: {  // 1-3 shapes, one of them (any) of a zero extent
            const size_t n = static_cast<size_t>(c.integer(1, 3));
            for (size_t k = 0; k < n; ++k) node.alloc.push_back(Dims{c.integer(1, 4)});
            node.alloc[c.one_of(n)] = Dims{c.integer(1, 4), 0};
            break;
          }
        }
        break;
    }
    if (insert) bad.nodes.insert(at, node);
    s.graphs.push_back(std::move(bad));
  }
  return s;
}

std::vector<Call> generate_calls(ChoiceSource& c, const OrchestratorModel& m, CallKind k, bool provoking) {
  switch (k) {
    case CallKind::kScopeBegin:
      if (m.scope_depth() >= kMaxScopesForCalls) return {};
      return {ScopeBegin{}};
    case CallKind::kScopeEnd:
      if (m.scope_depth() > 1 || (m.scope_depth() == 1 && c.chance(10))) return {ScopeEnd{}};
      return {};
    case CallKind::kAlloc: {
      AllocTensors a;
      const int64_t n = c.chance(10) ? c.integer(1, 16) : c.integer(1, 3);
      for (int64_t i = 0; i < n; ++i)
        a.shapes.push_back(c.chance(30) ? Dims{c.integer(1, 4), c.integer(1, 8)} : Dims{c.integer(1, 24)});
      return {a};
    }
    case CallKind::kSubmit: return {generate_submit(c, m)};
    case CallKind::kSubmitGraph: {
      const auto good = graph_choices(m.setup(), false);
      if (good.empty()) return {};
      if (good.size() > kGraphCacheCapacity && m.defs().size() < kGraphCacheCapacity && c.chance(40))
        return generate_calls(c, m, CallKind::kGraphSweep, provoking);
      return generate_graph(c, m, c.pick(good), false);
    }
    case CallKind::kRead: return {generate_read(c, m, false)};
    case CallKind::kFan:
      if (m.latched()) return {};  // bursts of no-ops test nothing more than one does
      return generate_fan(c, m);
    case CallKind::kGraphSweep: {
      if (m.latched()) return {};
      const auto good = graph_choices(m.setup(), false);
      if (good.size() <= kGraphCacheCapacity) return {};
      std::vector<Call> calls;
      uint32_t pending = 0;
      for (uint32_t fi : good) {
        auto g = generate_graph(c, m, fi, false, pending);
        pending += static_cast<uint32_t>(g.size() - 1);  // one buffer per alloc drawn first
        calls.insert(calls.end(), g.begin(), g.end());
      }
      return calls;
    }
    case CallKind::kSyncStart:
      return {SyncStart{static_cast<uint64_t>(c.integer(0, static_cast<int64_t>(m.setup().config.clusters)))}};
    case CallKind::kProvoke:
      if (!provoking) return {};
      return provoke_kind(c, m, c.one_of(kProvokeKinds));
  }
  return {};
}

bool calls_fit(const std::vector<Call>& calls, const OrchestratorModel& m0) {
  OrchestratorModel m = m0;
  for (const Call& call : calls) {
    const size_t nb = m.buffers().size();
    auto named = [&](const TensorOperand& t) {
      return t.tag == rt::kTagOutput || t.buffer < nb || oracles::orch::refused_handle(t.buffer);
    };
    bool ok = true;
    if (const auto* s = std::get_if<Submit>(&call))
      for (const ArgItem& it : s->items) ok = ok && (it.is_scalar || named(it.tensor));
    if (const auto* g = std::get_if<SubmitGraph>(&call)) {
      ok = g->fn < m.setup().graphs.size();
      for (const ArgItem& it : g->items) ok = ok && (it.is_scalar || named(it.tensor));
    }
    if (const auto* r = std::get_if<Read>(&call))
      ok = r->entry < m.setup().entries.size() && !m.setup().entries[r->entry].inout && named(r->target);
    if (const auto* w = std::get_if<WaitTensor>(&call)) ok = w->buffer < nb;
    if (!ok) return false;
    m.apply(call);
  }
  return true;
}

std::vector<Call> generate_provoke(ChoiceSource& c, const OrchestratorModel& m, size_t kind) {
  return provoke_kind(c, m, kind);
}

}  // namespace stackcheck::gen
