// WellFormed rules 2-4 (well_formed_context.h): a name bound twice, an undefined name (a scalar
// in any expression place, a tensor where one goes) or one used out of its scope or before its
// definition, and a callee that does not exist or the entry called.
#include <fmt/format.h>

#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "properties/gen/breakers/ir_build.h"
#include "properties/gen/breakers/well_formed_context.h"

namespace stackcheck::gen::breakers {

using namespace ir;

namespace {

// Rule 3's undefined name where a tensor goes: a view's source, an assemble's target or
// source, a kernel call's tensor argument (rewritten in place).
Made undefined_tensor(WellFormedEdit& e) {
  ChoiceSource& c = e.c;
  BrokenProgram& b = e.b;
  std::vector<std::pair<size_t, size_t>> tensor_args;  // (top-level statement, argument)
  for (size_t i = 0; i < e.body.size(); ++i)
    if (const Invoke* v = invoke_of(e.body[i]); v != nullptr && is_kernel(b.program, v->callee))
      for (const Function& k : b.program.functions)
        if (k.name == v->callee)
          for (size_t a = 0; a < v->args.size() && a < k.params.size(); ++a)
            if (v->args[a].kind == Expr::Kind::Var && k.params[a].type.is_tensor()) tensor_args.emplace_back(i, a);
  b.message = "undefined name 'zz_undefined'";
  b.marker = "zz_undefined";
  switch (tensor_args.empty() ? c.one_of(3) : c.one_of(4)) {
    case 0: {
      SliceRhs v;
      v.source = "zz_undefined";
      v.offsets.push_back(int_expr(0));
      v.sizes.push_back(1);
      e.front(assign("zz_v", std::move(v)));
      b.what = "an undefined name as a view's source";
      break;
    }
    case 1:
    case 2: {
      const bool target = c.boolean();
      AssembleRhs as;
      as.target = target ? "zz_undefined" : "zz_a";
      as.source = target ? "zz_b" : "zz_undefined";
      as.offsets.push_back(int_expr(0));
      e.front(assign("zz_c", std::move(as)));
      e.front(assign("zz_b", CreateRhs{{int_expr(1)}}));
      e.front(assign("zz_a", CreateRhs{{int_expr(2)}}));
      b.what = target ? "an undefined name as an assemble's target" : "an undefined name as an assemble's source";
      break;
    }
    default: {
      const auto [i, a] = tensor_args[c.one_of(tensor_args.size())];
      invoke_of(e.body[i])->args[a] = var("zz_undefined");
      b.what = "an undefined name as a kernel call's tensor argument";
    }
  }
  return Made::kBroken;
}

// Rule 3: a scalar defined in a loop's or an if's body, used after that block has ended.
Made used_out_of_scope(WellFormedEdit& e) {
  ChoiceSource& c = e.c;
  BrokenProgram& b = e.b;
  const bool loop = c.boolean();
  Stmt inner;
  inner.kind = loop ? Stmt::Kind::For : Stmt::Kind::If;
  inner.lo = int_expr(0);
  inner.hi = int_expr(1);
  if (loop) {
    inner.name = "zz_i";
    inner.step = int_expr(1);
  } else {
    inner.cmp = CmpOp::Lt;
  }
  inner.body.push_back(assign("zz_in", ExprRhs{int_expr(c.integer(0, 9))}));
  e.body.insert(e.body.begin(), assign("zz_s", ExprRhs{binary(BinOp::Mul, var("zz_in"), int_expr(2))}));
  e.body.insert(e.body.begin(), std::move(inner));
  b.marker = "zz_s =";
  b.what = loop ? "a scalar of a loop's body used after the loop" : "a scalar of an if's body used after the if";
  b.message = "'zz_in' is used out of scope (its block has ended)";
  // The block runs once (a 1-trip loop, `if 0 < 1`), so the name has its value when read:
  // scoping is WellFormed's rule, not a runtime error (COMPILER.md §7).
  b.interp_runs = true;
  return Made::kBroken;
}

}  // namespace

Made break_name_twice(WellFormedEdit& e) {
  BrokenProgram& b = e.b;
  std::vector<Stmt>& body = e.body;
  std::vector<size_t> assigns;
  for (size_t i = 0; i < body.size(); ++i)
    if (body[i].kind == Stmt::Kind::Assign) assigns.push_back(i);
  std::string name = "zz_s";
  if (assigns.empty()) {
    e.front(assign("zz_s", ExprRhs{int_expr(1)}));
    e.front(assign("zz_s", ExprRhs{int_expr(2)}));
  } else {
    const size_t i = assigns[e.c.one_of(assigns.size())];
    Stmt again = body[i];
    name = again.name;
    // a create bound again is a new buffer to codegen (one alloc per run), not a broken premise
    b.lowering_precondition = !std::holds_alternative<CreateRhs>(again.rhs);
    body.insert(body.begin() + static_cast<std::ptrdiff_t>(i) + 1, std::move(again));
  }
  b.what = "an assignment repeated";
  b.message = fmt::format("'{}' is defined twice in '{}' (names are defined once per function)", name, e.entry->name);
  if (assigns.empty()) b.lowering_precondition = true;
  return Made::kBroken;
}

Made break_undefined_name(WellFormedEdit& e) {
  ChoiceSource& c = e.c;
  BrokenProgram& b = e.b;
  const size_t way = e.placed ? 0 : c.one_of(4);  // 0: a scalar, 1: a tensor, 2-3: late
  if (way == 1) return undefined_tensor(e);
  if (way == 0) {
    b.what = "an undefined name";
    e.scalar_site(binary(BinOp::Add, var("zz_undefined"), int_expr(1)));
    b.message = "undefined name 'zz_undefined'";
    return Made::kBroken;
  }
  if (way == 3 && c.boolean()) return used_out_of_scope(e);
  // a scalar used one statement before its definition
  e.body.insert(e.body.begin(), assign("zz_late", ExprRhs{int_expr(c.integer(0, 9))}));
  e.body.insert(e.body.begin(), assign("zz_s", ExprRhs{binary(BinOp::Mul, var("zz_late"), int_expr(2))}));
  b.what = "a scalar used before its definition";
  b.message = "'zz_late' is used before its definition";
  return Made::kBroken;
}

// A callee that does not exist, or the entry itself (COMPILER.md §4: entry called).
Made break_unknown_callee(WellFormedEdit& e) {
  BrokenProgram& b = e.b;
  Stmt s;
  s.kind = Stmt::Kind::Invoke;
  const bool self = e.c.boolean();
  s.invoke.callee = self ? e.entry->name : "zz_nofn";
  b.marker = fmt::format("call {}(", s.invoke.callee);
  e.front(std::move(s));
  b.what = self ? "a call of the entry" : "a call of an unknown function";
  b.message = self ? fmt::format("the entry '{}' cannot be called", e.entry->name)
                        : std::string("unknown function 'zz_nofn'");
  return Made::kBroken;
}

}  // namespace stackcheck::gen::breakers
