// The `.plan` rule family (plan_edit.h). What only a built AST can hold (the parser never hands it
// to the check): a malformed expression node, an argument with a field its tag does not use. Their
// text is not judged.
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "properties/gen/breakers/plan_edit.h"

namespace stackcheck::gen::breakers {

using namespace runtime;

bool break_malformed_expr(PlanEdit& ed) {
  // In any expression site, a node of a shape the parser never builds.
  PlanExpr e = lit(ed.c.integer(0, 9));
  switch (ed.c.one_of(7)) {
    case 1:  // a name that also holds a value
      ed.front.push_back(set("zz_v", lit(0)));
      e = name("zz_v");
      e.value = ed.c.integer(1, 9);
      break;
    case 2:  // a binary that also holds a value or a name
      e = PlanExpr::binary(PlanBinOp::Add, lit(1), lit(2));
      if (ed.c.boolean())
        e.value = ed.c.integer(1, 9);
      else
        e.name = "zz";
      break;
    case 3:  // a binary with one operand
      e = PlanExpr::binary(PlanBinOp::Mul, lit(1), lit(2));
      e.args.pop_back();
      break;
    case 4:  // a binary with three operands
      e = PlanExpr::binary(PlanBinOp::Sub, lit(1), lit(2));
      e.args.push_back(lit(3));
      break;
    case 5:  // a leaf with operands
      e.args.push_back(lit(1));
      e.args.push_back(lit(2));
      break;
    case 6:  // a slot with a name (in a graph body; a literal with a name elsewhere)
      if (ed.at.in_graph) e = PlanExpr::slot(ed.c.integer(0, 63));
      e.name = "zz";
      break;
    default:  // a literal with a name
      e.name = "zz";
  }
  // Nested one level down half the time: the check looks into every operand.
  if (ed.c.boolean()) e = PlanExpr::binary(PlanBinOp::Add, lit(0), std::move(e));
  ed.front.push_back(ed.in_site(std::move(e), ed.at.tensors.empty() ? "" : ed.tensor()));
  ed.b.expected = "malformed expression node";
  ed.b.text_form = false;
  return true;
}

bool break_arg_unused_field(PlanEdit& ed) {
  // A fill whose tensor argument also holds a scalar or an output's name or shape, or whose
  // scalar argument also holds a window or an output's name.
  const std::string t = ed.tensor();
  PlanArg ten = PlanArg::tensor(PlanTag::OutputExisting, whole(t));
  PlanArg sc = PlanArg::scalar_value(lit(1));
  switch (ed.c.one_of(5)) {
    case 1: ten.out_name = "zz_o"; break;
    case 2: ten.out_shape = {4}; break;
    case 3: sc.window = whole(t); break;
    case 4: sc.out_name = "zz_o"; break;
    default: ten.scalar = lit(ed.c.integer(1, 9));
  }
  ed.front.push_back(stmt(SubmitStmt{Builtin::Fill, {std::move(ten), std::move(sc)}}));
  ed.b.expected = "argument has fields its tag does not use";
  ed.b.text_form = false;
  return true;
}

}  // namespace stackcheck::gen::breakers
