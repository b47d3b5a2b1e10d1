// Internals of LegalizeGraphBoundary (see ../legalize_graph_boundary.h for the steps).
// Private to the pass: the verifier re-derives all of this on its own (COMPILER.md §4), so
// nothing here may be included from stack/verify/.
#pragma once

#include "stack/ir/ast.h"
#include "stack/ir/invariance.h"
#include "stack/ir/rpi.h"
#include "stack/ir/walk.h"
#include "stack/passes/legalize_graph_boundary.h"
#include "stack/support/arena.h"
#include "stack/support/limits.h"
#include "stack/ir/diagnostic.h"

#include <cstdint>
#include <memory_resource>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace stackcheck::passes::graph_boundary {

using Dims = ir::Dims;
inline constexpr const char* kRule = "LegalizeGraphBoundary";
inline constexpr size_t kMaxTensorParams = support::kGraphMaxTensors;
inline constexpr size_t kMaxScalarParams = support::kGraphMaxScalars;
inline constexpr uint64_t kMaxNodes = support::kGraphMaxNodes;
inline constexpr uint64_t kCreatesPerNode = support::kAllocMaxBuffers;

// Program-level lookups: functions by name (the first of a name) and rpi, and the scratch
// arena of the tables built over the program (FunctionTypes): released with the Context.
// The program must outlive the Context and stay unedited while it is used (its tables are
// keyed by views of the program's names).
class Context {
 public:
  explicit Context(const ir::Program& p);
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;
  const ir::Program& program() const { return program_; }
  const ir::Function* find(std::string_view name) const;
  bool is_kernel(std::string_view name) const;
  bool is_graph(std::string_view name) const;
  const ir::RpiTable& rpi() const { return rpi_; }
  std::pmr::memory_resource* scratch() const { return arena_.resource(); }

 private:
  const ir::Program& program_;
  mutable support::InlineArena<16384> arena_;
  std::pmr::unordered_map<std::string_view, const ir::Function*> functions_{arena_.resource()};
  ir::RpiTable rpi_;
};

// The names of one function with what the pass needs of their types (a forward walk), keyed
// by views of the function's names (it must outlive the table, unedited), nodes from `r`.
struct FunctionTypes {
  explicit FunctionTypes(std::pmr::memory_resource* r) : tensors(r), statics(r) {}
  // Every tensor name, with its dims where they are known (one table: one node per name).
  std::pmr::unordered_map<std::string_view, std::optional<Dims>> tensors;
  std::pmr::unordered_map<std::string_view, int64_t> statics;  // scalars bound to static exprs

  bool is_tensor(std::string_view n) const { return tensors.count(n) != 0; }
  const Dims* dims(std::string_view n) const;
  ir::DimsOf dims_of() const;
  ir::ValueOf static_value() const;
};
// Nodes from ctx.scratch(); f is a function of ctx.program().
FunctionTypes infer_types(const Context& ctx, const ir::Function& f);

// Type of result j of a call of `callee` (kernel: its returned param; graph: its declared
// result); nullptr when out of range or unknown.
const ir::Type* result_type(const ir::Function& callee, size_t j);
// Number of results of `callee` (kernel returns, graph results; 0 otherwise).
size_t result_count(const ir::Function& callee);

// Replay-invariance (§3) of the scalar names of one graph, by a forward walk: literals,
// vars of constant-trip loops, names bound to invariant exprs; never scalar params,
// `read` or other loop vars.
class Invariance {
 public:
  Invariance(const ir::Function& g, const ir::DimsOf& dims_of);
  bool expr(const ir::Expr& e) const;
  bool name(const std::string& n) const;

 private:
  std::unordered_map<std::string, bool> names_;
};

ir::Diagnostic make_diag(int code, const ir::Function& f, ir::Loc loc, std::string message);

// ---- step 1 and step 5 checks (checks.cpp) ---------------------------------------------
// 201-205 on the params of g.
void check_params(const ir::Function& g, ir::Diagnostics& out);
// Step 1: 201-209 (207 on every create) and 217 on the original g.
void check_original(const Context& ctx, const ir::Function& g, ir::Diagnostics& out);
// Step 5 on the rewritten program: 201-205, 211-216 on g; returns g's node count.
uint64_t check_result(const Context& ctx, const ir::Function& g, ir::Diagnostics& out);
// Step 5: 210 at every call site of g in the rewritten program.
void check_call_sites(const Context& ctx, const ir::Function& g, ir::Diagnostics& out);
// §4 node count of a statement list of a graph (saturating).
uint64_t count_nodes(const Context& ctx, const std::vector<ir::Stmt>& body, const ir::DimsOf& dims_of);

// ---- step 2 (collect.cpp) -------------------------------------------------------------
struct Hoist {
  HoistKind kind = HoistKind::Scalar;
  const ir::Stmt* def = nullptr;  // the definition in the original graph
  uint32_t depth = 0;
  ir::Dir dir = ir::Dir::In;
  ir::Type type;
  std::string source_root;  // View: root of the sliced name, a param of the rewritten graph
};
struct AliasDef {
  const ir::Stmt* def = nullptr;  // `name = target`
  std::string target;
};
struct Step {
  bool is_alias = false;
  size_t index = 0;  // into hoists or aliases
};
struct Collected {
  std::vector<Hoist> hoists;  // definition order
  std::vector<AliasDef> aliases;
  std::vector<Step> order;                                   // hoists and aliases together, definition order
  std::unordered_map<std::string, std::string> alias_param;  // alias -> the chain's param
  std::unordered_set<const ir::Stmt*> deleted;
  std::vector<size_t> param_order;  // hoist indices: creates, views, scalars
};
Collected collect(const Context& ctx, const ir::Function& g, const FunctionTypes& types,
                  const LegalizeGraphBoundaryOptions& options);

// ---- steps 3 and 4 (rewrite.cpp) ------------------------------------------------------
// The rewritten graph (hoisted and alias definitions deleted, aliases substituted, params
// appended in c.param_order).
ir::Function rewrite_graph(const ir::Function& g, const Collected& c);

struct LegalizedGraph {
  const ir::Function* original = nullptr;
  Collected collected;
  FunctionTypes types;
};
// Rewrites every call/submit in `caller` of a graph in `graphs` (by name); `caller_types`
// are the caller's original types. Rejects (into out) a hoisted definition that would
// give the caller a static error (a zero divisor: 13; a view out of bounds: 11).
void rewrite_call_sites(ir::Function& caller, const FunctionTypes& caller_types,
                        const std::unordered_map<std::string, LegalizedGraph>& graphs, ir::Diagnostics& out);

}  // namespace stackcheck::passes::graph_boundary
