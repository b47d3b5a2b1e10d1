// GraphBoundaryLegalized rules of a graph's calls (graph_rule_context.h): 208 the graph calls
// itself; 210 a call site with one argument too many, an argument of the other kind or of
// another shape, or a kernel launch in the body with one argument too many; 213 a launch's
// scalar argument made `n + 7919` of a scalar param n (neither a name nor invariant).
#include <fmt/format.h>

#include <string>
#include <utility>
#include <vector>

#include "properties/gen/breakers/graph_rule_context.h"
#include "properties/gen/breakers/ir_build.h"

namespace stackcheck::gen::breakers {

using namespace ir;

namespace {

// An argument of the other kind: a literal for a tensor param, a tensor for a scalar one.
bool argument_of_the_other_kind(GraphRuleEdit& e) {
  ChoiceSource& c = e.c;
  Function& g = e.g;
  if (e.sites.empty() || g.params.empty() || e.tensors.empty()) return false;
  Invoke* site = e.sites[c.one_of(e.sites.size())];
  if (site->args.size() != g.params.size()) return false;
  const size_t i = c.one_of(g.params.size());
  if (g.params[i].type.is_tensor()) {
    site->args[i] = int_expr(c.integer(0, 9));
    e.b.what = fmt::format("a literal passed for tensor param {}", g.params[i].name);
  } else {
    site->args[i] = site->args[e.tensors[c.one_of(e.tensors.size())]];
    e.b.what = fmt::format("a tensor passed for scalar param {}", g.params[i].name);
  }
  return true;
}

// A tensor of another shape: the argument of another tensor param whose type differs.
bool argument_of_another_shape(GraphRuleEdit& e) {
  ChoiceSource& c = e.c;
  Function& g = e.g;
  if (e.sites.empty()) return false;
  Invoke* site = e.sites[c.one_of(e.sites.size())];
  if (site->args.size() != g.params.size()) return false;
  std::vector<std::pair<size_t, size_t>> pairs;
  for (size_t i : e.tensors)
    for (size_t j : e.tensors)
      if (g.params[i].type.dims != g.params[j].type.dims) pairs.emplace_back(i, j);
  if (pairs.empty()) return false;
  const auto [i, j] = pairs[c.one_of(pairs.size())];
  site->args[i] = site->args[j];
  e.b.what = fmt::format("the argument of {} passed for {} (another shape)", g.params[j].name, g.params[i].name);
  return true;
}

// A kernel launch in the body with one argument too many: WellFormed's 5 too, the pass's
// precondition, so only the verifier, run directly, owns it.
bool launch_with_an_argument_too_many(GraphRuleEdit& e) {
  if (!e.launch) return false;
  Stmt s = e.fresh_launch(0);
  Invoke& v = *invoke_of(s);
  if (v.args.empty()) return false;
  v.args.push_back(v.args.back());
  e.front(std::move(s));
  e.b.what = "a kernel launch with one argument too many";
  e.b.pass_owns = false;
  return true;
}

}  // namespace

bool break_self_call(GraphRuleEdit& e) {
  Stmt s;
  s.kind = Stmt::Kind::Invoke;
  s.invoke.callee = e.g.name;
  for (const Param& p : e.g.params) s.invoke.args.push_back(var(p.name));
  e.front(std::move(s));
  e.b.what = "the graph calls itself";
  return true;
}

bool break_arguments(GraphRuleEdit& e) {
  switch (e.c.one_of(4)) {
    case 0: {
      if (e.sites.empty() || e.sites.front()->args.empty()) return false;
      Invoke* site = e.sites[e.c.one_of(e.sites.size())];
      site->args.push_back(site->args.back());
      e.b.what = "a call site with one argument too many";
      return true;
    }
    case 1: return argument_of_the_other_kind(e);
    case 2: return argument_of_another_shape(e);
    default: return launch_with_an_argument_too_many(e);
  }
}

bool break_launch_scalar(GraphRuleEdit& e) {
  BrokenProgram& b = e.b;
  if (e.scalars.empty()) return false;
  const std::string n = e.g.params[e.scalars[e.c.one_of(e.scalars.size())]].name;
  std::vector<std::pair<Invoke*, size_t>> at;
  for (Stmt& st : e.g.body)
    if (Invoke* i = invoke_of(st); i != nullptr && is_kernel(b.program, i->callee))
      for (const Function& k : b.program.functions)
        if (k.name == i->callee)
          for (size_t a = 0; a < i->args.size() && a < k.params.size(); ++a)
            if (!k.params[a].type.is_tensor()) at.emplace_back(i, a);
  if (at.empty()) return false;
  const auto [i, a] = at[e.c.one_of(at.size())];
  i->args[a] = binary(BinOp::Add, var(n), int_expr(7919));
  b.what = fmt::format("scalar argument {} of a launch of {} made {} + 7919", a, i->callee, n);
  b.marker = n + " + 7919";
  return true;
}

}  // namespace stackcheck::gen::breakers
