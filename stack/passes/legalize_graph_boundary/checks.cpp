// LegalizeGraphBoundary, steps 1 and 5: the pass's own checks of the original graph
// (201-209, 217) and of its result (201-205, 210-216), and its own §4 node count.
#include "stack/passes/legalize_graph_boundary/internal.h"

#include "stack/defects/defects.h"
#include "stack/ir/printer.h"

#include <fmt/format.h>

namespace stackcheck::passes::graph_boundary {

namespace {

bool callee_is_kernel(const Context& ctx, const ir::Stmt& s) {
  const ir::Invoke* inv = ir::invoke_of(s);
  return inv != nullptr && ctx.is_kernel(inv->callee);
}

// The §4 count, one tally per open statement list: a list's nodes are its launches, its
// nested loops and ifs, and ceil(creates / 16).
class NodeCounter {
 public:
  NodeCounter(const Context& ctx, const ir::DimsOf& dims_of) : ctx_(ctx), dims_of_(dims_of) {}

  void enter_block(const std::vector<ir::Stmt>&, const ir::Place&) { open_.emplace_back(); }
  void visit(const ir::Stmt& s, const ir::Place&) {
    Tally& t = open_.back();
    if (s.kind == ir::Stmt::Kind::Assign && std::holds_alternative<ir::CreateRhs>(s.rhs)) ++t.creates;
    const bool assemble = s.kind == ir::Stmt::Kind::Assign && std::holds_alternative<ir::AssembleRhs>(s.rhs);
    if (assemble || callee_is_kernel(ctx_, s)) t.nodes = ir::sat_add(t.nodes, 1);
  }
  void leave_block(const std::vector<ir::Stmt>&, const ir::Place& at) {
    const Tally t = open_.back();
    open_.pop_back();
    uint64_t nodes = ir::sat_add(t.nodes, (t.creates + kCreatesPerNode - 1) / kCreatesPerNode);
    if (at.owner == nullptr) {
      total_ = nodes;
      return;
    }
    if (at.owner->kind == ir::Stmt::Kind::For) {
      // A loop without constant trips (214 when it holds nodes) counts as one trip.
      const auto trips = ir::constant_trips(*at.owner, dims_of_);
      if (trips) nodes = ir::sat_mul(*trips, nodes);
    }
    open_.back().nodes = ir::sat_add(open_.back().nodes, nodes);
  }
  uint64_t total() const { return total_; }

 private:
  struct Tally {
    uint64_t nodes = 0;
    uint64_t creates = 0;
  };
  const Context& ctx_;
  const ir::DimsOf& dims_of_;
  std::vector<Tally> open_;
  uint64_t total_ = 0;
};

}  // namespace

uint64_t count_nodes(const Context& ctx, const std::vector<ir::Stmt>& body, const ir::DimsOf& dims_of) {
  NodeCounter counter(ctx, dims_of);
  ir::walk_statements(body, counter);
  return counter.total();
}

void check_params(const ir::Function& g, ir::Diagnostics& out) {
  size_t tensors = 0, scalars = 0;
  for (const ir::Param& p : g.params) {
    if (p.type.is_tensor()) {
      ++tensors;
      if (p.dir == ir::Dir::Out) {
        out.push_back(make_diag(202, g, p.loc,
                                fmt::format("graph tensor param '{}' is Out; a buffer shared by "
                                            "replays must be InOut",
                                            p.name)));
      }
    } else {
      ++scalars;
      if (p.dir != ir::Dir::In) {
        out.push_back(make_diag(201, g, p.loc,
                                fmt::format("graph scalar param '{}' is {}, not In", p.name, ir::dir_name(p.dir))));
      }
    }
  }
  if (tensors == 0) {
    out.push_back(make_diag(203, g, g.loc, "graph has no tensor param (empty boundary)"));
  }
  if (tensors > kMaxTensorParams) {
    out.push_back(
        make_diag(204, g, g.loc, fmt::format("graph has {} tensor params (at most {})", tensors, kMaxTensorParams)));
  }
  if (scalars > kMaxScalarParams) {
    out.push_back(
        make_diag(205, g, g.loc, fmt::format("graph has {} scalar params (at most {})", scalars, kMaxScalarParams)));
  }
}

void check_original(const Context& ctx, const ir::Function& g, ir::Diagnostics& out) {
  check_params(g, out);
  ir::walk_statements(g.body, [&](const ir::Stmt& s) {
    if (s.kind == ir::Stmt::Kind::Assign) {
      // Zoo: `full` in a region let through.
      if (std::holds_alternative<ir::FullRhs>(s.rhs) && !defects::active(defects::Defect::kFullNotRejected)) {
        out.push_back(make_diag(206, g, s.loc, fmt::format("'full' in graph region ('{}')", s.name)));
      }
      if (const auto* c = std::get_if<ir::CreateRhs>(&s.rhs)) {
        for (const ir::Expr& e : c->shape) {
          if (!ir::is_literal(e)) {
            out.push_back(make_diag(
                207, g, s.loc, fmt::format("create '{}' has a non-literal extent '{}'", s.name, ir::print_expr(e))));
            break;
          }
        }
      }
    }
    if (const ir::Invoke* inv = ir::invoke_of(s); inv != nullptr && ctx.is_graph(inv->callee)) {
      out.push_back(make_diag(208, g, inv->loc.line != 0 ? inv->loc : s.loc,
                              fmt::format("graph calls graph '{}' (graphs are called only "
                                          "from the entry)",
                                          inv->callee)));
    }
    ir::for_each_expr(s, [&](const ir::Expr& top) {
      ir::for_each_subexpr(top, [&](const ir::Expr& e) {
        if (e.kind == ir::Expr::Kind::Read) {
          out.push_back(
              make_diag(217, g, e.loc.line != 0 ? e.loc : s.loc, fmt::format("'read' of '{}' in a graph", e.name)));
        }
      });
    });
  });
  // 209: returns of the graph (its last top-level return) must trace to params.
  const ir::ReturnParams& rpi = ctx.rpi().of(g);
  for (size_t i = g.body.size(); i-- > 0;) {
    const ir::Stmt& r = g.body[i];
    if (r.kind != ir::Stmt::Kind::Return) continue;
    for (size_t j = 0; j < r.returns.size() && j < rpi.size(); ++j) {
      if (!rpi[j]) {
        out.push_back(make_diag(209, g, r.loc, fmt::format("return '{}' is not traceable to a param", r.returns[j])));
      }
    }
    break;
  }
}

uint64_t check_result(const Context& ctx, const ir::Function& g, ir::Diagnostics& out) {
  check_params(g, out);
  const FunctionTypes types = infer_types(ctx, g);
  const ir::DimsOf dims_of = types.dims_of();
  const Invariance inv(g, dims_of);
  std::unordered_set<std::string> scalar_params;
  for (const ir::Param& p : g.params) {
    if (!p.type.is_tensor()) scalar_params.insert(p.name);
  }
  std::unordered_set<std::string> rebound;  // writebacks and tuple elements (zoo only)
  ir::walk_statements(g.body, [&](const ir::Stmt& s) {
    if (defects::active(defects::Defect::kVerifierBlindToRebinds) && s.kind == ir::Stmt::Kind::Assign &&
        (std::holds_alternative<ir::InvokeRhs>(s.rhs) || std::holds_alternative<ir::TupleGetRhs>(s.rhs)))
      rebound.insert(s.name);
    const auto* sl = std::get_if<ir::SliceRhs>(&s.rhs);
    // Zoo: a view of a rebound name is not judged.
    if (sl != nullptr && defects::active(defects::Defect::kVerifierBlindToRebinds) && rebound.count(sl->source) != 0)
      sl = nullptr;
    if (sl != nullptr && s.kind == ir::Stmt::Kind::Assign) {
      for (const ir::Expr& o : sl->offsets) {
        if (!inv.expr(o)) {
          out.push_back(make_diag(211, g, s.loc,
                                  fmt::format("view '{}' of '{}' has a non-invariant offset "
                                              "'{}' (a replay would freeze it)",
                                              s.name, sl->source, ir::print_expr(o))));
          break;
        }
      }
    }
    if (const auto* as = std::get_if<ir::AssembleRhs>(&s.rhs); as != nullptr && s.kind == ir::Stmt::Kind::Assign) {
      for (const ir::Expr& o : as->offsets) {
        if (!inv.expr(o)) {
          out.push_back(make_diag(212, g, s.loc,
                                  fmt::format("assemble into '{}' has a non-invariant offset "
                                              "'{}'",
                                              as->target, ir::print_expr(o))));
          break;
        }
      }
    }
    if (const ir::Invoke* call = ir::invoke_of(s)) {
      const ir::Function* k = ctx.find(call->callee);
      if (k != nullptr && k->kind == ir::Function::Kind::Kernel) {
        for (size_t i = 0; i < call->args.size() && i < k->params.size(); ++i) {
          if (k->params[i].type.is_tensor()) continue;
          const ir::Expr& a = call->args[i];
          const bool param_name = a.kind == ir::Expr::Kind::Var && scalar_params.count(a.name) != 0;
          if (!param_name && !inv.expr(a)) {
            out.push_back(make_diag(213, g, a.loc.line != 0 ? a.loc : s.loc,
                                    fmt::format("launch of '{}' passes scalar '{}', neither a "
                                                "scalar param nor invariant",
                                                call->callee, ir::print_expr(a))));
          }
        }
      }
    }
    if (s.kind == ir::Stmt::Kind::For && !ir::constant_trips(s, dims_of) && count_nodes(ctx, s.body, dims_of) > 0) {
      out.push_back(make_diag(214, g, s.loc,
                              fmt::format("loop over '{}' holds nodes but has no constant "
                                          "trip count",
                                          s.name)));
    }
    if (s.kind == ir::Stmt::Kind::If &&
        ir::sat_add(count_nodes(ctx, s.body, dims_of), count_nodes(ctx, s.else_body, dims_of)) > 0) {
      out.push_back(make_diag(215, g, s.loc, "'if' in a graph holds nodes"));
    }
  });
  const uint64_t nodes = count_nodes(ctx, g.body, dims_of);
  if (nodes < 1 || nodes > kMaxNodes) {
    out.push_back(make_diag(216, g, g.loc, fmt::format("graph has {} nodes (must be 1..{})", nodes, kMaxNodes)));
  }
  return nodes;
}

void check_call_sites(const Context& ctx, const ir::Function& g, ir::Diagnostics& out) {
  for (const ir::Function& caller : ctx.program().functions) {
    if (caller.kind == ir::Function::Kind::Kernel) continue;
    std::optional<FunctionTypes> types;  // built on the first call of g
    ir::walk_statements(caller.body, [&](const ir::Stmt& s) {
      const ir::Invoke* inv = ir::invoke_of(s);
      if (inv == nullptr || inv->callee != g.name) return;
      if (!types) types = infer_types(ctx, caller);
      const ir::Loc loc = inv->loc.line != 0 ? inv->loc : s.loc;
      if (inv->args.size() != g.params.size()) {
        out.push_back(make_diag(
            210, caller, loc,
            fmt::format("call of '{}' passes {} arguments for {} params", g.name, inv->args.size(), g.params.size())));
        return;
      }
      for (size_t i = 0; i < g.params.size(); ++i) {
        const ir::Param& p = g.params[i];
        const ir::Expr& a = inv->args[i];
        const bool tensor_arg = a.kind == ir::Expr::Kind::Var && types->is_tensor(a.name);
        std::string why;
        if (p.type.is_tensor()) {
          const Dims* d = tensor_arg ? types->dims(a.name) : nullptr;
          if (d == nullptr || *d != p.type.dims) why = "is not a tensor of the param's shape";
        } else if (tensor_arg) {
          why = "is a tensor for a scalar param";
        }
        if (!why.empty()) {
          out.push_back(
              make_diag(210, caller, loc,
                        fmt::format("argument {} '{}' of '{}' {} '{}'", i, ir::print_expr(a), g.name, why, p.name)));
        }
      }
    });
  }
}

}  // namespace stackcheck::passes::graph_boundary
