// ir_productions and the `.gir` production universe (productions.h).
#include <fmt/format.h>

#include <map>
#include <type_traits>

#include "properties/gen/productions.h"

namespace stackcheck::gen {

namespace {

using namespace ir;

constexpr const char* kForms[] = {"scalar-expr", "alias",    "call",      "submit",      "tuple-get", "create", "full",
                                  "slice",       "assemble", "bare-call", "bare-submit", "return",    "for",    "if"};
constexpr const char* kPlaces[] = {"entry", "graph"};
constexpr const char* kBlocks[] = {"top", "for", "if", "else"};
constexpr const char* kExprPlaces[] = {"assign",       "for-bound",  "if-operand", "slice-offset", "assemble-offset",
                                       "create-shape", "full-shape", "full-value", "scalar-arg",   "read-index"};
constexpr const char* kExprKinds[] = {"int", "var", "binary", "dim", "read"};
constexpr const char* kBuiltins[] = {"fill", "copy", "add", "acc", "scale", "matmul", "rowsum"};

const char* expr_kind(Expr::Kind k) {
  switch (k) {
    case Expr::Kind::Int: return "int";
    case Expr::Kind::Var: return "var";
    case Expr::Kind::Binary: return "binary";
    case Expr::Kind::Dim: return "dim";
    case Expr::Kind::Read: return "read";
  }
  return "?";
}

class Walker {
 public:
  std::set<std::string> out;

  void program(const Program& p) {
    for (const Function& f : p.functions) kinds_[f.name] = &f;
    for (const Function& f : p.functions) function(f);
    for (const auto& [name, n] : sites_) {
      if (n > 1) out.insert("graph:several-sites");
    }
    for (const Function& f : p.functions)
      if (f.kind == Function::Kind::Graph && !sites_.count(f.name)) out.insert("graph:never-called");
  }

 private:
  std::map<std::string, const Function*> kinds_;
  std::map<std::string, int> sites_;  // graph -> call sites
  const char* place_ = "entry";

  void function(const Function& f) {
    const char* fk = f.kind == Function::Kind::Kernel ? "kernel" : f.kind == Function::Kind::Graph ? "graph" : "entry";
    for (const Param& p : f.params) {
      if (p.type.is_tensor())
        out.insert(fmt::format("param:{}-tensor-rank{}@{}", dir_name(p.dir), p.type.dims.size(), fk));
      else
        out.insert(fmt::format("param:{}-i64@{}", dir_name(p.dir), fk));
    }
    if (f.kind == Function::Kind::Kernel) {
      out.insert("kernel:" + f.builtin);
      const size_t builtin_params =
          f.builtin == "fill" || f.builtin == "acc" || f.builtin == "copy" || f.builtin == "rowsum" ? 2 : 3;
      if (f.params.size() > builtin_params) out.insert("kernel:extra-params");
      if (f.kernel_returns.empty()) out.insert("kernel:returns-none");
      if (f.kernel_returns.size() >= 2) out.insert("kernel:returns-several");
      bool ordered = true;
      for (size_t i = 1; i < f.kernel_returns.size(); ++i)
        ordered &= index_of(f, f.kernel_returns[i - 1]) < index_of(f, f.kernel_returns[i]);
      if (!ordered) out.insert("kernel:returns-out-of-order");
      return;
    }
    if (f.kind == Function::Kind::Graph) {
      out.insert(f.results.empty()       ? "graph:no-results"
                 : f.results.size() == 1 ? "graph:one-result"
                                         : "graph:several-results");
      if (f.body.empty() || f.body.back().kind != ir::Stmt::Kind::Return) out.insert("graph:no-return");
    }
    place_ = f.kind == Function::Kind::Graph ? "graph" : "entry";
    block(f.body, "top");
  }

  static size_t index_of(const Function& f, const std::string& name) {
    for (size_t i = 0; i < f.params.size(); ++i)
      if (f.params[i].name == name) return i;
    return f.params.size();
  }

  void expr(const Expr& e, const char* where) {
    out.insert(fmt::format("expr:{}@{}", expr_kind(e.kind), where));
    if (e.kind == Expr::Kind::Binary) out.insert(fmt::format("op:{}", binop_text(e.op)));
    if (e.kind == Expr::Kind::Binary || e.kind == Expr::Kind::Read)
      for (const Expr& a : e.args) expr(a, e.kind == Expr::Kind::Read ? "read-index" : where);
  }

  void invoke(const Invoke& iv, const char* ctx) {
    auto it = kinds_.find(iv.callee);
    const bool graph = it != kinds_.end() && it->second->kind == Function::Kind::Graph;
    out.insert(fmt::format("invoke:{}-{}@{}", iv.submit ? "submit" : "call", graph ? "graph" : "kernel", place_));
    if (graph) {
      ++sites_[iv.callee];
      out.insert(fmt::format("site:{}", ctx));
    }
    std::set<std::string> names;
    for (const Expr& a : iv.args) {
      if (a.kind == Expr::Kind::Var && !names.insert(a.name).second) out.insert("invoke:same-name-twice");
      if (a.kind != Expr::Kind::Var || !is_tensor_arg(iv, &a - iv.args.data())) expr(a, "scalar-arg");
    }
  }

  bool is_tensor_arg(const Invoke& iv, ptrdiff_t i) const {
    auto it = kinds_.find(iv.callee);
    if (it == kinds_.end() || i < 0 || static_cast<size_t>(i) >= it->second->params.size()) return false;
    return it->second->params[static_cast<size_t>(i)].type.is_tensor();
  }

  void block(const std::vector<Stmt>& b, const char* ctx) {
    for (const Stmt& s : b) {
      const int form = form_of(s);
      out.insert(fmt::format("stmt:{}@{}-{}", kForms[form], place_, ctx));
      switch (s.kind) {
        case Stmt::Kind::Assign: assign(s, ctx); break;
        case Stmt::Kind::Invoke: invoke(s.invoke, ctx); break;
        case Stmt::Kind::Return:
          if (s.returns.empty()) out.insert("return:nothing");
          break;
        case Stmt::Kind::For:
          expr(s.lo, "for-bound");
          expr(s.hi, "for-bound");
          expr(s.step, "for-bound");
          if (s.step.kind == Expr::Kind::Int && s.step.value < 0) out.insert("for:negative-step");
          block(s.body, "for");
          break;
        case Stmt::Kind::If:
          expr(if_lhs(s), "if-operand");
          expr(if_rhs(s), "if-operand");
          out.insert(fmt::format("cmp:{}", cmp_text(s.cmp)));
          block(s.body, "if");
          block(s.else_body, "else");
          break;
      }
    }
  }

  static int form_of(const Stmt& s) {
    switch (s.kind) {
      case Stmt::Kind::Invoke: return s.invoke.submit ? 10 : 9;
      case Stmt::Kind::Return: return 11;
      case Stmt::Kind::For: return 12;
      case Stmt::Kind::If: return 13;
      case Stmt::Kind::Assign: break;
    }
    if (const auto* e = std::get_if<ExprRhs>(&s.rhs)) return e->expr.kind == Expr::Kind::Var ? 1 : 0;
    if (const auto* iv = std::get_if<InvokeRhs>(&s.rhs)) return iv->invoke.submit ? 3 : 2;
    return static_cast<int>(s.rhs.index()) + 2;  // TupleGet 4, Create 5, Full 6, Slice 7, Assemble 8
  }

  void assign(const Stmt& s, const char* ctx) {
    std::visit(
        [&](const auto& r) {
          using T = std::decay_t<decltype(r)>;
          if constexpr (std::is_same_v<T, ExprRhs>) {
            expr(r.expr, "assign");
          } else if constexpr (std::is_same_v<T, InvokeRhs>) {
            invoke(r.invoke, ctx);
          } else if constexpr (std::is_same_v<T, TupleGetRhs>) {
            out.insert(r.index == 0 ? "tuple:first" : "tuple:later");
          } else if constexpr (std::is_same_v<T, CreateRhs>) {
            out.insert(fmt::format("create:rank{}", r.shape.size()));
            for (const Expr& e : r.shape) expr(e, "create-shape");
          } else if constexpr (std::is_same_v<T, FullRhs>) {
            for (const Expr& e : r.shape) expr(e, "full-shape");
            expr(r.value, "full-value");
          } else if constexpr (std::is_same_v<T, SliceRhs>) {
            out.insert(fmt::format("slice:rank{}", r.sizes.size()));
            for (const Expr& e : r.offsets) expr(e, "slice-offset");
          } else if constexpr (std::is_same_v<T, AssembleRhs>) {
            for (const Expr& e : r.offsets) expr(e, "assemble-offset");
          }
        },
        s.rhs);
  }
};

}  // namespace

std::set<std::string> ir_productions(const Program& p) {
  Walker w;
  w.program(p);
  return std::move(w.out);
}

std::vector<Production> ir_production_universe() {
  std::vector<Production> u;
  auto add = [&](std::string n, std::string why = "") { u.push_back({std::move(n), std::move(why), ""}); };
  for (const char* form : kForms)
    for (const char* place : kPlaces)
      for (const char* ctx : kBlocks) {
        const std::string f = form, pl = place, c = ctx;
        std::string why;
        if (f == "return" && pl == "entry")
          why = "the entry returns nothing (WellFormed 14)";
        else if (f == "return" && c != "top")
          why = "a return is the body's last statement (WellFormed 14)";
        else if (f == "full" && pl == "graph")
          why = "`full` in a graph region (GraphBoundaryLegalized 206)";
        else if (pl == "graph" && c != "top" && c != "for" &&
                 (f == "call" || f == "submit" || f == "bare-call" || f == "bare-submit" || f == "assemble" ||
                  f == "create"))
          why = "an if holding nodes in a graph (GraphBoundaryLegalized 215; creates count, COMPILER.md §4)";
        u.push_back({fmt::format("stmt:{}@{}-{}", form, place, ctx), why, ""});
      }
  for (const char* callee : {"kernel", "graph"})
    for (const char* how : {"call", "submit"})
      for (const char* place : kPlaces) {
        std::string why;
        if (std::string(callee) == "graph" && std::string(place) == "graph")
          why = "a graph calling a graph (GraphBoundaryLegalized 208)";
        add(fmt::format("invoke:{}-{}@{}", how, callee, place), why);
      }
  add("invoke:same-name-twice");
  for (const char* ctx : kBlocks) add(fmt::format("site:{}", ctx));
  add("graph:several-sites");
  add("graph:never-called");
  add("graph:no-results");
  add("graph:one-result");
  add("graph:several-results");
  add("graph:no-return");  // a graph of no results may end without `return` (COMPILER.md §1)
  for (const char* where : kExprPlaces)
    for (const char* kind : kExprKinds) {
      const std::string w = where, k = kind;
      const bool shape = w == "create-shape" || w == "full-shape";
      if (shape && k == "read")
        add(fmt::format("expr:{}@{}", kind, where), "a shape is static (WellFormed 9); a read is not");
      else
        add(fmt::format("expr:{}@{}", kind, where));
    }
  for (const char* op : {"+", "-", "*", "/", "%"}) add(fmt::format("op:{}", op));
  for (const char* c : {"==", "!=", "<", "<=", ">", ">="}) add(fmt::format("cmp:{}", c));
  add("for:negative-step");
  add("return:nothing");
  add("tuple:first");
  add("tuple:later");
  for (int r = 1; r <= 3; ++r) add(fmt::format("create:rank{}", r));
  for (int r = 1; r <= 3; ++r) add(fmt::format("slice:rank{}", r));
  for (const char* b : kBuiltins) add(fmt::format("kernel:{}", b));
  for (const char* k : {"extra-params", "returns-none", "returns-several", "returns-out-of-order"})
    add(fmt::format("kernel:{}", k));
  for (const char* fk : {"kernel", "graph", "entry"})
    for (const char* dir : {"In", "Out", "InOut"}) {
      for (int r = 1; r <= 3; ++r) {
        std::string why;
        if (std::string(fk) == "graph" && std::string(dir) == "Out")
          why = "a graph's Out param (GraphBoundaryLegalized 202)";
        if (std::string(fk) == "entry" && std::string(dir) == "Out") why = "an entry Out param (WellFormed 8)";
        add(fmt::format("param:{}-tensor-rank{}@{}", dir, r, fk), why);
      }
      std::string why = std::string(dir) == "In" ? "" : "a scalar param not In (WellFormed 8)";
      if (why.empty() && std::string(fk) == "entry")
        why = "codegen refuses an entry scalar param (306): an orchestration program has no scalar inputs";
      add(fmt::format("param:{}-i64@{}", dir, fk), why);
    }
  return u;
}

}  // namespace stackcheck::gen
