// GraphBoundaryLegalized (codes 200-299, COMPILER.md §4): every graph can be recorded once
// and replayed, i.e. its boundary holds everything a replay rebinds and nothing it would
// freeze or share wrongly. Re-derived from the program alone: it shares only IR nodes,
// literal evaluation and trip counts (ir/invariance.h) and rpi (ir/rpi.h) with
// LegalizeGraphBoundary, never the pass's own analyses.
//   201 scalar param not In; 202 tensor param Out; 203 no tensor param; 204 > 128 tensor
//   params; 205 > 64 scalar params; 206 `full` in a graph; 207 create extent not literal;
//   208 graph calls graph (or is called other than from the entry); 209 return not
//   traceable to a param; 210 call-site arguments != params (at a graph's call site, and at
//   a kernel launch in a graph, which may leave out only a trailing run of Out params);
//   211 view with non-invariant offsets; 212 assemble with non-invariant offsets; 213 launch
//   scalar argument neither a scalar param name nor invariant; 214 loop holding nodes
//   without constant trips; 215 `if` holding nodes; 216 node count not in 1..1024;
//   217 `read` in a graph.
// Returns all diagnostics in program order; never crashes on any Program.
#pragma once

#include "stack/ir/ast.h"
#include "stack/ir/diagnostic.h"

#include <cstdint>
#include <map>
#include <string>

namespace stackcheck::verify {

ir::Diagnostics check_graph_boundary_legalized(const ir::Program& p);

// The §4 node count of every graph (by name; the first graph of a name), program as is:
// a launch (kernel call/submit, assemble) is 1; the creates of one statement list are
// ceil(n/16); a constant-trip loop is trips x body; a loop without constant trips counts
// its body once (214 rejects it if the body holds nodes); an if counts both branches;
// saturating u64.
std::map<std::string, uint64_t> graph_node_counts(const ir::Program& p);

}  // namespace stackcheck::verify
