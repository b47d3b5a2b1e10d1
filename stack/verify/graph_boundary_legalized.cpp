#include "stack/verify/graph_boundary_legalized.h"

#include "stack/defects/defects.h"
#include "stack/ir/invariance.h"
#include "stack/ir/printer.h"
#include "stack/ir/rpi.h"
#include "stack/ir/walk.h"
#include "stack/support/arena.h"
#include "stack/support/limits.h"

#include <fmt/format.h>

#include <algorithm>
#include <memory_resource>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <variant>
#include <vector>

namespace stackcheck::verify {

namespace {

constexpr const char* kRule = "GraphBoundaryLegalized";
constexpr size_t kTensorParamLimit = support::kGraphMaxTensors;
constexpr size_t kScalarParamLimit = support::kGraphMaxScalars;
constexpr uint64_t kNodeLimit = support::kGraphMaxNodes;

using Dims = ir::Dims;

// What the verifier knows of one name of a function (first definition wins).
struct NameInfo {
  enum class Kind : uint8_t { Scalar, Tensor, Tuple } kind = Kind::Scalar;
  std::optional<Dims> dims;              // Tensor, when statically known
  std::optional<int64_t> value;          // Scalar bound to a static expression
  const ir::Function* callee = nullptr;  // Tuple: the callee whose results it holds
  bool param = false;
};

// The program under check and the check's scratch: every table below is keyed by views of
// the program's names (the check never edits it) and takes its nodes from the arena.
class Program {
 public:
  explicit Program(const ir::Program& p) : p_(p), rpi_(p) {
    for (const ir::Function& f : p.functions) by_name_.emplace(f.name, &f);
  }
  const ir::Function* find(std::string_view n) const {
    auto it = by_name_.find(n);
    return it == by_name_.end() ? nullptr : it->second;
  }
  std::pmr::memory_resource* scratch() const { return arena_.resource(); }
  bool kernel(std::string_view n) const {
    const ir::Function* f = find(n);
    return f != nullptr && f->kind == ir::Function::Kind::Kernel;
  }
  const ir::Program& ir() const { return p_; }
  const ir::RpiTable& rpi() const { return rpi_; }

 private:
  const ir::Program& p_;
  ir::RpiTable rpi_;
  mutable support::InlineArena<16384> arena_;
  std::pmr::unordered_map<std::string_view, const ir::Function*> by_name_{arena_.resource()};
};

// Type of result j of `f`: a kernel's j-th returned param, a graph's j-th result.
const ir::Type* result_of(const ir::Function& f, size_t j) {
  if (f.kind == ir::Function::Kind::Graph) return j < f.results.size() ? &f.results[j] : nullptr;
  if (f.kind != ir::Function::Kind::Kernel || j >= f.kernel_returns.size()) return nullptr;
  auto it =
      std::find_if(f.params.begin(), f.params.end(), [&](const ir::Param& p) { return p.name == f.kernel_returns[j]; });
  return it == f.params.end() ? nullptr : &it->type;
}

size_t results_of(const ir::Function& f) {
  if (f.kind == ir::Function::Kind::Kernel) return f.kernel_returns.size();
  if (f.kind == ir::Function::Kind::Graph) return f.results.size();
  return 0;
}

// The names of one function and their kinds, dims and static values.
class Names {
 public:
  Names(const Program& prog, const ir::Function& f) : prog_(prog), names_(prog.scratch()) {
    for (const ir::Param& p : f.params) {
      NameInfo n;
      n.param = true;
      if (p.type.is_tensor()) {
        n.kind = NameInfo::Kind::Tensor;
        n.dims = p.type.dims;
      }
      names_.emplace(p.name, std::move(n));
    }
    define_all(f.body);
  }

  const NameInfo* find(std::string_view n) const {
    auto it = names_.find(n);
    return it == names_.end() ? nullptr : &it->second;
  }
  bool tensor(std::string_view n) const {
    const NameInfo* i = find(n);
    return i != nullptr && i->kind == NameInfo::Kind::Tensor;
  }
  bool scalar_param(std::string_view n) const {
    const NameInfo* i = find(n);
    return i != nullptr && i->param && i->kind == NameInfo::Kind::Scalar;
  }
  ir::DimsOf dims_of() const {
    return [this](std::string_view n) -> const Dims* {
      const NameInfo* i = find(n);
      return i != nullptr && i->dims ? &*i->dims : nullptr;
    };
  }
  ir::ValueOf value_of() const {
    return [this](std::string_view n) -> std::optional<int64_t> {
      const NameInfo* i = find(n);
      return i != nullptr ? i->value : std::nullopt;
    };
  }

 private:
  NameInfo tensor_info(const Dims* d) const {
    NameInfo n;
    n.kind = NameInfo::Kind::Tensor;
    if (d != nullptr) n.dims = *d;
    return n;
  }
  NameInfo result(const ir::Function* f, size_t j) const {
    const ir::Type* t = f != nullptr ? result_of(*f, j) : nullptr;
    return tensor_info(t != nullptr && t->is_tensor() ? &t->dims : nullptr);
  }
  std::optional<Dims> shape(const std::vector<ir::Expr>& es) const {
    Dims d;
    for (const ir::Expr& e : es) {
      const ir::EvalResult r = ir::evaluate(e, dims_of(), value_of());
      if (!r.ok()) return std::nullopt;
      d.push_back(r.value);
    }
    return d;
  }

  std::optional<NameInfo> define(const ir::Stmt& s) const {
    return std::visit(
        [&](const auto& r) -> std::optional<NameInfo> {
          using R = std::decay_t<decltype(r)>;
          if constexpr (std::is_same_v<R, ir::ExprRhs>) {
            if (r.expr.kind == ir::Expr::Kind::Var) {
              if (const NameInfo* src = find(r.expr.name); src != nullptr && src->kind != NameInfo::Kind::Scalar) {
                NameInfo copy = *src;
                copy.param = false;
                return copy;
              }
            }
            NameInfo n;
            const ir::EvalResult v = ir::evaluate(r.expr, dims_of(), value_of());
            if (v.ok()) n.value = v.value;
            return n;
          } else if constexpr (std::is_same_v<R, ir::InvokeRhs>) {
            const ir::Function* f = prog_.find(r.invoke.callee);
            const size_t count = f != nullptr ? results_of(*f) : 0;
            if (r.invoke.submit || count >= 2) {
              NameInfo n;
              n.kind = NameInfo::Kind::Tuple;
              n.callee = f;
              return n;
            }
            if (count == 1) return result(f, 0);
            return std::nullopt;
          } else if constexpr (std::is_same_v<R, ir::TupleGetRhs>) {
            const NameInfo* t = find(r.tuple);
            if (t == nullptr || t->kind != NameInfo::Kind::Tuple || r.index < 0) return std::nullopt;
            const size_t j = static_cast<size_t>(r.index);
            if (t->callee == nullptr || j >= results_of(*t->callee)) return NameInfo{};  // task id
            return result(t->callee, j);
          } else if constexpr (std::is_same_v<R, ir::CreateRhs> || std::is_same_v<R, ir::FullRhs>) {
            auto d = shape(r.shape);
            return tensor_info(d ? &*d : nullptr);
          } else if constexpr (std::is_same_v<R, ir::SliceRhs>) {
            return tensor_info(&r.sizes);
          } else {
            static_assert(std::is_same_v<R, ir::AssembleRhs>);
            const NameInfo* t = find(r.target);
            return tensor_info(t != nullptr && t->dims ? &*t->dims : nullptr);
          }
        },
        s.rhs);
  }

  void define_all(const std::vector<ir::Stmt>& body) {
    ir::walk_statements(body, [&](const ir::Stmt& s) {
      if (s.kind == ir::Stmt::Kind::Assign) {
        if (auto n = define(s)) names_.emplace(s.name, std::move(*n));
      } else if (s.kind == ir::Stmt::Kind::For) {
        names_.emplace(s.name, NameInfo{});
      }
    });
  }

  const Program& prog_;
  std::pmr::unordered_map<std::string_view, NameInfo> names_;
};

// §4 node count of one statement list of a graph: per open list, its launches, its creates
// (ceil(n/16) together) and what its loops (trips x body) and ifs (both lists) hold.
class NodeCount {
 public:
  NodeCount(const Program& prog, const ir::DimsOf& dims) : prog_(prog), dims_(dims) {}

  void enter_block(const std::vector<ir::Stmt>&, const ir::Place&) { lists_.emplace_back(); }
  void visit(const ir::Stmt& s, const ir::Place&) {
    ListCount& c = lists_.back();
    if (const ir::Invoke* inv = ir::invoke_of(s); inv != nullptr && prog_.kernel(inv->callee)) ++c.launches;
    if (s.kind == ir::Stmt::Kind::Assign) {
      if (std::holds_alternative<ir::AssembleRhs>(s.rhs)) ++c.launches;
      if (std::holds_alternative<ir::CreateRhs>(s.rhs)) ++c.creates;
    }
  }
  void leave_block(const std::vector<ir::Stmt>&, const ir::Place& at) {
    const ListCount c = lists_.back();
    lists_.pop_back();
    const uint64_t n =
        ir::sat_add(ir::sat_add(c.launches, c.nested),
                    c.creates / support::kAllocMaxBuffers + (c.creates % support::kAllocMaxBuffers != 0 ? 1 : 0));
    if (at.owner == nullptr) {
      total_ = n;
      return;
    }
    uint64_t held = n;
    if (at.owner->kind == ir::Stmt::Kind::For) {
      const std::optional<uint64_t> trips = ir::constant_trips(*at.owner, dims_);
      if (trips.has_value()) held = ir::sat_mul(*trips, n);
    }
    lists_.back().nested = ir::sat_add(lists_.back().nested, held);
  }
  uint64_t total() const { return total_; }

 private:
  struct ListCount {
    uint64_t launches = 0, creates = 0, nested = 0;
  };
  const Program& prog_;
  const ir::DimsOf& dims_;
  std::vector<ListCount> lists_;
  uint64_t total_ = 0;
};

uint64_t nodes_in(const Program& prog, const std::vector<ir::Stmt>& body, const ir::DimsOf& dims) {
  NodeCount count(prog, dims);
  ir::walk_statements(body, count);
  return count.total();
}

ir::Loc loc_or(ir::Loc a, ir::Loc b) { return a.line != 0 ? a : b; }

// Checks one graph; diagnostics go to `out`.
class GraphCheck {
 public:
  GraphCheck(const Program& prog, const ir::Function& g, ir::Diagnostics& out)
      : prog_(prog), g_(g), names_(prog, g), out_(out) {}

  uint64_t run() {
    params();
    body(g_.body);
    returns();
    const uint64_t nodes = nodes_in(prog_, g_.body, names_.dims_of());
    if (nodes == 0 || nodes > kNodeLimit) {
      report(216, g_.loc, fmt::format("graph '{}' has {} nodes; a graph needs 1..{}", g_.name, nodes, kNodeLimit));
    }
    return nodes;
  }

 private:
  void report(int code, ir::Loc loc, std::string msg) {
    out_.push_back(ir::Diagnostic{kRule, code, ir::Location{g_.name, loc.line, loc.column}, std::move(msg)});
  }

  void params() {
    size_t tensors = 0, scalars = 0;
    for (const ir::Param& p : g_.params) {
      if (p.type.is_tensor()) {
        ++tensors;
        if (p.dir == ir::Dir::Out) report(202, p.loc, fmt::format("tensor param '{}' is Out", p.name));
      } else {
        ++scalars;
        if (p.dir != ir::Dir::In) report(201, p.loc, fmt::format("scalar param '{}' is not In", p.name));
      }
    }
    if (tensors == 0) report(203, g_.loc, "no tensor param: the boundary is empty");
    if (tensors > kTensorParamLimit) {
      report(204, g_.loc, fmt::format("{} tensor params exceed {}", tensors, kTensorParamLimit));
    }
    if (scalars > kScalarParamLimit) {
      report(205, g_.loc, fmt::format("{} scalar params exceed {}", scalars, kScalarParamLimit));
    }
  }

  // Replay-invariance (§3) with the names seen so far.
  bool invariant(const ir::Expr& e) const {
    bool ok = true;
    ir::for_each_subexpr(e, [&](const ir::Expr& x) {
      if (x.kind == ir::Expr::Kind::Read || (x.kind == ir::Expr::Kind::Binary && x.args.size() != 2)) {
        ok = false;
      } else if (x.kind == ir::Expr::Kind::Var) {
        auto it = invariant_.find(x.name);
        ok = ok && it != invariant_.end() && it->second;
      }
    });
    return ok;
  }

  bool holds_nodes(const std::vector<ir::Stmt>& b) const { return nodes_in(prog_, b, names_.dims_of()) > 0; }

  void launch(const ir::Stmt& s, const ir::Invoke& inv) {
    const ir::Function* callee = prog_.find(inv.callee);
    if (callee == nullptr) return;
    if (callee->kind == ir::Function::Kind::Graph) {
      report(208, loc_or(inv.loc, s.loc), fmt::format("graph '{}' calls graph '{}'", g_.name, inv.callee));
      return;
    }
    if (callee->kind != ir::Function::Kind::Kernel) return;
    if (!arguments_match(inv, *callee)) {
      report(210, loc_or(inv.loc, s.loc),
             fmt::format("launch of '{}' passes {} arguments for {} params (only a trailing run of Out params may "
                         "be left out)",
                         inv.callee, inv.args.size(), callee->params.size()));
    }
    const size_t n = std::min(inv.args.size(), callee->params.size());
    for (size_t i = 0; i < n; ++i) {
      if (callee->params[i].type.is_tensor()) continue;
      const ir::Expr& a = inv.args[i];
      if (a.kind == ir::Expr::Kind::Var && names_.scalar_param(a.name)) continue;
      if (invariant(a)) continue;
      report(213, loc_or(a.loc, s.loc),
             fmt::format("scalar argument '{}' of '{}' is neither a scalar param nor invariant", ir::print_expr(a),
                         inv.callee));
    }
  }

  // A launch passes every param, or leaves out only a trailing run of Out params (results
  // the kernel creates); anything else leaves a param the recorded node never binds.
  static bool arguments_match(const ir::Invoke& inv, const ir::Function& kernel) {
    if (inv.args.size() > kernel.params.size()) return false;
    for (size_t i = inv.args.size(); i < kernel.params.size(); ++i) {
      if (kernel.params[i].dir != ir::Dir::Out) return false;
    }
    return true;
  }

  void offsets(int code, const ir::Stmt& s, const std::vector<ir::Expr>& offs, const char* what) {
    for (const ir::Expr& o : offs) {
      if (invariant(o)) continue;
      report(code, s.loc,
             fmt::format("{} '{}' has offset '{}' that is not replay-invariant", what, s.name, ir::print_expr(o)));
      return;
    }
  }

  void body(const std::vector<ir::Stmt>& list) {
    ir::walk_statements(list, [&](const ir::Stmt& s) { statement(s); });
  }

  // One statement, before the lists it holds (a forward walk: invariance of a name depends
  // only on what precedes it).
  void statement(const ir::Stmt& s) {
    ir::for_each_expr(s, [&](const ir::Expr& top) {
      ir::for_each_subexpr(top, [&](const ir::Expr& e) {
        if (e.kind == ir::Expr::Kind::Read)
          report(217, loc_or(e.loc, s.loc), fmt::format("read of '{}' in a graph", e.name));
      });
    });
    if (const ir::Invoke* inv = ir::invoke_of(s)) launch(s, *inv);
    switch (s.kind) {
      case ir::Stmt::Kind::Assign: assign(s); break;
      case ir::Stmt::Kind::For:
        if (!ir::constant_trips(s, names_.dims_of()) && holds_nodes(s.body)) {
          report(214, s.loc, fmt::format("loop '{}' holds nodes without constant trips", s.name));
        }
        invariant_.emplace(s.name, ir::constant_trips(s, names_.dims_of()).has_value());
        break;
      case ir::Stmt::Kind::If:
        if (holds_nodes(s.body) || holds_nodes(s.else_body)) report(215, s.loc, "if holds nodes");
        break;
      case ir::Stmt::Kind::Invoke:
      case ir::Stmt::Kind::Return: break;
    }
  }

  void assign(const ir::Stmt& s) {
    if (const auto* e = std::get_if<ir::ExprRhs>(&s.rhs)) {
      invariant_.emplace(s.name, !names_.tensor(s.name) && invariant(e->expr));
    } else if (std::holds_alternative<ir::FullRhs>(s.rhs)) {
      report(206, s.loc, fmt::format("full '{}' in a graph", s.name));
    } else if (const auto* c = std::get_if<ir::CreateRhs>(&s.rhs)) {
      if (!std::all_of(c->shape.begin(), c->shape.end(), [](const ir::Expr& x) { return ir::is_literal(x); })) {
        report(207, s.loc, fmt::format("create '{}' has a shape that is not literal", s.name));
      }
    } else if (const auto* sl = std::get_if<ir::SliceRhs>(&s.rhs)) {
      // Zoo: views of rebound names (writebacks, tuple elements) go unjudged.
      if (!(defects::active(defects::Defect::kVerifierBlindToRebinds) && rebound_.count(sl->source) != 0))
        offsets(211, s, sl->offsets, "view");
    } else if (defects::active(defects::Defect::kVerifierBlindToRebinds) &&
               (std::holds_alternative<ir::InvokeRhs>(s.rhs) || std::holds_alternative<ir::TupleGetRhs>(s.rhs))) {
      rebound_.insert(s.name);
    } else if (const auto* a = std::get_if<ir::AssembleRhs>(&s.rhs)) {
      offsets(212, s, a->offsets, "assemble");
    }
  }

  // 209: each name of the last top-level return must trace (lineage, §5.2) to a param.
  void returns() {
    auto ret = std::find_if(g_.body.rbegin(), g_.body.rend(),
                            [](const ir::Stmt& s) { return s.kind == ir::Stmt::Kind::Return; });
    if (ret == g_.body.rend()) return;
    const ir::Lineage lineage(g_, prog_.rpi());
    for (const std::string& r : ret->returns) {
      if (!lineage.param_of(r)) {
        report(209, ret->loc, fmt::format("return '{}' does not trace to a param", r));
      }
    }
  }

  const Program& prog_;
  const ir::Function& g_;
  const Names names_;
  ir::Diagnostics& out_;
  std::pmr::unordered_map<std::string_view, bool> invariant_{prog_.scratch()};  // scalar name -> replay-invariant
  std::pmr::unordered_set<std::string_view> rebound_{prog_.scratch()};          // zoo only: writebacks, tuple elements
};

// 210 at every call of a graph in f. (208 for a graph calling a graph is reported by the
// calling graph's own check: graphs are the only callers besides the entry.)
void check_calls(const Program& prog, const ir::Function& f, ir::Diagnostics& out) {
  std::optional<Names> names;  // built at the first graph call
  auto report = [&](ir::Loc loc, std::string msg) {
    out.push_back(ir::Diagnostic{kRule, 210, ir::Location{f.name, loc.line, loc.column}, std::move(msg)});
  };
  auto call = [&](const ir::Stmt& s, const ir::Invoke& inv, const ir::Function& g) {
    const ir::Loc loc = loc_or(inv.loc, s.loc);
    if (inv.args.size() != g.params.size()) {
      report(loc, fmt::format("'{}' takes {} params but the call passes {} arguments", g.name, g.params.size(),
                              inv.args.size()));
      return;
    }
    if (!names) names.emplace(prog, f);
    for (size_t i = 0; i < g.params.size(); ++i) {
      const ir::Param& p = g.params[i];
      const ir::Expr& a = inv.args[i];
      const bool is_tensor = a.kind == ir::Expr::Kind::Var && names->tensor(a.name);
      bool ok = !is_tensor;
      if (p.type.is_tensor()) {
        const NameInfo* n = is_tensor ? names->find(a.name) : nullptr;
        ok = n != nullptr && n->dims && *n->dims == p.type.dims;
      }
      if (!ok) {
        report(loc, fmt::format("argument '{}' does not match param '{}: {}' of '{}'", ir::print_expr(a), p.name,
                                ir::print_type(p.type), g.name));
      }
    }
  };
  ir::walk_statements(f.body, [&](const ir::Stmt& s) {
    if (const ir::Invoke* inv = ir::invoke_of(s)) {
      const ir::Function* g = prog.find(inv->callee);
      if (g != nullptr && g->kind == ir::Function::Kind::Graph) call(s, *inv, *g);
    }
  });
}

}  // namespace

ir::Diagnostics check_graph_boundary_legalized(const ir::Program& p) {
  const Program prog(p);
  std::vector<std::pair<size_t, ir::Diagnostic>> found;
  for (size_t i = 0; i < p.functions.size(); ++i) {
    const ir::Function& f = p.functions[i];
    if (f.kind == ir::Function::Kind::Kernel) continue;
    ir::Diagnostics ds;
    if (f.kind == ir::Function::Kind::Graph) GraphCheck(prog, f, ds).run();
    check_calls(prog, f, ds);
    for (ir::Diagnostic& d : ds) found.emplace_back(i, std::move(d));
  }
  std::stable_sort(found.begin(), found.end(), [](const auto& a, const auto& b) {
    if (a.first != b.first) return a.first < b.first;
    const ir::Location& x = a.second.location;
    const ir::Location& y = b.second.location;
    return x.line != y.line ? x.line < y.line : x.column < y.column;
  });
  ir::Diagnostics out;
  for (auto& [i, d] : found) out.push_back(std::move(d));
  return out;
}

std::map<std::string, uint64_t> graph_node_counts(const ir::Program& p) {
  const Program prog(p);
  std::map<std::string, uint64_t> out;
  for (const ir::Function& f : p.functions) {
    if (f.kind != ir::Function::Kind::Graph || out.count(f.name) != 0) continue;
    const Names names(prog, f);
    out.emplace(f.name, nodes_in(prog, f.body, names.dims_of()));
  }
  return out;
}

}  // namespace stackcheck::verify
