// Graph definitions and their submissions (plan_builder.h). A definition's boundary params
// have fixed dims and directions; its body records nodes over the params and internal
// buffers (alloc, runtime-allocated outputs), with scalars from slots (`scalar $k`, patched
// per replay) or frozen expressions over them. Submissions pass windows of alive tensors,
// sometimes two of one buffer (an alias class, hence a new key), and one scalar per slot.
#include <fmt/format.h>

#include <algorithm>

#include "properties/gen/plan_builder.h"

namespace stackcheck::gen::plan_detail {

using namespace runtime;

PlanGraph PlanBuilder::graph_def(const std::string& name) {
  static const std::vector<Dims> shapes = {{8}, {16}, {4}, {4, 4}, {2, 4}, {2, 2, 2}};
  GraphSig sig;
  sig.name = name;
  PlanGraph g;
  g.name = name;
  Body b;
  b.in_graph = true;
  const size_t n = 1 + c_.length(2);
  for (size_t i = 0; i < n; ++i) {
    Dims d = c_.pick(shapes);
    if (d.size() >= 2 && !k_.two_d) d = {8};
    const bool inout = i == 0 || c_.boolean();  // at least one param the body may write
    Ten t;
    t.name = fmt::format("p{}", i);
    t.dims = d;
    t.buf = new_access_record();
    t.off = Dims(d.size(), 0);
    t.writable = inout;
    t.entry = true;  // the body's boundary: where its results must reach
    // Now and then a 1-D In param bound to the entry input x at every submission: the body
    // may read it no_dep.
    t.entry_in = !inout && d.size() == 1 && k_.no_dep && c_.chance(30);
    b.tensors.push_back(t);
    g.params.push_back(t.name);
    sig.params.push_back(d);
    sig.inout.push_back(inout);
    sig.entry_in.push_back(t.entry_in);
  }
  b.slots = sig.slots = static_cast<int>(c_.length(2));
  const size_t stmts = c_.length(4);
  for (size_t i = 0; i < stmts; ++i) statement(g.body, b);
  // At least one node: a submit (always possible: param 0 is writable), then the internals
  // flow into the params.
  const size_t before = g.body.size();
  for (int tries = 0; tries < 4 && g.body.size() == before; ++tries) submit(g.body, b);
  if (g.body.size() == before) {
    SubmitStmt s;
    s.builtin = Builtin::Fill;
    s.args = {PlanArg::tensor(PlanTag::OutputExisting, PlanWindow{"p0", {}, {}}), PlanArg::scalar_value(lit(1))};
    g.body.push_back(stmt(std::move(s)));
  }
  for (Ten& t : b.tensors) t.level = t.local ? 1 : 0;
  std::vector<Ten> internals;
  for (const Ten& t : b.tensors)
    if (t.local && !t.is_view) internals.push_back(t);
  for (const Ten& l : internals) {
    if (!c_.chance(60)) continue;
    std::vector<const Ten*> sinks;
    for (const Ten* t : alive(b, true, l.dims.size())) {
      if (!t->entry) continue;
      bool ok = true;
      for (size_t d = 0; d < l.dims.size(); ++d) ok &= t->dims[d] >= l.dims[d];
      if (ok) sinks.push_back(t);
    }
    if (sinks.empty()) continue;
    Window dst = window_of(b, *c_.pick(sinks), l.dims);
    note_access(dst, false);
    SubmitStmt s;
    s.builtin = Builtin::Acc;
    s.args = {PlanArg::tensor(PlanTag::Input, PlanWindow{l.name, {}, {}}), PlanArg::tensor(PlanTag::Inout, dst.window)};
    g.body.push_back(stmt(std::move(s)));
  }
  features_.add(PlanFeature::kGraph);
  graphs_.push_back(std::move(sig));
  return g;
}

void PlanBuilder::submit_graph(PlanBlock& out, Body& b, size_t gi) {
  GraphSig& sig = graphs_[gi];
  SubmitGraphStmt s;
  s.graph = sig.name;
  std::vector<int> bufs;
  std::string key = sig.name;
  bool aliased = false;
  for (size_t i = 0; i < sig.params.size(); ++i) {
    const Dims& d = sig.params[i];
    const bool inout = sig.inout[i];
    std::vector<const Ten*> fits, same_buf;
    for (const Ten* t : alive(b, inout, d.size())) {
      if (sig.entry_in[i] && !t->entry_in) continue;  // a never-written entry input only
      bool ok = true;
      for (size_t k = 0; k < d.size(); ++k) ok &= t->dims[k] >= d[k];
      if (!ok) continue;
      fits.push_back(t);
      if (std::find(bufs.begin(), bufs.end(), t->buf) != bufs.end()) same_buf.push_back(t);
    }
    const Ten* t = nullptr;
    if (!same_buf.empty() && c_.chance(35))
      t = c_.pick(same_buf);  // one buffer, two boundary names
    else if (!fits.empty())
      t = c_.pick(fits);
    if (t == nullptr) {  // nothing alive fits: a fresh buffer for this argument
      AllocStmt a;
      t = &local_buffer(b, "a", d);
      a.buffers.push_back({t->name, {d.begin(), d.end()}});
      out.push_back(stmt(std::move(a)));
    }
    Window w = window_of(b, *t, d);
    w.tag = inout ? PlanTag::Inout : PlanTag::Input;
    if (std::find(bufs.begin(), bufs.end(), w.buf) != bufs.end()) aliased = true;
    bufs.push_back(w.buf);
    note_access(w, inout);
    // The generator's view of the key: shapes are fixed per graph, so the base tensor's dims
    // (strides) and the alias partition decide.
    std::string base_dims;
    for (int64_t x : t->dims) base_dims += fmt::format("{}x", x);
    key += fmt::format("|{}:{}:{}", base_dims, w.window.ranges.empty() ? "whole" : "win",
                       static_cast<int>(std::find(bufs.begin(), bufs.end(), w.buf) - bufs.begin()));
    s.args.push_back(PlanArg::tensor(w.tag, w.window));
  }
  for (int k = 0; k < sig.slots; ++k) s.args.push_back(PlanArg::scalar_value(scalar_expr(b, 1)));
  if (aliased) features_.add(PlanFeature::kBoundaryAlias);
  if (std::find(sig.keys.begin(), sig.keys.end(), key) != sig.keys.end())
    features_.add(PlanFeature::kKeyReused);
  else if (!sig.keys.empty())
    features_.add(PlanFeature::kNewKey);
  sig.keys.push_back(key);
  ++sig.submissions;
  out.push_back(stmt(std::move(s)));
}

}  // namespace stackcheck::gen::plan_detail
