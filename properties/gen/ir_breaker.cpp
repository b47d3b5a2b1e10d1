// break_graph_rule and break_at_call_site (ir_breaker.h). The WellFormed family,
// break_well_formed_rule and break_expression_at, is in breakers/well_formed_*.cpp.
#include "properties/gen/ir_breaker.h"

#include <fmt/format.h>

#include "properties/gen/breakers/ir_build.h"
#include "stack/ir/printer.h"
#include "stack/ir/builtins.h"

#include <algorithm>
#include <functional>
#include <vector>

namespace stackcheck::gen {

using namespace ir;

using breakers::assign;
using breakers::binary;
using breakers::call_sites;
using breakers::int_expr;
using breakers::invoke_of;
using breakers::is_kernel;
using breakers::kMaxTensorElements;
using breakers::var;

std::optional<BrokenProgram> break_graph_rule(ChoiceSource& c, const Program& legal) {
  BrokenProgram b;
  b.program = legal;
  std::vector<size_t> graphs;
  for (size_t i = 0; i < b.program.functions.size(); ++i)
    if (b.program.functions[i].kind == Function::Kind::Graph) graphs.push_back(i);
  static const std::vector<int> kCodes = {206, 201, 202, 203, 204, 205, 207, 208, 210,
                                          214, 215, 216, 217, 209, 211, 212, 213};
  b.code = c.pick(kCodes);
  if (graphs.empty()) return std::nullopt;
  Function& g = b.program.functions[graphs[c.one_of(graphs.size())]];
  b.graph = g.name;
  std::vector<size_t> scalars, tensors;
  for (size_t i = 0; i < g.params.size(); ++i) (g.params[i].type.is_tensor() ? tensors : scalars).push_back(i);
  // A launch of the body (a kernel call at its top level), copied under a fresh name.
  std::optional<Stmt> launch;
  for (const Stmt& s : g.body)
    if (const Invoke* i = invoke_of(s); i != nullptr && is_kernel(b.program, i->callee)) {
      launch = s;
      break;
    }
  auto fresh_launch = [&](int k) {
    Stmt s = *launch;
    if (s.kind == Stmt::Kind::Assign) s.name = fmt::format("zz_v{}", k);
    return s;
  };
  auto front = [&](Stmt s) { g.body.insert(g.body.begin(), std::move(s)); };
  const std::vector<Invoke*> sites = call_sites(b.program, g.name);
  switch (b.code) {
    case 206: {
      FullRhs f;
      f.shape.push_back(int_expr(c.integer(1, 8)));
      f.value = int_expr(c.integer(0, 3));
      front(assign("zz_f", f));
      b.what = "a full at the top of the body";
      break;
    }
    case 203: {  // every tensor param made a create of its shape in the body: an empty boundary
      if (tensors.empty()) return std::nullopt;
      for (const Stmt& s : g.body)
        if (s.kind == Stmt::Kind::Return && !s.returns.empty()) return std::nullopt;  // 209 would follow
      for (size_t k = tensors.size(); k-- > 0;) {
        const size_t i = tensors[k];
        CreateRhs cr;
        for (int64_t d : g.params[i].type.dims) cr.shape.push_back(int_expr(d));
        front(assign(g.params[i].name, cr));
        g.params.erase(g.params.begin() + static_cast<long>(i));
        for (Invoke* site : sites)
          if (i < site->args.size()) site->args.erase(site->args.begin() + static_cast<long>(i));
      }
      b.what = fmt::format("its {} tensor params made creates in the body", tensors.size());
      // Step A hoists those creates to the call sites again: the pass repairs it, so only the
      // verifier, run directly, owns 203 here (Step D's 203 is a graph with no create either).
      b.pass_owns = false;
      break;
    }
    case 201: {
      if (scalars.empty()) return std::nullopt;
      Param& p = g.params[scalars[c.one_of(scalars.size())]];
      p.dir = c.boolean() ? Dir::Out : Dir::InOut;
      b.what = fmt::format("scalar param {} made {}", p.name, p.dir == Dir::Out ? "Out" : "InOut");
      break;
    }
    case 202: {
      if (tensors.empty()) return std::nullopt;
      Param& p = g.params[tensors[c.one_of(tensors.size())]];
      p.dir = Dir::Out;
      b.what = fmt::format("tensor param {} made Out", p.name);
      break;
    }
    case 204:
    case 205: {
      const bool tensor = b.code == 204;
      if (tensor && tensors.empty()) return std::nullopt;
      const size_t have = tensor ? tensors.size() : scalars.size();
      const size_t limit = tensor ? 128 : 64;
      if (have > limit) return std::nullopt;  // already past it (an input broken before)
      const size_t add = limit + 1 - have + static_cast<size_t>(c.integer(0, 2));
      const size_t model = tensor ? tensors.front() : 0;
      // `count` params of the kind added to graph `fn` of `prog`, each call site passing the
      // model param's argument again (tensors) or 0 (scalars).
      const auto add_params = [&](Program& prog, Function& fn, size_t count) {
        const Type type = tensor ? fn.params[model].type : Type::i64();
        const std::vector<Invoke*> at_sites = call_sites(prog, fn.name);
        for (size_t k = 0; k < count; ++k) {
          Param p;
          p.name = fmt::format("zz_p{}", k);
          p.dir = Dir::In;
          p.type = type;
          fn.params.push_back(p);
          for (Invoke* site : at_sites) site->args.push_back(tensor ? site->args.at(model) : int_expr(0));
        }
      };
      // The same edit with exactly the limit's params, which every stage must take.
      if (have < limit) {
        Program at = legal;
        for (Function& fn : at.functions)
          if (fn.name == g.name) add_params(at, fn, limit - have);
        b.at_limit = std::move(at);
        b.limit = fmt::format("{} {} params", limit, tensor ? "tensor" : "scalar");
      }
      add_params(b.program, g, add);
      b.what = fmt::format("{} {} params added ({} in all)", add, tensor ? "tensor" : "scalar", have + add);
      break;
    }
    case 207: {
      // A name, never a literal (Int and dim() are literals, ir::is_literal): a scalar param
      // or a local bound to a literal, as in `s = 8; t = create [s]`.
      CreateRhs cr;
      std::string n;
      if (!scalars.empty() && c.boolean()) {
        n = g.params[scalars[c.one_of(scalars.size())]].name;
      } else {
        n = "zz_n";
      }
      Expr e = var(n);
      if (c.boolean()) {
        Expr sum;
        sum.kind = Expr::Kind::Binary;
        sum.op = BinOp::Add;
        sum.args = {std::move(e), int_expr(1)};
        e = std::move(sum);
      }
      cr.shape.push_back(std::move(e));
      front(assign("zz_t", cr));
      if (n == "zz_n") front(assign("zz_n", ExprRhs{int_expr(c.integer(1, 8))}));
      b.what = "a create whose shape is not a literal";
      break;
    }
    case 208: {
      Stmt s;
      s.kind = Stmt::Kind::Invoke;
      s.invoke.callee = g.name;
      for (const Param& p : g.params) s.invoke.args.push_back(var(p.name));
      front(std::move(s));
      b.what = "the graph calls itself";
      break;
    }
    case 210: {
      switch (c.one_of(4)) {
        case 0: {
          if (sites.empty() || sites.front()->args.empty()) return std::nullopt;
          Invoke* site = sites[c.one_of(sites.size())];
          site->args.push_back(site->args.back());
          b.what = "a call site with one argument too many";
          break;
        }
        case 1: {  // an argument of the other kind: a literal for a tensor param, a tensor for a scalar one
          if (sites.empty() || g.params.empty() || tensors.empty()) return std::nullopt;
          Invoke* site = sites[c.one_of(sites.size())];
          if (site->args.size() != g.params.size()) return std::nullopt;
          const size_t i = c.one_of(g.params.size());
          if (g.params[i].type.is_tensor()) {
            site->args[i] = int_expr(c.integer(0, 9));
            b.what = fmt::format("a literal passed for tensor param {}", g.params[i].name);
          } else {
            site->args[i] = site->args[tensors[c.one_of(tensors.size())]];
            b.what = fmt::format("a tensor passed for scalar param {}", g.params[i].name);
          }
          break;
        }
        case 2: {  // a tensor of another shape: the argument of another tensor param whose type differs
          if (sites.empty()) return std::nullopt;
          Invoke* site = sites[c.one_of(sites.size())];
          if (site->args.size() != g.params.size()) return std::nullopt;
          std::vector<std::pair<size_t, size_t>> pairs;
          for (size_t i : tensors)
            for (size_t j : tensors)
              if (g.params[i].type.dims != g.params[j].type.dims) pairs.emplace_back(i, j);
          if (pairs.empty()) return std::nullopt;
          const auto [i, j] = pairs[c.one_of(pairs.size())];
          site->args[i] = site->args[j];
          b.what = fmt::format("the argument of {} passed for {} (another shape)", g.params[j].name, g.params[i].name);
          break;
        }
        default: {  // a kernel launch in the body with one argument too many
          if (!launch) return std::nullopt;
          Stmt s = fresh_launch(0);
          Invoke& v = *invoke_of(s);
          if (v.args.empty()) return std::nullopt;
          v.args.push_back(v.args.back());
          front(std::move(s));
          b.what = "a kernel launch with one argument too many";
          b.pass_owns = false;
        }
      }
      break;
    }
    case 214:
    case 215: {
      if (!launch) return std::nullopt;
      Stmt s;
      s.body.push_back(fresh_launch(0));
      if (b.code == 214) {
        if (scalars.empty()) return std::nullopt;
        s.kind = Stmt::Kind::For;
        s.name = "zz_j";
        s.lo = int_expr(0);
        s.hi = var(g.params[scalars[c.one_of(scalars.size())]].name);
        s.step = int_expr(1);
        b.what = "a launch in a loop whose trips are a scalar param";
      } else {
        s.kind = Stmt::Kind::If;
        s.lo = int_expr(0);
        s.cmp = CmpOp::Lt;
        s.hi = int_expr(c.integer(0, 2));
        b.what = "a launch in an if";
      }
      front(std::move(s));
      break;
    }
    case 209: {  // a return made a whole view of the param it returns: a slice ends every lineage
      if (g.body.empty() || g.body.back().kind != Stmt::Kind::Return) return std::nullopt;
      Stmt& ret = g.body.back();
      std::vector<size_t> at;
      for (size_t j = 0; j < ret.returns.size(); ++j)
        for (size_t i : tensors)
          if (g.params[i].name == ret.returns[j]) at.push_back(j);
      if (at.empty()) return std::nullopt;
      const size_t j = at[c.one_of(at.size())];
      const Param* p = nullptr;
      for (size_t i : tensors)
        if (g.params[i].name == ret.returns[j]) p = &g.params[i];
      SliceRhs sl;
      sl.source = p->name;
      for (int64_t d : p->type.dims) {
        sl.offsets.push_back(int_expr(0));
        sl.sizes.push_back(d);
      }
      b.what = fmt::format("return {} of {} made a whole view of it", j, p->name);
      ret.returns[j] = "zz_w";
      g.body.insert(g.body.end() - 1, assign("zz_w", sl));
      // Step B makes a whole view of a param a root again: the pass repairs it, so only the
      // verifier, run directly, owns 209 here.
      b.pass_owns = false;
      break;
    }
    case 211:
    case 212: {  // a view, or an assemble into an InOut param, at offsets a replay would freeze
      if (scalars.empty() || tensors.empty()) return std::nullopt;
      const std::string n = g.params[scalars[c.one_of(scalars.size())]].name;
      std::vector<size_t> inout;
      for (size_t i : tensors)
        if (g.params[i].dir == Dir::InOut) inout.push_back(i);
      if (b.code == 212 && inout.empty()) return std::nullopt;
      const Param& p = g.params[b.code == 211 ? tensors[c.one_of(tensors.size())] : inout[c.one_of(inout.size())]];
      // 211: inside a loop of no node whose trips are a scalar param, at the loop variable;
      // 212: at the top level, at the scalar param itself (derivable, never invariant).
      const Expr moving = b.code == 211 ? var("zz_j") : var(n);
      std::vector<Expr> offsets;
      ir::Dims ones;
      for (size_t d = 0; d < p.type.dims.size(); ++d) {
        offsets.push_back(d == 0 ? binary(BinOp::Mod, moving, int_expr(p.type.dims[0])) : int_expr(0));
        ones.push_back(1);
      }
      if (b.code == 211) {
        SliceRhs sl{p.name, std::move(offsets), ones};
        Stmt loop;
        loop.kind = Stmt::Kind::For;
        loop.name = "zz_j";
        loop.lo = int_expr(0);
        loop.hi = var(n);
        loop.step = int_expr(1);
        loop.body.push_back(assign("zz_v", sl));
        front(std::move(loop));
        b.what = fmt::format("a view of {} at the variable of a node-free loop of {} trips", p.name, n);
        b.marker = "zz_v = slice";
        b.message_has = {"zz_v"};
      } else {
        std::vector<Expr> zeros(p.type.dims.size(), int_expr(0));
        const std::string t = "zz_t", a = "zz_a";
        std::vector<Expr> shape;
        for (size_t d = 0; d < ones.size(); ++d) shape.push_back(int_expr(1));
        front(assign(a, AssembleRhs{p.name, t, std::move(offsets)}));
        front(assign(t, CreateRhs{std::move(shape)}));
        b.what = fmt::format("an assemble into {} at scalar param {}", p.name, n);
        b.marker = "zz_a = assemble";
      }
      break;
    }
    case 213: {  // a launch's scalar argument made a sum of a scalar param: neither a name nor invariant
      if (scalars.empty()) return std::nullopt;
      const std::string n = g.params[scalars[c.one_of(scalars.size())]].name;
      std::vector<std::pair<Invoke*, size_t>> at;
      for (Stmt& st : g.body)
        if (Invoke* i = invoke_of(st); i != nullptr && is_kernel(b.program, i->callee))
          for (const Function& k : b.program.functions)
            if (k.name == i->callee)
              for (size_t a = 0; a < i->args.size() && a < k.params.size(); ++a)
                if (!k.params[a].type.is_tensor()) at.emplace_back(i, a);
      if (at.empty()) return std::nullopt;
      const auto [i, a] = at[c.one_of(at.size())];
      i->args[a] = binary(BinOp::Add, var(n), int_expr(7919));
      b.what = fmt::format("scalar argument {} of a launch of {} made {} + 7919", a, i->callee, n);
      b.marker = n + " + 7919";
      break;
    }
    case 216: {
      if (!launch) return std::nullopt;
      const int copies = 1025 + static_cast<int>(c.integer(0, 3));
      // One insert of the lot (copies-1 first, as repeated front() would leave them): a front()
      // per copy moved the whole body each time, a million statement moves per case.
      std::vector<Stmt> pre;
      pre.reserve(static_cast<size_t>(copies));
      for (int k = copies; k-- > 0;) pre.push_back(fresh_launch(k));
      g.body.insert(g.body.begin(), std::make_move_iterator(pre.begin()), std::make_move_iterator(pre.end()));
      b.what = fmt::format("a launch repeated {} more times", copies);
      break;
    }
    case 217: {
      if (tensors.empty()) return std::nullopt;
      const Param& p = g.params[tensors[c.one_of(tensors.size())]];
      Expr r;
      r.kind = Expr::Kind::Read;
      r.name = p.name;
      for (size_t d = 0; d < std::max<size_t>(1, p.type.dims.size()); ++d) r.args.push_back(int_expr(0));
      front(assign("zz_r", ExprRhs{r}));
      b.what = fmt::format("a read of {} in the body", p.name);
      break;
    }
    default: return std::nullopt;
  }
  return b;
}

std::optional<BrokenProgram> break_at_call_site(ChoiceSource& c, const Program& wf) {
  BrokenProgram b;
  std::vector<size_t> graphs;
  for (size_t i = 0; i < wf.functions.size(); ++i)
    if (wf.functions[i].kind == Function::Kind::Graph &&
        !call_sites(const_cast<Program&>(wf), wf.functions[i].name).empty())
      graphs.push_back(i);
  if (graphs.empty()) return std::nullopt;
  const size_t gi = graphs[c.one_of(graphs.size())];
  std::vector<size_t> tensors;
  for (size_t i = 0; i < wf.functions[gi].params.size(); ++i)
    if (wf.functions[gi].params[i].type.is_tensor()) tensors.push_back(i);
  const bool view = !tensors.empty() && c.boolean();
  const size_t tp = view ? tensors[c.one_of(tensors.size())] : 0;
  const int64_t extent = view ? wf.functions[gi].params[tp].type.dims.at(0) : 0;
  const size_t n_sites = call_sites(const_cast<Program&>(wf), wf.functions[gi].name).size();
  const size_t bad = c.one_of(n_sites);
  const bool every = n_sites >= 2 && c.chance(30);  // every site breaks it: one rejection each
  const int64_t k = c.integer(1, 9);
  // The program with `zz_s` passed `at` at the chosen site and a legal value elsewhere.
  const auto build = [&](int64_t at) {
    Program p = wf;
    Function& g = p.functions[gi];
    Param q;
    q.name = "zz_s";
    q.dir = Dir::In;
    q.type = Type::i64();
    g.params.push_back(q);
    if (view) {
      const Param& t = g.params[tp];
      SliceRhs sl;
      sl.source = t.name;
      for (size_t d = 0; d < t.type.dims.size(); ++d) {
        sl.offsets.push_back(d == 0 ? var("zz_s") : int_expr(0));
        sl.sizes.push_back(1);
      }
      g.body.insert(g.body.begin(), assign("zz_v", std::move(sl)));
    } else {
      Expr e;
      e.kind = Expr::Kind::Binary;
      e.op = BinOp::Div;
      e.args = {int_expr(k), var("zz_s")};
      g.body.insert(g.body.begin(), assign("zz_d", ExprRhs{std::move(e)}));
    }
    const std::vector<Invoke*> sites = call_sites(p, g.name);
    for (size_t i = 0; i < sites.size(); ++i)
      sites[i]->args.push_back(int_expr(i == bad || every ? at : view ? 0 : k));
    return p;
  };
  b.graph = wf.functions[gi].name;
  b.broken_sites = every ? n_sites : 1;
  if (view) {
    b.code = 11;
    b.program = build(extent);
    b.at_limit = build(extent - 1);
    b.limit = fmt::format("a view of {} at offset {}, its last element", wf.functions[gi].params[tp].name, extent - 1);
    b.what = fmt::format("a view of {} at offset {} hoisted to call site {} of {}", wf.functions[gi].params[tp].name,
                         extent, bad, b.graph);
    b.message_has = {fmt::format("hoisting 'zz_v' (line"), fmt::format("of graph '{}' to this call gives a view out of "
                                                                       "bounds: offset {} of extent 1 in {}",
                                                                       b.graph, extent, extent)};
  } else {
    b.code = 13;
    b.program = build(0);
    b.what = fmt::format("{} / zz_s hoisted to call site {} of {}, which passes 0", k, bad, b.graph);
    b.message_has = {fmt::format("hoisting 'zz_d' (line"),
                     fmt::format("of graph '{}' to this call gives a static zero divisor: {} / 0", b.graph, k)};
  }
  if (every) {
    b.what += fmt::format(", and so does every other of its {} sites", n_sites);
    if (view) b.limit += ", at every site";
  }
  return b;
}

}  // namespace stackcheck::gen
