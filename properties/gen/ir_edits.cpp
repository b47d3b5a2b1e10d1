// One-field edits of an IR program (ir_edits.h). Each site is a path from the program to a
// node (a chain of accessors captured by value) and one change to one of its fields.
#include "properties/gen/ir_edits.h"

#include <fmt/format.h>

#include <utility>

namespace stackcheck::gen {
namespace {

template <class T>
using At = std::function<T&(ir::Program&)>;

template <class T, class U, class Field>
At<U> then(At<T> at, Field field) {
  return [at = std::move(at), field](ir::Program& p) -> U& { return field(at(p)); };
}

template <class T>
T next_enum(T v, int count) {
  return static_cast<T>((static_cast<int>(v) + 1) % count);
}

class Sites {
 public:
  std::vector<IrEdit> out;

  template <class T, class Edit>
  void add(std::string what, const At<T>& at, Edit edit) {
    out.push_back({std::move(what), [at, edit](ir::Program& p) { edit(at(p)); }});
  }

  void type(const ir::Type& t, const std::string& w, const At<ir::Type>& at) {
    add(w + " kind", at, [](ir::Type& x) { x.kind = x.is_tensor() ? ir::Type::Kind::I64 : ir::Type::Kind::Tensor; });
    add(w + " dtype", at, [](ir::Type& x) { x.dtype = "i64"; });
    add(w + " one dim more", at, [](ir::Type& x) { x.dims.push_back(3); });
    if (!t.dims.empty()) add(w + " last dim dropped", at, [](ir::Type& x) { x.dims.pop_back(); });
    for (size_t i = 0; i < t.dims.size(); ++i) add(fmt::format("{} dim {}", w, i), at, [i](ir::Type& x) { ++x.dims[i]; });
  }

  void names(const std::vector<std::string>& v, const std::string& w, const At<std::vector<std::string>>& at) {
    add(w + " one more", at, [](std::vector<std::string>& x) { x.push_back("zz_more"); });
    if (!v.empty()) add(w + " last dropped", at, [](std::vector<std::string>& x) { x.pop_back(); });
    for (size_t i = 0; i < v.size(); ++i)
      add(fmt::format("{} {} renamed", w, i), at, [i](std::vector<std::string>& x) { x[i] += "_e"; });
  }

  void expr(const ir::Expr& e, const std::string& w, const At<ir::Expr>& at) {
    using K = ir::Expr::Kind;
    switch (e.kind) {
      case K::Int:
        add(w + " literal", at, [](ir::Expr& x) { x.value = x.value == 0 ? 1 : x.value / 2; });
        add(w + " literal made a name", at, [](ir::Expr& x) {
          x.kind = K::Var;
          x.name = "zz_n";
        });
        break;
      case K::Var: add(w + " name", at, [](ir::Expr& x) { x.name += "_e"; }); break;
      case K::Dim:
        add(w + " dim's tensor", at, [](ir::Expr& x) { x.name += "_e"; });
        add(w + " dim's index", at, [](ir::Expr& x) { ++x.value; });
        break;
      case K::Read:
        add(w + " read's tensor", at, [](ir::Expr& x) { x.name += "_e"; });
        add(w + " one index more", at, [](ir::Expr& x) { x.args.push_back(ir::Expr{}); });
        if (e.args.size() > 1) add(w + " last index dropped", at, [](ir::Expr& x) { x.args.pop_back(); });
        break;
      case K::Binary:
        add(w + " operator", at, [](ir::Expr& x) { x.op = next_enum(x.op, 5); });
        add(w + " operand made a literal", at, [](ir::Expr& x) { x = ir::Expr{K::Int, x.loc, 7, {}, {}, {}}; });
        break;
    }
    for (size_t i = 0; i < e.args.size(); ++i)
      expr(e.args[i], fmt::format("{}.{}", w, i), then<ir::Expr, ir::Expr>(at, [i](ir::Expr& x) -> ir::Expr& {
             return x.args[i];
           }));
  }

  void exprs(const std::vector<ir::Expr>& v, const std::string& w, const At<std::vector<ir::Expr>>& at) {
    add(w + " one more", at, [](std::vector<ir::Expr>& x) { x.push_back(ir::Expr{}); });
    if (!v.empty()) add(w + " last dropped", at, [](std::vector<ir::Expr>& x) { x.pop_back(); });
    for (size_t i = 0; i < v.size(); ++i)
      expr(v[i], fmt::format("{}[{}]", w, i),
           then<std::vector<ir::Expr>, ir::Expr>(at, [i](std::vector<ir::Expr>& x) -> ir::Expr& { return x[i]; }));
  }

  void invoke(const ir::Invoke& c, const std::string& w, const At<ir::Invoke>& at) {
    add(w + " call/submit", at, [](ir::Invoke& x) { x.submit = !x.submit; });
    add(w + " callee", at, [](ir::Invoke& x) { x.callee += "_e"; });
    exprs(c.args, w + " args", then<ir::Invoke, std::vector<ir::Expr>>(at, [](ir::Invoke& x) -> auto& { return x.args; }));
  }

  void rhs(const ir::Stmt& s, const std::string& w, const At<ir::Stmt>& at) {
    auto field = [&](auto get) {
      using F = std::remove_reference_t<decltype(get(std::declval<ir::Stmt&>()))>;
      return then<ir::Stmt, F>(at, get);
    };
    if (std::holds_alternative<ir::ExprRhs>(s.rhs)) {
      expr(std::get<ir::ExprRhs>(s.rhs).expr, w + " value",
           field([](ir::Stmt& x) -> ir::Expr& { return std::get<ir::ExprRhs>(x.rhs).expr; }));
    } else if (const auto* c = std::get_if<ir::InvokeRhs>(&s.rhs)) {
      invoke(c->invoke, w, field([](ir::Stmt& x) -> ir::Invoke& { return std::get<ir::InvokeRhs>(x.rhs).invoke; }));
    } else if (std::holds_alternative<ir::TupleGetRhs>(s.rhs)) {
      add(w + " tuple", at, [](ir::Stmt& x) { std::get<ir::TupleGetRhs>(x.rhs).tuple += "_e"; });
      add(w + " tuple index", at, [](ir::Stmt& x) { ++std::get<ir::TupleGetRhs>(x.rhs).index; });
    } else if (const auto* cr = std::get_if<ir::CreateRhs>(&s.rhs)) {
      exprs(cr->shape, w + " create shape",
            field([](ir::Stmt& x) -> std::vector<ir::Expr>& { return std::get<ir::CreateRhs>(x.rhs).shape; }));
    } else if (const auto* f = std::get_if<ir::FullRhs>(&s.rhs)) {
      exprs(f->shape, w + " full shape",
            field([](ir::Stmt& x) -> std::vector<ir::Expr>& { return std::get<ir::FullRhs>(x.rhs).shape; }));
      expr(f->value, w + " full value", field([](ir::Stmt& x) -> ir::Expr& { return std::get<ir::FullRhs>(x.rhs).value; }));
    } else if (const auto* sl = std::get_if<ir::SliceRhs>(&s.rhs)) {
      add(w + " view source", at, [](ir::Stmt& x) { std::get<ir::SliceRhs>(x.rhs).source += "_e"; });
      add(w + " view one size more", at, [](ir::Stmt& x) { std::get<ir::SliceRhs>(x.rhs).sizes.push_back(2); });
      for (size_t i = 0; i < sl->sizes.size(); ++i)
        add(fmt::format("{} view size {}", w, i), at, [i](ir::Stmt& x) { ++std::get<ir::SliceRhs>(x.rhs).sizes[i]; });
      exprs(sl->offsets, w + " view offsets",
            field([](ir::Stmt& x) -> std::vector<ir::Expr>& { return std::get<ir::SliceRhs>(x.rhs).offsets; }));
    } else if (const auto* as = std::get_if<ir::AssembleRhs>(&s.rhs)) {
      add(w + " assemble target", at, [](ir::Stmt& x) { std::get<ir::AssembleRhs>(x.rhs).target += "_e"; });
      add(w + " assemble source", at, [](ir::Stmt& x) { std::get<ir::AssembleRhs>(x.rhs).source += "_e"; });
      exprs(as->offsets, w + " assemble offsets",
            field([](ir::Stmt& x) -> std::vector<ir::Expr>& { return std::get<ir::AssembleRhs>(x.rhs).offsets; }));
    }
  }

  void stmt(const ir::Stmt& s, const std::string& w, const At<ir::Stmt>& at) {
    using K = ir::Stmt::Kind;
    auto sub = [&](auto get) {
      using F = std::remove_reference_t<decltype(get(std::declval<ir::Stmt&>()))>;
      return then<ir::Stmt, F>(at, get);
    };
    switch (s.kind) {
      case K::Assign:
        add(w + " name", at, [](ir::Stmt& x) { x.name += "_e"; });
        rhs(s, w, at);
        break;
      case K::Invoke: invoke(s.invoke, w, sub([](ir::Stmt& x) -> ir::Invoke& { return x.invoke; })); break;
      case K::Return:
        names(s.returns, w + " returns", sub([](ir::Stmt& x) -> std::vector<std::string>& { return x.returns; }));
        break;
      case K::For:
        add(w + " loop variable", at, [](ir::Stmt& x) { x.name += "_e"; });
        expr(s.lo, w + " lo", sub([](ir::Stmt& x) -> ir::Expr& { return x.lo; }));
        expr(s.hi, w + " hi", sub([](ir::Stmt& x) -> ir::Expr& { return x.hi; }));
        expr(s.step, w + " step", sub([](ir::Stmt& x) -> ir::Expr& { return x.step; }));
        block(s.body, w + " body", sub([](ir::Stmt& x) -> std::vector<ir::Stmt>& { return x.body; }));
        break;
      case K::If:
        add(w + " comparison", at, [](ir::Stmt& x) { x.cmp = next_enum(x.cmp, 6); });
        expr(s.lo, w + " lhs", sub([](ir::Stmt& x) -> ir::Expr& { return x.lo; }));
        expr(s.hi, w + " rhs", sub([](ir::Stmt& x) -> ir::Expr& { return x.hi; }));
        block(s.body, w + " then", sub([](ir::Stmt& x) -> std::vector<ir::Stmt>& { return x.body; }));
        block(s.else_body, w + " else", sub([](ir::Stmt& x) -> std::vector<ir::Stmt>& { return x.else_body; }));
        break;
    }
  }

  void block(const std::vector<ir::Stmt>& b, const std::string& w, const At<std::vector<ir::Stmt>>& at) {
    if (!b.empty()) add(w + " last statement dropped", at, [](std::vector<ir::Stmt>& x) { x.pop_back(); });
    for (size_t i = 0; i < b.size(); ++i)
      stmt(b[i], fmt::format("{} #{}", w, i),
           then<std::vector<ir::Stmt>, ir::Stmt>(at, [i](std::vector<ir::Stmt>& x) -> ir::Stmt& { return x[i]; }));
  }

  void function(const ir::Function& f, size_t k) {
    const std::string w = fmt::format("function {} ('{}')", k, f.name);
    const At<ir::Function> at = [k](ir::Program& p) -> ir::Function& { return p.functions[k]; };
    auto sub = [&](auto get) {
      using F = std::remove_reference_t<decltype(get(std::declval<ir::Function&>()))>;
      return then<ir::Function, F>(at, get);
    };
    add(w + " kind", at, [](ir::Function& x) { x.kind = next_enum(x.kind, 3); });
    add(w + " name", at, [](ir::Function& x) { x.name += "_e"; });
    add(w + " one param more", at, [](ir::Function& x) { x.params.push_back(ir::Param{"zz_p", ir::Dir::In, {}, {}}); });
    if (!f.params.empty()) add(w + " last param dropped", at, [](ir::Function& x) { x.params.pop_back(); });
    for (size_t i = 0; i < f.params.size(); ++i) {
      const std::string pw = fmt::format("{} param {}", w, i);
      add(pw + " name", at, [i](ir::Function& x) { x.params[i].name += "_e"; });
      add(pw + " direction", at, [i](ir::Function& x) { x.params[i].dir = next_enum(x.params[i].dir, 3); });
      type(f.params[i].type, pw, sub([i](ir::Function& x) -> ir::Type& { return x.params[i].type; }));
    }
    switch (f.kind) {
      case ir::Function::Kind::Kernel:
        add(w + " builtin", at, [](ir::Function& x) { x.builtin += "_e"; });
        names(f.kernel_returns, w + " returns",
              sub([](ir::Function& x) -> std::vector<std::string>& { return x.kernel_returns; }));
        break;
      case ir::Function::Kind::Graph:
        add(w + " one result more", at, [](ir::Function& x) { x.results.push_back(ir::Type::tensor({4})); });
        if (!f.results.empty()) add(w + " last result dropped", at, [](ir::Function& x) { x.results.pop_back(); });
        for (size_t i = 0; i < f.results.size(); ++i)
          type(f.results[i], fmt::format("{} result {}", w, i),
               sub([i](ir::Function& x) -> ir::Type& { return x.results[i]; }));
        [[fallthrough]];
      case ir::Function::Kind::Orchestration:
        block(f.body, w + " body", sub([](ir::Function& x) -> std::vector<ir::Stmt>& { return x.body; }));
        break;
    }
  }
};

void shift(ir::Loc& l, uint32_t by) {
  l.line += by;
  l.column += by;
}
void shift(ir::Expr& e, uint32_t by) {
  shift(e.loc, by);
  for (ir::Expr& a : e.args) shift(a, by);
}
void shift(ir::Invoke& c, uint32_t by) {
  shift(c.loc, by);
  for (ir::Expr& a : c.args) shift(a, by);
}
void shift(std::vector<ir::Stmt>& b, uint32_t by) {
  for (ir::Stmt& s : b) {
    shift(s.loc, by);
    shift(s.invoke, by);
    for (ir::Expr* e : {&s.lo, &s.hi, &s.step}) shift(*e, by);
    std::visit(
        [by](auto& r) {
          using R = std::decay_t<decltype(r)>;
          if constexpr (std::is_same_v<R, ir::ExprRhs>) shift(r.expr, by);
          if constexpr (std::is_same_v<R, ir::InvokeRhs>) shift(r.invoke, by);
          if constexpr (std::is_same_v<R, ir::CreateRhs>)
            for (ir::Expr& e : r.shape) shift(e, by);
          if constexpr (std::is_same_v<R, ir::FullRhs>) {
            for (ir::Expr& e : r.shape) shift(e, by);
            shift(r.value, by);
          }
          if constexpr (std::is_same_v<R, ir::SliceRhs> || std::is_same_v<R, ir::AssembleRhs>)
            for (ir::Expr& e : r.offsets) shift(e, by);
        },
        s.rhs);
    shift(s.body, by);
    shift(s.else_body, by);
  }
}

}  // namespace

std::vector<IrEdit> ir_edit_sites(const ir::Program& p) {
  Sites s;
  const At<ir::Program> whole = [](ir::Program& q) -> ir::Program& { return q; };
  if (!p.functions.empty()) {
    s.add("the last function dropped", whole, [](ir::Program& q) { q.functions.pop_back(); });
    s.add("the first function repeated", whole, [](ir::Program& q) { q.functions.push_back(q.functions.front()); });
  }
  for (size_t k = 0; k < p.functions.size(); ++k) s.function(p.functions[k], k);
  return std::move(s.out);
}

void relocate(ir::Program& p, uint32_t by) {
  for (ir::Function& f : p.functions) {
    shift(f.loc, by);
    for (ir::Param& q : f.params) shift(q.loc, by);
    shift(f.body, by);
  }
}

}  // namespace stackcheck::gen
