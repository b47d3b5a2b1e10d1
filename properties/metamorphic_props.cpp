// Metamorphic properties (HARNESS.md §2.6): relations between runs of related inputs, where
// no single run's expected figure is known.
//   - A graph submitted N times instead of once: the graph heap grows by one fixed block per
//     submission, the graph-internal heap (Σ required_heap) by N times its single figure,
//     the task heap stays flat; after Step C a graph left without creates needs no internal
//     heap, and turning Step C off never needs less.
//   - Two adjacent independent submissions of a plan (no name flows between them, no
//     overlapping footprint with a write) swapped: the device results do not change.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <fmt/format.h>

#include <map>
#include <optional>

#include "properties/gen/arbitrary.h"
#include "properties/oracles/compiler_oracles.h"
#include "properties/oracles/end_to_end.h"
#include "properties/oracles/plan_model.h"
#include "properties/oracles/status_codes.h"
#include "properties/property.h"
#include "stack/ir/builder.h"
#include "stack/ir/printer.h"
#include "stack/ir/walk.h"
#include "stack/runtime/plan/printer.h"
#include "stack/runtime/status/codes.h"

using namespace stackcheck;
using oracles::Inconclusive;
using oracles::Verdict;

namespace {

// The generated program's kernels and its first graph, called `trips` times from a loop over
// buffers created once before it (so every submission has the same key). The caller makes
// sure there is a graph (min_graphs).
ir::Program replayed(const ir::Program& p, int64_t trips) {
  using namespace ir::build;
  ir::Program out;
  const ir::Function* g0 = nullptr;
  for (const ir::Function& f : p.functions) {
    if (f.kind == ir::Function::Kind::Kernel) out.functions.push_back(f);
    if (f.kind == ir::Function::Kind::Graph && g0 == nullptr) g0 = &f;  // not always named g0
  }
  out.functions.push_back(*g0);
  std::vector<ir::Stmt> body, loop;
  std::vector<ir::Expr> args;
  for (size_t i = 0; i < g0->params.size(); ++i) {
    const ir::Param& prm = g0->params[i];
    if (!prm.type.is_tensor()) {
      args.push_back(var("it"));
      continue;
    }
    std::vector<ir::Expr> shape;
    for (int64_t d : prm.type.dims) shape.push_back(lit(d));
    const std::string n = "arg" + std::to_string(i);
    body.push_back(create(n, std::move(shape)));
    args.push_back(var(n));
  }
  loop.push_back(call(g0->name, std::move(args)));
  body.push_back(for_("it", lit(0), lit(trips), lit(1), std::move(loop)));
  out.functions.push_back(orchestration("main", {param("c", ir::Dir::InOut, ir::Type::tensor({8}))}, std::move(body)));
  return out;
}

bool graph_keeps_a_create(const ir::Program& legal) {
  bool found = false;
  for (const ir::Function& f : legal.functions)
    if (f.kind == ir::Function::Kind::Graph)
      ir::walk_statements(f.body, [&](const ir::Stmt& s) {
        found |= s.kind == ir::Stmt::Kind::Assign && std::holds_alternative<ir::CreateRhs>(s.rhs);
      });
  return found;
}

struct HeapFigures {
  uint64_t graph_hw = 0, internal = 0, task_hw = 0;
};

HeapFigures run(const ir::Program& p, bool step_c) {
  passes::PipelineOptions o;
  o.graph_boundary.step_c = step_c;
  const oracles::EndToEndRun r =
      oracles::check_end_to_end(p, 0, *oracles::parse_schedule("oldest"), o, {{"W", 1024, {}}});
  props::report(r.verdict, oracles::Counterexample{"property", ir::print_program(p), {}, "", ""});
  const runtime::BindStats& s = r.bind.stats;
  return {s.graph_heap_high_water, s.graph_internal_heap, s.task_heap_high_water};
}

}  // namespace

STACKCHECK_PROP(Metamorphic, graph_heap_grows_one_block_per_replay, 0.1) {
  gen::ProgramKnobs k;
  k.min_graphs = 1;
  const gen::GeneratedProgram g = gen::any_program(k);
  gen::tag_features(g.features);
  const int64_t n = gen::choices().sized(2, 5);
  for (bool step_c : {true, false}) props::require_legal_compile(g.program, step_c);
  const ir::Program once = replayed(g.program, 1), many = replayed(g.program, n);
  RC_ASSERT(once.functions.size() == many.functions.size());
  std::optional<uint64_t> internal_with_c;
  for (bool step_c : {true, false}) {
    const HeapFigures a = run(once, step_c), b = run(many, step_c);
    const std::string mode = step_c ? "with Step C" : "without Step C";
    if (b.graph_hw != static_cast<uint64_t>(n) * a.graph_hw)
      props::report(
          Verdict::fail("graph-heap-per-replay", fmt::format("{}: graph_hw {} after 1 submission, {} after {}", mode,
                                                             a.graph_hw, b.graph_hw, n)),
          oracles::Counterexample{"property", ir::print_program(many), {}, "", ""});
    if (b.internal != static_cast<uint64_t>(n) * a.internal)
      props::report(Verdict::fail("internal-heap-per-replay", fmt::format("{}: gint {} after 1 submission, {} after {}",
                                                                          mode, a.internal, b.internal, n)));
    if (b.task_hw != a.task_hw)
      props::report(Verdict::fail(
          "task-heap-flat", fmt::format("{}: task_hw {} once, {} after {} replays", mode, a.task_hw, b.task_hw, n)));
    if (step_c) {
      internal_with_c = a.internal;
      const oracles::PipelineRun legal = oracles::run_pipeline(once);
      const bool keeps = graph_keeps_a_create(legal.stages.back().program);
      gen::tag(keeps ? "graph keeps a loop create" : "every create hoisted");
      if (!keeps && a.internal != 0)
        props::report(
            Verdict::fail("step-c-internal-heap", fmt::format("no create left in the graph, yet gint={}", a.internal)),
            oracles::Counterexample{"property", ir::print_program(once), {}, "", ""});
    } else if (a.internal < *internal_with_c) {
      props::report(Verdict::fail("step-c-saves",
                                  fmt::format("gint {} without Step C < {} with it", a.internal, *internal_with_c)));
    }
  }
}

namespace {

// What a submit statement touches, resolved statically (nullopt: a name or offset the
// resolution cannot follow, so the pair is not judged).
struct Footprint {
  std::string buffer;
  std::vector<int64_t> off, dims;
  bool writes = false;
};

struct Resolver {
  std::map<std::string, Footprint> names;  // name -> its window (whole buffers: off 0)

  std::optional<Footprint> window(const runtime::PlanWindow& w) const {
    auto it = names.find(w.name);
    if (it == names.end()) return std::nullopt;
    Footprint f = it->second;
    if (w.ranges.empty()) return f;
    if (w.ranges.size() != f.dims.size()) return std::nullopt;
    for (size_t d = 0; d < w.ranges.size(); ++d) {
      if (w.ranges[d].offset.kind != runtime::PlanExpr::Kind::Int) return std::nullopt;
      f.off[d] += w.ranges[d].offset.value;
      f.dims[d] = w.ranges[d].size;
    }
    return f;
  }
  void define(const std::string& n, std::vector<int64_t> dims) {
    names[n] = Footprint{n, std::vector<int64_t>(dims.size(), 0), dims, false};
  }
};

bool overlaps(const Footprint& a, const Footprint& b) {
  if (a.buffer != b.buffer || a.off.size() != b.off.size()) return false;
  for (size_t d = 0; d < a.off.size(); ++d)
    if (a.off[d] + a.dims[d] <= b.off[d] || b.off[d] + b.dims[d] <= a.off[d]) return false;
  return true;
}

std::optional<std::vector<Footprint>> accesses(const Resolver& r, const runtime::SubmitStmt& s,
                                               std::vector<std::string>& defines) {
  std::vector<Footprint> out;
  for (const runtime::PlanArg& a : s.args) {
    if (a.tag == runtime::PlanTag::Scalar) {
      if (a.scalar.kind == runtime::PlanExpr::Kind::Name) defines.push_back("use:" + a.scalar.name);
      continue;
    }
    if (a.tag == runtime::PlanTag::Output) {
      defines.push_back(a.out_name);
      continue;
    }
    auto f = r.window(a.window);
    if (!f) return std::nullopt;
    f->writes = a.tag == runtime::PlanTag::OutputExisting || a.tag == runtime::PlanTag::Inout;
    defines.push_back("use:" + a.window.name);
    out.push_back(*f);
  }
  return out;
}

// Each i where root statements i and i + 1 are submissions neither of which uses a name the
// other defines, and whose footprints overlap in no write.
std::vector<size_t> independent_pairs(const runtime::OrchProgram& plan) {
  Resolver res;
  for (const runtime::EntryTensor& t : plan.tensors) res.define(t.name, t.shape);
  std::vector<size_t> candidates;
  for (size_t i = 0; i + 1 < plan.body.size(); ++i) {
    const auto& node = plan.body[i].node;
    // Names the statements before i defined (what i and i + 1 may use).
    if (i > 0) {
      const auto& prev = plan.body[i - 1].node;
      if (const auto* a = std::get_if<runtime::AllocStmt>(&prev))
        for (const runtime::PlanBuffer& b : a->buffers) res.define(b.name, b.shape);
      if (const auto* v = std::get_if<runtime::ViewStmt>(&prev))
        if (auto f = res.window(v->source)) res.names[v->name] = *f;
      if (const auto* s = std::get_if<runtime::SubmitStmt>(&prev))
        for (const runtime::PlanArg& a : s->args)
          if (a.tag == runtime::PlanTag::Output) res.define(a.out_name, a.out_shape);
    }
    const auto* s1 = std::get_if<runtime::SubmitStmt>(&node);
    const auto* s2 = std::get_if<runtime::SubmitStmt>(&plan.body[i + 1].node);
    if (s1 == nullptr || s2 == nullptr) continue;
    std::vector<std::string> d1, d2;
    const auto f1 = accesses(res, *s1, d1), f2 = accesses(res, *s2, d2);
    if (!f1 || !f2) continue;
    bool independent = true;
    for (const std::string& n : d1)
      if (n.rfind("use:", 0) != 0)
        for (const std::string& u : d2) independent &= u != "use:" + n;
    for (const Footprint& a : *f1)
      for (const Footprint& b : *f2) independent &= !(overlaps(a, b) && (a.writes || b.writes));
    if (independent) candidates.push_back(i);
  }
  return candidates;
}

}  // namespace

STACKCHECK_PROP(Metamorphic, swapping_independent_submissions_keeps_results, 0.1) {
  gen::PlanKnobs k;
  k.max_stmts = 16;
  k.graphs = false;
  k.scopes = false;  // scope statements between submissions would break every pair
  k.overlaps = gen::choices().boolean();
  // Full-size plans from the first case: a discarded case does not grow RapidCheck's size,
  // and small plans rarely hold two adjacent independent submissions.
  const gen::GeneratedPlan g = gen::any_plan(k, gen::Size::kFull);
  gen::tag_plan(g.features);
  const std::vector<size_t> candidates = independent_pairs(g.plan);
  runtime::OrchProgram plan = g.plan;
  size_t at = 0;
  if (!candidates.empty()) {
    at = candidates[static_cast<size_t>(gen::choices().sized(0, static_cast<int64_t>(candidates.size()) - 1))];
    gen::tag("an adjacent independent pair of the plan");
  } else {
    // None in the plan: insert one at the end, two writes of neighbouring windows of c (one
    // element apart or touching) and a read of x, which nothing else writes.
    using namespace runtime;
    const int64_t o = gen::choices().sized(0, 7), n = gen::choices().sized(1, 4);
    const int64_t gap = gen::choices().sized(0, 1);
    auto win = [](const char* t, int64_t off, int64_t len) {
      PlanWindow w;
      w.name = t;
      w.ranges.push_back({PlanExpr::integer(off), len});
      return w;
    };
    SubmitStmt a, b;
    a.builtin = Builtin::Fill;
    a.args = {PlanArg::tensor(PlanTag::OutputExisting, win("c", o, n)), PlanArg::scalar_value(PlanExpr::integer(7))};
    b.builtin = Builtin::Scale;
    b.args = {PlanArg::tensor(PlanTag::Input, win("x", o, n)),
              PlanArg::tensor(PlanTag::OutputExisting, win("c", o + n + gap, n)),
              PlanArg::scalar_value(PlanExpr::integer(3))};
    at = plan.body.size();
    plan.body.push_back(PlanStmt{std::move(a), {}});
    plan.body.push_back(PlanStmt{std::move(b), {}});
    gen::tag(gap == 0 ? "an inserted pair, touching windows" : "an inserted pair, one element apart");
  }
  runtime::OrchProgram swapped = plan;
  std::swap(swapped.body[at], swapped.body[at + 1]);
  runtime::BindOptions o;
  o.seed = static_cast<uint64_t>(gen::choices().sized(0, 999));
  o.schedule.mode = runtime::ScheduleOptions::Mode::kNewest;
  const runtime::BindResult before = runtime::bind_plan(plan, o), after = runtime::bind_plan(swapped, o);
  if (before.status != 0 && oracles::config_bound_status(before.status))
    props::report(Verdict::inconclusive(Inconclusive::kResourceLatch, runtime::status_line(before),
                                        oracles::latch_code(before.status).value_or(0)));
  if (before.status != after.status || !(before.entries == after.entries))
    props::report(Verdict::fail("swap-independent",
                                fmt::format("swapping root statements {} and {} changes the result "
                                            "({} vs {})",
                                            at, at + 1, runtime::status_line(before), runtime::status_line(after))),
                  oracles::Counterexample{"property", runtime::print_plan(plan), {}, "", ""});
  props::report(oracles::check_plan_model(swapped, o.seed, after),
                oracles::Counterexample{"plan-model",
                                        runtime::print_plan(swapped),
                                        {{"seed", std::to_string(o.seed)}, {"schedule", "newest"}},
                                        "",
                                        ""});
}
