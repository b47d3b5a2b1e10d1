// WellFormed rules 5, 6 and 12 (well_formed_context.h): a kernel call with one argument fewer or
// more, a tensor or scalar where the other kind goes, a tensor of another shape than its
// param, and tuples misused (`.k` of a name that is no tuple or past a tuple's end, a tuple
// used as a value, a task id used, the empty result of a call bound to a name).
#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include <string>
#include <utility>
#include <vector>

#include "properties/gen/breakers/ir_build.h"
#include "properties/gen/breakers/well_formed_context.h"
#include "stack/ir/builtins.h"
#include "stack/ir/printer.h"

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
    b.message = "scalar 'zz_n' used as a tensor (slice source)";
  } else {
    Expr x;
    x.kind = way == 1 ? Expr::Kind::Dim : Expr::Kind::Read;
    x.name = "zz_n";
    x.value = 0;
    if (way == 2) x.args.push_back(int_expr(0));
    body.insert(body.begin() + 1, assign("zz_v", ExprRhs{std::move(x)}));
    b.marker = "zz_v =";
    b.message = fmt::format("scalar 'zz_n' used as a tensor ({})", way == 1 ? "dim" : "read");
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
    b.message = fmt::format("call of '{}' returns nothing; its result cannot be bound to 'zz_r'", inv.callee);
    b.interp_runs = true;
    e.lowers_anyway = true;
  } else {
    after.push_back(assign("zz_r", InvokeRhs{inv}));
    if (way == 1) {
      const int64_t past = n + 1 + c.integer(0, 1);
      after.push_back(assign("zz_s", TupleGetRhs{"zz_r", past}));
      b.what = "`.k` past the end of a submit's tuple";
      b.marker = "zz_s = zz_r.";
      b.message = fmt::format("'zz_r.{}': tuple 'zz_r' has {} elements", past, n + 1);
    } else if (way == 2) {
      after.push_back(assign("zz_u", ExprRhs{var("zz_r")}));
      b.what = "a submit's tuple used as a value";
      b.marker = "zz_u = zz_r";
      b.message = "tuple 'zz_r' can only be used as 'zz_r.k'";
      b.interp_runs = true;
    } else {
      after.push_back(assign("zz_t", TupleGetRhs{"zz_r", n}));
      after.push_back(assign("zz_u", ExprRhs{binary(BinOp::Add, var("zz_t"), int_expr(1))}));
      b.what = "a submit's task id used";
      b.marker = "zz_u = zz_t";
      b.message = "task id 'zz_t' may be bound but never used";
    }
  }
  e.body.insert(e.body.begin() + static_cast<long>(at) + 1, after.begin(), after.end());
  return Made::kBroken;
}

// Whether `shapes` (the builtin's params in order, nullopt for a scalar) obey its shape rule
// (COMPILER.md §2), as the interpreter checks a launch's operands.
bool obeys_shape_rule(const ir::Builtin& b, const std::vector<std::optional<Dims>>& shapes) {
  std::vector<Dims> t;
  for (const auto& d : shapes)
    if (d) t.push_back(*d);
  switch (b.shape_rule) {
    case ShapeRule::Equal:
      return std::all_of(t.begin(), t.end(), [&](const Dims& d) { return d == t.front(); });
    case ShapeRule::Matmul:
      return t.size() == 3 && t[0].size() == 2 && t[1].size() == 2 && t[2].size() == 2 && t[0][1] == t[1][0] &&
             t[2][0] == t[0][0] && t[2][1] == t[1][1];
    case ShapeRule::Rowsum:
      return t.size() == 2 && t[0].size() == 2 && t[1].size() == 2 && t[1][0] == t[0][0] && t[1][1] == 1;
  }
  return false;
}

// Rule 6: a tensor argument of another shape than its param's: a create one extent larger,
// made at the top of the entry and passed for param i of the kernel call `v`.
Made argument_of_another_shape(WellFormedEdit& e, const Function& k, Invoke& v, size_t i) {
  BrokenProgram& b = e.b;
  const Param& p = k.params[i];
  Dims dims = p.type.dims;
  dims[e.c.one_of(dims.size())] += 1;
  int64_t elements = 1;
  for (int64_t d : dims) elements *= d;
  if (elements > kMaxTensorElements) return Made::kNoPlace;  // a bad create (rule 9) besides
  CreateRhs cr;
  for (int64_t d : dims) cr.shape.push_back(int_expr(d));
  v.args[i] = var("zz_s");  // before the create goes in front: that moves the call
  e.front(assign("zz_s", std::move(cr)));
  b.what = "a tensor argument of another shape than its param";
  b.message = fmt::format("'zz_s' of type {} is passed for param '{}: {}' of '{}'",
                               type_word(Type::tensor(dims)), p.name, type_word(p.type), k.name);
  // Codegen lowers it (a window of the create's shape): the verifier alone must refuse it.
  e.lowers_anyway = true;
  // The interpreter refuses the launch when the operands break the builtin's shape rule;
  // an extra param, or rowsum's column count, it never checks.
  const ir::Builtin* builtin = ir::find_builtin(k.builtin);
  std::vector<std::optional<Dims>> shapes;
  for (size_t j = 0; builtin != nullptr && j < builtin->arity() && j < k.params.size(); ++j)
    shapes.push_back(!k.params[j].type.is_tensor() ? std::nullopt
                     : j == i                      ? std::optional<Dims>(dims)
                                                   : std::optional<Dims>(k.params[j].type.dims));
  b.interp_runs = builtin == nullptr || obeys_shape_rule(*builtin, shapes);
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
  for (const Function& f : e.b.program.functions)
    if (f.name == v->callee)
      e.b.message = fmt::format("'{}' takes {} argument(s), {} given", f.name, f.params.size(), v->args.size());
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
  const size_t i = tensor_args[c.one_of(tensor_args.size())];
  const int64_t literal = c.integer(0, 9);
  // Drawn last, so that a saved choice sequence (exhausted here: "no") keeps its literal.
  if (c.chance(25)) return argument_of_another_shape(e, *k, v, i);
  v.args[i] = int_expr(literal);
  e.b.what = "a tensor argument given as a literal";
  e.b.message = fmt::format("a scalar expression is passed as the argument for tensor param '{}' of '{}'",
                            k->params[i].name, k->name);
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
  b.message = fmt::format("'{}.{}': '{}' is not a tuple", t, k, t);
  return Made::kBroken;
}

}  // namespace stackcheck::gen::breakers
