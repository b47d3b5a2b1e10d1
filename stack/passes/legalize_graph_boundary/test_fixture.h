// Test fixture of LegalizeGraphBoundary's golden tests (COMPILER.md §5 case fixture):
// the fixture's kernels, a g/main program builder, and runners that check every accepted
// output with WellFormed, the independent verifier (node counts must agree, §8.4) and a
// second run (idempotence); GoldenCase, the table of cases that need no further check.
// Test-only: included by stack/passes/legalize_graph_boundary*_test.cpp.
#pragma once

#include "stack/ir/builder.h"
#include "stack/ir/printer.h"
#include "stack/ir/testing.h"
#include "stack/passes/legalize_graph_boundary.h"
#include "stack/verify/graph_boundary_legalized.h"
#include "stack/verify/return_params_explicit.h"
#include "stack/verify/well_formed.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace stackcheck::passes::graph_boundary_test {

using Fx = ir::testing::FixtureProgram;
using ir::testing::expand_fixture_types;

// The fixture's kernels as §5.3 inputs have them, after NormalizeReturnOrder (k2 sorted).
inline const std::string kKernels = ir::testing::fixture_kernels_normalized();

// The fixture program over those kernels.
inline std::string text(const Fx& f) { return ir::testing::fixture_text(f, kKernels); }

inline ir::Program parse(const std::string& src) { return ir::testing::parse_or_fail(src); }
inline std::string dump(const ir::Diagnostics& ds) { return ir::testing::diagnostics_text(ds); }
inline std::vector<int> codes(const ir::Diagnostics& ds) { return ir::testing::diagnostic_codes(ds); }

struct LegalizeRun {
  PassResult result;
  LegalizeGraphBoundaryReport report;
  ir::Program input;
};

// Runs the pass on a well-formed, return-normalized input; an accepted output must be
// well formed, pass the verifier and have the verifier's node counts.
inline LegalizeRun run(const std::string& src, LegalizeGraphBoundaryOptions options = {}) {
  LegalizeRun r;
  r.input = parse(src);
  const ir::Diagnostics wf = verify::check_well_formed(r.input);
  EXPECT_TRUE(wf.empty()) << "input not well formed:\n" << dump(wf) << src;
  const ir::Diagnostics rpe = verify::check_return_params_explicit(r.input);
  EXPECT_TRUE(rpe.empty()) << "input not return-normalized:\n" << dump(rpe);
  LegalizeGraphBoundary pass(options);
  r.result = pass.run(r.input);
  r.report = pass.report();
  if (r.result.ok) {
    const std::string printed = ir::print_program(r.result.program);
    const ir::Diagnostics wf_out = verify::check_well_formed(r.result.program);
    EXPECT_TRUE(wf_out.empty()) << dump(wf_out) << printed;
    const ir::Diagnostics gbl = verify::check_graph_boundary_legalized(r.result.program);
    EXPECT_TRUE(gbl.empty()) << dump(gbl) << printed;
    const auto counts = verify::graph_node_counts(r.result.program);
    for (const GraphReport& g : r.report.graphs) {
      EXPECT_TRUE(g.checked) << g.graph;
      auto it = counts.find(g.graph);
      EXPECT_TRUE(it != counts.end()) << g.graph;
      if (it != counts.end()) {
        EXPECT_EQ(it->second, g.node_count) << "pass and verifier node counts of " << g.graph;
      }
    }
    // Idempotent: a second run changes nothing.
    const PassResult again = legalize_graph_boundary(r.result.program, options);
    EXPECT_TRUE(again.ok) << dump(again.diagnostics);
    if (again.ok) {
      EXPECT_EQ(ir::print_program(again.program), printed) << "not idempotent";
    }
  } else {
    for (const ir::Diagnostic& d : r.result.diagnostics) EXPECT_EQ(d.rule, "LegalizeGraphBoundary");
  }
  return r;
}

inline uint64_t nodes(const LegalizeRun& r, const std::string& graph = "g") {
  const GraphReport* g = r.report.find(graph);
  EXPECT_NE(g, nullptr) << graph;
  return g != nullptr ? g->node_count : 0;
}

// The pass turns `before` into exactly `after`; returns the run for further checks.
inline LegalizeRun expect_rewrite(const Fx& before, const Fx& after, LegalizeGraphBoundaryOptions options = {}) {
  LegalizeRun r = run(text(before), options);
  EXPECT_TRUE(r.result.ok) << dump(r.result.diagnostics) << text(before);
  if (r.result.ok) {
    EXPECT_EQ(ir::print_program(r.result.program), ir::print_program(parse(text(after))));
  }
  return r;
}

// The same for whole programs: the pass turns the text `before` into exactly `after`.
inline LegalizeRun expect_rewrite_text(const std::string& before, const std::string& after) {
  LegalizeRun r = run(before);
  EXPECT_TRUE(r.result.ok) << dump(r.result.diagnostics) << before;
  if (r.result.ok) {
    EXPECT_EQ(ir::print_program(r.result.program), ir::print_program(parse(after)));
  }
  return r;
}

inline LegalizeRun expect_unchanged(const Fx& before, LegalizeGraphBoundaryOptions options = {}) {
  return expect_rewrite(before, before, options);
}

inline void expect_codes(const std::string& src, const std::vector<int>& expected,
                         LegalizeGraphBoundaryOptions options = {}) {
  const LegalizeRun r = run(src, options);
  EXPECT_FALSE(r.result.ok) << src;
  EXPECT_EQ(codes(r.result.diagnostics), expected) << dump(r.result.diagnostics) << src;
}

inline const char* const kL = ir::testing::kFixtureLaunch;

// The expected program of a rewrite: g's `body` left after hoisting, the `params` appended
// to g, the `site` lines the call site gains and the `args` appended to the call.
inline Fx hoisted(std::string body, std::string params, std::string site, std::string args) {
  return Fx{.body = std::move(body), .params = std::move(params), .site = std::move(site), .args = std::move(args)};
}

// A golden case of the §5.3 table, checked by expect_golden: `before` is rewritten to
// exactly `after` (unset: left as it is), or, when `codes` is given, rejected with exactly
// those codes.
struct GoldenCase {
  const char* name;  // the test's name
  Fx before;
  std::optional<Fx> after = std::nullopt;
  std::vector<int> codes = {};
};
inline GoldenCase rewrites(const char* name, Fx before, Fx after) {
  return {name, std::move(before), std::move(after)};
}
inline GoldenCase unchanged(const char* name, Fx before) { return {name, std::move(before)}; }
inline GoldenCase rejected(const char* name, Fx before, std::vector<int> codes) {
  return {name, std::move(before), std::nullopt, std::move(codes)};
}
inline void PrintTo(const GoldenCase& c, std::ostream* os) { *os << c.name; }

inline void expect_golden(const GoldenCase& c) {
  if (!c.codes.empty()) {
    expect_codes(text(c.before), c.codes);
  } else {
    expect_rewrite(c.before, c.after.value_or(c.before));
  }
}

}  // namespace stackcheck::passes::graph_boundary_test
