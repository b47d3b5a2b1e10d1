// The layout of codegen's plan, predicted from the IR (codegen_layout.h). One walk pairs each
// IR statement list with the plan block it lowers to: the block opens with the allocs of the
// list's non-fresh creates, 16 buffers a statement, then holds, in the IR's order, one plan
// statement for each launch, `full`, `assemble`, loop and if of the list (with `set`, `view`
// and `read` statements between them, which are not predicted here).
#include "properties/oracles/codegen_layout.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>

#include "stack/ir/walk.h"
#include "stack/runtime/plan/check.h"
#include "stack/runtime/plan/printer.h"

namespace stackcheck::oracles {
namespace {

using ir::Expr;
using ir::Stmt;
using runtime::PlanTag;

// COMPILER.md §6: an `alloc` statement holds at most 16 buffers.
constexpr size_t kBuffersPerAlloc = 16;

// COMPILER.md §2's signatures: which params are tensors, and the one the builtin writes as
// Out (-1: none; acc's written param is InOut).
struct Signature {
  std::string_view name;
  runtime::Builtin builtin;
  std::vector<bool> tensor;
  int out;
};

const Signature* signature(std::string_view name) {
  using B = runtime::Builtin;
  static const std::array<Signature, 7> table = {{
      {"fill", B::Fill, {true, false}, 0},
      {"copy", B::Copy, {true, true}, 1},
      {"add", B::Add, {true, true, true}, 2},
      {"acc", B::Acc, {true, true}, -1},
      {"scale", B::Scale, {true, true, false}, 1},
      {"matmul", B::Matmul, {true, true, true}, 2},
      {"rowsum", B::Rowsum, {true, true}, 1},
  }};
  for (const Signature& s : table)
    if (s.name == name) return &s;
  return nullptr;
}

// The names an expression uses: variables and the tensor of a `read`; the tensor of a `dim`
// is not a use (it reads the static shape, never the buffer).
void expr_names(const Expr& e, std::vector<std::string>& out) {
  if (e.kind == Expr::Kind::Var || e.kind == Expr::Kind::Read) out.push_back(e.name);
  for (const Expr& a : e.args) expr_names(a, out);
}

void exprs_names(const std::vector<Expr>& es, std::vector<std::string>& out) {
  for (const Expr& e : es) expr_names(e, out);
}

// Every name statement `s` uses, its nested blocks included (its own defined name is not a use).
void stmt_names(const Stmt& s, std::vector<std::string>& out) {
  switch (s.kind) {
    case Stmt::Kind::Assign:
      if (const auto* e = std::get_if<ir::ExprRhs>(&s.rhs)) expr_names(e->expr, out);
      if (const auto* c = std::get_if<ir::InvokeRhs>(&s.rhs)) exprs_names(c->invoke.args, out);
      if (const auto* t = std::get_if<ir::TupleGetRhs>(&s.rhs)) out.push_back(t->tuple);
      if (const auto* c = std::get_if<ir::CreateRhs>(&s.rhs)) exprs_names(c->shape, out);
      if (const auto* f = std::get_if<ir::FullRhs>(&s.rhs)) {
        exprs_names(f->shape, out);
        expr_names(f->value, out);
      }
      if (const auto* sl = std::get_if<ir::SliceRhs>(&s.rhs)) {
        out.push_back(sl->source);
        exprs_names(sl->offsets, out);
      }
      if (const auto* a = std::get_if<ir::AssembleRhs>(&s.rhs)) {
        out.push_back(a->target);
        out.push_back(a->source);
        exprs_names(a->offsets, out);
      }
      return;
    case Stmt::Kind::Invoke: exprs_names(s.invoke.args, out); return;
    case Stmt::Kind::Return: out.insert(out.end(), s.returns.begin(), s.returns.end()); return;
    case Stmt::Kind::For:
    case Stmt::Kind::If:
      expr_names(s.lo, out);
      expr_names(s.hi, out);
      if (s.kind == Stmt::Kind::For) expr_names(s.step, out);
      for (const Stmt& b : s.body) stmt_names(b, out);
      for (const Stmt& b : s.else_body) stmt_names(b, out);
      return;
  }
}

using ir::invoke_of;  // the launch of a statement (call or submit), or nullptr

bool is_create(const Stmt& s) { return s.kind == Stmt::Kind::Assign && std::holds_alternative<ir::CreateRhs>(s.rhs); }

// The literal value of a shape, when every extent is an integer literal.
std::optional<std::vector<int64_t>> literal_shape(const std::vector<Expr>& shape) {
  std::vector<int64_t> out;
  for (const Expr& e : shape) {
    if (e.kind != Expr::Kind::Int) return std::nullopt;
    out.push_back(e.value);
  }
  return out;
}

std::string tag_list(const std::vector<PlanTag>& tags) {
  std::string s;
  for (PlanTag t : tags) s += (s.empty() ? "" : ", ") + std::string(runtime::tag_name(t));
  return s;
}

std::string first_line(const runtime::PlanStmt& s) {
  std::string text = runtime::print_plan_stmt(s);
  if (size_t nl = text.find('\n'); nl != std::string::npos) text.resize(nl);
  return text;
}

class Layout {
 public:
  explicit Layout(const ir::Program& p) : program_(p) {
    for (const ir::Function& f : p.functions) functions_.emplace(f.name, &f);
  }

  Verdict run(const runtime::OrchProgram& plan) {
    std::vector<const ir::Function*> graphs;
    const ir::Function* entry = nullptr;
    for (const ir::Function& f : program_.functions) {
      if (f.kind == ir::Function::Kind::Graph) graphs.push_back(&f);
      if (f.kind == ir::Function::Kind::Orchestration && entry == nullptr) entry = &f;
    }
    if (entry == nullptr) return Verdict::fail(kRule, "the legalized program has no entry");
    if (plan.graphs.size() != graphs.size())
      return Verdict::fail(kRule, fmt::format("{} IR graphs, but the plan defines {} graphs", graphs.size(),
                                              plan.graphs.size()));
    for (size_t g = 0; g < graphs.size(); ++g)
      if (const std::string why = graph_name(*graphs[g], plan.graphs[g].name); !why.empty())
        return Verdict::fail(kRule, fmt::format("graph {} '{}' is named '{}' in the plan: {}", g, graphs[g]->name,
                                                plan.graphs[g].name, why));
    for (size_t g = 0; g < graphs.size(); ++g) {
      const ir::Function& f = *graphs[g];
      const runtime::PlanGraph& pg = plan.graphs[g];
      begin_function(f);
      size_t tensors = 0;
      for (const ir::Param& p : f.params) tensors += p.type.is_tensor() ? 1 : 0;
      if (pg.params.size() != tensors)
        return fail_at(f.body, fmt::format("plan graph '{}' has {} params, predicted {} (its tensor params)", pg.name,
                                           pg.params.size(), tensors)),
               verdict_;
      if (!list(f.body, pg.body, 0, pg.body.size())) return verdict_;
    }
    begin_function(*entry);
    const runtime::PlanBlock& body = plan.body;
    if (!scoped(f_->body, body, f_->loc)) return verdict_;
    list(f_->body, body, 1, body.size() - 1);
    return verdict_;
  }

 private:
  static constexpr const char* kRule = "codegen-layout";

  // A graph keeps its name when that is a `.plan` name; a keyword gets a suffix (codegen's
  // rule; COMPILER.md leaves the spelling open): a `.plan` name that begins with the IR name,
  // is no IR function's and no other graph's. Records the name for the submit_graphs.
  std::string graph_name(const ir::Function& g, const std::string& got) {
    std::string why;
    if (runtime::is_plan_name(g.name)) {
      if (got != g.name) why = "a .plan name must be kept";
    } else if (!runtime::is_plan_name(got) || got.rfind(g.name, 0) != 0 || got.size() == g.name.size()) {
      why = "a keyword's new name must be a .plan name that extends it";
    } else if (functions_.count(got) != 0) {
      why = "the new name is an IR function's";
    }
    for (const auto& [ir_name, plan_name] : plan_names_)
      if (plan_name == got) why = fmt::format("graph '{}' has that name too", ir_name);
    if (why.empty()) plan_names_.emplace(g.name, got);
    return why;
  }

  bool fail_at(const std::vector<Stmt>& l, const std::string& what) {
    verdict_ = Verdict::fail(kRule, fmt::format("'{}', the statement list {}: {}", f_->name,
                                                l.empty() ? std::string("(empty)")
                                                          : fmt::format("opening at line {}", l.front().loc.line),
                                                what));
    return false;
  }

  static bool same_loc(const runtime::PlanLoc& p, const ir::Loc& l) {
    return p.line == l.line && p.column == l.column;
  }

  // An entry body or an entry loop's body: scope_begin and scope_end around the list, both
  // located at the owner (the function, or the loop statement).
  bool scoped(const std::vector<Stmt>& l, const runtime::PlanBlock& b, ir::Loc owner) {
    const auto is = [&](size_t i, bool begin) {
      return (begin ? std::holds_alternative<runtime::ScopeBeginStmt>(b[i].node)
                    : std::holds_alternative<runtime::ScopeEndStmt>(b[i].node)) &&
             same_loc(b[i].loc, owner);
    };
    if (b.size() < 2 || !is(0, true) || !is(b.size() - 1, false))
      return fail_at(l, fmt::format("the plan block is not wrapped in scope_begin/scope_end located at {}:{}",
                                    owner.line, owner.column));
    return true;
  }

  // COMPILER.md §6: a create is fresh when its first use in its own list is a kernel launch
  // passing it unviewed to a builtin-written Out param and to no other param. Records, for
  // each fresh create of `l`, the launch that binds it.
  void fresh_creates(const std::vector<Stmt>& l) {
    std::set<std::string> pending;
    for (const Stmt& s : l) {
      if (!pending.empty()) {
        std::vector<std::string> used;
        stmt_names(s, used);
        for (const std::string& n : used)
          if (pending.erase(n) != 0 && binds_fresh(s, n)) fresh_at_[n] = &s;
      }
      if (is_create(s)) pending.insert(s.name);
    }
  }

  bool binds_fresh(const Stmt& s, const std::string& name) const {
    const ir::Invoke* inv = invoke_of(s);
    const ir::Function* k = inv ? function(inv->callee) : nullptr;
    if (k == nullptr || k->kind != ir::Function::Kind::Kernel || inv->args.size() != k->params.size()) return false;
    const Signature* sig = signature(k->builtin);
    if (sig == nullptr) return false;
    int slot = -1;
    for (size_t i = 0; i < inv->args.size(); ++i) {
      std::vector<std::string> names;
      expr_names(inv->args[i], names);
      if (std::find(names.begin(), names.end(), name) == names.end()) continue;
      if (slot >= 0 || inv->args[i].kind != Expr::Kind::Var || static_cast<int>(i) != sig->out ||
          k->params[i].dir != ir::Dir::Out || !k->params[i].type.is_tensor())
        return false;
      slot = static_cast<int>(i);
    }
    return slot >= 0;
  }

  const ir::Function* function(const std::string& name) const {
    auto it = functions_.find(name);
    return it == functions_.end() ? nullptr : it->second;
  }

  // The plan block b[begin, end) lowers the IR list l.
  bool list(const std::vector<Stmt>& l, const runtime::PlanBlock& b, size_t begin, size_t end) {
    fresh_creates(l);
    size_t i = begin;
    if (!allocs(l, b, i, end)) return false;
    for (const Stmt& s : l) {
      if (!expects_statement(s)) continue;
      while (i < end && skipped(b[i])) ++i;
      if (i == end) return fail_at(l, fmt::format("no plan statement for the IR statement at line {}", s.loc.line));
      if (!statement(l, s, b[i])) return false;
      ++i;
    }
    for (; i < end; ++i)
      if (!skipped(b[i]))
        return fail_at(l, fmt::format("the plan statement '{}' lowers no IR statement of the list", first_line(b[i])));
    return true;
  }

  // The leading allocs: the list's non-fresh creates in definition order, 16 a statement, each
  // alloc located at its first create; no other alloc in the block.
  bool allocs(const std::vector<Stmt>& l, const runtime::PlanBlock& b, size_t& i, size_t end) {
    std::vector<const Stmt*> creates;
    for (const Stmt& s : l)
      if (is_create(s) && fresh_at_.count(s.name) == 0) creates.push_back(&s);
    for (size_t c = 0; c < creates.size(); c += kBuffersPerAlloc, ++i) {
      const size_t n = std::min(kBuffersPerAlloc, creates.size() - c);
      const auto* a = i < end ? std::get_if<runtime::AllocStmt>(&b[i].node) : nullptr;
      if (a == nullptr || a->buffers.size() != n)
        return fail_at(l, fmt::format("predicted an alloc of {} buffers (non-fresh creates {}..{} of {}), found {}", n,
                                      c + 1, c + n, creates.size(), i < end ? "'" + first_line(b[i]) + "'" : "none"));
      if (!same_loc(b[i].loc, creates[c]->loc))
        return fail_at(l, fmt::format("the alloc '{}' is located at {}:{}, not at its first create's {}:{}",
                                      first_line(b[i]), b[i].loc.line, b[i].loc.column, creates[c]->loc.line,
                                      creates[c]->loc.column));
      for (size_t k = 0; k < n; ++k) {
        const auto shape = literal_shape(std::get<ir::CreateRhs>(creates[c + k]->rhs).shape);
        if (shape && *shape != a->buffers[k].shape)
          return fail_at(l, fmt::format("alloc buffer {} of '{}' has not the shape of create '{}' (line {})", k,
                                        first_line(b[i]), creates[c + k]->name, creates[c + k]->loc.line));
      }
    }
    for (size_t k = i; k < end; ++k)
      if (std::holds_alternative<runtime::AllocStmt>(b[k].node))
        return fail_at(l, fmt::format("an alloc '{}' past the list's opening allocs ({} non-fresh creates, {} fresh in the function)",
                                      first_line(b[k]), creates.size(), fresh_at_.size()));
    return true;
  }

  // The plan statements this oracle does not pair with IR statements.
  static bool skipped(const runtime::PlanStmt& s) {
    return std::holds_alternative<runtime::SetStmt>(s.node) || std::holds_alternative<runtime::ViewStmt>(s.node) ||
           std::holds_alternative<runtime::ReadStmt>(s.node);
  }

  bool expects_statement(const Stmt& s) const {
    if (s.kind == Stmt::Kind::For || s.kind == Stmt::Kind::If) return true;
    if (invoke_of(s) != nullptr) return true;
    return s.kind == Stmt::Kind::Assign &&
           (std::holds_alternative<ir::FullRhs>(s.rhs) || std::holds_alternative<ir::AssembleRhs>(s.rhs));
  }

  // The predicted submit of a launch, `full` or `assemble`: builtin (or graph), tags, shapes
  // of its outputs where literal.
  struct Submit {
    bool graph = false;
    std::string callee;
    std::vector<PlanTag> tags;
    std::vector<std::optional<std::vector<int64_t>>> outputs;
  };

  std::optional<Submit> predict(const Stmt& s) const {
    Submit p;
    if (const auto* fu = std::get_if<ir::FullRhs>(&s.rhs); fu && s.kind == Stmt::Kind::Assign) {
      p.callee = "fill";
      p.tags = {PlanTag::Output, PlanTag::Scalar};
      p.outputs.push_back(literal_shape(fu->shape));
      return p;
    }
    if (s.kind == Stmt::Kind::Assign && std::holds_alternative<ir::AssembleRhs>(s.rhs)) {
      p.callee = "copy";
      p.tags = {PlanTag::Input, PlanTag::OutputExisting};
      return p;
    }
    const ir::Invoke* inv = invoke_of(s);
    const ir::Function* f = function(inv->callee);
    if (f == nullptr || inv->args.size() != f->params.size()) return std::nullopt;
    std::vector<PlanTag> scalars;
    if (f->kind == ir::Function::Kind::Graph) {
      p.graph = true;
      p.callee = plan_names_.at(f->name);
      for (const ir::Param& q : f->params)
        (q.type.is_tensor() ? p.tags : scalars).push_back(!q.type.is_tensor()    ? PlanTag::Scalar
                                                           : q.dir == ir::Dir::In ? PlanTag::Input
                                                                                  : PlanTag::Inout);
    } else {
      const Signature* sig = signature(f->builtin);
      if (sig == nullptr) return std::nullopt;
      p.callee = std::string(sig->name);
      for (size_t i = 0; i < sig->tensor.size() && i < f->params.size(); ++i) {  // extras are not passed
        const ir::Param& q = f->params[i];
        if (!sig->tensor[i]) {
          scalars.push_back(PlanTag::Scalar);
          continue;
        }
        const Expr& a = inv->args[i];
        auto fresh = a.kind == Expr::Kind::Var ? fresh_at_.find(a.name) : fresh_at_.end();
        if (q.dir == ir::Dir::Out && fresh != fresh_at_.end() && fresh->second == &s) {
          p.tags.push_back(PlanTag::Output);
          p.outputs.push_back(create_shape(a.name));
        } else {
          p.tags.push_back(q.dir == ir::Dir::In      ? PlanTag::Input
                           : q.dir == ir::Dir::InOut ? PlanTag::Inout
                                                     : PlanTag::OutputExisting);
        }
      }
    }
    p.tags.insert(p.tags.end(), scalars.begin(), scalars.end());
    return p;
  }

  std::optional<std::vector<int64_t>> create_shape(const std::string& name) const {
    auto it = creates_.find(name);
    return it == creates_.end() ? std::nullopt : literal_shape(it->second->shape);
  }

  bool statement(const std::vector<Stmt>& l, const Stmt& s, const runtime::PlanStmt& b) {
    if (!same_loc(b.loc, s.loc))
      return fail_at(l, fmt::format("the plan statement '{}' is located at {}:{}, not at its IR statement's {}:{}",
                                    first_line(b), b.loc.line, b.loc.column, s.loc.line, s.loc.column));
    if (s.kind == Stmt::Kind::For) {
      const auto* f = std::get_if<runtime::ForStmt>(&b.node);
      if (f == nullptr) return fail_at(l, fmt::format("the loop at line {} lowers to '{}'", s.loc.line, first_line(b)));
      if (f_->kind == ir::Function::Kind::Graph) return list(s.body, f->body, 0, f->body.size());
      return scoped(s.body, f->body, s.loc) && list(s.body, f->body, 1, f->body.size() - 1);
    }
    if (s.kind == Stmt::Kind::If) {
      const auto* f = std::get_if<runtime::IfStmt>(&b.node);
      if (f == nullptr) return fail_at(l, fmt::format("the if at line {} lowers to '{}'", s.loc.line, first_line(b)));
      return list(s.body, f->then_body, 0, f->then_body.size()) &&
             list(s.else_body, f->else_body, 0, f->else_body.size());
    }
    const std::optional<Submit> want = predict(s);
    if (!want) return fail_at(l, fmt::format("the launch at line {} names no known kernel or graph", s.loc.line));
    std::vector<PlanTag> tags;
    std::vector<std::vector<int64_t>> outputs;
    std::string callee;
    bool graph = false;
    if (const auto* sub = std::get_if<runtime::SubmitStmt>(&b.node)) {
      callee = runtime::builtin_name(sub->builtin);
      for (const runtime::PlanArg& a : sub->args) {
        tags.push_back(a.tag);
        if (a.tag == PlanTag::Output) outputs.push_back(a.out_shape);
      }
    } else if (const auto* g = std::get_if<runtime::SubmitGraphStmt>(&b.node)) {
      graph = true;
      callee = g->graph;
      for (const runtime::PlanArg& a : g->args) tags.push_back(a.tag);
    } else {
      return fail_at(l, fmt::format("the IR statement at line {} lowers to '{}', not a submit", s.loc.line,
                                    first_line(b)));
    }
    if (graph != want->graph || callee != want->callee || tags != want->tags)
      return fail_at(l, fmt::format("the IR statement at line {}: predicted {} {}({}), found '{}'", s.loc.line,
                                    want->graph ? "submit_graph" : "submit", want->callee, tag_list(want->tags),
                                    first_line(b)));
    for (size_t k = 0; k < outputs.size() && k < want->outputs.size(); ++k)
      if (want->outputs[k] && *want->outputs[k] != outputs[k])
        return fail_at(l, fmt::format("the IR statement at line {}: output {} of '{}' has not its create's shape",
                                      s.loc.line, k, first_line(b)));
    return true;
  }

  // Names are defined once per function (COMPILER.md §1): a function's creates and fresh
  // creates are keyed by name.
  void begin_function(const ir::Function& f) {
    f_ = &f;
    fresh_at_.clear();
    creates_.clear();
    note_creates(f.body);
  }

  void note_creates(const std::vector<Stmt>& l) {
    for (const Stmt& s : l) {
      if (is_create(s)) creates_[s.name] = &std::get<ir::CreateRhs>(s.rhs);
      note_creates(s.body);
      note_creates(s.else_body);
    }
  }

  const ir::Program& program_;
  std::unordered_map<std::string, const ir::Function*> functions_;
  std::map<std::string, std::string> plan_names_;  // IR graph name -> plan graph name
  const ir::Function* f_ = nullptr;
  std::unordered_map<std::string, const Stmt*> fresh_at_;  // fresh create -> the launch binding it
  std::unordered_map<std::string, const ir::CreateRhs*> creates_;
  Verdict verdict_;
};

}  // namespace

Verdict check_codegen_layout(const ir::Program& legalized, const runtime::OrchProgram& plan) {
  return Layout(legalized).run(plan);
}

}  // namespace stackcheck::oracles
