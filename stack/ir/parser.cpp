// Recursive-descent parser of `.gir`. Errors unwind through a ParseFailure exception that
// never leaves this file; recursion is bounded by the nesting limit (open ( [ { together)
// and by an expression-depth limit, so no input can exhaust the stack.
#include "stack/ir/parser.h"

#include "stack/ir/lexer.h"

#include <fmt/format.h>

namespace stackcheck::ir {

std::string ParseError::to_string() const { return fmt::format("{}:{}: {}", line, column, message); }

namespace {

constexpr int kMaxExprDepth = 1024;  // operator-tree depth, so later recursion stays shallow

struct ParseFailure {
  ParseError error;
};

class Parser {
 public:
  Parser(const std::vector<Token>& toks, const ParseLimits& limits) : t_(toks), limits_(limits) {}

  Program program() {
    Program p;
    while (peek().kind != Tok::End) {
      const Token& k = peek();
      if (k.kind == Tok::NL) {
        next();
        continue;
      }  // unreachable: NL only follows tokens
      if (is_word("kernel"))
        p.functions.push_back(kernel());
      else if (is_word("graph") || is_word("orchestration"))
        p.functions.push_back(func());
      else
        fail(k, fmt::format("expected 'kernel', 'graph' or 'orchestration', found {}", describe(k)));
    }
    return p;
  }

 private:
  const std::vector<Token>& t_;
  const ParseLimits& limits_;
  size_t pos_ = 0;
  unsigned nesting_ = 0;

  // ---- token helpers ----
  const Token& peek(size_t ahead = 0) const {
    size_t i = pos_ + ahead;
    return i < t_.size() ? t_[i] : t_.back();
  }
  const Token& next() {
    const Token& tok = peek();
    if (pos_ < t_.size() - 1) ++pos_;
    return tok;
  }
  [[noreturn]] void fail(const Token& at, std::string msg) {
    throw ParseFailure{ParseError{at.line, at.column, std::move(msg)}};
  }
  static std::string describe(const Token& k) {
    if (k.kind == Tok::Ident) return fmt::format("'{}'", k.text);
    if (k.kind == Tok::Int) return fmt::format("integer {}", k.text);
    return tok_name(k.kind);
  }
  bool is_word(std::string_view w, size_t ahead = 0) const {
    const Token& k = peek(ahead);
    return k.kind == Tok::Ident && k.text == w;
  }
  static Loc loc_of(const Token& k) { return Loc{k.line, k.column}; }

  void open(const Token& at) {
    if (++nesting_ > limits_.max_nesting) fail(at, fmt::format("nesting deeper than {} brackets", limits_.max_nesting));
  }
  void close() { --nesting_; }

  const Token& expect(Tok kind, const char* what = nullptr) {
    const Token& k = peek();
    if (k.kind != kind) fail(k, fmt::format("expected {}, found {}", what ? what : tok_name(kind), describe(k)));
    if (kind == Tok::LParen || kind == Tok::LBracket || kind == Tok::LBrace) open(k);
    if (kind == Tok::RParen || kind == Tok::RBracket || kind == Tok::RBrace) close();
    return next();
  }
  void expect_word(std::string_view w) {
    if (!is_word(w)) fail(peek(), fmt::format("expected '{}', found {}", w, describe(peek())));
    next();
  }
  std::string ident(const char* what = "identifier") {
    const Token& k = peek();
    if (k.kind != Tok::Ident) fail(k, fmt::format("expected {}, found {}", what, describe(k)));
    if (is_keyword(k.text)) fail(k, fmt::format("'{}' is a keyword, not a name", k.text));
    next();
    return std::string(k.text);
  }
  int64_t nonneg_int(const char* what) {
    const Token& k = peek();
    if (k.kind != Tok::Int) fail(k, fmt::format("expected {}, found {}", what, describe(k)));
    if (k.value > static_cast<uint64_t>(INT64_MAX))
      fail(k, fmt::format("integer literal {} out of range (max 9223372036854775807)", k.text));
    next();
    return static_cast<int64_t>(k.value);
  }
  void end_line() { expect(Tok::NL, "end of line"); }

  // ---- declarations ----
  Function kernel() {
    Function f;
    f.kind = Function::Kind::Kernel;
    f.loc = loc_of(peek());
    next();
    f.name = ident("kernel name");
    f.params = params();
    expect(Tok::Arrow, "'->'");
    expect(Tok::LParen);
    if (peek().kind != Tok::RParen) {
      comma_separated(f.kernel_returns, [&] { return ident("returned parameter name"); });
    }
    expect(Tok::RParen);
    expect(Tok::Assign, "'='");
    expect_word("builtin");
    f.builtin = ident("builtin name");
    end_line();
    return f;
  }

  Function func() {
    Function f;
    f.loc = loc_of(peek());
    f.kind = is_word("graph") ? Function::Kind::Graph : Function::Kind::Orchestration;
    next();
    f.name = ident("function name");
    f.params = params();
    if (f.kind == Function::Kind::Graph && peek().kind == Tok::Arrow) {
      next();
      expect(Tok::LParen);
      comma_separated(f.results, [&] { return type(); });
      expect(Tok::RParen);
    }
    f.body = block();
    end_line();
    return f;
  }

  // One or more items, each read by item() and appended to `out`, separated by ','.
  template <class List, class Item>
  void comma_separated(List& out, Item item) {
    out.push_back(item());
    while (peek().kind == Tok::Comma) {
      next();
      out.push_back(item());
    }
  }

  std::vector<Param> params() {
    std::vector<Param> ps;
    expect(Tok::LParen);
    if (peek().kind != Tok::RParen) {
      comma_separated(ps, [&] { return param(); });
    }
    expect(Tok::RParen);
    return ps;
  }

  Param param() {
    Param p;
    p.loc = loc_of(peek());
    p.name = ident("parameter name");
    expect(Tok::Colon, "':'");
    if (is_word("In"))
      p.dir = Dir::In;
    else if (is_word("Out"))
      p.dir = Dir::Out;
    else if (is_word("InOut"))
      p.dir = Dir::InOut;
    else
      fail(peek(), fmt::format("expected In, Out or InOut, found {}", describe(peek())));
    next();
    p.type = type();
    return p;
  }

  Type type() {
    if (is_word("i64")) {
      next();
      return Type::i64();
    }
    if (!is_word("tensor"))
      fail(peek(), fmt::format("expected a type (i64 or tensor<i32>[...]), found {}", describe(peek())));
    next();
    expect(Tok::Lt, "'<'");
    if (!is_word("i32")) fail(peek(), fmt::format("expected element type i32, found {}", describe(peek())));
    next();
    expect(Tok::Gt, "'>'");
    Type t = Type::tensor({});
    expect(Tok::LBracket);
    comma_separated(t.dims, [&] { return nonneg_int("a dimension"); });
    expect(Tok::RBracket);
    return t;
  }

  // ---- statements ----
  std::vector<Stmt> block() {
    std::vector<Stmt> body;
    expect(Tok::LBrace, "'{'");
    end_line();
    while (peek().kind != Tok::RBrace) {
      if (peek().kind == Tok::End) fail(peek(), "unterminated block: expected '}' before end of input");
      body.push_back(stmt());
    }
    expect(Tok::RBrace);
    return body;
  }

  Stmt stmt() {
    const Token& first = peek();
    Stmt s;
    s.loc = loc_of(first);
    if (is_word("return")) {
      next();
      s.kind = Stmt::Kind::Return;
      if (peek().kind != Tok::NL) {
        comma_separated(s.returns, [&] { return ident("returned name"); });
      }
      end_line();
      return s;
    }
    if (is_word("call") || is_word("submit")) {
      s.kind = Stmt::Kind::Invoke;
      s.invoke = invoke();
      end_line();
      return s;
    }
    if (is_word("for")) {
      next();
      s.kind = Stmt::Kind::For;
      s.name = ident("loop variable");
      expect_word("in");
      expect_word("range");
      expect(Tok::LParen);
      s.lo = expr();
      expect(Tok::Comma, "','");
      s.hi = expr();
      expect(Tok::Comma, "','");
      s.step = expr();
      expect(Tok::RParen);
      s.body = block();
      end_line();
      return s;
    }
    if (is_word("if")) {
      next();
      s.kind = Stmt::Kind::If;
      s.lo = expr();
      s.cmp = cmp();
      s.hi = expr();
      s.body = block();
      if (is_word("else")) {
        next();
        s.else_body = block();
      }
      end_line();
      return s;
    }
    if (first.kind == Tok::Ident && !is_keyword(first.text)) {
      s.kind = Stmt::Kind::Assign;
      s.name = ident();
      expect(Tok::Assign, "'='");
      s.rhs = rhs();
      end_line();
      return s;
    }
    fail(first, fmt::format("expected a statement, found {}", describe(first)));
  }

  CmpOp cmp() {
    const Token& k = peek();
    CmpOp op;
    switch (k.kind) {
      case Tok::EqEq: op = CmpOp::Eq; break;
      case Tok::NotEq: op = CmpOp::Ne; break;
      case Tok::Lt: op = CmpOp::Lt; break;
      case Tok::Le: op = CmpOp::Le; break;
      case Tok::Gt: op = CmpOp::Gt; break;
      case Tok::Ge: op = CmpOp::Ge; break;
      default: fail(k, fmt::format("expected a comparison (== != < <= > >=), found {}", describe(k)));
    }
    next();
    return op;
  }

  Invoke invoke() {
    Invoke inv;
    inv.loc = loc_of(peek());
    inv.submit = is_word("submit");
    next();
    inv.callee = ident("callee name");
    expect(Tok::LParen);
    if (peek().kind != Tok::RParen) {
      comma_separated(inv.args, [&] { return expr(); });
    }
    expect(Tok::RParen);
    return inv;
  }

  Rhs rhs() {
    if (is_word("call") || is_word("submit")) return InvokeRhs{invoke()};
    if (is_word("create")) {
      next();
      return CreateRhs{list()};
    }
    if (is_word("full")) {
      next();
      FullRhs f;
      f.shape = list();
      expect(Tok::Comma, "','");
      f.value = expr();
      return f;
    }
    if (is_word("slice")) {
      next();
      SliceRhs s;
      expect(Tok::LParen);
      s.source = tensor_then_comma();
      s.offsets = list();
      expect(Tok::Comma, "','");
      expect(Tok::LBracket);
      comma_separated(s.sizes, [&] { return nonneg_int("a size"); });
      expect(Tok::RBracket);
      expect(Tok::RParen);
      return s;
    }
    if (is_word("assemble")) {
      next();
      AssembleRhs a;
      expect(Tok::LParen);
      a.target = tensor_then_comma();
      a.source = tensor_then_comma();
      a.offsets = list();
      expect(Tok::RParen);
      return a;
    }
    if (peek().kind == Tok::Ident && !is_keyword(peek().text) && peek(1).kind == Tok::Dot) {
      TupleGetRhs g;
      g.tuple = ident();
      next();  // '.'
      g.index = nonneg_int("a tuple index");
      return g;
    }
    return ExprRhs{expr()};
  }

  // `NAME,`: a tensor name and the ',' after it (dim, read, slice and assemble begin so).
  std::string tensor_then_comma() {
    std::string name = ident("tensor name");
    expect(Tok::Comma, "','");
    return name;
  }

  std::vector<Expr> list() {
    std::vector<Expr> out;
    expect(Tok::LBracket);
    comma_separated(out, [&] { return expr(); });
    expect(Tok::RBracket);
    return out;
  }

  // ---- expressions (each returns its operator-tree depth through `depth`) ----
  Expr expr() {
    int depth = 0;
    return expr(depth);
  }
  Expr expr(int& depth) {
    Expr lhs = term(depth);
    while (peek().kind == Tok::Plus || peek().kind == Tok::Minus) {
      const Token& op = next();
      int rd = 0;
      Expr rhs = term(rd);
      lhs = binary(op, op.kind == Tok::Plus ? BinOp::Add : BinOp::Sub, std::move(lhs), std::move(rhs), depth, rd);
    }
    return lhs;
  }
  Expr term(int& depth) {
    Expr lhs = atom(depth);
    while (peek().kind == Tok::Star || peek().kind == Tok::Slash || peek().kind == Tok::Percent) {
      const Token& op = next();
      const BinOp b = op.kind == Tok::Star ? BinOp::Mul : op.kind == Tok::Slash ? BinOp::Div : BinOp::Mod;
      int rd = 0;
      Expr rhs = atom(rd);
      lhs = binary(op, b, std::move(lhs), std::move(rhs), depth, rd);
    }
    return lhs;
  }
  Expr binary(const Token& op, BinOp b, Expr lhs, Expr rhs, int& depth, int rdepth) {
    depth = std::max(depth, rdepth) + 1;
    if (depth > kMaxExprDepth) fail(op, fmt::format("expression nested deeper than {} operators", kMaxExprDepth));
    Expr e;
    e.kind = Expr::Kind::Binary;
    e.loc = lhs.loc;
    e.op = b;
    e.args.push_back(std::move(lhs));
    e.args.push_back(std::move(rhs));
    return e;
  }
  Expr atom(int& depth) {
    const Token& k = peek();
    Expr e;
    e.loc = loc_of(k);
    depth = 0;
    if (k.kind == Tok::Int) {
      e.kind = Expr::Kind::Int;
      e.value = nonneg_int("an integer");
      return e;
    }
    if (k.kind == Tok::Minus) {
      next();
      const Token& n = peek();
      if (n.kind != Tok::Int) fail(n, "unary '-' is only allowed before an integer literal");
      next();
      e.kind = Expr::Kind::Int;
      e.value = static_cast<int64_t>(0 - n.value);  // n.value <= 2^63, lexer-checked
      return e;
    }
    if (k.kind == Tok::LParen) {
      expect(Tok::LParen);
      Expr inner = expr(depth);
      expect(Tok::RParen);
      return inner;
    }
    if (is_word("dim") || is_word("read")) {  // dim(T, INT) or read(T, [EXPR, ...])
      const bool dim = is_word("dim");
      next();
      e.kind = dim ? Expr::Kind::Dim : Expr::Kind::Read;
      expect(Tok::LParen);
      e.name = tensor_then_comma();
      if (dim)
        e.value = nonneg_int("a dimension index");
      else
        e.args = list();
      expect(Tok::RParen);
      return e;
    }
    if (k.kind == Tok::Ident) {
      e.kind = Expr::Kind::Var;
      e.name = ident("a name");
      return e;
    }
    fail(k, fmt::format("expected an expression, found {}", describe(k)));
  }
};

}  // namespace

ParseResult parse_program(std::string_view text, const ParseLimits& limits) {
  if (text.size() > limits.max_bytes)
    return ParseResult{ParseError{
        1, 1, fmt::format("input of {} bytes exceeds the limit of {} bytes", text.size(), limits.max_bytes)}};
  std::vector<Token> toks;
  LexError lerr;
  if (!lex(text, toks, lerr)) return ParseResult{ParseError{lerr.line, lerr.column, lerr.message}};
  try {
    Parser p(toks, limits);
    return ParseResult{p.program()};
  } catch (const ParseFailure& f) {
    return ParseResult{f.error};
  }
}

}  // namespace stackcheck::ir
