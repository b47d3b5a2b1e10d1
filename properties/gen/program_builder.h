// Internal to the program generator (program_gen.h): the builder's state and its pieces,
// shared by program_gen.cpp (kernels, windows, launches), program_gen_graph.cpp (graph
// bodies) and program_gen_entry.cpp (the entry and its call sites).
//
// The builder keeps, per function, what each tensor name denotes: a window (dims, static
// offsets when known) of a root buffer, whether it is writable, and, in a graph, whether a
// view of it may take derivable offsets (`whole`: rooted in a param, never through a view at
// invariant offsets) or only replay-invariant ones (`local`: rooted in a create). Scalars
// carry their class (derivable from graph params, replay-invariant, or anything in the
// entry). Only statements whose operands exist and satisfy WellFormed and
// LegalizeGraphBoundary are emitted, so any choice sequence builds a legal program.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "properties/gen/builder_base.h"
#include "properties/gen/program_gen.h"
#include "stack/ir/builder.h"

namespace stackcheck::gen::detail {

using Dims = ir::Dims;
using Stmts = std::vector<ir::Stmt>;

struct Tensor {
  std::string name;
  Dims dims;
  int buf = -1;             // root buffer in the current function
  std::optional<Dims> off;  // offsets within the root buffer, when static
  bool writable = false;
  bool whole = false;      // graph: a view may take derivable offsets (and is hoisted)
  bool local = false;      // graph: rooted in a create
  int lineage_param = -1;  // graph: the param reached through aliases/writebacks (no slice)
  bool rebound = false;    // a call's result: a writeback or a tuple element
};

enum class ScalarClass { Derivable, Invariant, Any };
// Entry scalars: what the value depends on (for the call-site arg tags).
enum ScalarSource : unsigned { kFromLoop = 1, kFromRead = 2 };

struct Scalar {
  std::string name;
  ScalarClass cls = ScalarClass::Any;
  unsigned sources = 0;
  // Entry: the pure definition (an in-bounds read of an In tensor), which a use may spell in
  // place of the name (same value: SSA names, In tensors never written), so a `read` stands
  // wherever a scalar expression does.
  std::shared_ptr<const ir::Expr> def;
};

struct Scope {
  std::vector<Tensor> tensors;
  std::vector<Scalar> scalars;
  std::vector<std::pair<std::string, size_t>> tuples;  // a call's tuple name and its result count
  int loop_depth = 0;
  bool conditional = false;  // graph: in an if or a loop that may run zero times
};

// A generated graph's signature, as the entry's call sites see it.
struct GraphSig {
  std::string name;
  std::vector<ir::Param> params;
  std::vector<size_t> returns;  // result j -> param index
};

// A kernel declaration in the catalog and how a call of it behaves.
struct KernelInfo {
  std::string name;
  size_t n_params = 0;
  int written = -1;             // param index the builtin writes
  std::vector<size_t> returns;  // result j -> param index
};

class Builder : public BuilderBase<ProgramKnobs, FeatureSet> {
 public:
  using BuilderBase::BuilderBase;
  GeneratedProgram build();

 private:
  // ---- common (program_gen.cpp) ----
  int new_buffer(const Dims& dims);
  const KernelInfo& kernel(const std::string& builtin, const std::vector<Dims>& tensor_dims, int variant);
  Dims window_dims_within(const Dims& base);
  ir::Expr scalar_expr(const std::vector<const Scalar*>& pool, int depth, unsigned* sources);
  ir::Expr offset_expr(const std::vector<const Scalar*>& pool, int64_t span, unsigned* sources);
  std::vector<const Scalar*> pool(const Scope& s, ScalarClass cls) const;
  // A view of `base` (dims W), emitted into `out`; its offsets follow the context's rules.
  // `derivable`: in a graph, derivable offsets whenever the base allows them (no placement
  // against earlier accesses, which gives literals), one of them a derivable scalar's own
  // (`n mod span`, never folded to a literal) when some dim has room.
  Tensor make_view(Stmts& out, Scope& s, const Tensor& base, const Dims& w, bool derivable = false);
  // A tensor of dims `w`: an existing name, a new view, or a fresh buffer.
  Tensor obtain_input(Stmts& out, Scope& s, const Dims& w);
  std::optional<Tensor> obtain_output(Stmts& out, Scope& s, const Dims& w);
  Tensor fresh_buffer(Stmts& out, Scope& s, const Dims& w);
  // `a = base` (and, a third of the time, `b = a`): names of base's window, in scope after it.
  void tensor_alias(Stmts& out, Scope& s, const Tensor& base);
  std::optional<Tensor> pick_writable(const Scope& s);
  ir::Expr launch_scalar(Scope& s);
  // The literal k, or (sometimes) an expression over literals that evaluates to k: what
  // only evaluation (LegalizeGraphBoundary, the verifiers) or Simplify's folding makes an
  // integer. Never a division or a remainder (no divisor to get wrong by construction).
  // k, sometimes spelled as arithmetic over literals; with `s`, also over a `dim` of one of its
  // tensors (a literal too, COMPILER.md §3), so every place a literal stands meets `dim`.
  ir::Expr literal(int64_t k, const Scope* s = nullptr);
  // One launch (maybe with views/creates before it); false when nothing is writable.
  bool launch(Stmts& out, Scope& s);
  // A read of a window followed by a non-commuting write of an overlapping one (a
  // write-after-read pair), or a write followed by another (write-after-write): the pair's
  // order decides the result, so a dropped or misplaced edge between them shows.
  void hazard(Stmts& out, Scope& s);
  void bind_results(Stmts& out, Scope& s, const std::string& callee, bool submit, const std::vector<size_t>& returns,
                    const std::vector<Tensor>& args, bool graph_call);
  // Accumulates each written local buffer (buffer index >= first_local) into a window of a
  // writable param buffer, so what a launch wrote into a local reaches an observed tensor.
  void flow_locals(Stmts& out, Scope& s, int first_local);
  void record_access(const Tensor& t, bool wrote);
  void note_write_overlaps(const Tensor& dst);

  // ---- graphs (program_gen_graph.cpp) ----
  ir::Function graph_fn(GraphSig& sig);
  void graph_block(Stmts& out, Scope& s, int budget);
  void graph_stmt(Stmts& out, Scope& s);
  void graph_loop(Stmts& out, Scope& s);
  void graph_if(Stmts& out, Scope& s);
  void assemble_stmt(Stmts& out, Scope& s);
  void illegal_view(Stmts& out, Scope& s);
  void illegal_full(Stmts& out, Scope& s);

  // ---- entry (program_gen_entry.cpp) ----
  ir::Function entry_fn();
  void entry_block(Stmts& out, Scope& s, int budget);
  void entry_stmt(Stmts& out, Scope& s);
  void entry_loop(Stmts& out, Scope& s, bool with_site);
  // A create first used inside a loop or an if of its own list, then written whole by a launch
  // after that block: not fresh (COMPILER.md §6), since the block used it first.
  void create_used_nested(Stmts& out, Scope& s);
  void trap_stmt(Stmts& out, Scope& s);
  void trap_read(Stmts& out, Scope& s, const Tensor& t, const std::vector<const Scalar*>& any);
  void one_trip_trap(Stmts& out, const std::vector<const Scalar*>& any, const std::string& i, int64_t start,
                     ir::Stmt stmt);
  void entry_if(Stmts& out, Scope& s, bool with_site);
  void call_site(Stmts& out, Scope& s, size_t g);
  void pending_sites(Stmts& out, Scope& s);

  int first_local_ = 0;  // buffers below this index are the current function's params
  bool in_graph_ = false;
  std::vector<Dims> bufs_;  // per function
  std::map<std::string, KernelInfo> kernels_;
  std::vector<ir::Function> kernel_decls_;
  std::vector<GraphSig> graphs_;
  std::vector<int> sites_left_;  // per graph: sites still to emit
  std::vector<int> sites_done_;
};

// Elements two static windows share (0 when disjoint).
using gen::overlap_elements;
int64_t elements(const Dims& d);

}  // namespace stackcheck::gen::detail
