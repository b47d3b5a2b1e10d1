// GraphBoundaryLegalized rules of a graph's body (graph_rule_context.h): 206 a `full` at its
// top, 207 a create whose shape is not a literal, 211 a view of a tensor param at the variable
// of a node-free loop whose trips are a scalar param, 212 an assemble of a fresh create into an
// InOut param at a scalar param's offset, 214 and 215 a launch in a loop whose trips are a
// scalar param or in an if, 216 a launch repeated past 1024 nodes, 217 a `read`.
#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "properties/gen/breakers/graph_rule_context.h"
#include "properties/gen/breakers/ir_build.h"

namespace stackcheck::gen::breakers {

using namespace ir;

bool break_full_in_graph(GraphRuleEdit& e) {
  FullRhs f;
  f.shape.push_back(int_expr(e.c.integer(1, 8)));
  f.value = int_expr(e.c.integer(0, 3));
  e.front(assign("zz_f", f));
  e.b.what = "a full at the top of the body";
  return true;
}

// A name, never a literal (Int and dim() are literals, ir::is_literal): a scalar param or a
// local bound to a literal, as in `s = 8; t = create [s]`.
bool break_create_shape(GraphRuleEdit& e) {
  ChoiceSource& c = e.c;
  CreateRhs cr;
  std::string n;
  if (!e.scalars.empty() && c.boolean()) {
    n = e.g.params[e.scalars[c.one_of(e.scalars.size())]].name;
  } else {
    n = "zz_n";
  }
  Expr x = var(n);
  if (c.boolean()) {
    Expr sum;
    sum.kind = Expr::Kind::Binary;
    sum.op = BinOp::Add;
    sum.args = {std::move(x), int_expr(1)};
    x = std::move(sum);
  }
  cr.shape.push_back(std::move(x));
  e.front(assign("zz_t", cr));
  if (n == "zz_n") e.front(assign("zz_n", ExprRhs{int_expr(c.integer(1, 8))}));
  e.b.what = "a create whose shape is not a literal";
  return true;
}

// A view (211), or an assemble into an InOut param (212), at offsets a replay would freeze.
bool break_frozen_offset(GraphRuleEdit& e) {
  ChoiceSource& c = e.c;
  BrokenProgram& b = e.b;
  Function& g = e.g;
  if (e.scalars.empty() || e.tensors.empty()) return false;
  const std::string n = g.params[e.scalars[c.one_of(e.scalars.size())]].name;
  std::vector<size_t> inout;
  for (size_t i : e.tensors)
    if (g.params[i].dir == Dir::InOut) inout.push_back(i);
  if (b.code == 212 && inout.empty()) return false;
  const Param& p = g.params[b.code == 211 ? e.tensors[c.one_of(e.tensors.size())] : inout[c.one_of(inout.size())]];
  // 211: inside a loop of no node whose trips are a scalar param, at the loop variable;
  // 212: at the top level, at the scalar param itself (derivable, never invariant).
  const Expr moving = b.code == 211 ? var("zz_j") : var(n);
  std::vector<Expr> offsets;
  ir::Dims ones;
  for (size_t d = 0; d < p.type.dims.size(); ++d) {
    offsets.push_back(d == 0 ? binary(BinOp::Mod, moving, int_expr(p.type.dims[0])) : int_expr(0));
    ones.push_back(1);
  }
  if (b.code == 211) {
    SliceRhs sl{p.name, std::move(offsets), ones};
    Stmt loop;
    loop.kind = Stmt::Kind::For;
    loop.name = "zz_j";
    loop.lo = int_expr(0);
    loop.hi = var(n);
    loop.step = int_expr(1);
    loop.body.push_back(assign("zz_v", sl));
    e.front(std::move(loop));
    b.what = fmt::format("a view of {} at the variable of a node-free loop of {} trips", p.name, n);
    b.marker = "zz_v = slice";
    b.message_has = {"zz_v"};
  } else {
    std::vector<Expr> zeros(p.type.dims.size(), int_expr(0));
    const std::string t = "zz_t", a = "zz_a";
    std::vector<Expr> shape;
    for (size_t d = 0; d < ones.size(); ++d) shape.push_back(int_expr(1));
    e.front(assign(a, AssembleRhs{p.name, t, std::move(offsets)}));
    e.front(assign(t, CreateRhs{std::move(shape)}));
    b.what = fmt::format("an assemble into {} at scalar param {}", p.name, n);
    b.marker = "zz_a = assemble";
  }
  return true;
}

// A launch wrapped in a loop whose trips are a scalar param (214) or in an if (215).
bool break_launch_in_block(GraphRuleEdit& e) {
  ChoiceSource& c = e.c;
  if (!e.launch) return false;
  Stmt s;
  s.body.push_back(e.fresh_launch(0));
  if (e.b.code == 214) {
    if (e.scalars.empty()) return false;
    s.kind = Stmt::Kind::For;
    s.name = "zz_j";
    s.lo = int_expr(0);
    s.hi = var(e.g.params[e.scalars[c.one_of(e.scalars.size())]].name);
    s.step = int_expr(1);
    e.b.what = "a launch in a loop whose trips are a scalar param";
  } else {
    s.kind = Stmt::Kind::If;
    s.lo = int_expr(0);
    s.cmp = CmpOp::Lt;
    s.hi = int_expr(c.integer(0, 2));
    e.b.what = "a launch in an if";
  }
  e.front(std::move(s));
  return true;
}

// A launch repeated past 1024 nodes.
bool break_node_count(GraphRuleEdit& e) {
  if (!e.launch) return false;
  const int copies = 1025 + static_cast<int>(e.c.integer(0, 3));
  // One insert of the lot (copies-1 first, as repeated front() would leave them): a front()
  // per copy moved the whole body each time, a million statement moves per case.
  std::vector<Stmt> pre;
  pre.reserve(static_cast<size_t>(copies));
  for (int k = copies; k-- > 0;) pre.push_back(e.fresh_launch(k));
  e.g.body.insert(e.g.body.begin(), std::make_move_iterator(pre.begin()), std::make_move_iterator(pre.end()));
  e.b.what = fmt::format("a launch repeated {} more times", copies);
  return true;
}

bool break_read_in_graph(GraphRuleEdit& e) {
  if (e.tensors.empty()) return false;
  const Param& p = e.g.params[e.tensors[e.c.one_of(e.tensors.size())]];
  Expr r;
  r.kind = Expr::Kind::Read;
  r.name = p.name;
  for (size_t d = 0; d < std::max<size_t>(1, p.type.dims.size()); ++d) r.args.push_back(int_expr(0));
  e.front(assign("zz_r", ExprRhs{r}));
  e.b.what = fmt::format("a read of {} in the body", p.name);
  return true;
}

}  // namespace stackcheck::gen::breakers
