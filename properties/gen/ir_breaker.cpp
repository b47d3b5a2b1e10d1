// break_at_call_site (ir_breaker.h). The rule families are in breakers/: GraphBoundaryLegalized
// (break_graph_rule) in graph_rule_*.cpp, WellFormed (break_well_formed_rule,
// break_expression_at) in well_formed_*.cpp.
#include "properties/gen/ir_breaker.h"

#include <fmt/format.h>

#include "properties/gen/breakers/ir_build.h"

#include <optional>
#include <string>
#include <vector>

namespace stackcheck::gen {

using namespace ir;

using breakers::assign;
using breakers::call_sites;
using breakers::int_expr;
using breakers::var;

std::optional<BrokenProgram> break_at_call_site(ChoiceSource& c, const Program& wf) {
  BrokenProgram b;
  std::vector<size_t> graphs;
  for (size_t i = 0; i < wf.functions.size(); ++i)
    if (wf.functions[i].kind == Function::Kind::Graph &&
        !call_sites(const_cast<Program&>(wf), wf.functions[i].name).empty())
      graphs.push_back(i);
  if (graphs.empty()) return std::nullopt;
  const size_t gi = graphs[c.one_of(graphs.size())];
  std::vector<size_t> tensors;
  for (size_t i = 0; i < wf.functions[gi].params.size(); ++i)
    if (wf.functions[gi].params[i].type.is_tensor()) tensors.push_back(i);
  const bool view = !tensors.empty() && c.boolean();
  const size_t tp = view ? tensors[c.one_of(tensors.size())] : 0;
  const int64_t extent = view ? wf.functions[gi].params[tp].type.dims.at(0) : 0;
  const size_t n_sites = call_sites(const_cast<Program&>(wf), wf.functions[gi].name).size();
  const size_t bad = c.one_of(n_sites);
  const bool every = n_sites >= 2 && c.chance(30);  // every site breaks it: one rejection each
  const int64_t k = c.integer(1, 9);
  // The program with `zz_s` passed `at` at the chosen site and a legal value elsewhere.
  const auto build = [&](int64_t at) {
    Program p = wf;
    Function& g = p.functions[gi];
    Param q;
    q.name = "zz_s";
    q.dir = Dir::In;
    q.type = Type::i64();
    g.params.push_back(q);
    if (view) {
      const Param& t = g.params[tp];
      SliceRhs sl;
      sl.source = t.name;
      for (size_t d = 0; d < t.type.dims.size(); ++d) {
        sl.offsets.push_back(d == 0 ? var("zz_s") : int_expr(0));
        sl.sizes.push_back(1);
      }
      g.body.insert(g.body.begin(), assign("zz_v", std::move(sl)));
    } else {
      Expr e;
      e.kind = Expr::Kind::Binary;
      e.op = BinOp::Div;
      e.args = {int_expr(k), var("zz_s")};
      g.body.insert(g.body.begin(), assign("zz_d", ExprRhs{std::move(e)}));
    }
    const std::vector<Invoke*> sites = call_sites(p, g.name);
    for (size_t i = 0; i < sites.size(); ++i)
      sites[i]->args.push_back(int_expr(i == bad || every ? at : view ? 0 : k));
    return p;
  };
  b.graph = wf.functions[gi].name;
  b.broken_sites = every ? n_sites : 1;
  if (view) {
    b.code = 11;
    b.program = build(extent);
    b.at_limit = build(extent - 1);
    b.limit = fmt::format("a view of {} at offset {}, its last element", wf.functions[gi].params[tp].name, extent - 1);
    b.what = fmt::format("a view of {} at offset {} hoisted to call site {} of {}", wf.functions[gi].params[tp].name,
                         extent, bad, b.graph);
    b.message_has = {fmt::format("hoisting 'zz_v' (line"), fmt::format("of graph '{}' to this call gives a view out of "
                                                                       "bounds: offset {} of extent 1 in {}",
                                                                       b.graph, extent, extent)};
  } else {
    b.code = 13;
    b.program = build(0);
    b.what = fmt::format("{} / zz_s hoisted to call site {} of {}, which passes 0", k, bad, b.graph);
    b.message_has = {fmt::format("hoisting 'zz_d' (line"),
                     fmt::format("of graph '{}' to this call gives a static zero divisor: {} / 0", b.graph, k)};
  }
  if (every) {
    b.what += fmt::format(", and so does every other of its {} sites", n_sites);
    if (view) b.limit += ", at every site";
  }
  return b;
}

}  // namespace stackcheck::gen
