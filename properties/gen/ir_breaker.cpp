// break_graph_rule (ir_breaker.h).
#include "properties/gen/ir_breaker.h"

#include <fmt/format.h>

#include "stack/ir/printer.h"
#include "stack/ir/builtins.h"

#include <algorithm>
#include <functional>
#include <vector>

namespace stackcheck::gen {

using namespace ir;

namespace {

// COMPILER.md §1: a tensor type holds at most 65,536 elements.
constexpr int64_t kMaxTensorElements = 65536;

Expr int_expr(int64_t v) {
  Expr e;
  e.kind = Expr::Kind::Int;
  e.value = v;
  return e;
}
Expr var(std::string n) {
  Expr e;
  e.kind = Expr::Kind::Var;
  e.name = std::move(n);
  return e;
}
Expr binary(BinOp op, Expr a, Expr b) {
  Expr e;
  e.kind = Expr::Kind::Binary;
  e.op = op;
  e.args = {std::move(a), std::move(b)};
  return e;
}
Stmt assign(std::string name, Rhs rhs) {
  Stmt s;
  s.kind = Stmt::Kind::Assign;
  s.name = std::move(name);
  s.rhs = std::move(rhs);
  return s;
}

const Invoke* invoke_of(const Stmt& s) {
  if (s.kind == Stmt::Kind::Invoke) return &s.invoke;
  if (s.kind == Stmt::Kind::Assign)
    if (const auto* r = std::get_if<InvokeRhs>(&s.rhs)) return &r->invoke;
  return nullptr;
}
Invoke* invoke_of(Stmt& s) { return const_cast<Invoke*>(invoke_of(static_cast<const Stmt&>(s))); }

void walk(std::vector<Stmt>& body, const std::function<void(Stmt&)>& fn) {
  for (Stmt& s : body) {
    fn(s);
    walk(s.body, fn);
    walk(s.else_body, fn);
  }
}

// Every invoke of `callee` in the program (the graph's call sites).
std::vector<Invoke*> call_sites(Program& p, const std::string& callee) {
  std::vector<Invoke*> out;
  for (Function& f : p.functions)
    walk(f.body, [&](Stmt& s) {
      if (Invoke* i = invoke_of(s); i != nullptr && i->callee == callee) out.push_back(i);
    });
  return out;
}

bool is_kernel(const Program& p, const std::string& name) {
  for (const Function& f : p.functions)
    if (f.name == name) return f.kind == Function::Kind::Kernel;
  return false;
}

}  // namespace

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

namespace {
struct ForcedPlace {
  int code = 0;
  std::optional<size_t> place;  // none: the rule given, its place and variant drawn
};
std::optional<BrokenProgram> break_well_formed(ChoiceSource& c, const Program& wf, const ForcedPlace* forced) {
  BrokenProgram b;
  b.program = wf;
  Function* entry = nullptr;
  std::vector<Function*> kernels, graphs;
  for (Function& f : b.program.functions) {
    if (f.kind == Function::Kind::Orchestration) entry = &f;
    if (f.kind == Function::Kind::Kernel) kernels.push_back(&f);
    if (f.kind == Function::Kind::Graph) graphs.push_back(&f);
  }
  if (entry == nullptr) return std::nullopt;
  b.graph = entry->name;
  static const std::vector<int> kCodes = {3, 2, 4, 5, 6, 8, 9, 10, 11, 12, 13, 14, 1, 7};
  // The edit leaves codegen something it can lower (a call's empty result bound to a name that
  // nothing reads): not one of its preconditions.
  bool lowers_anyway = false;
  b.code = forced != nullptr ? forced->code : c.pick(kCodes);
  const bool placed = forced != nullptr && forced->place.has_value();  // break_expression_at
  std::vector<Stmt>& body = entry->body;
  auto front = [&](Stmt s) { body.insert(body.begin(), std::move(s)); };
  std::vector<size_t> tensor_params;
  for (size_t i = 0; i < entry->params.size(); ++i)
    if (entry->params[i].type.is_tensor()) tensor_params.push_back(i);
  // The kernel calls at the top of the entry's body.
  std::vector<size_t> calls;
  for (size_t i = 0; i < body.size(); ++i)
    if (const Invoke* v = invoke_of(body[i]); v != nullptr && is_kernel(b.program, v->callee)) calls.push_back(i);
  auto binary = [](BinOp op, Expr l, Expr r) {
    Expr e;
    e.kind = Expr::Kind::Binary;
    e.op = op;
    e.args = {std::move(l), std::move(r)};
    return e;
  };
  // A broken scalar expression placed where the language takes one: an assignment, either
  // side of an if's condition, a loop bound, or an assignment inside a loop or an if body.
  // The rule's owner must report it on that statement's line (the marker).
  auto scalar_site = [&](Expr bad) {
    auto block = [&](Stmt::Kind kind, std::vector<Stmt> inner) {
      Stmt s;
      s.kind = kind;
      s.lo = int_expr(0);
      s.hi = int_expr(c.integer(1, 3));
      if (kind == Stmt::Kind::For) {
        s.name = "zz_i";
        s.step = int_expr(1);
      } else {
        s.cmp = CmpOp::Lt;
      }
      s.body = std::move(inner);
      return s;
    };
    // Where the expression goes. 0-5: a scalar statement's places; 6-11: the operand places of
    // tensor statements and calls, where each owner meets the broken expression inside another
    // rule's context (a loop's lower bound or step, a create's or a full's extent, a full's
    // value, a view's offset, an assemble's offset, a call's scalar argument). The marker of
    // those is the broken expression's own text, which nothing else in the program prints.
    const std::string bad_text = ir::print_expr(bad);
    std::vector<size_t> scalar_args;  // (top-level statement << 8) | argument: calls passing a scalar param
    for (size_t i = 0; i < body.size(); ++i)
      if (const Invoke* v = invoke_of(body[i])) {
        const Function* callee = nullptr;
        for (const Function& f : b.program.functions)
          if (f.name == v->callee) callee = &f;
        if (callee == nullptr) continue;
        for (size_t a = 0; a < v->args.size() && a < callee->params.size() && a < 256; ++a)
          if (!callee->params[a].type.is_tensor()) scalar_args.push_back(i << 8 | a);
      }
    size_t site = forced != nullptr && forced->place ? *forced->place : c.one_of(kExprPlaces);
    if ((site == 8 && tensor_params.empty()) || (site == 11 && scalar_args.empty())) site = 0;
    if (site >= 6 || site == 3) b.marker = bad_text;
    switch (site) {
      case 6: {  // zz_t = create [bad]  /  zz_t = full [bad], 1  /  zz_t = full [2], bad
        const size_t way = c.one_of(3);
        if (way == 0) {
          front(assign("zz_t", CreateRhs{{std::move(bad)}}));
          b.what += ", in a create's extent";
        } else {
          FullRhs f;
          f.shape.push_back(way == 1 ? std::move(bad) : int_expr(2));
          f.value = way == 1 ? int_expr(1) : std::move(bad);
          front(assign("zz_t", std::move(f)));
          b.what += way == 1 ? ", in a full's extent" : ", in a full's value";
        }
        return;
      }
      case 7:
      case 9: {  // for zz_i in range(bad, 2, 1) / range(0, 2, bad)
        Stmt s = block(Stmt::Kind::For, {assign("zz_u", ExprRhs{int_expr(1)})});
        (site == 7 ? s.lo : s.step) = std::move(bad);
        front(std::move(s));
        b.what += site == 7 ? ", in a loop's lower bound" : ", in a loop's step";
        return;
      }
      case 8: {  // zz_v = slice(p, [bad, 0, ..], [1, ..])
        const Param& t = entry->params[tensor_params[c.one_of(tensor_params.size())]];
        SliceRhs v;
        v.source = t.name;
        for (size_t k = 0; k < t.type.dims.size(); ++k) {
          v.offsets.push_back(k == 0 ? std::move(bad) : int_expr(0));
          v.sizes.push_back(1);
        }
        front(assign("zz_v", std::move(v)));
        b.what += ", in a view's offset";
        return;
      }
      case 10: {  // zz_a = create [2]; zz_b = create [1]; zz_c = assemble(zz_a, zz_b, [bad])
        AssembleRhs as;
        as.target = "zz_a";
        as.source = "zz_b";
        as.offsets.push_back(std::move(bad));
        front(assign("zz_c", std::move(as)));
        front(assign("zz_b", CreateRhs{{int_expr(1)}}));
        front(assign("zz_a", CreateRhs{{int_expr(2)}}));
        b.what += ", in an assemble's offset";
        return;
      }
      case 11: {  // a call's scalar argument
        const size_t at = scalar_args[c.one_of(scalar_args.size())];
        invoke_of(body[at >> 8])->args[at & 0xff] = std::move(bad);
        b.what += ", in a call's scalar argument";
        return;
      }
      default:
        break;
    }
    switch (site) {
      case 0:
        front(assign("zz_s", ExprRhs{std::move(bad)}));
        b.marker = "zz_s =";
        b.what += ", in an assignment";
        break;
      case 1:
      case 2: {  // if bad < zz_c / if zz_c < bad
        const bool left = c.boolean();
        Stmt s = block(Stmt::Kind::If, {assign("zz_u", ExprRhs{int_expr(1)})});
        (left ? s.lo : s.hi) = std::move(bad);
        (left ? s.hi : s.lo) = var("zz_c");
        front(std::move(s));
        front(assign("zz_c", ExprRhs{int_expr(c.integer(0, 3))}));
        b.marker = left ? "< zz_c {" : "if zz_c <";
        b.what += left ? ", in an if condition's left side" : ", in an if condition's right side";
        break;
      }
      case 3: {  // for zz_i in range(0, bad, 1)
        Stmt s = block(Stmt::Kind::For, {assign("zz_u", ExprRhs{int_expr(1)})});
        s.hi = std::move(bad);
        front(std::move(s));
        b.what += ", in a loop's upper bound";
        break;
      }
      default: {  // zz_s = bad inside a loop or an if
        const bool loop = c.boolean();
        front(block(loop ? Stmt::Kind::For : Stmt::Kind::If, {assign("zz_s", ExprRhs{std::move(bad)})}));
        b.marker = "zz_s =";
        b.what += loop ? ", in a loop body" : ", in an if body";
      }
    }
  };
  switch (b.code) {
    case 2: {
      std::vector<size_t> assigns;
      for (size_t i = 0; i < body.size(); ++i)
        if (body[i].kind == Stmt::Kind::Assign) assigns.push_back(i);
      if (assigns.empty()) {
        front(assign("zz_s", ExprRhs{int_expr(1)}));
        front(assign("zz_s", ExprRhs{int_expr(2)}));
      } else {
        const size_t i = assigns[c.one_of(assigns.size())];
        Stmt again = body[i];
        // a create bound again is a new buffer to codegen (one alloc per run), not a broken premise
        b.lowering_precondition = !std::holds_alternative<CreateRhs>(again.rhs);
        body.insert(body.begin() + static_cast<std::ptrdiff_t>(i) + 1, std::move(again));
      }
      b.what = "an assignment repeated";
      if (assigns.empty()) b.lowering_precondition = true;
      break;
    }
    case 3: {
      const size_t way = placed ? 0 : c.one_of(4);  // 0: a scalar, 1: a tensor, 2-3: late
      if (way == 1) {
        // an undefined name where a tensor goes: a view's source, an assemble's target or
        // source, a kernel call's tensor argument (rewritten in place)
        std::vector<std::pair<size_t, size_t>> tensor_args;  // (top-level statement, argument)
        for (size_t i = 0; i < body.size(); ++i)
          if (const Invoke* v = invoke_of(body[i]); v != nullptr && is_kernel(b.program, v->callee))
            for (const Function& k : b.program.functions)
              if (k.name == v->callee)
                for (size_t a = 0; a < v->args.size() && a < k.params.size(); ++a)
                  if (v->args[a].kind == Expr::Kind::Var && k.params[a].type.is_tensor()) tensor_args.emplace_back(i, a);
        b.message_has = {"'zz_undefined'"};
        b.marker = "zz_undefined";
        switch (tensor_args.empty() ? c.one_of(3) : c.one_of(4)) {
          case 0: {
            SliceRhs v;
            v.source = "zz_undefined";
            v.offsets.push_back(int_expr(0));
            v.sizes.push_back(1);
            front(assign("zz_v", std::move(v)));
            b.what = "an undefined name as a view's source";
            break;
          }
          case 1:
          case 2: {
            const bool target = c.boolean();
            AssembleRhs as;
            as.target = target ? "zz_undefined" : "zz_a";
            as.source = target ? "zz_b" : "zz_undefined";
            as.offsets.push_back(int_expr(0));
            front(assign("zz_c", std::move(as)));
            front(assign("zz_b", CreateRhs{{int_expr(1)}}));
            front(assign("zz_a", CreateRhs{{int_expr(2)}}));
            b.what = target ? "an undefined name as an assemble's target" : "an undefined name as an assemble's source";
            break;
          }
          default: {
            const auto [i, a] = tensor_args[c.one_of(tensor_args.size())];
            invoke_of(body[i])->args[a] = var("zz_undefined");
            b.what = "an undefined name as a kernel call's tensor argument";
          }
        }
      } else if (way == 0) {
        b.what = "an undefined name";
        scalar_site(binary(BinOp::Add, var("zz_undefined"), int_expr(1)));
        b.message_has = {"'zz_undefined'"};
      } else if (way == 3 && c.boolean()) {
        // a scalar defined in a loop's or an if's body, used after that block has ended
        const bool loop = c.boolean();
        Stmt inner;
        inner.kind = loop ? Stmt::Kind::For : Stmt::Kind::If;
        inner.lo = int_expr(0);
        inner.hi = int_expr(1);
        if (loop) {
          inner.name = "zz_i";
          inner.step = int_expr(1);
        } else {
          inner.cmp = CmpOp::Lt;
        }
        inner.body.push_back(assign("zz_in", ExprRhs{int_expr(c.integer(0, 9))}));
        body.insert(body.begin(), assign("zz_s", ExprRhs{binary(BinOp::Mul, var("zz_in"), int_expr(2))}));
        body.insert(body.begin(), std::move(inner));
        b.marker = "zz_s =";
        b.what = loop ? "a scalar of a loop's body used after the loop" : "a scalar of an if's body used after the if";
        b.message_has = {"'zz_in' is used out of scope (its block has ended)"};
        // The block runs once (a 1-trip loop, `if 0 < 1`), so the name has its value when read:
        // scoping is WellFormed's rule, not a runtime error (COMPILER.md §7).
        b.interp_runs = true;
      } else {
        // a scalar used one statement before its definition
        body.insert(body.begin(), assign("zz_late", ExprRhs{int_expr(c.integer(0, 9))}));
        body.insert(body.begin(), assign("zz_s", ExprRhs{binary(BinOp::Mul, var("zz_late"), int_expr(2))}));
        b.what = "a scalar used before its definition";
        b.message_has = {"'zz_late' is used before its definition"};
      }
      break;
    }
    case 4: {  // a callee that does not exist, or the entry itself (COMPILER.md §4: entry called)
      Stmt s;
      s.kind = Stmt::Kind::Invoke;
      const bool self = c.boolean();
      s.invoke.callee = self ? entry->name : "zz_nofn";
      b.marker = fmt::format("call {}(", s.invoke.callee);
      front(std::move(s));
      b.what = self ? "a call of the entry" : "a call of an unknown function";
      b.message_has = {self ? fmt::format("the entry '{}' cannot be called", entry->name)
                            : std::string("unknown function 'zz_nofn'")};
      break;
    }
    case 5:
    case 6: {
      if (calls.empty()) return std::nullopt;
      Stmt& s = body[calls[c.one_of(calls.size())]];
      Invoke& v = *invoke_of(s);
      if (b.code == 5) {
        if (!v.args.empty() && c.boolean()) {
          v.args.pop_back();
          b.what = "a kernel call with one argument fewer";
        } else {
          v.args.push_back(int_expr(0));
          b.what = "a kernel call with one argument more";
        }
      } else if (c.chance(30)) {
        // A scalar name where a tensor goes: the source of a view, or its dim() or read().
        front(assign("zz_n", ExprRhs{int_expr(c.integer(1, 4))}));
        const size_t way = c.one_of(3);
        if (way == 0) {
          SliceRhs sl;
          sl.source = "zz_n";
          sl.offsets.push_back(int_expr(0));
          sl.sizes.push_back(1);
          body.insert(body.begin() + 1, assign("zz_v", std::move(sl)));
          b.marker = "zz_v =";
          b.message_has = {"scalar 'zz_n' used as a tensor (slice source)"};
        } else {
          Expr e;
          e.kind = way == 1 ? Expr::Kind::Dim : Expr::Kind::Read;
          e.name = "zz_n";
          e.value = 0;
          if (way == 2) e.args.push_back(int_expr(0));
          body.insert(body.begin() + 1, assign("zz_v", ExprRhs{std::move(e)}));
          b.marker = "zz_v =";
          b.message_has = {fmt::format("scalar 'zz_n' used as a tensor ({})", way == 1 ? "dim" : "read")};
        }
        b.what = "a scalar name where a tensor goes";
      } else {
        std::vector<size_t> tensor_args;
        for (size_t i = 0; i < v.args.size(); ++i)
          if (v.args[i].kind == Expr::Kind::Var) tensor_args.push_back(i);
        // a Var argument may be a scalar name; the kernel's param says which are tensors
        const Function* k = nullptr;
        for (const Function& f : b.program.functions)
          if (f.name == v.callee) k = &f;
        std::erase_if(tensor_args, [&](size_t i) { return i >= k->params.size() || !k->params[i].type.is_tensor(); });
        if (tensor_args.empty()) return std::nullopt;
        v.args[tensor_args[c.one_of(tensor_args.size())]] = int_expr(c.integer(0, 9));
        b.what = "a tensor argument given as a literal";
      }
      break;
    }
    case 8: {
      if (tensor_params.empty()) return std::nullopt;
      entry->params[tensor_params[c.one_of(tensor_params.size())]].dir = Dir::Out;
      b.what = "an entry param made Out";
      break;
    }
    case 9: {
      // A bad type (COMPILER.md §1: i32, rank 1..3, dims >= 1, at most 65,536 elements) on a
      // kernel param, an entry tensor param, a graph's tensor param or a graph's result, one way
      // each: a dim below 1, a dim past 65,536, more than 65,536 elements over dims each within
      // it, rank 4, another dtype (a result also: i64, no tensor at all); or a create of an
      // extent below 1. The message names the problem as WellFormed words it.
      std::vector<std::pair<Function*, size_t>> graph_tensor_params, graph_results;
      for (Function* g : graphs) {
        for (size_t i = 0; i < g->params.size(); ++i)
          if (g->params[i].type.is_tensor()) graph_tensor_params.emplace_back(g, i);
        for (size_t j = 0; j < g->results.size(); ++j)
          if (g->results[j].is_tensor()) graph_results.emplace_back(g, j);
      }
      // 0: a create, 1: a kernel param, 2: an entry param, 3: a graph's param, 4: a graph's result
      const size_t where = c.one_of(5);
      if (where == 0 || (where == 1 && kernels.empty()) || (where == 2 && tensor_params.empty()) ||
          (where == 3 && graph_tensor_params.empty()) || (where == 4 && graph_results.empty())) {
        if (c.chance(30)) {  // an extent that is no static value: a loop variable's
          Stmt loop;
          loop.kind = Stmt::Kind::For;
          loop.name = "zz_i";
          loop.lo = int_expr(0);
          loop.hi = int_expr(c.integer(1, 3));
          loop.step = int_expr(1);
          Expr e;
          e.kind = Expr::Kind::Binary;
          e.op = BinOp::Add;
          e.args = {var("zz_i"), int_expr(1)};
          loop.body.push_back(assign("zz_t", CreateRhs{{std::move(e)}}));
          front(std::move(loop));
          b.what = "a create of an extent that is not static";
          b.marker = "zz_t = create";
          b.message_has = {"create shape: dim 0 is not static"};
          break;
        }
        if (c.chance(30)) {  // a create one element past 65,536 (one extent past it, or their product);
                             // its twin at exactly 65,536 is legal
          const bool product = c.boolean();
          auto make = [&](ir::Program& prog, int64_t last) {
            CreateRhs cr;
            if (product) cr.shape.push_back(int_expr(256));
            cr.shape.push_back(int_expr(last));
            for (Function& f : prog.functions)
              if (f.kind == Function::Kind::Orchestration) f.body.insert(f.body.begin(), assign("zz_t", cr));
          };
          ir::Program legal = wf;
          make(legal, product ? 256 : kMaxTensorElements);
          make(b.program, product ? 257 : kMaxTensorElements + 1);
          b.at_limit = std::move(legal);
          b.limit = product ? "create [256, 256]: 65,536 elements" : "create [65536]";
          b.what = product ? "a create of 65,792 elements (256 x 257)" : "a create of extent 65,537";
          b.marker = "zz_t = create";
          b.message_has = {product ? "65792 elements (at most 65536)" : "dim 0 is 65537 (at most 65536 elements)"};
          b.interp_invalid = true;
          break;
        }
        CreateRhs cr;
        cr.shape.push_back(int_expr(c.chance(50) ? 0 : -c.integer(1, 4)));
        front(assign("zz_t", cr));
        b.what = "a create of an extent below 1";
        b.interp_invalid = true;
        break;
      }
      Param* q = nullptr;
      Type* result = nullptr;
      size_t result_index = 0;
      if (where == 4) {
        const auto [g, j] = graph_results[c.one_of(graph_results.size())];
        result = &g->results[j];
        result_index = j;
        b.graph = g->name;
        if (c.chance(20)) {  // a result that is no tensor
          *result = Type::i64();
          b.what = "a graph result of type i64";
          b.message_has = {fmt::format("graph '{}': result {} is i64; graph results are tensors", g->name, j)};
          break;
        }
      } else if (where == 3) {
        const auto [g, i] = graph_tensor_params[c.one_of(graph_tensor_params.size())];
        q = &g->params[i];
        b.graph = g->name;
      } else if (where == 1) {
        Function& k = *kernels[c.one_of(kernels.size())];
        std::vector<size_t> tp;
        for (size_t i = 0; i < k.params.size(); ++i)
          if (k.params[i].type.is_tensor()) tp.push_back(i);
        if (tp.empty()) return std::nullopt;
        q = &k.params[tp[c.one_of(tp.size())]];
        b.graph = k.name;
      } else {
        q = &entry->params[tensor_params[c.one_of(tensor_params.size())]];
      }
      Type& t = result != nullptr ? *result : q->type;
      const size_t d = c.one_of(t.dims.size());
      std::string why;
      switch (c.one_of(5)) {
        case 1: {
          t.dims[d] = c.near_edges(kMaxTensorElements + 1, 2 * kMaxTensorElements);
          why = fmt::format("dim {} is {} (at most {} elements)", d, t.dims[d], kMaxTensorElements);
          b.what = "a param type with a dim past 65,536";
          break;
        }
        case 2: {  // every dim within 65,536, their product past it
          if (t.dims.size() < 2) t.dims.push_back(2);
          int64_t others = 1;
          for (size_t i = 1; i < t.dims.size(); ++i) others *= t.dims[i];
          if (others < 2) {
            t.dims[1] = 2;
            others = 1;
            for (size_t i = 1; i < t.dims.size(); ++i) others *= t.dims[i];
          }
          t.dims[0] = kMaxTensorElements / others + 1;
          why = fmt::format("{} elements (at most {})", t.dims[0] * others, kMaxTensorElements);
          b.what = "a param type of more than 65,536 elements";
          break;
        }
        case 3:
          while (t.dims.size() < 4) t.dims.push_back(1);
          why = "rank 4 (must be 1..3)";
          b.what = "a param type of rank 4";
          break;
        case 4:
          t.dtype = c.boolean() ? "i64" : "f32";
          why = fmt::format("element type must be i32, found '{}'", t.dtype);
          b.what = "a param type of another element type";
          b.has_text = false;  // the grammar may not take it: a refusal is no finding
          break;
        default:
          t.dims[d] = c.chance(50) ? 0 : -c.integer(1, 4);
          why = fmt::format("dim {} is {} (must be >= 1)", d, t.dims[d]);
          b.has_text = t.dims[d] == 0;
          b.what = "a param type with a dim below 1";
      }
      if (result != nullptr) {
        b.message_has = {fmt::format("graph '{}': result {} has a bad type: {}", b.graph, result_index, why)};
        b.what = "a graph result" + b.what.substr(std::string("a param").size());
        break;
      }
      b.message_has = {fmt::format("param '{}' of '{}' has a bad type: {}", q->name, b.graph, why)};
      if (where == 3) b.what = "a graph's " + b.what.substr(2);
      // The interpreter draws the entry's inputs from its param types (§7): a shape it cannot
      // allocate is its Invalid error; it never reads a dtype, nor a kernel's param types.
      b.interp_invalid = where == 2 && t.dtype == "i32";
      if (where == 2) b.what = "an entry " + b.what.substr(2);
      break;
    }
    case 10: {  // a kernel that no longer fits its builtin (kernels come first: its 10 is the first finding)
      if (kernels.empty()) return std::nullopt;
      // Half the time a kernel launched at the top of the entry's body, where the reference
      // interpreter surely runs it and must refuse it itself (most kernels of a program are
      // launched only in loops, ifs or graphs, so a kernel drawn among all rarely is).
      std::vector<Function*> at_top;
      for (Function* f : kernels)
        if (std::any_of(calls.begin(), calls.end(), [&](size_t i) { return invoke_of(body[i])->callee == f->name; }))
          at_top.push_back(f);
      const std::vector<Function*>& from = !at_top.empty() && c.boolean() ? at_top : kernels;
      Function& k = *from[c.one_of(from.size())];
      const ir::Builtin* builtin = ir::find_builtin(k.builtin);
      if (builtin == nullptr || builtin->arity() == 0) return std::nullopt;
      b.graph = k.name;
      std::vector<size_t> in_tensors;
      for (size_t i = 0; i < k.params.size(); ++i)
        if (k.params[i].type.is_tensor() && k.params[i].dir == Dir::In) in_tensors.push_back(i);
      auto dims_text = [](const ir::Dims& d) {
        std::string t = "[";
        for (size_t i = 0; i < d.size(); ++i) t += (i ? ", " : "") + std::to_string(d[i]);
        return t + "]";
      };
      const size_t variant = c.one_of(5);
      // The interpreter runs a kernel's builtin on its arguments (COMPILER.md §7): a launch of
      // a kernel with a param fewer than its builtin or a param of the other kind is its Invalid
      // error (not a param of another shape: it runs the builtin on the arguments' own shapes,
      // which still fit). Expected only where a launch of the kernel surely runs: a call at the
      // top of the entry's body (a graph's or a loop's may not).
      const bool launched = std::any_of(calls.begin(), calls.end(), [&](size_t i) {
        return invoke_of(body[i])->callee == k.name;
      });
      b.interp_runs = !(launched && (variant == 0 || variant == 3));
      switch (variant) {
        case 3: {  // a builtin-bound param of the other kind (tensor <-> i64)
          const size_t i = c.one_of(builtin->arity());
          Param& q = k.params[i];
          const ir::BuiltinParam& bp = builtin->params[i];
          q.type = q.type.is_tensor() ? Type::i64() : Type::tensor({4});
          if (!q.type.is_tensor()) {
            q.dir = Dir::In;
            std::erase(k.kernel_returns, q.name);
            if (c.boolean())  // its calls passing a scalar there too: only the builtin is left to refuse it
              for (Invoke* site : call_sites(b.program, k.name))
                if (i < site->args.size()) site->args[i] = int_expr(1);
          }
          b.what = fmt::format("kernel param {} made {}", q.name, q.type.is_tensor() ? "a tensor" : "an i64 scalar");
          b.message_has = {fmt::format("param '{}' of kernel '{}' must be {}", q.name, k.name,
                                       bp.tensor ? "a tensor" : "an i64 scalar"),
                           fmt::format("to bind param '{}' of builtin '{}'", bp.name, builtin->name)};
          break;
        }
        case 4: {  // the last bound tensor one dim off: the builtin's shape rule names both shapes
          std::vector<size_t> bound;
          for (size_t i = 0; i < builtin->arity(); ++i)
            if (builtin->params[i].tensor && k.params[i].type.is_tensor()) bound.push_back(i);
          if (bound.size() < 2) return std::nullopt;
          std::vector<ir::Dims> dims;
          for (size_t i : bound) dims.push_back(k.params[i].type.dims);
          ir::Dims& last = k.params[bound.back()].type.dims;
          last[c.one_of(last.size())] += c.integer(1, 3);
          dims.back() = last;
          b.what = fmt::format("kernel param {} of another shape", k.params[bound.back()].name);
          switch (builtin->shape_rule) {
            case ir::ShapeRule::Equal:
              b.message_has = {fmt::format("found {} and {}", dims_text(dims.front()), dims_text(dims.back()))};
              break;
            case ir::ShapeRule::Matmul:
              if (dims.size() == 3)
                b.message_has = {
                    fmt::format("found {}, {} -> {}", dims_text(dims[0]), dims_text(dims[1]), dims_text(dims[2]))};
              break;
            case ir::ShapeRule::Rowsum:
              b.message_has = {fmt::format("found {} -> {}", dims_text(dims[0]), dims_text(dims[1]))};
              break;
            default: return std::nullopt;
          }
          break;
        }
        case 0:
          k.params.resize(builtin->arity() - 1);
          std::erase_if(k.kernel_returns, [&](const std::string& r) {
            return std::none_of(k.params.begin(), k.params.end(), [&](const Param& q) { return q.name == r; });
          });
          b.what = "a kernel with one param fewer than its builtin";
          b.lowering_precondition = true;
          if (c.boolean()) {  // its calls passing one argument fewer too: only the builtin no longer binds
            for (Invoke* site : call_sites(b.program, k.name))
              if (site->args.size() > k.params.size()) site->args.resize(k.params.size());
            b.what += ", its calls passing as many arguments";
          }
          break;
        case 1: {
          std::vector<size_t> bound;
          for (size_t i = 0; i < builtin->arity(); ++i)
            if (k.params[i].type.is_tensor()) bound.push_back(i);
          if (bound.empty()) return std::nullopt;
          Param& q = k.params[bound[c.one_of(bound.size())]];
          if (q.dir == Dir::In) {
            q.dir = Dir::InOut;
          } else {
            q.dir = Dir::In;
            std::erase(k.kernel_returns, q.name);
          }
          b.what = "a kernel param whose direction differs from its builtin's";
          const size_t i = static_cast<size_t>(&q - k.params.data());
          b.message_has = {fmt::format("param '{}' of kernel '{}' is {}", q.name, k.name, dir_name(q.dir)),
                           fmt::format("param '{}' of builtin '{}' is {}", builtin->params[i].name, builtin->name,
                                       dir_name(builtin->params[i].dir))};
          break;
        }
        default:  // a return that names no Out or InOut param once: an In param, no param, a param twice
          switch (c.one_of(3)) {
            case 0:
              if (in_tensors.empty()) return std::nullopt;
              k.kernel_returns.push_back(k.params[in_tensors[c.one_of(in_tensors.size())]].name);
              b.what = "a kernel returning an In param";
              break;
            case 1:
              k.kernel_returns.push_back("zz_none");
              b.what = "a kernel returning a name that is no param";
              b.message_has = {fmt::format("kernel '{}' returns 'zz_none', which is not one of its params", k.name)};
              // The interpreter looks the returned name up after the builtin ran: its Invalid error
              // where a launch of the kernel surely runs.
              b.interp_runs = !launched;
              break;
            default: {
              if (k.kernel_returns.empty()) return std::nullopt;
              const std::string twice = k.kernel_returns[c.one_of(k.kernel_returns.size())];
              k.kernel_returns.push_back(twice);
              b.what = "a kernel returning a param twice";
              b.message_has = {fmt::format("kernel '{}' returns '{}' twice", k.name, twice)};
            }
          }
      }
      break;
    }
    case 11: {
      if (tensor_params.empty()) return std::nullopt;
      const Param& p = entry->params[tensor_params[c.one_of(tensor_params.size())]];
      if (!placed && c.chance(50)) {  // a view out of its source: a size or a static offset past an axis
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
          }
        }
        front(assign("zz_bad", std::move(v)));
        b.marker = "zz_bad =";
        return b;  // static view bounds are WellFormed's; codegen lowers the window as given (COMPILER.md §6)
      }
      // A view or an assemble whose offsets (and a view's sizes) are one fewer or one more than
      // its tensor's rank: WellFormed's 11 naming the counts, codegen's refusal, the
      // interpreter's OutOfBounds (no window of that rank).
      if (!placed && c.chance(25)) {
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
          front(assign("zz_bad", std::move(v)));
          b.what = fmt::format("a view with {} offsets of a rank-{} tensor", n, rank);
          b.message_has = {fmt::format("slice of '{}' (rank {}) has {} offsets and {} sizes", p.name, rank, n, n)};
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
          front(assign("zz_bad", std::move(as)));
          front(assign("zz_src", std::move(src)));
          front(assign("zz_tgt", std::move(tgt)));
          b.what = fmt::format("an assemble with {} offsets into a rank-{} tensor", n, rank);
          b.message_has = {fmt::format("assemble into 'zz_tgt' (rank {}) has {} offsets", rank, n)};
        }
        b.marker = "zz_bad =";
        b.lowering_precondition = true;  // a window's rank is what codegen lowers it by
        return b;
      }
      // An assemble into an InOut entry tensor at a static offset past its end on one axis (a
      // 1-element source made just before it): WellFormed's 11, the interpreter's OutOfBounds.
      std::vector<size_t> inouts;
      for (size_t i : tensor_params)
        if (entry->params[i].dir == Dir::InOut) inouts.push_back(i);
      if (!placed && !inouts.empty() && c.chance(35)) {
        const Param& t = entry->params[inouts[c.one_of(inouts.size())]];
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
        front(assign("zz_bad", std::move(as)));
        front(assign("zz_src", std::move(src)));
        b.what = "an assemble at a static offset past its target's end";
        b.marker = "zz_bad =";
        b.message_has = {fmt::format("assemble into '{}': offset {} + size 1 on axis {} is outside 0..{}", t.name, off,
                                     axis, t.type.dims[axis])};
        return b;  // static assemble bounds are WellFormed's; codegen lowers the window as given (COMPILER.md §6)
      }
      Expr e;
      if (c.boolean()) {
        e.kind = Expr::Kind::Dim;
        e.name = p.name;
        e.value = static_cast<int64_t>(p.type.dims.size()) + c.integer(0, 3);
        b.what = "dim() past the rank";
      } else if (placed || c.boolean()) {
        e.kind = Expr::Kind::Read;
        e.name = p.name;
        const size_t rank = p.type.dims.size() + 1 + c.one_of(2);
        for (size_t d = 0; d < rank; ++d) e.args.push_back(int_expr(0));
        b.what = "read() with an index of the wrong rank";
      } else {  // read() at a static index one past an axis's end, or at -1
        e.kind = Expr::Kind::Read;
        e.name = p.name;
        const size_t axis = c.one_of(p.type.dims.size());
        const int64_t at = c.boolean() ? p.type.dims[axis] : -1;
        for (size_t d = 0; d < p.type.dims.size(); ++d) e.args.push_back(int_expr(d == axis ? at : 0));
        b.what = "read() at a static index outside its tensor";
        lowers_anyway = true;  // static read bounds are WellFormed's; codegen lowers the read as given
        b.message_has = {fmt::format("read of '{}': index {} is {}, outside 0..{}", p.name, axis, at,
                                     p.type.dims[axis] - 1)};
      }
      scalar_site(std::move(e));
      break;
    }
    case 12: {
      // Tuples misused (COMPILER.md §1: call results are used only as `r.k`; task ids may be
      // bound, never used): `.k` of a name that is no tuple, or, after a kernel launch of the
      // entry launched again as `zz_r = submit ...` (its returns, then its task id), `.k` past
      // the tuple's end, the tuple used as a value, its task id used; or a call of a kernel
      // that returns nothing bound to a name.
      const size_t way = calls.empty() ? 0 : c.one_of(5);
      if (way == 0) {
        if (tensor_params.empty()) return std::nullopt;
        const std::string& t = entry->params[tensor_params.front()].name;
        const int64_t k = c.integer(0, 2);
        front(assign("zz_s", TupleGetRhs{t, k}));
        b.what = "`.k` of a name that is not a tuple";
        b.marker = "zz_s = ";
        b.message_has = {fmt::format("'{}.{}': '{}' is not a tuple", t, k, t)};
        break;
      }
      const size_t at = calls[c.one_of(calls.size())];
      Invoke inv = *invoke_of(body[at]);
      const Function* k = nullptr;
      for (const Function& f : b.program.functions)
        if (f.name == inv.callee) k = &f;
      if (k == nullptr) return std::nullopt;
      const auto n = static_cast<int64_t>(k->kernel_returns.size());
      std::vector<Stmt> after;
      inv.submit = way != 4;
      if (way == 4) {
        if (n != 0) return std::nullopt;
        after.push_back(assign("zz_r", InvokeRhs{inv}));
        b.what = "a call of a kernel that returns nothing bound to a name";
        b.marker = "zz_r = call";
        b.message_has = {fmt::format("call of '{}' returns nothing; its result cannot be bound to 'zz_r'", inv.callee)};
        b.interp_runs = true;
        lowers_anyway = true;
      } else {
        after.push_back(assign("zz_r", InvokeRhs{inv}));
        if (way == 1) {
          const int64_t past = n + 1 + c.integer(0, 1);
          after.push_back(assign("zz_s", TupleGetRhs{"zz_r", past}));
          b.what = "`.k` past the end of a submit's tuple";
          b.marker = "zz_s = zz_r.";
          b.message_has = {fmt::format("'zz_r.{}': tuple 'zz_r' has {} elements", past, n + 1)};
        } else if (way == 2) {
          after.push_back(assign("zz_u", ExprRhs{var("zz_r")}));
          b.what = "a submit's tuple used as a value";
          b.marker = "zz_u = zz_r";
          b.message_has = {"tuple 'zz_r' can only be used as 'zz_r.k'"};
          b.interp_runs = true;
        } else {
          after.push_back(assign("zz_t", TupleGetRhs{"zz_r", n}));
          after.push_back(assign("zz_u", ExprRhs{binary(BinOp::Add, var("zz_t"), int_expr(1))}));
          b.what = "a submit's task id used";
          b.marker = "zz_u = zz_t";
          b.message_has = {"task id 'zz_t' may be bound but never used"};
        }
      }
      body.insert(body.begin() + static_cast<long>(at) + 1, after.begin(), after.end());
      break;
    }
    case 13: {
      if (placed || c.boolean()) {
        b.what = "a literal zero divisor";
        scalar_site(binary(c.boolean() ? BinOp::Div : BinOp::Mod, int_expr(c.integer(-9, 9)), int_expr(0)));
      } else {
        Stmt f;
        f.kind = Stmt::Kind::For;
        f.name = "zz_i";
        f.lo = int_expr(0);
        f.hi = int_expr(c.integer(1, 4));
        f.step = int_expr(0);
        front(std::move(f));
        b.what = "a literal zero loop step";
        b.marker = "for zz_i in";
      }
      break;
    }
    case 14: {
      switch (c.one_of(4)) {
        case 3: {  // the entry declares a result (AST only: the grammar gives an orchestration none)
          Type t = Type::tensor({c.integer(1, 8)});
          entry->results.push_back(std::move(t));
          b.graph = entry->name;
          b.what = "the entry declaring a result";
          b.message_has = {fmt::format("the entry '{}' declares results; it returns nothing", entry->name)};
          b.has_text = false;  // the printer writes no results for an orchestration
          break;
        }
        case 0: {  // (a graph that ends with its return: one of no results may have none)
          std::vector<Function*> returning;
          for (Function* g : graphs)
            if (!g->body.empty() && g->body.back().kind == Stmt::Kind::Return) returning.push_back(g);
          if (returning.empty()) return std::nullopt;
          Function& g = *returning[c.one_of(returning.size())];
          g.body.push_back(assign("zz_s", ExprRhs{int_expr(1)}));
          b.graph = g.name;
          b.what = "a statement after a graph's return";
          break;
        }
        case 1: {  // the entry returns a name
          if (tensor_params.empty()) return std::nullopt;
          Stmt r;
          r.kind = Stmt::Kind::Return;
          r.returns = {entry->params[tensor_params[c.one_of(tensor_params.size())]].name};
          if (!body.empty() && body.back().kind == Stmt::Kind::Return)
            body.back() = std::move(r);
          else
            body.push_back(std::move(r));
          b.marker = "return ";
          b.what = "the entry returns a name";
          break;
        }
        default: {  // a graph returns one name fewer or more than it declares
          std::vector<Function*> with_results;
          for (Function* g : graphs)
            if (!g->results.empty() && !g->body.empty() && g->body.back().kind == Stmt::Kind::Return)
              with_results.push_back(g);
          if (with_results.empty()) return std::nullopt;
          Function& g = *with_results[c.one_of(with_results.size())];
          std::vector<std::string>& rs = g.body.back().returns;
          std::vector<std::string> scalar_params;
          for (const Param& q : g.params)
            if (!q.type.is_tensor()) scalar_params.push_back(q.name);
          if (!rs.empty() && !scalar_params.empty() && c.chance(30)) {  // a scalar returned as a tensor result
            const size_t j = c.one_of(rs.size());
            rs[j] = c.pick(scalar_params);
            b.what = "a graph returning a scalar param as a tensor result";
            b.message_has = {fmt::format("graph '{}' returns scalar '{}' as result {} of type {}", g.name, rs[j], j,
                                         ir::print_type(g.results[j]))};
            b.marker = fmt::format("return {}", fmt::join(rs, ", "));  // no other return names a scalar
          } else if (c.boolean() && !rs.empty()) {
            rs.pop_back();
            b.what = "a graph returning one name fewer than it declares";
          } else {
            rs.push_back(rs.empty() ? g.params.front().name : rs.front());
            b.what = "a graph returning one name more than it declares";
          }
          b.graph = g.name;
          break;
        }
      }
      break;
    }
    case 1: {  // a second entry, or a kernel defined twice (the copy is the one reported)
      if (!kernels.empty() && c.chance(25)) {  // a kernel named as the entry, declared first: the entry is reported
        Function copy = *kernels[c.one_of(kernels.size())];
        copy.name = entry->name;
        b.graph = entry->name;
        b.what = "a kernel named as the entry";
        b.message_has = {"orchestration '" + entry->name + "': a function of that name is already defined"};
        b.program.functions.insert(b.program.functions.begin(), std::move(copy));
        return b;  // `entry` and `body` dangle now
      }
      if (c.chance(20)) {  // no entry at all: the interpreter has nothing to run either
        std::erase_if(b.program.functions, [](const Function& f) { return f.kind == Function::Kind::Orchestration; });
        b.what = "no orchestration function";
        b.message_has = {"the program has no orchestration (entry) function"};
        b.interp_invalid = true;
        b.lowering_precondition = true;  // codegen needs exactly one entry (COMPILER.md §6)
        return b;  // `entry` and `body` dangle now
      }
      std::vector<const Function*> graphs;
      for (const Function& f : wf.functions)
        if (f.kind == Function::Kind::Graph) graphs.push_back(&f);
      if ((!kernels.empty() || !graphs.empty()) && c.boolean()) {
        // A kernel or a graph defined twice; codegen lowers graphs, so a twin graph is its to refuse too.
        const bool graph = !graphs.empty() && (kernels.empty() || c.boolean());
        const Function copy = graph ? *graphs[c.one_of(graphs.size())] : *kernels[c.one_of(kernels.size())];
        const char* kind = graph ? "graph" : "kernel";
        b.graph = copy.name;
        b.what = fmt::format("a {} defined twice", kind);
        b.marker = fmt::format("{} {}(", kind, copy.name);
        b.message_has = {fmt::format("{} '{}': a function of that name is already defined", kind, copy.name)};
        b.lowering_precondition = graph;
        b.program.functions.push_back(copy);
      } else {
        Function second = *entry;
        second.name = "zz_main2";
        b.what = "a second orchestration";
        b.marker = "zz_main2(";
        b.message_has = {"second orchestration 'zz_main2': the program's entry is already '" + entry->name + "'"};
        b.lowering_precondition = true;  // codegen needs exactly one entry (COMPILER.md §6)
        b.program.functions.push_back(std::move(second));
      }
      return b;  // `entry` and `body` may dangle now
    }
    case 7: {  // an In param written, directly or through a chain of aliases and views
      std::vector<size_t> in_params;
      for (size_t i : tensor_params)
        if (entry->params[i].dir == Dir::In) in_params.push_back(i);
      if (in_params.empty()) return std::nullopt;
      const Param& p = entry->params[in_params[c.one_of(in_params.size())]];
      std::vector<Stmt> pre;
      std::string cur = p.name;
      ir::Dims dims = p.type.dims;
      std::string path = "an In param";
      const int64_t steps = c.integer(0, 3);
      for (int64_t i = 0; i < steps; ++i) {
        const std::string n = fmt::format("zz_p{}", i);
        if (c.boolean()) {
          pre.push_back(assign(n, ExprRhs{var(cur)}));
          path += ", aliased";
        } else {
          SliceRhs v;
          v.source = cur;
          for (int64_t& d : dims) {
            const int64_t size = c.integer(1, d);
            v.offsets.push_back(int_expr(c.integer(0, d - size)));
            v.sizes.push_back(size);
            d = size;
          }
          pre.push_back(assign(n, std::move(v)));
          path += ", viewed";
        }
        cur = n;
      }
      Stmt w;
      const size_t how = c.one_of(3);
      if (how < 2) {  // passed for the Out param of a fill kernel of its shape
        Invoke v;
        v.submit = how == 1;
        v.callee = "zz_k7";
        v.args = {var(cur), int_expr(c.integer(-3, 3))};
        w = assign("zz_bad", InvokeRhs{std::move(v)});
        path += how == 1 ? ", submitted as an Out argument" : ", passed as an Out argument";
      } else {  // the target of an assemble
        SliceRhs one;
        one.source = cur;
        AssembleRhs a;
        a.target = cur;
        a.source = "zz_src";
        for (size_t k = 0; k < dims.size(); ++k) {
          one.offsets.push_back(int_expr(0));
          one.sizes.push_back(1);
          a.offsets.push_back(int_expr(0));
        }
        pre.push_back(assign("zz_src", std::move(one)));
        w = assign("zz_bad", std::move(a));
        path += ", the target of an assemble";
      }
      const size_t where = c.one_of(3);
      if (where > 0) {
        Stmt block;
        block.body.push_back(std::move(w));
        if (where == 1) {
          block.kind = Stmt::Kind::For;
          block.name = "zz_i";
          block.lo = int_expr(0);
          block.hi = int_expr(c.integer(1, 3));
          block.step = int_expr(1);
          path += ", in a loop";
        } else {
          block.kind = Stmt::Kind::If;
          block.lo = int_expr(0);
          block.cmp = CmpOp::Lt;
          block.hi = int_expr(c.integer(0, 2));
          path += ", in an if";
        }
        w = std::move(block);
      }
      pre.push_back(std::move(w));
      body.insert(body.begin(), std::make_move_iterator(pre.begin()), std::make_move_iterator(pre.end()));
      b.what = path + " (rule 7)";
      b.marker = "zz_bad =";
      b.message_has = {how < 2 ? "'" + cur + "' is passed for Out param 'o' of 'zz_k7' but is not writable"
                               : "assemble target '" + cur + "' is not writable",
                       "its buffer is In param '" + p.name + "' of '" + entry->name + "'"};
      if (how < 2) {
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
        b.program.functions.insert(b.program.functions.begin(), std::move(k));  // `entry` and `body` dangle now
      }
      return b;  // writability is WellFormed's to check, not a premise of codegen's lowering
    }
    default: return std::nullopt;
  }
  if (b.code != 2 && b.code != 9 && b.code != 10 && b.code != 13 && b.code != 14 && !lowers_anyway)
    b.lowering_precondition = true;
  return b;
}

}  // namespace

std::optional<BrokenProgram> break_well_formed_rule(ChoiceSource& c, const Program& well_formed) {
  return break_well_formed(c, well_formed, nullptr);
}

std::optional<BrokenProgram> break_well_formed_rule(ChoiceSource& c, const Program& well_formed, int code) {
  static const std::vector<int> kAll = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14};
  if (std::find(kAll.begin(), kAll.end(), code) == kAll.end()) return std::nullopt;
  const ForcedPlace forced{code, std::nullopt};
  return break_well_formed(c, well_formed, &forced);
}

std::optional<BrokenProgram> break_expression_at(ChoiceSource& c, const Program& well_formed, int code, size_t place) {
  if ((code != 3 && code != 11 && code != 13) || place >= kExprPlaces) return std::nullopt;
  const ForcedPlace forced{code, place};
  return break_well_formed(c, well_formed, &forced);
}

}  // namespace stackcheck::gen
