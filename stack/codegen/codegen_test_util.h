// Test helpers of codegen_test.cpp and codegen_errors_test.cpp: parse `.gir` text, run the
// default pipeline, run codegen and check every accepted plan with the runtime's own tools
// (validate_plan, print -> parse round trip).
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "stack/codegen/codegen.h"
#include "stack/ir/testing.h"
#include "stack/passes/pipeline.h"
#include "stack/runtime/plan/check.h"
#include "stack/runtime/plan/parser.h"
#include "stack/runtime/plan/printer.h"

namespace stackcheck::codegen::testing {

// The §5 case fixture's kernels and COMPILER.md §1's example (before the pipeline).
inline constexpr const char* kFixture = ir::testing::kFixtureKernels;
inline constexpr const char* kSection1Example = ir::testing::kSection1Example;

inline ir::Program parse_gir(std::string_view text) { return ir::testing::parse_or_fail(text); }

// A program of the fixture's kernels, `functions`, and an entry
// main(x: In tensor<i32>[8], c: InOut tensor<i32>[8]) with `body` (lines).
inline std::string program_of(std::string_view functions, std::string_view body) {
  return std::string(kFixture) + std::string(functions) +
         "orchestration main(x: In tensor<i32>[8], c: InOut tensor<i32>[8]) {\n" + std::string(body) + "}\n";
}
inline std::string main_of(std::string_view body) { return program_of("", body); }

// An entry body with every tag: input, inout, output (fresh), output_existing (a create
// first used as InOut, then written as Out), scalar; writebacks and tuple elements; k2's
// extra param (codegen_test.cpp's tags_all_kinds; the codegen differential test runs it).
inline constexpr const char* kAllTagsBody = R"(  p = create [8]
  p1 = call kacc(x, p)
  p2 = call ksc(p1, p, 2)
  o = create [8]
  r = submit k2(p2, o, c)
  y = r.0
  z = r.1
  w = call kacc(y, z)
)";

// The plan codegen emits for such a program: the entry's tensors t0 (x) and t1 (c), the
// plan's `graphs`, then `body` (lines) in the entry's scope.
inline std::string program_plan(std::string_view graphs, std::string_view body) {
  return "tensor t0: In [8]\ntensor t1: InOut [8]\n" + std::string(graphs) + "scope_begin\n" + std::string(body) +
         "scope_end\n";
}
inline std::string main_plan(std::string_view body) { return program_plan("", body); }

// `text` after the default pipeline (Simplify, NormalizeReturnOrder, LegalizeGraphBoundary)
// with the verify instrument on.
inline ir::Program legalize(std::string_view text) {
  passes::PassManager pm = passes::default_pipeline();
  passes::PipelineResult r = pm.run(parse_gir(text));
  EXPECT_TRUE(r.ok()) << r.message << "\n" << text;
  return r.program;
}

// Checks an accepted plan with the runtime: it validates, and its printed text parses back
// to an equal program that prints the same.
inline void expect_plan_round_trips(const runtime::OrchProgram& p) {
  const std::optional<runtime::PlanError> err = runtime::validate_plan(p);
  EXPECT_FALSE(err.has_value()) << (err ? err->to_string() : "");
  const std::string text = runtime::print_plan(p);
  runtime::PlanParseResult back = runtime::parse_plan(text);
  ASSERT_TRUE(back.ok()) << back.error().to_string() << "\n" << text;
  EXPECT_EQ(back.program(), p) << text;
  EXPECT_EQ(runtime::print_plan(back.program()), text);
}

// Codegen of a legal program; expects success, checks the plan, returns its text.
inline std::string plan_of(const ir::Program& p) {
  CodegenResult r = generate_orchestration(p);
  EXPECT_TRUE(r.ok) << (r.diagnostics.empty() ? "" : r.diagnostics.front().render(""));
  if (!r.ok) return {};
  expect_plan_round_trips(r.program);
  return runtime::print_plan(r.program);
}

inline std::string compile(std::string_view gir) { return plan_of(legalize(gir)); }

// Codegen of a program expected to be rejected; returns the diagnostic codes in order.
inline std::vector<int> codes_of(const ir::Program& p) {
  CodegenResult r = generate_orchestration(p);
  EXPECT_FALSE(r.ok);
  std::vector<int> codes;
  for (const ir::Diagnostic& d : r.diagnostics) {
    EXPECT_EQ(d.rule, kRule);
    codes.push_back(d.code);
  }
  return codes;
}

}  // namespace stackcheck::codegen::testing
