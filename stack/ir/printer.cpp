#include "stack/ir/printer.h"

#include <fmt/format.h>

#include <iterator>
#include <string>
#include <utility>

#include "stack/support/append.h"
#include "stack/support/infix.h"

namespace stackcheck::ir {

namespace {

using support::put;  // everything appends to one string (support/append.h)

void print_expr_to(std::string& out, const Expr& e);

void print_operand(std::string& out, const Expr& e, bool parens) {
  if (parens) out += '(';
  print_expr_to(out, e);
  if (parens) out += ')';
}

void print_exprs(std::string& out, const std::vector<Expr>& es) {
  for (size_t i = 0; i < es.size(); ++i) {
    if (i) out += ", ";
    print_expr_to(out, es[i]);
  }
}

void print_list(std::string& out, const std::vector<Expr>& es) {
  out += '[';
  print_exprs(out, es);
  out += ']';
}

void print_expr_to(std::string& out, const Expr& e) {
  switch (e.kind) {
    case Expr::Kind::Int: put(out, FMT_COMPILE("{}"), e.value); return;
    case Expr::Kind::Var: out += e.name; return;
    case Expr::Kind::Dim: put(out, FMT_COMPILE("dim({}, {})"), e.name, e.value); return;
    case Expr::Kind::Read:
      put(out, FMT_COMPILE("read({}, "), e.name);
      print_list(out, e.args);
      out += ')';
      return;
    case Expr::Kind::Binary: {
      if (e.args.size() != 2) {  // only code can build this; print something parseable-looking
        out += "<malformed>";
        return;
      }
      const int p = support::infix_precedence(e);
      // Left-associative: the left operand needs parentheses only when it binds looser,
      // the right one also when it binds equally.
      print_operand(out, e.args[0], support::infix_precedence(e.args[0]) < p);
      put(out, FMT_COMPILE(" {} "), binop_text(e.op));
      print_operand(out, e.args[1], support::infix_precedence(e.args[1]) <= p);
      return;
    }
  }
}

void join_names(std::string& out, const std::vector<std::string>& ns) {
  for (size_t i = 0; i < ns.size(); ++i) {
    if (i) out += ", ";
    out += ns[i];
  }
}

void print_invoke(std::string& out, const Invoke& inv) {
  put(out, FMT_COMPILE("{} {}("), inv.submit ? "submit" : "call", inv.callee);
  print_exprs(out, inv.args);
  out += ')';
}

void print_type_to(std::string& out, const Type& t) {
  if (!t.is_tensor()) {
    out += "i64";
    return;
  }
  put(out, FMT_COMPILE("tensor<{}>[{}]"), t.dtype, fmt::join(t.dims, ", "));
}

struct RhsPrinter {
  std::string& out;
  void operator()(const ExprRhs& r) { print_expr_to(out, r.expr); }
  void operator()(const InvokeRhs& r) { print_invoke(out, r.invoke); }
  void operator()(const TupleGetRhs& r) { put(out, FMT_COMPILE("{}.{}"), r.tuple, r.index); }
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
    put(out, FMT_COMPILE("slice({}, "), r.source);
    print_list(out, r.offsets);
    put(out, FMT_COMPILE(", [{}])"), fmt::join(r.sizes, ", "));
  }
  void operator()(const AssembleRhs& r) {
    put(out, FMT_COMPILE("assemble({}, {}, "), r.target, r.source);
    print_list(out, r.offsets);
    out += ')';
  }
};

void print_block(std::string& out, const std::vector<Stmt>& body, int indent);

void print_stmt(std::string& out, const Stmt& s, int indent) {
  const size_t pad = static_cast<size_t>(indent) * 2;
  out.append(pad, ' ');
  switch (s.kind) {
    case Stmt::Kind::Assign:
      out += s.name;
      out += " = ";
      std::visit(RhsPrinter{out}, s.rhs);
      out += '\n';
      return;
    case Stmt::Kind::Invoke:
      print_invoke(out, s.invoke);
      out += '\n';
      return;
    case Stmt::Kind::Return:
      out += "return";
      if (!s.returns.empty()) {
        out += ' ';
        join_names(out, s.returns);
      }
      out += '\n';
      return;
    case Stmt::Kind::For:
      put(out, FMT_COMPILE("for {} in range("), s.name);
      support::put_joined(out, print_expr_to, s.lo, s.hi, s.step);
      out += ") {\n";
      print_block(out, s.body, indent + 1);
      out.append(pad, ' ');
      out += "}\n";
      return;
    case Stmt::Kind::If:
      out += "if ";
      print_expr_to(out, s.lo);
      put(out, FMT_COMPILE(" {} "), cmp_text(s.cmp));
      print_expr_to(out, s.hi);
      out += " {\n";
      print_block(out, s.body, indent + 1);
      if (!s.else_body.empty()) {
        out.append(pad, ' ');
        out += "} else {\n";
        print_block(out, s.else_body, indent + 1);
      }
      out.append(pad, ' ');
      out += "}\n";
      return;
  }
}

void print_block(std::string& out, const std::vector<Stmt>& body, int indent) {
  for (const Stmt& s : body) print_stmt(out, s, indent);
}

void print_params(std::string& out, const std::vector<Param>& ps) {
  out += '(';
  for (size_t i = 0; i < ps.size(); ++i) {
    if (i) out += ", ";
    put(out, FMT_COMPILE("{}: {} "), ps[i].name, dir_name(ps[i].dir));
    print_type_to(out, ps[i].type);
  }
  out += ')';
}

void print_function_to(std::string& out, const Function& f) {
  switch (f.kind) {
    case Function::Kind::Kernel:
      put(out, FMT_COMPILE("kernel {}"), f.name);
      print_params(out, f.params);
      out += " -> (";
      join_names(out, f.kernel_returns);
      put(out, FMT_COMPILE(") = builtin {}\n"), f.builtin);
      return;
    case Function::Kind::Graph: {
      put(out, FMT_COMPILE("graph {}"), f.name);
      print_params(out, f.params);
      if (!f.results.empty()) {
        out += " -> (";
        for (size_t i = 0; i < f.results.size(); ++i) {
          if (i) out += ", ";
          print_type_to(out, f.results[i]);
        }
        out += ')';
      }
      break;
    }
    case Function::Kind::Orchestration:
      put(out, FMT_COMPILE("orchestration {}"), f.name);
      print_params(out, f.params);
      break;
  }
  out += " {\n";
  print_block(out, f.body, 1);
  out += "}\n";
}

}  // namespace

std::string print_expr(const Expr& e) { return support::printed(print_expr_to, e); }

std::string print_type(const Type& t) { return support::printed(print_type_to, t); }

std::string print_function(const Function& f) { return support::printed(print_function_to, f); }

std::string print_program(const Program& p) {
  std::string out;
  out.reserve(4096);
  for (const Function& f : p.functions) print_function_to(out, f);
  return out;
}

}  // namespace stackcheck::ir
