// The fatal-latch family of the rule catalog (latch_edit.h): code 5 from a graph, its recording
// refused or its submission too wide.
#include <fmt/format.h>

#include "properties/gen/breakers/latch_edit.h"

namespace stackcheck::gen::plan_detail {

using namespace runtime;

// 5, causes 6..9: a graph whose recording is refused (RUNTIME.md §9: what a graph body may not
// do), one statement past its last legal one, submitted once: a nested submit_graph, an alloc
// of one buffer past kAllocMaxBuffers (16, after one of exactly 16), a scope_end, a
// wait_tensor, a scope_begin, a node's tensor after its scalar, one 64-byte step past the graph
// heap a graph may need (INT32_MAX); or a submission whose args GraphArgs refuse (an output,
// output_existing or no_dep tag, a tensor after a scalar); or the widest submissions.
void PlanBuilder::plant_graph_refused(runtime::OrchProgram& p) {
  PlanBlock& body = p.body;
  PlanGraph g;
  g.name = fresh("zg");
  g.params = {fresh("zp")};
  const std::string& param = g.params.front();
  g.body.push_back(fill(win(param, {{lit(0), 4}}), lit(1)));
  // 8..11: the four refused submissions; 12 (the graph heap need) a fifth of the time,
  // so that a property planting 5 reaches it in every run of 100 cases
  // (12 needs its graph recorded: with 16 definitions possible before it, the cache
  // may be full and the graph then runs inline, where no recording limit applies)
  const bool recorded = graph_submissions(p.body) < 16;
  const size_t cause = recorded && c_.chance(20) ? 12 : c_.one_of(12);
  if (cause == 4 || cause == 5) return plant_wide_submission(p, cause == 4);
  if (cause == 0) {
    SubmitGraphStmt nested;
    nested.graph = p.graphs.empty() || c_.boolean() ? g.name : p.graphs[c_.one_of(p.graphs.size())].name;
    nested.args = {PlanArg::tensor(PlanTag::Inout, win(param, {}))};
    if (nested.graph != g.name) {
      // an earlier graph takes its own params: as many windows of the param as it has
      nested.args.clear();
      for (const PlanGraph& e : p.graphs)
        if (e.name == nested.graph)
          for (size_t k = 0; k < e.params.size(); ++k)
            nested.args.push_back(PlanArg::tensor(PlanTag::Inout, win(param, {})));
    }
    g.body.push_back(stmt(std::move(nested)));
  } else if (cause == 1) {
    for (size_t n : {size_t{16}, size_t{17}}) {
      AllocStmt a;
      for (size_t k = 0; k < n; ++k) a.buffers.push_back(PlanBuffer{fresh("zb"), {4}});
      g.body.push_back(stmt(std::move(a)));
    }
  } else if (cause == 2) {
    g.body.push_back(stmt(ScopeEndStmt{}));
  } else if (cause == 3) {
    g.body.push_back(stmt(WaitTensorStmt{param}));
  } else if (cause == 6) {
    g.body.push_back(stmt(ScopeBeginStmt{}));
  } else if (cause == 12) {
    // RUNTIME.md §9: required_heap + args + storage <= INT32_MAX. An internal buffer sized
    // so that the graph needs the first multiple of 64 past it. Its nodes: the param's
    // fill, the alloc (the task that zeroes the buffer: one tensor), n fills of 4
    // elements of the buffer (one tensor and one scalar each): n + 2 nodes, n + 2 tensor
    // args (64 B each), n + 1 scalar args (8 B each), storage 32 + 128 (nodes - 1) + 104
    // (the figures of §9 and §12, written out here, not the runtime's).
    const auto n = static_cast<uint64_t>(c_.integer(1, 6));
    const uint64_t nodes = n + 2;
    const uint64_t rest = 64 * nodes + 8 * (n + 1) + 32 + 128 * (nodes - 1) + 104;
    const uint64_t internal = ((uint64_t{1} << 31) - rest + 63) / 64 * 64;
    const std::string big = fresh("zb");
    g.body.push_back(stmt(AllocStmt{{PlanBuffer{big, {static_cast<int64_t>(internal / 4)}}}}));
    for (uint64_t k = 0; k < n; ++k)
      g.body.push_back(fill(win(big, {{lit(static_cast<int64_t>(4 * k)), 4}}), lit(static_cast<int64_t>(k))));
  } else if (cause == 7) {  // a node's tensor after its scalar
    g.body.push_back(
        stmt(SubmitStmt{Builtin::Scale,
                        {PlanArg::tensor(PlanTag::Input, win(param, {{lit(0), 4}})), PlanArg::scalar_value(lit(2)),
                         PlanArg::tensor(PlanTag::OutputExisting, win(param, {{lit(4), 4}}))}}));
  }
  SubmitGraphStmt sub;
  sub.graph = g.name;
  sub.args = {PlanArg::tensor(PlanTag::Inout, win("c", {}))};
  if (cause >= 8 && cause <= 11) {  // GraphArgs take input, inout and scalar only, tensors first (§9)
    switch (cause - 8) {
      case 0: sub.args = {PlanArg::tensor(PlanTag::OutputExisting, win("c", {}))}; break;
      case 1: sub.args = {PlanArg::tensor(PlanTag::NoDep, win("x", {}))}; break;
      case 2: sub.args = {PlanArg::output(fresh("zo"), {16})}; break;
      default: sub.args = {PlanArg::scalar_value(lit(1)), PlanArg::tensor(PlanTag::Inout, win("c", {}))};
    }
  }
  p.graphs.push_back(std::move(g));
  body.push_back(stmt(std::move(sub)));
}

// A submission of exactly the most arguments a task takes (128 tensors or 64 scalars, RUNTIME.md
// §9), then one of one more.
void PlanBuilder::plant_wide_submission(runtime::OrchProgram& p, bool tensors) {
  PlanBlock& body = p.body;
  for (size_t n : {tensors ? size_t{128} : size_t{64}, tensors ? size_t{129} : size_t{65}}) {
    PlanGraph wide;
    wide.name = fresh("zw");
    SubmitGraphStmt sub;
    sub.graph = wide.name;
    for (size_t k = 0; k < (tensors ? n : 1); ++k) {
      wide.params.push_back(fresh("zq"));
      sub.args.push_back(PlanArg::tensor(PlanTag::Input, win("x", {})));
    }
    // the body copies its first boundary tensor (a window of x, [16]) into its own buffer
    const std::string own = fresh("zb");
    wide.body.push_back(stmt(AllocStmt{{PlanBuffer{own, {16}}}}));
    wide.body.push_back(stmt(SubmitStmt{Builtin::Copy,
                                        {PlanArg::tensor(PlanTag::Input, win(wide.params.front(), {})),
                                         PlanArg::tensor(PlanTag::OutputExisting, win(own, {}))}}));
    if (!tensors)
      for (size_t k = 0; k < n; ++k) sub.args.push_back(PlanArg::scalar_value(lit(static_cast<int64_t>(k))));
    p.graphs.push_back(std::move(wide));
    body.push_back(stmt(std::move(sub)));
  }
}

}  // namespace stackcheck::gen::plan_detail
