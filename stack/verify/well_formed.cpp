// WellFormed (COMPILER.md §1, §2, §4; codes 1-14). One forward walk per function in
// program order, with a scope stack for SSA visibility, a binding per name (scalar with its
// static value, tensor with its type and root, tuple, task id, or poison after an error so
// one mistake is reported once), and program-wide facts computed up front: the first
// function of each name, rpi (ir/rpi.h) and the call graph's strongly connected components.
// Every lookup checks structure first; expressions are walked without recursion because a
// long `a + b + ...` chain is a deep tree the parser's nesting cap does not bound.
#include "stack/verify/well_formed.h"

#include "stack/ir/arith.h"
#include "stack/ir/printer.h"
#include "stack/ir/rpi.h"
#include "stack/ir/walk.h"
#include "stack/support/limits.h"
#include "stack/verify/builtins.h"

#include <fmt/format.h>
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/strong_components.hpp>

#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <variant>
#include <vector>

namespace stackcheck::verify {
namespace {

using ir::Expr;
using ir::Function;
using ir::Loc;
using ir::Stmt;
using ir::Type;

enum Code : int {
  kFunctions = 1,    // duplicate function, not exactly one orchestration
  kRedefined = 2,    // name defined twice
  kUndefined = 3,    // undefined, out-of-scope or early use
  kCallee = 4,       // unknown callee/builtin, entry called, call cycle
  kArity = 5,        // argument count != param count
  kKind = 6,         // argument kind/type/shape != param; tensor as scalar or reverse
  kNotWritable = 7,  // Out/InOut argument or assemble target rooted at an In param
  kDirection = 8,    // scalar param not In, entry Out param
  kBadType = 9,      // bad type, create/full shape
  kKernel = 10,      // kernel vs builtin, kernel returns
  kView = 11,        // slice/assemble/dim/read rank, size, static bounds
  kTuple = 12,       // tuple, task id or no-result call misused
  kZero = 13,        // static zero divisor, literal zero step
  kReturn = 14,      // return not last or != declared
};

constexpr int64_t kMaxElements = support::kTensorMaxElements;

// Why `t` is not a valid type, or nullopt. Checks rank before dims and dims one by one
// before their product, so huge dims can never overflow the element count.
std::optional<std::string> type_problem(const Type& t) {
  if (!t.is_tensor()) {
    if (!t.dims.empty()) return "an i64 type has no dims";
    return std::nullopt;
  }
  if (t.dtype != "i32") return fmt::format("element type must be i32, found '{}'", t.dtype);
  if (t.dims.empty() || t.dims.size() > 3) return fmt::format("rank {} (must be 1..3)", t.dims.size());
  int64_t elements = 1;
  for (size_t i = 0; i < t.dims.size(); ++i) {
    if (t.dims[i] < 1) return fmt::format("dim {} is {} (must be >= 1)", i, t.dims[i]);
    if (t.dims[i] > kMaxElements) {
      return fmt::format("dim {} is {} (at most {} elements)", i, t.dims[i], kMaxElements);
    }
    elements *= t.dims[i];  // <= 2^16 per dim, rank <= 3: no overflow
  }
  if (elements > kMaxElements) {
    return fmt::format("{} elements (at most {})", elements, kMaxElements);
  }
  return std::nullopt;
}

bool same_type(const Type& a, const Type& b) {
  return a.kind == b.kind && (!a.is_tensor() || (a.dtype == b.dtype && a.dims == b.dims));
}

// Facts about the whole program that every function's check needs.
struct ProgramInfo {
  const ir::Program& program;
  std::unordered_map<std::string, size_t> first;  // name -> index of its first function
  ir::RpiTable rpi;
  std::vector<size_t> component;  // strongly connected component of each function

  explicit ProgramInfo(const ir::Program& p) : program(p), rpi(p) {
    const size_t n = p.functions.size();
    for (size_t i = 0; i < n; ++i) first.emplace(p.functions[i].name, i);
    // A call f -> g lies on a cycle iff f and g share a component (g == f included).
    using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS>;
    Graph g(n);
    for (size_t i = 0; i < n; ++i) {
      ir::walk_statements(p.functions[i].body, [&](const Stmt& s) {
        if (const ir::Invoke* inv = ir::invoke_of(s)) {
          if (auto it = first.find(inv->callee); it != first.end()) boost::add_edge(i, it->second, g);
        }
      });
    }
    component.assign(n, 0);
    if (n > 0) {
      boost::strong_components(
          g, boost::make_iterator_property_map(component.begin(), boost::get(boost::vertex_index, g)));
    }
  }

  const Function* find(const std::string& name) const {
    auto it = first.find(name);
    return it == first.end() ? nullptr : &program.functions[it->second];
  }
};

struct TensorVal {
  std::optional<Type> type;          // nullopt: unknown (an error was already reported)
  std::optional<size_t> root_param;  // index of the root param; nullopt: a local buffer
};

enum class NameKind : uint8_t { Scalar, Tensor, Tuple, TaskId, Poison };

struct Binding {
  NameKind kind = NameKind::Poison;             // Poison: its definition was reported; uses are silent
  std::optional<int64_t> value;                 // Scalar: its static value
  TensorVal tensor;                             // Tensor
  std::vector<std::optional<TensorVal>> elems;  // Tuple: element k (nullopt: the task id)

  static Binding scalar(std::optional<int64_t> v) {
    Binding b;
    b.kind = NameKind::Scalar;
    b.value = v;
    return b;
  }
  static Binding of_tensor(TensorVal t) {
    Binding b;
    b.kind = NameKind::Tensor;
    b.tensor = std::move(t);
    return b;
  }
};

struct ExprResult {
  bool ok = true;                // nothing in the expression was reported or poisoned
  std::optional<int64_t> value;  // static value (set only when ok)
  bool literal = true;           // no names other than dim's tensor (COMPILER.md §3)
};

const char* kind_text(Function::Kind k) {
  switch (k) {
    case Function::Kind::Kernel: return "kernel";
    case Function::Kind::Graph: return "graph";
    case Function::Kind::Orchestration: return "orchestration";
  }
  return "function";
}

class FunctionChecker {
 public:
  FunctionChecker(const ProgramInfo& info, size_t index, Diagnostics& out)
      : info_(info), index_(index), f_(info.program.functions[index]), out_(out) {}

  void run() {
    scopes_.emplace_back();
    check_params();
    if (f_.kind == Function::Kind::Kernel) {
      check_kernel();
      return;
    }
    if (f_.kind == Function::Kind::Graph) {
      for (size_t j = 0; j < f_.results.size(); ++j) {
        const Type& t = f_.results[j];
        if (!t.is_tensor()) {
          report(kBadType, f_.loc, fmt::format("graph '{}': result {} is i64; graph results are tensors", f_.name, j));
        } else if (auto why = type_problem(t)) {
          report(kBadType, f_.loc, fmt::format("graph '{}': result {} has a bad type: {}", f_.name, j, *why));
        }
      }
    } else if (!f_.results.empty()) {
      report(kReturn, f_.loc, fmt::format("the entry '{}' declares results; it returns nothing", f_.name));
    }
    ir::walk_statements(f_.body, [&](const Stmt& s) {
      if (s.kind == Stmt::Kind::Assign || s.kind == Stmt::Kind::For) all_defs_.insert(s.name);
    });
    ir::walk_statements(f_.body, *this);
    // A missing final return is reported where the graph ends: at its last statement.
    const bool ends_with_return = !f_.body.empty() && f_.body.back().kind == Stmt::Kind::Return;
    if (f_.kind == Function::Kind::Graph && !f_.results.empty() && !ends_with_return) {
      report(
          kReturn, f_.body.empty() ? f_.loc : f_.body.back().loc,
          fmt::format("graph '{}' declares {} result(s) but does not end with `return`", f_.name, f_.results.size()));
    }
  }

 private:
  void report(int code, Loc loc, std::string message) {
    out_.push_back(Diagnostic{"WellFormed", code, Location{f_.name, loc.line, loc.column}, std::move(message)});
  }

  // ---- names and scopes --------------------------------------------------------------

  void define(const std::string& name, Binding b, Loc loc) {
    if (!defined_.insert(name).second) {
      report(kRedefined, loc,
             fmt::format("'{}' is defined twice in '{}' (names are defined once per function)", name, f_.name));
      if (visible_.count(name) != 0) return;  // keep the first, visible definition
    }
    visible_[name] = std::move(b);
    scopes_.back().push_back(name);
  }

  void open_scope() { scopes_.emplace_back(); }
  void close_scope() {
    for (const std::string& n : scopes_.back()) visible_.erase(n);
    scopes_.pop_back();
  }

  // The binding `name` refers to here, or nullptr after reporting why there is none.
  const Binding* use(const std::string& name, Loc loc) {
    auto it = visible_.find(name);
    if (it != visible_.end()) return &it->second;
    if (defined_.count(name) != 0) {
      report(kUndefined, loc, fmt::format("'{}' is used out of scope (its block has ended)", name));
    } else if (all_defs_.count(name) != 0) {
      report(kUndefined, loc, fmt::format("'{}' is used before its definition", name));
    } else {
      report(kUndefined, loc, fmt::format("undefined name '{}'", name));
    }
    return nullptr;
  }

  // Reports a tuple or task id used as a value; true if `b` is one.
  bool misused_tuple(const Binding& b, const std::string& name, Loc loc) {
    if (b.kind == NameKind::Tuple) {
      report(kTuple, loc, fmt::format("tuple '{}' can only be used as '{}.k'", name, name));
      return true;
    }
    if (b.kind == NameKind::TaskId) {
      report(kTuple, loc, fmt::format("task id '{}' may be bound but never used", name));
      return true;
    }
    return false;
  }

  // The tensor `name` names here, or nullptr (reported unless poisoned).
  const TensorVal* tensor_use(const std::string& name, Loc loc, const std::string& role) {
    const Binding* b = use(name, loc);
    if (b == nullptr || misused_tuple(*b, name, loc)) return nullptr;
    if (b->kind == NameKind::Scalar) {
      report(kKind, loc, fmt::format("scalar '{}' used as a tensor ({})", name, role));
      return nullptr;
    }
    return b->kind == NameKind::Tensor ? &b->tensor : nullptr;
  }

  bool writable(const TensorVal& t) const {
    return !t.root_param || *t.root_param >= f_.params.size() || f_.params[*t.root_param].dir != ir::Dir::In;
  }
  std::string root_text(const TensorVal& t) const {
    return fmt::format("its buffer is In param '{}' of '{}'", f_.params[*t.root_param].name, f_.name);
  }

  // ---- expressions -------------------------------------------------------------------

  ExprResult scalar_var(const Expr& e) {
    const Binding* b = use(e.name, e.loc);
    if (b == nullptr || misused_tuple(*b, e.name, e.loc)) return {false, std::nullopt, false};
    if (b->kind == NameKind::Tensor) {
      report(kKind, e.loc, fmt::format("tensor '{}' used as a scalar", e.name));
      return {false, std::nullopt, false};
    }
    if (b->kind != NameKind::Scalar) return {false, std::nullopt, false};
    return {true, b->value, false};
  }

  ExprResult dim_expr(const Expr& e) {
    const TensorVal* t = tensor_use(e.name, e.loc, "dim");
    if (t == nullptr || !t->type) return {false, std::nullopt, true};
    const auto& dims = t->type->dims;
    if (e.value < 0 || static_cast<uint64_t>(e.value) >= dims.size()) {
      report(kView, e.loc, fmt::format("dim({}, {}): axis out of range for rank {}", e.name, e.value, dims.size()));
      return {false, std::nullopt, true};
    }
    return {true, dims[static_cast<size_t>(e.value)], true};
  }

  ExprResult read_post(const Expr& e, const TensorVal* t, std::vector<ExprResult>& results) {
    const size_t n = e.args.size();
    ExprResult r{t != nullptr, std::nullopt, false};
    std::vector<ExprResult> idx(results.end() - static_cast<ptrdiff_t>(n), results.end());
    results.resize(results.size() - n);
    for (const ExprResult& a : idx) r.ok = r.ok && a.ok;
    if (t == nullptr || !t->type) return {false, std::nullopt, false};
    const auto& dims = t->type->dims;
    if (n != dims.size()) {
      report(kView, e.loc, fmt::format("read of '{}' has {} indices; its rank is {}", e.name, n, dims.size()));
      return {false, std::nullopt, false};
    }
    for (size_t k = 0; k < n; ++k) {
      if (idx[k].value && (*idx[k].value < 0 || *idx[k].value >= dims[k])) {
        report(kView, e.args[k].loc,
               fmt::format("read of '{}': index {} is {}, outside 0..{}", e.name, k, *idx[k].value, dims[k] - 1));
        r.ok = false;
      }
    }
    return r;
  }

  // Checks a scalar expression; post-order with an explicit stack (see the banner).
  ExprResult scalar(const Expr& root) {
    struct Frame {
      const Expr* e;
      bool post;
      const TensorVal* tensor;  // read: its tensor
    };
    std::vector<Frame> stack{{&root, false, nullptr}};
    std::vector<ExprResult> results;
    while (!stack.empty()) {
      const Frame fr = stack.back();
      stack.pop_back();
      const Expr& e = *fr.e;
      if (!fr.post) {
        switch (e.kind) {
          case Expr::Kind::Int: results.push_back({true, e.value, true}); break;
          case Expr::Kind::Var: results.push_back(scalar_var(e)); break;
          case Expr::Kind::Dim: results.push_back(dim_expr(e)); break;
          case Expr::Kind::Binary:
            if (e.args.size() != 2) {  // only reachable by code-built nodes
              results.push_back({false, std::nullopt, false});
              break;
            }
            stack.push_back({&e, true, nullptr});
            stack.push_back({&e.args[1], false, nullptr});
            stack.push_back({&e.args[0], false, nullptr});
            break;
          case Expr::Kind::Read:
            stack.push_back({&e, true, tensor_use(e.name, e.loc, "read")});
            for (size_t k = e.args.size(); k-- > 0;) stack.push_back({&e.args[k], false, nullptr});
            break;
        }
        continue;
      }
      if (e.kind == Expr::Kind::Read) {
        results.push_back(read_post(e, fr.tensor, results));
        continue;
      }
      const ExprResult rhs = results.back();
      results.pop_back();
      const ExprResult lhs = results.back();
      results.pop_back();
      ExprResult r{lhs.ok && rhs.ok, std::nullopt, lhs.literal && rhs.literal};
      if ((e.op == ir::BinOp::Div || e.op == ir::BinOp::Mod) && rhs.value && *rhs.value == 0) {
        report(kZero, e.args[1].loc, fmt::format("divisor of '{}' is statically zero", ir::binop_text(e.op)));
        r.ok = false;
      }
      if (r.ok && lhs.value && rhs.value) r.value = ir::apply_binop(e.op, *lhs.value, *rhs.value);
      results.push_back(r);
    }
    return results.empty() ? ExprResult{false, std::nullopt, false} : results.back();
  }

  // ---- params and kernels ------------------------------------------------------------

  void check_params() {
    const bool entry = f_.kind == Function::Kind::Orchestration;
    for (size_t i = 0; i < f_.params.size(); ++i) {
      const ir::Param& p = f_.params[i];
      const auto why = type_problem(p.type);
      if (why) report(kBadType, p.loc, fmt::format("param '{}' of '{}' has a bad type: {}", p.name, f_.name, *why));
      if (!p.type.is_tensor() && p.dir != ir::Dir::In) {
        report(
            kDirection, p.loc,
            fmt::format("scalar param '{}' of '{}' is {}; scalar params are In", p.name, f_.name, ir::dir_name(p.dir)));
      }
      if (entry && p.type.is_tensor() && p.dir == ir::Dir::Out) {
        report(kDirection, p.loc,
               fmt::format("entry param '{}' of '{}' is Out; entry tensors are In or InOut", p.name, f_.name));
      }
      Binding b = p.type.is_tensor()
                      ? Binding::of_tensor(TensorVal{why ? std::nullopt : std::optional<Type>(p.type), i})
                      : Binding::scalar(std::nullopt);
      define(p.name, std::move(b), p.loc);
    }
  }

  void check_kernel() {
    const Builtin* b = find_builtin(f_.builtin);
    if (b == nullptr) {
      report(kCallee, f_.loc, fmt::format("kernel '{}': unknown builtin '{}'", f_.name, f_.builtin));
    }
    std::vector<KernelMismatch> problems;
    if (b != nullptr) problems = kernel_binding_mismatches(f_, *b);
    for (KernelMismatch& m : kernel_return_mismatches(f_)) problems.push_back(std::move(m));
    for (const KernelMismatch& m : problems) {
      report(kKernel, m.param && *m.param < f_.params.size() ? f_.params[*m.param].loc : f_.loc, m.message);
    }
  }

  // ---- statements --------------------------------------------------------------------

 public:
  // Walk hooks: a statement is checked before the lists it holds; every nested list is a
  // scope (a for body's starts with the loop variable).
  void visit(const Stmt& s, const ir::Place& at) {
    switch (s.kind) {
      case Stmt::Kind::Assign: assign(s); break;
      case Stmt::Kind::Invoke: invoke(s.invoke); break;
      case Stmt::Kind::Return: return_stmt(s, at.top_level() && at.last()); break;
      case Stmt::Kind::For: {
        scalar(s.lo);
        scalar(s.hi);
        const ExprResult step = scalar(s.step);
        if (step.ok && step.literal && step.value == 0) {
          report(kZero, s.step.loc, fmt::format("loop '{}' has a zero step", s.name));
        }
        break;
      }
      case Stmt::Kind::If:
        scalar(ir::if_lhs(s));
        scalar(ir::if_rhs(s));
        break;
    }
  }
  void enter_block(const std::vector<Stmt>&, const ir::Place& at) {
    if (at.owner == nullptr) return;  // the body's names share the params' scope
    open_scope();
    if (at.owner->kind == Stmt::Kind::For) define(at.owner->name, Binding::scalar(std::nullopt), at.owner->loc);
  }
  void leave_block(const std::vector<Stmt>&, const ir::Place& at) {
    if (at.owner != nullptr) close_scope();
  }

 private:
  void return_stmt(const Stmt& s, bool last_top) {
    if (!last_top) {
      report(kReturn, s.loc, fmt::format("`return` must be the last statement of '{}'", f_.name));
    }
    if (f_.kind != Function::Kind::Graph) {
      if (!s.returns.empty()) {
        report(kReturn, s.loc, fmt::format("the entry '{}' returns nothing; found `return {}`", f_.name, s.returns[0]));
      }
      for (const std::string& n : s.returns) use(n, s.loc);
      return;
    }
    if (s.returns.size() != f_.results.size()) {
      report(
          kReturn, s.loc,
          fmt::format("graph '{}' declares {} result(s) but returns {}", f_.name, f_.results.size(), s.returns.size()));
    }
    for (size_t j = 0; j < s.returns.size(); ++j) {
      const std::string& n = s.returns[j];
      const Binding* b = use(n, s.loc);
      if (b == nullptr || misused_tuple(*b, n, s.loc) || j >= f_.results.size()) continue;
      const Type& declared = f_.results[j];
      if (b->kind == NameKind::Scalar) {
        report(kReturn, s.loc,
               fmt::format("graph '{}' returns scalar '{}' as result {} of type {}", f_.name, n, j,
                           ir::print_type(declared)));
      } else if (b->kind == NameKind::Tensor && b->tensor.type && !type_problem(declared) &&
                 !same_type(*b->tensor.type, declared)) {
        report(kReturn, s.loc,
               fmt::format("graph '{}' returns '{}' of type {} as result {}, declared {}", f_.name, n,
                           ir::print_type(*b->tensor.type), j, ir::print_type(declared)));
      }
    }
  }

  void assign(const Stmt& s) {
    std::visit([&](const auto& rhs) { assign_rhs(s, rhs); }, s.rhs);
  }

  void assign_rhs(const Stmt& s, const ir::ExprRhs& rhs) {
    const Expr& e = rhs.expr;
    if (e.kind != Expr::Kind::Var) {
      const ExprResult r = scalar(e);
      define(s.name, Binding::scalar(r.ok ? r.value : std::nullopt), s.loc);
      return;
    }
    // A bare name aliases: a tensor (same window and root) or a scalar (same value).
    const Binding* b = use(e.name, e.loc);
    Binding copy;
    if (b != nullptr && !misused_tuple(*b, e.name, e.loc) &&
        (b->kind == NameKind::Scalar || b->kind == NameKind::Tensor)) {
      copy = *b;
    }
    define(s.name, std::move(copy), s.loc);
  }

  void assign_rhs(const Stmt& s, const ir::InvokeRhs& rhs) {
    const auto results = invoke(rhs.invoke);
    Binding b;
    if (results && rhs.invoke.submit) {
      b.kind = NameKind::Tuple;
      for (const TensorVal& t : *results) b.elems.emplace_back(t);
      b.elems.emplace_back(std::nullopt);  // the task id
    } else if (results && results->empty()) {
      report(
          kTuple, s.loc,
          fmt::format("call of '{}' returns nothing; its result cannot be bound to '{}'", rhs.invoke.callee, s.name));
    } else if (results && results->size() == 1) {
      b = Binding::of_tensor((*results)[0]);
    } else if (results) {
      b.kind = NameKind::Tuple;
      for (const TensorVal& t : *results) b.elems.emplace_back(t);
    }
    define(s.name, std::move(b), s.loc);
  }

  void assign_rhs(const Stmt& s, const ir::TupleGetRhs& rhs) {
    const Binding* t = use(rhs.tuple, s.loc);
    Binding b;
    if (t != nullptr && t->kind != NameKind::Poison) {
      if (t->kind != NameKind::Tuple) {
        report(kTuple, s.loc, fmt::format("'{}.{}': '{}' is not a tuple", rhs.tuple, rhs.index, rhs.tuple));
      } else if (rhs.index < 0 || static_cast<uint64_t>(rhs.index) >= t->elems.size()) {
        report(kTuple, s.loc,
               fmt::format("'{}.{}': tuple '{}' has {} elements", rhs.tuple, rhs.index, rhs.tuple, t->elems.size()));
      } else if (const auto& el = t->elems[static_cast<size_t>(rhs.index)]) {
        b = Binding::of_tensor(*el);
      } else {
        b.kind = NameKind::TaskId;
      }
    }
    define(s.name, std::move(b), s.loc);
  }

  // A create/full shape: static, rank 1..3, dims >= 1, <= 65,536 elements.
  std::optional<Type> shape(const std::vector<Expr>& exprs, Loc loc, const char* what) {
    bool ok = true;
    std::vector<int64_t> dims;
    for (size_t i = 0; i < exprs.size(); ++i) {
      const ExprResult r = scalar(exprs[i]);
      if (!r.ok) {
        ok = false;
      } else if (!r.value) {
        report(kBadType, exprs[i].loc, fmt::format("{} shape: dim {} is not static", what, i));
        ok = false;
      } else {
        dims.push_back(*r.value);
      }
    }
    if (!ok) return std::nullopt;
    Type t = Type::tensor(std::move(dims));
    if (auto why = type_problem(t)) {
      report(kBadType, loc, fmt::format("{} shape: {}", what, *why));
      return std::nullopt;
    }
    return t;
  }

  void assign_rhs(const Stmt& s, const ir::CreateRhs& rhs) {
    define(s.name, Binding::of_tensor(TensorVal{shape(rhs.shape, s.loc, "create"), std::nullopt}), s.loc);
  }

  void assign_rhs(const Stmt& s, const ir::FullRhs& rhs) {
    auto t = shape(rhs.shape, s.loc, "full");
    scalar(rhs.value);
    define(s.name, Binding::of_tensor(TensorVal{std::move(t), std::nullopt}), s.loc);
  }

  // Static offsets of a view: one per axis; nullopt entries are dynamic or erroneous.
  std::vector<std::optional<int64_t>> offsets(const std::vector<Expr>& exprs) {
    std::vector<std::optional<int64_t>> out;
    for (const Expr& e : exprs) out.push_back(scalar(e).value);
    return out;
  }

  void assign_rhs(const Stmt& s, const ir::SliceRhs& rhs) {
    const TensorVal* src = tensor_use(rhs.source, s.loc, "slice source");
    const auto offs = offsets(rhs.offsets);
    if (src == nullptr) {
      define(s.name, Binding{}, s.loc);
      return;
    }
    TensorVal v{std::nullopt, src->root_param};
    Type t = Type::tensor(rhs.sizes);
    bool ok = !type_problem(t);
    if (src->type) {
      const auto& dims = src->type->dims;
      const size_t rank = dims.size();
      if (rhs.offsets.size() != rank || rhs.sizes.size() != rank) {
        report(kView, s.loc,
               fmt::format("slice of '{}' (rank {}) has {} offsets and {} sizes", rhs.source, rank, rhs.offsets.size(),
                           rhs.sizes.size()));
        ok = false;
      } else {
        for (size_t k = 0; k < rank; ++k) {
          const int64_t size = rhs.sizes[k];
          if (size < 1 || size > dims[k]) {
            report(kView, s.loc,
                   fmt::format("slice of '{}': size {} on axis {} is outside 1..{}", rhs.source, size, k, dims[k]));
            ok = false;
          } else if (offs[k] && (*offs[k] < 0 || *offs[k] > dims[k] - size)) {
            report(kView, rhs.offsets[k].loc,
                   fmt::format("slice of '{}': offset {} + size {} on axis {} is "
                               "outside 0..{}",
                               rhs.source, *offs[k], size, k, dims[k]));
            ok = false;
          }
        }
      }
    }
    if (ok) v.type = std::move(t);
    define(s.name, Binding::of_tensor(std::move(v)), s.loc);
  }

  void assign_rhs(const Stmt& s, const ir::AssembleRhs& rhs) {
    const TensorVal* tgt = tensor_use(rhs.target, s.loc, "assemble target");
    const TensorVal* src = tensor_use(rhs.source, s.loc, "assemble source");
    const auto offs = offsets(rhs.offsets);
    if (tgt == nullptr) {
      define(s.name, Binding{}, s.loc);
      return;
    }
    if (tgt->type) {
      const auto& td = tgt->type->dims;
      if (rhs.offsets.size() != td.size()) {
        report(kView, s.loc,
               fmt::format("assemble into '{}' (rank {}) has {} offsets", rhs.target, td.size(), rhs.offsets.size()));
      } else if (src != nullptr && src->type) {
        const auto& sd = src->type->dims;
        if (sd.size() != td.size()) {
          report(kView, s.loc,
                 fmt::format("assemble of '{}' (rank {}) into '{}' (rank {})", rhs.source, sd.size(), rhs.target,
                             td.size()));
        } else {
          for (size_t k = 0; k < td.size(); ++k) {
            if (sd[k] > td[k]) {
              report(kView, s.loc,
                     fmt::format("assemble of '{}' into '{}': size {} on axis {} exceeds {}", rhs.source, rhs.target,
                                 sd[k], k, td[k]));
            } else if (offs[k] && (*offs[k] < 0 || *offs[k] > td[k] - sd[k])) {
              report(kView, rhs.offsets[k].loc,
                     fmt::format("assemble into '{}': offset {} + size {} on axis {} "
                                 "is outside 0..{}",
                                 rhs.target, *offs[k], sd[k], k, td[k]));
            }
          }
        }
      }
    }
    if (!writable(*tgt)) {
      report(kNotWritable, s.loc, fmt::format("assemble target '{}' is not writable: {}", rhs.target, root_text(*tgt)));
    }
    define(s.name, Binding::of_tensor(*tgt), s.loc);
  }

  // ---- calls -------------------------------------------------------------------------

  // Arguments when they cannot be matched to params: only their own uses are checked.
  void loose_args(const ir::Invoke& inv) {
    for (const Expr& a : inv.args) {
      if (a.kind == Expr::Kind::Var) {
        if (const Binding* b = use(a.name, a.loc)) misused_tuple(*b, a.name, a.loc);
      } else {
        scalar(a);
      }
    }
  }

  // Checks a call/submit; returns its result tensors (one per callee return), or nullopt
  // when the callee cannot be used at all.
  std::optional<std::vector<TensorVal>> invoke(const ir::Invoke& inv) {
    const Function* g = info_.find(inv.callee);
    if (g == nullptr) {
      report(kCallee, inv.loc, fmt::format("unknown function '{}'", inv.callee));
      loose_args(inv);
      return std::nullopt;
    }
    if (g->kind == Function::Kind::Orchestration) {
      report(kCallee, inv.loc, fmt::format("the entry '{}' cannot be called", inv.callee));
      loose_args(inv);
      return std::nullopt;
    }
    const size_t gi = info_.first.at(inv.callee);
    if (g->kind == Function::Kind::Graph && info_.component[gi] == info_.component[index_]) {
      report(kCallee, inv.loc, fmt::format("call of '{}' from '{}' closes a call cycle", inv.callee, f_.name));
    }
    std::vector<std::optional<TensorVal>> arg_vals(inv.args.size());
    if (inv.args.size() != g->params.size()) {
      report(kArity, inv.loc,
             fmt::format("'{}' takes {} argument(s), {} given", inv.callee, g->params.size(), inv.args.size()));
      loose_args(inv);
    } else {
      for (size_t i = 0; i < inv.args.size(); ++i) arg_vals[i] = argument(inv, *g, i);
    }
    const ir::ReturnParams* rpi = info_.rpi.find(inv.callee);
    const bool kernel = g->kind == Function::Kind::Kernel;
    const size_t n = kernel ? g->kernel_returns.size() : g->results.size();
    std::vector<TensorVal> results(n);
    for (size_t j = 0; j < n; ++j) {
      std::optional<size_t> pi;
      if (rpi != nullptr && j < rpi->size()) pi = (*rpi)[j];
      const Type* t = kernel ? (pi && *pi < g->params.size() ? &g->params[*pi].type : nullptr) : &g->results[j];
      if (t != nullptr && t->is_tensor() && !type_problem(*t)) results[j].type = *t;
      // Result j is a window of the argument of param rpi[j]: it shares that root.
      if (pi && *pi < arg_vals.size() && arg_vals[*pi]) results[j].root_param = arg_vals[*pi]->root_param;
    }
    return results;
  }

  // Checks argument i against param i of g; returns it when it is a tensor.
  std::optional<TensorVal> argument(const ir::Invoke& inv, const Function& g, size_t i) {
    const Expr& a = inv.args[i];
    const ir::Param& p = g.params[i];
    if (!p.type.is_tensor()) {
      scalar(a);
      return std::nullopt;
    }
    const std::string role = fmt::format("argument for tensor param '{}' of '{}'", p.name, g.name);
    if (a.kind != Expr::Kind::Var) {
      if (scalar(a).ok) report(kKind, a.loc, fmt::format("a scalar expression is passed as the {}", role));
      return std::nullopt;
    }
    const TensorVal* t = tensor_use(a.name, a.loc, role);
    if (t == nullptr) return std::nullopt;
    if (t->type && !type_problem(p.type) && !same_type(*t->type, p.type)) {
      report(kKind, a.loc,
             fmt::format("'{}' of type {} is passed for param '{}: {}' of '{}'", a.name, ir::print_type(*t->type),
                         p.name, ir::print_type(p.type), g.name));
    }
    if (p.dir != ir::Dir::In && !writable(*t)) {
      report(kNotWritable, a.loc,
             fmt::format("'{}' is passed for {} param '{}' of '{}' but is not writable: {}", a.name,
                         ir::dir_name(p.dir), p.name, g.name, root_text(*t)));
    }
    return *t;
  }

  const ProgramInfo& info_;
  size_t index_;
  const Function& f_;
  Diagnostics& out_;
  std::unordered_map<std::string, Binding> visible_;  // names visible at this point
  std::vector<std::vector<std::string>> scopes_;      // names bound per open block
  std::unordered_set<std::string> defined_;           // names defined so far (any block)
  std::unordered_set<std::string> all_defs_;          // every statement-defined name
};

}  // namespace

Diagnostics check_well_formed(const ir::Program& p) {
  Diagnostics out;
  const ProgramInfo info(p);
  size_t entries = 0;
  for (const Function& f : p.functions) entries += f.kind == Function::Kind::Orchestration ? 1 : 0;
  if (entries == 0) {
    out.push_back(
        Diagnostic{"WellFormed", kFunctions, Location{}, "the program has no orchestration (entry) function"});
  }
  std::unordered_set<std::string> names;
  const Function* entry = nullptr;
  for (size_t i = 0; i < p.functions.size(); ++i) {
    const Function& f = p.functions[i];
    const Location loc{f.name, f.loc.line, f.loc.column};
    if (!names.insert(f.name).second) {
      out.push_back(
          Diagnostic{"WellFormed", kFunctions, loc,
                     fmt::format("{} '{}': a function of that name is already defined", kind_text(f.kind), f.name)});
    }
    if (f.kind == Function::Kind::Orchestration) {
      if (entry != nullptr) {
        out.push_back(Diagnostic{
            "WellFormed", kFunctions, loc,
            fmt::format("second orchestration '{}': the program's entry is already '{}'", f.name, entry->name)});
      } else {
        entry = &f;
      }
    }
    FunctionChecker(info, i, out).run();
  }
  return out;
}

}  // namespace stackcheck::verify
