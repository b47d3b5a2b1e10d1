// The program generator's common machinery (program_builder.h): the kernel catalog, windows
// and their offsets, and launches with their results.
#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "properties/gen/program_builder.h"
#include "stack/runtime/plan/check.h"

namespace stackcheck::gen {

namespace {
constexpr const char* kFeatureNames[] = {
    "graphs>=2",
    "graph-multi-site",
    "site-straight",
    "site-in-loop",
    "site-in-if",
    "site-submit",
    "arg-literal",
    "arg-loop-derived",
    "arg-read-derived",
    "stepA-scalar",
    "scalar-alias",
    "view-derivable",
    "view-invariant",
    "create-depth0",
    "create-in-loop",
    "view-2d",
    "view-3d",
    "spelled-literal",
    "trap-divisor",
    "trap-read",
    "graph-named-plan-keyword",
    "column-window",
    "view-of-offset-view",
    "nested-loop",
    "dynamic-trip-loop",
    "assemble",
    "if-entry",
    "if-graph",
    "submit-result-used",
    "graph-result-used",
    "inplace-rebind",
    "kernel-extra-param",
    "kernel-no-returns",
    "kernel-returns-out-of-order",
    "graph-returns-out-of-order",
    "full",
    "read",
    // (the WriteTags: tags.h)
    "alias-boundary-args",
    "illegal-view",
    "illegal-full",
    "tensor-alias",
    "create-used-nested",
    "shape-through-scalar",
};
}  // namespace

const char* feature_name(Feature f) { return tag_name(kFeatureNames, f); }

GeneratedProgram generate_program(ChoiceSource& choices, const ProgramKnobs& knobs) {
  return with_swarm<GeneratedProgram>(choices, knobs, swarm_program_knobs,
                                      [&](const ProgramKnobs& k) { return detail::Builder(choices, k).build(); });
}

namespace detail {

using namespace ir::build;

int64_t elements(const Dims& d) {
  int64_t n = 1;
  for (int64_t x : d) n *= x;
  return n;
}

namespace {

ir::Type tensor_type(const Dims& d) { return ir::Type::tensor(d); }

std::string dims_text(const Dims& d) {
  std::string s;
  for (size_t i = 0; i < d.size(); ++i) s += fmt::format("{}{}", i ? "x" : "", d[i]);
  return s;
}

// Window extents the generator uses: powers of two, so windows of different shapes share
// elements in many ways.
constexpr int64_t kExtents[] = {1, 2, 4, 8, 16};

}  // namespace

GeneratedProgram Builder::build() {
  // The rejection modes plant their statement in a graph, so they need one.
  const int lo = std::max(k_.min_graphs, k_.illegal_view || k_.illegal_full ? 1 : 0);
  const int n_graphs = static_cast<int>(c_.integer(lo, std::max(k_.max_graphs, lo)));
  std::vector<ir::Function> graphs;
  // Some graphs are named by a `.plan` keyword that is a `.gir` name (codegen must rename
  // them), sometimes with a second graph named as codegen's first choice of new name.
  static const std::vector<std::string> kPlanWords = {
      "view",   "alloc",  "set",    "config", "fatal",           "scope_begin", "scope_end", "wait_tensor", "sync_start",
      "submit_graph", "input", "inout", "output", "output_existing", "no_dep", "scalar", "mutate"};
  std::set<std::string> taken;
  for (int g = 0; g < n_graphs; ++g) {
    GraphSig sig;
    sig.name = fmt::format("g{}", g);
    if (k_.keyword_names && c_.chance(12)) {
      const std::string& prev = graphs_.empty() ? sig.name : graphs_.back().name;
      if (!graphs_.empty() && !runtime::is_plan_name(prev) && c_.boolean())
        sig.name = prev + "_g";
      else
        sig.name = c_.pick(kPlanWords);
      if (taken.count(sig.name)) sig.name = fmt::format("g{}", g);
      else features_.add(Feature::kPlanKeywordGraph);
    }
    taken.insert(sig.name);
    graphs.push_back(graph_fn(sig));
    graphs_.push_back(std::move(sig));
  }
  // Now and then a graph no statement calls (legal: LegalizeGraphBoundary and codegen handle
  // each graph on its own, the interpreter never runs it); it has no call sites.
  if (n_graphs >= 1 && c_.chance(4)) {
    GraphSig unused;
    unused.name = "unused_g";
    graphs.push_back(graph_fn(unused));
  }
  if (n_graphs >= 2) features_.add(Feature::kTwoPlusGraphs);
  for (const GraphSig& g : graphs_) {
    (void)g;
    sites_left_.push_back(static_cast<int>(c_.integer(1, std::max(1, k_.max_sites))));
    sites_done_.push_back(0);
  }
  ir::Function entry = entry_fn();
  for (int done : sites_done_)
    if (done >= 2) features_.add(Feature::kMultiSiteGraph);
  GeneratedProgram out;
  out.program.functions = std::move(kernel_decls_);
  for (auto& g : graphs) out.program.functions.push_back(std::move(g));
  out.program.functions.push_back(std::move(entry));
  out.features = features_;
  return out;
}

int Builder::new_buffer(const Dims& dims) {
  bufs_.push_back(dims);
  return new_access_record();
}

// The builtins' parameter lists (COMPILER.md §2), with `variant` 0: returns the written
// param; 1: `-> ()`; 2: an extra InOut param (never touched by the builtin, but returnable)
// returned before the written one, out of param order.
const KernelInfo& Builder::kernel(const std::string& builtin, const std::vector<Dims>& td, int variant) {
  std::string key = "k_" + builtin;
  for (const Dims& d : td) key += "_" + dims_text(d);
  if (variant == 1) key += "_n";
  if (variant == 2) key += "_x";
  auto it = kernels_.find(key);
  if (it != kernels_.end()) return it->second;

  std::vector<ir::Param> ps;
  int written = -1;
  auto in = [&](const char* n, const Dims& d) { ps.push_back(param(n, ir::Dir::In, tensor_type(d))); };
  auto out = [&](const char* n, ir::Dir dir, const Dims& d) {
    written = static_cast<int>(ps.size());
    ps.push_back(param(n, dir, tensor_type(d)));
  };
  auto scalar = [&] { ps.push_back(param("s", ir::Dir::In, ir::Type::i64())); };
  if (builtin == "fill") {
    out("o", ir::Dir::Out, td[0]);
    scalar();
  } else if (builtin == "copy") {
    in("x", td[0]);
    out("o", ir::Dir::Out, td[0]);
  } else if (builtin == "add") {
    in("a", td[0]);
    in("b", td[0]);
    out("o", ir::Dir::Out, td[0]);
  } else if (builtin == "acc") {
    in("x", td[0]);
    out("a", ir::Dir::InOut, td[0]);
  } else if (builtin == "scale") {
    in("x", td[0]);
    out("o", ir::Dir::Out, td[0]);
    scalar();
  } else if (builtin == "matmul") {
    in("a", td[0]);
    in("b", td[1]);
    out("o", ir::Dir::Out, td[2]);
  } else {  // rowsum
    in("x", td[0]);
    out("o", ir::Dir::Out, td[1]);
  }
  KernelInfo info;
  info.name = key;
  info.written = written;
  std::vector<std::string> returns;
  if (variant == 0) {
    returns = {ps[static_cast<size_t>(written)].name};
    info.returns = {static_cast<size_t>(written)};
  } else if (variant == 2) {
    const size_t extra = ps.size();
    ps.push_back(param("e", ir::Dir::InOut, ps[static_cast<size_t>(written)].type));
    returns = {"e", ps[static_cast<size_t>(written)].name};
    info.returns = {extra, static_cast<size_t>(written)};
  }
  info.n_params = ps.size();
  kernel_decls_.push_back(ir::build::kernel(key, std::move(ps), std::move(returns), builtin));
  return kernels_.emplace(key, std::move(info)).first->second;
}

Dims Builder::window_dims_within(const Dims& base) {
  const gen::Dims w = gen::window_dims_within(c_, gen::Dims(base.begin(), base.end()));
  return Dims(w.begin(), w.end());
}

std::vector<const Scalar*> Builder::pool(const Scope& s, ScalarClass cls) const {
  std::vector<const Scalar*> out;
  for (const Scalar& v : s.scalars)
    if (v.cls == cls || cls == ScalarClass::Any) out.push_back(&v);
  return out;
}

// A scalar expression over `pool` and literals. Division and remainder only by nonzero
// literals, so it never fails (derivable in a conditional statement too).
ir::Expr Builder::scalar_expr(const std::vector<const Scalar*>& pl, int depth, unsigned* sources) {
  const size_t form = c_.one_of(depth >= 2 ? 2 : 4);
  if (form == 0 || pl.empty()) return lit(c_.integer(-3, 9));
  if (form == 1) {
    const Scalar* v = c_.pick(pl);
    if (sources) *sources |= v->sources;
    if (v->def && c_.chance(30)) return *v->def;  // the definition spelled in place
    return var(v->name);
  }
  static const ir::BinOp ops[] = {ir::BinOp::Add, ir::BinOp::Sub, ir::BinOp::Mul, ir::BinOp::Div, ir::BinOp::Mod};
  const ir::BinOp op = ops[c_.one_of(5)];
  ir::Expr lhs = scalar_expr(pl, depth + 1, sources);
  ir::Expr rhs =
      (op == ir::BinOp::Div || op == ir::BinOp::Mod) ? lit(c_.integer(1, 5)) : scalar_expr(pl, depth + 1, sources);
  return bin(op, std::move(lhs), std::move(rhs));
}

// A bare tensor alias (COMPILER.md §1: "a bare name aliases"): the new name is base's window
// under another name, same root, provenance and lineage (§3), so it is used wherever base may be.
void Builder::tensor_alias(Stmts& out, Scope& s, const Tensor& base) {
  Tensor a = base;
  const size_t depth = c_.chance(30) ? 2 : 1;
  std::string from = base.name;
  for (size_t k = 0; k < depth; ++k) {
    a.name = fresh("a");
    out.push_back(let(a.name, var(from)));
    from = a.name;
  }
  s.tensors.push_back(a);
  features_.add(Feature::kTensorAlias);
}

// An offset in [0, span) for any value of the pool's scalars (floor mod by a literal).
ir::Expr Builder::offset_expr(const std::vector<const Scalar*>& pl, int64_t span, unsigned* sources) {
  if (span <= 1) return lit(0);
  if (pl.empty() || c_.chance(35)) return lit(c_.integer(0, span - 1));
  return mod(scalar_expr(pl, 1, sources), lit(span));
}

// long: a view's draws in order (offset class, placement against an earlier access, each offset), then its
// features; a generator, kept whole so its choice order stays byte-identical
Tensor Builder::make_view(Stmts& out, Scope& s, const Tensor& base, const Dims& w, bool derivable) {
  const size_t rank = w.size();
  Dims span(rank);
  for (size_t d = 0; d < rank; ++d) span[d] = base.dims[d] - w[d] + 1;

  // Which class of offsets this view may take (COMPILER.md §5.3 Step B): a view of a whole
  // rooted name takes derivable offsets (it is hoisted; in a conditional statement only
  // literal ones), any view takes replay-invariant ones; the entry takes anything.
  ScalarClass cls = ScalarClass::Any;
  if (in_graph_) {
    const bool derivable_ok = base.whole && !base.local && !s.conditional;
    const bool invariant_ok = !pool(s, ScalarClass::Invariant).empty();
    if (derivable_ok && (derivable || !invariant_ok || c_.boolean()))
      cls = ScalarClass::Derivable;
    else
      cls = ScalarClass::Invariant;
  }
  std::vector<const Scalar*> pl = pool(s, cls);

  // Static placement against an earlier access of the same buffer (exact, partial, single
  // element), when the base's own offsets are known.
  std::optional<Dims> want;
  const std::vector<Access>& acc = accesses_[static_cast<size_t>(base.buf)];
  if (k_.overlaps && base.off && !acc.empty() && !(derivable && cls == ScalarClass::Derivable) && c_.chance(60)) {
    const Access& a = acc[acc.size() - 1 - c_.one_of(std::min<size_t>(acc.size(), 4))];
    if (a.off.size() == rank) {
      Dims o(rank);
      const size_t rel = c_.one_of(3);  // 0 exact, 1 partial, 2 single element
      for (size_t d = 0; d < rank; ++d) {
        if (rel == 0)
          o[d] = a.off[d];
        else if (rel == 1)
          o[d] = c_.integer(a.off[d] - w[d] + 1, a.off[d] + a.dims[d] - 1);
        else
          o[d] = c_.boolean() ? a.off[d] - w[d] + 1 : a.off[d] + a.dims[d] - 1;
      }
      bool fits = true;
      for (size_t d = 0; d < rank; ++d) {
        const int64_t local = o[d] - (*base.off)[d];
        if (local < 0 || local >= span[d]) fits = false;
        o[d] = local;
      }
      if (fits) want = o;
    }
  }

  std::vector<ir::Expr> offs;
  Dims local(rank, 0);
  bool all_literal = true;
  unsigned sources = 0;
  bool derived = false;  // `derivable`: one offset is a derivable scalar's, never a folded literal
  for (size_t d = 0; d < rank; ++d) {
    if (want) {
      offs.push_back(literal((*want)[d], &s));
      local[d] = (*want)[d];
      continue;
    }
    ir::Expr e = lit(0);
    if (derivable && !derived && cls == ScalarClass::Derivable && !pl.empty() && span[d] > 1) {
      const Scalar* v = c_.pick(pl);
      sources |= v->sources;
      e = mod(var(v->name), lit(span[d]));
    } else {
      e = offset_expr(pl, span[d], &sources);
    }
    derived |= e.kind != ir::Expr::Kind::Int;
    if (e.kind == ir::Expr::Kind::Int)
      local[d] = e.value;
    else
      all_literal = false;
    offs.push_back(std::move(e));
  }

  Tensor v;
  v.name = fresh("v");
  v.dims = w;
  v.buf = base.buf;
  if (base.off && all_literal) {
    Dims o(rank);
    for (size_t d = 0; d < rank; ++d) o[d] = (*base.off)[d] + local[d];
    v.off = o;
  }
  v.writable = base.writable;
  v.local = base.local;
  // Hoisted (whole) when every offset is derivable: literals, or the derivable class.
  v.whole = !in_graph_ || (base.whole && (all_literal || cls == ScalarClass::Derivable));
  out.push_back(slice(v.name, base.name, std::move(offs), w));
  if (in_graph_)
    features_.add(cls == ScalarClass::Derivable || all_literal ? Feature::kDerivableView : Feature::kInvariantView);
  if (rank == 2) features_.add(Feature::kView2D);
  if (rank == 3) features_.add(Feature::kView3D);
  if (rank == 2 && w[1] == 1 && base.dims[1] > 1) features_.add(Feature::kColumnWindow);
  if (base.off) {
    bool nonzero = false;
    for (int64_t x : *base.off) nonzero |= x != 0;
    if (nonzero) features_.add(Feature::kViewOfOffsetView);
  }
  s.tensors.push_back(v);
  return v;
}

Tensor Builder::fresh_buffer(Stmts& out, Scope& s, const Dims& w) {
  Tensor t;
  t.name = fresh("t");
  t.dims = w;
  t.buf = new_buffer(w);
  t.off = Dims(w.size(), 0);
  t.writable = true;
  t.whole = !in_graph_;
  t.local = in_graph_;
  std::vector<ir::Expr> shape;
  for (int64_t d : w) {
    // In the entry, now and then a dim through a scalar bound to it (`n = 4; create [n]`):
    // a static shape all the same (WellFormed 9), which Simplify substitutes and codegen
    // evaluates. Not in graphs, whose creates LegalizeGraphBoundary wants literal (207).
    if (!in_graph_ && c_.chance(10)) {
      const std::string n = fresh("n");
      out.push_back(let(n, literal(d, &s)));
      s.scalars.push_back({n, ScalarClass::Any, 0, nullptr});
      shape.push_back(var(n));
      features_.add(Feature::kShapeThroughScalar);
      continue;
    }
    shape.push_back(literal(d, &s));
  }
  if (!in_graph_ && k_.entry_reads && c_.chance(30)) {
    ir::Expr value = c_.boolean() ? literal(c_.integer(-5, 9), &s) : scalar_expr(pool(s, ScalarClass::Any), 1, nullptr);
    out.push_back(full(t.name, std::move(shape), std::move(value)));
    features_.add(Feature::kFull);
  } else {
    out.push_back(create(t.name, std::move(shape)));
    if (in_graph_) features_.add(s.loop_depth == 0 ? Feature::kDepth0Create : Feature::kLoopCreate);
  }
  s.tensors.push_back(t);
  return t;
}

Tensor Builder::obtain_input(Stmts& out, Scope& s, const Dims& w) {
  std::vector<const Tensor*> same, larger;
  for (const Tensor& t : s.tensors) {
    if (t.dims == w) same.push_back(&t);
    if (t.dims.size() == w.size() && t.dims != w) {
      bool fits = true;
      for (size_t d = 0; d < w.size(); ++d) fits &= t.dims[d] >= w[d];
      if (fits) larger.push_back(&t);
    }
  }
  const size_t way = c_.one_of(3);
  if (!same.empty() && (way == 0 || (larger.empty() && way == 1))) return *c_.pick(same);
  if (k_.views && !larger.empty() && way <= 1) return make_view(out, s, *c_.pick(larger), w);
  if (!same.empty() && way == 2) return *same.back();  // the latest: a read after a write
  if (k_.views && !larger.empty()) return make_view(out, s, *c_.pick(larger), w);
  return fresh_buffer(out, s, w);
}

std::optional<Tensor> Builder::obtain_output(Stmts& out, Scope& s, const Dims& w) {
  std::vector<const Tensor*> same, larger;
  for (const Tensor& t : s.tensors) {
    if (!t.writable || t.dims.size() != w.size()) continue;
    if (t.dims == w) same.push_back(&t);
    bool fits = true;
    for (size_t d = 0; d < w.size(); ++d) fits &= t.dims[d] >= w[d];
    if (fits && t.dims != w) larger.push_back(&t);
  }
  if (!same.empty() && (larger.empty() || !k_.views || c_.boolean())) return *c_.pick(same);
  if (k_.views && !larger.empty()) return make_view(out, s, *c_.pick(larger), w);
  return std::nullopt;
}

std::optional<Tensor> Builder::pick_writable(const Scope& s) {
  std::vector<const Tensor*> w;
  for (const Tensor& t : s.tensors)
    if (t.writable) w.push_back(&t);
  if (w.empty()) return std::nullopt;
  return *c_.pick(w);
}

ir::Expr Builder::literal(int64_t k, const Scope* s) {
  if (!k_.spelled_literals || !c_.chance(12)) return lit(k);
  features_.add(Feature::kSpelledLiteral);
  switch (c_.one_of(s != nullptr && !s->tensors.empty() ? 4 : 3)) {
    case 3: {  // dim(t, d) + (k - t's d-th dim): a literal over a tensor's shape
      const Tensor& t = c_.pick(s->tensors);
      const size_t d = c_.one_of(t.dims.size());
      return ir::build::add(ir::build::dim(t.name, static_cast<int64_t>(d)), lit(k - t.dims[d]));
    }
    case 0: {  // a + (k - a)
      const int64_t a = c_.integer(-3, 9);
      return ir::build::add(lit(a), lit(k - a));
    }
    case 1: {  // (k + m) - m
      const int64_t m = c_.integer(1, 4);
      return ir::build::sub(lit(k + m), lit(m));
    }
    default: {  // q * m + r with 0 <= r < m
      const int64_t m = c_.integer(2, 3);
      const int64_t r = ((k % m) + m) % m, q = (k - r) / m;
      return ir::build::add(ir::build::mul(lit(q), lit(m)), lit(r));
    }
  }
}

// A launch's scalar argument. Graph: a literal, a scalar param or hoisted name, or a
// replay-invariant expression (never an inline derivable expression: 213). Entry: anything.
ir::Expr Builder::launch_scalar(Scope& s) {
  if (!in_graph_) return c_.chance(30) ? lit(c_.integer(-3, 7)) : scalar_expr(pool(s, ScalarClass::Any), 1, nullptr);
  const size_t form = c_.one_of(3);
  const auto der = pool(s, ScalarClass::Derivable), inv = pool(s, ScalarClass::Invariant);
  if (form == 1 && !der.empty()) return var(c_.pick(der)->name);
  if (form == 2 && !inv.empty()) return scalar_expr(inv, 1, nullptr);
  return literal(c_.integer(-3, 7), &s);
}

void Builder::flow_locals(Stmts& out, Scope& s, int first_local) {
  if (!k_.flow_locals) return;
  std::vector<Tensor> locals;
  for (const Tensor& t : s.tensors) {
    if (t.buf < first_local || !t.off || t.dims != bufs_[static_cast<size_t>(t.buf)]) continue;
    const auto& acc = accesses_[static_cast<size_t>(t.buf)];
    const bool written = std::any_of(acc.begin(), acc.end(), [](const Access& a) { return a.wrote; });
    const bool seen = std::any_of(locals.begin(), locals.end(), [&](const Tensor& l) { return l.buf == t.buf; });
    if (written && !seen) locals.push_back(t);
  }
  for (const Tensor& local : locals) {
    if (!c_.chance(80)) continue;
    std::vector<const Tensor*> sinks;
    for (const Tensor& t : s.tensors) {
      if (!t.writable || t.buf >= first_local || t.dims.size() != local.dims.size()) continue;
      bool fits = true;
      for (size_t d = 0; d < t.dims.size(); ++d) fits &= t.dims[d] >= local.dims[d];
      if (fits) sinks.push_back(&t);
    }
    if (sinks.empty()) continue;
    const Tensor base = *c_.pick(sinks);
    const Tensor sink = base.dims == local.dims ? base : make_view(out, s, base, local.dims);
    const KernelInfo& k = kernel("acc", {local.dims}, 0);
    record_access(local, false);
    record_access(sink, true);
    out.push_back(call(k.name, {var(local.name), var(sink.name)}));
  }
}

void Builder::record_access(const Tensor& t, bool wrote) {
  if (t.off) remember_access(t.buf, *t.off, t.dims, wrote);
}

// A non-commuting write onto elements an earlier launch touched: the order of the two is
// observable in the result, so a missing or misplaced dependency edge changes it.
void Builder::note_write_overlaps(const Tensor& dst) {
  if (!dst.off) return;
  for (const Access& a : accesses_[static_cast<size_t>(dst.buf)])
    tag_write_overlap(features_, a.off, a.dims, *dst.off, dst.dims);
}

// long: one launch's draws in order (window, builtin, operands, variant, scalar, submit, binding); a generator,
// kept whole so its choice order stays byte-identical
bool Builder::launch(Stmts& out, Scope& s) {
  std::optional<Tensor> base = pick_writable(s);
  if (!base) return false;
  // The destination window first; the kernel's shapes follow from it.
  Dims w = k_.views ? window_dims_within(base->dims) : base->dims;
  std::vector<std::string> ops = {"fill", "copy", "add", "acc", "scale"};
  // The 2-D builtins get a fair share of 2-D destinations; rowsum writes a column (without views,
  // only into a column: a graph's one launch must not fail).
  if (k_.two_d && w.size() == 2) ops.insert(ops.end(), {"matmul", "matmul"});
  if (k_.two_d && w.size() == 2 && (k_.views || w[1] == 1)) ops.insert(ops.end(), {"rowsum", "rowsum"});
  const std::string op = c_.pick(ops);
  if (op == "rowsum") w[1] = 1;
  std::optional<Tensor> dst = w == base->dims ? base : obtain_output(out, s, w);
  if (!dst) return false;

  std::vector<Tensor> args;
  std::vector<Dims> td;
  if (op == "fill") {
    td = {w};
  } else if (op == "matmul") {
    const int64_t kk = kExtents[c_.one_of(3)];  // 1, 2 or 4
    td = {{w[0], kk}, {kk, w[1]}, w};
    args.push_back(obtain_input(out, s, td[0]));
    args.push_back(obtain_input(out, s, td[1]));
    features_.add(WriteTag::kMatmul);
  } else if (op == "rowsum") {
    const int64_t n = kExtents[1 + c_.one_of(2)];  // 2 or 4
    td = {{w[0], n}, w};
    args.push_back(obtain_input(out, s, td[0]));
    features_.add(WriteTag::kRowsum);
  } else {
    td = {w};
    args.push_back(obtain_input(out, s, w));
    if (op == "add") args.push_back(obtain_input(out, s, w));
  }
  // obtain_input may have emitted views that invalidated nothing: dst is a value copy.
  args.push_back(*dst);
  const int variant = k_.kernel_variants ? static_cast<int>(c_.one_of(3)) : 0;
  const KernelInfo& k = kernel(op, td, variant);
  if (variant == 1) features_.add(Feature::kKernelNoReturns);
  if (variant == 2) {
    features_.add(Feature::kKernelExtraParam);
    features_.add(Feature::kKernelReturnsOutOfOrder);
  }
  std::vector<ir::Expr> call_args;
  for (const Tensor& a : args) call_args.push_back(var(a.name));
  if (op == "fill" || op == "scale") call_args.push_back(launch_scalar(s));
  if (variant == 2) {
    // The extra InOut param: any writable tensor of the written param's dims.
    std::optional<Tensor> extra = obtain_output(out, s, w);
    const Tensor e = extra ? *extra : *dst;
    call_args.push_back(var(e.name));
    args.push_back(e);
  }
  // The write is judged against what earlier launches touched, before this launch's own
  // reads are recorded (operands of one launch are read before it writes).
  if (op != "acc") note_write_overlaps(*dst);
  for (const Tensor& a : args)
    if (&a != &args.back() || variant != 2) record_access(a, a.name == dst->name && a.buf == dst->buf);

  // Tensor args in param order for result binding (scalars carry no window).
  std::vector<Tensor> by_param;
  size_t ti = 0;
  for (size_t p = 0; p < k.n_params; ++p) {
    const bool is_scalar = (op == "fill" && p == 1) || (op == "scale" && p == 2);
    by_param.push_back(is_scalar ? Tensor{} : args[ti++]);
  }
  const bool submit = k_.submits && c_.chance(25);
  const std::string name = fresh(submit ? "r" : "w");
  if (k.returns.empty() && !submit) {
    out.push_back(call(k.name, std::move(call_args)));
    return true;
  }
  if (c_.chance(submit ? 15 : 30)) {  // results left unbound (a bare submit too: its tuple unused)
    out.push_back(call(k.name, std::move(call_args), submit));
    return true;
  }
  out.push_back(call_to(name, k.name, std::move(call_args), submit));
  bind_results(out, s, name, submit, k.returns, by_param, false);
  return true;
}

void Builder::hazard(Stmts& out, Scope& s) {
  std::optional<Tensor> base = pick_writable(s);
  if (!base) return;
  const Dims w = window_dims_within(base->dims);
  const Tensor first = w == base->dims ? *base : make_view(out, s, *base, w);
  const bool war = c_.boolean();
  if (war) {  // first read into another buffer (observed through the flows)
    std::optional<Tensor> dst = obtain_output(out, s, w);
    const Tensor d = dst && dst->buf != first.buf ? *dst : fresh_buffer(out, s, w);
    record_access(first, false);
    note_write_overlaps(d);
    record_access(d, true);
    out.push_back(call(kernel("scale", {w}, 0).name, {var(first.name), var(d.name), lit(c_.integer(2, 5))}));
  } else {
    note_write_overlaps(first);
    record_access(first, true);
    out.push_back(call(kernel("fill", {w}, 0).name, {var(first.name), lit(c_.integer(1, 9))}));
  }
  // The second: a window of the same buffer placed against the first (make_view places it
  // exactly, partly or on a single element of the latest access), written by fill.
  const Tensor second = w == base->dims ? *base : make_view(out, s, *base, w);
  note_write_overlaps(second);
  record_access(second, true);
  out.push_back(call(kernel("fill", {w}, 0).name, {var(second.name), lit(c_.integer(-9, -1))}));
}

// Names for a call's results: one result binds the name itself (a writeback of that
// argument's buffer); several, or a submit, make a tuple whose elements may be taken.
void Builder::bind_results(Stmts& out, Scope& s, const std::string& name, bool submit,
                           const std::vector<size_t>& returns, const std::vector<Tensor>& by_param, bool graph_call) {
  auto bound = [&](const Tensor& a, std::string n) {
    Tensor r = a;
    r.name = std::move(n);
    r.rebound = true;
    s.tensors.push_back(r);
    // COMPILER.md §5.3 "B rebound, tuple": in a graph, a view of a whole rebound name at
    // offsets derived from a scalar param is hoisted through the result's provenance (its
    // argument's root); a view at literal offsets would not tell a lost provenance apart.
    // Written through when it can be, so a view left frozen at its recorded offset shows.
    // The window is a proper part of the name (a whole-name view has only offset 0).
    if (in_graph_ && k_.views && r.whole && !r.local && !s.conditional && !pool(s, ScalarClass::Derivable).empty() &&
        c_.chance(50)) {
      Dims w = window_dims_within(r.dims);
      for (size_t d = 0; d < w.size() && w == r.dims; ++d)
        if (r.dims[d] > 1) w[d] = r.dims[d] / 2;
      const Tensor v = make_view(out, s, r, w, true);
      if (v.writable && c_.boolean()) {
        note_write_overlaps(v);
        record_access(v, true);
        out.push_back(call(kernel("fill", {v.dims}, 0).name, {var(v.name), lit(c_.integer(1, 9))}));
        features_.add(WriteTag::kNonCommutingWrite);
      }
    }
  };
  if (submit || returns.size() >= 2) s.tuples.emplace_back(name, returns.size());
  if (!submit && returns.size() == 1) {
    bound(by_param[returns[0]], name);
    features_.add(graph_call ? Feature::kGraphResultUsed : Feature::kInPlaceRebind);
    return;
  }
  for (size_t j = 0; j < returns.size(); ++j) {
    if (!c_.chance(60)) continue;
    const std::string e = fresh("y");
    out.push_back(tuple_get(e, name, static_cast<int64_t>(j)));
    bound(by_param[returns[j]], e);
    features_.add(graph_call ? Feature::kGraphResultUsed
                             : (submit ? Feature::kSubmitResultUsed : Feature::kInPlaceRebind));
  }
  if (submit && c_.chance(20)) out.push_back(tuple_get(fresh("task"), name, static_cast<int64_t>(returns.size())));
}

}  // namespace detail
}  // namespace stackcheck::gen
