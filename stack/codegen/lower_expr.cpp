// Scalar expression lowering (lowering.h): IR expressions to plan expressions over
// registers, `$k` slots and literals. `dim` is the static dimension; each `read` becomes a
// `read` statement emitted before its use; compound operands outside `set` are atoms.
#include <fmt/format.h>

#include "stack/codegen/codegen.h"
#include "stack/codegen/lowering.h"

namespace stackcheck::codegen::detail {

using runtime::PlanBlock;
using runtime::PlanExpr;

namespace {

// A subtree this tall goes to its own `set`, so no plan expression nears validate_plan's
// depth limit (1024), whatever the IR's depth.
constexpr unsigned kMaxHeight = 256;
// Recursion bound for code-built IR (the parser's own limit is 1024 operators).
constexpr unsigned kMaxIrDepth = 4096;

runtime::PlanBinOp plan_op(ir::BinOp op) {
  switch (op) {
    case ir::BinOp::Add: return runtime::PlanBinOp::Add;
    case ir::BinOp::Sub: return runtime::PlanBinOp::Sub;
    case ir::BinOp::Mul: return runtime::PlanBinOp::Mul;
    case ir::BinOp::Div: return runtime::PlanBinOp::Div;
    case ir::BinOp::Mod: return runtime::PlanBinOp::Mod;
  }
  return runtime::PlanBinOp::Add;
}

ir::Loc loc_or(const ir::Expr& e, ir::Loc fallback) { return e.loc.line != 0 ? e.loc : fallback; }

}  // namespace

PlanExpr BodyLowering::expr(const ir::Expr& e, PlanBlock& out) {
  unsigned height = 0;
  return expr_at(e, out, 0, height);
}

PlanExpr BodyLowering::atom(const ir::Expr& e, PlanBlock& out) {
  PlanExpr x = expr(e, out);
  if (x.kind != PlanExpr::Kind::Binary) return x;
  return PlanExpr::named(set_register(std::move(x), out));
}

std::string BodyLowering::set_register(PlanExpr value, PlanBlock& out) {
  runtime::SetStmt s;
  s.name = new_scalar();
  s.value = std::move(value);
  std::string name = s.name;
  emit(out, std::move(s));
  return name;
}

PlanExpr BodyLowering::expr_at(const ir::Expr& e, PlanBlock& out, unsigned depth, unsigned& height) {
  if (depth > kMaxIrDepth) broken(e.loc, "expression nested too deeply");
  height = 1;
  switch (e.kind) {
    case ir::Expr::Kind::Int: return PlanExpr::integer(e.value);
    case ir::Expr::Kind::Var: {
      const Binding& b = lookup(e.name, e.loc);
      if (b.kind != Binding::Kind::Scalar) broken(e.loc, fmt::format("'{}' is not a scalar", e.name));
      return b.scalar;
    }
    case ir::Expr::Kind::Dim: {
      const ir::Dims& d = dims(e.name, e.loc);
      if (e.value < 0 || static_cast<uint64_t>(e.value) >= d.size())
        broken(e.loc, fmt::format("dim({}, {}): no such axis", e.name, e.value));
      return PlanExpr::integer(d[static_cast<size_t>(e.value)]);
    }
    case ir::Expr::Kind::Read: return read(e, out, depth);
    case ir::Expr::Kind::Binary: break;
  }
  if (e.args.size() != 2) broken(e.loc, "malformed binary expression");
  unsigned ha = 0, hb = 0;
  PlanExpr a = expr_at(e.args[0], out, depth + 1, ha);
  PlanExpr b = expr_at(e.args[1], out, depth + 1, hb);
  if (ha >= kMaxHeight) a = PlanExpr::named(set_register(std::move(a), out)), ha = 1;
  if (hb >= kMaxHeight) b = PlanExpr::named(set_register(std::move(b), out)), hb = 1;
  height = std::max(ha, hb) + 1;
  return PlanExpr::binary(plan_op(e.op), std::move(a), std::move(b));
}

PlanExpr BodyLowering::read(const ir::Expr& e, PlanBlock& out, unsigned depth) {
  const TensorReg& t = tensor(e.name, e.loc);
  const std::string reg = t.name;
  const Root root = t.root;
  if (e.args.size() != dims(e.name, e.loc).size())
    broken(e.loc, fmt::format("read of '{}' with {} indices", e.name, e.args.size()));
  runtime::ReadStmt r;
  r.tensor = reg;
  for (const ir::Expr& i : e.args) {
    unsigned h = 0;
    PlanExpr x = expr_at(i, out, depth + 1, h);
    r.index.push_back(x.kind == PlanExpr::Kind::Binary ? PlanExpr::named(set_register(std::move(x), out))
                                                       : std::move(x));
  }
  if (root != Root::EntryIn) {
    // The host reads only its copies of entry In tensors: any other buffer is written by
    // tasks that have not run yet when the orchestration reads (RUNTIME.md §12).
    diag(kReadNotEntryIn, loc_or(e, f_.loc),
         fmt::format("read of '{}', whose root is not an entry In param{}", e.name,
                     graph_ ? fmt::format(" (in graph '{}')", f_.name) : std::string()));
    return PlanExpr::integer(0);
  }
  r.name = new_scalar();
  PlanExpr result = PlanExpr::named(r.name);
  emit(out, std::move(r));
  return result;
}

}  // namespace stackcheck::codegen::detail
