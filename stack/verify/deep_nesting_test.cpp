// Verifiers never crash, also on code-built nesting far past the parser's cap: WellFormed,
// ReturnParamsExplicit and GraphBoundaryLegalized (and its node count) check an entry of
// 20,000 nested loops on a stack too small for a recursive walk of that depth, and still
// find what is wrong at the bottom of it.
#include "stack/ir/builder.h"
#include "stack/ir/testing.h"
#include "stack/verify/graph_boundary_legalized.h"
#include "stack/verify/return_params_explicit.h"
#include "stack/verify/well_formed.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace stackcheck::verify {
namespace {

namespace b = ir::build;
using ir::testing::diagnostic_codes;

// The fixture's kacc and a one-launch graph g(x, c, n), called from the innermost of
// kDeepNesting loops in main with `args`.
ir::Program deep_entry(std::vector<ir::Expr> args) {
  ir::Program p = ir::testing::parse_or_fail(
      "kernel kacc(x: In tensor<i32>[8], a: InOut tensor<i32>[8]) -> (a) = builtin acc\n"
      "graph g(x: In tensor<i32>[8], c: InOut tensor<i32>[8], n: In i64) -> (tensor<i32>[8]) {\n"
      "  c1 = call kacc(x, c)\n  return c\n}\n"
      "orchestration main(x: In tensor<i32>[8], c: InOut tensor<i32>[8]) {\n}\n");
  std::vector<ir::Stmt> leaf;
  leaf.push_back(b::call("g", std::move(args)));
  p.functions.back().body = ir::testing::nest_in_loops(std::move(leaf), ir::testing::kDeepNesting);
  return p;
}

struct Findings {
  std::vector<int> well_formed, return_params, boundary;
  uint64_t nodes = 0;
};

Findings check_deep(ir::Program& p) {
  Findings f;
  ir::testing::on_small_stack([&] {
    f.well_formed = diagnostic_codes(check_well_formed(p));
    f.return_params = diagnostic_codes(check_return_params_explicit(p));
    f.boundary = diagnostic_codes(check_graph_boundary_legalized(p));
    f.nodes = graph_node_counts(p).at("g");
  });
  ir::testing::dismantle(p.functions.back().body);
  return f;
}

TEST(DeepNesting, verifiers_walk_deep_entries_on_a_small_stack) {
  const std::string last = "i" + std::to_string(ir::testing::kDeepNesting - 1);
  ir::Program ok = deep_entry({b::var("x"), b::var("c"), b::var(last)});
  const Findings clean = check_deep(ok);
  EXPECT_EQ(clean.well_formed, std::vector<int>{});
  EXPECT_EQ(clean.return_params, std::vector<int>{});
  EXPECT_EQ(clean.boundary, std::vector<int>{});
  EXPECT_EQ(clean.nodes, 1u);
  // At the bottom: an undefined name (WellFormed 3) and a call short of one argument
  // (WellFormed 5, GraphBoundaryLegalized 210).
  ir::Program bad = deep_entry({b::var("x"), b::var("nowhere")});
  const Findings found = check_deep(bad);
  EXPECT_EQ(found.well_formed, (std::vector<int>{5, 3}));
  EXPECT_EQ(found.boundary, std::vector<int>{210});
}

}  // namespace
}  // namespace stackcheck::verify
