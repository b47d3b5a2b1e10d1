// LegalizeGraphBoundary (COMPILER.md §5.3), part 1: the §1 example end to end and the
// named cases A (scalars), B (views) and C (creates) of the §5.3 table in the §5 case
// fixture, as Before/Expected `.gir` text (printed programs compared) or the expected
// diagnostic codes; plus the conditional clause of "derivable" (§3). Part 2 (D, call
// sites, report, robustness): legalize_graph_boundary_limits_test.cpp.
#include "stack/passes/legalize_graph_boundary/test_fixture.h"

#include "stack/passes/simplify.h"

namespace stackcheck::passes::graph_boundary_test {
namespace {

// ---- the §1 example ----------------------------------------------------------------

// §5.3's inputs have passed NormalizeReturnOrder: g returns c.
const std::string kExample = ir::testing::section1_example_normalized();

TEST(LegalizeGraphBoundary, example_section1) {
  const LegalizeRun r = run(kExample);
  ASSERT_TRUE(r.result.ok) << dump(r.result.diagnostics);
  EXPECT_EQ(ir::print_program(r.result.program), ir::testing::kSection1Legalized);
  EXPECT_EQ(nodes(r), 2u);
  const GraphReport* g = r.report.find("g");
  ASSERT_NE(g, nullptr);
  ASSERT_EQ(g->appended.size(), 2u);
  EXPECT_EQ(g->appended[0].name, "t");
  EXPECT_EQ(g->appended[0].kind, HoistKind::Create);
  EXPECT_EQ(g->appended[0].dir, ir::Dir::InOut);
  EXPECT_EQ(g->appended[0].depth, 0u);
  EXPECT_EQ(g->appended[0].loc.line, 4u);
  EXPECT_EQ(g->appended[1].name, "v");
  EXPECT_EQ(g->appended[1].kind, HoistKind::View);
  EXPECT_EQ(g->appended[1].dir, ir::Dir::In);
  EXPECT_EQ(g->appended[1].loc.line, 3u);
}

TEST(LegalizeGraphBoundary, no_graph_unchanged) {
  const std::string src = expand_fixture_types(kKernels +
                                               "orchestration main(a: In T, b: InOut T) {\n"
                                               "  b1 = call kacc(a, b)\n}\n");
  const LegalizeRun r = run(src);
  ASSERT_TRUE(r.result.ok);
  EXPECT_EQ(ir::print_program(r.result.program), ir::print_program(parse(src)));
  EXPECT_TRUE(r.report.graphs.empty());
}

// ---- A: scalars ----------------------------------------------------------------------

TEST(LegalizeGraphBoundary, A_derived) {
  const LegalizeRun r =
      expect_rewrite(Fx{.body = "s = n * 2\nc1 = call ksc(x, c, s)"},
                     hoisted("c1 = call ksc(x, c, s)", ", s: In i64", "s__graph_arg0 = i * 2", ", s__graph_arg0"));
  EXPECT_EQ(nodes(r), 1u);
  ASSERT_EQ(r.report.find("g")->appended.size(), 1u);
  EXPECT_EQ(r.report.find("g")->appended[0].kind, HoistKind::Scalar);
}

TEST(LegalizeGraphBoundary, A_args_loop_var_scalar) {
  const LegalizeRun r = expect_unchanged(Fx{.body = "for j in range(0, 2, 1) {\ns = j * 3\nc1 = call ksc(x, c, s)\n}"});
  EXPECT_EQ(nodes(r), 2u);
}

TEST(LegalizeGraphBoundary, A_alias) {
  const LegalizeRun r =
      expect_rewrite(Fx{.body = "m = n\nc1 = call ksc(x, c, m)"}, Fx{.body = "c1 = call ksc(x, c, n)"});
  EXPECT_EQ(ir::print_program(r.result.program).find("m__graph_arg"), std::string::npos);
  EXPECT_TRUE(r.report.find("g")->appended.empty());
}

// ---- the conditional clause of "derivable" (§3) ---------------------------------------

TEST(LegalizeGraphBoundary, A_conditional_division_by_nonzero_literal_hoisted) {
  const LegalizeRun r = expect_rewrite(
      Fx{.body = "for j in range(0, n, 1) {\ns = n / 2\nv = slice(c, [4], [4])\n}\n" + std::string(kL)},
      hoisted("for j in range(0, n, 1) {\n}\n" + std::string(kL), ", v: InOut T4, s: In i64",
              "s__graph_arg0 = i / 2\nv__graph_arg1 = slice(b, [4], [4])", ", v__graph_arg1, s__graph_arg0"));
  EXPECT_EQ(r.report.find("g")->appended[0].depth, 1u);
}

TEST(LegalizeGraphBoundary, A_conditional_division_by_name_stays) {
  // Hoisting `2 / n` out of a loop that may not run could fail where the original would
  // not; it stays (and is legal: no launch uses it).
  expect_unchanged(Fx{.body = "for j in range(0, n, 1) {\ns = 2 / n\n}\n" + std::string(kL)});
  expect_unchanged(Fx{.body = "if n > 0 {\ns = 2 % n\n}\n" + std::string(kL)});
  // A constant loop without trips is conditional too.
  expect_unchanged(Fx{.body = "for j in range(0, 0, 1) {\ns = 2 / n\n}\n" + std::string(kL)});
}

TEST(LegalizeGraphBoundary, B_conditional_view_needs_literal_offsets) {
  expect_rewrite(Fx{.body = "if n > 0 {\nv = slice(x, [4], [4])\n}\n" + std::string(kL)},
                 hoisted("if n > 0 {\n}\n" + std::string(kL), ", v: In T4", "v__graph_arg0 = slice(a, [4], [4])",
                         ", v__graph_arg0"));
  expect_codes(text(Fx{.body = "if n > 0 {\nv = slice(x, [n], [4])\n}\n" + std::string(kL)}), {211});
}

// ---- B: views ------------------------------------------------------------------------

TEST(LegalizeGraphBoundary, B_views) {
  const LegalizeRun r = expect_rewrite(Fx{.body = "m = n\ny = x\nv = slice(y, [m], [4])\nu = slice(c, [4], [4])\n"
                                                  "u1 = call kacc4(v, u)"},
                                       hoisted("y = x\nu1 = call kacc4(v, u)", ", v: In T4, u: InOut T4",
                                               "v__graph_arg0 = slice(a, [i], [4])\nu__graph_arg1 = slice(b, [4], [4])",
                                               ", v__graph_arg0, u__graph_arg1"));
  const GraphReport* g = r.report.find("g");
  ASSERT_EQ(g->appended.size(), 2u);
  EXPECT_EQ(g->appended[0].dir, ir::Dir::In);
  EXPECT_EQ(g->appended[1].dir, ir::Dir::InOut);
  EXPECT_EQ(g->appended[1].kind, HoistKind::View);
}

TEST(LegalizeGraphBoundary, B_of_create) {
  const LegalizeRun r =
      expect_rewrite(Fx{.body = "t = create [16]\nv = slice(t, [n], [4])\n" + std::string(kL)},
                     hoisted(kL, ", t: InOut tensor<i32>[16], v: InOut T4",
                             "t__graph_arg0 = create [16]\nv__graph_arg1 = slice(t__graph_arg0, [i], [4])",
                             ", t__graph_arg0, v__graph_arg1"));
  EXPECT_EQ(r.report.find("g")->appended[1].dir, ir::Dir::InOut);
}

TEST(LegalizeGraphBoundary, B_of_create_in_loop_211) {
  // The create hoisted, its view in a loop at a loop-dependent offset.
  expect_codes(text(Fx{.body = "t = create [16]\nfor j in range(0, 2, 1) {\n"
                               "v = slice(t, [n + j], [4])\n}\n" +
                               std::string(kL)}),
               {211});
  // Both in the loop: the create stays, a view of a local at [n + j].
  expect_codes(text(Fx{.body = "for j in range(0, 2, 1) {\nt = create [16]\n"
                               "v = slice(t, [n + j], [4])\n}\n" +
                               std::string(kL)}),
               {211});
}

const char* kLoopVarBody = R"(p = n * 4
for j in range(0, 2, 1) {
  o = j * 4
  v = slice(c, [OFF], [4])
  v1 = call kacc4(v, v)
}
c1 = call ksc(x, c, p))";

std::string loop_var_body(const std::string& off) {
  std::string b = kLoopVarBody;
  b.replace(b.find("OFF"), 3, off);
  return b;
}

TEST(LegalizeGraphBoundary, B_loop_var) {
  std::string after = loop_var_body("o");
  after.erase(0, after.find('\n') + 1);  // p's definition moves to the call site
  const LegalizeRun r = expect_rewrite(Fx{.body = loop_var_body("o")},
                                       hoisted(after, ", p: In i64", "p__graph_arg0 = i * 4", ", p__graph_arg0"));
  EXPECT_EQ(nodes(r), 3u);
}

TEST(LegalizeGraphBoundary, B_rebound_writeback) {
  const LegalizeRun r = expect_rewrite(
      Fx{.body = "c1 = call kacc(x, c)\nv = slice(c1, [n], [4])"},
      hoisted("c1 = call kacc(x, c)", ", v: InOut T4", "v__graph_arg0 = slice(b, [i], [4])", ", v__graph_arg0"));
  EXPECT_EQ(r.report.find("g")->appended[0].dir, ir::Dir::InOut);
}

TEST(LegalizeGraphBoundary, B_view_of_non_whole_rooted_stays_when_invariant) {
  // w's source is rooted but not whole (a view kept in the loop): it stays at [1].
  expect_unchanged(Fx{.body = "for j in range(0, 2, 1) {\nv = slice(c, [j * 4], [4])\n"
                              "w = slice(v, [1], [2])\nv1 = call kacc4(v, v)\n}"});
  expect_codes(text(Fx{.body = "for j in range(0, 2, 1) {\nv = slice(c, [j * 4], [4])\n"
                               "w = slice(v, [n], [2])\nv1 = call kacc4(v, v)\n}"}),
               {211});
}

TEST(LegalizeGraphBoundary, B_local_view) {
  const LegalizeRun r = expect_unchanged(Fx{.body = "for j in range(0, 2, 1) {\nt = create [8]\n"
                                                    "v = slice(t, [4], [4])\n}\n" +
                                                    std::string(kL)});
  EXPECT_EQ(nodes(r), 3u);
}

// ---- C: creates ----------------------------------------------------------------------

const char* kCreateBody = "t = create [8]\nt1 = call kacc(x, t)\nc1 = call kacc(t1, c)";

TEST(LegalizeGraphBoundary, C_create) {
  const LegalizeRun r =
      expect_rewrite(Fx{.body = kCreateBody}, hoisted("t1 = call kacc(x, t)\nc1 = call kacc(t1, c)", ", t: InOut T",
                                                      "t__graph_arg0 = create [8]", ", t__graph_arg0"));
  EXPECT_EQ(nodes(r), 2u);
}

TEST(LegalizeGraphBoundary, C_create_in_loop_stays) {
  const LegalizeRun r = expect_unchanged(Fx{.body = "for j in range(0, 2, 1) {\n" + std::string(kCreateBody) + "\n}"});
  EXPECT_EQ(nodes(r), 6u);
  EXPECT_TRUE(r.report.find("g")->appended.empty());
}

TEST(LegalizeGraphBoundary, C_create_in_if_hoisted) {
  const LegalizeRun r = expect_rewrite(
      Fx{.body = "if n > 0 {\nt = create [8]\n}\n" + std::string(kL)},
      hoisted("if n > 0 {\n}\n" + std::string(kL), ", t: InOut T", "t__graph_arg0 = create [8]", ", t__graph_arg0"));
  EXPECT_EQ(r.report.find("g")->appended[0].depth, 0u);
  // A view of it at literal offsets inside the if goes too.
  expect_rewrite(Fx{.body = "if n > 0 {\nt = create [8]\nv = slice(t, [4], [4])\n}\n" + std::string(kL)},
                 hoisted("if n > 0 {\n}\n" + std::string(kL), ", t: InOut T, v: InOut T4",
                         "t__graph_arg0 = create [8]\nv__graph_arg1 = slice(t__graph_arg0, [4], [4])",
                         ", t__graph_arg0, v__graph_arg1"));
}

TEST(LegalizeGraphBoundary, C_shape_hoisted_after_simplify) {
  const ir::Program in = parse(text(Fx{.body = "s = 8\nt = create [s]\n" + std::string(kL)}));
  const ir::Program simplified = simplify(in);
  const PassResult r = legalize_graph_boundary(simplified);
  ASSERT_TRUE(r.ok) << dump(r.diagnostics);
  EXPECT_EQ(ir::print_program(r.program),
            ir::print_program(parse(text(hoisted("s = 8\n" + std::string(kL), ", t: InOut T",
                                                 "t__graph_arg0 = create [8]", ", t__graph_arg0")))));
}

TEST(LegalizeGraphBoundary, C_step_c_off) {
  const LegalizeGraphBoundaryOptions off{.step_c = false};
  // Depth-0 creates stay, which GBL allows.
  const LegalizeRun r = expect_unchanged(Fx{.body = kCreateBody}, off);
  EXPECT_EQ(nodes(r), 3u);
  // A view of one at non-invariant offsets then gives 211.
  expect_codes(text(Fx{.body = "t = create [16]\nv = slice(t, [n], [4])\n" + std::string(kL)}), {211}, off);
  // In an if it is a node under an if: 215.
  expect_codes(text(Fx{.body = "if n > 0 {\nt = create [8]\n}\n" + std::string(kL)}), {215}, off);
}

// ---- the table's golden cases without further checks ----------------------------------

const GoldenCase kGolden[] = {
    // ---- A: scalars ----------------------------------------------------------------------
    unchanged("A_args_param_name", {.body = "c1 = call ksc(x, c, n)"}),
    unchanged("A_args_literal", {.body = "c1 = call ksc(x, c, 3)"}),
    rejected("A_args_expression_213", {.body = "c1 = call ksc(x, c, n + 1)"}, {213}),
    rewrites("A_multi_level", {.body = "p = n * 4\nq = p + 8\nc1 = call ksc(x, c, q)"},
             hoisted("c1 = call ksc(x, c, q)", ", p: In i64, q: In i64",
                     "p__graph_arg0 = i * 4\nq__graph_arg1 = p__graph_arg0 + 8", ", p__graph_arg0, q__graph_arg1")),
    rewrites("A_alias_with_hoist", {.body = "p = n * 2\nm = n\nc1 = call ksc(x, c, p)\nc2 = call ksc(x, c, m)"},
             hoisted("c1 = call ksc(x, c, p)\nc2 = call ksc(x, c, n)", ", p: In i64", "p__graph_arg0 = i * 2",
                     ", p__graph_arg0")),
    // m -> n, q -> m -> n; r uses the chain; w aliases the hoisted r.
    rewrites("A_alias_chains_and_hoisted_targets",
             {.body = "m = n\nq = m\nr = q * 2\nw = r\nc1 = call ksc(x, c, w)\nc2 = call ksc(x, c, q)"},
             hoisted("c1 = call ksc(x, c, r)\nc2 = call ksc(x, c, n)", ", r: In i64", "r__graph_arg0 = i * 2",
                     ", r__graph_arg0")),
    // Invariant scalars are not hoisted: a replay gives them the same value anyway.
    unchanged("A_invariant_scalar_stays", {.body = "s = 3 * dim(x, 0)\nc1 = call ksc(x, c, s)"}),
    rewrites("A_dim_emitted_as_literal", {.body = "s = n * dim(x, 0)\nc1 = call ksc(x, c, s)"},
             hoisted("c1 = call ksc(x, c, s)", ", s: In i64", "s__graph_arg0 = i * 8", ", s__graph_arg0")),
    rewrites("A_call_site_expression_mapped_with_parentheses",
             {.body = "s = n * 2\nc1 = call ksc(x, c, s)", .call = "call g(a, b, i + 1"},
             {.body = "c1 = call ksc(x, c, s)",
              .params = ", s: In i64",
              .site = "s__graph_arg0 = (i + 1) * 2",
              .args = ", s__graph_arg0",
              .call = "call g(a, b, i + 1"}),
    rewrites("A_unconditional_division_by_name_hoisted",
             {.body = "for j in range(0, 2, 1) {\ns = 16 / (n + 1)\n}\n" + std::string(kL)},
             hoisted("for j in range(0, 2, 1) {\n}\n" + std::string(kL), ", s: In i64", "s__graph_arg0 = 16 / (i + 1)",
                     ", s__graph_arg0")),

    // ---- B: views ------------------------------------------------------------------------
    rewrites("B_view_of_view", {.body = "v = slice(x, [n], [6])\nw = slice(v, [1], [4])\n" + std::string(kL)},
             hoisted(kL, ", v: In tensor<i32>[6], w: In T4",
                     "v__graph_arg0 = slice(a, [i], [6])\nw__graph_arg1 = slice(v__graph_arg0, [1], [4])",
                     ", v__graph_arg0, w__graph_arg1")),
    rejected("B_loop_var_non_invariant_211", {.body = loop_var_body("n + j")}, {211}),
    // Step 1 rejects the read; nothing after it runs (no 211 for the same offset).
    rejected("B_loop_var_read_217", {.body = loop_var_body("read(x, [0])")}, {217}),
    rewrites("B_rebound_submit_tuple", {.body = "r = submit k2(x, c, c)\ny = r.1\nv = slice(y, [n], [4])"},
             hoisted("r = submit k2(x, c, c)\ny = r.1", ", v: InOut T4", "v__graph_arg0 = slice(b, [i], [4])",
                     ", v__graph_arg0")),
    rewrites("B_rebound_assemble_result",
             {.body = "u = slice(x, [0], [4])\nc1 = assemble(c, u, [4])\nv = slice(c1, [n], [4])"},
             hoisted("c1 = assemble(c, u, [4])", ", u: In T4, v: InOut T4",
                     "u__graph_arg0 = slice(a, [0], [4])\nv__graph_arg1 = slice(b, [i], [4])",
                     ", u__graph_arg0, v__graph_arg1")),
    rejected("B_local_view_non_invariant_211",
             {.body = "for j in range(0, 2, 1) {\nt = create [8]\n"
                      "v = slice(t, [n], [4])\n}\n" +
                      std::string(kL)},
             {211}),

    // ---- C: creates ----------------------------------------------------------------------
    rewrites("C_create_dim_shape_emitted_as_literal", {.body = "t = create [dim(x, 0) * 2]\n" + std::string(kL)},
             hoisted(kL, ", t: InOut tensor<i32>[16]", "t__graph_arg0 = create [8 * 2]", ", t__graph_arg0")),
    rejected("C_shape_not_literal_207", {.body = "s = 8\nt = create [s]\n" + std::string(kL)}, {207}),
    rejected("C_full_206", {.body = "f = full [8], 1\n" + std::string(kL)}, {206}),
};

class Golden : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(Golden, matches) { expect_golden(GetParam()); }

INSTANTIATE_TEST_SUITE_P(LegalizeGraphBoundary, Golden, ::testing::ValuesIn(kGolden),
                         [](const ::testing::TestParamInfo<GoldenCase>& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace stackcheck::passes::graph_boundary_test
