// The `.plan` rule family (plan_edit.h). Names and scopes: undefined names, a tensor used as a
// scalar and the reverse, a name bound twice, a loop variable after its loop, an undefined graph,
// a bad name, a graph defined twice.
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "properties/gen/breakers/plan_edit.h"

namespace stackcheck::gen::breakers {

using namespace runtime;

bool break_undefined_tensor(PlanEdit& ed) {
  ed.front.push_back(fill(whole("zz_undefined")));
  ed.b.expected = "undefined name 'zz_undefined'";
  return true;
}

bool break_undefined_scalar(PlanEdit& ed) {
  ed.front.push_back(set("zz_s", PlanExpr::binary(PlanBinOp::Add, name("zz_undefined"), lit(1))));
  ed.b.expected = "undefined name 'zz_undefined'";
  return true;
}

bool break_tensor_as_scalar(PlanEdit& ed) {
  const std::string t = ed.tensor();
  ed.front.push_back(set("zz_s", PlanExpr::binary(PlanBinOp::Add, name(t), lit(1))));
  ed.b.expected = fmt::format("'{}' is a tensor, not a scalar", t);
  return true;
}

bool break_scalar_as_tensor(PlanEdit& ed) {
  std::string s = ed.at.scalar;
  if (s.empty() || ed.c.boolean()) {
    s = "zz_s";
    ed.front.push_back(set(s, lit(ed.c.integer(0, 3))));
  }
  ed.front.push_back(fill(whole(s)));
  ed.b.expected = fmt::format("'{}' is a scalar, not a tensor", s);
  return true;
}

bool break_bound_twice(PlanEdit& ed) {
  std::string n;
  if (!ed.at.tensors.empty() && ed.c.boolean()) {
    n = ed.tensor();  // an entry (or param) bound again in its own body
  } else {
    n = "zz_s";
    ed.front.push_back(set(n, lit(0)));
  }
  ed.front.push_back(set(n, lit(1)));
  ed.b.expected = fmt::format("name '{}' bound twice in one body", n);
  return true;
}

bool break_out_of_scope(PlanEdit& ed) {
  ed.front.push_back(stmt(ForStmt{"zz_i", lit(0), lit(ed.c.integer(1, 3)), lit(1), {}}));
  ed.front.push_back(set("zz_s", name("zz_i")));
  ed.b.expected = "undefined name 'zz_i'";
  return true;
}

bool break_undefined_graph(PlanEdit& ed) {
  ed.front.push_back(
      stmt(SubmitGraphStmt{"zz_nograph", {PlanArg::tensor(PlanTag::Input, whole(ed.tensor()))}}));
  ed.b.expected = "undefined graph 'zz_nograph'";
  return true;
}

bool break_keyword_name(PlanEdit& ed) {
  // A keyword, or a word outside [A-Za-z_][A-Za-z0-9_]* (a built AST can hold any string);
  // at the limit: words made of the ends of each character class.
  static const std::vector<std::string> kw = {"for", "if", "set", "read", "submit", "alloc", "view", "graph"};
  static const std::vector<std::string> bad = {"9zz", "0", "zz-x", "z.z", "$z", "zz@", "`z", "z{", "[z", "z~"};
  const std::string k = ed.c.boolean() ? ed.c.pick(kw) : ed.c.pick(bad);
  ed.front.push_back(set(k, lit(1)));
  ed.b.expected = fmt::format("bad name '{}'", k);
  static const std::vector<std::string> first = {"A", "Z", "a", "z", "_"};
  static const std::vector<std::string> rest = {"A", "Z", "a", "z", "_", "0", "9"};
  const std::string ok = ed.c.pick(first) + "q_" + ed.c.pick(rest);
  ed.legal.push_back(set(ok, lit(1)));
  ed.b.limit = fmt::format("the name '{}' (the ends of each character class)", ok);
  return true;
}

bool break_graph_twice(PlanEdit& ed) {
  if (ed.b.plan.graphs.empty()) return false;
  const PlanGraph g = ed.b.plan.graphs[ed.c.one_of(ed.b.plan.graphs.size())];
  ed.b.plan.graphs.push_back(g);
  ed.b.where = "graphs";
  ed.b.expected = fmt::format("graph '{}' defined twice", g.name);
  return true;
}

}  // namespace stackcheck::gen::breakers
