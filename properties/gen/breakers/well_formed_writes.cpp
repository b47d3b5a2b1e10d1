// WellFormed rule 7 (well_formed_context.h): an In param of the entry written, passed for the Out
// param of a call or a submit or made an assemble's target, directly or through a chain of 1-3
// aliases and views (a view of a view), at the top level, in a loop or in an if. The message
// names the written name and whose buffer it is.
#include <fmt/format.h>

#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "properties/gen/breakers/ir_build.h"
#include "properties/gen/breakers/well_formed_context.h"

namespace stackcheck::gen::breakers {

using namespace ir;

namespace {

// The written name: the param itself, or the last of 0-3 aliases and views of it (`pre`),
// with its dims and the path taken so far.
struct Chain {
  std::vector<Stmt> pre;
  std::string cur;
  ir::Dims dims;
  std::string path = "an In param";
};

Chain alias_chain(ChoiceSource& c, const Param& p) {
  Chain ch{{}, p.name, p.type.dims};
  const int64_t steps = c.integer(0, 3);
  for (int64_t i = 0; i < steps; ++i) {
    const std::string n = fmt::format("zz_p{}", i);
    if (c.boolean()) {
      ch.pre.push_back(assign(n, ExprRhs{var(ch.cur)}));
      ch.path += ", aliased";
    } else {
      SliceRhs v;
      v.source = ch.cur;
      for (int64_t& d : ch.dims) {
        const int64_t size = c.integer(1, d);
        v.offsets.push_back(int_expr(c.integer(0, d - size)));
        v.sizes.push_back(size);
        d = size;
      }
      ch.pre.push_back(assign(n, std::move(v)));
      ch.path += ", viewed";
    }
    ch.cur = n;
  }
  return ch;
}

// The write, `how`: 0 passed for the Out param of zz_k7 (a fill kernel of its shape), 1 the
// same submitted, 2 the target of an assemble (its 1-element source put in ch.pre).
Stmt write_of(ChoiceSource& c, Chain& ch, size_t how) {
  if (how < 2) {
    Invoke v;
    v.submit = how == 1;
    v.callee = "zz_k7";
    v.args = {var(ch.cur), int_expr(c.integer(-3, 3))};
    ch.path += how == 1 ? ", submitted as an Out argument" : ", passed as an Out argument";
    return assign("zz_bad", InvokeRhs{std::move(v)});
  }
  SliceRhs one;
  one.source = ch.cur;
  AssembleRhs a;
  a.target = ch.cur;
  a.source = "zz_src";
  for (size_t k = 0; k < ch.dims.size(); ++k) {
    one.offsets.push_back(int_expr(0));
    one.sizes.push_back(1);
    a.offsets.push_back(int_expr(0));
  }
  ch.pre.push_back(assign("zz_src", std::move(one)));
  ch.path += ", the target of an assemble";
  return assign("zz_bad", std::move(a));
}

// `w` at the top level, or in a loop or an if (drawn).
Stmt placed_write(ChoiceSource& c, Chain& ch, Stmt w) {
  const size_t where = c.one_of(3);
  if (where == 0) return w;
  Stmt block;
  block.body.push_back(std::move(w));
  if (where == 1) {
    block.kind = Stmt::Kind::For;
    block.name = "zz_i";
    block.lo = int_expr(0);
    block.hi = int_expr(c.integer(1, 3));
    block.step = int_expr(1);
    ch.path += ", in a loop";
  } else {
    block.kind = Stmt::Kind::If;
    block.lo = int_expr(0);
    block.cmp = CmpOp::Lt;
    block.hi = int_expr(c.integer(0, 2));
    ch.path += ", in an if";
  }
  return block;
}

// zz_k7(o: Out tensor<i32>[dims], s: In i64) -> (o) = builtin fill
Function fill_kernel(const ir::Dims& dims) {
  Function k;
  k.kind = Function::Kind::Kernel;
  k.name = "zz_k7";
  k.builtin = "fill";
  Param o;
  o.name = "o";
  o.dir = Dir::Out;
  o.type = Type::tensor(dims);
  Param v;
  v.name = "s";
  k.params = {std::move(o), std::move(v)};
  k.kernel_returns = {"o"};
  return k;
}

}  // namespace

Made break_in_param_written(WellFormedEdit& e) {
  ChoiceSource& c = e.c;
  BrokenProgram& b = e.b;
  std::vector<size_t> in_params;
  for (size_t i : e.tensor_params)
    if (e.entry->params[i].dir == Dir::In) in_params.push_back(i);
  if (in_params.empty()) return Made::kNoPlace;
  const Param& p = e.entry->params[in_params[c.one_of(in_params.size())]];
  Chain ch = alias_chain(c, p);
  const size_t how = c.one_of(3);
  Stmt w = write_of(c, ch, how);
  ch.pre.push_back(placed_write(c, ch, std::move(w)));
  e.body.insert(e.body.begin(), std::make_move_iterator(ch.pre.begin()), std::make_move_iterator(ch.pre.end()));
  b.what = ch.path + " (rule 7)";
  b.marker = "zz_bad =";
  b.message = (how < 2 ? "'" + ch.cur + "' is passed for Out param 'o' of 'zz_k7' but is not writable"
                        : "assemble target '" + ch.cur + "' is not writable") +
              ": its buffer is In param '" + p.name + "' of '" + e.entry->name + "'";
  if (how < 2) b.program.functions.insert(b.program.functions.begin(), fill_kernel(ch.dims));  // `entry` dangles now
  return Made::kFinal;  // writability is WellFormed's to check, not a premise of codegen's lowering
}

}  // namespace stackcheck::gen::breakers
