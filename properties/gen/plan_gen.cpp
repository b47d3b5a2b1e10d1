// The bind-plan generator (plan_gen.h). One builder keeps, per body, the tensors in scope (a
// window of a buffer: dims, static offsets, writable, rooted in an entry input, the scope that
// allocated it) and the scalars, and only emits statements whose operands are alive and
// valid; plan_gen_fatal.cpp plants the fatal codes.
#include "properties/gen/plan_gen.h"

#include "stack/support/limits.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>

#include "properties/gen/plan_builder.h"

namespace stackcheck::gen {

namespace {
constexpr const char* kPlanFeatureNames[] = {
    "scope",
    "nested-scope",
    "alloc",
    "output",
    "view",
    "set",
    "read",
    "if-on-read",
    "loop",
    "dynamic-trips",
    "no_dep",
    "2d",
    "rank-3+",
    // (the WriteTags: tags.h)
    "disjoint-same-buffer",
    "graph",
    "graph-internal",
    "slot-scalar",
    "frozen-expr",
    "key-reused",
    "new-key",
    "boundary-alias",
    "graph-cache-full",
    "planted-fatal",
};
}  // namespace

const char* plan_feature_name(PlanFeature f) { return tag_name(kPlanFeatureNames, f); }

GeneratedPlan generate_plan(ChoiceSource& choices, const PlanKnobs& knobs) {
  return with_swarm<GeneratedPlan>(choices, knobs, swarm_plan_knobs,
                                   [&](const PlanKnobs& k) { return plan_detail::PlanBuilder(choices, k).build(); });
}

namespace plan_detail {

using namespace runtime;

PlanExpr lit(int64_t v) { return PlanExpr::integer(v); }
PlanExpr name_of(const std::string& n) { return PlanExpr::named(n); }
PlanStmt stmt(PlanStmt::Node n) {
  PlanStmt s;
  s.node = std::move(n);
  return s;
}
ForStmt counting_loop(std::string var, int64_t stop, int64_t step) {
  ForStmt f;
  f.var = std::move(var);
  f.start = lit(0);
  f.stop = lit(stop);
  f.step = lit(step);
  return f;
}

namespace {
constexpr int64_t kExtents[] = {1, 2, 4, 8, 16};
}

GeneratedPlan PlanBuilder::build() {
  GeneratedPlan out;
  // W first, from the first bytes, and small at choice 0: the default W=16384 (a 45 MB mirror
  // to fill, the cost of a bind) only when chosen, never because an input ran out.
  if (k_.small_config && c_.integer(0, 99) < k_.small_w_percent) {
    static const int64_t ws[] = {256, 64, 1024};
    config_["W"] = ws[c_.one_of(3)];
  }
  // Entry tensors: an input to read (and no_dep), an InOut where results are observed.
  out.plan.tensors.push_back({"x", false, {16}, {}});
  out.plan.tensors.push_back({"c", true, {16}, {}});
  if (k_.two_d && c_.boolean()) out.plan.tensors.push_back({"m", true, {4, 8}, {}});
  if (c_.chance(30))
    out.plan.tensors.push_back(
        {"y", false, k_.two_d && c_.boolean() ? std::vector<int64_t>{4, 4} : std::vector<int64_t>{8}, {}});
  if (k_.two_d && c_.chance(20)) out.plan.tensors.push_back({"h", true, {2, 2, 4}, {}});
  Body root;
  for (const EntryTensor& t : out.plan.tensors) {
    Ten e;
    e.name = t.name;
    e.dims.assign(t.shape.begin(), t.shape.end());
    e.buf = new_access_record();
    e.off = Dims(t.shape.size(), 0);
    e.writable = t.inout;
    e.entry_in = !t.inout;
    e.entry = true;
    root.tensors.push_back(e);
  }
  if (k_.graphs) {
    size_t n = std::max<size_t>(c_.length(static_cast<size_t>(k_.max_graphs)), static_cast<size_t>(k_.min_graphs));
    // Now and then more definitions than the graph cache holds (RUNTIME.md §9: 16), so that a
    // first submission past them runs inline (BindStats::inlined, the cache-full path).
    if (c_.chance(3)) {
      n = 17 + c_.one_of(2);
      features_.add(PlanFeature::kCacheFull);
    }
    for (size_t g = 0; g < n; ++g) out.plan.graphs.push_back(graph_def(fmt::format("g{}", g)));
    // Now and then a definition no statement submits, first in the list, so every graph after
    // it has a function id one past its index among the submitted ones (RUNTIME.md §17: ids
    // follow definition order, used or not).
    if (n > 0 && n < 16 && c_.chance(5)) {
      PlanGraph unused = graph_def("unused_g");
      graphs_.pop_back();  // never submitted: not a signature submit_graph may pick
      out.plan.graphs.insert(out.plan.graphs.begin(), std::move(unused));
    }
  }
  block(out.plan.body, root, static_cast<int>(c_.length(static_cast<size_t>(k_.max_stmts))));
  // Every graph is submitted at least once (min_submissions times, counting the body's).
  for (size_t g = 0; g < graphs_.size(); ++g)
    while (graphs_[g].submissions < std::max(1, k_.min_submissions)) submit_graph(out.plan.body, root, g);
  flow_locals(out.plan.body, root);

  if (c_.chance(20)) config_["workers"] = c_.integer(1, 8);
  // The other RuntimeConfig keys, at roomy values that change no outcome of a clean plan: a
  // ready ring larger than the derived pitch + 1024 per GRAPH task (RUNTIME.md §5), a longer
  // progress timeout, a mirror fill byte (the benches override it), a graph heap smaller than
  // the default but far above what a plan's graphs take.
  if (c_.chance(10)) config_["ready_capacity"] = 1 << 16;
  if (c_.chance(10)) config_["progress_timeout_ms"] = 20000;
  if (c_.chance(10)) config_["fill_byte"] = c_.integer(0, 255);
  if (c_.chance(10)) config_["graph_heap"] = 1 << 22;
  if (k_.planted_percent > 0 && c_.chance(k_.planted_percent)) out.planted = plant(out.plan, root);
  for (const auto& [key, value] : config_) out.plan.config.push_back({key, value, {}});
  out.features = features_;
  if (out.planted != 0) out.features.add(PlanFeature::kPlanted);
  return out;
}

Ten& PlanBuilder::local_buffer(Body& b, const char* stem, const Dims& dims) {
  Ten t;
  t.name = fresh(stem);
  t.dims = dims;
  t.buf = new_access_record();
  t.off = Dims(dims.size(), 0);
  t.writable = true;
  t.local = true;
  t.level = b.scope;
  b.tensors.push_back(std::move(t));
  return b.tensors.back();
}

Dims PlanBuilder::window_dims(const Dims& base) { return window_dims_within(c_, base); }

PlanBuilder::TenRefs PlanBuilder::alive(const Body& b, bool writable, size_t rank) const {
  TenRefs out;
  for (const Ten& t : b.tensors) {
    if (t.dead || (writable && !t.writable)) continue;
    if (rank != 0 && t.dims.size() != rank) continue;
    out.push_back(&t);
  }
  return out;
}

// A scalar expression over the body's scalars, slots and literals; / and % only by nonzero
// literals (a zero divisor would latch 5, which only planted plans do).
PlanExpr PlanBuilder::scalar_expr(const Body& b, int depth) {
  const size_t form = c_.one_of(depth >= 2 ? 2 : 4);
  std::vector<PlanExpr> atoms;
  for (const std::string& s : b.scalars) atoms.push_back(name_of(s));
  for (int k = 0; k < b.slots; ++k) atoms.push_back(PlanExpr::slot(k));
  if (form == 0 || atoms.empty()) return lit(c_.integer(-3, 9));
  if (form == 1) {
    PlanExpr a = c_.pick(atoms);
    if (a.kind == PlanExpr::Kind::Slot && b.in_graph) features_.add(PlanFeature::kFrozenExpr);
    return a;
  }
  static const PlanBinOp ops[] = {PlanBinOp::Add, PlanBinOp::Sub, PlanBinOp::Mul, PlanBinOp::Div, PlanBinOp::Mod};
  const PlanBinOp op = ops[c_.one_of(5)];
  PlanExpr lhs = scalar_expr(b, depth + 1);
  PlanExpr rhs = (op == PlanBinOp::Div || op == PlanBinOp::Mod) ? lit(c_.integer(1, 5)) : scalar_expr(b, depth + 1);
  return PlanExpr::binary(op, std::move(lhs), std::move(rhs));
}

// A window of `t` with dims `w`: placed against a recent access of its buffer (exact, partly,
// a single element) or anywhere, with literal offsets (static), or at an offset computed from
// the body's scalars, kept in range by a floor mod.
Window PlanBuilder::window_of(const Body& b, const Ten& t, const Dims& w) {
  const size_t rank = w.size();
  Dims span(rank);
  for (size_t d = 0; d < rank; ++d) span[d] = t.dims[d] - w[d] + 1;
  std::optional<Dims> want;
  const auto& acc = accesses_[static_cast<size_t>(t.buf)];
  if (k_.overlaps && t.off && !acc.empty() && c_.chance(65)) {
    const Access& a = acc[acc.size() - 1 - c_.one_of(std::min<size_t>(acc.size(), 4))];
    if (a.off.size() == rank) {
      Dims o(rank);
      const size_t rel = c_.one_of(4);  // exact, partial, single element, disjoint if it fits
      for (size_t d = 0; d < rank; ++d) {
        if (rel == 0)
          o[d] = a.off[d];
        else if (rel == 1)
          o[d] = c_.integer(a.off[d] - w[d] + 1, a.off[d] + a.dims[d] - 1);
        else if (rel == 2)
          o[d] = c_.boolean() ? a.off[d] - w[d] + 1 : a.off[d] + a.dims[d] - 1;
        else
          o[d] = c_.boolean() ? a.off[d] - w[d] : a.off[d] + a.dims[d];
      }
      bool fits = true;
      for (size_t d = 0; d < rank; ++d) {
        o[d] -= (*t.off)[d];
        fits &= o[d] >= 0 && o[d] < span[d];
      }
      if (fits) want = o;
    }
  }
  Window win;
  win.dims = w;
  win.buf = t.buf;
  bool whole = w == t.dims && !want && c_.boolean();
  std::vector<PlanRange> ranges;
  Dims local(rank, 0);
  bool literal = true;
  for (size_t d = 0; d < rank && !whole; ++d) {
    PlanExpr e;
    if (want)
      e = lit((*want)[d]);
    else if (span[d] <= 1 || (b.scalars.empty() && b.slots == 0) || c_.chance(60))
      e = lit(c_.integer(0, span[d] - 1));
    else
      e = PlanExpr::binary(PlanBinOp::Mod, scalar_expr(b, 1), lit(span[d]));
    if (e.kind == PlanExpr::Kind::Int)
      local[d] = e.value;
    else
      literal = false;
    ranges.push_back({std::move(e), w[d]});
  }
  win.window.name = t.name;
  win.window.ranges = std::move(ranges);
  if (t.off && literal) {
    Dims o(rank);
    for (size_t d = 0; d < rank; ++d) o[d] = (*t.off)[d] + local[d];
    win.off = o;
  }
  if (rank == 2) features_.add(PlanFeature::kTwoD);
  if (rank >= 3) features_.add(PlanFeature::kHighRank);
  return win;
}

void PlanBuilder::note_access(const Window& w, bool wrote) {
  if (!w.off) return;
  if (wrote) {
    for (const Access& a : accesses_[static_cast<size_t>(w.buf)])
      if (!tag_write_overlap(features_, a.off, a.dims, *w.off, w.dims)) features_.add(PlanFeature::kDisjointSameBuffer);
  }
  remember_access(w.buf, *w.off, w.dims, wrote);
}

// An input window of dims `w`: any alive tensor large enough (no_dep when it is rooted in a
// never-written entry input), or a fresh output of an earlier fill when none fits.
PlanBuilder::TenRefs PlanBuilder::fitting(const Body& b, bool writable, const Dims& w) const {
  TenRefs fits;
  for (const Ten* t : alive(b, writable, w.size())) {
    bool ok = true;
    for (size_t d = 0; d < w.size(); ++d) ok &= t->dims[d] >= w[d];
    if (ok) fits.push_back(t);
  }
  return fits;
}

std::optional<Window> PlanBuilder::input_window(const Body& b, const Dims& w) {
  const TenRefs fits = fitting(b, false, w);
  if (fits.empty()) return std::nullopt;
  const Ten& t = *c_.pick(fits);
  Window win = window_of(b, t, w);
  win.tag = PlanTag::Input;
  // In a graph body only the params every submission binds to an entry input are entry_in.
  if (k_.no_dep && t.entry_in && c_.chance(25)) {
    win.tag = PlanTag::NoDep;
    features_.add(PlanFeature::kNoDep);
  }
  return win;
}

std::optional<Window> PlanBuilder::output_window(Body& b, const Dims& w) {
  const TenRefs fits = fitting(b, true, w);
  if (fits.empty()) return std::nullopt;
  Window win = window_of(b, *c_.pick(fits), w);
  win.tag = PlanTag::OutputExisting;
  return win;
}

PlanArg PlanBuilder::arg_of(const Window& w) const { return PlanArg::tensor(w.tag, w.window); }

// One builtin submit: the destination's dims first, the kernel's shapes from them.
void PlanBuilder::submit(PlanBlock& out, Body& b) {
  TenRefs targets = alive(b, true, 0);
  if (targets.empty()) return;
  const Ten& base = *c_.pick(targets);
  Dims w = window_dims(base.dims);
  std::vector<Builtin> ops = {Builtin::Fill, Builtin::Copy, Builtin::Add, Builtin::Acc, Builtin::Scale};
  if (k_.two_d && w.size() == 2) ops.insert(ops.end(), {Builtin::Matmul, Builtin::Matmul, Builtin::Rowsum});
  const Builtin op = c_.pick(ops);
  if (op == Builtin::Rowsum) w[1] = 1;
  // Out params: an existing window (output_existing), or a fresh runtime-allocated buffer.
  const bool fresh_out = op != Builtin::Acc && c_.chance(25);
  std::optional<Window> dst;
  if (!fresh_out) {
    dst = output_window(b, w);
    if (!dst) return;
  }
  std::vector<Dims> ins;
  switch (op) {
    case Builtin::Fill: break;
    case Builtin::Add: ins = {w, w}; break;
    case Builtin::Matmul: {
      const int64_t kk = kExtents[c_.one_of(3)];
      ins = {{w[0], kk}, {kk, w[1]}};
      features_.add(WriteTag::kMatmul);
      break;
    }
    case Builtin::Rowsum:
      ins = {{w[0], kExtents[1 + c_.one_of(2)]}};
      features_.add(WriteTag::kRowsum);
      break;
    default: ins = {w};
  }
  std::vector<Window> in_wins;
  for (const Dims& d : ins) {
    std::optional<Window> i = input_window(b, d);
    if (!i) return;
    in_wins.push_back(*i);
  }
  SubmitStmt s;
  s.builtin = op;
  for (const Window& i : in_wins) s.args.push_back(arg_of(i));
  // The written window is judged against earlier accesses before this launch's reads count.
  if (dst) {
    dst->tag = op == Builtin::Acc ? PlanTag::Inout : PlanTag::OutputExisting;
    note_access(*dst, /*wrote=*/op != Builtin::Acc);  // acc commutes with acc: not an order hazard
    s.args.push_back(arg_of(*dst));
  } else {
    const Ten& t = local_buffer(b, b.in_graph ? "u" : "o", w);
    s.args.push_back(PlanArg::output(t.name, {w.begin(), w.end()}));
    features_.add(b.in_graph ? PlanFeature::kGraphInternal : PlanFeature::kOutput);
  }
  for (const Window& i : in_wins)
    if (i.tag != PlanTag::NoDep) note_access(i, false);
  if (op == Builtin::Fill || op == Builtin::Scale) s.args.push_back(PlanArg::scalar_value(scalar_arg(b)));
  out.push_back(stmt(std::move(s)));
}

// A scalar argument: in a graph body a slot `$k` (patched per replay), a literal, or an
// expression over slots (frozen at recording); elsewhere any expression.
PlanExpr PlanBuilder::scalar_arg(const Body& b) {
  if (b.in_graph && b.slots > 0 && c_.chance(50)) {
    features_.add(PlanFeature::kSlotScalar);
    return PlanExpr::slot(c_.integer(0, b.slots - 1));
  }
  return c_.chance(40) ? lit(c_.integer(-4, 9)) : scalar_expr(b, 1);
}

void PlanBuilder::alloc(PlanBlock& out, Body& b) {
  AllocStmt a;
  // Sometimes exactly the most buffers one alloc_tensors takes (support::kAllocMaxBuffers,
  // RUNTIME.md §8/§9): the limit itself must bind.
  const size_t n = c_.chance(10) ? support::kAllocMaxBuffers : 1 + c_.length(2);
  static const std::vector<Dims> shapes = {{8}, {16}, {4}, {4, 4}, {4, 8}, {2, 2, 4}, {2, 1, 2, 4}};
  for (size_t i = 0; i < n; ++i) {
    Dims d = c_.pick(shapes);
    if (d.size() >= 2 && !k_.two_d) d = {8};
    a.buffers.push_back({local_buffer(b, b.in_graph ? "t" : "a", d).name, {d.begin(), d.end()}});
  }
  features_.add(b.in_graph ? PlanFeature::kGraphInternal : PlanFeature::kAlloc);
  out.push_back(stmt(std::move(a)));
}

void PlanBuilder::view(PlanBlock& out, Body& b) {
  TenRefs all = alive(b, false, 0);
  if (all.empty()) return;
  const Ten& t = *c_.pick(all);
  const Window w = window_of(b, t, window_dims(t.dims));
  Ten v = t;
  v.name = fresh("v");
  v.dims = w.dims;
  v.off = w.off;
  v.is_view = true;
  v.entry = false;
  out.push_back(stmt(ViewStmt{v.name, w.window}));
  b.tensors.push_back(v);
  features_.add(PlanFeature::kView);
}

void PlanBuilder::set_or_read(PlanBlock& out, Body& b) {
  std::vector<const Ten*> ins;
  for (const Ten* t : alive(b, false, 0))
    if (t->entry_in) ins.push_back(t);
  const std::string n = fresh("s");
  if (k_.reads && !b.in_graph && !ins.empty() && c_.boolean()) {
    const Ten& t = *c_.pick(ins);
    ReadStmt r;
    r.name = n;
    r.tensor = t.name;
    for (int64_t d : t.dims)
      r.index.push_back(b.scalars.empty() || c_.chance(50)
                            ? lit(c_.integer(0, d - 1))
                            : PlanExpr::binary(PlanBinOp::Mod, scalar_expr(b, 1), lit(d)));
    out.push_back(stmt(std::move(r)));
    b.read_scalars.push_back(n);
    features_.add(PlanFeature::kRead);
  } else {
    out.push_back(stmt(SetStmt{n, scalar_expr(b, 0)}));
    features_.add(PlanFeature::kSet);
  }
  b.scalars.push_back(n);
}

void PlanBuilder::loop(PlanBlock& out, Body& b) {
  Body inner = b;
  ++inner.depth;
  std::string var = fresh("i");
  const int64_t trips = c_.integer(0, std::max(1, k_.max_trips));
  ForStmt f = counting_loop(std::move(var), trips);
  if (!b.in_graph && !b.read_scalars.empty() && c_.chance(30)) {
    // Trips steered by data: 1..max_trips whatever the read value.
    f.stop = PlanExpr::binary(
        PlanBinOp::Add,
        PlanExpr::binary(PlanBinOp::Mod, name_of(c_.pick(b.read_scalars)), lit(std::max(1, k_.max_trips))), lit(1));
    features_.add(PlanFeature::kDynamicTrips);
  } else if (b.in_graph && b.slots > 0 && c_.chance(30)) {
    // Trips decided by a slot's value at recording (frozen for every replay, RUNTIME.md §17):
    // `$k % m`, none when it is negative.
    f.stop = PlanExpr::binary(PlanBinOp::Mod, PlanExpr::slot(c_.integer(0, b.slots - 1)),
                              lit(std::max(1, k_.max_trips) + 1));
    features_.add(PlanFeature::kFrozenExpr);
  } else if (c_.chance(15)) {
    f.start = lit(trips);
    f.stop = lit(0);
    f.step = lit(-1);
  }
  inner.scalars.push_back(f.var);
  block(f.body, inner, 1 + static_cast<int>(c_.length(3)));
  kill_inner(b, inner);
  features_.add(PlanFeature::kLoop);
  out.push_back(stmt(std::move(f)));
}

void PlanBuilder::if_stmt(PlanBlock& out, Body& b) {
  IfStmt s;
  const bool on_read = !b.read_scalars.empty() && c_.chance(70);
  s.lhs = on_read ? PlanExpr::binary(PlanBinOp::Mod, name_of(c_.pick(b.read_scalars)), lit(4)) : scalar_expr(b, 1);
  static const PlanCmp cmps[] = {PlanCmp::Lt, PlanCmp::Ge, PlanCmp::Eq, PlanCmp::Ne, PlanCmp::Le, PlanCmp::Gt};
  s.cmp = cmps[c_.one_of(6)];
  s.rhs = lit(c_.integer(0, 3));
  Body then_b = b, else_b = b;
  ++then_b.depth;
  ++else_b.depth;
  block(s.then_body, then_b, 1 + static_cast<int>(c_.length(2)));
  if (c_.boolean()) block(s.else_body, else_b, 1 + static_cast<int>(c_.length(2)));
  kill_inner(b, then_b);
  kill_inner(b, else_b);
  if (on_read) features_.add(PlanFeature::kIfOnRead);
  out.push_back(stmt(std::move(s)));
}

// scope_begin, a few statements, scope_end: whatever the scope allocated dies with it.
void PlanBuilder::scope(PlanBlock& out, Body& b) {
  out.push_back(stmt(ScopeBeginStmt{}));
  ++b.scope;
  if (b.scope > 1) features_.add(PlanFeature::kNestedScope);
  features_.add(PlanFeature::kScope);
  const size_t n = 1 + c_.length(3);
  for (size_t i = 0; i < n; ++i) statement(out, b);
  flow_locals(out, b);
  for (Ten& t : b.tensors)
    if (t.level >= b.scope) t.dead = true;
  --b.scope;
  out.push_back(stmt(ScopeEndStmt{}));
}

// Buffers a nested block allocated die when it ends (its names are out of scope), and so do
// the ones its scopes killed; tensors it only read or wrote stay.
void PlanBuilder::kill_inner(Body& outer, const Body& inner) {
  for (Ten& t : outer.tensors)
    for (const Ten& i : inner.tensors)
      if (i.name == t.name && i.dead) t.dead = true;
}

void PlanBuilder::statement(PlanBlock& out, Body& b) {
  // Graph bodies: submits, internals, views, frozen scalars, unrolled loops and ifs decided at
  // recording (over slots and literals: RUNTIME.md §17 freezes them); no scopes, reads or
  // nested graphs (latch 5).
  switch (c_.one_of(b.in_graph ? 7 : 9)) {
    case 0: submit(out, b); break;
    case 1: alloc(out, b); break;
    case 2: view(out, b); break;
    case 3: set_or_read(out, b); break;
    case 4: submit(out, b); break;
    case 5:
      if (b.depth < k_.max_depth) loop(out, b);
      break;
    case 6:
      if (b.depth < k_.max_depth) if_stmt(out, b);
      break;
    case 7:
      if (k_.scopes && b.scope < 3) scope(out, b);
      break;
    default:
      if (!graphs_.empty()) submit_graph(out, b, c_.one_of(graphs_.size()));
  }
}

void PlanBuilder::block(PlanBlock& out, Body& b, int n) {
  for (int i = 0; i < n; ++i) statement(out, b);
}

// Accumulates each written local (alloc or output, still alive) into an InOut entry window,
// so what a task wrote there reaches an observed tensor.
void PlanBuilder::flow_locals(PlanBlock& out, Body& b) {
  if (b.in_graph) return;
  std::vector<Ten> locals;
  for (const Ten& t : b.tensors)
    if (!t.dead && t.local && !t.is_view) locals.push_back(t);
  for (const Ten& l : locals) {
    if (!c_.chance(60)) continue;
    std::vector<const Ten*> sinks;
    for (const Ten* t : alive(b, true, l.dims.size())) {
      if (!t->entry || t->buf == l.buf) continue;
      bool ok = true;
      for (size_t d = 0; d < l.dims.size(); ++d) ok &= t->dims[d] >= l.dims[d];
      if (ok) sinks.push_back(t);
    }
    if (sinks.empty()) continue;
    Window dst = window_of(b, *c_.pick(sinks), l.dims);
    dst.tag = PlanTag::Inout;
    Window src;
    src.window.name = l.name;
    src.dims = l.dims;
    src.buf = l.buf;
    src.off = l.off;
    src.tag = PlanTag::Input;
    note_access(src, false);
    note_access(dst, false);
    SubmitStmt s;
    s.builtin = Builtin::Acc;
    s.args = {arg_of(src), arg_of(dst)};
    out.push_back(stmt(std::move(s)));
  }
}

}  // namespace plan_detail
}  // namespace stackcheck::gen
