// Internals of WellFormed (see ../well_formed.h and the banner of ../well_formed.cpp): the
// per-function checker and the program-wide facts it reads, split by concern into
// names.cpp (names, scopes, params, kernels), expressions.cpp, statements.cpp (statements,
// assignments, shapes and views) and calls.cpp (calls, submits and their arguments).
// Private to the verifier: nothing outside stack/verify/well_formed* includes it.
#pragma once

#include <boost/container/small_vector.hpp>

#include "stack/ir/ast.h"
#include "stack/ir/rpi.h"
#include "stack/ir/walk.h"
#include "stack/support/limits.h"
#include "stack/ir/diagnostic.h"

#include <cstddef>
#include <cstdint>
#include <memory_resource>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace stackcheck::verify::well_formed {

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

inline constexpr int64_t kMaxElements = support::kTensorMaxElements;

// Why `t` is not a valid type, or nullopt (rank before dims, dims before their product).
std::optional<std::string> type_problem(const Type& t);
bool same_type(const Type& a, const Type& b);
const char* kind_text(Function::Kind k);

// Facts about the whole program that every function's check needs.
struct ProgramInfo {
  const ir::Program& program;
  std::pmr::unordered_map<std::string_view, size_t> first;  // name -> index of its first function
  ir::RpiTable rpi;
  std::vector<size_t> component;  // strongly connected component of each function

  // `scratch` holds the check's own tables (well_formed.cpp: an arena per check).
  ProgramInfo(const ir::Program& p, std::pmr::memory_resource* scratch);

  const Function* find(std::string_view name) const {
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

// What a tensor use is for, in messages: a fixed role, or the argument for a callee's param
// (formatted only when a message needs it).
struct Role {
  const char* what = "";
  const ir::Param* param = nullptr;
  const Function* callee = nullptr;

  Role(const char* w) : what(w) {}  // NOLINT: a fixed role reads as its text
  Role(const ir::Param& p, const Function& g) : param(&p), callee(&g) {}
  std::string text() const;
};

struct ExprResult {
  bool ok = true;                // nothing in the expression was reported or poisoned
  std::optional<int64_t> value;  // static value (set only when ok)
  bool literal = true;           // no names other than dim's tensor (COMPILER.md §3)
};

class FunctionChecker {
 public:
  // The checker's tables live in `scratch` (names are views of the program's strings).
  FunctionChecker(const ProgramInfo& info, size_t index, ir::Diagnostics& out, std::pmr::memory_resource* scratch)
      : info_(info),
        index_(index),
        f_(info.program.functions[index]),
        out_(out),
        scratch_(scratch),
        visible_(scratch),
        scopes_(scratch),
        defined_(scratch),
        all_defs_(scratch) {}

  // Checks the function; diagnostics go to `out` (well_formed.cpp).
  void run();

  // Walk hooks (statements.cpp): a statement is checked before the lists it holds; every
  // nested list is a scope (a for body's starts with the loop variable).
  void visit(const Stmt& s, const ir::Place& at);
  void enter_block(const std::vector<Stmt>&, const ir::Place& at);
  void leave_block(const std::vector<Stmt>&, const ir::Place& at);

 private:
  void report(int code, Loc loc, std::string message) {
    out_.push_back(ir::Diagnostic{"WellFormed", code, ir::Location{f_.name, loc.line, loc.column}, std::move(message)});
  }

  // ---- names and scopes; params and kernels (names.cpp) -------------------------------
  void define(std::string_view name, Binding b, Loc loc);
  void open_scope() { scopes_.emplace_back(); }
  void close_scope();
  // The binding `name` refers to here, or nullptr after reporting why there is none.
  const Binding* use(std::string_view name, Loc loc);
  // Reports a tuple or task id used as a value; true if `b` is one.
  bool misused_tuple(const Binding& b, std::string_view name, Loc loc);
  // The tensor `name` names here, or nullptr (reported unless poisoned).
  const TensorVal* tensor_use(std::string_view name, Loc loc, const Role& role);
  bool writable(const TensorVal& t) const;
  std::string root_text(const TensorVal& t) const;
  void check_params();
  void check_kernel();

  // ---- expressions (expressions.cpp) --------------------------------------------------
  ExprResult scalar_var(const Expr& e);
  ExprResult dim_expr(const Expr& e);
  // Pops the read's index results off `results`; returns the read's.
  ExprResult read_post(const Expr& e, const TensorVal* t, std::pmr::vector<ExprResult>& results);
  // Checks a scalar expression; post-order with an explicit stack (see the banner).
  ExprResult scalar(const Expr& root);

  // ---- statements and assignments (statements.cpp) ------------------------------------
  void return_stmt(const Stmt& s, bool last_top);
  void assign(const Stmt& s);
  void assign_rhs(const Stmt& s, const ir::ExprRhs& rhs);
  void assign_rhs(const Stmt& s, const ir::InvokeRhs& rhs);
  void assign_rhs(const Stmt& s, const ir::TupleGetRhs& rhs);
  // A create/full shape: static, rank 1..3, dims >= 1, <= 65,536 elements.
  std::optional<Type> shape(const std::vector<Expr>& exprs, Loc loc, const char* what);
  void assign_rhs(const Stmt& s, const ir::CreateRhs& rhs);
  void assign_rhs(const Stmt& s, const ir::FullRhs& rhs);
  // Static offsets of a view: one per axis; nullopt entries are dynamic or erroneous.
  boost::container::small_vector<std::optional<int64_t>, 4> offsets(const std::vector<Expr>& exprs);
  void assign_rhs(const Stmt& s, const ir::SliceRhs& rhs);
  void assign_rhs(const Stmt& s, const ir::AssembleRhs& rhs);

  // ---- calls (calls.cpp) --------------------------------------------------------------
  // Arguments when they cannot be matched to params: only their own uses are checked.
  void loose_args(const ir::Invoke& inv);
  // Checks a call/submit; returns its result tensors (one per callee return), or nullopt
  // when the callee cannot be used at all.
  std::optional<std::vector<TensorVal>> invoke(const ir::Invoke& inv);
  // Checks argument i against param i of g; returns it when it is a tensor.
  std::optional<TensorVal> argument(const ir::Invoke& inv, const Function& g, size_t i);

  const ProgramInfo& info_;
  size_t index_;
  const Function& f_;
  ir::Diagnostics& out_;
  std::pmr::memory_resource* scratch_;
  std::pmr::unordered_map<std::string_view, Binding> visible_;  // names visible at this point
  std::pmr::vector<std::pmr::vector<std::string_view>> scopes_;  // names bound per open block
  std::pmr::unordered_set<std::string_view> defined_;           // names defined so far (any block)
  std::pmr::unordered_set<std::string_view> all_defs_;          // every statement-defined name
};

}  // namespace stackcheck::verify::well_formed
