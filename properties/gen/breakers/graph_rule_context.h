// The GraphBoundaryLegalized rule family of the rule catalog (ir_breaker.h: break_graph_rule,
// one rule of COMPILER.md §4, 201-217, broken in one graph of a legalized program): one entry
// per rule code, each with the function that makes the edit and fills what the verifier (and
// the pass, BrokenProgram::pass_owns) must report, the at-limit twin of a limit's rule
// included. break_graph_rule draws the code, then the graph, then runs the code's entry on a
// GraphRuleEdit; the order and number of the draws is the choice sequence saved
// counterexamples and corpus files replay, so an entry draws exactly as the one function
// before it did. The entries, by family:
//   graph_rule_params.cpp  201-205 the boundary's params (directions, none left, the limits),
//                          209 a return made a view
//   graph_rule_calls.cpp   208 the graph calls itself, 210 arguments that do not fit,
//                          213 a launch's scalar argument not invariant
//   graph_rule_body.cpp    206 a full, 207 a create of no literal shape, 211 and 212 offsets a
//                          replay would freeze, 214 and 215 a launch in a loop or an if,
//                          216 too many nodes, 217 a read
#pragma once

#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "properties/gen/choice.h"
#include "properties/gen/ir_breaker.h"
#include "stack/ir/ast.h"

namespace stackcheck::gen::breakers {

// One GraphBoundaryLegalized edit in progress: what an entry reads (the choices, the legal
// source, the graph drawn as it is in the copy being broken) and fills (b).
struct GraphRuleEdit {
  ChoiceSource& c;
  const ir::Program& legal;  // the legalized source
  BrokenProgram& b;          // the copy being broken, and what the verifier must report
  ir::Function& g;           // the graph edited, in b.program
  std::vector<size_t> scalars, tensors;  // g's params, by kind
  std::optional<ir::Stmt> launch;        // a launch of g's body (a kernel call at its top level)
  std::vector<ir::Invoke*> sites;        // g's call sites in b.program

  void front(ir::Stmt s) { g.body.insert(g.body.begin(), std::move(s)); }
  // The launch copied under a fresh name (zz_v<k>).
  ir::Stmt fresh_launch(int k) const;
};

struct GraphRuleEntry {
  int code;
  // Codegen's defence in depth behind the rule (COMPILER.md §6: 301 behind 202, 302 behind
  // 206, 303 behind 217, 304 behind 208, 305 behind 204 and 205): the code codegen, run without
  // the verifier, must refuse the edit with; 0 where codegen has none. The dispatcher puts it
  // in BrokenProgram::codegen_code before the entry runs, and an entry clears it where its edit
  // leaves codegen nothing to refuse (305 refuses a `submit_graph`: a graph no statement calls
  // is never submitted).
  int codegen_code;
  // Makes the edit; false when the graph has no place for it (no scalar param, no launch, ...).
  bool (*break_it)(GraphRuleEdit& e);
};

// Every rule of the family, by code.
std::span<const GraphRuleEntry> graph_rule_catalog();

// The entries.
bool break_scalar_param_written(GraphRuleEdit& e);    // 201
bool break_tensor_param_out(GraphRuleEdit& e);        // 202
bool break_empty_boundary(GraphRuleEdit& e);          // 203
bool break_param_limit(GraphRuleEdit& e);             // 204, 205
bool break_full_in_graph(GraphRuleEdit& e);           // 206
bool break_create_shape(GraphRuleEdit& e);            // 207
bool break_self_call(GraphRuleEdit& e);               // 208
bool break_return_view(GraphRuleEdit& e);             // 209
bool break_arguments(GraphRuleEdit& e);               // 210
bool break_frozen_offset(GraphRuleEdit& e);           // 211, 212
bool break_launch_scalar(GraphRuleEdit& e);           // 213
bool break_launch_in_block(GraphRuleEdit& e);         // 214, 215
bool break_node_count(GraphRuleEdit& e);              // 216
bool break_read_in_graph(GraphRuleEdit& e);           // 217

}  // namespace stackcheck::gen::breakers
