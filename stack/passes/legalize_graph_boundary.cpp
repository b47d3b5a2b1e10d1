// LegalizeGraphBoundary: the driver of the five steps (see the header); the steps live in
// stack/passes/legalize_graph_boundary/.
#include "stack/passes/legalize_graph_boundary.h"

#include "stack/defects/defects.h"
#include "stack/passes/legalize_graph_boundary/internal.h"
#include "stack/support/enum_names.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

namespace stackcheck::passes {

const char* hoist_kind_name(HoistKind k) {
  static constexpr auto kNames = support::names_through<HoistKind::Scalar>({"create", "view", "scalar"});
  return support::enum_name(kNames, k);
}

const GraphReport* LegalizeGraphBoundaryReport::find(std::string_view graph) const {
  for (const GraphReport& g : graphs) {
    if (g.graph == graph) return &g;
  }
  return nullptr;
}

namespace {

// Diagnostics in program order: by function, then by location (stable, so that nodes
// built in code, all at 0:0, keep the order they were found in).
void sort_diagnostics(const ir::Program& p, ir::Diagnostics& ds) {
  auto index = [&](const std::string& fn) {
    for (size_t i = 0; i < p.functions.size(); ++i) {
      if (p.functions[i].name == fn) return i;
    }
    return p.functions.size();
  };
  std::stable_sort(ds.begin(), ds.end(), [&](const ir::Diagnostic& a, const ir::Diagnostic& b) {
    const size_t fa = index(a.location.function), fb = index(b.location.function);
    if (fa != fb) return fa < fb;
    if (a.location.line != b.location.line) return a.location.line < b.location.line;
    return a.location.column < b.location.column;
  });
}

PassResult reject(const ir::Program& p, ir::Diagnostics diags) {
  sort_diagnostics(p, diags);
  PassResult r;
  r.ok = false;
  r.diagnostics = std::move(diags);
  return r;
}

}  // namespace

PassResult legalize_graph_boundary(const ir::Program& input, const LegalizeGraphBoundaryOptions& options,
                                   LegalizeGraphBoundaryReport* report) {
  LegalizeGraphBoundaryReport local_report;
  LegalizeGraphBoundaryReport& rep = report != nullptr ? *report : local_report;
  rep.graphs.clear();

  const graph_boundary::Context ctx(input);
  ir::Diagnostics diags;
  std::unordered_map<std::string, graph_boundary::LegalizedGraph> legal;
  ir::Program out = input;
  bool any_graph = false;

  // Steps 1-3, graph by graph.
  for (size_t i = 0; i < input.functions.size(); ++i) {
    const ir::Function& g = input.functions[i];
    if (g.kind != ir::Function::Kind::Graph) continue;
    any_graph = true;
    GraphReport gr;
    gr.graph = g.name;
    const size_t before = diags.size();
    graph_boundary::check_original(ctx, g, diags);
    if (diags.size() == before && legal.count(g.name) == 0) {
      // Built in place: the types' tables keep ctx's arena (an assignment would copy them out).
      graph_boundary::FunctionTypes types = graph_boundary::infer_types(ctx, g);
      graph_boundary::Collected collected = graph_boundary::collect(ctx, g, types, options);
      graph_boundary::LegalizedGraph lg{&g, std::move(collected), std::move(types)};
      out.functions[i] = graph_boundary::rewrite_graph(g, lg.collected);
      for (size_t idx : lg.collected.param_order) {
        const graph_boundary::Hoist& h = lg.collected.hoists[idx];
        gr.appended.push_back(AppendedParam{h.def->name, h.def->loc, h.kind, h.depth, h.dir, h.type});
      }
      legal.emplace(g.name, std::move(lg));
    }
    rep.graphs.push_back(std::move(gr));
  }
  if (!any_graph) return PassResult{true, input, {}};
  if (!diags.empty()) return reject(input, std::move(diags));

  // Step 4: every caller (graphs calling graphs were rejected in step 1).
  for (size_t i = 0; i < input.functions.size(); ++i) {
    if (input.functions[i].kind != ir::Function::Kind::Orchestration) continue;
    const graph_boundary::FunctionTypes caller_types = graph_boundary::infer_types(ctx, input.functions[i]);
    graph_boundary::rewrite_call_sites(out.functions[i], caller_types, legal, diags);
  }
  if (!diags.empty()) return reject(input, std::move(diags));

  // Step 5 on the rewritten program.
  const graph_boundary::Context out_ctx(out);
  for (GraphReport& gr : rep.graphs) {
    const ir::Function* g = out_ctx.find(gr.graph);
    if (g == nullptr || legal.count(gr.graph) == 0) continue;
    gr.node_count = graph_boundary::check_result(out_ctx, *g, diags);
    if (defects::active(defects::Defect::kNodeCountBeforeRewrite)) {
      // Zoo: the count (and its 1..1024 limit) taken on the graph as it came in.
      const graph_boundary::LegalizedGraph& lg = legal.at(gr.graph);
      gr.node_count = graph_boundary::count_nodes(ctx, lg.original->body, lg.types.dims_of());
      if (gr.node_count < 1 || gr.node_count > graph_boundary::kMaxNodes)
        diags.push_back(graph_boundary::make_diag(
            216, *g, g->loc,
            fmt::format("graph has {} nodes (must be 1..{})", gr.node_count, graph_boundary::kMaxNodes)));
    }
    gr.checked = true;
    graph_boundary::check_call_sites(out_ctx, *g, diags);
  }
  if (!diags.empty()) return reject(out, std::move(diags));
  return PassResult{true, std::move(out), {}};
}

PassResult LegalizeGraphBoundary::run(const ir::Program& input) {
  return legalize_graph_boundary(input, options_, &report_);
}

}  // namespace stackcheck::passes
