// Test fixture of LegalizeGraphBoundary's golden tests (COMPILER.md §5 case fixture):
// the fixture's kernels, a g/main program builder, and runners that check every accepted
// output with WellFormed, the independent verifier (node counts must agree, §8.4) and a
// second run (idempotence). Test-only: included by stack/passes/legalize_graph_boundary*_test.cpp.
#pragma once

#include "stack/ir/builder.h"
#include "stack/ir/parser.h"
#include "stack/ir/printer.h"
#include "stack/passes/legalize_graph_boundary.h"
#include "stack/verify/graph_boundary_legalized.h"
#include "stack/verify/return_params_explicit.h"
#include "stack/verify/well_formed.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cctype>
#include <string>
#include <vector>

namespace stackcheck::passes::graph_boundary_test {

// `T` and `T4` (whole words) -> tensor<i32>[8] and tensor<i32>[4].
inline std::string expand(const std::string& in) {
  std::string out;
  for (size_t i = 0; i < in.size();) {
    const bool word_start = i == 0 || !(std::isalnum(static_cast<unsigned char>(in[i - 1])) || in[i - 1] == '_');
    auto word_is = [&](const char* w, size_t n) {
      return in.compare(i, n, w) == 0 &&
             (i + n == in.size() || !(std::isalnum(static_cast<unsigned char>(in[i + n])) || in[i + n] == '_'));
    };
    if (word_start && word_is("T4", 2)) {
      out += "tensor<i32>[4]";
      i += 2;
    } else if (word_start && word_is("T", 1)) {
      out += "tensor<i32>[8]";
      i += 1;
    } else {
      out += in[i++];
    }
  }
  return out;
}

// The §5 fixture's kernels (inputs have passed NormalizeReturnOrder: k2 is sorted).
inline const std::string kKernels = R"(
kernel kacc(x: In T, a: InOut T) -> (a) = builtin acc
kernel kacc4(x: In T4, a: InOut T4) -> (a) = builtin acc
kernel ksc(x: In T, o: Out T, s: In i64) -> (o) = builtin scale
kernel k2(x: In T, o1: Out T, o2: InOut T) -> (o1, o2) = builtin copy
)";

// g(x: In T, c: InOut T, n: In i64 <params>) -> (T) { <body> return <ret> } called from
// main(a: In T, b: InOut T) as `for i in range(0, 2, 1) { <site> call g(a, b, i <args>) }`.
struct Fx {
  std::string body{};
  std::string params{};  // appended to g's params, e.g. ", s: In i64"
  std::string site{};    // lines before the call
  std::string args{};    // appended to the call's arguments
  std::string ret = "c";
  std::string call = "call g(a, b, i";  // the call up to its extra args
  std::string graphs{};                 // more functions, before g
};

inline std::string text(const Fx& f) {
  return expand(kKernels + f.graphs + "graph g(x: In T, c: InOut T, n: In i64" + f.params + ") -> (T) {\n" + f.body +
                "\nreturn " + f.ret +
                "\n}\norchestration main(a: In T, b: InOut T) {\n"
                "for i in range(0, 2, 1) {\n" +
                f.site + "\n" + f.call + f.args + ")\n}\n}\n");
}

inline ir::Program parse(const std::string& src) {
  ir::ParseResult r = ir::parse_program(src);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().to_string()) << "\n" << src;
  return r.ok() ? r.program() : ir::Program{};
}

inline std::string dump(const verify::Diagnostics& ds) {
  std::string out;
  for (const verify::Diagnostic& d : ds) {
    out += fmt::format("{} [{}] {}\n", d.location.function, d.rule, d.render(""));
  }
  return out;
}

inline std::vector<int> codes(const verify::Diagnostics& ds) {
  std::vector<int> out;
  for (const verify::Diagnostic& d : ds) out.push_back(d.code);
  return out;
}

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
  const verify::Diagnostics wf = verify::check_well_formed(r.input);
  EXPECT_TRUE(wf.empty()) << "input not well formed:\n" << dump(wf) << src;
  const verify::Diagnostics rpe = verify::check_return_params_explicit(r.input);
  EXPECT_TRUE(rpe.empty()) << "input not return-normalized:\n" << dump(rpe);
  LegalizeGraphBoundary pass(options);
  r.result = pass.run(r.input);
  r.report = pass.report();
  if (r.result.ok) {
    const std::string printed = ir::print_program(r.result.program);
    const verify::Diagnostics wf_out = verify::check_well_formed(r.result.program);
    EXPECT_TRUE(wf_out.empty()) << dump(wf_out) << printed;
    const verify::Diagnostics gbl = verify::check_graph_boundary_legalized(r.result.program);
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
    for (const verify::Diagnostic& d : r.result.diagnostics) EXPECT_EQ(d.rule, "LegalizeGraphBoundary");
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

inline LegalizeRun expect_unchanged(const Fx& before, LegalizeGraphBoundaryOptions options = {}) {
  return expect_rewrite(before, before, options);
}

inline void expect_codes(const std::string& src, const std::vector<int>& expected,
                         LegalizeGraphBoundaryOptions options = {}) {
  const LegalizeRun r = run(src, options);
  EXPECT_FALSE(r.result.ok) << src;
  EXPECT_EQ(codes(r.result.diagnostics), expected) << dump(r.result.diagnostics) << src;
}

inline const char* const kL = "l1 = call kacc(x, c)";  // L: a launch, appended to sketches with none

}  // namespace stackcheck::passes::graph_boundary_test
