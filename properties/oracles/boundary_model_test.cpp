// The boundary model (boundary_model.h, check_legalized): COMPILER.md §5.3's example predicted
// as the spec prints it, a program with every kind of hoist judged through the pipeline, and
// positive controls: outputs and reports a wrong pass would give must fail.
#include "properties/oracles/boundary_model.h"

#include <gtest/gtest.h>

#include "properties/oracles/compiler_oracles.h"
#include "properties/oracles/input_oracles.h"
#include "stack/ir/printer.h"
#include "stack/ir/testing.h"

namespace stackcheck::oracles {
namespace {

ir::Program program(const std::string& text) { return ir::testing::parse_or_fail(text); }

// §1's example as LegalizeGraphBoundary receives it (NormalizeReturnOrder returned the name).
const char* kExample =
    "kernel kacc(x: In tensor<i32>[8], a: InOut tensor<i32>[8]) -> (a) = builtin acc\n"
    "graph g(x: In tensor<i32>[16], c: InOut tensor<i32>[8], n: In i64) -> (tensor<i32>[8]) {\n"
    "  v = slice(x, [n * 8], [8])\n  t = create [8]\n  t1 = call kacc(v, t)\n  c1 = call kacc(t1, c)\n"
    "  return c\n}\n"
    "orchestration main(x: In tensor<i32>[16], c: InOut tensor<i32>[8]) {\n"
    "  for i in range(0, 2, 1) {\n    call g(x, c, i)\n  }\n}\n";

TEST(BoundaryModel, predicts_the_spec_example) {
  const boundary::Prediction p = boundary::predict(program(kExample), true);
  ASSERT_EQ(p.why, "");
  EXPECT_EQ(ir::print_program(p.program),
            "kernel kacc(x: In tensor<i32>[8], a: InOut tensor<i32>[8]) -> (a) = builtin acc\n"
            "graph g(x: In tensor<i32>[16], c: InOut tensor<i32>[8], n: In i64, t: InOut tensor<i32>[8], "
            "v: In tensor<i32>[8]) -> (tensor<i32>[8]) {\n"
            "  t1 = call kacc(v, t)\n  c1 = call kacc(t1, c)\n  return c\n}\n"
            "orchestration main(x: In tensor<i32>[16], c: InOut tensor<i32>[8]) {\n"
            "  for i in range(0, 2, 1) {\n"
            "    v__graph_arg0 = slice(x, [i * 8], [8])\n    t__graph_arg1 = create [8]\n"
            "    call g(x, c, i, t__graph_arg1, v__graph_arg0)\n  }\n}\n");
}

// Aliases (m), Step A chains (p, q with a dim; s in an if), views of views (w), a view of a
// hoisted create (u), a create in an if (e), a loop's view that stays (y), two call sites of
// one caller numbering k on, a call argument that is an expression.
const char* kEveryKind =
    "kernel kacc(x: In tensor<i32>[8], a: InOut tensor<i32>[8]) -> (a) = builtin acc\n"
    "kernel kacc4(x: In tensor<i32>[4], a: InOut tensor<i32>[4]) -> (a) = builtin acc\n"
    "graph g(x: In tensor<i32>[16], c: InOut tensor<i32>[8], n: In i64) -> (tensor<i32>[8]) {\n"
    "  m = n\n  p = m * 2\n  q = p + dim(x, 0)\n  v = slice(x, [q % 8], [8])\n  w = slice(v, [p % 4], [4])\n"
    "  t = create [8]\n  u = slice(t, [m % 4], [4])\n"
    "  for j in range(0, 2, 1) {\n    o = j * 4\n    y = slice(c, [o], [4])\n    y1 = call kacc4(w, y)\n  }\n"
    "  if n > 0 {\n    s = m / 2\n    e = create [4]\n  }\n"
    "  t1 = call kacc(v, t)\n  c1 = call kacc(t1, c)\n  return c1\n}\n"
    "orchestration main(x: In tensor<i32>[16], c: InOut tensor<i32>[8]) {\n"
    "  for i in range(0, 2, 1) {\n    call g(x, c, i + 1)\n    r = call g(x, c, 3)\n  }\n}\n";

const Stage* boundary_stage(const PipelineRun& run, size_t* at) {
  for (size_t i = 1; i < run.stages.size(); ++i)
    if (run.stages[i].pass == "LegalizeGraphBoundary") {
      *at = i;
      return &run.stages[i];
    }
  return nullptr;
}

TEST(BoundaryModel, judges_every_kind_of_hoist_through_the_pipeline) {
  const PipelineRun run = run_pipeline(program(kEveryKind));
  ASSERT_TRUE(run.verdict.passed()) << run.verdict.to_string();
  size_t at = 0;
  ASSERT_NE(boundary_stage(run, &at), nullptr);
  const ir::Program& in = run.stages[at - 1].program;
  const boundary::Prediction p = boundary::predict(in, true);
  ASSERT_EQ(p.why, "");
  const std::string text = ir::print_program(p.program);
  EXPECT_NE(text.find("u__graph_arg5 = slice(t__graph_arg4, [(i + 1) % 4], [4])"), std::string::npos) << text;
  EXPECT_NE(text.find("q__graph_arg9 = p__graph_arg8 + 16"), std::string::npos) << text;
  const Verdict v = check_legalized(in, run.stages[at].program, run.boundary_report, true);
  EXPECT_TRUE(v.passed()) << v.to_string();
  EXPECT_TRUE(check_boundary_run(run, true).passed());
}

// Positive controls: what a wrong pass would give.
TEST(BoundaryModelControl, wrong_outputs_and_reports_fail) {
  const PipelineRun run = run_pipeline(program(kEveryKind));
  size_t at = 0;
  ASSERT_NE(boundary_stage(run, &at), nullptr);
  const ir::Program& in = run.stages[at - 1].program;
  const ir::Program& out = run.stages[at].program;
  auto fails = [&](const ir::Program& o, const passes::LegalizeGraphBoundaryReport& r, const char* words) {
    const Verdict v = check_legalized(in, o, r, true);
    EXPECT_TRUE(v.failed()) << words;
    EXPECT_EQ(v.rule, "boundary-model");
    EXPECT_NE(v.to_string().find(words), std::string::npos) << v.to_string();
  };
  // Temps numbered from 0 at each site, not per caller.
  fails(program([&] {
          std::string t = ir::print_program(out);
          for (size_t p = t.find("p__graph_arg8"); p != std::string::npos; p = t.find("p__graph_arg8"))
            t.replace(p, 13, "p__graph_arg0");
          return t;
        }()),
        run.boundary_report, "differs");
  // The graph's last two params swapped (and the call sites' arguments with them).
  ir::Program swapped = out;
  for (ir::Function& f : swapped.functions)
    if (f.name == "g") std::swap(f.params[f.params.size() - 1], f.params[f.params.size() - 2]);
  fails(swapped, run.boundary_report, "differs");
  // The report: a hoist's depth, its location, its kind.
  for (int which = 0; which < 3; ++which) {
    passes::LegalizeGraphBoundaryReport r = run.boundary_report;
    passes::AppendedParam& a = r.graphs.at(0).appended.back();
    if (which == 0) a.depth += 1;
    if (which == 1) a.loc.column += 1;
    if (which == 2) a.kind = passes::HoistKind::View;
    fails(out, r, "appended params");
  }
  // A graph reported as never checked; an appended param without its definition's location.
  passes::LegalizeGraphBoundaryReport unchecked = run.boundary_report;
  unchecked.graphs.at(0).checked = false;
  fails(out, unchecked, "never reached step 5");
  ir::Program moved = out;
  for (ir::Function& f : moved.functions)
    if (f.name == "g") f.params.back().loc = {};
  fails(moved, run.boundary_report, "is at 0:0");
  // A view at offsets neither derivable nor invariant, accepted as is: §5.3 gives 211.
  const ir::Program bad = program(
      "kernel kacc4(x: In tensor<i32>[4], a: InOut tensor<i32>[4]) -> (a) = builtin acc\n"
      "graph g(x: In tensor<i32>[16], c: InOut tensor<i32>[4], n: In i64) -> (tensor<i32>[4]) {\n"
      "  for j in range(0, 2, 1) {\n    v = slice(x, [n + j], [4])\n    c1 = call kacc4(v, c)\n  }\n"
      "  return c\n}\n"
      "orchestration main(x: In tensor<i32>[16], c: InOut tensor<i32>[4]) {\n  call g(x, c, 1)\n}\n");
  const Verdict v = check_legalized(bad, bad, {}, true);
  EXPECT_TRUE(v.failed());
  EXPECT_NE(v.to_string().find("211"), std::string::npos) << v.to_string();
}

}  // namespace
}  // namespace stackcheck::oracles
