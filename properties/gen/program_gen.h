// Program generator (HARNESS.md §1): random Graph IR programs, well formed and legal for
// LegalizeGraphBoundary by construction, written once over a ChoiceSource (choice.h) so the
// same code feeds RapidCheck properties (arbitrary.h, integrated shrinking) and byte-driven
// fuzzing (ByteChoices). Every choice sequence builds a valid program; choice 0 is always the
// simpler option, so shrinking walks toward small programs.
//
// What the programs exercise (each with a knob and a Feature tag): several graphs, each
// called from several sites (straight, in loops, under ifs) with literal / loop-derived /
// read-derived scalar args; Step A/B/C candidates (derivable scalars and views, depth-0 and
// loop-nested creates); 1-D and 2-D shapes, views of views, column windows; nested
// constant-trip loops; assemble; if (entry, and launch-free in graphs); submit tuples whose
// results are used later; kernels with extra params and out-of-order or empty returns;
// graphs returning out of param order; `full` and `read` in the entry. Ordering is
// observable: windows are written by non-commuting kernels (fill, copy, add, scale, matmul,
// rowsum; acc is the only commuting one) and chosen to overlap earlier accesses exactly,
// partly, by a single element, or through a view at a non-zero offset, and one buffer is
// passed through two boundary params of a graph call (alias classes).
//
// No RapidCheck here (fuzz targets link it); see arbitrary.h for the rc::Gen.
#pragma once

#include <bitset>
#include <string>
#include <vector>

#include "properties/gen/choice.h"
#include "properties/gen/swarm.h"
#include "properties/gen/tags.h"
#include "stack/ir/ast.h"

namespace stackcheck::gen {

struct ProgramKnobs {
  bool swarm = true;  // each case first draws which features it uses and its caps (swarm.h)
  int max_graphs = 3;  // graphs per program (min_graphs..max)
  int min_graphs = 0;
  int max_sites = 3;            // call sites per graph (1..max)
  int max_graph_stmts = 8;      // statements per graph body (plus at least one launch)
  int max_entry_stmts = 8;      // entry statements around the call sites
  int max_trips = 3;            // trips of generated loops
  int max_loop_depth = 2;       // nesting of generated loops
  bool two_d = true;            // 2-D and 3-D shapes, views and matmul/rowsum
  bool views = true;            // slices (literal / derivable / invariant offsets)
  bool overlaps = true;         // place new windows against earlier accesses (exact/partial/single)
  bool alias_args = true;       // one buffer behind two boundary params of a graph call
  bool loop_creates = true;     // creates inside constant-trip loops of graphs
  bool submits = true;          // submit tuples with results used later
  bool assembles = true;        // assemble
  bool ifs = true;              // if in the entry, launch-free if in graphs
  bool entry_reads = true;      // `read` of entry In tensors and `full` in the entry
  bool kernel_variants = true;  // kernels with extra params, `-> ()`, out-of-order returns
  bool flow_locals = true;      // accumulate written locals into params, where results are seen
  bool spelled_literals = true;  // a literal (loop bound, shape, offset, scalar) sometimes written
                                 // as arithmetic over literals, as COMPILER.md's literals allow
  bool traps = true;             // a division in the entry whose divisor is zero for some inputs
                                 // or loop trips, or a read past an axis for some (the
                                 // interpreter traps; every pass must keep it)
  bool keyword_names = true;    // graphs named by `.plan` keywords (codegen renames them)
  bool illegal_view = false;    // one view LegalizeGraphBoundary must reject (211)
  bool illegal_full = false;    // one `full` in a graph region, which it must reject (206)
};

// What a generated program contains; one tag per feature (RC_TAG / the closing figures).
enum class Feature : unsigned {
  kTwoPlusGraphs,
  kMultiSiteGraph,
  kSiteStraight,
  kSiteInLoop,
  kSiteInIf,
  kSiteSubmit,
  kScalarArgLiteral,
  kScalarArgLoopDerived,
  kScalarArgReadDerived,
  kStepAScalar,
  kScalarAlias,
  kDerivableView,
  kInvariantView,
  kDepth0Create,
  kLoopCreate,
  kView2D,
  kView3D,  // a view of a rank-3 tensor (the IR's highest rank)
  kSpelledLiteral,  // a literal written as arithmetic over literals (`2 * 4`, `(9 + 1) - 1`)
  kTrapDivisor,  // an entry division by a scalar that is zero for some inputs or trips
  kTrapRead,     // an entry read at an index past an axis for some inputs or trips
  kPlanKeywordGraph,  // a graph named by a `.plan` keyword (view, alloc, ...), or by that name + "_g"
  kColumnWindow,
  kViewOfOffsetView,
  kNestedLoop,
  kDynamicTripLoop,
  kAssemble,
  kIfEntry,
  kIfGraph,
  kSubmitResultUsed,
  kGraphResultUsed,
  kInPlaceRebind,
  kKernelExtraParam,
  kKernelNoReturns,
  kKernelReturnsOutOfOrder,
  kGraphReturnsOutOfOrder,
  kFull,
  kRead,
  kWrite,  // the WriteTags (tags.h), one run: matmul .. overlap-single
  kAliasBoundaryArgs = kWrite + kWriteTags,
  kIllegalView,
  kIllegalFull,
  kTensorAlias,  // `a = t`, a bare tensor name bound again (chains of them), used as t is
  kCreateUsedNested,  // a create first used in a nested block, then written whole by a launch
  kShapeThroughScalar,  // an entry create or full whose dim is a scalar bound to a literal
  kCount
};
const char* feature_name(Feature f);

using FeatureSet = TagSet<Feature, feature_name>;

// A program and what it exercises.
struct GeneratedProgram {
  ir::Program program;
  FeatureSet features;
  SwarmMask swarm;  // what the case's swarm draw allowed (defaults without swarm)
};

GeneratedProgram generate_program(ChoiceSource& choices, const ProgramKnobs& knobs = {});

}  // namespace stackcheck::gen
