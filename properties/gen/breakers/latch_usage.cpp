// The fatal-latch family of the rule catalog (latch_edit.h): the usage codes 5, 8 and 9, and
// the causes of 5 but the graph ones (latch_graph.cpp).
#include <fmt/format.h>

#include "properties/gen/breakers/latch_edit.h"

namespace stackcheck::gen::plan_detail {

using namespace runtime;

// 8: a wait on a tensor no task produces in time.
void PlanBuilder::plant_wait_timeout(runtime::OrchProgram& p) { p.body.push_back(stmt(WaitTensorStmt{"c"})); }

// 9: the fatal statement.
void PlanBuilder::plant_explicit_fatal(runtime::OrchProgram& p) { p.body.push_back(stmt(FatalStmt{})); }

// 5: one of its causes (PlanKnobs::planted_cause, else drawn).
void PlanBuilder::plant_invalid_args(runtime::OrchProgram& p) {
  PlanBlock& body = p.body;
  switch (k_.planted_cause >= 0 ? static_cast<size_t>(k_.planted_cause) : c_.one_of(kPlantedCausesOf5)) {
    case 0: plant_zero_divisor(p); break;
    case 1: {  // a zero loop step
      ForStmt f = counting_loop(fresh("i"), 4, 0);
      body.push_back(stmt(std::move(f)));
      break;
    }
    case 2: plant_out_of_bounds(p); break;
    case 3: {  // a tensor after a scalar
      SubmitStmt s;
      s.builtin = Builtin::Scale;
      s.args = {PlanArg::tensor(PlanTag::Input, win("x", {{lit(0), 4}})), PlanArg::scalar_value(lit(2)),
                PlanArg::tensor(PlanTag::OutputExisting, win("c", {{lit(0), 4}}))};
      body.push_back(stmt(std::move(s)));
      break;
    }
    case 4: {  // a tag the builtin's param does not accept
      SubmitStmt s;
      s.builtin = Builtin::Fill;
      s.args = {PlanArg::tensor(PlanTag::Input, win("c", {{lit(0), 4}})), PlanArg::scalar_value(lit(1))};
      body.push_back(stmt(std::move(s)));
      break;
    }
    case 5: plant_shapes_refused(p); break;
    default: plant_graph_refused(p);
  }
}

// 5, cause 0: a zero divisor in orchestration arithmetic, in any place a plan evaluates one.
void PlanBuilder::plant_zero_divisor(runtime::OrchProgram& p) {
  PlanBlock& body = p.body;
  const std::string z = fresh("z"), q = fresh("q");
  body.push_back(stmt(SetStmt{z, lit(0)}));
  PlanExpr bad = PlanExpr::binary(c_.boolean() ? PlanBinOp::Div : PlanBinOp::Mod, lit(1), name_of(z));
  auto nested = [&](bool left) {
    return left ? PlanExpr::binary(PlanBinOp::Add, std::move(bad), lit(1))
                : PlanExpr::binary(PlanBinOp::Sub, lit(1), std::move(bad));
  };
  switch (const size_t where = c_.one_of(11)) {
    case 1:
    case 2: body.push_back(stmt(SetStmt{q, nested(where == 1)})); break;  // an operand of an operand
    case 3:
    case 4:
    case 5: {  // a loop's start, stop or step
      ForStmt f = counting_loop(fresh("i"), 4);
      (where == 3 ? f.start : where == 4 ? f.stop : f.step) = std::move(bad);
      body.push_back(stmt(std::move(f)));
      break;
    }
    case 6:
    case 7: {  // either operand of an if
      IfStmt i;
      (where == 6 ? i.lhs : i.rhs) = std::move(bad);
      i.then_body.push_back(stmt(SetStmt{q, lit(1)}));
      body.push_back(stmt(std::move(i)));
      break;
    }
    case 8: body.push_back(fill(win("c", {{lit(0), 4}}), std::move(bad))); break;                // a scalar argument
    case 9: body.push_back(stmt(ViewStmt{fresh("v"), win("c", {{std::move(bad), 4}})})); break;  // an offset
    case 10: body.push_back(stmt(ReadStmt{q, "x", {std::move(bad)}})); break;                    // a read's index
    default: body.push_back(stmt(SetStmt{q, std::move(bad)}));
  }
}

// 5, cause 2: a window outside its buffer; a read of x of the wrong rank or past it; a
// submit_graph of the wrong arity.
void PlanBuilder::plant_out_of_bounds(runtime::OrchProgram& p) {
  PlanBlock& body = p.body;
  switch (c_.one_of(3)) {
    case 1: {  // a read of x (rank 1, 16 elements) with two indices, or at index 16 or -1
      const size_t way = c_.one_of(3);
      std::vector<PlanExpr> index = {lit(way == 1 ? 16 : way == 2 ? -1 : 0)};
      if (way == 0) index.push_back(lit(0));
      body.push_back(stmt(ReadStmt{fresh("q"), "x", std::move(index)}));
      break;
    }
    case 2: {  // a submit_graph passing one tensor more or fewer than its graph's params
      PlanGraph g;
      g.name = fresh("zg");
      g.params = {fresh("zp"), fresh("zp")};
      g.body.push_back(fill(win(g.params.front(), {{lit(0), 4}}), lit(1)));
      SubmitGraphStmt sub;
      sub.graph = g.name;
      const size_t n = c_.boolean() ? 1 : 3;
      for (size_t k = 0; k < n; ++k) sub.args.push_back(PlanArg::tensor(PlanTag::Inout, win("c", {})));
      p.graphs.push_back(std::move(g));
      body.push_back(stmt(std::move(sub)));
      break;
    }
    default: body.push_back(stmt(ViewStmt{fresh("v"), win("c", {{lit(c_.integer(9, 15)), 8}})}));
  }
}

// 5, cause 5: shapes the builtin rejects: equal ranks, one dimension off (or transposed).
void PlanBuilder::plant_shapes_refused(runtime::OrchProgram& p) {
  PlanBlock& body = p.body;
  SubmitStmt s;
  const size_t form = c_.one_of(3);
  if (form == 2) {
    const std::string a = fresh("za"), b = fresh("za");
    body.push_back(stmt(AllocStmt{{PlanBuffer{a, {2, 4}}, PlanBuffer{b, {4, 2}}}}));
    s.builtin = Builtin::Copy;
    s.args = {PlanArg::tensor(PlanTag::Input, win(a, {})), PlanArg::tensor(PlanTag::OutputExisting, win(b, {}))};
  } else {
    // add(x, y) -> o with y (form 0) or o (form 1) one element longer than x
    s.builtin = Builtin::Add;
    s.args = {PlanArg::tensor(PlanTag::Input, win("x", {{lit(0), 4}})),
              PlanArg::tensor(PlanTag::Input, win("x", {{lit(0), form == 0 ? 5 : 4}})),
              PlanArg::tensor(PlanTag::OutputExisting, win("c", {{lit(0), form == 1 ? 5 : 4}}))};
  }
  body.push_back(stmt(std::move(s)));
}

}  // namespace stackcheck::gen::plan_detail
