// The entry and its call sites (program_builder.h). The entry may use anything in bounds:
// reads of In entry tensors, `full`, loops with computed trips, ifs holding launches and
// graph calls. Each graph is called from its planned number of sites, straight, in loops or
// under ifs, with literal, loop-derived or read-derived scalar args; its tensor args are
// windows of the entry's buffers, sometimes two of one buffer (an alias class).
#include <fmt/format.h>

#include <algorithm>

#include "properties/gen/program_builder.h"

namespace stackcheck::gen::detail {

using namespace ir::build;

ir::Function Builder::entry_fn() {
  bufs_.clear();
  accesses_.clear();
  Scope s;
  std::vector<ir::Param> params;
  // In tensors first (reads and inputs), then the InOut tensors every result must reach.
  auto add_param = [&](const std::string& name, bool inout, const Dims& d) {
    Tensor t;
    t.name = name;
    t.dims = d;
    t.buf = new_buffer(d);
    t.off = Dims(d.size(), 0);
    t.writable = inout;
    t.whole = true;
    s.tensors.push_back(t);
    params.push_back(param(name, inout ? ir::Dir::InOut : ir::Dir::In, ir::Type::tensor(d)));
  };
  add_param("a", false, {16});
  if (k_.two_d && c_.boolean()) add_param("b", false, {4, 8});
  if (k_.two_d && c_.chance(15)) add_param("b3", false, {2, 2, 4});  // an In tensor of the IR's top rank
  add_param("c", true, {16});
  if (k_.two_d && c_.boolean()) add_param("d", true, {4, 8});
  if (c_.chance(30)) add_param("e", true, {8});
  if (k_.two_d && c_.chance(20)) add_param("h", true, {2, 2, 4});

  first_local_ = static_cast<int>(bufs_.size());
  Stmts body;
  // An early read gives the call sites and loop bounds a data-dependent scalar to use.
  if (k_.entry_reads && c_.boolean()) {
    const std::string v = fresh("q");
    unsigned sources = kFromRead;
    ir::Expr def = read("a", {offset_expr({}, 16, &sources)});
    body.push_back(let(v, def));
    s.scalars.push_back({v, ScalarClass::Any, sources, std::make_shared<const ir::Expr>(std::move(def))});
    features_.add(Feature::kRead);
  }
  entry_block(body, s, static_cast<int>(c_.length(static_cast<size_t>(k_.max_entry_stmts))));
  pending_sites(body, s);
  // What the locals hold flows into the InOut entry tensors, where results are observed.
  flow_locals(body, s, first_local_);
  return orchestration("main", std::move(params), std::move(body));
}

void Builder::entry_block(Stmts& out, Scope& s, int budget) {
  for (int i = 0; i < budget; ++i) {
    // Interleave the planned call sites with the other statements.
    if (!graphs_.empty() && c_.chance(35)) {
      const size_t g = c_.one_of(graphs_.size());
      if (sites_left_[g] > 0) {
        const size_t where = c_.one_of(3);  // straight, in a loop, under an if
        if (where == 1 && s.loop_depth < k_.max_loop_depth)
          entry_loop(out, s, true);
        else if (where == 2 && k_.ifs)
          entry_if(out, s, true);
        else
          call_site(out, s, g);
        continue;
      }
    }
    entry_stmt(out, s);
  }
}

void Builder::entry_stmt(Stmts& out, Scope& s) {
  if (k_.traps && c_.chance(2)) return trap_stmt(out, s);
  if (c_.chance(5)) return create_used_nested(out, s);
  switch (c_.one_of(8)) {
    case 0: launch(out, s); break;
    case 1: {  // a scalar: a read of an In entry tensor or an expression
      const std::string v = fresh("q");
      unsigned sources = 0;
      std::vector<const Tensor*> ins;
      for (const Tensor& t : s.tensors)
        if (!t.writable && t.buf >= 0 && t.dims.size() == bufs_[static_cast<size_t>(t.buf)].size()) ins.push_back(&t);
      if (k_.entry_reads && !ins.empty() && c_.boolean()) {
        const Tensor& t = *c_.pick(ins);
        std::vector<ir::Expr> idx;
        for (int64_t d : t.dims)  // now and then a literal index, spelled as literals are (over a dim too)
          idx.push_back(c_.chance(20) ? literal(c_.integer(0, d - 1), &s)
                                      : offset_expr(pool(s, ScalarClass::Any), d, &sources));
        ir::Expr def = read(t.name, std::move(idx));
        out.push_back(let(v, def));
        sources |= kFromRead;
        features_.add(Feature::kRead);
        s.scalars.push_back({v, ScalarClass::Any, sources, std::make_shared<const ir::Expr>(std::move(def))});
        break;
      }
      out.push_back(let(v, scalar_expr(pool(s, ScalarClass::Any), 0, &sources)));
      s.scalars.push_back({v, ScalarClass::Any, sources, nullptr});
      break;
    }
    case 2: {
      if (!k_.views) break;
      const Tensor base = c_.pick(s.tensors);
      if (c_.chance(25)) {
        tensor_alias(out, s, base);
        break;
      }
      make_view(out, s, base, window_dims_within(base.dims));
      break;
    }
    case 3: {
      static const std::vector<Dims> shapes = {{8}, {4}, {16}, {4, 4}, {2, 4}, {2, 2, 4}};
      const Dims d = c_.pick(shapes);
      if (d.size() >= 2 && !k_.two_d) break;
      fresh_buffer(out, s, d);
      break;
    }
    case 4:
      if (s.loop_depth < k_.max_loop_depth) entry_loop(out, s, false);
      break;
    case 5:
      if (k_.ifs) entry_if(out, s, false);
      break;
    case 6:
      if (k_.assembles) assemble_stmt(out, s);
      break;
    default:
      if (k_.overlaps) hazard(out, s);
  }
}

// `for i in range(start, start + 1) { stmt }`, under an if on one of the fed scalars `any`
// when there is one (so the trap depends on the inputs too).
void Builder::one_trip_trap(Stmts& out, const std::vector<const Scalar*>& any, const std::string& i, int64_t start,
                            ir::Stmt stmt) {
  Stmts body;
  body.push_back(std::move(stmt));
  ir::Stmt loop = for_(i, literal(start), literal(start + 1), lit(1), std::move(body));
  if (any.empty()) {
    out.push_back(std::move(loop));
    return;
  }
  Stmts then_body;
  then_body.push_back(std::move(loop));
  out.push_back(if_(var(c_.pick(any)->name), ir::CmpOp::Lt, lit(c_.integer(0, 4)), std::move(then_body), {}));
}

// A division whose divisor is zero for some inputs or trips, so the interpreter traps on some
// seeds: `q = e / (u % m)` or `q = e % (u - k)` over a scalar u in scope, or a 1-trip loop
// dividing by its var less its start (zero whenever it runs; under an if on a scalar when there
// is one). WellFormed sees no static zero divisor in any of them; a pass that folds, drops or
// reorders the division changes whether and how the program traps.
void Builder::trap_stmt(Stmts& out, Scope& s) {
  // Only scalars a loop or a read feeds: one made of literals alone is static to WellFormed,
  // and its zero divisor an ill-formed program (13).
  std::vector<const Scalar*> any;
  for (const Scalar* u : pool(s, ScalarClass::Any))
    if (u->sources != 0) any.push_back(u);
  std::vector<const Tensor*> ins;
  for (const Tensor& t : s.tensors)
    if (!t.writable && t.buf >= 0 && t.dims.size() == bufs_[static_cast<size_t>(t.buf)].size()) ins.push_back(&t);
  if (k_.entry_reads && !ins.empty() && c_.boolean()) return trap_read(out, s, *c_.pick(ins), any);
  unsigned sources = 0;
  ir::Expr num = scalar_expr(any, 1, &sources);
  const ir::BinOp op = c_.boolean() ? ir::BinOp::Div : ir::BinOp::Mod;
  const std::string v = fresh("q");
  features_.add(Feature::kTrapDivisor);
  if (any.empty() || c_.chance(30)) {
    const int64_t start = c_.integer(-2, 3);
    const std::string i = fresh("it");
    one_trip_trap(out, any, i, start, let(v, bin(op, std::move(num), sub(var(i), lit(start)))));
    return;
  }
  const Scalar& u = *c_.pick(any);
  sources |= u.sources;
  ir::Expr divisor = c_.boolean() ? mod(var(u.name), lit(c_.integer(2, 3))) : sub(var(u.name), lit(c_.integer(0, 2)));
  out.push_back(let(v, bin(op, std::move(num), std::move(divisor))));
  s.scalars.push_back({v, ScalarClass::Any, sources, nullptr});
}

// A read of an In entry tensor whose index on one axis is at the axis's end, or just before
// its start, for some inputs or trips (the interpreter traps out of bounds on those seeds): a
// 1-trip loop reading at its var, which is the axis's length or -1 (under an if on a scalar
// when there is one), or `(u % 2) + (len - 1)` / `(u % 2) - 1` over a scalar u in scope. No
// index is static to WellFormed (rule 11 would reject a literal one); a pass that folds the
// loop or the arithmetic into a literal index makes its own output ill-formed.
void Builder::trap_read(Stmts& out, Scope& s, const Tensor& t, const std::vector<const Scalar*>& any) {
  features_.add(Feature::kTrapRead);
  const size_t axis = c_.one_of(t.dims.size());
  const int64_t len = t.dims[axis];
  const std::string v = fresh("q");
  unsigned sources = kFromRead;
  std::vector<ir::Expr> idx;
  const auto in_range = pool(s, ScalarClass::Any);
  if (any.empty() || c_.chance(30)) {
    const std::string i = fresh("it");
    const int64_t start = c_.boolean() ? len : -1;
    for (size_t k = 0; k < t.dims.size(); ++k)
      idx.push_back(k == axis ? var(i) : offset_expr(in_range, t.dims[k], &sources));
    one_trip_trap(out, any, i, start, let(v, read(t.name, std::move(idx))));
    return;
  }
  const Scalar& u = *c_.pick(any);
  sources |= u.sources;
  ir::Expr at = c_.boolean() ? add(mod(var(u.name), lit(2)), lit(len - 1)) : sub(mod(var(u.name), lit(2)), lit(1));
  for (size_t k = 0; k < t.dims.size(); ++k)
    idx.push_back(k == axis ? std::move(at) : offset_expr(in_range, t.dims[k], &sources));
  out.push_back(let(v, read(t.name, std::move(idx))));
  s.scalars.push_back({v, ScalarClass::Any, sources, nullptr});
}

// for i in range(lo, hi, step): literal trips mostly; sometimes trips computed from a scalar
// (a read or a loop var), kept small by a floor mod.
void Builder::entry_loop(Stmts& out, Scope& s, bool with_site) {
  Scope inner = s;
  inner.loop_depth = s.loop_depth + 1;
  const std::string i = fresh("it");
  ir::Expr lo = literal(0, &s), hi = literal(c_.integer(1, std::max(1, k_.max_trips)), &s), step = literal(1, &s);
  unsigned sources = kFromLoop;
  const auto any = pool(s, ScalarClass::Any);
  if (!any.empty() && c_.chance(25)) {
    hi = add(mod(scalar_expr(any, 1, &sources), lit(std::max(1, k_.max_trips))), lit(1));
    features_.add(Feature::kDynamicTripLoop);
  } else if (c_.chance(15)) {
    std::swap(lo, hi);
    step = lit(-1);
  }
  inner.scalars.push_back({i, ScalarClass::Any, sources, nullptr});
  Stmts body;
  if (with_site) {
    for (size_t g = 0; g < graphs_.size(); ++g)
      if (sites_left_[g] > 0) {
        call_site(body, inner, g);
        break;
      }
  }
  entry_block(body, inner, static_cast<int>(c_.length(3)));
  if (body.empty()) launch(body, inner);
  flow_locals(body, inner, first_local_);
  if (s.loop_depth > 0) features_.add(Feature::kNestedLoop);
  out.push_back(for_(i, std::move(lo), std::move(hi), std::move(step), std::move(body)));
}

void Builder::create_used_nested(Stmts& out, Scope& s) {
  const bool loop = s.loop_depth < k_.max_loop_depth && (!k_.ifs || c_.boolean());
  if (!loop && !k_.ifs) return;
  static const std::vector<Dims> shapes = {{8}, {4}, {16}, {4, 4}, {2, 4}};
  Dims d = c_.pick(shapes);
  if (d.size() >= 2 && !k_.two_d) d = {8};
  const Tensor t = fresh_buffer(out, s, d);
  const bool created = std::holds_alternative<ir::CreateRhs>(out.back().rhs);
  // The block reads it (zeroed, as every create) into a local of its own, which flows out.
  Scope inner = s;
  if (loop) inner.loop_depth = s.loop_depth + 1;
  Stmts body;
  const Tensor u = fresh_buffer(body, inner, d);
  record_access(t, false);
  note_write_overlaps(u);
  record_access(u, true);
  body.push_back(call(kernel("copy", {d}, 0).name, {var(t.name), var(u.name)}));
  flow_locals(body, inner, first_local_);
  if (loop)
    out.push_back(for_(fresh("it"), lit(0), lit(c_.integer(1, 2)), lit(1), std::move(body)));
  else
    out.push_back(if_(lit(0), ir::CmpOp::Lt, lit(1), std::move(body)));
  // ... then a launch writes it whole, unviewed, through a builtin's Out param alone.
  note_write_overlaps(t);
  record_access(t, true);
  out.push_back(call(kernel("fill", {d}, 0).name, {var(t.name), lit(c_.integer(1, 9))}));
  if (created) features_.add(Feature::kCreateUsedNested);
}

void Builder::entry_if(Stmts& out, Scope& s, bool with_site) {
  const auto any = pool(s, ScalarClass::Any);
  // A scalar, sometimes an expression over the scalars (a read spelled in place among them).
  ir::Expr lhs = any.empty() ? lit(c_.integer(0, 3)) : c_.chance(25) ? scalar_expr(any, 1, nullptr) : var(c_.pick(any)->name);
  static const ir::CmpOp cmps[] = {ir::CmpOp::Lt, ir::CmpOp::Ge, ir::CmpOp::Eq,
                                   ir::CmpOp::Ne, ir::CmpOp::Le, ir::CmpOp::Gt};
  const ir::CmpOp cmp = cmps[c_.one_of(6)];
  Stmts then_body, else_body;
  {
    Scope inner = s;
    if (with_site) {
      for (size_t g = 0; g < graphs_.size(); ++g)
        if (sites_left_[g] > 0) {
          call_site(then_body, inner, g);
          features_.add(Feature::kSiteInIf);
          break;
        }
    }
    entry_block(then_body, inner, static_cast<int>(c_.length(2)));
    if (then_body.empty()) launch(then_body, inner);
    flow_locals(then_body, inner, first_local_);
  }
  if (c_.boolean()) {
    Scope inner = s;
    entry_block(else_body, inner, 1 + static_cast<int>(c_.length(2)));
    flow_locals(else_body, inner, first_local_);
  }
  features_.add(Feature::kIfEntry);
  out.push_back(if_(std::move(lhs), cmp, literal(c_.integer(-2, 4), &s), std::move(then_body), std::move(else_body)));
}

// One call of graph g: a window of the right shape per tensor param (writable for InOut),
// sometimes a second window of a buffer already passed (one alias class, two names); a
// literal or computed scalar per scalar param; `call` or `submit`, results maybe used.
void Builder::call_site(Stmts& out, Scope& s, size_t g) {
  GraphSig& sig = graphs_[g];
  --sites_left_[g];
  ++sites_done_[g];
  if (s.loop_depth > 0)
    features_.add(Feature::kSiteInLoop);
  else
    features_.add(Feature::kSiteStraight);
  std::vector<Tensor> by_param(sig.params.size());
  std::vector<ir::Expr> args;
  std::vector<int> bufs_passed;
  for (size_t p = 0; p < sig.params.size(); ++p) {
    const ir::Param& prm = sig.params[p];
    if (!prm.type.is_tensor()) {
      unsigned sources = 0;
      ir::Expr e = c_.chance(30) ? lit(c_.integer(-2, 9)) : scalar_expr(pool(s, ScalarClass::Any), 1, &sources);
      if (e.kind == ir::Expr::Kind::Int) features_.add(Feature::kScalarArgLiteral);
      if (sources & kFromLoop) features_.add(Feature::kScalarArgLoopDerived);
      if (sources & kFromRead) features_.add(Feature::kScalarArgReadDerived);
      args.push_back(std::move(e));
      continue;
    }
    const Dims& d = prm.type.dims;
    const bool inout = prm.dir == ir::Dir::InOut;
    std::optional<Tensor> t;
    if (k_.alias_args && !bufs_passed.empty() && c_.chance(35)) {
      // A window of a buffer another param already receives.
      std::vector<const Tensor*> cands;
      for (const Tensor& x : s.tensors) {
        if (std::find(bufs_passed.begin(), bufs_passed.end(), x.buf) == bufs_passed.end()) continue;
        if (inout && !x.writable) continue;
        if (x.dims.size() != d.size()) continue;
        bool fits = true;
        for (size_t k = 0; k < d.size(); ++k) fits &= x.dims[k] >= d[k];
        if (fits) cands.push_back(&x);
      }
      if (!cands.empty()) {
        const Tensor base = *c_.pick(cands);
        t = base.dims == d ? base : make_view(out, s, base, d);
      }
    }
    if (!t) t = inout ? obtain_output(out, s, d) : obtain_input(out, s, d);
    if (!t) t = fresh_buffer(out, s, d);  // a fresh create is writable
    if (std::find(bufs_passed.begin(), bufs_passed.end(), t->buf) != bufs_passed.end())
      features_.add(Feature::kAliasBoundaryArgs);
    bufs_passed.push_back(t->buf);
    record_access(*t, inout);
    args.push_back(var(t->name));
    by_param[p] = *t;
  }
  const bool submit = k_.submits && c_.chance(25);
  if (submit) features_.add(Feature::kSiteSubmit);
  if (!submit && (sig.returns.empty() || c_.chance(40))) {
    out.push_back(call(sig.name, std::move(args), false));
    return;
  }
  const std::string r = fresh("gr");
  out.push_back(call_to(r, sig.name, std::move(args), submit));
  bind_results(out, s, r, submit, sig.returns, by_param, true);
}

// Sites not emitted yet go at the end of the entry, straight.
void Builder::pending_sites(Stmts& out, Scope& s) {
  for (size_t g = 0; g < graphs_.size(); ++g)
    while (sites_left_[g] > 0) call_site(out, s, g);
}

}  // namespace stackcheck::gen::detail
