// decode_task_graph (deps.h): the task DAG from the shipped bytes and the graph definitions,
// read with the record layouts of stack/runtime/image/ and nothing of the host. Every read is
// bounds-checked; a problem travels as DecodeError inside this file and becomes
// DecodeResult::error. The device's own view is followed where it has one: slot deltas lead
// to the descriptor and payload, graph_ctx to the submission record, the definition's fanout
// CSR (with its fanin counts) releases nodes.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <iterator>
#include <map>
#include <string>
#include <utility>

#include "properties/oracles/deps.h"
#include "stack/runtime/devmem/fault.h"
#include "stack/runtime/image/graph_def.h"
#include "stack/runtime/image/layout.h"
#include "stack/runtime/image/records.h"
#include "stack/runtime/image/self_relative.h"

namespace stackcheck::oracles {
namespace {

namespace rt = runtime;

struct DecodeError {
  std::string message;
};
[[noreturn]] void bad(std::string message) { throw DecodeError{std::move(message)}; }

constexpr uint64_t kElem = 4;  // i32 elements

// Where the decoder is ("task 3 (graph) node 1 tensor 0 payload"), rendered only into the
// message of a bad record: the decoder visits every task, node and tensor of every input, and
// formatting a context string for each was most of its allocations.
class Ctx {
 public:
  Ctx(const char* text) : head_(text) {}  // NOLINT: a fixed place ("runtime header")
  static Ctx task(uint32_t i, bool graph = false) {
    Ctx c("task");
    c.task_ = i;
    c.graph_ = graph;
    return c;
  }
  Ctx node(uint32_t j) const {
    Ctx c = *this;
    c.node_ = j;
    return c;
  }
  Ctx tensor(uint32_t a) const {
    Ctx c = *this;
    c.tensor_ = a;
    return c;
  }
  Ctx operator+(const char* tail) const {  // one fixed tail (" slot")
    Ctx c = *this;
    c.tail_ = tail;
    return c;
  }
  std::string str() const {
    std::string out = head_;
    if (task_ >= 0) fmt::format_to(std::back_inserter(out), " {}", task_);
    if (graph_) out += " (graph)";
    if (node_ >= 0) fmt::format_to(std::back_inserter(out), " node {}", node_);
    if (tensor_ >= 0) fmt::format_to(std::back_inserter(out), " tensor {}", tensor_);
    return out += tail_;
  }

 private:
  const char* head_;
  int64_t task_ = -1, node_ = -1, tensor_ = -1;
  bool graph_ = false;
  const char* tail_ = "";
};

}  // namespace
}  // namespace stackcheck::oracles

template <>
struct fmt::formatter<stackcheck::oracles::Ctx> : fmt::formatter<std::string> {
  auto format(const stackcheck::oracles::Ctx& c, format_context& ctx) const {
    return fmt::formatter<std::string>::format(c.str(), ctx);
  }
};

namespace stackcheck::oracles {
namespace {

// Bounds-checked loads from one byte buffer (the shipped copy, or its image).
class Bytes {
 public:
  Bytes(std::span<const std::byte> b, const char* what) : b_(b), what_(what) {}
  template <class T>
  T load(uint64_t off, const Ctx& ctx) const {
    if (off > b_.size() || sizeof(T) > b_.size() - off)
      bad(fmt::format("{}: {} bytes at offset {} lie past the {} ({} bytes)", ctx, sizeof(T), off, what_, b_.size()));
    T v;
    std::memcpy(&v, b_.data() + off, sizeof v);
    return v;
  }
  uint64_t size() const { return b_.size(); }
  std::span<const std::byte> span() const { return b_; }

 private:
  std::span<const std::byte> b_;
  const char* what_;
};

// What builtin `kernel` does with its tensor parameter k (COMPILER.md §2): bit 1 reads, bit
// 2 writes; 0 past its arity (the kernel refuses the call).
constexpr uint8_t kRead = 1, kWrite = 2;
uint8_t parameter_use(int32_t kernel, uint32_t k) {
  switch (kernel) {
    case 0: return k == 0 ? kWrite : 0;                                         // fill(out)
    case 1: return k == 0 ? kRead : k == 1 ? kWrite : 0;                        // copy(src, dst)
    case 2: return k < 2 ? kRead : k == 2 ? kWrite : 0;                         // add(a, b, out)
    case 3: return k == 0 ? kRead : k == 1 ? kRead | kWrite : 0;                // acc(x, acc)
    case 4: return k == 0 ? kRead : k == 1 ? kWrite : 0;                        // scale(x, out)
    case 5: return k < 2 ? kRead : k == 2 ? kWrite : 0;                         // matmul(a, b, out)
    case 6: return k == 0 ? kRead : k == 1 ? kWrite : 0;                        // rowsum(x, out)
    case rt::kAllocKernelId: return k < rt::kGraphMaxNodeTensors ? kWrite : 0;  // zero(...)
    default: return 0;
  }
}

class Decoder {
 public:
  Decoder(std::span<const std::byte> shipped, uint64_t destination, const DefinitionReader& read,
          const DecodeLimits& limits)
      : shipped_(shipped, "shipped bytes"), destination_(destination), read_(read), limits_(limits) {}

  void run(TaskGraph& g) {
    const auto rh = shipped_.load<rt::RuntimeHeader>(0, "runtime header");
    if (std::memcmp(rh.magic, rt::kRuntimeMagic, sizeof rh.magic) != 0) bad("runtime header: bad magic");
    const uint64_t image_off = rh.image.raw() - destination_;
    if (rh.image.raw() < destination_ || image_off > shipped_.size() || rh.image_bytes > shipped_.size() - image_off)
      bad(fmt::format("runtime header: image {:#x} (+{} bytes) outside the shipped bytes at {:#x} (+{})",
                      rh.image.raw(), rh.image_bytes, destination_, shipped_.size()));
    const Bytes img(shipped_.span().subspan(image_off, rh.image_bytes), "image");
    h_ = img.load<rt::ImageHeader>(0, "image header");
    if (std::memcmp(h_.magic, rt::kImageMagic, sizeof h_.magic) != 0) bad("image header: bad magic");
    if (h_.n > h_.pitch) bad(fmt::format("image header: n {} > pitch {}", h_.n, h_.pitch));

    std::vector<Task> tasks(h_.n);
    for (uint32_t i = 0; i < h_.n; ++i) tasks[i] = task(img, i);
    build(tasks, g);
  }

 private:
  struct NodeRec {
    int32_t kernel_id = 0;
    std::vector<UnitAccess> accesses;
    std::vector<uint16_t> fanout;
  };
  struct Task {
    uint32_t kind = 0;
    int32_t kernel_id = 0;
    std::vector<int32_t> fanin;
    std::vector<UnitAccess> accesses;  // kernel and ALLOC tasks
    std::vector<NodeRec> nodes;        // GRAPH tasks
  };
  struct Definition {
    rt::GraphDefHeader h;
    std::vector<rt::NodeDef> nodes;
    std::vector<rt::GraphTensorArgDef> tensors;
    std::vector<uint16_t> fanin, fanout;
    std::vector<uint64_t> internal_off;
  };

  // The image offset of record `index` of a segment a slot delta must point to.
  uint64_t slot_target(uint64_t field, int32_t delta, rt::Segment s, uint64_t size, uint32_t index,
                       const Ctx& ctx) const {
    const std::optional<uint64_t> t = rt::resolve_offset(field, delta);
    const uint64_t want = h_.seg_off[s] + size * index;
    if (!t || *t != want)
      bad(fmt::format("{}: slot delta {} leads to {} instead of its own record at {}", ctx, delta,
                      t ? fmt::format("offset {}", *t) : std::string("nothing"), want));
    return want;
  }

  // The first element index of `count` pool entries a payload delta points to.
  uint64_t pool_index(uint64_t field, int32_t delta, rt::Segment s, uint64_t elem, uint64_t pool, uint64_t count,
                      const Ctx& ctx) const {
    const std::optional<uint64_t> t = rt::resolve_offset(field, delta);
    if (!t) bad(fmt::format("{}: unbound delta for {} entries", ctx, count));
    if (*t < h_.seg_off[s] || (*t - h_.seg_off[s]) % elem != 0)
      bad(fmt::format("{}: delta {} leads to offset {}, not an entry of its pool at {}", ctx, delta, *t,
                      h_.seg_off[s]));
    const uint64_t k = (*t - h_.seg_off[s]) / elem;
    if (k > pool || count > pool - k)
      bad(fmt::format("{}: entries [{}, {}) past the pool's {} entries", ctx, k, k + count, pool));
    return k;
  }

  Task task(const Bytes& img, uint32_t i) {
    const Ctx ctx = Ctx::task(i);
    const uint64_t slot_off = h_.seg_off[rt::kSegSlot] + sizeof(rt::SlotState) * uint64_t{i};
    const auto sl = img.load<rt::SlotState>(slot_off, ctx + " slot");
    const uint64_t desc_off =
        slot_target(slot_off + rt::kSlotDescField, sl.desc, rt::kSegDesc, sizeof(rt::TaskDescriptor), i, ctx);
    const uint64_t pay_off =
        slot_target(slot_off + rt::kSlotPayloadField, sl.payload, rt::kSegPayload, sizeof(rt::TaskPayload), i, ctx);
    const auto d = img.load<rt::TaskDescriptor>(desc_off, ctx + " descriptor");
    const auto p = img.load<rt::TaskPayload>(pay_off, ctx + " payload");
    Task t;
    t.kind = d.kind;
    t.kernel_id = d.kernel_id;
    if (d.kind < rt::kKindKernel || d.kind > rt::kKindGraph) bad(fmt::format("{}: kind {}", ctx, d.kind));
    if (d.kind == rt::kKindKernel && (d.kernel_id < 0 || d.kernel_id > rt::kMaxBuiltinKernelId))
      bad(fmt::format("{}: kernel id {}", ctx, d.kernel_id));
    if (p.n_fanin > 0) {
      const uint64_t k = pool_index(pay_off + rt::kPayloadFaninField, p.fanin, rt::kSegFanin, 4, h_.fanin_count,
                                    p.n_fanin, ctx + " fanin");
      for (uint64_t e = 0; e < p.n_fanin; ++e) {
        const auto producer = img.load<int32_t>(h_.seg_off[rt::kSegFanin] + 4 * (k + e), ctx + " fanin");
        if (producer < 0 || static_cast<uint32_t>(producer) >= h_.n)
          bad(fmt::format("{}: fanin entry {} names task {} of {}", ctx, e, producer, h_.n));
        t.fanin.push_back(producer);
      }
    }
    if (d.kind == rt::kKindGraph) {
      graph(p, i, t);
      return t;
    }
    if (p.n_tensors > 0) {
      const uint64_t k = pool_index(pay_off + rt::kPayloadTensorsField, p.tensors, rt::kSegTensor,
                                    sizeof(rt::TensorArg), h_.tensor_count, p.n_tensors, ctx + " tensors");
      for (uint32_t a = 0; a < p.n_tensors; ++a) {
        const auto ta = img.load<rt::TensorArg>(h_.seg_off[rt::kSegTensor] + sizeof(rt::TensorArg) * (k + a), ctx);
        t.accesses.push_back(
            access(window_of(ta), a, d.kind == rt::kKindAlloc ? rt::kAllocKernelId : d.kernel_id, ctx.tensor(a)));
      }
    }
    return t;
  }

  static DecodedWindow window_of(const rt::TensorArg& a) {
    DecodedWindow w;
    w.base = a.base.raw();
    w.buffer_bytes = a.buffer_bytes;
    w.offset_bytes = a.offset_bytes;
    w.tag = a.tag;
    w.rank = a.rank;
    for (int r = 0; r < 4; ++r) w.shape[r] = a.shape[r], w.stride[r] = a.stride[r];
    return w;
  }

  void graph(const rt::TaskPayload& p, uint32_t i, Task& t) {
    const Ctx ctx = Ctx::task(i, /*graph=*/true);
    const uint64_t at = p.graph_ctx.raw();
    if (at < destination_ || at - destination_ > shipped_.size())
      bad(fmt::format("{}: graph_ctx {:#x} outside the shipped bytes", ctx, at));
    const uint64_t off = at - destination_;
    const auto s = shipped_.load<rt::GraphSubmission>(off, ctx + " submission");
    if (s.outer_id != static_cast<int32_t>(i)) bad(fmt::format("{}: its submission names task {}", ctx, s.outer_id));
    if (s.record_bytes != rt::graph_submission_bytes(s.n_bt, s.n_bs))
      bad(fmt::format("{}: submission record_bytes {} for {} tensors and {} scalars", ctx, s.record_bytes, s.n_bt,
                      s.n_bs));
    std::vector<rt::TensorArg> boundary;
    for (uint64_t k = 0; k < s.n_bt; ++k)
      boundary.push_back(
          shipped_.load<rt::TensorArg>(off + sizeof(rt::GraphSubmission) + sizeof(rt::TensorArg) * k, ctx));
    shipped_.load<uint64_t>(off + s.record_bytes - 8, ctx + " submission scalars");  // the record is whole
    const Definition& def = definition(s.definition_addr.raw(), ctx);
    if (def.h.n_nodes != p.n_nodes)
      bad(fmt::format("{}: payload n_nodes {} but the definition has {}", ctx, p.n_nodes, def.h.n_nodes));
    for (uint32_t j = 0; j < def.h.n_nodes; ++j) {
      const rt::NodeDef& nd = def.nodes[j];
      const Ctx nctx = ctx.node(j);
      NodeRec node;
      node.kernel_id = nd.kernel_id;
      if (nd.kernel_id < 0 || nd.kernel_id > rt::kMaxBuiltinKernelId)
        bad(fmt::format("{}: kernel id {}", nctx, nd.kernel_id));
      if (uint64_t{nd.tensor_begin} + nd.n_tensors > def.tensors.size())
        bad(fmt::format("{}: tensor args [{}, +{}) past the definition's {}", nctx, nd.tensor_begin, nd.n_tensors,
                        def.tensors.size()));
      for (uint32_t a = 0; a < nd.n_tensors; ++a) {
        const rt::GraphTensorArgDef& ad = def.tensors[nd.tensor_begin + a];
        DecodedWindow w;
        if (ad.source == rt::kSrcBoundary && ad.index < boundary.size()) {
          w = window_of(boundary[ad.index]);
          w.offset_bytes += ad.offset_bytes;  // the frozen offset, from the patched boundary window
        } else if (ad.source == rt::kSrcInternal && ad.index < def.h.n_internal) {
          const uint64_t lo = def.internal_off[ad.index], hi = def.internal_off[ad.index + 1];
          if (hi < lo) bad(fmt::format("{}: internal_off[{}] decreases", nctx, ad.index));
          w.base = s.block_base.raw() + lo;
          w.buffer_bytes = hi - lo;
          w.offset_bytes = ad.offset_bytes;
        } else {
          bad(fmt::format("{} tensor {}: source {} index {}", nctx, a, ad.source, ad.index));
        }
        w.tag = ad.tag;
        w.rank = ad.rank;
        for (int r = 0; r < 4; ++r) w.shape[r] = ad.shape[r], w.stride[r] = ad.stride[r];
        node.accesses.push_back(access(w, a, nd.kernel_id, nctx.tensor(a)));
      }
      for (uint32_t f = 0; f < nd.n_fanout; ++f) {  // ranges checked by definition()
        const uint16_t c = def.fanout[nd.fanout_begin + f];
        if (c >= def.h.n_nodes) bad(fmt::format("{}: fanout names node {} of {}", nctx, c, def.h.n_nodes));
        node.fanout.push_back(c);
      }
      t.nodes.push_back(std::move(node));
    }
  }

  // A definition, read once per address. Its fanin CSR must be the fanout's transpose: the
  // device releases a node after n_fanin decrements from its producers' fanout lists.
  const Definition& definition(uint64_t addr, const Ctx& ctx) {
    if (auto it = defs_.find(addr); it != defs_.end()) return it->second;
    Definition d;
    read(addr, 0, std::as_writable_bytes(std::span(&d.h, 1)), ctx + " definition header");
    if (std::memcmp(d.h.magic, rt::kGraphDefMagic, sizeof d.h.magic) != 0)
      bad(fmt::format("{}: definition at {:#x}: bad magic", ctx, addr));
    const uint64_t n = d.h.n_nodes;
    if (n < 1 || n > rt::kGraphMaxNodes || d.h.n_tensor_args > n * rt::kGraphMaxNodeTensors ||
        d.h.n_internal > d.h.n_tensor_args || d.h.n_edges > n * (n - 1) / 2)
      bad(fmt::format("{}: definition counts: {} nodes, {} tensor args, {} internal, {} edges", ctx, n,
                      d.h.n_tensor_args, d.h.n_internal, d.h.n_edges));
    d.nodes.resize(n);
    d.tensors.resize(d.h.n_tensor_args);
    d.fanin.resize(d.h.n_edges);
    d.fanout.resize(d.h.n_edges);
    d.internal_off.resize(uint64_t{d.h.n_internal} + 1);
    read(addr, d.h.nodes_off, std::as_writable_bytes(std::span(d.nodes)), ctx + " NodeDefs");
    read(addr, d.h.tensor_args_off, std::as_writable_bytes(std::span(d.tensors)), ctx + " tensor arg defs");
    read(addr, d.h.fanin_off, std::as_writable_bytes(std::span(d.fanin)), ctx + " fanin CSR");
    read(addr, d.h.fanout_off, std::as_writable_bytes(std::span(d.fanout)), ctx + " fanout CSR");
    read(addr, d.h.internal_off_off, std::as_writable_bytes(std::span(d.internal_off)), ctx + " internal_off");
    std::vector<std::pair<uint32_t, uint32_t>> from_fanin, from_fanout;
    for (uint32_t j = 0; j < n; ++j) {
      const rt::NodeDef& nd = d.nodes[j];
      if (uint64_t{nd.fanout_begin} + nd.n_fanout > d.fanout.size() ||
          uint64_t{nd.fanin_begin} + nd.n_fanin > d.fanin.size())
        bad(fmt::format("{} node {}: CSR ranges past the definition's {} edges", ctx, j, d.fanout.size()));
      for (uint32_t e = 0; e < nd.n_fanin; ++e) from_fanin.emplace_back(d.fanin[nd.fanin_begin + e], j);
      for (uint32_t e = 0; e < nd.n_fanout; ++e) from_fanout.emplace_back(j, d.fanout[nd.fanout_begin + e]);
    }
    std::sort(from_fanin.begin(), from_fanin.end());
    std::sort(from_fanout.begin(), from_fanout.end());
    if (from_fanin != from_fanout)
      bad(fmt::format("{}: the definition's fanin CSR is not its fanout's transpose", ctx));
    return defs_.emplace(addr, std::move(d)).first->second;
  }

  // Definition bytes [off, off + out.size()) of the definition at `addr`.
  void read(uint64_t addr, uint64_t off, std::span<std::byte> out, const Ctx& ctx) const {
    if (out.empty()) return;
    if (off > UINT64_MAX - addr || out.size() > UINT64_MAX - (addr + off))
      bad(fmt::format("{}: {:#x} + {} + {} wraps", ctx, addr, off, out.size()));
    if (std::optional<std::string> why = read_(addr + off, out)) bad(fmt::format("{}: {}", ctx, *why));
  }

  UnitAccess access(const DecodedWindow& w, uint32_t arg, int32_t kernel, const Ctx& ctx) {
    UnitAccess a;
    a.arg = arg;
    a.window = w;
    if (w.tag < rt::kTagInput || w.tag > rt::kTagNoDep) bad(fmt::format("{}: tag {}", ctx, w.tag));
    if (w.tag == rt::kTagNoDep) {
      a.tracked = false;
      return a;
    }
    const uint8_t use = parameter_use(kernel, arg);
    a.reads = w.tag == rt::kTagInput || w.tag == rt::kTagInout || (use & kRead) != 0;
    a.writes = w.tag != rt::kTagInput || (use & kWrite) != 0;
    footprint(w, a.footprint, ctx);
    return a;
  }

  // The bytes of every element of `w`, as the kernel addresses them: base + offset_bytes +
  // 4 * sum(idx[d] * stride[d]); checked like the kernel checks (inside the buffer, no more
  // elements than the buffer holds), one range per innermost row when it is contiguous.
  void footprint(const DecodedWindow& w, std::vector<ByteRange>& out, const Ctx& ctx) {
    if (w.rank < 1 || w.rank > 4) bad(fmt::format("{}: rank {}", ctx, w.rank));
    __int128 lo = w.offset_bytes, hi = lo + kElem;
    unsigned __int128 count = 1;
    for (uint32_t d = 0; d < w.rank; ++d) {
      if (w.shape[d] < 1) bad(fmt::format("{}: dimension {} is {}", ctx, d, w.shape[d]));
      const __int128 reach = static_cast<__int128>(w.shape[d] - 1) * w.stride[d] * kElem;
      (reach < 0 ? lo : hi) += reach;
      count *= static_cast<unsigned>(w.shape[d]);
    }
    if (lo < 0 || hi > static_cast<__int128>(w.buffer_bytes) || hi > (__int128{1} << 62) ||
        w.base + w.buffer_bytes < w.base)
      bad(fmt::format("{}: window bytes [{}, {}) outside its buffer of {} bytes at {:#x}", ctx,
                      static_cast<int64_t>(lo), static_cast<int64_t>(hi), w.buffer_bytes, w.base));
    if (count > w.buffer_bytes / kElem)
      bad(fmt::format("{}: {} elements in a buffer of {} bytes", ctx, static_cast<uint64_t>(count), w.buffer_bytes));
    const uint32_t inner = w.rank - 1;
    const int64_t len = w.shape[inner], step = w.stride[inner];
    const bool contiguous = step == 1 || len == 1;
    const uint64_t pieces = contiguous ? static_cast<uint64_t>(count) / len : static_cast<uint64_t>(count);
    ranges_ += pieces;
    if (ranges_ > limits_.max_ranges) bad(fmt::format("{}: footprints exceed {} byte ranges", ctx, limits_.max_ranges));
    out.reserve(out.size() + pieces);  // bounded by max_ranges, checked above: one block
    std::array<int64_t, 4> idx{};
    for (;;) {
      int64_t row = static_cast<int64_t>(w.offset_bytes);
      for (uint32_t d = 0; d < inner; ++d) row += idx[d] * w.stride[d] * static_cast<int64_t>(kElem);
      const uint64_t at = w.base + static_cast<uint64_t>(row);
      if (contiguous)
        out.push_back(ByteRange{at, at + kElem * static_cast<uint64_t>(len)});
      else
        for (int64_t e = 0; e < len; ++e) {
          const uint64_t x = at + static_cast<uint64_t>(e * step * static_cast<int64_t>(kElem));
          out.push_back(ByteRange{x, x + kElem});
        }
      int32_t d = static_cast<int32_t>(inner) - 1;
      for (; d >= 0; --d) {
        if (++idx[d] < w.shape[d]) break;
        idx[d] = 0;
      }
      if (d < 0) break;
    }
    std::sort(out.begin(), out.end(), [](const ByteRange& a, const ByteRange& b) { return a.lo < b.lo; });
    size_t k = 0;
    for (const ByteRange& r : out) {
      if (k > 0 && r.lo <= out[k - 1].hi)
        out[k - 1].hi = std::max(out[k - 1].hi, r.hi);
      else
        out[k++] = r;
    }
    out.resize(k);
  }

  // Vertices in submission order, then the edges.
  void build(std::vector<Task>& tasks, TaskGraph& g) {
    const size_t n = tasks.size();
    g.task_start.resize(n);
    g.task_end.resize(n);
    g.task_nodes.resize(n);
    uint32_t order = 0;
    for (size_t i = 0; i < n; ++i) {
      Task& t = tasks[i];
      const auto id = static_cast<int32_t>(i);
      if (t.kind != rt::kKindGraph) {
        const UnitKind kind = t.kind == rt::kKindAlloc ? UnitKind::kAlloc : UnitKind::kKernel;
        const int32_t kernel = t.kind == rt::kKindAlloc ? rt::kAllocKernelId : t.kernel_id;
        g.task_start[i] = g.task_end[i] =
            boost::add_vertex(Unit{kind, id, -1, kernel, order++, std::move(t.accesses)}, g.dag);
        continue;
      }
      const uint32_t first = order;
      g.task_start[i] = boost::add_vertex(Unit{UnitKind::kGraphStart, id, -1, -1, first, {}}, g.dag);
      for (size_t j = 0; j < t.nodes.size(); ++j)
        g.task_nodes[i].push_back(boost::add_vertex(Unit{UnitKind::kNode, id, static_cast<int32_t>(j),
                                                         t.nodes[j].kernel_id, order++, std::move(t.nodes[j].accesses)},
                                                    g.dag));
      g.task_end[i] = boost::add_vertex(Unit{UnitKind::kGraphEnd, id, -1, -1, first, {}}, g.dag);
    }
    for (size_t i = 0; i < n; ++i) {
      for (int32_t p : tasks[i].fanin)
        boost::add_edge(g.task_end[static_cast<size_t>(p)], g.task_start[i], UnitEdge{EdgeKind::kFanin}, g.dag);
      for (size_t j = 0; j < tasks[i].nodes.size(); ++j) {
        const UnitId u = g.task_nodes[i][j];
        boost::add_edge(g.task_start[i], u, UnitEdge{EdgeKind::kOuterToNode}, g.dag);
        for (uint16_t c : tasks[i].nodes[j].fanout)
          boost::add_edge(u, g.task_nodes[i][c], UnitEdge{EdgeKind::kNodeCsr}, g.dag);
        boost::add_edge(u, g.task_end[i], UnitEdge{EdgeKind::kNodeToOuter}, g.dag);
      }
    }
  }

  Bytes shipped_;
  uint64_t destination_;
  const DefinitionReader& read_;
  DecodeLimits limits_;
  rt::ImageHeader h_{};
  std::map<uint64_t, Definition> defs_;
  uint64_t ranges_ = 0;
};

}  // namespace

DefinitionReader device_definition_reader(const runtime::DeviceMemory& mem) {
  return [&mem](uint64_t addr, std::span<std::byte> out) -> std::optional<std::string> {
    try {
      mem.inspect(runtime::DevAddr(addr), out.data(), out.size());
      return std::nullopt;
    } catch (const runtime::DeviceFault& f) {
      return f.describe();
    }
  };
}

DecodeResult decode_task_graph(std::span<const std::byte> shipped, uint64_t destination,
                               const DefinitionReader& read_definition, const DecodeLimits& limits) {
  DecodeResult r;
  try {
    auto g = std::make_shared<TaskGraph>();
    Decoder(shipped, destination, read_definition, limits).run(*g);
    r.graph = std::move(g);
  } catch (const DecodeError& e) {
    r.error = e.message;
  }
  return r;
}

}  // namespace stackcheck::oracles
