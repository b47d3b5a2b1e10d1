// `.plan` parser (parser.h): an on-demand lexer with one token of lookahead and a
// recursive-descent parser whose recursion is bounded by the nesting limit. Errors unwind
// through one internal exception type, caught in parse_plan; nothing escapes.
#include "stack/runtime/plan/parser.h"

#include <fmt/format.h>

#include <optional>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

namespace stackcheck::runtime {
namespace {

struct Failure {
  PlanError error;
};

struct Token {
  enum class Kind : uint8_t { Id, Int, Punct, Newline, End };
  Kind kind = Kind::End;
  std::string_view text;  // Id, Punct: the spelling
  uint64_t value = 0;     // Int: <= 2^63
  uint32_t line = 1, column = 1;
  PlanLoc loc() const { return PlanLoc{line, column}; }
};

constexpr uint64_t kTwoPow63 = 1ull << 63;

class Lexer {
 public:
  explicit Lexer(std::string_view text) : s_(text) {}

  // long: one branch per token class of the .plan text (RUNTIME.md §17), tried in a fixed
  // order over one cursor.
  Token next() {
    // Spaces, tabs and comments separate tokens; a comment runs to the end of its line.
    while (pos_ < s_.size()) {
      const char c = s_[pos_];
      if (c == ' ' || c == '\t') {
        advance(1);
      } else if (c == '#') {
        while (pos_ < s_.size() && s_[pos_] != '\n') {
          if (s_[pos_] == '\r') fail_here("carriage return (CRLF line endings are not accepted)");
          advance(1);
        }
      } else {
        break;
      }
    }
    Token t;
    t.line = line_;
    t.column = col_;
    if (pos_ >= s_.size()) return t;
    const char c = s_[pos_];
    if (c == '\n') {
      t.kind = Token::Kind::Newline;
      ++pos_;
      ++line_;
      col_ = 1;
      return t;
    }
    if (c == '\r') fail_here("carriage return (CRLF line endings are not accepted)");
    if (is_alpha(c)) {
      size_t n = 1;
      while (pos_ + n < s_.size() && (is_alpha(s_[pos_ + n]) || is_digit(s_[pos_ + n]))) ++n;
      t.kind = Token::Kind::Id;
      t.text = s_.substr(pos_, n);
      advance(n);
      return t;
    }
    if (is_digit(c)) {
      uint64_t v = 0;
      size_t n = 0;
      bool big = false;
      while (pos_ + n < s_.size() && is_digit(s_[pos_ + n])) {
        const uint64_t d = static_cast<uint64_t>(s_[pos_ + n] - '0');
        if (v > (kTwoPow63 - d) / 10)
          big = true;  // v*10+d > 2^63
        else
          v = v * 10 + d;
        ++n;
      }
      if (big) throw Failure{{t.line, t.column, "integer literal too large"}};
      t.kind = Token::Kind::Int;
      t.value = v;
      t.text = s_.substr(pos_, n);
      advance(n);
      return t;
    }
    t.kind = Token::Kind::Punct;
    const char d = pos_ + 1 < s_.size() ? s_[pos_ + 1] : '\0';
    size_t n = 0;
    switch (c) {
      case '(':
      case ')':
      case '[':
      case ']':
      case '{':
      case '}':
      case ',':
      case ':':
      case '$':
      case '+':
      case '-':
      case '*':
      case '/':
      case '%': n = 1; break;
      case '=':
      case '<':
      case '>': n = d == '=' ? 2 : 1; break;
      case '!':
        if (d == '=') n = 2;
        break;
      default: break;
    }
    if (n == 0) {
      const auto u = static_cast<unsigned char>(c);
      fail_here(u >= 0x21 && u < 0x7f ? fmt::format("unexpected character '{}'", c)
                                      : fmt::format("unexpected byte 0x{:02x}", u));
    }
    t.text = s_.substr(pos_, n);
    advance(n);
    return t;
  }

 private:
  static bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
  static bool is_digit(char c) { return c >= '0' && c <= '9'; }
  void advance(size_t n) {
    pos_ += n;
    col_ += static_cast<uint32_t>(n);
  }
  [[noreturn]] void fail_here(std::string msg) { throw Failure{{line_, col_, std::move(msg)}}; }

  std::string_view s_;
  size_t pos_ = 0;
  uint32_t line_ = 1, col_ = 1;
};

std::string describe(const Token& t) {
  switch (t.kind) {
    case Token::Kind::Id: return fmt::format("'{}'", t.text);
    case Token::Kind::Int: return fmt::format("integer {}", t.text);
    case Token::Kind::Punct: return fmt::format("'{}'", t.text);
    case Token::Kind::Newline: return "end of line";
    case Token::Kind::End: return "end of input";
  }
  return "?";
}

class Parser {
 public:
  Parser(std::string_view text, const PlanLimits& lim) : lex_(text), lim_(lim) { tok_ = lex_.next(); }

  OrchProgram program() {
    OrchProgram p;
    skip_newlines();
    if (is_word("config")) {
      next();
      do {
        ConfigEntry e;
        e.loc = tok_.loc();
        e.key = std::string(expect_id("a config key").text);
        expect_punct("=");
        e.value = signed_int("a config value");
        p.config.push_back(std::move(e));
      } while (tok_.kind == Token::Kind::Id);
      end_line();
      skip_newlines();
    }
    while (is_word("tensor")) {
      p.tensors.push_back(entry_tensor());
      end_line();
      skip_newlines();
    }
    while (tok_.kind != Token::Kind::End && !is_word("mutate")) {
      if (is_word("graph"))
        p.graphs.push_back(graph());
      else if (is_word("tensor"))
        fail(tok_, "entry tensors must come before graphs and statements");
      else if (is_word("config"))
        fail(tok_, "config must be the first line");
      else
        p.body.push_back(stmt(false));
      end_line();
      skip_newlines();
    }
    while (tok_.kind != Token::Kind::End) {
      if (!is_word("mutate"))
        fail(tok_, fmt::format("expected 'mutate' after a mutate line, found {}", describe(tok_)));
      Mutation m;
      m.loc = tok_.loc();
      next();
      if (is_word("header")) {
        m.target = MutationTarget::kRuntimeHeader;
        next();
      }
      m.offset = plain_int("a mutate offset");
      const Token vt = tok_;
      const uint64_t v = plain_int("a mutate value");
      if (v > 255) fail(vt, "mutate value is not in 0..255");
      m.value = static_cast<uint8_t>(v);
      p.mutations.push_back(m);
      end_line();
      skip_newlines();
    }
    return p;
  }

  // The first submit_graph (text order) that names a graph defined only after it (§17: a
  // graph is defined before its first use), as the error at that use.
  std::optional<PlanError> use_before_definition() const {
    for (const auto& [loc, graph] : early_uses_)
      if (graphs_seen_.count(graph) != 0) return PlanError{loc.line, loc.column, graph_used_before_definition(graph)};
    return std::nullopt;
  }

 private:
  [[noreturn]] void fail(const Token& t, std::string msg) { throw Failure{{t.line, t.column, std::move(msg)}}; }

  void next() {
    if (tok_.kind == Token::Kind::Punct) {
      const char c = tok_.text[0];
      if (c == '(' || c == '[' || c == '{') {
        if (++nesting_ > lim_.max_nesting) fail(tok_, fmt::format("nesting deeper than {}", lim_.max_nesting));
      } else if ((c == ')' || c == ']' || c == '}') && nesting_ > 0) {
        --nesting_;
      }
    }
    tok_ = lex_.next();
  }
  bool is_word(std::string_view w) const { return tok_.kind == Token::Kind::Id && tok_.text == w; }
  bool is_punct(std::string_view p) const { return tok_.kind == Token::Kind::Punct && tok_.text == p; }
  void skip_newlines() {
    while (tok_.kind == Token::Kind::Newline) next();
  }
  void end_line() {
    if (tok_.kind == Token::Kind::End) return;
    if (tok_.kind != Token::Kind::Newline) fail(tok_, fmt::format("expected end of line, found {}", describe(tok_)));
    next();
  }
  void expect_punct(std::string_view p) {
    if (!is_punct(p)) fail(tok_, fmt::format("expected '{}', found {}", p, describe(tok_)));
    next();
  }
  Token expect_id(const char* what) {
    if (tok_.kind != Token::Kind::Id) fail(tok_, fmt::format("expected {}, found {}", what, describe(tok_)));
    Token t = tok_;
    next();
    return t;
  }
  std::string name(const char* what = "a name") {
    if (tok_.kind == Token::Kind::Id && is_plan_keyword(tok_.text))
      fail(tok_, fmt::format("expected {}, found keyword '{}'", what, tok_.text));
    return std::string(expect_id(what).text);
  }
  // `NAME =`: the name bound.
  std::string bound_name(const char* what = "a name") {
    std::string n = name(what);
    expect_punct("=");
    return n;
  }
  // INT <= 2^63-1.
  uint64_t plain_int(const char* what) {
    if (tok_.kind != Token::Kind::Int) fail(tok_, fmt::format("expected {}, found {}", what, describe(tok_)));
    if (tok_.value == kTwoPow63) fail(tok_, "integer literal too large");
    const uint64_t v = tok_.value;
    next();
    return v;
  }
  // ["-"] INT as an i64 (2^63 only after the minus).
  int64_t signed_int(const char* what) {
    if (!is_punct("-")) return static_cast<int64_t>(plain_int(what));
    next();
    if (tok_.kind != Token::Kind::Int) fail(tok_, fmt::format("expected {}, found {}", what, describe(tok_)));
    const int64_t v = static_cast<int64_t>(0 - tok_.value);  // 2^63 -> INT64_MIN, wraps by design
    next();
    return v;
  }

  std::vector<int64_t> shape() {
    expect_punct("[");
    return dimensions<int64_t>([&] { return static_cast<int64_t>(plain_int("a dimension")); });
  }

  // The rest of a bracketed list after its '[': up to max_rank items, each read by item(),
  // separated by ',', then the ']'.
  template <class T, class Item>
  std::vector<T> dimensions(Item item) {
    std::vector<T> out;
    do {
      if (!out.empty()) next();  // the ','
      if (out.size() >= lim_.max_rank) fail(tok_, fmt::format("more than {} dimensions", lim_.max_rank));
      out.push_back(item());
    } while (is_punct(","));
    expect_punct("]");
    return out;
  }

  EntryTensor entry_tensor() {
    EntryTensor t;
    t.loc = tok_.loc();
    next();
    t.name = name();
    expect_punct(":");
    if (is_word("In"))
      t.inout = false;
    else if (is_word("InOut"))
      t.inout = true;
    else
      fail(tok_, fmt::format("expected 'In' or 'InOut', found {}", describe(tok_)));
    next();
    t.shape = shape();
    return t;
  }

  PlanGraph graph() {
    PlanGraph g;
    g.loc = tok_.loc();
    next();
    g.name = name("a graph name");
    graphs_seen_.insert(g.name);  // from its header on: a use in its own body latches 5 at run time
    expect_punct("(");
    if (!is_punct(")")) {
      g.params.push_back(name("a parameter name"));
      while (is_punct(",")) {
        next();
        g.params.push_back(name("a parameter name"));
      }
    }
    expect_punct(")");
    g.body = block(true);
    return g;
  }

  PlanBlock block(bool in_graph) {
    expect_punct("{");
    if (tok_.kind != Token::Kind::Newline)
      fail(tok_, fmt::format("expected end of line after '{{', found {}", describe(tok_)));
    skip_newlines();
    PlanBlock b;
    while (!is_punct("}")) {
      if (tok_.kind == Token::Kind::End) fail(tok_, "expected '}' before end of input");
      b.push_back(stmt(in_graph));
      if (tok_.kind != Token::Kind::Newline) fail(tok_, fmt::format("expected end of line, found {}", describe(tok_)));
      skip_newlines();
    }
    next();  // '}'
    return b;
  }

  // ---- expressions ----
  struct Built {
    PlanExpr e;
    unsigned depth;
  };
  Built combine(PlanBinOp op, Built l, Built r, const Token& at) {
    const unsigned d = 1 + std::max(l.depth, r.depth);
    if (d > lim_.max_expr_depth) fail(at, fmt::format("expression deeper than {}", lim_.max_expr_depth));
    const PlanLoc loc = l.e.loc;
    return {PlanExpr::binary(op, std::move(l.e), std::move(r.e), loc), d};
  }
  Built expr_rec() {
    Built l = term();
    while (is_punct("+") || is_punct("-")) {
      const Token op = tok_;
      next();
      l = combine(op.text == "+" ? PlanBinOp::Add : PlanBinOp::Sub, std::move(l), term(), op);
    }
    return l;
  }
  Built term() {
    Built l = atom();
    while (is_punct("*") || is_punct("/") || is_punct("%")) {
      const Token op = tok_;
      next();
      const PlanBinOp o = op.text == "*" ? PlanBinOp::Mul : op.text == "/" ? PlanBinOp::Div : PlanBinOp::Mod;
      l = combine(o, std::move(l), atom(), op);
    }
    return l;
  }
  Built atom() {
    const Token t = tok_;
    if (t.kind == Token::Kind::Int)
      return {PlanExpr::integer(static_cast<int64_t>(plain_int("an integer")), t.loc()), 1};
    if (is_punct("-")) return {PlanExpr::integer(signed_int("an integer after '-'"), t.loc()), 1};
    if (is_punct("$")) {
      next();
      return {PlanExpr::slot(static_cast<int64_t>(plain_int("a slot number after '$'")), t.loc()), 1};
    }
    if (is_punct("(")) {
      next();
      Built e = expr_rec();
      expect_punct(")");
      return e;
    }
    if (t.kind == Token::Kind::Id) return {PlanExpr::named(name("an expression"), t.loc()), 1};
    fail(t, fmt::format("expected an expression, found {}", describe(t)));
  }
  PlanExpr expr() { return expr_rec().e; }

  PlanCmp cmp() {
    static constexpr std::pair<std::string_view, PlanCmp> kCmps[] = {{"==", PlanCmp::Eq}, {"!=", PlanCmp::Ne},
                                                                     {"<", PlanCmp::Lt},  {"<=", PlanCmp::Le},
                                                                     {">", PlanCmp::Gt},  {">=", PlanCmp::Ge}};
    for (const auto& [s, c] : kCmps)
      if (is_punct(s)) {
        next();
        return c;
      }
    fail(tok_, fmt::format("expected a comparison, found {}", describe(tok_)));
  }

  PlanWindow window() {
    PlanWindow w;
    w.loc = tok_.loc();
    w.name = name("a tensor name");
    if (!is_punct("[")) return w;
    next();
    w.ranges = dimensions<PlanRange>([&] {
      PlanRange r;
      r.offset = expr();
      expect_punct(":");
      r.size = static_cast<int64_t>(plain_int("a window size"));
      return r;
    });
    return w;
  }

  PlanArg arg() {
    PlanArg a;
    a.loc = tok_.loc();
    if (tok_.kind != Token::Kind::Id) fail(tok_, fmt::format("expected an argument tag, found {}", describe(tok_)));
    const std::string_view w = tok_.text;
    if (w == "input")
      a.tag = PlanTag::Input;
    else if (w == "inout")
      a.tag = PlanTag::Inout;
    else if (w == "output")
      a.tag = PlanTag::Output;
    else if (w == "output_existing")
      a.tag = PlanTag::OutputExisting;
    else if (w == "no_dep")
      a.tag = PlanTag::NoDep;
    else if (w == "scalar")
      a.tag = PlanTag::Scalar;
    else
      fail(tok_,
           fmt::format("expected an argument tag (input, inout, output, output_existing, no_dep, scalar), found {}",
                       describe(tok_)));
    next();
    if (a.tag == PlanTag::Output) {
      a.out_name = name();
      expect_punct(":");
      a.out_shape = shape();
    } else if (a.tag == PlanTag::Scalar) {
      a.scalar = expr();
    } else {
      a.window = window();
    }
    return a;
  }

  std::vector<PlanArg> args() {
    expect_punct("(");
    std::vector<PlanArg> as;
    as.reserve(4);  // most launches take four arguments or fewer: one block, not three
    if (!is_punct(")")) {
      as.push_back(arg());
      while (is_punct(",")) {
        next();
        as.push_back(arg());
      }
    }
    expect_punct(")");
    return as;
  }

  // long: one short branch per statement keyword of §17's grammar, dispatched on the keyword.
  PlanStmt stmt(bool in_graph) {
    PlanStmt s;
    s.loc = tok_.loc();
    const Token kw = tok_;
    if (kw.kind != Token::Kind::Id) fail(kw, fmt::format("expected a statement, found {}", describe(kw)));
    const std::string_view w = kw.text;
    if (w == "graph")
      fail(kw, in_graph ? "graphs cannot be defined inside a block" : "graphs are defined at top level only");
    if (w == "scope_begin") {
      next();
      s.node = ScopeBeginStmt{};
    } else if (w == "scope_end") {
      next();
      s.node = ScopeEndStmt{};
    } else if (w == "fatal") {
      next();
      s.node = FatalStmt{};
    } else if (w == "wait_tensor") {
      next();
      s.node = WaitTensorStmt{name("a tensor name")};
    } else if (w == "sync_start") {
      next();
      s.node = SyncStartStmt{static_cast<int64_t>(plain_int("a block count"))};
    } else if (w == "alloc") {
      next();
      AllocStmt a;
      do {
        if (!a.buffers.empty()) next();  // the ','
        PlanBuffer b;
        b.name = name("a buffer name");
        expect_punct(":");
        b.shape = shape();
        a.buffers.push_back(std::move(b));
      } while (is_punct(","));
      s.node = std::move(a);
    } else if (w == "view") {
      next();
      s.node = ViewStmt{bound_name(), window()};  // a braced list runs left to right
    } else if (w == "set") {
      next();
      s.node = SetStmt{bound_name(), expr()};
    } else if (w == "read") {
      next();
      ReadStmt r;
      r.name = bound_name();
      r.tensor = name("a tensor name");
      expect_punct("[");
      do {
        if (!r.index.empty()) next();  // the ','
        if (r.index.size() >= lim_.max_rank) fail(tok_, fmt::format("more than {} indices", lim_.max_rank));
        r.index.push_back(expr());
      } while (is_punct(","));
      expect_punct("]");
      s.node = std::move(r);
    } else if (w == "submit") {
      next();
      const Token bt = tok_;
      const std::string b = std::string(expect_id("a builtin name").text);
      auto builtin = builtin_from_name(b);
      if (!builtin) fail(bt, fmt::format("unknown builtin '{}' (fill, copy, add, acc, scale, matmul, rowsum)", b));
      s.node = SubmitStmt{*builtin, args()};
    } else if (w == "submit_graph") {
      next();
      SubmitGraphStmt g;
      g.graph = name("a graph name");
      if (graphs_seen_.count(g.graph) == 0) early_uses_.emplace_back(s.loc, g.graph);
      g.args = args();
      s.node = std::move(g);
    } else if (w == "for") {
      next();
      ForStmt f;
      f.var = bound_name("a loop variable");
      f.start = expr();
      expect_punct(",");
      f.stop = expr();
      expect_punct(",");
      f.step = expr();
      f.body = block(in_graph);
      s.node = std::move(f);
    } else if (w == "if") {
      next();
      IfStmt i;
      i.lhs = expr();
      i.cmp = cmp();
      i.rhs = expr();
      i.then_body = block(in_graph);
      if (is_word("else")) {
        next();
        i.else_body = block(in_graph);
      }
      s.node = std::move(i);
    } else {
      fail(kw, fmt::format("expected a statement, found {}", describe(kw)));
    }
    return s;
  }

  Lexer lex_;
  const PlanLimits& lim_;
  Token tok_;
  unsigned nesting_ = 0;
  std::unordered_set<std::string> graphs_seen_;              // graph headers so far
  std::vector<std::pair<PlanLoc, std::string>> early_uses_;  // submit_graph before its name was seen
};

}  // namespace

PlanParseResult parse_plan(std::string_view text, const PlanLimits& limits) {
  if (text.size() > limits.max_bytes)
    return {PlanError{1, 1, fmt::format("input of {} bytes exceeds the {}-byte limit", text.size(), limits.max_bytes)}};
  try {
    Parser parser(text, limits);
    OrchProgram p = parser.program();
    // Of the static checks' first error and the first use before a definition, the one
    // earlier in the text (the program keeps no trace of where its graphs stood).
    std::optional<PlanError> err = validate_plan(p, limits);
    if (std::optional<PlanError> early = parser.use_before_definition())
      if (!err || std::pair(early->line, early->column) < std::pair(err->line, err->column)) err = std::move(early);
    if (err) return {std::move(*err)};
    return {std::move(p)};
  } catch (const Failure& f) {
    return {f.error};
  }
}

}  // namespace stackcheck::runtime
