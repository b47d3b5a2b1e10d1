// Where a broken scalar expression goes (rules 3, 11 and 13: WellFormedEdit::scalar_site,
// well_formed_context.h): 0-5 the places of a scalar statement (an assignment, either side of an
// if's condition, a loop's upper bound, an assignment in a loop or an if body), 6-11 the
// operand places of tensor statements and calls, where each owner meets the broken expression
// inside another rule's context (a loop's lower bound or step, a create's or a full's extent, a
// full's value, a view's offset, an assemble's offset, a call's scalar argument).
#include <string>
#include <utility>
#include <vector>

#include "properties/gen/breakers/ir_build.h"
#include "properties/gen/breakers/well_formed_context.h"
#include "stack/ir/printer.h"

namespace stackcheck::gen::breakers {

using namespace ir;

namespace {

// A for loop (zz_i in range(0, 1..3, 1)) or an if (0 < 1..3) holding `inner`.
Stmt block(ChoiceSource& c, Stmt::Kind kind, std::vector<Stmt> inner) {
  Stmt s;
  s.kind = kind;
  s.lo = int_expr(0);
  s.hi = int_expr(c.integer(1, 3));
  if (kind == Stmt::Kind::For) {
    s.name = "zz_i";
    s.step = int_expr(1);
  } else {
    s.cmp = CmpOp::Lt;
  }
  s.body = std::move(inner);
  return s;
}

// Places 6-11. `scalar_args`: (top-level statement << 8) | argument of the calls passing a
// scalar param.
void operand_place(WellFormedEdit& e, size_t site, Expr bad, const std::vector<size_t>& scalar_args) {
  ChoiceSource& c = e.c;
  BrokenProgram& b = e.b;
  switch (site) {
    case 6: {  // zz_t = create [bad]  /  zz_t = full [bad], 1  /  zz_t = full [2], bad
      const size_t way = c.one_of(3);
      if (way == 0) {
        e.front(assign("zz_t", CreateRhs{{std::move(bad)}}));
        b.what += ", in a create's extent";
      } else {
        FullRhs f;
        f.shape.push_back(way == 1 ? std::move(bad) : int_expr(2));
        f.value = way == 1 ? int_expr(1) : std::move(bad);
        e.front(assign("zz_t", std::move(f)));
        b.what += way == 1 ? ", in a full's extent" : ", in a full's value";
      }
      return;
    }
    case 7:
    case 9: {  // for zz_i in range(bad, 2, 1) / range(0, 2, bad)
      Stmt s = block(c, Stmt::Kind::For, {assign("zz_u", ExprRhs{int_expr(1)})});
      (site == 7 ? s.lo : s.step) = std::move(bad);
      e.front(std::move(s));
      b.what += site == 7 ? ", in a loop's lower bound" : ", in a loop's step";
      return;
    }
    case 8: {  // zz_v = slice(p, [bad, 0, ..], [1, ..])
      const Param& t = e.entry->params[e.tensor_params[c.one_of(e.tensor_params.size())]];
      SliceRhs v;
      v.source = t.name;
      for (size_t k = 0; k < t.type.dims.size(); ++k) {
        v.offsets.push_back(k == 0 ? std::move(bad) : int_expr(0));
        v.sizes.push_back(1);
      }
      e.front(assign("zz_v", std::move(v)));
      b.what += ", in a view's offset";
      return;
    }
    case 10: {  // zz_a = create [2]; zz_b = create [1]; zz_c = assemble(zz_a, zz_b, [bad])
      AssembleRhs as;
      as.target = "zz_a";
      as.source = "zz_b";
      as.offsets.push_back(std::move(bad));
      e.front(assign("zz_c", std::move(as)));
      e.front(assign("zz_b", CreateRhs{{int_expr(1)}}));
      e.front(assign("zz_a", CreateRhs{{int_expr(2)}}));
      b.what += ", in an assemble's offset";
      return;
    }
    default: {  // 11: a call's scalar argument
      const size_t at = scalar_args[c.one_of(scalar_args.size())];
      invoke_of(e.body[at >> 8])->args[at & 0xff] = std::move(bad);
      b.what += ", in a call's scalar argument";
    }
  }
}

// Places 0-5.
void statement_place(WellFormedEdit& e, size_t site, Expr bad) {
  ChoiceSource& c = e.c;
  BrokenProgram& b = e.b;
  switch (site) {
    case 0:
      e.front(assign("zz_s", ExprRhs{std::move(bad)}));
      b.marker = "zz_s =";
      b.what += ", in an assignment";
      break;
    case 1:
    case 2: {  // if bad < zz_c / if zz_c < bad
      const bool left = c.boolean();
      Stmt s = block(c, Stmt::Kind::If, {assign("zz_u", ExprRhs{int_expr(1)})});
      (left ? s.lo : s.hi) = std::move(bad);
      (left ? s.hi : s.lo) = var("zz_c");
      e.front(std::move(s));
      e.front(assign("zz_c", ExprRhs{int_expr(c.integer(0, 3))}));
      b.marker = left ? "< zz_c {" : "if zz_c <";
      b.what += left ? ", in an if condition's left side" : ", in an if condition's right side";
      break;
    }
    case 3: {  // for zz_i in range(0, bad, 1)
      Stmt s = block(c, Stmt::Kind::For, {assign("zz_u", ExprRhs{int_expr(1)})});
      s.hi = std::move(bad);
      e.front(std::move(s));
      b.what += ", in a loop's upper bound";
      break;
    }
    default: {  // zz_s = bad inside a loop or an if
      const bool loop = c.boolean();
      e.front(block(c, loop ? Stmt::Kind::For : Stmt::Kind::If, {assign("zz_s", ExprRhs{std::move(bad)})}));
      b.marker = "zz_s =";
      b.what += loop ? ", in a loop body" : ", in an if body";
    }
  }
}

}  // namespace

void WellFormedEdit::scalar_site(Expr bad) {
  // The marker of places 3 and 6-11 is the broken expression's own text, which nothing else in
  // the program prints.
  const std::string bad_text = ir::print_expr(bad);
  std::vector<size_t> scalar_args;  // (top-level statement << 8) | argument: calls passing a scalar param
  for (size_t i = 0; i < body.size(); ++i)
    if (const Invoke* v = invoke_of(body[i])) {
      const Function* callee = nullptr;
      for (const Function& f : b.program.functions)
        if (f.name == v->callee) callee = &f;
      if (callee == nullptr) continue;
      for (size_t a = 0; a < v->args.size() && a < callee->params.size() && a < 256; ++a)
        if (!callee->params[a].type.is_tensor()) scalar_args.push_back(i << 8 | a);
    }
  size_t site = place ? *place : c.one_of(kExprPlaces);
  if ((site == 8 && tensor_params.empty()) || (site == 11 && scalar_args.empty())) site = 0;
  if (site >= 6 || site == 3) b.marker = bad_text;
  if (site >= 6)
    operand_place(*this, site, std::move(bad), scalar_args);
  else
    statement_place(*this, site, std::move(bad));
}

}  // namespace stackcheck::gen::breakers
