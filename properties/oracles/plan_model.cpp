// run_plan_model and check_plan_model (plan_model.h): the model's run of a program (statements,
// scopes, graph records and replays) over the memory and builtins of plan_model_memory.h, and
// the comparison with the device. Model errors travel as ModelError exceptions inside the
// model only; the public functions never throw.
#include "properties/oracles/plan_model.h"

#include <fmt/format.h>

#include <map>
#include <memory>
#include <set>
#include <unordered_map>
#include <utility>
#include <variant>

#include "properties/oracles/plan_model_memory.h"
#include "properties/oracles/ref_arith.h"
#include "properties/oracles/status_codes.h"
#include "stack/runtime/status/codes.h"
#include "stack/support/splitmix.h"
#include "stack/support/wrapping.h"

namespace stackcheck::oracles {
namespace {

using runtime::PlanArg;
using runtime::PlanBlock;
using runtime::PlanExpr;
using runtime::PlanStmt;
using runtime::PlanTag;
using runtime::PlanWindow;
using plan_model_detail::Buffer;
using plan_model_detail::builtin_ops;
using plan_model_detail::Dims;
using plan_model_detail::fail;
using plan_model_detail::ModelError;
using plan_model_detail::run_builtin;
using plan_model_detail::sub_window;
using plan_model_detail::Window;

// The runtime's limits the model must mirror to record the same definitions (RUNTIME.md §9)
// and to keep scopes as the orchestrator does (§8).
constexpr size_t kDefinitionCapacity = 16;
constexpr size_t kMaxOpenScopes = 64;  // the root included
constexpr int64_t kDefaultClusters = 24;

// ---- graph records: windows relative to a boundary tensor or an internal allocation ----

struct RecordedWindow {
  bool internal = false;
  size_t index = 0;     // boundary i or internal allocation k
  Dims offsets, shape;  // relative to that tensor, frozen at recording
};
struct RecordedArg {
  bool tensor = false;
  RecordedWindow window;
  bool slot = false;  // scalar: slot `value`, else the literal `value`
  int64_t value = 0;
};
struct RecordedNode {
  std::optional<runtime::Builtin> builtin;  // none: an ALLOC node (its buffers start zeroed)
  std::vector<RecordedArg> args;
  runtime::PlanLoc loc;  // the body statement behind the node (provenance only)
};
struct Record {
  std::vector<std::vector<int64_t>> internal_shapes;
  std::vector<bool> internal_zeroed;
  std::vector<RecordedNode> nodes;
};
// What the runtime keys its definition cache by (host/graph/cache.h), in model terms.
struct GraphKey {
  size_t graph = 0;
  std::vector<int64_t> words;
  bool operator==(const GraphKey&) const = default;
};

class PlanModel {
 public:
  PlanModel(const runtime::OrchProgram& p, const PlanModelLimits& limits) : p_(p), limits_(limits) {
    for (const runtime::ConfigEntry& c : p.config)
      if (c.key == "clusters") clusters_ = c.value;
  }

  PlanModelResult run(uint64_t seed) {
    PlanModelResult r;
    try {
      uint64_t draw = 0;  // the oracle's own splitmix64 (ref_arith.h), draw after draw
      std::vector<std::vector<uint32_t>> uploaded;
      std::vector<Window> entries;
      for (size_t i = 0; i < p_.tensors.size(); ++i) {
        Window w = fresh(p_.tensors[i].shape, 0, /*scoped=*/false);
        w.entry = static_cast<int>(i);
        for (uint32_t& v : w.buffer->data) v = static_cast<uint32_t>(ref::splitmix64_at(seed, draw++));
        uploaded.push_back(w.buffer->data);
        env_[p_.tensors[i].name] = w;
        entries.push_back(w);
      }
      uploaded_ = &uploaded;
      block(p_.body);
      if (frames_.size() != 1) fail("a scope is left open (the runtime latches 1)");
      for (size_t i = 0; i < entries.size(); ++i) {
        ModelEntry e{p_.tensors[i].name, p_.tensors[i].inout, {}};
        for (uint32_t v : p_.tensors[i].inout ? entries[i].buffer->data : uploaded[i])
          for (int k = 0; k < 4; ++k) e.bytes.push_back(static_cast<uint8_t>(v >> (8 * k)));
        r.entries.push_back(std::move(e));
      }
      r.definitions = records_.size();
      r.inlined = inlined_;
      r.graph_internal = graph_internal_;
      r.statements = statements_;
      r.tasks = std::move(origins_);
    } catch (const ModelError& e) {
      r.error = e.message;
      r.entries.clear();
    }
    return r;
  }

 private:
  using Value = std::variant<int64_t, Window>;

  void count_statement() {
    if (++statements_ > limits_.max_statements)
      fail(fmt::format("the model's budget of {} statements is exhausted", limits_.max_statements));
  }

  // A `for` as the runtime runs it (step 0 latches 5), its bounds by `eval` in order: per trip
  // `env[var]` set, then `body()`; each trip after the first counts as one more statement.
  template <class Eval, class Env, class Body>
  void loop(const runtime::ForStmt& f, Eval&& eval, Env& env, Body&& body) {
    const int64_t a = eval(f.start), e = eval(f.stop), st = eval(f.step);
    const auto trips = ref::trip_count(a, e, st);
    if (!trips) fail("for loop with step 0 (the runtime latches 5)");
    int64_t v = a;
    for (uint64_t k = 0; k < *trips; ++k, v = ref::wrap(static_cast<ref::i128>(v) + st)) {
      if (k > 0) count_statement();
      env[f.var] = v;
      body();
    }
  }

  // A fresh buffer of `dims`, every element `fill`; scoped buffers die with the open scope.
  Window fresh(const std::vector<int64_t>& dims, uint32_t fill, bool scoped) {
    uint64_t n = 1;
    for (int64_t d : dims) {
      if (d < 1) fail("a dimension below 1");
      if (n > limits_.max_elements / static_cast<uint64_t>(d))
        n = limits_.max_elements + 1;
      else
        n *= static_cast<uint64_t>(d);
    }
    elements_ += n;
    if (n > limits_.max_elements || elements_ > limits_.max_elements)
      fail(fmt::format("the model's budget of {} elements is exhausted", limits_.max_elements));
    auto b = std::make_shared<Buffer>(Buffer{dims, std::vector<uint32_t>(n, fill), false});
    if (scoped) frames_.back().push_back(b);
    return Window{b, Dims(dims.size(), 0), Dims(dims.begin(), dims.end()), -1};
  }

  const Value& lookup(const std::string& name) const {
    auto it = env_.find(name);
    if (it == env_.end()) fail(fmt::format("unbound name '{}'", name));
    return it->second;
  }
  int64_t scalar(const std::string& name) const {
    const Value& v = lookup(name);
    if (!std::holds_alternative<int64_t>(v)) fail(fmt::format("'{}' is not a scalar", name));
    return std::get<int64_t>(v);
  }
  // A tensor name in use: refused once its scope ended, since the device may reuse it.
  const Window& tensor(const std::string& name) const {
    const Value& v = lookup(name);
    if (!std::holds_alternative<Window>(v)) fail(fmt::format("'{}' is not a tensor", name));
    const Window& w = std::get<Window>(v);
    if (w.buffer->dead)
      fail(fmt::format("'{}' is used after the scope that allocated it ended (its memory may be reused)", name));
    return w;
  }

  // `slots`: the recording's slot values (graph bodies), else none.
  int64_t eval(const PlanExpr& e, const std::vector<int64_t>* slots) const {
    switch (e.kind) {
      case PlanExpr::Kind::Int: return e.value;
      case PlanExpr::Kind::Name: return scalar(e.name);
      case PlanExpr::Kind::Slot:
        if (slots == nullptr || e.value < 0 || static_cast<size_t>(e.value) >= slots->size())
          fail(fmt::format("slot ${} outside the boundary", e.value));
        return (*slots)[static_cast<size_t>(e.value)];
      case PlanExpr::Kind::Binary: break;
    }
    const auto v = ref::apply(e.op, eval(e.args[0], slots), eval(e.args[1], slots));
    if (!v) fail("zero divisor (the runtime latches 5)");
    return *v;
  }

  Window window(const PlanWindow& w) const {
    const Window& base = tensor(w.name);
    if (w.ranges.empty()) return base;
    Dims offsets, sizes;
    for (const runtime::PlanRange& r : w.ranges) {
      offsets.push_back(eval(r.offset, nullptr));
      sizes.push_back(r.size);
    }
    return sub_window(base, offsets, sizes);
  }

  void call(runtime::Builtin b, const std::vector<Window>& t, const std::vector<int64_t>& s) {
    if (t.empty()) fail(fmt::format("{} without tensors", runtime::builtin_name(b)));
    run_builtin(b, t, s);  // checks arity and shapes first
    ops_ += builtin_ops(b, t);
    if (ops_ > limits_.max_element_ops)
      fail(fmt::format("the model's budget of {} element operations is exhausted", limits_.max_element_ops));
  }

  void block(const PlanBlock& b) {
    for (const PlanStmt& s : b) {
      count_statement();
      stmt(s);
    }
  }

  void stmt(const PlanStmt& s) {
    using namespace runtime;
    if (std::holds_alternative<ScopeBeginStmt>(s.node)) {
      if (frames_.size() >= kMaxOpenScopes) fail("a 65th open scope (the runtime latches 1)");
      frames_.emplace_back();
    } else if (std::holds_alternative<ScopeEndStmt>(s.node)) {
      if (frames_.size() == 1) fail("scope_end without scope_begin (the runtime latches 1)");
      for (const std::shared_ptr<Buffer>& b : frames_.back()) b->dead = true;
      frames_.pop_back();
    } else if (std::holds_alternative<FatalStmt>(s.node)) {
      fail("fatal (the runtime latches 9)");
    } else if (std::holds_alternative<WaitTensorStmt>(s.node)) {
      fail("wait_tensor (the runtime latches 8)");
    } else if (const auto* n = std::get_if<SyncStartStmt>(&s.node)) {
      if (n->block_num > clusters_) fail("sync_start past the clusters (the runtime latches 7)");
    } else if (const auto* n = std::get_if<AllocStmt>(&s.node)) {
      for (const PlanBuffer& b : n->buffers) env_[b.name] = fresh(b.shape, 0, true);
      origins_.push_back(TaskOrigin{TaskOrigin::Kind::kAlloc, s.loc, {}});
    } else if (const auto* n = std::get_if<ViewStmt>(&s.node)) {
      env_[n->name] = window(n->source);
    } else if (const auto* n = std::get_if<SetStmt>(&s.node)) {
      env_[n->name] = eval(n->value, nullptr);
    } else if (const auto* n = std::get_if<ReadStmt>(&s.node)) {
      read(*n);
    } else if (const auto* n = std::get_if<SubmitStmt>(&s.node)) {
      submit(*n);
      origins_.push_back(TaskOrigin{TaskOrigin::Kind::kKernel, s.loc, {}});
    } else if (const auto* n = std::get_if<SubmitGraphStmt>(&s.node)) {
      submit_graph(*n, s.loc);
    } else if (const auto* n = std::get_if<ForStmt>(&s.node)) {
      const auto scalar = [&](const runtime::PlanExpr& x) { return eval(x, nullptr); };
      loop(*n, scalar, env_, [&] { block(n->body); });
    } else if (const auto* n = std::get_if<IfStmt>(&s.node)) {
      block(ref::compare(n->cmp, eval(n->lhs, nullptr), eval(n->rhs, nullptr)) ? n->then_body : n->else_body);
    }
  }

  // An element of the UPLOADED copy of the In entry the window is rooted at (RUNTIME.md §12).
  void read(const runtime::ReadStmt& r) {
    const Window& w = tensor(r.tensor);
    if (w.entry < 0 || p_.tensors[static_cast<size_t>(w.entry)].inout)
      fail(fmt::format("read of '{}', not rooted at an entry In tensor", r.tensor));
    Dims idx, ones;
    for (const PlanExpr& e : r.index) idx.push_back(eval(e, nullptr)), ones.push_back(1);
    const Window one = sub_window(w, idx, ones);
    const uint32_t v = (*uploaded_)[static_cast<size_t>(w.entry)][one.first_index()];
    env_[r.name] = static_cast<int64_t>(static_cast<int32_t>(v));
  }

  void submit(const runtime::SubmitStmt& n) {
    std::vector<Window> tensors;
    std::vector<int64_t> scalars;
    std::vector<std::pair<std::string, Window>> outputs;
    for (const PlanArg& a : n.args) {
      if (a.tag == PlanTag::Scalar) {
        scalars.push_back(eval(a.scalar, nullptr));
      } else if (a.tag == PlanTag::Output) {
        tensors.push_back(fresh(a.out_shape, 0xAAAAAAAAu, true));  // heap memory: never assumed zero
        outputs.emplace_back(a.out_name, tensors.back());
      } else {
        tensors.push_back(window(a.window));
      }
    }
    call(n.builtin, tensors, scalars);
    for (auto& [name, w] : outputs) env_[name] = w;
  }

  // ---- graphs ----

  static std::vector<int64_t> alias_classes(const std::vector<Window>& boundary) {
    std::vector<int64_t> cls(boundary.size());
    for (size_t i = 0; i < cls.size(); ++i) cls[i] = static_cast<int64_t>(i);
    // Union by smallest index until stable: overlap is transitive within a class.
    for (bool changed = true; changed;) {
      changed = false;
      for (size_t i = 0; i < boundary.size(); ++i)
        for (size_t j = 0; j < boundary.size(); ++j) {
          if (i == j || boundary[i].buffer != boundary[j].buffer || cls[j] >= cls[i]) continue;
          const auto [a0, a1] = boundary[i].bounds();
          const auto [b0, b1] = boundary[j].bounds();
          if (a0 <= b1 && b0 <= a1) cls[i] = cls[j], changed = true;
        }
    }
    return cls;
  }

  void submit_graph(const runtime::SubmitGraphStmt& n, runtime::PlanLoc loc) {
    size_t gi = 0;
    while (gi < p_.graphs.size() && p_.graphs[gi].name != n.graph) ++gi;
    if (gi == p_.graphs.size()) fail(fmt::format("no graph '{}'", n.graph));
    std::vector<Window> boundary;
    std::vector<int64_t> slots;
    GraphKey key{gi, {}};
    for (const PlanArg& a : n.args) {
      if (a.tag == PlanTag::Scalar) {
        slots.push_back(eval(a.scalar, nullptr));
        continue;
      }
      if (a.tag != PlanTag::Input && a.tag != PlanTag::Inout)
        fail(fmt::format("graph boundary tag {} (the runtime latches 5)", runtime::tag_name(a.tag)));
      boundary.push_back(window(a.window));
      key.words.push_back(static_cast<int64_t>(a.tag));
      key.words.push_back(static_cast<int64_t>(boundary.back().shape.size()));
      key.words.insert(key.words.end(), boundary.back().shape.begin(), boundary.back().shape.end());
      const Dims strides = boundary.back().strides();
      key.words.insert(key.words.end(), strides.begin(), strides.end());
    }
    const runtime::PlanGraph& g = p_.graphs[gi];
    if (boundary.size() != g.params.size())
      fail(fmt::format("submit_graph {} passes {} tensors for {} params", g.name, boundary.size(), g.params.size()));
    const std::vector<int64_t> cls = alias_classes(boundary);
    key.words.insert(key.words.end(), cls.begin(), cls.end());
    key.words.push_back(static_cast<int64_t>(slots.size()));
    for (const auto& [k, rec] : records_)
      if (k == key) return replay(rec, boundary, slots, loc);
    Record rec = record(g, boundary, slots);
    if (records_.size() >= kDefinitionCapacity) return run_inline(rec, boundary, slots);
    records_.emplace_back(key, rec);
    replay(rec, boundary, slots, loc);  // the first submission replays too
  }

  // A miss past the cache's capacity: the body runs once as ordinary tasks, one per node.
  void run_inline(const Record& rec, const std::vector<Window>& boundary, const std::vector<int64_t>& slots) {
    ++inlined_;
    execute(rec, boundary, slots);
    for (const RecordedNode& node : rec.nodes)
      origins_.push_back(TaskOrigin{node.builtin ? TaskOrigin::Kind::kKernel : TaskOrigin::Kind::kAlloc, node.loc, {}});
  }

  // One GRAPH task replaying `rec`.
  void replay(const Record& rec, const std::vector<Window>& boundary, const std::vector<int64_t>& slots,
              runtime::PlanLoc loc) {
    execute(rec, boundary, slots);
    // RUNTIME.md §8: internal_off is the ALIGN64 prefix sums of the internal buffers' bytes,
    // ending at required_heap; §14: gint sums it over the graph submissions.
    for (const std::vector<int64_t>& shape : rec.internal_shapes) {
      uint64_t bytes = 4;
      for (int64_t d : shape) bytes *= static_cast<uint64_t>(d);
      graph_internal_ += (bytes + 63) / 64 * 64;
    }
    TaskOrigin o{TaskOrigin::Kind::kGraph, loc, {}};
    for (const RecordedNode& node : rec.nodes) o.nodes.push_back(node.loc);
    origins_.push_back(std::move(o));
  }

  Record record(const runtime::PlanGraph& g, const std::vector<Window>& boundary, const std::vector<int64_t>& slots) {
    Record rec;
    std::unordered_map<std::string, std::variant<int64_t, RecordedWindow>> env;
    for (size_t i = 0; i < g.params.size(); ++i)
      env[g.params[i]] = RecordedWindow{false, i, Dims(boundary[i].shape.size(), 0), boundary[i].shape};
    record_block(g.body, env, rec, slots);
    if (rec.nodes.empty() || rec.nodes.size() > 1024)
      fail(fmt::format("graph {} of {} nodes (the runtime latches 5)", g.name, rec.nodes.size()));
    return rec;
  }

  // long: one branch per statement a graph body may hold (§9), each the recorder's rule re-stated.
  template <class Env>
  void record_block(const PlanBlock& b, Env& env, Record& rec, const std::vector<int64_t>& slots) {
    using namespace runtime;
    const auto value = [&](const PlanExpr& e) {
      // Names in a graph body are its own scalars; evaluate with a local lookup.
      struct Local {
        const Env& env;
        int64_t operator()(const PlanExpr& x, const std::vector<int64_t>& s) const {
          switch (x.kind) {
            case PlanExpr::Kind::Int: return x.value;
            case PlanExpr::Kind::Name: {
              auto it = env.find(x.name);
              if (it == env.end() || !std::holds_alternative<int64_t>(it->second))
                fail(fmt::format("'{}' is not a scalar of the graph body", x.name));
              return std::get<int64_t>(it->second);
            }
            case PlanExpr::Kind::Slot:
              if (x.value < 0 || static_cast<size_t>(x.value) >= s.size())
                fail(fmt::format("slot ${} outside the boundary", x.value));
              return s[static_cast<size_t>(x.value)];
            case PlanExpr::Kind::Binary: break;
          }
          const auto v = ref::apply(x.op, (*this)(x.args[0], s), (*this)(x.args[1], s));
          if (!v) fail("zero divisor (the runtime latches 5)");
          return *v;
        }
      };
      return Local{env}(e, slots);
    };
    const auto recorded = [&](const PlanWindow& w) {
      auto it = env.find(w.name);
      if (it == env.end() || !std::holds_alternative<RecordedWindow>(it->second))
        fail(fmt::format("'{}' is not a tensor of the graph body", w.name));
      RecordedWindow r = std::get<RecordedWindow>(it->second);
      if (w.ranges.empty()) return r;
      if (w.ranges.size() != r.shape.size()) fail("window rank differs from its tensor's");
      for (size_t d = 0; d < w.ranges.size(); ++d) {
        const int64_t o = value(w.ranges[d].offset), n = w.ranges[d].size;  // frozen at recording
        if (o < 0 || n < 1 || n > r.shape[d] || o > r.shape[d] - n) fail("graph window outside its tensor");
        r.offsets[d] += o;
        r.shape[d] = n;
      }
      return r;
    };
    const auto internal = [&](const std::vector<int64_t>& shape, bool zeroed) {
      rec.internal_shapes.push_back(shape);
      rec.internal_zeroed.push_back(zeroed);
      return RecordedWindow{true, rec.internal_shapes.size() - 1, Dims(shape.size(), 0),
                            Dims(shape.begin(), shape.end())};
    };
    for (const PlanStmt& st : b) {
      count_statement();
      if (const auto* a = std::get_if<AllocStmt>(&st.node)) {
        for (const PlanBuffer& buf : a->buffers) env[buf.name] = internal(buf.shape, true);
        rec.nodes.push_back(RecordedNode{std::nullopt, {}, st.loc});
      } else if (const auto* v = std::get_if<ViewStmt>(&st.node)) {
        env[v->name] = recorded(v->source);
      } else if (const auto* s = std::get_if<SetStmt>(&st.node)) {
        env[s->name] = value(s->value);
      } else if (const auto* sub = std::get_if<SubmitStmt>(&st.node)) {
        RecordedNode node{sub->builtin, {}, st.loc};
        std::vector<std::pair<std::string, RecordedWindow>> outputs;
        for (const PlanArg& a : sub->args) {
          if (a.tag == PlanTag::Scalar) {
            const bool slot = a.scalar.kind == PlanExpr::Kind::Slot;  // `scalar $k` stays SLOT k
            node.args.push_back(RecordedArg{false, {}, slot, slot ? a.scalar.value : value(a.scalar)});
          } else if (a.tag == PlanTag::Output) {
            outputs.emplace_back(a.out_name, internal(a.out_shape, false));
            node.args.push_back(RecordedArg{true, outputs.back().second, false, 0});
          } else {
            node.args.push_back(RecordedArg{true, recorded(a.window), false, 0});
          }
        }
        for (auto& [name, w] : outputs) env[name] = w;
        rec.nodes.push_back(std::move(node));
      } else if (const auto* f = std::get_if<ForStmt>(&st.node)) {
        loop(*f, value, env, [&] { record_block(f->body, env, rec, slots); });
      } else if (const auto* i = std::get_if<IfStmt>(&st.node)) {
        record_block(ref::compare(i->cmp, value(i->lhs), value(i->rhs)) ? i->then_body : i->else_body, env, rec, slots);
      } else {
        fail("a statement graph bodies cannot hold (the runtime latches 5)");
      }
    }
  }

  void execute(const Record& rec, const std::vector<Window>& boundary, const std::vector<int64_t>& slots) {
    std::vector<Window> internal;
    for (size_t k = 0; k < rec.internal_shapes.size(); ++k)  // a fresh graph-heap block per submission
      internal.push_back(fresh(rec.internal_shapes[k], rec.internal_zeroed[k] ? 0 : 0xAAAAAAAAu, false));
    for (const RecordedNode& node : rec.nodes) {
      if (!node.builtin) continue;  // ALLOC: its buffers were created zeroed above
      std::vector<Window> tensors;
      std::vector<int64_t> scalars;
      for (const RecordedArg& a : node.args) {
        if (!a.tensor) {
          if (a.slot && (a.value < 0 || static_cast<size_t>(a.value) >= slots.size()))
            fail(fmt::format("slot ${} outside the boundary", a.value));
          scalars.push_back(a.slot ? slots[static_cast<size_t>(a.value)] : a.value);
          continue;
        }
        const Window& base = a.window.internal ? internal.at(a.window.index) : boundary.at(a.window.index);
        tensors.push_back(sub_window(base, a.window.offsets, a.window.shape));
      }
      call(*node.builtin, tensors, scalars);
    }
  }

  const runtime::OrchProgram& p_;
  PlanModelLimits limits_;
  int64_t clusters_ = kDefaultClusters;
  std::unordered_map<std::string, Value> env_;
  std::vector<std::vector<std::shared_ptr<Buffer>>> frames_ = {{}};  // the root scope, open
  const std::vector<std::vector<uint32_t>>* uploaded_ = nullptr;
  std::vector<std::pair<GraphKey, Record>> records_;
  size_t inlined_ = 0;  // graph submissions run inline
  uint64_t graph_internal_ = 0;  // Σ required_heap over the GRAPH tasks
  std::vector<TaskOrigin> origins_;
  uint64_t statements_ = 0, elements_ = 0, ops_ = 0;
};

int32_t element(const std::vector<uint8_t>& b, size_t e) {
  if (e * 4 + 4 > b.size()) return 0;
  return static_cast<int32_t>(uint32_t(b[e * 4]) | uint32_t(b[e * 4 + 1]) << 8 | uint32_t(b[e * 4 + 2]) << 16 |
                              uint32_t(b[e * 4 + 3]) << 24);
}

}  // namespace

PlanModelResult run_plan_model(const runtime::OrchProgram& p, uint64_t seed, const PlanModelLimits& limits) {
  return PlanModel(p, limits).run(seed);
}

Verdict check_plan_model(const runtime::OrchProgram& p, uint64_t seed, const runtime::BindResult& device) {
  return check_plan_model(run_plan_model(p, seed), device);
}

Verdict check_plan_model(const PlanModelResult& model, const runtime::BindResult& device) {
  // The model erring (a budget, a use after scope, a latch the plan asks for) puts the plan
  // outside the oracle's domain, as the interpreter erring does for a program.
  if (!model.ok()) return Verdict::inconclusive(Inconclusive::kInterpreterError, "model: " + *model.error);
  if (device.status != runtime::kStatusOk) {
    const int32_t code = latch_code(device.status).value_or(device.status);
    return Verdict::inconclusive(
        config_bound_status(device.status) ? Inconclusive::kResourceLatch : Inconclusive::kRuntimeRefused,
        runtime::status_line(device), code);
  }
  if (device.entries.size() != model.entries.size())
    return Verdict::fail("plan-model", fmt::format("the device returned {} entry tensors, the model {}",
                                                   device.entries.size(), model.entries.size()));
  for (size_t i = 0; i < model.entries.size(); ++i) {
    const ModelEntry& want = model.entries[i];
    const runtime::EntryResult& got = device.entries[i];
    if (got.name != want.name || got.inout != want.inout)
      return Verdict::fail("plan-model",
                           fmt::format("entry {} is {} {} on the device, {} {} in the model", i,
                                       got.inout ? "InOut" : "In", got.name, want.inout ? "InOut" : "In", want.name));
    if (got.bytes == want.bytes) continue;
    size_t k = 0;
    while (k < got.bytes.size() && k < want.bytes.size() && got.bytes[k] == want.bytes[k]) ++k;
    if (got.bytes.size() != want.bytes.size() && k == std::min(got.bytes.size(), want.bytes.size()))
      return Verdict::fail("plan-model", fmt::format("tensor {}: {} bytes on the device, {} in the model", want.name,
                                                     got.bytes.size(), want.bytes.size()));
    return Verdict::fail("plan-model", fmt::format("tensor {} element {}: device {} != model {}", want.name, k / 4,
                                                   element(got.bytes, k / 4), element(want.bytes, k / 4)));
  }
  const runtime::BindStats& st = device.stats;
  uint64_t nodes = 0;  // §14: graph nodes over all GRAPH submissions (each its definition's n)
  for (const TaskOrigin& o : model.tasks) nodes += o.kind == TaskOrigin::Kind::kGraph ? o.nodes.size() : 0;
  if (st.tasks != model.tasks.size() || st.nodes != nodes || st.defs != model.definitions ||
      st.inlined != model.inlined || st.graph_internal_heap != model.graph_internal)
    return Verdict::fail("plan-model-stats",
                         fmt::format("the bind reports tasks={} nodes={} defs={} inlined={} gint={}, the model's run "
                                     "gives {}, {}, {}, {}, {}",
                                     st.tasks, st.nodes, st.defs, st.inlined, st.graph_internal_heap,
                                     model.tasks.size(), nodes, model.definitions, model.inlined,
                                     model.graph_internal));
  return Verdict::pass();
}

Verdict check_plan_completes(const PlanModelResult& model, const runtime::BindResult& device) {
  if (device.status != 0)
    return Verdict::fail("runtime-status", fmt::format("{} ({})", runtime::status_line(device), device.detail));
  Verdict v = check_plan_model(model, device);
  if (!v.passed()) return v;
  std::set<std::pair<int32_t, int32_t>> units;
  for (const runtime::TraceEntry& e : device.trace) units.insert({e.task, e.node});
  const uint64_t want = model.tasks.size() + device.stats.nodes;
  if (units.size() != device.trace.size() || units.size() != want)
    return Verdict::fail("each-unit-once", fmt::format("{} dispatches of {} distinct units; the model has {} tasks and "
                                                       "the run {} graph nodes",
                                                       device.trace.size(), units.size(), model.tasks.size(),
                                                       device.stats.nodes));
  return v;
}

}  // namespace stackcheck::oracles
