// The builder behind arbitrary_program: keeps, per block, the tensors in scope (shape,
// writability) and scalars, and only emits statements whose operands exist, so any
// sequence of random choices yields a well-formed program.
#include "properties/gen/program_gen.h"

#include "stack/ir/builder.h"
#include "stack/ir/printer.h"

#include <ostream>

#include <fmt/format.h>

namespace stackcheck::gen {

using namespace ir;
using namespace ir::build;

namespace {

struct TensorName {
  std::string name;
  int64_t size;   // 1-D: 8 or 4 elements (16 for the entry input)
  bool writable;  // root is not an In param
};

struct Scope {
  std::vector<TensorName> tensors;
  std::vector<std::string> scalars;            // any scalar in scope
  std::vector<std::string> invariant_scalars;  // replay-invariant (graph) scalars
};

int pick(int lo, int hi) { return *rc::gen::inRange(lo, hi + 1); }  // inclusive, shrinks to lo
bool chance(int percent) { return pick(0, 99) < percent; }

const TensorName* pick_tensor(const Scope& s, int64_t size, bool need_writable) {
  std::vector<const TensorName*> c;
  for (const auto& t : s.tensors)
    if (t.size == size && (!need_writable || t.writable)) c.push_back(&t);
  if (c.empty()) return nullptr;
  return c[static_cast<size_t>(pick(0, static_cast<int>(c.size()) - 1))];
}

Type T(int64_t n) { return Type::tensor({n}); }

std::vector<Function> fixture_kernels() {
  return {
      kernel("kacc", {param("x", Dir::In, T(8)), param("a", Dir::InOut, T(8))}, {"a"}, "acc"),
      kernel("kacc4", {param("x", Dir::In, T(4)), param("a", Dir::InOut, T(4))}, {"a"}, "acc"),
      kernel("ksc", {param("x", Dir::In, T(8)), param("o", Dir::Out, T(8)), param("s", Dir::In, Type::i64())}, {"o"},
             "scale"),
      kernel("kadd", {param("a", Dir::In, T(8)), param("b", Dir::In, T(8)), param("o", Dir::Out, T(8))}, {"o"}, "add"),
      kernel("k2", {param("x", Dir::In, T(8)), param("o1", Dir::Out, T(8)), param("o2", Dir::InOut, T(8))},
             {"o2", "o1"}, "copy"),
  };
}

class Builder {
 public:
  explicit Builder(const ProgramKnobs& k) : k_(k) {}

  Program build() {
    Program p;
    p.functions = fixture_kernels();
    if (k_.graphs) p.functions.push_back(graph_fn());
    p.functions.push_back(entry_fn());
    return p;
  }

 private:
  const ProgramKnobs& k_;
  int fresh_ = 0;

  std::string fresh(const char* stem) { return fmt::format("{}{}", stem, fresh_++); }

  // A scalar expression over `scalars` (or literals); `allow_div` adds floor / and %.
  Expr scalar_expr(const std::vector<std::string>& scalars, int depth = 0) {
    const int form = pick(0, depth >= 2 ? 1 : 4);
    if (form == 0 || scalars.empty()) return lit(pick(-3, 9));
    if (form == 1) return var(scalars[static_cast<size_t>(pick(0, static_cast<int>(scalars.size()) - 1))]);
    static const BinOp ops[] = {BinOp::Add, BinOp::Sub, BinOp::Mul, BinOp::Div, BinOp::Mod};
    const BinOp op = ops[pick(0, 4)];
    Expr rhs = (op == BinOp::Div || op == BinOp::Mod) ? lit(pick(1, 5)) : scalar_expr(scalars, depth + 1);
    return bin(op, scalar_expr(scalars, depth + 1), std::move(rhs));
  }

  // An offset that keeps a window of `n` inside `size` elements for any scalar value.
  Expr safe_offset(const std::vector<std::string>& scalars, int64_t size, int64_t n) {
    const int64_t span = size - n + 1;  // valid offsets 0..span-1
    if (scalars.empty() || chance(40)) return lit(pick(0, static_cast<int>(span - 1)));
    return mod(scalar_expr(scalars), lit(span));  // floor mod: always in [0, span)
  }

  // One launch writing a writable tensor of `size`; returns false if none fits.
  bool launch(std::vector<Stmt>& out, Scope& s, int64_t size, const std::vector<std::string>& launch_scalars) {
    const TensorName* dst = pick_tensor(s, size, true);
    const TensorName* src = pick_tensor(s, size, false);
    if (!dst || !src) return false;
    const std::string d = dst->name, x = src->name;
    if (size == 4) {
      rebind(out, s, d, fresh("w"), "kacc4", {var(x), var(d)});
      return true;
    }
    switch (pick(0, k_.submits ? 3 : 2)) {
      case 0: rebind(out, s, d, fresh("w"), "kacc", {var(x), var(d)}); break;
      case 1: {
        Expr sc = launch_scalars.empty() || chance(50)
                      ? lit(pick(-2, 5))
                      : var(launch_scalars[static_cast<size_t>(pick(0, static_cast<int>(launch_scalars.size()) - 1))]);
        rebind(out, s, d, fresh("w"), "ksc", {var(x), var(d), std::move(sc)});
        break;
      }
      case 2: {
        const TensorName* y = pick_tensor(s, 8, false);
        rebind(out, s, d, fresh("w"), "kadd", {var(x), var(y->name), var(d)});
        break;
      }
      default: {
        // k2 writes two buffers: needs a second writable tensor distinct from dst.
        const TensorName* o1 = nullptr;
        for (const auto& t : s.tensors)
          if (t.size == 8 && t.writable && t.name != d) o1 = &t;
        if (!o1) {
          rebind(out, s, d, fresh("w"), "kacc", {var(x), var(d)});
          break;
        }
        const std::string o1n = o1->name, r = fresh("r");
        out.push_back(call_to(r, "k2", {var(x), var(o1n), var(d)}, true));
        // Kernel returns (o2, o1): r.0 is o2's window (d), r.1 is o1's; r.2 the task id.
        const std::string a = fresh("y"), b = fresh("y");
        out.push_back(tuple_get(a, r, 0));
        out.push_back(tuple_get(b, r, 1));
        s.tensors.push_back({a, 8, true});
        s.tensors.push_back({b, 8, true});
        if (chance(30)) out.push_back(tuple_get(fresh("task"), r, 2));
      }
    }
    return true;
  }

  void rebind(std::vector<Stmt>& out, Scope& s, const std::string& dst, std::string res, const char* k,
              std::vector<Expr> args) {
    const int64_t size = std::string(k) == "kacc4" ? 4 : 8;
    if (chance(70)) {
      out.push_back(call_to(res, k, std::move(args)));
      s.tensors.push_back({std::move(res), size, true});  // writeback: same buffer as dst
    } else {
      out.push_back(call(k, std::move(args)));
    }
    (void)dst;
  }

  bool two_ = false;  // graph has the second InOut param d

  Function graph_fn() {
    two_ = k_.two_results && chance(40);
    Scope s;
    s.tensors = {{"x", 16, false}, {"c", 8, true}};
    if (two_) s.tensors.push_back({"d", 8, true});
    s.scalars = {"n"};
    std::vector<Stmt> body;
    std::vector<std::string> launch_scalars = {"n"};
    const int n = pick(0, k_.max_graph_stmts);
    for (int i = 0; i < n; ++i) {
      switch (pick(0, 6)) {
        case 0: {  // Step C candidate: depth-0 create
          const std::string t = fresh("t");
          body.push_back(create(t, lits({8})));
          s.tensors.push_back({t, 8, true});
          break;
        }
        case 1: {  // Step A: derivable scalar (hoisted), or an alias of n
          const std::string v = fresh("s");
          if (chance(25))
            body.push_back(let(v, var("n")));
          else
            body.push_back(let(v, scalar_expr(s.scalars)));
          s.scalars.push_back(v);
          launch_scalars.push_back(v);
          break;
        }
        case 2: {  // Step B: view of x (In) at a derivable or literal offset
          if (!k_.views) break;
          const std::string v = fresh("v");
          body.push_back(slice(v, "x", {safe_offset(s.scalars, 16, 8)}, {8}));
          s.tensors.push_back({v, 8, false});
          break;
        }
        case 3: {  // view of a writable 8-tensor at a literal (invariant) offset, used by kacc4
          if (!k_.views) break;
          const TensorName* w = pick_tensor(s, 8, true);
          if (!w) break;
          const std::string u = fresh("u");
          body.push_back(slice(u, w->name, {lit(pick(0, 4))}, {4}));
          s.tensors.push_back({u, 4, true});
          launch(body, s, 4, launch_scalars);
          break;
        }
        case 4: {  // constant-trip loop: loop-nested creates stay; loop-var views are invariant
          if (!k_.loop_creates) break;
          Scope inner = s;
          std::vector<Stmt> lb;
          const std::string j = fresh("j");
          if (chance(60)) {
            const std::string t = fresh("t");
            lb.push_back(create(t, lits({8})));
            inner.tensors.push_back({t, 8, true});
          }
          if (k_.views && chance(50)) {
            const std::string u = fresh("u");
            lb.push_back(slice(u, "c", {mod(mul(var(j), lit(4)), lit(5))}, {4}));  // in [0, 4]
            inner.tensors.push_back({u, 4, true});
            launch(lb, inner, 4, {});
          }
          launch(lb, inner, 8, {j});
          body.push_back(for_(j, lit(0), lit(pick(1, 3)), lit(1), std::move(lb)));
          break;
        }
        default: launch(body, s, 8, launch_scalars); break;
      }
    }
    launch(body, s, 8, launch_scalars);  // every graph has at least one launch
    if (k_.illegal_view) {
      // A view at an offset varying across the iterations of a non-constant-trip loop:
      // neither derivable at the call site nor replay-invariant.
      const std::string j = fresh("j"), v = fresh("v");
      std::vector<Stmt> lb;
      lb.push_back(slice(v, "x", {mod(var(j), lit(9))}, {8}));
      body.push_back(for_(j, lit(0), mod(var("n"), lit(3)), lit(1), std::move(lb)));
    }
    std::vector<Param> params = {param("x", Dir::In, T(16)), param("c", Dir::InOut, T(8)),
                                 param("n", Dir::In, Type::i64())};
    if (two_) {
      params.push_back(param("d", Dir::InOut, T(8)));
      body.push_back(ret({"d", "c"}));  // out of param order: never reordered (§5.2)
      return graph("g", std::move(params), {T(8), T(8)}, std::move(body));
    }
    body.push_back(ret({"c"}));
    return graph("g", std::move(params), {T(8)}, std::move(body));
  }

  Function entry_fn() {
    Scope s;
    s.tensors = {{"x", 16, false}, {"c", 8, true}};
    std::vector<Stmt> body;
    std::vector<std::string> scalars;
    const int pre = pick(0, k_.max_entry_stmts);
    for (int i = 0; i < pre; ++i) {
      switch (pick(0, 3)) {
        case 0: {
          const std::string t = fresh("e");
          if (k_.entry_reads && chance(40))
            body.push_back(full(t, lits({8}), lit(pick(-5, 5))));
          else
            body.push_back(create(t, lits({8})));
          s.tensors.push_back({t, 8, true});
          break;
        }
        case 1: {
          const std::string v = fresh("q");
          if (k_.entry_reads && chance(50))
            body.push_back(let(v, read("x", {lit(pick(0, 15))})));
          else
            body.push_back(let(v, scalar_expr(scalars)));
          scalars.push_back(v);
          break;
        }
        case 2: {
          const std::string v = fresh("ev");
          body.push_back(slice(v, "x", {safe_offset(scalars, 16, 8)}, {8}));
          s.tensors.push_back({v, 8, false});
          break;
        }
        default: launch(body, s, 8, scalars); break;
      }
    }
    if (k_.graphs) {
      const std::string i = fresh("i");
      std::vector<Stmt> lb;
      std::vector<Expr> args = {var("x"), var("c"), var(i)};
      if (two_) {
        const std::string dd = fresh("dd");
        lb.push_back(create(dd, lits({8})));
        args.push_back(var(dd));
      }
      if (chance(50)) {
        lb.push_back(call("g", std::move(args)));
      } else {
        const std::string r = fresh("gr");
        lb.push_back(call_to(r, "g", std::move(args)));
        if (two_) lb.push_back(tuple_get(fresh("gd"), r, 0));  // the window of d's buffer
      }
      body.push_back(for_(i, lit(0), lit(pick(1, k_.max_trips)), lit(1), std::move(lb)));
    } else {
      launch(body, s, 8, scalars);
    }
    return orchestration("main", {param("x", Dir::In, T(16)), param("c", Dir::InOut, T(8))}, std::move(body));
  }
};

}  // namespace

rc::Gen<Program> arbitrary_program(const ProgramKnobs& knobs) {
  return rc::gen::exec([knobs] { return Builder(knobs).build(); });
}

}  // namespace stackcheck::gen

namespace stackcheck::ir {
void showValue(const Program& p, std::ostream& os) { os << "\n" << print_program(p); }
}  // namespace stackcheck::ir
