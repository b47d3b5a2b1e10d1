// Canonical `.plan` printer (printer.h).
#include "stack/runtime/plan/printer.h"

#include <fmt/format.h>

#include <iterator>
#include <string>
#include <utility>

#include "stack/support/append.h"
#include "stack/support/infix.h"

namespace stackcheck::runtime {
namespace {

using support::put;  // everything appends to one string (support/append.h)

void expr_to(std::string& out, const PlanExpr& e) {
  switch (e.kind) {
    case PlanExpr::Kind::Int: put(out, FMT_COMPILE("{}"), e.value); return;
    case PlanExpr::Kind::Name: out += e.name; return;
    case PlanExpr::Kind::Slot: put(out, FMT_COMPILE("${}"), e.value); return;
    case PlanExpr::Kind::Binary: break;
  }
  if (e.args.size() != 2) {  // malformed (validate_plan rejects it); print something readable
    out += "?";
    return;
  }
  const int p = support::infix_precedence(e);
  // Left-associative: a right operand of equal precedence needs parentheses.
  const bool lp = support::infix_precedence(e.args[0]) < p, rp = support::infix_precedence(e.args[1]) <= p;
  if (lp) out += '(';
  expr_to(out, e.args[0]);
  if (lp) out += ')';
  put(out, FMT_COMPILE(" {} "), binop_name(e.op));
  if (rp) out += '(';
  expr_to(out, e.args[1]);
  if (rp) out += ')';
}

void shape_to(std::string& out, const std::vector<int64_t>& dims) { put(out, FMT_COMPILE("[{}]"), fmt::join(dims, ", ")); }

void window_to(std::string& out, const PlanWindow& w) {
  out += w.name;
  if (w.ranges.empty()) return;
  out += '[';
  for (size_t i = 0; i < w.ranges.size(); ++i) {
    if (i) out += ", ";
    expr_to(out, w.ranges[i].offset);
    put(out, FMT_COMPILE(":{}"), w.ranges[i].size);
  }
  out += ']';
}

void arg_to(std::string& out, const PlanArg& a) {
  switch (a.tag) {
    case PlanTag::Output:
      put(out, FMT_COMPILE("output {}: "), a.out_name);
      shape_to(out, a.out_shape);
      return;
    case PlanTag::Scalar:
      out += "scalar ";
      expr_to(out, a.scalar);
      return;
    default:
      put(out, FMT_COMPILE("{} "), tag_name(a.tag));
      window_to(out, a.window);
      return;
  }
}

void args_to(std::string& out, const std::vector<PlanArg>& args) {
  for (size_t i = 0; i < args.size(); ++i) {
    if (i) out += ", ";
    arg_to(out, args[i]);
  }
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
          put(out, FMT_COMPILE("wait_tensor {}\n"), n.tensor);
        else if constexpr (std::is_same_v<T, SyncStartStmt>)
          put(out, FMT_COMPILE("sync_start {}\n"), n.block_num);
        else if constexpr (std::is_same_v<T, AllocStmt>) {
          out += "alloc ";
          for (size_t i = 0; i < n.buffers.size(); ++i) {
            put(out, FMT_COMPILE("{}{}: "), i ? ", " : "", n.buffers[i].name);
            shape_to(out, n.buffers[i].shape);
          }
          out += '\n';
        } else if constexpr (std::is_same_v<T, ViewStmt>) {
          put(out, FMT_COMPILE("view {} = "), n.name);
          window_to(out, n.source);
          out += '\n';
        } else if constexpr (std::is_same_v<T, SetStmt>) {
          put(out, FMT_COMPILE("set {} = "), n.name);
          expr_to(out, n.value);
          out += '\n';
        } else if constexpr (std::is_same_v<T, ReadStmt>) {
          put(out, FMT_COMPILE("read {} = {}["), n.name, n.tensor);
          for (size_t i = 0; i < n.index.size(); ++i) {
            if (i) out += ", ";
            expr_to(out, n.index[i]);
          }
          out += "]\n";
        } else if constexpr (std::is_same_v<T, SubmitStmt>) {
          put(out, FMT_COMPILE("submit {}("), builtin_name(n.builtin));
          args_to(out, n.args);
          out += ")\n";
        } else if constexpr (std::is_same_v<T, SubmitGraphStmt>) {
          put(out, FMT_COMPILE("submit_graph {}("), n.graph);
          args_to(out, n.args);
          out += ")\n";
        } else if constexpr (std::is_same_v<T, ForStmt>) {
          put(out, FMT_COMPILE("for {} = "), n.var);
          support::put_joined(out, expr_to, n.start, n.stop, n.step);
          out += " {\n";
          block_to(out, n.body, indent + 1);
          pad();
          out += "}\n";
        } else {
          static_assert(std::is_same_v<T, IfStmt>);
          out += "if ";
          expr_to(out, n.lhs);
          put(out, FMT_COMPILE(" {} "), cmp_name(n.cmp));
          expr_to(out, n.rhs);
          out += " {\n";
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

std::string print_plan_expr(const PlanExpr& e) { return support::printed(expr_to, e); }

std::string print_plan_window(const PlanWindow& w) { return support::printed(window_to, w); }

std::string print_plan_stmt(const PlanStmt& s, int indent) { return support::printed(stmt_to, s, indent); }

std::string print_plan(const OrchProgram& p) {
  std::string out;
  out.reserve(4096);
  if (!p.config.empty()) {
    out += "config";
    for (const ConfigEntry& c : p.config) put(out, FMT_COMPILE(" {}={}"), c.key, c.value);
    out += "\n";
  }
  for (const EntryTensor& t : p.tensors) {
    put(out, FMT_COMPILE("tensor {}: {} "), t.name, t.inout ? "InOut" : "In");
    shape_to(out, t.shape);
    out += '\n';
  }
  for (const PlanGraph& g : p.graphs) {
    put(out, FMT_COMPILE("graph {}({}) {{\n"), g.name, fmt::join(g.params, ", "));
    block_to(out, g.body, 1);
    out += "}\n";
  }
  block_to(out, p.body, 0);
  for (const Mutation& m : p.mutations)
    put(out, FMT_COMPILE("mutate {}{} {}\n"), m.target == MutationTarget::kRuntimeHeader ? "header " : "", m.offset,
        static_cast<unsigned>(m.value));
  return out;
}

}  // namespace stackcheck::runtime
