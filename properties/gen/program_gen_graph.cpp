// Graph bodies (program_builder.h). Every statement is legal for LegalizeGraphBoundary with
// Step C on or off: launch scalar args are literals, scalar params, hoisted names or
// replay-invariant expressions; views take derivable offsets only of whole rooted names (and
// only literal ones in conditional statements), else replay-invariant ones; creates have
// literal shapes; loops holding nodes have constant trips; ifs hold no nodes; no `full`,
// `read` or graph calls; returns trace to InOut params.
#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "properties/gen/program_builder.h"

namespace stackcheck::gen::detail {

using namespace ir::build;

namespace {

// Boundary shapes: roots of rank 1 to 3 large enough to hold several windows.
const std::vector<Dims>& boundary_shapes(bool two_d) {
  static const std::vector<Dims> one = {{16}, {8}, {4}};
  static const std::vector<Dims> both = {{16}, {8}, {4}, {4, 4}, {4, 8}, {2, 4}, {2, 2, 4}};
  return two_d ? both : one;
}

}  // namespace

ir::Function Builder::graph_fn(GraphSig& sig) {
  in_graph_ = true;
  bufs_.clear();
  accesses_.clear();
  Scope s;
  // Tensor params: 1..4, In or InOut, at least one InOut (a graph's writes must reach its
  // caller to be observable); then 0..2 scalar params.
  const size_t n_tensors = 1 + c_.length(3);
  const size_t inout_at = c_.one_of(n_tensors);
  for (size_t i = 0; i < n_tensors; ++i) {
    const Dims d = c_.pick(boundary_shapes(k_.two_d));
    const bool inout = i == inout_at || c_.boolean();
    Tensor t;
    t.name = fmt::format("p{}", i);
    t.dims = d;
    t.buf = new_buffer(d);
    t.off = Dims(d.size(), 0);
    t.writable = inout;
    t.whole = true;
    t.lineage_param = static_cast<int>(i);
    s.tensors.push_back(t);
    sig.params.push_back(param(t.name, inout ? ir::Dir::InOut : ir::Dir::In, ir::Type::tensor(d)));
  }
  // The rejection mode needs a scalar param to make a loop without constant trips.
  // (Half the graphs take one or two at every size: a scalar param is what makes an offset
  // derivable, and the hoisting paths of Step B only show with one.)
  const size_t n_scalars = std::max<size_t>(c_.chance(50) ? 1 + c_.length(1) : 0, k_.illegal_view ? 1 : 0);
  for (size_t i = 0; i < n_scalars; ++i) {
    const std::string n = fmt::format("n{}", i);
    s.scalars.push_back({n, ScalarClass::Derivable, 0, nullptr});
    sig.params.push_back(param(n, ir::Dir::In, ir::Type::i64()));
  }

  first_local_ = static_cast<int>(bufs_.size());
  Stmts body;
  graph_block(body, s, static_cast<int>(c_.length(static_cast<size_t>(k_.max_graph_stmts))));
  launch(body, s);  // every graph holds at least one launch (1..1024 nodes)
  flow_locals(body, s, first_local_);
  if (k_.illegal_view) illegal_view(body, s);
  if (k_.illegal_full) illegal_full(body, s);

  // Returns: a subset of the InOut params, each by a name whose lineage reaches it (the param
  // or one of its writebacks), in any order (graph returns are never reordered).
  std::vector<size_t> inouts;
  for (size_t i = 0; i < n_tensors; ++i)
    if (sig.params[i].dir == ir::Dir::InOut) inouts.push_back(i);
  std::vector<size_t> chosen;
  for (size_t i : inouts)
    if (c_.chance(60)) chosen.push_back(i);
  for (size_t i = chosen.size(); i > 1; --i) std::swap(chosen[i - 1], chosen[c_.one_of(i)]);
  if (!std::is_sorted(chosen.begin(), chosen.end())) features_.add(Feature::kGraphReturnsOutOfOrder);
  std::vector<std::string> names;
  std::vector<ir::Type> results;
  for (size_t i : chosen) {
    std::vector<std::string> via;
    for (const Tensor& t : s.tensors)
      if (t.lineage_param == static_cast<int>(i)) via.push_back(t.name);
    names.push_back(c_.pick(via));
    results.push_back(sig.params[i].type);
  }
  sig.returns = chosen;
  // A graph of no results may end without a `return` at all (WellFormed 14 asks for one only
  // where results are declared): every pass, codegen and the interpreter must take it.
  if (!names.empty() || !c_.chance(30)) body.push_back(ret(std::move(names)));
  in_graph_ = false;
  return graph(sig.name, sig.params, std::move(results), std::move(body));
}

void Builder::graph_block(Stmts& out, Scope& s, int budget) {
  for (int i = 0; i < budget; ++i) graph_stmt(out, s);
}

void Builder::graph_stmt(Stmts& out, Scope& s) {
  switch (c_.one_of(9)) {
    case 0: launch(out, s); break;
    case 8:
      if (k_.overlaps) hazard(out, s);
      break;
    case 1: {  // a create: Step C hoists it at depth 0; in a loop it stays (fresh per trip)
      if (s.loop_depth > 0 && !k_.loop_creates) break;
      const std::vector<Dims>& shapes = boundary_shapes(k_.two_d);
      fresh_buffer(out, s, c_.pick(shapes));
      break;
    }
    case 2: {  // Step A: a derivable scalar (hoisted to the call site), or an alias of one
      const auto der = pool(s, ScalarClass::Derivable);
      if (der.empty()) break;
      const std::string v = fresh("s");
      if (c_.chance(25)) {
        out.push_back(let(v, var(c_.pick(der)->name)));
        features_.add(Feature::kScalarAlias);
      } else {
        ir::Expr e = scalar_expr(der, 0, nullptr);
        if (!s.tensors.empty() && c_.chance(20)) {  // dim() is a literal: folded, emitted as its value
          const Tensor& t = c_.pick(s.tensors);
          e = add(std::move(e), dim(t.name, static_cast<int64_t>(c_.one_of(t.dims.size()))));
        }
        out.push_back(let(v, std::move(e)));
        features_.add(Feature::kStepAScalar);
      }
      s.scalars.push_back({v, ScalarClass::Derivable, 0, nullptr});
      break;
    }
    case 3: {  // a view of anything in scope; half the time of a whole rebound name, when there is
      // one (COMPILER.md §5.3 "B rebound, tuple": views of writebacks and tuple elements are
      // hoisted by their root's provenance, a path the plain names never take)
      if (!k_.views || s.tensors.empty()) break;
      std::vector<Tensor> rebound;
      for (const Tensor& t : s.tensors)
        if (t.rebound && t.whole && !t.local) rebound.push_back(t);
      const Tensor base = !rebound.empty() && c_.boolean() ? c_.pick(rebound) : c_.pick(s.tensors);
      if (c_.chance(25)) {
        tensor_alias(out, s, base);
        break;
      }
      make_view(out, s, base, window_dims_within(base.dims));
      break;
    }
    case 4:
      if (s.loop_depth < k_.max_loop_depth) graph_loop(out, s);
      break;
    case 5:
      if (k_.assembles) assemble_stmt(out, s);
      break;
    case 6:
      if (k_.ifs) graph_if(out, s);
      break;
    default: {  // a replay-invariant scalar (literals, loop vars of constant-trip loops)
      const auto inv = pool(s, ScalarClass::Invariant);
      const std::string v = fresh("o");
      out.push_back(let(v, scalar_expr(inv, 0, nullptr)));
      s.scalars.push_back({v, ScalarClass::Invariant, 0, nullptr});
    }
  }
}

// A constant-trip loop (its var is replay-invariant); a zero-trip one makes its body
// conditional (derivable views there must have literal offsets).
void Builder::graph_loop(Stmts& out, Scope& s) {
  Scope inner = s;
  inner.loop_depth = s.loop_depth + 1;
  const std::string j = fresh("j");
  int64_t lo = 0, hi = c_.integer(1, std::max(1, k_.max_trips)), step = 1;
  if (c_.chance(15)) {  // counting down, or zero trips
    if (c_.boolean())
      std::swap(lo, hi), step = -1;
    else
      hi = 0;
  }
  const auto trips = support::trip_count(lo, hi, step);
  if (!trips || *trips == 0) inner.conditional = true;
  inner.scalars.push_back({j, ScalarClass::Invariant, 0, nullptr});
  Stmts body;
  graph_block(body, inner, 1 + static_cast<int>(c_.length(3)));
  launch(body, inner);
  flow_locals(body, inner, first_local_);  // loop-nested creates end with the trip
  if (s.loop_depth > 0) features_.add(Feature::kNestedLoop);
  out.push_back(for_(j, literal(lo, &s), literal(hi, &s), literal(step, &s), std::move(body)));
}

// An if without nodes: scalars and views only (a launch or a loop-nested create there is
// 215). Derivable scalars inside are still hoisted; their values cannot fail.
void Builder::graph_if(Stmts& out, Scope& s) {
  const auto der = pool(s, ScalarClass::Derivable);
  ir::Expr lhs = der.empty() ? lit(c_.integer(0, 3)) : var(c_.pick(der)->name);
  static const ir::CmpOp cmps[] = {ir::CmpOp::Lt, ir::CmpOp::Ge, ir::CmpOp::Eq, ir::CmpOp::Ne};
  const ir::CmpOp cmp = cmps[c_.one_of(4)];
  Stmts then_body, else_body;
  auto fill = [&](Stmts& b) {
    Scope inner = s;  // each branch sees only what was defined before the if
    inner.conditional = true;
    const size_t n = 1 + c_.length(2);
    for (size_t i = 0; i < n; ++i) {
      if (!inner.tuples.empty() && c_.chance(15)) {
        // An element of a tuple bound before the if, taken in the branch (not used further:
        // taking it is no launch, so the if stays node-free).
        const auto& [tuple, results] = inner.tuples[c_.one_of(inner.tuples.size())];
        if (results > 0) b.push_back(tuple_get(fresh("y"), tuple, static_cast<int64_t>(c_.one_of(results))));
      } else if (c_.boolean() && k_.views && !inner.tensors.empty()) {
        const Tensor base = c_.pick(inner.tensors);
        make_view(b, inner, base, window_dims_within(base.dims));
      } else if (c_.chance(20)) {
        // Launch-free control flow nested in the branch: an if, or a constant-trip loop,
        // holding one scalar over literals (no nodes: 214/215 stay unbroken).
        Stmts one;
        one.push_back(let(fresh("s"), literal(c_.integer(-3, 9), &inner)));
        if (c_.boolean())
          b.push_back(if_(literal(c_.integer(0, 3), &inner), ir::CmpOp::Lt, lit(2), std::move(one), {}));
        else
          b.push_back(for_(fresh("j"), lit(0), lit(c_.integer(0, 2)), lit(1), std::move(one)));
      } else if (!der.empty()) {
        const std::string v = fresh("s");
        b.push_back(let(v, scalar_expr(der, 0, nullptr)));
      }
    }
  };
  fill(then_body);
  if (c_.boolean()) fill(else_body);
  if (then_body.empty()) return;
  features_.add(Feature::kIfGraph);
  out.push_back(if_(std::move(lhs), cmp, lit(c_.integer(0, 4)), std::move(then_body), std::move(else_body)));
}

// t1 = assemble(t, src, offs): copies src into t's window at offs, yielding t's window. In a
// graph the offsets must be replay-invariant (212); the entry takes any in-bounds offsets.
void Builder::assemble_stmt(Stmts& out, Scope& s) {
  std::optional<Tensor> target = pick_writable(s);
  if (!target) return;
  const Dims w = window_dims_within(target->dims);
  const Tensor src = obtain_input(out, s, w);
  const std::vector<const Scalar*> pl = pool(s, in_graph_ ? ScalarClass::Invariant : ScalarClass::Any);
  std::vector<ir::Expr> offs;
  Dims off(w.size(), 0);
  bool all_literal = true;
  for (size_t d = 0; d < w.size(); ++d) {
    ir::Expr e = offset_expr(pl, target->dims[d] - w[d] + 1, nullptr);
    if (e.kind == ir::Expr::Kind::Int) {
      off[d] = e.value;
      e = literal(e.value, &s);  // sometimes spelled (over a dim too): still a literal
    } else {
      all_literal = false;
    }
    offs.push_back(std::move(e));
  }
  Tensor written = *target;
  written.dims = w;
  written.off.reset();
  if (target->off && all_literal) {
    Dims o = *target->off;
    for (size_t d = 0; d < w.size(); ++d) o[d] += off[d];
    written.off = o;
  }
  note_write_overlaps(written);
  record_access(src, false);
  record_access(written, true);
  Tensor result = *target;  // assemble yields the target's window
  result.name = fresh("a");
  out.push_back(assemble(result.name, target->name, src.name, std::move(offs)));
  s.tensors.push_back(result);
  features_.add(Feature::kAssemble);
}

// Rejection mode: a view whose offset is the var of a loop without constant trips is
// neither derivable at the call site nor replay-invariant (211). The loop holds no node, so
// nothing else is wrong with it (a node-free loop may have any trips). Its base is any name
// in scope: a param, a local, a view, a writeback or a tuple element.
void Builder::illegal_view(Stmts& out, Scope& s) {
  const Tensor base = c_.pick(s.tensors);
  const auto der = pool(s, ScalarClass::Derivable);
  const std::string j = fresh("j"), v = fresh("v");
  std::vector<ir::Expr> offs;
  for (int64_t d : base.dims) offs.push_back(mod(var(j), lit(d)));
  Stmts body;
  body.push_back(slice(v, base.name, std::move(offs), Dims(base.dims.size(), 1)));
  out.push_back(for_(j, lit(0), mod(var(der.front()->name), lit(3)), lit(1), std::move(body)));
  features_.add(Feature::kIllegalView);
}

// Rejection mode: `full` in a graph region (206), a buffer a replay would not refill. It is
// otherwise well formed (literal shape, an unused name), so 206 is the only thing wrong.
void Builder::illegal_full(Stmts& out, Scope&) {
  const Dims d = c_.pick(std::vector<Dims>{{8}, {4}, {16}});
  const std::string f = fresh("f");
  out.push_back(full(f, {lit(d[0])}, lit(c_.integer(-9, 9))));
  features_.add(Feature::kIllegalFull);
}

}  // namespace stackcheck::gen::detail
