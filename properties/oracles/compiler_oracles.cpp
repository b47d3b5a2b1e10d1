#include "properties/oracles/compiler_oracles.h"
#include "properties/oracles/codegen_layout.h"

#include "stack/codegen/codegen.h"
#include "stack/interp/interp.h"
#include "stack/ir/equal.h"
#include "stack/ir/printer.h"
#include "stack/ir/walk.h"
#include "stack/passes/pipeline.h"
#include "stack/verify/graph_boundary_legalized.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>

namespace stackcheck::oracles {

namespace {

// COMPILER.md §5's pipeline table (requires -> produces, invalidates), written out here so a
// pass that declares otherwise is a finding: the pass manager's ledger (held = (held -
// invalidated) + produced) and the verify instrument trust these declarations.
struct DeclaredContract {
  std::string_view pass;
  passes::PropertySet required, produced, invalidated;
};
constexpr DeclaredContract kSpecContracts[] = {
    {"Simplify", passes::kWellFormed, 0, passes::kGraphBoundaryLegalized},
    {"NormalizeReturnOrder", passes::kWellFormed, passes::kReturnParamsExplicit, 0},
    {"LegalizeGraphBoundary", passes::kWellFormed | passes::kReturnParamsExplicit, passes::kGraphBoundaryLegalized, 0},
};

std::string property_set_text(passes::PropertySet s) {
  std::string out;
  for (passes::Property p : passes::properties_in(s)) out += (out.empty() ? "" : "|") + passes::property_name(p);
  return out.empty() ? "{}" : out;
}

}  // namespace

Verdict check_pass_contracts(const passes::PassManager& pm) {
  for (const auto& pass : pm.passes()) {
    const auto* spec = std::find_if(std::begin(kSpecContracts), std::end(kSpecContracts),
                                    [&](const DeclaredContract& c) { return c.pass == pass->name(); });
    if (spec == std::end(kSpecContracts)) continue;  // not a pass of the spec's table
    const std::pair<const char*, std::pair<passes::PropertySet, passes::PropertySet>> parts[] = {
        {"requires", {pass->required(), spec->required}},
        {"produces", {pass->produced(), spec->produced}},
        {"invalidates", {pass->invalidated(), spec->invalidated}}};
    for (const auto& [what, sets] : parts)
      if (sets.first != sets.second)
        return Verdict::fail("pass-contract", fmt::format("{} declares it {} {}; COMPILER.md's pipeline table says {}",
                                                          spec->pass, what, property_set_text(sets.first),
                                                          property_set_text(sets.second)));
  }
  return Verdict::pass();
}

PipelineRun run_pipeline(const ir::Program& p, const passes::PipelineOptions& options) {
  PipelineRun out;
  passes::PassManagerOptions manager;  // verify on
  manager.result_program = false;      // the stages come from the snapshots
  passes::PassManager pm = passes::default_pipeline(options, std::move(manager));
  passes::SnapshotInstrument& snapshots = pm.emplace_instrument<passes::SnapshotInstrument>();
  const passes::PipelineResult r = pm.run(p);
  for (auto& s : snapshots.take()) out.stages.push_back({std::move(s.pass), std::move(s.program)});
  const auto* legalize = passes::find_pass<passes::LegalizeGraphBoundary>(pm);
  if (legalize != nullptr && r.ran(legalize->name())) {
    out.boundary_report = legalize->report();
  }
  switch (r.outcome) {
    case passes::Outcome::Ok: {
      out.verdict = check_pass_contracts(pm);
      // Every pass ran: the output holds what codegen requires (WF, RPE, GBL), by the ledger.
      constexpr passes::PropertySet kAll =
          passes::kWellFormed | passes::kReturnParamsExplicit | passes::kGraphBoundaryLegalized;
      if (out.verdict.passed() && r.stopped_after.empty() && r.passes_run.size() == pm.passes().size() &&
          (r.held & kAll) != kAll)
        out.verdict = Verdict::fail("pass-contract", fmt::format("the pipeline ran every pass and holds only {}",
                                                                 property_set_text(r.held)));
      break;
    }
    case passes::Outcome::PassBug:
      out.verdict = Verdict::fail("verify-after-pass", fmt::format("{}: {}", r.pass, r.message));
      break;
    case passes::Outcome::InputRejected: {
      const std::string first = r.diagnostics.empty() ? r.message : r.diagnostics.front().render("");
      out.verdict =
          Verdict::inconclusive(Inconclusive::kInputRejected, fmt::format("{} rejected the input: {}", r.pass, first));
      out.rejected_by = r.pass;
      // The manager's one-line message names the first finding (what a user reads first).
      if (!r.diagnostics.empty() && r.message.find(r.diagnostics.front().render("")) == std::string::npos)
        out.verdict = Verdict::fail("pipeline-message", fmt::format("{} rejected the input with the message \"{}\", "
                                                                    "which does not give its first finding {}",
                                                                    r.pass, r.message, first));
      out.diagnostics = r.diagnostics;
      break;
    }
  }
  if (!out.verdict.failed()) {
    for (const auto& st : out.stages) {
      if (st.pass != "Simplify") continue;
      if (Verdict v = check_simplified(st.program); v.failed()) out.verdict = std::move(v);
      break;
    }
  }
  return out;
}

CompiledPlan compile_to_plan(const ir::Program& p, const passes::PipelineOptions& options) {
  return compile_pipeline_run(run_pipeline(p, options));
}

CompiledPlan compile_pipeline_run(PipelineRun run) {
  CompiledPlan out;
  out.pipeline = std::move(run);
  out.verdict = out.pipeline.verdict;
  if (!out.verdict.passed()) return out;
  codegen::CodegenResult cg = codegen::generate_orchestration(out.pipeline.stages.back().program);
  if (!cg.ok) {
    out.verdict =
        Verdict::fail("codegen", "codegen rejects a legalized program: " +
                                     (cg.diagnostics.empty() ? std::string("?") : cg.diagnostics.front().render("")));
    return out;
  }
  // The plan's layout is judged on every compile: a fresh create allocated, a tag or a
  // location off computes the same bytes, so the differential never sees it.
  if (Verdict layout = check_codegen_layout(out.pipeline.stages.back().program, cg.program); !layout.passed()) {
    out.verdict = std::move(layout);
    return out;
  }
  out.plan = std::move(cg.program);
  out.entry_names = std::move(cg.entry_names);
  return out;
}

Verdict check_same_semantics(const ir::Program& p, const ir::Program& q, uint64_t seed, const std::string& what) {
  return check_same_semantics(interp::run(p, seed), q, seed, what);
}

namespace {

// The original traps (a zero divisor, a window or index out of bounds, a zero step): every
// pass keeps the statement that traps (COMPILER.md §Simplify: definitions kept, a zero divisor
// never folded; hoisting moves only creates, which cannot trap), so the transformed program
// must trap the same way. No outputs to compare: inconclusive when it does.
Verdict check_same_trap(const interp::Error& ea, const ir::Program& q, uint64_t seed, const std::string& what) {
  const interp::Result b = interp::run(q, seed);
  if (b.ok())
    return Verdict::fail("semantics", fmt::format("{} runs to its end where the original errs (seed {}): {}", what,
                                                  seed, ea.render()));
  const interp::Error& eb = b.error();
  if (eb.kind == interp::ErrorKind::Budget)
    return Verdict::inconclusive(Inconclusive::kInterpreterBudget, what + " exhausts the budget: " + eb.render());
  if (eb.kind != ea.kind)
    return Verdict::fail("semantics", fmt::format("{} errs with {} where the original errs with {} (seed {}): {}", what,
                                                  interp::error_kind_name(eb.kind), interp::error_kind_name(ea.kind),
                                                  seed, eb.render()));
  return Verdict::inconclusive(Inconclusive::kInterpreterError,
                               fmt::format("original program errs, and {} errs the same way: {}", what, ea.render()));
}

}  // namespace

Verdict check_same_semantics(const interp::Result& a, const ir::Program& q, uint64_t seed, const std::string& what) {
  if (!a.ok()) {
    const interp::ErrorKind k = a.error().kind;
    if (k == interp::ErrorKind::Budget || k == interp::ErrorKind::Invalid)
      return Verdict::inconclusive(
          k == interp::ErrorKind::Budget ? Inconclusive::kInterpreterBudget : Inconclusive::kInterpreterError,
          "original program errs: " + a.error().render());
    return check_same_trap(a.error(), q, seed, what);
  }
  const interp::Result b = interp::run(q, seed);
  if (!b.ok()) {
    if (b.error().kind == interp::ErrorKind::Budget)
      return Verdict::inconclusive(Inconclusive::kInterpreterBudget,
                                   what + " exhausts the budget: " + b.error().render());
    return Verdict::fail("semantics", fmt::format("{} errs where the original does not: {}", what, b.error().render()));
  }
  const auto& ta = a.outputs().tensors;
  const auto& tb = b.outputs().tensors;
  if (ta.size() != tb.size())
    return Verdict::fail("semantics", fmt::format("{} has {} entry tensors, original {}", what, tb.size(), ta.size()));
  for (size_t i = 0; i < ta.size(); ++i) {
    if (ta[i].name != tb[i].name)
      return Verdict::fail(
          "semantics", fmt::format("{}: entry tensor {} is '{}', originally '{}'", what, i, tb[i].name, ta[i].name));
    if (ta[i].bytes == tb[i].bytes) continue;
    size_t k = 0;
    while (k < ta[i].bytes.size() && k < tb[i].bytes.size() && ta[i].bytes[k] == tb[i].bytes[k]) ++k;
    return Verdict::fail("semantics", fmt::format("{} differs from the original (seed {}): tensor {} element {}", what,
                                                  seed, ta[i].name, k / 4));
  }
  return Verdict::pass();
}

Verdict check_node_counts(const ir::Program& legalized, const passes::LegalizeGraphBoundaryReport& report) {
  const auto counts = verify::graph_node_counts(legalized);
  for (const auto& g : report.graphs) {
    if (!g.checked) continue;
    auto it = counts.find(g.graph);
    if (it == counts.end())
      return Verdict::fail("node-count", fmt::format("verifier has no node count for graph {}", g.graph));
    if (it->second != g.node_count)
      return Verdict::fail(
          "node-count", fmt::format("graph {}: pass counts {} nodes, verifier {}", g.graph, g.node_count, it->second));
  }
  return Verdict::pass();
}

Verdict check_hoisted_creates(const passes::LegalizeGraphBoundaryReport& report) {
  for (const auto& g : report.graphs)
    for (const auto& a : g.appended) {
      if (a.kind != passes::HoistKind::Create) continue;
      if (a.depth != 0)
        return Verdict::fail("hoist-depth", fmt::format("graph {}: create {} hoisted from loop depth {} ({}:{})",
                                                        g.graph, a.name, a.depth, a.loc.line, a.loc.column));
      if (a.dir != ir::Dir::InOut)
        return Verdict::fail("hoist-inout", fmt::format("graph {}: hoisted create {} is {}, not InOut", g.graph, a.name,
                                                        ir::dir_name(a.dir)));
    }
  return Verdict::pass();
}

namespace {

// Root tracking for check_graph_writes_inout: a tensor name -> the param index it is a
// window of (or none: a local buffer). Tuples map to one root per result.
struct WriteWalk {
  const ir::Program& prog;
  const ir::Function& fn;
  std::map<std::string, std::optional<size_t>> root;
  std::map<std::string, std::vector<std::optional<size_t>>> tuples;
  std::set<size_t> written;

  const ir::Function* callee(const std::string& name) const {
    for (const auto& f : prog.functions)
      if (f.name == name) return &f;
    return nullptr;
  }
  std::optional<size_t> root_of(const ir::Expr& e) const {
    if (e.kind != ir::Expr::Kind::Var) return std::nullopt;
    auto it = root.find(e.name);
    return it == root.end() ? std::nullopt : it->second;
  }
  // Roots of an invocation's results; marks params written through Out/InOut args.
  std::vector<std::optional<size_t>> invoke(const ir::Invoke& inv) {
    std::vector<std::optional<size_t>> results;
    const ir::Function* f = callee(inv.callee);
    if (!f) return results;
    for (size_t i = 0; i < f->params.size() && i < inv.args.size(); ++i) {
      if (f->params[i].dir == ir::Dir::In) continue;
      if (auto r = root_of(inv.args[i])) written.insert(*r);
    }
    if (f->kind == ir::Function::Kind::Kernel) {
      for (const auto& rname : f->kernel_returns) {
        std::optional<size_t> r;
        for (size_t i = 0; i < f->params.size(); ++i)
          if (f->params[i].name == rname && i < inv.args.size()) r = root_of(inv.args[i]);
        results.push_back(r);
      }
    } else {
      results.assign(f->results.size(), std::nullopt);
    }
    return results;
  }
  void visit(const ir::Stmt& s, const ir::Place&) {
    if (s.kind == ir::Stmt::Kind::Invoke) invoke(s.invoke);
    if (s.kind == ir::Stmt::Kind::Assign) assign(s);
  }
  void assign(const ir::Stmt& s) {
    if (auto* e = std::get_if<ir::ExprRhs>(&s.rhs)) {
      if (e->expr.kind == ir::Expr::Kind::Var && root.count(e->expr.name)) root[s.name] = root[e->expr.name];
    } else if (auto* sl = std::get_if<ir::SliceRhs>(&s.rhs)) {
      root[s.name] = root.count(sl->source) ? root[sl->source] : std::nullopt;
    } else if (auto* as = std::get_if<ir::AssembleRhs>(&s.rhs)) {
      auto r = root.count(as->target) ? root[as->target] : std::nullopt;
      if (r) written.insert(*r);
      root[s.name] = r;
    } else if (std::holds_alternative<ir::CreateRhs>(s.rhs) || std::holds_alternative<ir::FullRhs>(s.rhs)) {
      root[s.name] = std::nullopt;
    } else if (auto* inv = std::get_if<ir::InvokeRhs>(&s.rhs)) {
      auto results = invoke(inv->invoke);
      if (!inv->invoke.submit && results.size() == 1)
        root[s.name] = results[0];
      else
        tuples[s.name] = std::move(results);
    } else if (auto* tg = std::get_if<ir::TupleGetRhs>(&s.rhs)) {
      auto it = tuples.find(tg->tuple);
      if (it != tuples.end() && tg->index >= 0 && static_cast<size_t>(tg->index) < it->second.size())
        root[s.name] = it->second[static_cast<size_t>(tg->index)];
    }
  }
};

}  // namespace

Verdict check_graph_writes_inout(const ir::Program& p) {
  for (const auto& f : p.functions) {
    if (f.kind != ir::Function::Kind::Graph) continue;
    WriteWalk w{p, f, {}, {}, {}};
    for (size_t i = 0; i < f.params.size(); ++i) {
      if (!f.params[i].type.is_tensor()) continue;
      if (f.params[i].dir == ir::Dir::Out)
        return Verdict::fail("graph-out-param", fmt::format("graph {}: param {} is Out", f.name, f.params[i].name));
      w.root[f.params[i].name] = i;
    }
    ir::walk_statements(f.body, w);
    for (size_t i : w.written)
      if (f.params[i].dir != ir::Dir::InOut)
        return Verdict::fail("graph-write-inout", fmt::format("graph {}: param {} is written but declared {}", f.name,
                                                              f.params[i].name, ir::dir_name(f.params[i].dir)));
  }
  return Verdict::pass();
}

Verdict check_deterministic_idempotent(const std::function<std::unique_ptr<passes::Pass>()>& make,
                                       const ir::Program& p) {
  auto pass = make();
  const passes::PassResult a = pass->run(p);
  const passes::PassResult b = make()->run(p);
  const std::string name(pass->name());
  if (a.ok != b.ok || (a.ok && !ir::equal(a.program, b.program)))
    return Verdict::fail("deterministic", name + " gives different results on the same input");
  if (!a.ok) return Verdict::inconclusive(Inconclusive::kInputRejected, name + " rejected the input");
  const passes::PassResult c = make()->run(a.program);
  if (!c.ok) return Verdict::fail("idempotent", name + " rejects its own output");
  if (!ir::equal(c.program, a.program))
    return Verdict::fail("idempotent", fmt::format("{}(p) != {}({}(p)):\n{}\nvs\n{}", name, name, name,
                                                   ir::print_program(a.program), ir::print_program(c.program)));
  return Verdict::pass();
}

}  // namespace stackcheck::oracles
