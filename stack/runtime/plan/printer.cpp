// Canonical `.plan` printer (printer.h).
#include "stack/runtime/plan/printer.h"

#include <fmt/format.h>

namespace stackcheck::runtime {
namespace {

int precedence(const PlanExpr& e) {
  if (e.kind != PlanExpr::Kind::Binary) return 3;
  return (e.op == PlanBinOp::Add || e.op == PlanBinOp::Sub) ? 1 : 2;
}

void expr_to(std::string& out, const PlanExpr& e) {
  switch (e.kind) {
    case PlanExpr::Kind::Int: out += fmt::format("{}", e.value); return;
    case PlanExpr::Kind::Name: out += e.name; return;
    case PlanExpr::Kind::Slot: out += fmt::format("${}", e.value); return;
    case PlanExpr::Kind::Binary: break;
  }
  if (e.args.size() != 2) {  // malformed (validate_plan rejects it); print something readable
    out += "?";
    return;
  }
  const int p = precedence(e);
  // Left-associative: a right operand of equal precedence needs parentheses.
  const bool lp = precedence(e.args[0]) < p, rp = precedence(e.args[1]) <= p;
  if (lp) out += '(';
  expr_to(out, e.args[0]);
  if (lp) out += ')';
  out += fmt::format(" {} ", binop_name(e.op));
  if (rp) out += '(';
  expr_to(out, e.args[1]);
  if (rp) out += ')';
}

std::string shape_text(const std::vector<int64_t>& dims) { return fmt::format("[{}]", fmt::join(dims, ", ")); }

std::string arg_text(const PlanArg& a) {
  switch (a.tag) {
    case PlanTag::Output: return fmt::format("output {}: {}", a.out_name, shape_text(a.out_shape));
    case PlanTag::Scalar: return fmt::format("scalar {}", print_plan_expr(a.scalar));
    default: return fmt::format("{} {}", tag_name(a.tag), print_plan_window(a.window));
  }
}

std::string args_text(const std::vector<PlanArg>& args) {
  std::string out;
  for (size_t i = 0; i < args.size(); ++i) {
    if (i) out += ", ";
    out += arg_text(args[i]);
  }
  return out;
}

void stmt_to(std::string& out, const PlanStmt& s, int indent);

// Appends in place: a nested block's text is written once, not copied once per enclosing level.
void block_to(std::string& out, const PlanBlock& b, int indent) {
  for (const PlanStmt& s : b) stmt_to(out, s, indent);
}

void stmt_to(std::string& out, const PlanStmt& s, int indent) {
  const auto pad = [&] { out.append(static_cast<size_t>(indent) * 2, ' '); };
  pad();
  std::visit(
      [&](const auto& n) {
        using T = std::decay_t<decltype(n)>;
        if constexpr (std::is_same_v<T, ScopeBeginStmt>)
          out += "scope_begin\n";
        else if constexpr (std::is_same_v<T, ScopeEndStmt>)
          out += "scope_end\n";
        else if constexpr (std::is_same_v<T, FatalStmt>)
          out += "fatal\n";
        else if constexpr (std::is_same_v<T, WaitTensorStmt>)
          fmt::format_to(std::back_inserter(out), "wait_tensor {}\n", n.tensor);
        else if constexpr (std::is_same_v<T, SyncStartStmt>)
          fmt::format_to(std::back_inserter(out), "sync_start {}\n", n.block_num);
        else if constexpr (std::is_same_v<T, AllocStmt>) {
          out += "alloc ";
          for (size_t i = 0; i < n.buffers.size(); ++i)
            fmt::format_to(std::back_inserter(out), "{}{}: {}", i ? ", " : "", n.buffers[i].name,
                           shape_text(n.buffers[i].shape));
          out += '\n';
        } else if constexpr (std::is_same_v<T, ViewStmt>) {
          fmt::format_to(std::back_inserter(out), "view {} = {}\n", n.name, print_plan_window(n.source));
        } else if constexpr (std::is_same_v<T, SetStmt>) {
          fmt::format_to(std::back_inserter(out), "set {} = ", n.name);
          expr_to(out, n.value);
          out += '\n';
        } else if constexpr (std::is_same_v<T, ReadStmt>) {
          fmt::format_to(std::back_inserter(out), "read {} = {}[", n.name, n.tensor);
          for (size_t i = 0; i < n.index.size(); ++i) {
            if (i) out += ", ";
            expr_to(out, n.index[i]);
          }
          out += "]\n";
        } else if constexpr (std::is_same_v<T, SubmitStmt>) {
          fmt::format_to(std::back_inserter(out), "submit {}({})\n", builtin_name(n.builtin), args_text(n.args));
        } else if constexpr (std::is_same_v<T, SubmitGraphStmt>) {
          fmt::format_to(std::back_inserter(out), "submit_graph {}({})\n", n.graph, args_text(n.args));
        } else if constexpr (std::is_same_v<T, ForStmt>) {
          fmt::format_to(std::back_inserter(out), "for {} = {}, {}, {} {{\n", n.var, print_plan_expr(n.start),
                         print_plan_expr(n.stop), print_plan_expr(n.step));
          block_to(out, n.body, indent + 1);
          pad();
          out += "}\n";
        } else {
          static_assert(std::is_same_v<T, IfStmt>);
          fmt::format_to(std::back_inserter(out), "if {} {} {} {{\n", print_plan_expr(n.lhs), cmp_name(n.cmp),
                         print_plan_expr(n.rhs));
          block_to(out, n.then_body, indent + 1);
          if (!n.else_body.empty()) {
            pad();
            out += "} else {\n";
            block_to(out, n.else_body, indent + 1);
          }
          pad();
          out += "}\n";
        }
      },
      s.node);
}

}  // namespace

std::string print_plan_expr(const PlanExpr& e) {
  std::string out;
  expr_to(out, e);
  return out;
}

std::string print_plan_window(const PlanWindow& w) {
  if (w.ranges.empty()) return w.name;
  std::string out = w.name + "[";
  for (size_t i = 0; i < w.ranges.size(); ++i) {
    if (i) out += ", ";
    out += fmt::format("{}:{}", print_plan_expr(w.ranges[i].offset), w.ranges[i].size);
  }
  return out + "]";
}

std::string print_plan_stmt(const PlanStmt& s, int indent) {
  std::string out;
  stmt_to(out, s, indent);
  return out;
}

std::string print_plan(const OrchProgram& p) {
  std::string out;
  if (!p.config.empty()) {
    out += "config";
    for (const ConfigEntry& c : p.config) out += fmt::format(" {}={}", c.key, c.value);
    out += "\n";
  }
  for (const EntryTensor& t : p.tensors)
    out += fmt::format("tensor {}: {} {}\n", t.name, t.inout ? "InOut" : "In", shape_text(t.shape));
  for (const PlanGraph& g : p.graphs) {
    out += fmt::format("graph {}({}) {{\n", g.name, fmt::join(g.params, ", "));
    block_to(out, g.body, 1);
    out += "}\n";
  }
  block_to(out, p.body, 0);
  for (const Mutation& m : p.mutations)
    out += fmt::format("mutate {}{} {}\n", m.target == MutationTarget::kRuntimeHeader ? "header " : "", m.offset,
                       static_cast<unsigned>(m.value));
  return out;
}

}  // namespace stackcheck::runtime
