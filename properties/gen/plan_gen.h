// Bind-plan generator (HARNESS.md §1): random orchestration programs (RUNTIME.md §17) that
// bypass the compiler, written once over a ChoiceSource (choice.h) like the program
// generator, so the same code feeds RapidCheck properties and byte-driven fuzzing. Every
// choice sequence builds a plan that passes validate_plan; choice 0 is the simpler option.
//
// A clean plan (the default) stays inside every oracle's domain: balanced scopes, no buffer
// used after the scope that allocated it ends, no_dep only on never-written entry inputs,
// valid tags and shapes for every builtin, a roomy RuntimeConfig. Its statements cover the
// whole format: nested scopes; submits whose windows overlap earlier accesses exactly, partly,
// by a single element or not at all, written by non-commuting kernels; runtime-allocated
// outputs; alloc; host views; reads of entry inputs steering ifs and loop bounds; loops;
// graphs with internal buffers, boundary args and slot scalars, submitted under one key
// (replays) and under others (new definitions: aliasing boundary args, other strides).
//
// A planted plan (PlanKnobs::planted_percent) adds one deliberate cause of a fatal code 1..11
// (a config biased small where the code is a resource: W, heaps, tensormap, scope lists) so
// that every code is reached by some share of cases; the code the generator planted is
// recorded, the one the runtime latched is measured by whoever binds it.
#pragma once

#include <bitset>
#include <string>
#include <vector>

#include "properties/gen/choice.h"
#include "properties/gen/swarm.h"
#include "properties/gen/tags.h"
#include "stack/runtime/plan/program.h"

namespace stackcheck::gen {

inline constexpr int kPlantedCausesOf5 = 10;  // PlanKnobs::planted_cause's range

struct PlanKnobs {
  bool swarm = true;         // each case first draws which features it uses and its caps (swarm.h)
  int max_stmts = 10;        // root statements (loops and ifs hold more)
  int max_graphs = 2;        // graph definitions per plan
  int min_graphs = 0;        // at least this many (a property about graphs asks for one)
  int min_submissions = 1;   // root-level submit_graphs each graph gets at least (counting its others);
                             // a plan may also define `unused_g`, which nothing submits
  int max_trips = 3;         // loop trips
  int max_depth = 2;         // nesting of loops / ifs
  bool two_d = true;         // tensors of rank 2 to 4, matmul, rowsum
  bool scopes = true;        // scope_begin / scope_end pairs
  bool graphs = true;        // graph definitions and submit_graph
  bool reads = true;         // read of entry In tensors (steering ifs and loops)
  bool no_dep = true;        // no_dep reads of entry inputs
  bool overlaps = true;      // windows placed against earlier accesses
  int planted_percent = 0;   // share of plans with one planted fatal code
  int planted_code = 0;      // 0: any of the codes; else always this one (its causes evenly)
  int planted_cause = -1;    // with planted_code 5: -1 any cause; 0 a zero divisor (in any of its places)
                             // (0 .. kPlantedCausesOf5 - 1: one cause, its variants drawn)
  bool small_config = true;  // vary W (and workers) in clean plans too
  int small_w_percent = 90;  // small_config: a small W (256, 64, 1024) this often, else the default
                             // 16384 (a 45 MB mirror: the fuzz targets ask for it more rarely)
};

enum class PlanFeature : unsigned {
  kScope,
  kNestedScope,
  kAlloc,
  kOutput,
  kView,
  kSet,
  kRead,
  kIfOnRead,
  kLoop,
  kDynamicTrips,
  kNoDep,
  kTwoD,
  kHighRank,  // a window of rank 3 or 4 (TensorArg's four dims)
  kWrite,  // the WriteTags (tags.h), one run: matmul .. overlap-single
  kDisjointSameBuffer = kWrite + kWriteTags,
  kGraph,
  kGraphInternal,
  kSlotScalar,
  kFrozenExpr,
  kKeyReused,
  kNewKey,
  kBoundaryAlias,
  kCacheFull,  // more graph definitions than the Runtime's cache holds (16): one runs inline
  kPlanted,
  kCount
};
const char* plan_feature_name(PlanFeature f);

using PlanFeatureSet = TagSet<PlanFeature, plan_feature_name>;

struct GeneratedPlan {
  runtime::OrchProgram plan;
  PlanFeatureSet features;
  int planted = 0;  // the fatal code the generator planted (0: a clean plan)
  SwarmMask swarm;  // what the case's swarm draw allowed (defaults without swarm)
};

GeneratedPlan generate_plan(ChoiceSource& choices, const PlanKnobs& knobs = {});

}  // namespace stackcheck::gen
