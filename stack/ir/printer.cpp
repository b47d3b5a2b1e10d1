#include "stack/ir/printer.h"

#include <fmt/format.h>

namespace stackcheck::ir {

namespace {

int precedence(const Expr& e) {
  if (e.kind != Expr::Kind::Binary) return 3;
  return (e.op == BinOp::Add || e.op == BinOp::Sub) ? 1 : 2;
}

void print_expr_to(std::string& out, const Expr& e);

void print_operand(std::string& out, const Expr& e, bool parens) {
  if (parens) out += '(';
  print_expr_to(out, e);
  if (parens) out += ')';
}

void print_list(std::string& out, const std::vector<Expr>& es) {
  out += '[';
  for (size_t i = 0; i < es.size(); ++i) {
    if (i) out += ", ";
    print_expr_to(out, es[i]);
  }
  out += ']';
}

void print_expr_to(std::string& out, const Expr& e) {
  switch (e.kind) {
    case Expr::Kind::Int: out += fmt::format("{}", e.value); return;
    case Expr::Kind::Var: out += e.name; return;
    case Expr::Kind::Dim: out += fmt::format("dim({}, {})", e.name, e.value); return;
    case Expr::Kind::Read:
      out += fmt::format("read({}, ", e.name);
      print_list(out, e.args);
      out += ')';
      return;
    case Expr::Kind::Binary: {
      if (e.args.size() != 2) {  // only code can build this; print something parseable-looking
        out += "<malformed>";
        return;
      }
      const int p = precedence(e);
      // Left-associative: the left operand needs parentheses only when it binds looser,
      // the right one also when it binds equally.
      print_operand(out, e.args[0], precedence(e.args[0]) < p);
      out += fmt::format(" {} ", binop_text(e.op));
      print_operand(out, e.args[1], precedence(e.args[1]) <= p);
      return;
    }
  }
}

std::string join_names(const std::vector<std::string>& ns) {
  std::string out;
  for (size_t i = 0; i < ns.size(); ++i) {
    if (i) out += ", ";
    out += ns[i];
  }
  return out;
}

std::string print_invoke(const Invoke& inv) {
  std::string out = fmt::format("{} {}(", inv.submit ? "submit" : "call", inv.callee);
  for (size_t i = 0; i < inv.args.size(); ++i) {
    if (i) out += ", ";
    print_expr_to(out, inv.args[i]);
  }
  return out + ")";
}

struct RhsPrinter {
  std::string& out;
  void operator()(const ExprRhs& r) { print_expr_to(out, r.expr); }
  void operator()(const InvokeRhs& r) { out += print_invoke(r.invoke); }
  void operator()(const TupleGetRhs& r) { out += fmt::format("{}.{}", r.tuple, r.index); }
  void operator()(const CreateRhs& r) {
    out += "create ";
    print_list(out, r.shape);
  }
  void operator()(const FullRhs& r) {
    out += "full ";
    print_list(out, r.shape);
    out += ", ";
    print_expr_to(out, r.value);
  }
  void operator()(const SliceRhs& r) {
    out += fmt::format("slice({}, ", r.source);
    print_list(out, r.offsets);
    out += fmt::format(", [{}])", fmt::join(r.sizes, ", "));
  }
  void operator()(const AssembleRhs& r) {
    out += fmt::format("assemble({}, {}, ", r.target, r.source);
    print_list(out, r.offsets);
    out += ')';
  }
};

void print_block(std::string& out, const std::vector<Stmt>& body, int indent);

void print_stmt(std::string& out, const Stmt& s, int indent) {
  const std::string pad(static_cast<size_t>(indent) * 2, ' ');
  out += pad;
  switch (s.kind) {
    case Stmt::Kind::Assign:
      out += s.name + " = ";
      std::visit(RhsPrinter{out}, s.rhs);
      out += '\n';
      return;
    case Stmt::Kind::Invoke: out += print_invoke(s.invoke) + "\n"; return;
    case Stmt::Kind::Return: out += s.returns.empty() ? "return\n" : "return " + join_names(s.returns) + "\n"; return;
    case Stmt::Kind::For:
      out += fmt::format("for {} in range({}, {}, {}) {{\n", s.name, print_expr(s.lo), print_expr(s.hi),
                         print_expr(s.step));
      print_block(out, s.body, indent + 1);
      out += pad + "}\n";
      return;
    case Stmt::Kind::If:
      out += fmt::format("if {} {} {} {{\n", print_expr(s.lo), cmp_text(s.cmp), print_expr(s.hi));
      print_block(out, s.body, indent + 1);
      if (!s.else_body.empty()) {
        out += pad + "} else {\n";
        print_block(out, s.else_body, indent + 1);
      }
      out += pad + "}\n";
      return;
  }
}

void print_block(std::string& out, const std::vector<Stmt>& body, int indent) {
  for (const Stmt& s : body) print_stmt(out, s, indent);
}

std::string print_params(const std::vector<Param>& ps) {
  std::string out = "(";
  for (size_t i = 0; i < ps.size(); ++i) {
    if (i) out += ", ";
    out += fmt::format("{}: {} {}", ps[i].name, dir_name(ps[i].dir), print_type(ps[i].type));
  }
  return out + ")";
}

}  // namespace

std::string print_expr(const Expr& e) {
  std::string out;
  print_expr_to(out, e);
  return out;
}

std::string print_type(const Type& t) {
  if (!t.is_tensor()) return "i64";
  return fmt::format("tensor<{}>[{}]", t.dtype, fmt::join(t.dims, ", "));
}

std::string print_function(const Function& f) {
  std::string out;
  switch (f.kind) {
    case Function::Kind::Kernel:
      return fmt::format("kernel {}{} -> ({}) = builtin {}\n", f.name, print_params(f.params),
                         join_names(f.kernel_returns), f.builtin);
    case Function::Kind::Graph: {
      out = fmt::format("graph {}{}", f.name, print_params(f.params));
      if (!f.results.empty()) {
        out += " -> (";
        for (size_t i = 0; i < f.results.size(); ++i) out += (i ? ", " : "") + print_type(f.results[i]);
        out += ")";
      }
      break;
    }
    case Function::Kind::Orchestration: out = fmt::format("orchestration {}{}", f.name, print_params(f.params)); break;
  }
  out += " {\n";
  print_block(out, f.body, 1);
  out += "}\n";
  return out;
}

std::string print_program(const Program& p) {
  std::string out;
  for (const Function& f : p.functions) out += print_function(f);
  return out;
}

}  // namespace stackcheck::ir
