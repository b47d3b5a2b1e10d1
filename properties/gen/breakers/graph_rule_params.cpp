// GraphBoundaryLegalized rules of a graph's boundary (graph_rule_context.h): 201 a scalar param
// made InOut or Out, 202 a tensor param made Out, 203 no tensor param left (each made a create
// in the body), 204 and 205 past 128 tensor or 64 scalar params (with the twin at exactly the
// limit), 209 a returned param made a whole view of itself.
#include <fmt/format.h>

#include <string>
#include <utility>
#include <vector>

#include "properties/gen/breakers/graph_rule_context.h"
#include "properties/gen/breakers/ir_build.h"
#include "stack/ir/walk.h"

namespace stackcheck::gen::breakers {

using namespace ir;

namespace {

// `count` params of the kind added to graph `fn` of `prog` (tensors of the type of param
// `model`, or i64 scalars), each call site passing the model param's argument again (tensors)
// or 0 (scalars).
void add_params(Program& prog, Function& fn, size_t count, bool tensor, size_t model) {
  const Type type = tensor ? fn.params[model].type : Type::i64();
  const std::vector<Invoke*> at_sites = call_sites(prog, fn.name);
  for (size_t k = 0; k < count; ++k) {
    Param p;
    p.name = fmt::format("zz_p{}", k);
    p.dir = Dir::In;
    p.type = type;
    fn.params.push_back(p);
    for (Invoke* site : at_sites) site->args.push_back(tensor ? site->args.at(model) : int_expr(0));
  }
}

}  // namespace

bool break_scalar_param_written(GraphRuleEdit& e) {
  if (e.scalars.empty()) return false;
  Param& p = e.g.params[e.scalars[e.c.one_of(e.scalars.size())]];
  p.dir = e.c.boolean() ? Dir::Out : Dir::InOut;
  e.b.what = fmt::format("scalar param {} made {}", p.name, p.dir == Dir::Out ? "Out" : "InOut");
  return true;
}

bool break_tensor_param_out(GraphRuleEdit& e) {
  if (e.tensors.empty()) return false;
  Param& p = e.g.params[e.tensors[e.c.one_of(e.tensors.size())]];
  p.dir = Dir::Out;
  e.b.what = fmt::format("tensor param {} made Out", p.name);
  return true;
}

// Every tensor param made a create of its shape in the body: an empty boundary.
bool break_empty_boundary(GraphRuleEdit& e) {
  Function& g = e.g;
  if (e.tensors.empty()) return false;
  for (const Stmt& s : g.body)
    if (s.kind == Stmt::Kind::Return && !s.returns.empty()) return false;  // 209 would follow
  for (size_t k = e.tensors.size(); k-- > 0;) {
    const size_t i = e.tensors[k];
    CreateRhs cr;
    for (int64_t d : g.params[i].type.dims) cr.shape.push_back(int_expr(d));
    e.front(assign(g.params[i].name, cr));
    g.params.erase(g.params.begin() + static_cast<long>(i));
    for (Invoke* site : e.sites)
      if (i < site->args.size()) site->args.erase(site->args.begin() + static_cast<long>(i));
  }
  e.b.what = fmt::format("its {} tensor params made creates in the body", e.tensors.size());
  return true;
}

// 204: 129+ tensor params (call sites pass a tensor of the same type for each); 205: 65+
// scalar params (call sites pass literals).
bool break_param_limit(GraphRuleEdit& e) {
  BrokenProgram& b = e.b;
  const bool tensor = b.code == 204;
  if (tensor && e.tensors.empty()) return false;
  const size_t have = tensor ? e.tensors.size() : e.scalars.size();
  const size_t limit = tensor ? 128 : 64;
  if (have > limit) return false;  // already past it (an input broken before)
  const size_t add = limit + 1 - have + static_cast<size_t>(e.c.integer(0, 2));
  const size_t model = tensor ? e.tensors.front() : 0;
  // The same edit with exactly the limit's params, which every stage must take.
  if (have < limit) {
    Program at = e.legal;
    for (Function& fn : at.functions)
      if (fn.name == e.g.name) add_params(at, fn, limit - have, tensor, model);
    b.at_limit = std::move(at);
    b.limit = fmt::format("{} {} params", limit, tensor ? "tensor" : "scalar");
    // The pipeline runs Simplify first: inlining a 1-trip loop of the graph can give
    // LegalizeGraphBoundary a view or a scalar to hoist into one more param, past the limit
    // (measured: 2 cases in about 2,000 draws). The twin is then legal to the verifier only.
    bool loops = false;
    ir::walk_statements(e.g.body, [&](const Stmt& st) { loops = loops || st.kind == Stmt::Kind::For; });
    if (loops) b.at_limit_runs = false;
  }
  add_params(b.program, e.g, add, tensor, model);
  b.what = fmt::format("{} {} params added ({} in all)", add, tensor ? "tensor" : "scalar", have + add);
  // Codegen's 305 refuses a `submit_graph` with too many args: a graph no statement calls is
  // never submitted, and its definition alone is not codegen's to refuse.
  if (e.sites.empty()) b.codegen_code = 0;
  return true;
}

// A return made a whole view of the param it returns: a slice ends every lineage.
bool break_return_view(GraphRuleEdit& e) {
  Function& g = e.g;
  if (g.body.empty() || g.body.back().kind != Stmt::Kind::Return) return false;
  Stmt& ret = g.body.back();
  std::vector<size_t> at;
  for (size_t j = 0; j < ret.returns.size(); ++j)
    for (size_t i : e.tensors)
      if (g.params[i].name == ret.returns[j]) at.push_back(j);
  if (at.empty()) return false;
  const size_t j = at[e.c.one_of(at.size())];
  const Param* p = nullptr;
  for (size_t i : e.tensors)
    if (g.params[i].name == ret.returns[j]) p = &g.params[i];
  SliceRhs sl;
  sl.source = p->name;
  for (int64_t d : p->type.dims) {
    sl.offsets.push_back(int_expr(0));
    sl.sizes.push_back(d);
  }
  e.b.what = fmt::format("return {} of {} made a whole view of it", j, p->name);
  ret.returns[j] = "zz_w";
  g.body.insert(g.body.end() - 1, assign("zz_w", sl));
  return true;
}

}  // namespace stackcheck::gen::breakers
