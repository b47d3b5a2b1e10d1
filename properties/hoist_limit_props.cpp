// The param limits after the rewrite (COMPILER.md §5.3 step 5: 204 past 128 tensor params, 205
// past 64 scalar params, on the rewritten graph): a generated program's LegalizeGraphBoundary
// input with params added to one graph, and hoistable definitions (depth-0 creates, Step A
// scalars) put at its front, so that its params alone stay within the limit (step 1 takes it)
// while params plus hoists land at the limit or one to three past it. The counts are the
// oracles' own (the boundary model's Collect walk). At the limit the pass must take it and
// give what the model predicts; past it, refuse it with the one code, on that graph.
// The source program's own pipeline run is judged by the boundary oracles first.
// BoundaryNames: an entry name renamed to a `<v>__graph_arg<k>` the pass would emit; the pass
// must skip it, as the boundary model predicts.
// Control: a pass that skips step 5's param checks must fail.
#include <fmt/format.h>

#include <gtest/gtest-spi.h>

#include <functional>
#include <optional>
#include <string>

#include "properties/gen/arbitrary.h"
#include "properties/gen/breakers/ir_build.h"
#include "properties/oracles/boundary_model.h"
#include "properties/oracles/compiler_oracles.h"
#include "properties/oracles/input_oracles.h"
#include "properties/property.h"
#include "stack/ir/printer.h"
#include "stack/passes/legalize_graph_boundary.h"

namespace stackcheck {
namespace {

using LegalizeFn = std::function<passes::PassResult(const ir::Program&, passes::LegalizeGraphBoundaryReport* report)>;

passes::PassResult stack_legalize(const ir::Program& p, passes::LegalizeGraphBoundaryReport* report) {
  return passes::legalize_graph_boundary(p, {}, report);
}

// The control's pass: a refusal whose only findings are 204/205 on a graph whose original params
// were within the limits is taken as acceptance (what a pass without step 5's param check does;
// its program is not judged past the verdict).
passes::PassResult blind_legalize(const ir::Program& p, passes::LegalizeGraphBoundaryReport* report) {
  passes::PassResult r = passes::legalize_graph_boundary(p, {}, report);
  bool limits_only = !r.ok && !r.diagnostics.empty();
  for (const ir::Diagnostic& d : r.diagnostics) limits_only = limits_only && (d.code == 204 || d.code == 205);
  if (limits_only) {
    r.ok = true;
    r.diagnostics.clear();
    r.program = p;
  }
  return r;
}

struct Counts {
  size_t tensors = 0, scalars = 0, tensor_hoists = 0, scalar_hoists = 0;
};
Counts count(const ir::Program& p, const ir::Function& g) {
  Counts c;
  for (const ir::Param& q : g.params) (q.type.is_tensor() ? c.tensors : c.scalars) += 1;
  const oracles::boundary::GraphModel m = oracles::boundary::collect(p, g, true);
  for (const oracles::boundary::Entry& e : m.entries) {
    if (e.kind == oracles::boundary::Entry::Kind::Scalar) ++c.scalar_hoists;
    if (e.kind == oracles::boundary::Entry::Kind::Create || e.kind == oracles::boundary::Entry::Kind::View)
      ++c.tensor_hoists;
  }
  return c;
}

void add_param(ir::Program& p, ir::Function& g, const ir::Param& q, const ir::Expr& arg) {
  g.params.push_back(q);
  for (ir::Invoke* site : gen::breakers::call_sites(p, g.name)) site->args.push_back(arg);
}

// The LegalizeGraphBoundary input of a generated program with a graph (the stage before the
// pass), its own pipeline run judged whole by the boundary oracles first.
ir::Program boundary_input() {
  const gen::GeneratedProgram gp = gen::draw_program(gen::ProgramKnobs{.min_graphs = 1});
  const oracles::PipelineRun source = oracles::run_pipeline(gp.program);
  size_t at = 0;
  for (size_t i = 1; i < source.stages.size(); ++i)
    if (source.stages[i].pass == "LegalizeGraphBoundary") at = i;
  if (at == 0 || !source.verdict.passed())
    props::report(oracles::Verdict::inconclusive(oracles::Inconclusive::kInputRejected, "the pipeline refused it"));
  props::report(oracles::check_boundary_run(source, true),
                props::counterexample("boundary", ir::print_program(gp.program)));
  return source.stages[at - 1].program;
}

// `hoists` hoistable definitions put at g's front: depth-0 creates, or Step A scalars of a
// scalar param (one added, passed 3, when g has none).
void put_hoists(ir::Program& p, ir::Function& g, bool tensor, int64_t hoists) {
  if (!tensor && count(p, g).scalars == 0)
    add_param(p, g, ir::Param{"zz_n", ir::Dir::In, ir::Type::i64(), {}}, gen::breakers::int_expr(3));
  std::string base;
  for (const ir::Param& q : g.params)
    if (!q.type.is_tensor() && base.empty()) base = q.name;
  for (int64_t k = hoists; k-- > 0;) {
    ir::Stmt s;
    if (tensor) {
      ir::CreateRhs cr;
      cr.shape.push_back(gen::breakers::int_expr(4));
      s = gen::breakers::assign(fmt::format("zz_c{}", k), cr);
    } else {
      ir::Expr e;
      e.kind = ir::Expr::Kind::Binary;
      e.op = ir::BinOp::Mul;
      e.args = {ir::Expr{ir::Expr::Kind::Var, {}, 0, base, ir::BinOp::Add, {}}, gen::breakers::int_expr(k + 2)};
      s = gen::breakers::assign(fmt::format("zz_h{}", k), ir::ExprRhs{e});
    }
    g.body.insert(g.body.begin(), std::move(s));
  }
}

// Params of the kind added to g (tensors of its first tensor param's type, each site passing
// that param's argument again; scalars passed 0) numbered from..to-1.
void fill_params(ir::Program& p, ir::Function& g, bool tensor, size_t from, size_t to) {
  size_t model = 0;
  while (!g.params[model].type.is_tensor()) ++model;
  for (size_t k = from; k < to; ++k) {
    const ir::Param copy = g.params[model];
    ir::Param q{fmt::format("zz_p{}", k), ir::Dir::In, tensor ? copy.type : ir::Type::i64(), {}};
    ir::Expr arg = gen::breakers::int_expr(0);
    if (tensor)
      for (ir::Invoke* site : gen::breakers::call_sites(p, g.name)) arg = site->args.at(model);
    add_param(p, g, q, arg);
  }
}

void limit_case(const LegalizeFn& legalize) {
  auto& c = gen::choices();
  ir::Program p = boundary_input();
  std::vector<size_t> graphs;
  for (size_t i = 0; i < p.functions.size(); ++i)
    if (p.functions[i].kind == ir::Function::Kind::Graph) graphs.push_back(i);
  ir::Function& g = p.functions[graphs[c.one_of(graphs.size())]];
  const bool tensor = c.boolean();
  const size_t limit = tensor ? 128 : 64;
  const auto over = static_cast<size_t>(c.integer(0, 3));  // 0: exactly at the limit
  gen::tag(fmt::format("{} {}", tensor ? "tensor" : "scalar", over == 0 ? "at the limit" : "past it"));
  // Hoistable definitions first: at least `over` and one more, so the params alone stay within.
  put_hoists(p, g, tensor, static_cast<int64_t>(over + 1 + static_cast<size_t>(c.integer(0, 2))));
  const Counts have = count(p, g);
  const size_t now = tensor ? have.tensors + have.tensor_hoists : have.scalars + have.scalar_hoists;
  if (now > limit + over)
    props::report(oracles::Verdict::inconclusive(oracles::Inconclusive::kUnsupported, "already past the limit"));
  fill_params(p, g, tensor, now, limit + over);
  const Counts n = count(p, g);
  const std::string text = ir::print_program(p);
  const auto cx = [&] { return props::counterexample("pipeline", text); };
  const size_t after = tensor ? n.tensors + n.tensor_hoists : n.scalars + n.scalar_hoists;
  const size_t before = tensor ? n.tensors : n.scalars;
  if (before > limit)
    props::report(oracles::Verdict::fail("harness", fmt::format("the edit left {} params before hoisting", before)));
  passes::LegalizeGraphBoundaryReport report;
  const passes::PassResult r = legalize(p, &report);
  const std::string what = fmt::format("graph {}: {} {} params, {} hoisted: {} after the rewrite (limit {})", g.name,
                                       before, tensor ? "tensor" : "scalar", after - before, after, limit);
  if (after <= limit) {
    if (!r.ok)
      props::report(oracles::Verdict::fail("hoist-limit",
                                           fmt::format("{}: refused with {}", what, r.diagnostics.front().render(""))),
                    cx());
    props::report(oracles::check_legalized(p, r.program, report, true), cx());
    return;
  }
  const int code = tensor ? 204 : 205;
  const bool one = !r.ok && r.diagnostics.size() == 1 && r.diagnostics.front().code == code &&
                   r.diagnostics.front().location.function == g.name;
  if (!one)
    props::report(oracles::Verdict::fail("hoist-limit",
                                         fmt::format("{}: expected step 5's {} on that graph alone, got {}", what, code,
                                                     r.ok ? "acceptance" : r.diagnostics.front().render(""))),
                  cx());
}

// Every occurrence of the name `from` in `body` renamed `to` (the name is not used there).
void rename_expr(ir::Expr& e, const std::string& from, const std::string& to) {
  if (e.name == from) e.name = to;
  for (ir::Expr& a : e.args) rename_expr(a, from, to);
}
void rename(std::vector<ir::Stmt>& body, const std::string& from, const std::string& to) {
  auto one = [&](std::string& n) {
    if (n == from) n = to;
  };
  auto all = [&](std::vector<ir::Expr>& v) {
    for (ir::Expr& e : v) rename_expr(e, from, to);
  };
  for (ir::Stmt& s : body) {
    one(s.name);
    for (std::string& r : s.returns) one(r);
    all(s.invoke.args);
    rename_expr(s.lo, from, to);
    rename_expr(s.hi, from, to);
    rename_expr(s.step, from, to);
    std::visit(
        [&](auto& r) {
          using R = std::decay_t<decltype(r)>;
          if constexpr (std::is_same_v<R, ir::ExprRhs>) rename_expr(r.expr, from, to);
          if constexpr (std::is_same_v<R, ir::InvokeRhs>) all(r.invoke.args);
          if constexpr (std::is_same_v<R, ir::TupleGetRhs>) one(r.tuple);
          if constexpr (std::is_same_v<R, ir::CreateRhs>) all(r.shape);
          if constexpr (std::is_same_v<R, ir::FullRhs>) {
            all(r.shape);
            rename_expr(r.value, from, to);
          }
          if constexpr (std::is_same_v<R, ir::SliceRhs>) {
            one(r.source);
            all(r.offsets);
          }
          if constexpr (std::is_same_v<R, ir::AssembleRhs>) {
            one(r.target);
            one(r.source);
            all(r.offsets);
          }
        },
        s.rhs);
    rename(s.body, from, to);
    rename(s.else_body, from, to);
  }
}
void defined_names(const std::vector<ir::Stmt>& body, std::vector<std::string>& out) {
  for (const ir::Stmt& s : body) {
    if (s.kind == ir::Stmt::Kind::Assign || s.kind == ir::Stmt::Kind::For) out.push_back(s.name);
    defined_names(s.body, out);
    defined_names(s.else_body, out);
  }
}
void temp_names(const std::vector<ir::Stmt>& body, std::vector<std::string>& out) {
  for (const ir::Stmt& s : body) {
    if (s.kind == ir::Stmt::Kind::Assign && s.name.find("__graph_arg") != std::string::npos) out.push_back(s.name);
    temp_names(s.body, out);
    temp_names(s.else_body, out);
  }
}

// A name of the entry (a local, a loop variable) renamed to one of the `<v>__graph_arg<k>` names
// the boundary model predicts the pass will emit: the pass must skip it (COMPILER.md §5.3 step
// 4, "skipping used names") and give the model's whole output for the renamed program.
void taken_name_case(const LegalizeFn& legalize) {
  auto& c = gen::choices();
  ir::Program p = boundary_input();
  const oracles::boundary::Prediction want = oracles::boundary::predict(p, true);
  std::vector<std::string> temps, names;
  ir::Function* entry = nullptr;
  for (ir::Function& f : p.functions)
    if (f.kind == ir::Function::Kind::Orchestration) entry = &f;
  for (const ir::Function& f : want.program.functions)
    if (f.kind == ir::Function::Kind::Orchestration) temp_names(f.body, temps);
  if (entry != nullptr) defined_names(entry->body, names);
  if (!want.why.empty() || temps.empty() || names.empty())
    props::report(oracles::Verdict::inconclusive(oracles::Inconclusive::kUnsupported, "no name the pass would emit"));
  const std::string from = c.pick(names), to = c.pick(temps);
  gen::tag(to == temps.front() ? "the first emitted name taken" : "a later emitted name taken");
  rename(entry->body, from, to);
  passes::LegalizeGraphBoundaryReport report;
  const passes::PassResult r = legalize(p, &report);
  const auto cx = [&] { return props::counterexample("pipeline", ir::print_program(p)); };
  if (!r.ok)
    props::report(oracles::Verdict::fail("taken-name", fmt::format("{} renamed {}: the pass refused it with {}", from,
                                                                   to, r.diagnostics.front().render(""))),
                  cx());
  props::report(oracles::check_legalized(p, r.program, report, true), cx());
}

// The control's pass: it emits its names as if the caller used none of them (the rename
// undone in its output: every occurrence of the renamed name there is the pass's own).
passes::PassResult names_blind_legalize(const ir::Program& p, passes::LegalizeGraphBoundaryReport* report) {
  ir::Program q = p;
  for (ir::Function& f : q.functions)
    if (f.kind == ir::Function::Kind::Orchestration) {
      std::vector<std::string> names;
      defined_names(f.body, names);
      for (const std::string& n : names)
        if (n.find("__graph_arg") != std::string::npos) rename(f.body, n, "zz_renamed_back");
    }
  passes::PassResult r = passes::legalize_graph_boundary(q, {}, report);
  return r;
}

}  // namespace

STACKCHECK_PROP(BoundaryNames, emitted_names_skip_the_callers_names, 0.3) { taken_name_case(stack_legalize); }
STACKCHECK_CONTROL(BoundaryNamesControl, a_pass_blind_to_the_callers_names_fails, "differs") {
  taken_name_case(names_blind_legalize);
}

STACKCHECK_PROP(HoistLimits, params_plus_hoists_at_and_past_the_limits, 0.1) { limit_case(stack_legalize); }
STACKCHECK_CONTROL(HoistLimitsControl, a_pass_without_step_5s_param_check_fails, "expected step 5's") {
  limit_case(blind_legalize);
}

}  // namespace stackcheck
