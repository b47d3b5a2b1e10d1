// The plan interpreter (interpreter.h).
#include "stack/runtime/host/interpreter.h"

#include <fmt/format.h>
#include <boost/container/small_vector.hpp>
#include <optional>
#include <string_view>
#include <unordered_map>

#include "stack/runtime/host/graph/recorder.h"
#include "stack/runtime/plan/printer.h"
#include "stack/support/check.h"
#include "stack/support/wrapping.h"

namespace stackcheck::runtime {
namespace {

struct Value {
  bool tensor = false;
  int64_t scalar = 0;
  TensorRef ref;
};

// Per-statement scratch: a window's offsets and sizes, a read's indices,
// inline up to a rank-4 tensor (more only on a plan that latches 5).
using Ints = boost::container::small_vector<int64_t, 4>;

std::string where(PlanLoc l) { return l.line == 0 ? std::string("plan") : fmt::format("{}:{}", l.line, l.column); }

class Interpreter {
 public:
  // The root body (rec == nullptr) or one graph body run against `rec`; a graph body shares
  // its caller's result, so its statements count against the same budget.
  Interpreter(Orchestrator& o, const OrchProgram& p, std::span<const uint32_t> graph_ids,
              std::span<const EntryView> entries, uint64_t budget, InterpretResult& result,
              GraphRecorder* rec = nullptr)
      : o_(o), p_(p), graph_ids_(graph_ids), budget_(budget), result_(result), rec_(rec) {
    for (const EntryView& e : entries) {
      env_[e.name] = Value{true, 0, e.ref};
      if (!e.ref.is_null()) entry_by_base_[e.ref.base().raw()] = &e;
    }
  }

  void run(const PlanBlock& body) { block(body); }

 private:
  // False once the run must stop: a latch or the budget.
  bool going() const { return !o_.latched() && result_.outcome == InterpretResult::Outcome::kCompleted; }

  bool count_statement(PlanLoc loc) {
    if (++result_.statements > budget_) {
      result_.outcome = InterpretResult::Outcome::kBudgetExhausted;
      result_.detail = fmt::format("orchestration budget of {} statements exhausted at {}", budget_, where(loc));
      return false;
    }
    return true;
  }

  const Value& lookup(std::string_view name) {
    auto it = env_.find(name);
    STACK_CHECK(it != env_.end(), "plan uses an unbound name (validate_plan first)");
    return it->second;
  }

  // nullopt after latching 5 (zero divisor).
  std::optional<int64_t> eval(const PlanExpr& e, PlanLoc at) {
    switch (e.kind) {
      case PlanExpr::Kind::Int: return e.value;
      case PlanExpr::Kind::Name: {
        const Value& v = lookup(e.name);
        STACK_CHECK(!v.tensor, "plan uses a tensor as a scalar (validate_plan first)");
        return v.scalar;
      }
      case PlanExpr::Kind::Slot: {
        STACK_CHECK(rec_ != nullptr && e.value >= 0, "'$' slot outside a graph body (validate_plan first)");
        const ScalarSlot s = rec_->scalar(static_cast<uint32_t>(e.value));  // its value: frozen when recording
        if (o_.latched()) return std::nullopt;
        return static_cast<int64_t>(s.value());
      }
      case PlanExpr::Kind::Binary: break;
    }
    const auto a = eval(e.args[0], at);
    if (!a) return std::nullopt;
    const auto b = eval(e.args[1], at);
    if (!b) return std::nullopt;
    const auto r = support::apply(e.op, *a, *b);
    if (!r)
      o_.latch(ErrorCode::kInvalidArgs,
               fmt::format("{}: zero divisor in {}", where(e.loc.line ? e.loc : at), print_plan_expr(e)));
    return r;
  }

  TensorRef tensor(std::string_view name) {
    const Value& v = lookup(name);
    STACK_CHECK(v.tensor, "plan uses a scalar as a tensor (validate_plan first)");
    return v.ref;
  }

  std::optional<TensorRef> window(const PlanWindow& w, PlanLoc at) {
    TensorRef t = tensor(w.name);
    if (w.ranges.empty()) return t;
    Ints offsets, sizes;
    for (const PlanRange& r : w.ranges) {
      const auto o = eval(r.offset, at);
      if (!o) return std::nullopt;
      offsets.push_back(*o);
      sizes.push_back(r.size);
    }
    TensorRef v = t.window(std::span<const int64_t>(offsets.data(), offsets.size()),
                           std::span<const int64_t>(sizes.data(), sizes.size()));
    if (v.is_null()) return std::nullopt;  // latched 5
    return v;
  }

  static Shape shape_of(const std::vector<int64_t>& dims) { return Shape::of(dims); }

  // Names are views of the plan's text (statements, graph params) or of the entries, which
  // outlive the run.
  void bind(std::string_view name, Value v) { env_[name] = std::move(v); }

  void block(const PlanBlock& b) {
    for (const PlanStmt& s : b) {
      if (!going() || !count_statement(s.loc)) return;
      stmt(s);
    }
  }

  void read(const ReadStmt& r, PlanLoc loc) {
    const TensorRef t = tensor(r.tensor);
    auto it = entry_by_base_.find(t.base().raw());
    STACK_CHECK(it != entry_by_base_.end() && !it->second->inout, "read of a tensor not rooted at an entry In tensor");
    Ints idx;
    for (const PlanExpr& e : r.index) {
      const auto v = eval(e, loc);
      if (!v) return;
      idx.push_back(*v);
    }
    if (idx.size() != t.rank()) {
      o_.latch(ErrorCode::kInvalidArgs,
               fmt::format("{}: read with {} indices of a rank-{} tensor", where(loc), idx.size(), t.rank()));
      return;
    }
    uint64_t elem = t.offset_bytes() / kElemBytes;
    for (uint32_t i = 0; i < t.rank(); ++i) {
      if (idx[i] < 0 || idx[i] >= t.dim(i)) {
        o_.latch(ErrorCode::kInvalidArgs,
                 fmt::format("{}: read index {} outside dimension {} of size {}", where(loc), idx[i], i, t.dim(i)));
        return;
      }
      elem += static_cast<uint64_t>(idx[i]) * static_cast<uint64_t>(t.stride(i));
    }
    const std::span<const int32_t> host = it->second->host;
    STACK_CHECK(elem < host.size(), "a valid window indexes inside its buffer");
    bind(r.name, Value{false, host[elem], {}});  // i32 element, sign-extended to i64
  }

  // A window argument of a kernel or graph submission, added under its tag (input, inout,
  // output_existing; any other tag reaching here is no_dep).
  template <class SubmissionArgs>
  static void add_window(SubmissionArgs& args, PlanTag tag, const TensorRef& w) {
    switch (tag) {
      case PlanTag::Input: args.add_input(w); break;
      case PlanTag::Inout: args.add_inout(w); break;
      case PlanTag::OutputExisting: args.add_output_existing(w); break;
      default: args.add_no_dep(w); break;
    }
  }

  void submit(const SubmitStmt& s, PlanLoc loc) {
    Args args = rec_ ? Args(*rec_) : Args(o_);
    boost::container::small_vector<TensorRef, 4> outs(s.args.size());
    for (size_t k = 0; k < s.args.size(); ++k) {
      const PlanArg& a = s.args[k];
      const PlanLoc at = a.loc.line ? a.loc : loc;
      switch (a.tag) {
        case PlanTag::Output: args.add_output(&outs[k], shape_of(a.out_shape)); break;
        case PlanTag::Scalar: {
          if (rec_ && a.scalar.kind == PlanExpr::Kind::Slot) {  // `scalar $k`: SLOT k
            args.add_scalar(rec_->scalar(static_cast<uint32_t>(a.scalar.value)));
            break;
          }
          const auto v = eval(a.scalar, at);
          if (!v) return;
          args.add_scalar(static_cast<uint64_t>(*v));
          break;
        }
        default: {
          const auto w = window(a.window, at);
          if (!w) return;
          add_window(args, a.tag, *w);
        }
      }
      if (o_.latched()) return;
    }
    const int32_t kernel = static_cast<int32_t>(s.builtin);
    if ((rec_ ? rec_->submit(kernel, args) : o_.submit(kernel, args)) == kNoTask) return;
    for (size_t k = 0; k < s.args.size(); ++k)
      if (s.args[k].tag == PlanTag::Output) bind(s.args[k].out_name, Value{true, 0, outs[k]});
  }

  // submit_graph G(ARG, ...): the boundary in argument order (tensors, then scalars), G's
  // params naming boundary tensors 0..; the body runs against the GraphRecorder. In a graph
  // body it is a nested graph (latch 5).
  void submit_graph(const SubmitGraphStmt& s, PlanLoc loc) {
    if (rec_) {
      rec_->submit_graph(0, {}, GraphArgs(o_));
      return;
    }
    size_t gi = 0;
    while (gi < p_.graphs.size() && p_.graphs[gi].name != s.graph) ++gi;
    STACK_CHECK(gi < p_.graphs.size() && gi < graph_ids_.size(),
                "submit_graph of an undefined graph (validate_plan first)");
    const PlanGraph& g = p_.graphs[gi];
    GraphArgs ga(o_);
    for (const PlanArg& a : s.args) {
      const PlanLoc at = a.loc.line ? a.loc : loc;
      if (a.tag == PlanTag::Scalar) {
        const auto v = eval(a.scalar, at);
        if (!v) return;
        ga.add_scalar(static_cast<uint64_t>(*v));
      } else if (a.tag == PlanTag::Output) {
        TensorRef unused;
        ga.add_output(&unused, shape_of(a.out_shape));  // not a boundary tag: latches 5
      } else {
        const auto w = window(a.window, at);
        if (!w) return;
        add_window(ga, a.tag, *w);
      }
      if (o_.latched()) return;
    }
    if (ga.tensor_count() != g.params.size()) {
      o_.latch(ErrorCode::kInvalidArgs, fmt::format("{}: submit_graph {} passes {} tensors for {} params", where(loc),
                                                    g.name, ga.tensor_count(), g.params.size()));
      return;
    }
    const auto body = [&](GraphRecorder& r) {
      Interpreter child(o_, p_, graph_ids_, {}, budget_, result_, &r);
      for (size_t i = 0; i < g.params.size(); ++i)
        child.bind(g.params[i], Value{true, 0, r.boundary(static_cast<uint32_t>(i))});
      child.run(g.body);
      if (result_.outcome != InterpretResult::Outcome::kCompleted) r.cancel();  // nothing half-recorded
    };
    o_.submit_graph(graph_ids_[gi], body, ga);
  }

  void for_loop(const ForStmt& f, PlanLoc loc) {
    const auto a = eval(f.start, loc), b = a ? eval(f.stop, loc) : std::nullopt,
               s = b ? eval(f.step, loc) : std::nullopt;
    if (!s) return;
    const auto trips = support::trip_count(*a, *b, *s);
    if (!trips) {
      o_.latch(ErrorCode::kInvalidArgs, fmt::format("{}: for loop with step 0", where(loc)));
      return;
    }
    int64_t v = *a;
    for (uint64_t k = 0; k < *trips; ++k) {
      if (k > 0 && !count_statement(loc)) return;  // each further iteration counts
      bind(f.var, Value{false, v, {}});
      block(f.body);
      if (!going()) return;
      v = support::wrap_add(v, *s);
    }
  }

  void stmt(const PlanStmt& st) {
    const PlanLoc loc = st.loc;
    std::visit(
        [&](const auto& n) {
          using T = std::decay_t<decltype(n)>;
          if constexpr (std::is_same_v<T, ScopeBeginStmt>) {
            rec_ ? rec_->scope_begin() : o_.scope_begin();
          } else if constexpr (std::is_same_v<T, ScopeEndStmt>) {
            rec_ ? rec_->scope_end() : o_.scope_end();
          } else if constexpr (std::is_same_v<T, FatalStmt>) {
            o_.fatal();
          } else if constexpr (std::is_same_v<T, WaitTensorStmt>) {
            rec_ ? rec_->wait_tensor(tensor(n.tensor)) : o_.wait_tensor(tensor(n.tensor));
          } else if constexpr (std::is_same_v<T, SyncStartStmt>) {
            o_.sync_start(static_cast<uint64_t>(n.block_num));
          } else if constexpr (std::is_same_v<T, AllocStmt>) {
            boost::container::small_vector<Shape, 4> shapes;
            for (const PlanBuffer& b : n.buffers) shapes.push_back(shape_of(b.shape));
            boost::container::small_vector<TensorRef, 4> out(shapes.size());
            const std::span<const Shape> ss(shapes.data(), shapes.size());
            const std::span<TensorRef> os(out.data(), out.size());
            if ((rec_ ? rec_->alloc_tensors(ss, os) : o_.alloc_tensors(ss, os)) == kNoTask) return;
            for (size_t k = 0; k < out.size(); ++k) bind(n.buffers[k].name, Value{true, 0, out[k]});
          } else if constexpr (std::is_same_v<T, ViewStmt>) {
            if (const auto w = window(n.source, loc)) bind(n.name, Value{true, 0, *w});
          } else if constexpr (std::is_same_v<T, SetStmt>) {
            if (const auto v = eval(n.value, loc)) bind(n.name, Value{false, *v, {}});
          } else if constexpr (std::is_same_v<T, ReadStmt>) {
            read(n, loc);
          } else if constexpr (std::is_same_v<T, SubmitStmt>) {
            submit(n, loc);
          } else if constexpr (std::is_same_v<T, SubmitGraphStmt>) {
            submit_graph(n, loc);
          } else if constexpr (std::is_same_v<T, ForStmt>) {
            for_loop(n, loc);
          } else {
            static_assert(std::is_same_v<T, IfStmt>);
            const auto l = eval(n.lhs, loc), r = l ? eval(n.rhs, loc) : std::nullopt;
            if (!r) return;
            block(support::compare(n.cmp, *l, *r) ? n.then_body : n.else_body);
          }
        },
        st.node);
  }

  Orchestrator& o_;
  const OrchProgram& p_;
  std::span<const uint32_t> graph_ids_;  // function id of each p_.graphs[i]
  uint64_t budget_;
  InterpretResult& result_;
  GraphRecorder* rec_;  // non-null in a graph body
  std::unordered_map<std::string_view, Value> env_;
  std::unordered_map<uint64_t, const EntryView*> entry_by_base_;
};

}  // namespace

InterpretResult run_plan(const OrchProgram& p, Orchestrator& orch, std::span<const EntryView> entries,
                         uint64_t max_statements, std::span<const uint32_t> graph_ids) {
  std::vector<uint32_t> ids(graph_ids.begin(), graph_ids.end());
  for (size_t i = ids.size(); i < p.graphs.size(); ++i) ids.push_back(static_cast<uint32_t>(i));  // definition order
  InterpretResult result;
  Interpreter(orch, p, ids, entries, max_statements, result).run(p.body);
  return result;
}

}  // namespace stackcheck::runtime
