// Internal to the bind-plan generator (plan_gen.h): the builder's state, shared by
// plan_gen.cpp (statements), plan_gen_graph.cpp (graph definitions and submissions) and
// plan_gen_fatal.cpp (planted fatal codes).
#pragma once

#include <map>
#include <span>
#include <optional>
#include <string>
#include <vector>

#include "properties/gen/builder_base.h"
#include "properties/gen/plan_gen.h"

namespace stackcheck::gen::plan_detail {

using Dims = gen::Dims;

// A tensor name in a body: a window of a buffer.
struct Ten {
  std::string name;
  Dims dims;
  int buf = -1;
  std::optional<Dims> off;  // offsets within the buffer, when static
  bool writable = false;
  bool entry_in = false;  // rooted in an entry In tensor (readable, never written)
  bool entry = false;     // an entry tensor itself
  bool local = false;     // allocated by this plan (alloc, output)
  bool is_view = false;
  int level = 0;      // the scope depth that allocated it (task-heap buffers die with it)
  bool dead = false;  // its scope ended: never used again
};

// A window argument about to be passed.
struct Window {
  runtime::PlanWindow window;
  Dims dims;
  int buf = -1;
  std::optional<Dims> off;  // static offsets within the buffer
  runtime::PlanTag tag = runtime::PlanTag::Input;
};

struct Body {
  std::vector<Ten> tensors;
  std::vector<std::string> scalars;
  std::vector<std::string> read_scalars;  // scalars read from entry inputs
  int depth = 0;                          // loop / if nesting
  int scope = 0;                          // open scope_begin count
  bool in_graph = false;
  int slots = 0;  // graph body: scalar slots $0..$slots-1
};

// A graph definition's signature: its boundary params (dims, written?) and slot count.
struct GraphSig {
  std::string name;
  std::vector<Dims> params;
  std::vector<bool> inout;
  // In params every submission binds to a window of a never-written entry input, so the body
  // may read them no_dep (a clean plan's no_dep rule, RUNTIME.md §7).
  std::vector<bool> entry_in;
  int slots = 0;
  int submissions = 0;
  std::vector<std::string> keys;  // keys it was submitted under (the generator's view)
};

runtime::PlanExpr lit(int64_t v);
runtime::PlanExpr name_of(const std::string& n);
runtime::PlanStmt stmt(runtime::PlanStmt::Node n);
// `for var in [0, stop) by step`, its body empty.
runtime::ForStmt counting_loop(std::string var, int64_t stop, int64_t step = 1);

class PlanBuilder : public BuilderBase<PlanKnobs, PlanFeatureSet> {
 public:
  using BuilderBase::BuilderBase;
  GeneratedPlan build();

 private:
  Dims window_dims(const Dims& base);
  // A body's tensors of a kind, inline up to 16 (drawn from, never kept).
  using TenRefs = boost::container::small_vector<const Ten*, 16>;
  TenRefs alive(const Body& b, bool writable, size_t rank) const;
  // The alive tensors (writable ones, when `writable`) that hold a window of dims `w`.
  TenRefs fitting(const Body& b, bool writable, const Dims& w) const;
  runtime::PlanExpr scalar_expr(const Body& b, int depth);
  runtime::PlanExpr scalar_arg(const Body& b);
  Window window_of(const Body& b, const Ten& t, const Dims& w);
  void note_access(const Window& w, bool wrote);
  std::optional<Window> input_window(const Body& b, const Dims& w);
  // A buffer this body allocates (alloc or output): whole, writable, dying with its scope.
  Ten& local_buffer(Body& b, const char* stem, const Dims& dims);
  std::optional<Window> output_window(Body& b, const Dims& w);
  runtime::PlanArg arg_of(const Window& w) const;

  void statement(runtime::PlanBlock& out, Body& b);
  void block(runtime::PlanBlock& out, Body& b, int n);
  void submit(runtime::PlanBlock& out, Body& b);
  void alloc(runtime::PlanBlock& out, Body& b);
  void view(runtime::PlanBlock& out, Body& b);
  void set_or_read(runtime::PlanBlock& out, Body& b);
  void loop(runtime::PlanBlock& out, Body& b);
  void if_stmt(runtime::PlanBlock& out, Body& b);
  void scope(runtime::PlanBlock& out, Body& b);
  void kill_inner(Body& outer, const Body& inner);
  void flow_locals(runtime::PlanBlock& out, Body& b);

  // plan_gen_graph.cpp
  runtime::PlanGraph graph_def(const std::string& name);
  void submit_graph(runtime::PlanBlock& out, Body& b, size_t g);

  // plan_gen_fatal.cpp: appends one cause of a fatal code; returns the code.
  int plant(runtime::OrchProgram& p, Body& root);
  // The fatal-latch family of the rule catalog (breakers/latch_edit.h): one planter per code.
  void plant_scope_deadlock(runtime::OrchProgram& p);        // 1
  void plant_heap_exhausted(runtime::OrchProgram& p);        // 2
  void plant_window_exhausted(runtime::OrchProgram& p);      // 3
  void plant_fanin_overflow(runtime::OrchProgram& p);        // 4
  void plant_invalid_args(runtime::OrchProgram& p);          // 5, one of its causes:
  void plant_zero_divisor(runtime::OrchProgram& p);          //   0
  void plant_out_of_bounds(runtime::OrchProgram& p);         //   2
  void plant_shapes_refused(runtime::OrchProgram& p);        //   5
  void plant_graph_refused(runtime::OrchProgram& p);         //   6..9
  void plant_wide_submission(runtime::OrchProgram& p, bool tensors);
  void plant_sync_start_invalid(runtime::OrchProgram& p);    // 7
  void plant_wait_timeout(runtime::OrchProgram& p);          // 8
  void plant_explicit_fatal(runtime::OrchProgram& p);        // 9
  void plant_scope_tasks_overflow(runtime::OrchProgram& p);  // 10
  void plant_tensormap_overflow(runtime::OrchProgram& p);    // 11
  // Moves the planted statements p.body[first..] into a context drawn for them (RUNTIME.md §17
  // statements in every place they may stand): as they are, in a scope, a one-trip loop, the
  // taken or the else branch of an if, or (fatal, sync_start) a graph body submitted once.
  void place_planted(runtime::OrchProgram& p, size_t first, int code);
  static int plan_code_for(size_t choice);

 public:
  // The family's entries: each code with its name (status/codes.h) and its planter.
  struct LatchEntry {
    int code;
    const char* name;
    void (PlanBuilder::*plant)(runtime::OrchProgram& p);
  };
  static std::span<const LatchEntry> latch_catalog();

 private:

  std::vector<GraphSig> graphs_;
  std::map<std::string, int64_t> config_;
};

}  // namespace stackcheck::gen::plan_detail
