// Test-only sequential executor of orchestration programs, so codegen can be checked
// against the reference interpreter before (and independently of) the runtime's scheduler.
// It runs the plan in submission order on interpreter windows (interp/memory.h, the
// builtins of interp/kernels.h) and models what codegen relies on (COMPILER.md §6,
// RUNTIME.md §9, §17):
//   - entry tensors filled like the runtime: splitmix64(seed), one draw per element, in
//     declaration order; `alloc` zeroes; an `output` buffer starts poisoned (0xAAAAAAAA);
//   - a graph is RECORDED on its first submit_graph (loops, ifs and every scalar evaluated
//     then; `scalar $k` kept as slot k; views as offsets relative to their boundary tensor
//     or internal allocation) and every submission, the first included, REPLAYS the record
//     with its own boundary windows and slot values, so a value frozen at recording shows.
// Scopes only rewind memory, which a sequential run never reuses, so they are ignored.
// Errors (bad window, zero divisor, reads in graphs, ...) are reported, never crash.
#pragma once

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>

#include "stack/interp/interp.h"
#include "stack/interp/kernels.h"
#include "stack/interp/memory.h"
#include "stack/runtime/plan/program.h"
#include "stack/support/splitmix.h"
#include "stack/support/wrapping.h"
#include "stack/verify/builtins.h"

namespace stackcheck::codegen::testing {

struct SequentialResult {
  bool ok = false;
  std::string error;
  std::vector<std::vector<uint8_t>> tensors;  // entry tensors' final bytes, declaration order
};

class SequentialPlan {
 public:
  explicit SequentialPlan(const runtime::OrchProgram& p) : p_(p) {}

  SequentialResult run(uint64_t seed) {
    SequentialResult r;
    try {
      support::SplitMix64 rng(seed);
      Env env;
      std::vector<interp::Window> entries;
      for (const runtime::EntryTensor& t : p_.tensors) {
        interp::Window w = interp::fresh_window(t.shape, 0);
        for (uint32_t& v : w.buffer->data) v = static_cast<uint32_t>(rng.next());
        env[t.name] = Val{true, w, 0};
        entries.push_back(w);
      }
      block(p_.body, env);
      for (const interp::Window& w : entries) {
        std::vector<uint8_t> bytes;
        for (uint32_t v : w.read_all())
          for (int k = 0; k < 4; ++k) bytes.push_back(static_cast<uint8_t>(v >> (8 * k)));
        r.tensors.push_back(std::move(bytes));
      }
      r.ok = true;
    } catch (const std::runtime_error& e) {
      r.error = e.what();
    }
    return r;
  }

 private:
  struct Val {
    bool tensor = false;
    interp::Window win;
    int64_t scalar = 0;
  };
  using Env = std::unordered_map<std::string, Val>;

  // A recorded tensor: `offsets`/`shape` inside boundary tensor or internal allocation `index`.
  struct SymWin {
    bool internal = false;
    size_t index = 0;
    std::vector<int64_t> offsets, shape;
  };
  struct SymVal {
    bool tensor = false;
    SymWin win;
    int64_t scalar = 0;
  };
  struct RecArg {
    bool tensor = false;
    SymWin win;
    bool slot = false;
    int64_t value = 0;  // literal, or the slot index
  };
  struct RecNode {
    std::string builtin;  // empty: an alloc node (its buffers are zeroed per replay anyway)
    std::vector<RecArg> args;
  };
  struct Record {
    std::vector<std::vector<int64_t>> internal_shapes;
    std::vector<bool> internal_zeroed;
    std::vector<RecNode> nodes;
  };

  [[noreturn]] static void fail(const std::string& m) { throw std::runtime_error(m); }

  template <class Lookup>
  static int64_t eval(const runtime::PlanExpr& e, const Lookup& name_value, const std::vector<int64_t>* slots) {
    switch (e.kind) {
      case runtime::PlanExpr::Kind::Int: return e.value;
      case runtime::PlanExpr::Kind::Name: return name_value(e.name);
      case runtime::PlanExpr::Kind::Slot:
        if (slots == nullptr || e.value < 0 || static_cast<size_t>(e.value) >= slots->size()) fail("bad slot");
        return (*slots)[static_cast<size_t>(e.value)];
      case runtime::PlanExpr::Kind::Binary: break;
    }
    const auto v = support::apply(e.op, eval(e.args[0], name_value, slots), eval(e.args[1], name_value, slots));
    if (!v) fail("zero divisor");
    return *v;
  }

  int64_t eval_root(const runtime::PlanExpr& e, const Env& env) const {
    return eval(
        e, [&](const std::string& n) { return get(env, n, false).scalar; }, nullptr);
  }

  static const Val& get(const Env& env, const std::string& n, bool tensor) {
    auto it = env.find(n);
    if (it == env.end() || it->second.tensor != tensor) fail(fmt::format("bad name '{}'", n));
    return it->second;
  }

  interp::Window window(const runtime::PlanWindow& w, const Env& env) const {
    const interp::Window& base = get(env, w.name, true).win;
    if (w.ranges.empty()) return base;
    std::vector<int64_t> offs, sizes;
    for (const runtime::PlanRange& r : w.ranges) {
      offs.push_back(eval_root(r.offset, env));
      sizes.push_back(r.size);
    }
    auto sub = interp::sub_window(base, offs, sizes);
    if (!sub) fail(fmt::format("window of '{}' outside it", w.name));
    return *sub;
  }

  static void run_builtin(const std::string& name, const std::vector<interp::Window>& wins,
                          const std::vector<int64_t>& scalars) {
    const verify::Builtin* b = verify::find_builtin(name);
    if (b == nullptr) fail("unknown builtin");
    std::vector<interp::Operand> ops;
    size_t ti = 0, si = 0;
    for (const verify::BuiltinParam& p : b->params) {
      if (p.tensor ? ti >= wins.size() : si >= scalars.size()) fail("arity");
      ops.push_back(p.tensor ? interp::Operand{&wins[ti++], 0} : interp::Operand{nullptr, scalars[si++]});
    }
    if (ti != wins.size() || si != scalars.size()) fail("arity");
    if (auto why = interp::check_operands(*b, ops)) fail(*why);
    interp::run_builtin(*b, ops);
  }

  void block(const runtime::PlanBlock& b, Env& env) {
    for (const runtime::PlanStmt& s : b) stmt(s, env);
  }

  void stmt(const runtime::PlanStmt& s, Env& env) {
    std::visit(
        [&](const auto& n) {
          using T = std::decay_t<decltype(n)>;
          if constexpr (std::is_same_v<T, runtime::AllocStmt>) {
            for (const runtime::PlanBuffer& buf : n.buffers)
              env[buf.name] = Val{true, interp::fresh_window(buf.shape, 0), 0};
          } else if constexpr (std::is_same_v<T, runtime::ViewStmt>) {
            env[n.name] = Val{true, window(n.source, env), 0};
          } else if constexpr (std::is_same_v<T, runtime::SetStmt>) {
            env[n.name] = Val{false, {}, eval_root(n.value, env)};
          } else if constexpr (std::is_same_v<T, runtime::ReadStmt>) {
            std::vector<int64_t> idx, ones;
            for (const runtime::PlanExpr& e : n.index) idx.push_back(eval_root(e, env)), ones.push_back(1);
            auto one = interp::sub_window(get(env, n.tensor, true).win, idx, ones);
            if (!one) fail("read index outside");
            env[n.name] = Val{false, {}, static_cast<int64_t>(static_cast<int32_t>(one->read_all()[0]))};
          } else if constexpr (std::is_same_v<T, runtime::SubmitStmt>) {
            std::vector<interp::Window> wins;
            std::vector<int64_t> scalars;
            std::vector<std::pair<std::string, interp::Window>> outputs;
            for (const runtime::PlanArg& a : n.args) {
              if (a.tag == runtime::PlanTag::Scalar)
                scalars.push_back(eval_root(a.scalar, env));
              else if (a.tag == runtime::PlanTag::Output) {
                wins.push_back(interp::fresh_window(a.out_shape, 0xAAAAAAAAu));
                outputs.emplace_back(a.out_name, wins.back());
              } else
                wins.push_back(window(a.window, env));
            }
            run_builtin(runtime::builtin_name(n.builtin), wins, scalars);
            for (auto& [name, w] : outputs) env[name] = Val{true, w, 0};
          } else if constexpr (std::is_same_v<T, runtime::SubmitGraphStmt>) {
            submit_graph(n, env);
          } else if constexpr (std::is_same_v<T, runtime::ForStmt>) {
            const int64_t a = eval_root(n.start, env), b = eval_root(n.stop, env), st = eval_root(n.step, env);
            const auto trips = support::trip_count(a, b, st);
            if (!trips) fail("zero step");
            int64_t v = a;
            for (uint64_t k = 0; k < *trips; ++k, v = support::wrap_add(v, st)) {
              env[n.var] = Val{false, {}, v};
              block(n.body, env);
            }
          } else if constexpr (std::is_same_v<T, runtime::IfStmt>) {
            block(support::compare(n.cmp, eval_root(n.lhs, env), eval_root(n.rhs, env)) ? n.then_body : n.else_body,
                  env);
          } else if constexpr (std::is_same_v<T, runtime::ScopeBeginStmt> || std::is_same_v<T, runtime::ScopeEndStmt>) {
          } else {
            fail("statement not used by codegen");
          }
        },
        s.node);
  }

  // ---- graphs: record once, replay every submission ----

  void submit_graph(const runtime::SubmitGraphStmt& n, const Env& env) {
    std::vector<interp::Window> boundary;
    std::vector<int64_t> slots;
    for (const runtime::PlanArg& a : n.args) {
      if (a.tag == runtime::PlanTag::Scalar)
        slots.push_back(eval_root(a.scalar, env));
      else if (a.tag == runtime::PlanTag::Input || a.tag == runtime::PlanTag::Inout)
        boundary.push_back(window(a.window, env));
      else
        fail("graph boundary tag");
    }
    const runtime::PlanGraph* g = nullptr;
    for (const runtime::PlanGraph& c : p_.graphs)
      if (c.name == n.graph) g = &c;
    if (g == nullptr || g->params.size() != boundary.size()) fail("bad graph");
    auto it = records_.find(n.graph);
    if (it == records_.end()) it = records_.emplace(n.graph, record(*g, boundary, slots)).first;
    replay(it->second, boundary, slots);
  }

  Record record(const runtime::PlanGraph& g, const std::vector<interp::Window>& boundary,
                const std::vector<int64_t>& slots) {
    Record rec;
    std::unordered_map<std::string, SymVal> env;
    for (size_t i = 0; i < g.params.size(); ++i)
      env[g.params[i]] =
          SymVal{true, SymWin{false, i, std::vector<int64_t>(boundary[i].rank(), 0), boundary[i].shape}, 0};
    record_block(g.body, env, rec, slots);
    return rec;
  }

  void record_block(const runtime::PlanBlock& b, std::unordered_map<std::string, SymVal>& env, Record& rec,
                    const std::vector<int64_t>& slots) {
    const auto value = [&](const std::string& name) {
      auto it = env.find(name);
      if (it == env.end() || it->second.tensor) fail(fmt::format("bad scalar '{}'", name));
      return it->second.scalar;
    };
    const auto sym = [&](const runtime::PlanWindow& w) {
      auto it = env.find(w.name);
      if (it == env.end() || !it->second.tensor) fail(fmt::format("bad tensor '{}'", w.name));
      SymWin s = it->second.win;
      if (w.ranges.empty()) return s;
      if (w.ranges.size() != s.shape.size()) fail("view rank");
      for (size_t d = 0; d < w.ranges.size(); ++d) {
        const int64_t o = eval(w.ranges[d].offset, value, &slots);  // frozen at recording
        if (o < 0 || w.ranges[d].size < 1 || o + w.ranges[d].size > s.shape[d]) fail("graph view outside");
        s.offsets[d] += o;
        s.shape[d] = w.ranges[d].size;
      }
      return s;
    };
    for (const runtime::PlanStmt& st : b) {
      if (const auto* a = std::get_if<runtime::AllocStmt>(&st.node)) {
        for (const runtime::PlanBuffer& buf : a->buffers) {
          env[buf.name] = SymVal{
              true, SymWin{true, rec.internal_shapes.size(), std::vector<int64_t>(buf.shape.size(), 0), buf.shape}, 0};
          rec.internal_shapes.push_back(buf.shape);
          rec.internal_zeroed.push_back(true);
        }
        rec.nodes.push_back(RecNode{});
      } else if (const auto* v = std::get_if<runtime::ViewStmt>(&st.node)) {
        env[v->name] = SymVal{true, sym(v->source), 0};
      } else if (const auto* s = std::get_if<runtime::SetStmt>(&st.node)) {
        env[s->name] = SymVal{false, {}, eval(s->value, value, &slots)};
      } else if (const auto* sub = std::get_if<runtime::SubmitStmt>(&st.node)) {
        RecNode node{runtime::builtin_name(sub->builtin), {}};
        std::vector<std::pair<std::string, SymWin>> outputs;
        for (const runtime::PlanArg& a : sub->args) {
          if (a.tag == runtime::PlanTag::Scalar) {
            const bool slot = a.scalar.kind == runtime::PlanExpr::Kind::Slot;
            node.args.push_back(RecArg{false, {}, slot, slot ? a.scalar.value : eval(a.scalar, value, &slots)});
          } else if (a.tag == runtime::PlanTag::Output) {
            SymWin w{true, rec.internal_shapes.size(), std::vector<int64_t>(a.out_shape.size(), 0), a.out_shape};
            rec.internal_shapes.push_back(a.out_shape);
            rec.internal_zeroed.push_back(false);
            node.args.push_back(RecArg{true, w, false, 0});
            outputs.emplace_back(a.out_name, w);
          } else {
            node.args.push_back(RecArg{true, sym(a.window), false, 0});
          }
        }
        for (auto& [name, w] : outputs) env[name] = SymVal{true, w, 0};
        rec.nodes.push_back(std::move(node));
      } else if (const auto* f = std::get_if<runtime::ForStmt>(&st.node)) {
        const int64_t a = eval(f->start, value, &slots), e = eval(f->stop, value, &slots),
                      s = eval(f->step, value, &slots);
        const auto trips = support::trip_count(a, e, s);
        if (!trips) fail("zero step");
        int64_t v = a;
        for (uint64_t k = 0; k < *trips; ++k, v = support::wrap_add(v, s)) {
          env[f->var] = SymVal{false, {}, v};
          record_block(f->body, env, rec, slots);
        }
      } else if (const auto* i = std::get_if<runtime::IfStmt>(&st.node)) {
        const bool t = support::compare(i->cmp, eval(i->lhs, value, &slots), eval(i->rhs, value, &slots));
        record_block(t ? i->then_body : i->else_body, env, rec, slots);
      } else {
        fail("statement not allowed in a graph body");
      }
    }
  }

  static void replay(const Record& rec, const std::vector<interp::Window>& boundary,
                     const std::vector<int64_t>& slots) {
    std::vector<interp::Window> internal;
    for (size_t k = 0; k < rec.internal_shapes.size(); ++k)
      internal.push_back(interp::fresh_window(rec.internal_shapes[k], rec.internal_zeroed[k] ? 0 : 0xAAAAAAAAu));
    for (const RecNode& node : rec.nodes) {
      if (node.builtin.empty()) continue;
      std::vector<interp::Window> wins;
      std::vector<int64_t> scalars;
      for (const RecArg& a : node.args) {
        if (!a.tensor) {
          if (a.slot && static_cast<size_t>(a.value) >= slots.size()) fail("slot past the boundary");
          scalars.push_back(a.slot ? slots[static_cast<size_t>(a.value)] : a.value);
          continue;
        }
        const interp::Window& base = a.win.internal ? internal.at(a.win.index) : boundary.at(a.win.index);
        auto w = interp::sub_window(base, a.win.offsets, a.win.shape);
        if (!w) fail("replayed window outside");
        wins.push_back(*w);
      }
      run_builtin(node.builtin, wins, scalars);
    }
  }

  const runtime::OrchProgram& p_;
  std::map<std::string, Record> records_;
};

}  // namespace stackcheck::codegen::testing
