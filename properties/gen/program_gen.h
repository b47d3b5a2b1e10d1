// Program generator (HARNESS.md §1): random Graph IR programs that are well formed by
// construction, with integrated shrinking from RapidCheck (every random choice shrinks
// toward a simpler choice, and every choice sequence builds a valid program, so shrinking
// never leaves the valid space). Knobs select the features a property wants to stress.
#pragma once

#include "stack/ir/ast.h"

#include <rapidcheck.h>

namespace stackcheck::gen {

struct ProgramKnobs {
  int max_graph_stmts = 10;   // statements per graph body (before closing launches)
  int max_entry_stmts = 6;    // extra entry statements around the graph call loop
  int max_trips = 3;          // trips of the entry loop calling the graph (>= 1)
  bool graphs = true;         // emit a graph called from a loop
  bool views = true;          // slices with literal / derivable / invariant offsets
  bool loop_creates = true;   // creates inside constant-trip loops of the graph
  bool submits = true;        // submit tuples and out-of-order kernel returns
  bool entry_reads = true;    // `read` of entry In tensors and `full` in the entry
  bool two_results = true;    // sometimes a second InOut param `d`, returned as `d, c`
                              // (out of param order: NormalizeReturnOrder keeps the order)
  bool illegal_view = false;  // insert one view whose offsets are neither derivable nor
                              // invariant (LegalizeGraphBoundary must reject it: 211)
};

// A generator of well-formed programs.
rc::Gen<ir::Program> arbitrary_program(const ProgramKnobs& knobs = {});

}  // namespace stackcheck::gen

namespace stackcheck::ir {
// RapidCheck prints counterexamples with showValue (found by ADL): programs as `.gir` text.
void showValue(const Program& p, std::ostream& os);
}  // namespace stackcheck::ir
