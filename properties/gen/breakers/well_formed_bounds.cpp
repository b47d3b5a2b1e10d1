// WellFormed rules 11 and 13 (well_formed_context.h): an axis, an index or a window out of its
// tensor (a view of size 0 or -1 or larger than its source on an axis, or at a static offset
// past its end; a view or an assemble with offsets of another rank; an assemble at a static
// offset past its target's end; dim() past the rank; read() with the wrong index rank or at a
// static index outside an axis), and a literal zero divisor or loop step. The expressions
// (dim(), read(), the divisor) go where the language takes one (WellFormedEdit::scalar_site).
#include <fmt/format.h>

#include <string>
#include <utility>
#include <vector>

#include "properties/gen/breakers/ir_build.h"
#include "properties/gen/breakers/well_formed_context.h"

namespace stackcheck::gen::breakers {

using namespace ir;

namespace {

// A view out of its source: a size or a static offset past an axis.
Made view_out_of_source(WellFormedEdit& e, const Param& p) {
  ChoiceSource& c = e.c;
  BrokenProgram& b = e.b;
  SliceRhs v;
  v.source = p.name;
  const size_t axis = c.one_of(p.type.dims.size());
  for (size_t k = 0; k < p.type.dims.size(); ++k) {
    const int64_t d = p.type.dims[k];
    v.sizes.push_back(d);
    v.offsets.push_back(int_expr(0));
    if (k != axis) continue;
    const int64_t how = c.integer(0, 2);
    if (how == 0) {
      v.sizes.back() = d + c.integer(1, 2);
      b.what = "a view larger than its source on one axis";
    } else if (how == 1) {  // the lower limit of a size: 1, met one below (or two)
      v.sizes.back() = c.integer(-1, 0);
      b.what = fmt::format("a view of size {} on one axis", v.sizes.back());
      b.has_text = v.sizes.back() == 0;  // a size is a non-negative INT in the grammar
    } else {
      v.sizes.back() = c.integer(1, d);
      v.offsets.back() = int_expr(d - v.sizes.back() + c.integer(1, 2));
      b.what = "a view at a static offset past its source's end";
      b.message = fmt::format("slice of '{}': offset {} + size {} on axis {} is outside 0..{}", p.name,
                              v.offsets.back().value, v.sizes.back(), k, d);
      continue;
    }
    b.message = fmt::format("slice of '{}': size {} on axis {} is outside 1..{}", p.name, v.sizes.back(), k, d);
  }
  e.front(assign("zz_bad", std::move(v)));
  b.marker = "zz_bad =";
  return Made::kFinal;  // static view bounds are WellFormed's; codegen lowers the window as given (COMPILER.md §6)
}

// A view or an assemble whose offsets (and a view's sizes) are one fewer or one more than its
// tensor's rank: WellFormed's 11 naming the counts, codegen's refusal, the interpreter's
// OutOfBounds (no window of that rank).
Made window_of_another_rank(WellFormedEdit& e, const Param& p) {
  ChoiceSource& c = e.c;
  BrokenProgram& b = e.b;
  const size_t rank = p.type.dims.size();
  const bool more = rank == 1 || c.boolean();
  const size_t n = more ? rank + 1 : rank - 1;
  if (c.boolean()) {
    SliceRhs v;
    v.source = p.name;
    for (size_t k = 0; k < n; ++k) {
      v.offsets.push_back(int_expr(0));
      v.sizes.push_back(1);
    }
    e.front(assign("zz_bad", std::move(v)));
    b.what = fmt::format("a view with {} offsets of a rank-{} tensor", n, rank);
    b.message = fmt::format("slice of '{}' (rank {}) has {} offsets and {} sizes", p.name, rank, n, n);
  } else {
    // into a fresh create of p's shape, from a 1-element create of p's rank
    CreateRhs tgt, src;
    AssembleRhs as;
    as.target = "zz_tgt";
    as.source = "zz_src";
    for (size_t k = 0; k < rank; ++k) {
      tgt.shape.push_back(int_expr(p.type.dims[k]));
      src.shape.push_back(int_expr(1));
    }
    for (size_t k = 0; k < n; ++k) as.offsets.push_back(int_expr(0));
    e.front(assign("zz_bad", std::move(as)));
    e.front(assign("zz_src", std::move(src)));
    e.front(assign("zz_tgt", std::move(tgt)));
    b.what = fmt::format("an assemble with {} offsets into a rank-{} tensor", n, rank);
    b.message = fmt::format("assemble into 'zz_tgt' (rank {}) has {} offsets", rank, n);
  }
  b.marker = "zz_bad =";
  b.lowering_precondition = true;  // a window's rank is what codegen lowers it by
  return Made::kFinal;
}

// An assemble into an InOut entry tensor at a static offset past its end on one axis (a
// 1-element source made just before it): WellFormed's 11, the interpreter's OutOfBounds.
Made assemble_past_the_end(WellFormedEdit& e, const std::vector<size_t>& inouts) {
  ChoiceSource& c = e.c;
  BrokenProgram& b = e.b;
  const Param& t = e.entry->params[inouts[c.one_of(inouts.size())]];
  const size_t axis = c.one_of(t.type.dims.size());
  const int64_t off = t.type.dims[axis] + c.integer(0, 1);  // 1 element at d or d + 1: past 0..d-1
  CreateRhs src;
  AssembleRhs as;
  as.target = t.name;
  as.source = "zz_src";
  for (size_t k = 0; k < t.type.dims.size(); ++k) {
    src.shape.push_back(int_expr(1));
    as.offsets.push_back(int_expr(k == axis ? off : 0));
  }
  e.front(assign("zz_bad", std::move(as)));
  e.front(assign("zz_src", std::move(src)));
  b.what = "an assemble at a static offset past its target's end";
  b.marker = "zz_bad =";
  b.message = fmt::format("assemble into '{}': offset {} + size 1 on axis {} is outside 0..{}", t.name, off,
                               axis, t.type.dims[axis]);
  return Made::kFinal;  // static assemble bounds are WellFormed's; codegen lowers the window as given (COMPILER.md §6)
}

// dim() past the rank, read() with an index of the wrong rank, or read() at a static index one
// past an axis's end or at -1, in a place drawn for it.
Made axis_or_index(WellFormedEdit& e, const Param& p) {
  ChoiceSource& c = e.c;
  BrokenProgram& b = e.b;
  Expr x;
  if (c.boolean()) {
    x.kind = Expr::Kind::Dim;
    x.name = p.name;
    x.value = static_cast<int64_t>(p.type.dims.size()) + c.integer(0, 3);
    b.what = "dim() past the rank";
    b.message = fmt::format("dim({}, {}): axis out of range for rank {}", p.name, x.value, p.type.dims.size());
  } else if (e.placed || c.boolean()) {
    x.kind = Expr::Kind::Read;
    x.name = p.name;
    const size_t rank = p.type.dims.size() + 1 + c.one_of(2);
    for (size_t d = 0; d < rank; ++d) x.args.push_back(int_expr(0));
    b.what = "read() with an index of the wrong rank";
    b.message = fmt::format("read of '{}' has {} indices; its rank is {}", p.name, rank, p.type.dims.size());
  } else {  // read() at a static index one past an axis's end, or at -1
    x.kind = Expr::Kind::Read;
    x.name = p.name;
    const size_t axis = c.one_of(p.type.dims.size());
    const int64_t at = c.boolean() ? p.type.dims[axis] : -1;
    for (size_t d = 0; d < p.type.dims.size(); ++d) x.args.push_back(int_expr(d == axis ? at : 0));
    b.what = "read() at a static index outside its tensor";
    e.lowers_anyway = true;  // static read bounds are WellFormed's; codegen lowers the read as given
    b.message = fmt::format("read of '{}': index {} is {}, outside 0..{}", p.name, axis, at,
                                 p.type.dims[axis] - 1);
  }
  e.scalar_site(std::move(x));
  return Made::kBroken;
}

}  // namespace

Made break_bounds(WellFormedEdit& e) {
  ChoiceSource& c = e.c;
  if (e.tensor_params.empty()) return Made::kNoPlace;
  const Param& p = e.entry->params[e.tensor_params[c.one_of(e.tensor_params.size())]];
  if (!e.placed && c.chance(50)) return view_out_of_source(e, p);
  if (!e.placed && c.chance(25)) return window_of_another_rank(e, p);
  std::vector<size_t> inouts;
  for (size_t i : e.tensor_params)
    if (e.entry->params[i].dir == Dir::InOut) inouts.push_back(i);
  if (!e.placed && !inouts.empty() && c.chance(35)) return assemble_past_the_end(e, inouts);
  return axis_or_index(e, p);
}

Made break_literal_zero(WellFormedEdit& e) {
  ChoiceSource& c = e.c;
  BrokenProgram& b = e.b;
  // The divisor's operator and dividend are drawn as the call's arguments: a lambda, as before,
  // so that each compiler evaluates them in the order it always has.
  auto binary = [](BinOp op, Expr l, Expr r) {
    Expr x;
    x.kind = Expr::Kind::Binary;
    x.op = op;
    x.args = {std::move(l), std::move(r)};
    return x;
  };
  if (e.placed || c.boolean()) {
    b.what = "a literal zero divisor";
    Expr z = binary(c.boolean() ? BinOp::Div : BinOp::Mod, int_expr(c.integer(-9, 9)), int_expr(0));
    b.message = fmt::format("divisor of '{}' is statically zero", z.op == BinOp::Div ? "/" : "%");
    e.scalar_site(std::move(z));
  } else {
    Stmt f;
    f.kind = Stmt::Kind::For;
    f.name = "zz_i";
    f.lo = int_expr(0);
    f.hi = int_expr(c.integer(1, 4));
    f.step = int_expr(0);
    e.front(std::move(f));
    b.what = "a literal zero loop step";
    b.message = "loop 'zz_i' has a zero step";
    b.marker = "for zz_i in";
  }
  return Made::kBroken;
}

}  // namespace stackcheck::gen::breakers
