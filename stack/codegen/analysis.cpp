// Static pre-analysis of one function for codegen (lowering.h): shapes, static scalar
// values and fresh creates. Total on any Function: unknown names simply stay unknown, and
// the lowering reports them (300) when it needs them.
#include <functional>

#include "stack/codegen/lowering.h"
#include "stack/ir/invariance.h"
#include "stack/ir/walk.h"
#include "stack/runtime/plan/check.h"
#include "stack/ir/builtins.h"

namespace stackcheck::codegen::detail {
namespace {

using DimsList = std::vector<std::optional<ir::Dims>>;

// The result types of a call of `f` (tensor dims, or nullopt for a non-tensor).
DimsList result_dims(const ir::Function& f) {
  DimsList out;
  if (f.kind == ir::Function::Kind::Kernel) {
    for (const std::string& r : f.kernel_returns) {
      std::optional<ir::Dims> d;
      for (const ir::Param& p : f.params)
        if (p.name == r && p.type.is_tensor()) d = p.type.dims;
      out.push_back(d);
    }
  } else if (f.kind == ir::Function::Kind::Graph) {
    for (const ir::Type& t : f.results) out.push_back(t.is_tensor() ? std::optional(t.dims) : std::nullopt);
  }
  return out;
}

class Analyzer {
 public:
  Analyzer(const ProgramInfo& info, StaticInfo& out) : info_(info), out_(out) {}

  void params(const ir::Function& f) {
    for (const ir::Param& p : f.params)
      if (p.type.is_tensor()) out_.dims[p.name] = p.type.dims;
  }

  // Walk hooks: each statement list's fresh creates are decided as it is entered.
  void enter_block(const std::vector<ir::Stmt>& stmts, const ir::Place&) { fresh_in_list(stmts); }
  void visit(const ir::Stmt& s, const ir::Place&) {
    if (s.kind == ir::Stmt::Kind::Assign) assign(s);
  }

 private:
  ir::EvalResult eval(const ir::Expr& e) const {
    const ir::DimsOf dims_of = [this](std::string_view n) -> const ir::Dims* {
      auto it = out_.dims.find(std::string(n));
      return it == out_.dims.end() ? nullptr : &it->second;
    };
    const ir::ValueOf value_of = [this](std::string_view n) -> std::optional<int64_t> {
      auto it = out_.values.find(std::string(n));
      if (it == out_.values.end()) return std::nullopt;
      return it->second;
    };
    return ir::evaluate(e, dims_of, value_of);
  }

  void shape(const std::string& name, const std::vector<ir::Expr>& exprs) {
    ir::Dims d;
    for (const ir::Expr& e : exprs) {
      const ir::EvalResult r = eval(e);
      if (!r.ok()) return;  // not static: the lowering reports it if the name is used
      d.push_back(r.value);
    }
    out_.dims[name] = std::move(d);
  }

  void assign(const ir::Stmt& s) {
    if (const auto* e = std::get_if<ir::ExprRhs>(&s.rhs)) {
      if (e->expr.kind == ir::Expr::Kind::Var) {
        if (auto it = out_.dims.find(e->expr.name); it != out_.dims.end()) {
          out_.dims[s.name] = it->second;  // a tensor alias
          return;
        }
        if (auto it = out_.tuples.find(e->expr.name); it != out_.tuples.end()) return;
      }
      const ir::EvalResult r = eval(e->expr);
      if (r.ok()) out_.values[s.name] = r.value;
    } else if (const auto* c = std::get_if<ir::InvokeRhs>(&s.rhs)) {
      const ir::Function* f = info_.find(c->invoke.callee);
      if (f == nullptr) return;
      DimsList results = result_dims(*f);
      if (c->invoke.submit) {
        results.push_back(std::nullopt);  // the task id
        out_.tuples[s.name] = std::move(results);
      } else if (results.size() == 1) {
        if (results[0]) out_.dims[s.name] = *results[0];
      } else if (results.size() >= 2) {
        out_.tuples[s.name] = std::move(results);
      }
    } else if (const auto* t = std::get_if<ir::TupleGetRhs>(&s.rhs)) {
      auto it = out_.tuples.find(t->tuple);
      if (it == out_.tuples.end() || t->index < 0 || static_cast<uint64_t>(t->index) >= it->second.size()) return;
      if (const auto& d = it->second[static_cast<size_t>(t->index)]) out_.dims[s.name] = *d;
    } else if (const auto* cr = std::get_if<ir::CreateRhs>(&s.rhs)) {
      shape(s.name, cr->shape);
    } else if (const auto* fu = std::get_if<ir::FullRhs>(&s.rhs)) {
      shape(s.name, fu->shape);
    } else if (const auto* sl = std::get_if<ir::SliceRhs>(&s.rhs)) {
      out_.dims[s.name].assign(sl->sizes.begin(), sl->sizes.end());
    } else if (const auto* as = std::get_if<ir::AssembleRhs>(&s.rhs)) {
      if (auto it = out_.dims.find(as->target); it != out_.dims.end()) out_.dims[s.name] = it->second;
    }
  }

  // ---- fresh creates ----

  // Calls `f(name)` for every name a statement mentions, nested blocks included, except the
  // tensor of a `dim` (which reads only the static shape, never the buffer).
  static void mentions(const ir::Expr& e, const std::function<void(const std::string&)>& f) {
    ir::for_each_subexpr(e, [&](const ir::Expr& x) {
      if (x.kind == ir::Expr::Kind::Var || x.kind == ir::Expr::Kind::Read) f(x.name);
    });
  }
  static void mentions_here(const ir::Stmt& s, const std::function<void(const std::string&)>& f) {
    ir::for_each_expr(s, [&](const ir::Expr& e) { mentions(e, f); });
    if (const auto* t = std::get_if<ir::TupleGetRhs>(&s.rhs); t != nullptr && s.kind == ir::Stmt::Kind::Assign) {
      f(t->tuple);
    } else if (const auto* sl = std::get_if<ir::SliceRhs>(&s.rhs); sl != nullptr && s.kind == ir::Stmt::Kind::Assign) {
      f(sl->source);
    } else if (const auto* a = std::get_if<ir::AssembleRhs>(&s.rhs); a != nullptr && s.kind == ir::Stmt::Kind::Assign) {
      f(a->target);
      f(a->source);
    }
    if (s.kind == ir::Stmt::Kind::Return) {
      for (const std::string& n : s.returns) f(n);
    }
  }
  static void mentions(const ir::Stmt& s, const std::function<void(const std::string&)>& f) {
    mentions_here(s, f);
    ir::walk_statements(s.body, [&](const ir::Stmt& b) { mentions_here(b, f); });
    ir::walk_statements(s.else_body, [&](const ir::Stmt& b) { mentions_here(b, f); });
  }

  // Is `s` a kernel launch passing `name` unviewed to a builtin-written Out param and to
  // no other param?
  bool fresh_launch(const ir::Stmt& s, const std::string& name) const {
    const ir::Invoke* inv = ir::invoke_of(s);
    if (inv == nullptr) return false;
    const ir::Function* k = info_.find(inv->callee);
    if (k == nullptr || k->kind != ir::Function::Kind::Kernel || inv->args.size() != k->params.size()) return false;
    const ir::Builtin* b = ir::find_builtin(k->builtin);
    if (b == nullptr) return false;
    bool out_slot = false;
    for (size_t i = 0; i < inv->args.size(); ++i) {
      bool mentioned = false;
      mentions(inv->args[i], [&](const std::string& n) { mentioned = mentioned || n == name; });
      if (!mentioned) continue;
      const bool unviewed = inv->args[i].kind == ir::Expr::Kind::Var;
      if (out_slot || !unviewed || i >= b->arity() || k->params[i].dir != ir::Dir::Out ||
          b->params[i].dir != ir::Dir::Out || !k->params[i].type.is_tensor())
        return false;
      out_slot = true;
    }
    return out_slot;
  }

  // Decides the creates of one statement list at their first use in it.
  void fresh_in_list(const std::vector<ir::Stmt>& stmts) {
    std::unordered_set<std::string> pending;
    for (const ir::Stmt& s : stmts) {
      if (!pending.empty()) {
        std::vector<std::string> used;
        mentions(s, [&](const std::string& n) {
          if (pending.count(n) != 0) used.push_back(n);
        });
        for (const std::string& n : used) {
          if (pending.erase(n) == 0) continue;  // mentioned twice in s
          if (fresh_launch(s, n)) out_.fresh.insert(n);
        }
      }
      if (s.kind == ir::Stmt::Kind::Assign && std::holds_alternative<ir::CreateRhs>(s.rhs)) pending.insert(s.name);
    }
  }

  const ProgramInfo& info_;
  StaticInfo& out_;
};

// A graph name that is also a `.plan` keyword gets a suffix (`view` -> `view_g`).
std::string plan_graph_name(const std::string& name, const ProgramInfo& info,
                            const std::unordered_set<std::string>& taken) {
  if (runtime::is_plan_name(name)) return name;
  for (int k = 0;; ++k) {
    std::string c = name + (k == 0 ? "_g" : "_g" + std::to_string(k + 1));
    if (runtime::is_plan_name(c) && info.functions.count(c) == 0 && taken.count(c) == 0) return c;
  }
}

}  // namespace

ProgramInfo::ProgramInfo(const ir::Program& p) : program(p), rpi(p) {
  for (const ir::Function& f : p.functions) functions.emplace(f.name, &f);
  std::unordered_set<std::string> taken;
  for (const ir::Function& f : p.functions) {
    if (f.kind != ir::Function::Kind::Graph || graph_names.count(f.name) != 0) continue;
    std::string n = plan_graph_name(f.name, *this, taken);
    taken.insert(n);
    graph_names.emplace(f.name, std::move(n));
  }
}

const ir::Function* ProgramInfo::find(std::string_view name) const {
  auto it = functions.find(std::string(name));
  return it == functions.end() ? nullptr : it->second;
}

StaticInfo analyze_function(const ProgramInfo& info, const ir::Function& f) {
  StaticInfo out;
  Analyzer a(info, out);
  a.params(f);
  ir::walk_statements(f.body, a);
  return out;
}

}  // namespace stackcheck::codegen::detail
