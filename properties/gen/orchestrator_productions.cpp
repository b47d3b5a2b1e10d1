// orchestrator_call_productions and its universe (limits.h): the setup as drawn, and the call
// sequence run on a fresh model of it (oracles/orchestrator_model.h), each call named in the
// state the model is in when it runs. The state and the latched code are the model's reading
// of the sequence (RUNTIME.md §8, §9, §13), not anything the generator said it meant to do.
#include <fmt/format.h>

#include <map>
#include <memory>
#include <type_traits>

#include "properties/gen/limits.h"
#include "properties/gen/orchestrator_calls.h"

namespace stackcheck::gen {

namespace {

using namespace oracles::orch;
namespace rt = stackcheck::runtime;

constexpr const char* kCallNames[] = {"scope_begin", "scope_end", "alloc_tensors", "submit", "submit_graph",
                                      "read",        "wait_tensor", "fatal",       "sync_start"};
static_assert(std::size(kCallNames) == std::variant_size_v<Call>);
// The state a call meets: the root scope open, a nested one, none (the program closed the
// root), or a latch (every call a no-op, §8). wait_tensor and fatal latch at once whatever scope
// is open (§8): their states are live and latched.
constexpr const char* kStates[] = {"root", "nested", "closed", "latched"};
bool latches_at_once(const Call& c) { return std::holds_alternative<WaitTensor>(c) || std::holds_alternative<Fatal>(c); }
constexpr const char* kKernels[] = {"fill", "copy", "add", "acc", "scale", "matmul", "rowsum"};
constexpr std::pair<uint32_t, const char*> kTags[] = {{rt::kTagInput, "input"},
                                                       {rt::kTagInout, "inout"},
                                                       {rt::kTagOutput, "output"},
                                                       {rt::kTagOutputExisting, "output_existing"},
                                                       {rt::kTagNoDep, "no_dep"}};
constexpr const char* kBodyLatches[] = {"empty",           "scope_begin",     "scope_end",     "nested-graph",
                                        "wait_tensor",     "kernel-unknown",  "fill-without-tensor",
                                        "alloc-none",      "alloc-17+",       "alloc-zero-extent",
                                        "boundary-past-count", "slot-past-count", "outer-tensor", "hand-slot",
                                        "foreign-slot"};
constexpr int64_t kI32 = 2147483647;

const char* tag_of(uint32_t tag) {
  for (const auto& [t, name] : kTags)
    if (t == tag) return name;
  return "invalid";
}

// A shape against RUNTIME.md §3's TensorArg: rank 1..4, extents in [1, i32], row-major strides
// i32, at most 2^40 elements. "past-limit", "at-limit" or its rank.
std::string shape_class(const Dims& d) {
  if (d.empty() || d.size() > 4) return "past-limit";
  __int128 elements = 1, stride = 1;
  bool at = false;
  for (size_t i = d.size(); i-- > 0;) {
    if (d[i] < 1 || d[i] > kI32 || stride > kI32) return "past-limit";
    at = at || d[i] == kI32 || stride == kI32;
    stride *= d[i];
    elements *= d[i];
  }
  if (elements > (__int128{1} << 40)) return "past-limit";
  if (at || elements == (__int128{1} << 40)) return "at-limit";
  return d.size() <= 2 ? fmt::format("rank{}", d.size()) : "rank3-4";
}

// How window `w` of a buffer lies against `last`, the buffer's window accessed before it.
const char* relation(const Window& w, const Window& last) {
  if (w == last) return "same";
  int64_t common = 1;
  bool touching = false;
  for (size_t i = 0; i < w.off.size(); ++i) {
    const int64_t lo = std::max(w.off[i], last.off[i]);
    const int64_t hi = std::min(w.off[i] + w.size[i], last.off[i] + last.size[i]);
    if (hi < lo) return "disjoint";
    if (hi == lo) touching = true;
    common *= hi - lo;
  }
  if (touching) return "adjacent";  // beside it along an axis, no element in common
  return common == 1 ? "one-element" : "partial";
}

class Walker {
 public:
  std::set<std::string> out;

  explicit Walker(const ModelSetup& s) : setup_(s), m_(std::make_shared<const ModelSetup>(s)) {}

  void setup() {
    const ModelConfig& k = setup_.config;
    out.insert(k.W <= 8 ? "config:W-4-8" : k.W <= 32 ? "config:W-16-32" : "config:W-64+");
    if (k.task_heap < (1u << 20)) out.insert("config:small-task-heap");
    if (k.graph_heap < (1u << 20)) out.insert("config:small-graph-heap");
    if (k.tensormap_capacity < 65536) out.insert("config:small-tensormap");
    if (k.scope_tasks_capacity != 0) out.insert("config:small-scope-lists");
    out.insert(fmt::format("config:clusters-{}", k.clusters == 1 ? "1" : k.clusters < 24 ? "2-23" : "24+"));
    out.insert(fmt::format("entries:{}", setup_.entries.size()));
    for (const EntrySpec& e : setup_.entries)
      out.insert(fmt::format("entry:{}-rank{}", e.inout ? "InOut" : "In", e.dims.size()));
    out.insert(setup_.graphs.size() > 16 ? "graph-fns:17+" : "graph-fns:1-16");
    for (const GraphFnSpec& fn : setup_.graphs) graph_fn(fn);
  }

  void call(const Call& c) {
    const char* state = m_.latched()             ? "latched"
                        : latches_at_once(c)    ? "live"
                        : m_.scope_depth() == 0 ? "closed"
                        : m_.scope_depth() == 1 ? "root"
                                                : "nested";
    out.insert(fmt::format("call:{}@{}", kCallNames[c.index()], state));
    std::visit([&](const auto& x) { details(x); }, c);
    m_.apply(c);
    const StepOutcome& o = m_.last();
    if (o.new_def) out.insert("graph:recorded");
    if (o.graph_hit) out.insert("graph:replayed");
    if (o.graph_inline) out.insert("graph:inlined");
    static constexpr const char* kEdges[] = {"raw", "waw", "war"};
    for (int e = 0; e < 3; ++e)
      if (o.edges[e] > 0) out.insert(fmt::format("edge:{}", kEdges[e]));
  }

  // As the property ends a case: the open scopes closed, then bind step 2's end.
  void finish() {
    while (!m_.latched() && m_.scope_depth() > 0) m_.apply(ScopeEnd{});
    m_.finish();
    out.insert(m_.error() == 0 ? std::string("latch:none") : fmt::format("latch:{}", m_.error()));
  }

 private:
  const ModelSetup& setup_;
  OrchestratorModel m_;
  std::map<uint32_t, Window> last_;  // buffer -> the window of it accessed last
  std::set<uint32_t> submitted_;     // graph functions submitted so far

  void graph_fn(const GraphFnSpec& fn) {
    const size_t t = fn.params.size();
    out.insert(fmt::format("boundary:tensors-{}", t <= 32 ? "1-32" : t <= 128 ? "33-128" : "129+"));
    out.insert(fmt::format("boundary:scalars-{}", fn.n_scalars == 0    ? "0"
                                                  : fn.n_scalars <= 16 ? "1-16"
                                                  : fn.n_scalars <= 64 ? "17-64"
                                                                       : "65+"));
    for (size_t i = 0; i < t; ++i) {
      out.insert(fmt::format("boundary:{}", fn.tags[i] == rt::kTagInout ? "InOut" : "In"));
      out.insert(fmt::format("boundary:{}", fn.params[i].size() <= 2 ? fmt::format("rank{}", fn.params[i].size())
                                                                      : std::string("rank3-4")));
    }
    if (fn.nodes.empty()) out.insert("body:empty");
    for (const BodyNode& n : fn.nodes) body_node(fn, n);
    const uint64_t need = graph_body_need(fn), limit = static_cast<uint64_t>(INT32_MAX);
    if (need > limit - 64) out.insert(need <= limit ? "body:need-at-int32-max" : "body:need-past-int32-max");
  }

  void body_node(const GraphFnSpec& fn, const BodyNode& n) {
    switch (n.kind) {
      case BodyNode::Kind::kScopeBegin: out.insert("body:scope_begin"); return;
      case BodyNode::Kind::kScopeEnd: out.insert("body:scope_end"); return;
      case BodyNode::Kind::kNestedGraph: out.insert("body:nested-graph"); return;
      case BodyNode::Kind::kWaitTensor: out.insert("body:wait_tensor"); return;
      case BodyNode::Kind::kAlloc: {
        bool zero = false;
        for (const Dims& d : n.alloc)
          for (int64_t x : d) zero = zero || x < 1;
        out.insert(n.alloc.empty() ? "body:alloc-none" : n.alloc.size() > 16 ? "body:alloc-17+"
                                                     : zero                 ? "body:alloc-zero-extent"
                                                                            : "body:alloc");
        return;
      }
      case BodyNode::Kind::kSubmit: break;
    }
    if (n.kernel < 0 || n.kernel > 6)
      out.insert("body:kernel-unknown");
    else if (n.kernel == 0 && n.tensors.empty())
      out.insert("body:fill-without-tensor");
    else
      out.insert(fmt::format("body:kernel-{}", kKernels[n.kernel]));
    for (const BodyTensor& t : n.tensors) {
      switch (t.source) {
        case BodyTensor::Source::kBoundary:
          out.insert(t.index >= fn.params.size() ? "body:boundary-past-count" : "body:boundary-tensor");
          break;
        case BodyTensor::Source::kInternal: out.insert("body:internal-tensor"); break;
        case BodyTensor::Source::kOutput: out.insert("body:output"); break;
        case BodyTensor::Source::kOuter: out.insert("body:outer-tensor"); break;
      }
    }
    for (const BodyScalar& s : n.scalars) {
      switch (s.kind) {
        case BodyScalar::Kind::kLiteral: out.insert("body:literal-scalar"); break;
        case BodyScalar::Kind::kSlot:
          out.insert(s.slot >= fn.n_scalars ? "body:slot-past-count" : "body:slot-scalar");
          break;
        case BodyScalar::Kind::kFrozen: out.insert("body:frozen-scalar"); break;
        case BodyScalar::Kind::kHandSlot: out.insert("body:hand-slot"); break;
        case BodyScalar::Kind::kForeignSlot: out.insert("body:foreign-slot"); break;
      }
    }
  }

  // A tensor argument of `where` (submit, submit_graph, read): its handle, window and shape.
  void tensor(const TensorOperand& t, const char* where) {
    out.insert(fmt::format("arg:{}@{}", tag_of(t.tag), where));
    if (t.tag == rt::kTagOutput) {
      out.insert(fmt::format("output:{}", shape_class(t.out_dims)));
      return;
    }
    if (refused_handle(t.buffer)) {
      out.insert(fmt::format("handle:{}@{}", t.buffer == kNullBuffer ? "null" : "foreign", where));
      return;
    }
    if (t.buffer >= m_.buffers().size()) return;
    const Dims& d = m_.buffers()[t.buffer].dims;
    const Window w = t.win ? *t.win : Window{Dims(d.size(), 0), d};
    bool inside = w.off.size() == d.size();
    for (size_t i = 0; inside && i < d.size(); ++i)
      inside = w.off[i] >= 0 && w.size[i] >= 1 && w.off[i] + w.size[i] <= d[i];
    out.insert(fmt::format("window:rank{}", d.size() <= 2 ? std::to_string(d.size()) : "3-4"));
    if (!inside) {
      out.insert("window:outside");
      return;
    }
    out.insert(!t.win ? "window:whole" : w == Window{Dims(d.size(), 0), d} ? "window:whole-explicit" : "window:part");
    if (auto it = last_.find(t.buffer); it != last_.end()) out.insert(fmt::format("overlap:{}", relation(w, it->second)));
    last_[t.buffer] = w;
  }

  void items(const std::vector<ArgItem>& items, const char* where) {
    size_t tensors = 0, scalars = 0;
    for (const ArgItem& it : items) {
      if (it.is_scalar) {
        ++scalars;
        out.insert(fmt::format("arg:scalar@{}", where));
        out.insert(it.scalar < 100 ? "scalar:small" : "scalar:large");
        continue;
      }
      if (scalars > 0) out.insert(fmt::format("arg:tensor-after-scalar@{}", where));
      ++tensors;
      tensor(it.tensor, where);
    }
    // A kernel's 32 tensors and 16 scalars (§8); GraphArgs' 128 and 64 (§9) are the graph
    // functions' boundary counts, read from the setup.
    if (std::string_view(where) != "submit") return;
    if (tensors > 32) out.insert("arg:tensors-past-limit@submit");
    if (scalars > 16) out.insert("arg:scalars-past-limit@submit");
  }

  void details(const ScopeBegin&) {
    if (m_.scope_depth() == 63) out.insert("scope:64-open");
    if (m_.scope_depth() >= 64) out.insert("scope:65th-begin");
  }
  void details(const ScopeEnd&) {
    if (m_.scope_depth() == 1) out.insert("scope:root-closed");
    if (m_.scope_depth() == 0) out.insert("scope:end-with-none-open");
  }
  void details(const AllocTensors& a) {
    const size_t n = a.shapes.size();
    out.insert(fmt::format("alloc:{}", n == 0 ? "0" : n == 1 ? "1" : n <= 16 ? "2-16" : "17+"));
    for (const Dims& d : a.shapes) out.insert(fmt::format("alloc:{}", shape_class(d)));
  }
  void details(const Submit& s) {
    out.insert(s.kernel >= 0 && s.kernel <= 6 ? fmt::format("submit:{}", kKernels[s.kernel])
                                              : std::string("submit:kernel-unknown"));
    items(s.items, "submit");
  }
  void details(const SubmitGraph& g) {
    if (g.fn >= setup_.graphs.size()) return;
    const GraphFnSpec& fn = setup_.graphs[g.fn];
    out.insert(submitted_.insert(g.fn).second ? "graph:function-first-time" : "graph:function-again");
    if (submitted_.size() > 16) out.insert("graph:17th-function");
    std::set<uint32_t> buffers;
    size_t i = 0;
    for (const ArgItem& it : g.items) {
      if (it.is_scalar) continue;
      if (i < fn.tags.size() && it.tensor.tag != fn.tags[i]) out.insert("graph:tag-not-the-boundary's");
      ++i;
      if (!refused_handle(it.tensor.buffer) && !buffers.insert(it.tensor.buffer).second)
        out.insert("graph:one-buffer-two-boundaries");
    }
    items(g.items, "submit_graph");
  }
  void details(const Read& r) {
    if (r.entry < setup_.entries.size() && setup_.entries[r.entry].inout) out.insert("read:InOut-entry");
    bool inside = r.entry < setup_.entries.size() && r.index.size() == setup_.entries[r.entry].dims.size();
    for (size_t i = 0; inside && i < r.index.size(); ++i)
      inside = r.index[i] >= 0 && r.index[i] < setup_.entries[r.entry].dims[i];
    out.insert(inside ? "read:in-range" : "read:out-of-range");
    tensor(r.target, "read");
  }
  void details(const WaitTensor&) {}
  void details(const Fatal&) {}
  void details(const SyncStart& s) {
    const uint64_t c = setup_.config.clusters;
    if (s.blocks == 0)
      out.insert("sync_start:0");
    else if (s.blocks < c)
      out.insert("sync_start:within");
    else
      out.insert(s.blocks == c ? "sync_start:at-clusters" : "sync_start:past-clusters");
  }
};

const std::string kRankGap =
    "every buffer of the calls is rank 1 or 2 (entries, allocs, outputs): TensorArg holds rank 1..4 (RUNTIME.md §4)";

// The setup's rows: config, entries, graph functions' boundaries and bodies.
void setup_universe(std::vector<Production>& u) {
  auto add = [&](std::string n) { u.push_back({std::move(n), "", ""}); };
  auto gap = [&](std::string n, std::string why) { u.push_back({std::move(n), "", std::move(why)}); };
  for (const char* w : {"W-4-8", "W-16-32", "W-64+"}) add(fmt::format("config:{}", w));
  for (const char* r : {"small-task-heap", "small-graph-heap", "small-tensormap", "small-scope-lists", "clusters-1",
                        "clusters-2-23", "clusters-24+"})
    add(fmt::format("config:{}", r));
  add("entries:2");
  add("entries:3");
  for (const char* e : {"In-rank1", "In-rank2", "InOut-rank1", "InOut-rank2"}) add(fmt::format("entry:{}", e));
  add("graph-fns:1-16");
  add("graph-fns:17+");
  add("boundary:tensors-1-32");
  add("boundary:tensors-33-128");
  gap("boundary:tensors-129+", "no graph function takes more than 128 boundary tensors (GraphArgs' limit, latch 5, §9)");
  for (const char* n : {"0", "1-16", "17-64"}) add(fmt::format("boundary:scalars-{}", n));
  gap("boundary:scalars-65+", "no graph function takes more than 64 boundary scalars (GraphArgs' limit, latch 5, §9)");
  add("boundary:In");
  add("boundary:InOut");
  add("boundary:rank1");
  add("boundary:rank2");
  gap("boundary:rank3-4", kRankGap);
  for (const char* k : {"fill", "copy", "add", "acc", "scale"}) add(fmt::format("body:kernel-{}", k));
  gap("body:kernel-matmul", "graph bodies submit fill, copy, add, acc and scale only (generate_fn)");
  gap("body:kernel-rowsum", "graph bodies submit fill, copy, add, acc and scale only (generate_fn)");
  for (const char* b : {"alloc", "boundary-tensor", "internal-tensor", "output", "literal-scalar", "slot-scalar",
                        "frozen-scalar"})
    add(fmt::format("body:{}", b));
  for (const char* b : kBodyLatches) add(fmt::format("body:{}", b));
  add("body:need-at-int32-max");    // a body within a line of the definition's INT32_MAX need
  add("body:need-past-int32-max");  // and one line past it (latch 5)
}

}  // namespace

std::set<std::string> orchestrator_call_productions(const ModelSetup& setup, const std::vector<Call>& calls) {
  Walker w(setup);
  w.setup();
  for (const Call& c : calls) w.call(c);
  w.finish();
  return std::move(w.out);
}

// The setup's rows, then each call in each state and its arguments, in RUNTIME.md §8's order.
std::vector<Production> orchestrator_call_production_universe() {
  std::vector<Production> u;
  setup_universe(u);
  auto add = [&](std::string n, std::string why = "") { u.push_back({std::move(n), std::move(why), ""}); };
  auto gap = [&](std::string n, std::string why) { u.push_back({std::move(n), "", std::move(why)}); };
  for (const char* c : kCallNames) {
    const bool at_once = std::string_view(c) == "wait_tensor" || std::string_view(c) == "fatal";
    for (const char* s : at_once ? std::vector<const char*>{"live", "latched"} : std::vector<const char*>(std::begin(kStates), std::end(kStates)))
      add(fmt::format("call:{}@{}", c, s));
  }
  add("scope:64-open");
  add("scope:65th-begin");
  add("scope:root-closed");
  add("scope:end-with-none-open");
  for (const char* n : {"0", "1", "2-16", "17+"}) add(fmt::format("alloc:{}", n));
  for (const char* k : kKernels) add(fmt::format("submit:{}", k));
  add("submit:kernel-unknown");
  for (const char* where : {"submit", "submit_graph"}) {
    for (const auto& [t, name] : kTags) add(fmt::format("arg:{}@{}", name, where));
    add(fmt::format("arg:scalar@{}", where));
    add(fmt::format("arg:tensor-after-scalar@{}", where));
    add(fmt::format("handle:null@{}", where));
    add(fmt::format("handle:foreign@{}", where));
  }
  add("arg:output_existing@read");
  add("arg:tensors-past-limit@submit");
  add("arg:scalars-past-limit@submit");
  for (const char* what : {"alloc", "output"}) {
    add(fmt::format("{}:rank1", what));
    add(fmt::format("{}:rank2", what));
    gap(fmt::format("{}:rank3-4", what), kRankGap + "; rank 3 and 4 come only at the shape limits");
    add(fmt::format("{}:at-limit", what));
    add(fmt::format("{}:past-limit", what));
  }
  add("window:rank1");
  add("window:rank2");
  gap("window:rank3-4", kRankGap);
  for (const char* w : {"whole", "whole-explicit", "part", "outside"}) add(fmt::format("window:{}", w));
  for (const char* o : {"same", "partial", "one-element", "adjacent", "disjoint"}) add(fmt::format("overlap:{}", o));
  add("scalar:small");
  add("scalar:large");
  for (const char* g : {"function-first-time", "function-again", "17th-function", "tag-not-the-boundary's",
                        "one-buffer-two-boundaries", "recorded", "replayed", "inlined"})
    add(fmt::format("graph:{}", g));
  add("read:in-range");
  add("read:out-of-range");
  add("read:InOut-entry", "a read reads an entry In tensor's host copy (RUNTIME.md §12, Host reads)");
  for (const char* s : {"0", "within", "at-clusters", "past-clusters"}) add(fmt::format("sync_start:{}", s));
  add("edge:raw");
  add("edge:waw");
  add("edge:war");
  add("latch:none");
  for (int code = 1; code <= 11; ++code)
    add(fmt::format("latch:{}", code), code == 6 ? "code 6 (DEPENDENCY_OVERFLOW) is retired (RUNTIME.md §13)" : "");
  return u;
}

std::span<const char* const> call_kind_names() { return kCallNames; }

}  // namespace stackcheck::gen
