// WellFormed rules 5, 6 and 12 (well_formed_context.h): a kernel call with one argument fewer or
// more, a tensor or scalar where the other kind goes, and tuples misused (`.k` of a name that is
// no tuple or past a tuple's end, a tuple used as a value, a task id used, the empty result of
// a call bound to a name).
#include <fmt/format.h>

#include <string>
#include <utility>
#include <vector>

#include "properties/gen/breakers/ir_build.h"
#include "properties/gen/breakers/well_formed_context.h"

namespace stackcheck::gen::breakers {

using namespace ir;

namespace {

// A kernel call at the top of the entry's body, drawn; nullptr when there is none.
Invoke* drawn_call(WellFormedEdit& e) {
  if (e.calls.empty()) return nullptr;
  Stmt& s = e.body[e.calls[e.c.one_of(e.calls.size())]];
  return invoke_of(s);
}

// Rule 6: a scalar name where a tensor goes: the source of a view, or its dim() or read().
void scalar_as_tensor(WellFormedEdit& e) {
  ChoiceSource& c = e.c;
  BrokenProgram& b = e.b;
  std::vector<Stmt>& body = e.body;
  e.front(assign("zz_n", ExprRhs{int_expr(c.integer(1, 4))}));
  const size_t way = c.one_of(3);
  if (way == 0) {
    SliceRhs sl;
    sl.source = "zz_n";
    sl.offsets.push_back(int_expr(0));
    sl.sizes.push_back(1);
    body.insert(body.begin() + 1, assign("zz_v", std::move(sl)));
    b.marker = "zz_v =";
    b.message_has = {"scalar 'zz_n' used as a tensor (slice source)"};
  } else {
    Expr x;
    x.kind = way == 1 ? Expr::Kind::Dim : Expr::Kind::Read;
    x.name = "zz_n";
    x.value = 0;
    if (way == 2) x.args.push_back(int_expr(0));
    body.insert(body.begin() + 1, assign("zz_v", ExprRhs{std::move(x)}));
    b.marker = "zz_v =";
    b.message_has = {fmt::format("scalar 'zz_n' used as a tensor ({})", way == 1 ? "dim" : "read")};
  }
  b.what = "a scalar name where a tensor goes";
}

// Rule 12 after a kernel launch of the entry launched again as `zz_r = submit ...` (its
// returns, then its task id): `.k` past the tuple's end (way 1), the tuple used as a value
// (2), its task id used (3); or a call of a kernel that returns nothing bound to a name (4).
Made tuple_of_a_call(WellFormedEdit& e, size_t way) {
  ChoiceSource& c = e.c;
  BrokenProgram& b = e.b;
  const size_t at = e.calls[c.one_of(e.calls.size())];
  Invoke inv = *invoke_of(e.body[at]);
  const Function* k = nullptr;
  for (const Function& f : b.program.functions)
    if (f.name == inv.callee) k = &f;
  if (k == nullptr) return Made::kNoPlace;
  const auto n = static_cast<int64_t>(k->kernel_returns.size());
  std::vector<Stmt> after;
  inv.submit = way != 4;
  if (way == 4) {
    if (n != 0) return Made::kNoPlace;
    after.push_back(assign("zz_r", InvokeRhs{inv}));
    b.what = "a call of a kernel that returns nothing bound to a name";
    b.marker = "zz_r = call";
    b.message_has = {fmt::format("call of '{}' returns nothing; its result cannot be bound to 'zz_r'", inv.callee)};
    b.interp_runs = true;
    e.lowers_anyway = true;
  } else {
    after.push_back(assign("zz_r", InvokeRhs{inv}));
    if (way == 1) {
      const int64_t past = n + 1 + c.integer(0, 1);
      after.push_back(assign("zz_s", TupleGetRhs{"zz_r", past}));
      b.what = "`.k` past the end of a submit's tuple";
      b.marker = "zz_s = zz_r.";
      b.message_has = {fmt::format("'zz_r.{}': tuple 'zz_r' has {} elements", past, n + 1)};
    } else if (way == 2) {
      after.push_back(assign("zz_u", ExprRhs{var("zz_r")}));
      b.what = "a submit's tuple used as a value";
      b.marker = "zz_u = zz_r";
      b.message_has = {"tuple 'zz_r' can only be used as 'zz_r.k'"};
      b.interp_runs = true;
    } else {
      after.push_back(assign("zz_t", TupleGetRhs{"zz_r", n}));
      after.push_back(assign("zz_u", ExprRhs{binary(BinOp::Add, var("zz_t"), int_expr(1))}));
      b.what = "a submit's task id used";
      b.marker = "zz_u = zz_t";
      b.message_has = {"task id 'zz_t' may be bound but never used"};
    }
  }
  e.body.insert(e.body.begin() + static_cast<long>(at) + 1, after.begin(), after.end());
  return Made::kBroken;
}

}  // namespace

Made break_call_arity(WellFormedEdit& e) {
  Invoke* v = drawn_call(e);
  if (v == nullptr) return Made::kNoPlace;
  if (!v->args.empty() && e.c.boolean()) {
    v->args.pop_back();
    e.b.what = "a kernel call with one argument fewer";
  } else {
    v->args.push_back(int_expr(0));
    e.b.what = "a kernel call with one argument more";
  }
  return Made::kBroken;
}

Made break_argument_kind(WellFormedEdit& e) {
  ChoiceSource& c = e.c;
  Invoke* call = drawn_call(e);
  if (call == nullptr) return Made::kNoPlace;
  if (c.chance(30)) {
    scalar_as_tensor(e);
    return Made::kBroken;
  }
  Invoke& v = *call;
  std::vector<size_t> tensor_args;
  for (size_t i = 0; i < v.args.size(); ++i)
    if (v.args[i].kind == Expr::Kind::Var) tensor_args.push_back(i);
  // a Var argument may be a scalar name; the kernel's param says which are tensors
  const Function* k = nullptr;
  for (const Function& f : e.b.program.functions)
    if (f.name == v.callee) k = &f;
  std::erase_if(tensor_args, [&](size_t i) { return i >= k->params.size() || !k->params[i].type.is_tensor(); });
  if (tensor_args.empty()) return Made::kNoPlace;
  v.args[tensor_args[c.one_of(tensor_args.size())]] = int_expr(c.integer(0, 9));
  e.b.what = "a tensor argument given as a literal";
  return Made::kBroken;
}

// Tuples misused (COMPILER.md §1: call results are used only as `r.k`; task ids may be bound,
// never used).
Made break_tuple(WellFormedEdit& e) {
  BrokenProgram& b = e.b;
  const size_t way = e.calls.empty() ? 0 : e.c.one_of(5);
  if (way != 0) return tuple_of_a_call(e, way);
  // `.k` of a name that is no tuple
  if (e.tensor_params.empty()) return Made::kNoPlace;
  const std::string& t = e.entry->params[e.tensor_params.front()].name;
  const int64_t k = e.c.integer(0, 2);
  e.front(assign("zz_s", TupleGetRhs{t, k}));
  b.what = "`.k` of a name that is not a tuple";
  b.marker = "zz_s = ";
  b.message_has = {fmt::format("'{}.{}': '{}' is not a tuple", t, k, t)};
  return Made::kBroken;
}

}  // namespace stackcheck::gen::breakers
