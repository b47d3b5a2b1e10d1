// OrchestrationCodegen golden cases (COMPILER.md §6): each legal program goes through the
// default pipeline, then codegen; the printed `.plan` is compared with the expected text,
// and every plan must validate and round-trip through the runtime's parser.
#include "stack/codegen/codegen.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "stack/codegen/codegen_test_util.h"
#include "stack/runtime/host/bind.h"

namespace stackcheck::codegen {
namespace {

using testing::compile;
using testing::kFixture;
using testing::main_of;
using testing::main_plan;
using testing::program_of;
using testing::program_plan;

std::string with_fixture(std::string_view rest) { return std::string(kFixture) + std::string(rest); }

// §6 `legalized`: the §5.3 example (COMPILER.md §1's program after the pipeline).
TEST(OrchestrationCodegen, legalized) {
  const std::string gir = testing::kSection1Example;
  EXPECT_EQ(compile(gir), R"(tensor t0: In [16]
tensor t1: InOut [8]
graph g(t0, t1, t2, t3) {
  submit acc(input t3, inout t2)
  submit acc(input t2, inout t1)
}
scope_begin
for s0 = 0, 2, 1 {
  scope_begin
  alloc t2: [8]
  set s1 = s0 * 8
  view t3 = t0[s1:8]
  submit_graph g(input t0, inout t1, inout t2, input t3, scalar s0)
  scope_end
}
scope_end
)");
}

// Each emitted statement carries the location of the IR statement it lowers (the dependency
// oracle names .gir lines with it); PlanLocs never compare, so plan equality is untouched.
TEST(OrchestrationCodegen, statements_carry_gir_locations) {
  const CodegenResult r = generate_orchestration(testing::legalize(testing::kSection1Example));
  ASSERT_TRUE(r.ok);
  const runtime::PlanGraph& g = r.program.graphs.at(0);
  ASSERT_EQ(g.body.size(), 2u);
  EXPECT_EQ(g.body[0].loc.line, 5u);  // t1 = call kacc(v, t)
  EXPECT_EQ(g.body[1].loc.line, 6u);  // c1 = call kacc(t1, c)
  ASSERT_EQ(r.program.body.size(), 3u);
  EXPECT_EQ(r.program.body[0].loc.line, 9u);   // the entry's scope_begin: the orchestration function
  EXPECT_EQ(r.program.body[1].loc.line, 10u);  // for i in range(0, 2, 1)
  const auto& loop = std::get<runtime::ForStmt>(r.program.body[1].node);
  ASSERT_EQ(loop.body.size(), 6u);
  EXPECT_EQ(loop.body.front().loc.line, 10u);  // the iteration's scope_begin
  EXPECT_TRUE(std::holds_alternative<runtime::SubmitGraphStmt>(loop.body[4].node));
  EXPECT_EQ(loop.body[4].loc.line, 11u);  // call g(x, c, i)
  for (const runtime::PlanStmt& s : loop.body) EXPECT_NE(s.loc.line, 0u);
}

// §6 `tags`: a create first used as a builtin's Out is fresh: no alloc, an `output` slot.
TEST(OrchestrationCodegen, tags) {
  EXPECT_EQ(compile(main_of(R"(  o = create [8]
  o1 = call ksc(x, o, 3)
)")),
            main_plan(R"(submit scale(input t0, output t2: [8], scalar 3)
)"));
}

// Every tag: input, inout, output (fresh), output_existing (a create first used as InOut,
// then written as Out), scalar; writebacks and tuple elements reuse their registers; k2's
// extra param is not passed.
TEST(OrchestrationCodegen, tags_all_kinds) {
  EXPECT_EQ(compile(main_of(testing::kAllTagsBody)), main_plan(R"(alloc t2: [8]
submit acc(input t0, inout t2)
submit scale(input t2, output_existing t2, scalar 2)
submit copy(input t2, output t3: [8])
submit acc(input t1, inout t3)
)"));
}

// §6 `batches`: 20 creates, first used as InOut, and 21 launches in one list: allocs of
// 16 and 4 buffers in definition order, then 21 submits.
TEST(OrchestrationCodegen, batches) {
  std::string body;
  for (int i = 0; i < 20; ++i) body += fmt::format("  b{} = create [8]\n", i);
  for (int i = 0; i < 20; ++i) body += fmt::format("  b{}w = call kacc(x, b{})\n", i, i);
  body += "  c1 = call kacc(b19w, c)\n";
  const std::string gir = main_of(body);
  std::string alloc16 = "alloc ", alloc4 = "alloc ";
  for (int i = 0; i < 16; ++i) alloc16 += fmt::format("{}t{}: [8]", i ? ", " : "", i + 2);
  for (int i = 16; i < 20; ++i) alloc4 += fmt::format("{}t{}: [8]", i > 16 ? ", " : "", i + 2);
  std::string expected = "tensor t0: In [8]\ntensor t1: InOut [8]\nscope_begin\n" + alloc16 + "\n" + alloc4 + "\n";
  for (int i = 0; i < 20; ++i) expected += fmt::format("submit acc(input t0, inout t{})\n", i + 2);
  expected += "submit acc(input t21, inout t1)\nscope_end\n";
  const std::string plan = compile(gir);
  EXPECT_EQ(plan, expected);
  size_t submits = 0;
  for (size_t at = plan.find("submit "); at != std::string::npos; at = plan.find("submit ", at + 1)) ++submits;
  EXPECT_EQ(submits, 21u);
}

// Exactly 16 creates take one alloc; 17 take two (16 + 1).
TEST(OrchestrationCodegen, batches_boundary) {
  for (int n : {16, 17}) {
    std::string body;
    for (int i = 0; i < n; ++i) body += fmt::format("  b{} = create [4]\n  b{}w = call kacc4(y, b{})\n", i, i, i);
    const std::string plan = compile(main_of("  y = slice(x, [4], [4])\n" + body));
    size_t allocs = 0;
    for (size_t at = plan.find("alloc "); at != std::string::npos; at = plan.find("alloc ", at + 1)) ++allocs;
    EXPECT_EQ(allocs, n == 16 ? 1u : 2u) << plan;
  }
}

// Fresh needs: the first use, in the create's own list, a launch passing it unviewed to a
// builtin-written Out param and to no other param. Each failing condition gives an alloc.
TEST(OrchestrationCodegen, fresh_rules) {
  // First used inside a loop (not its own list).
  EXPECT_EQ(compile(main_of(R"(  o = create [8]
  for i in range(0, 2, 1) {
    o1 = call ksc(x, o, i)
  }
)")),
            main_plan(R"(alloc t2: [8]
for s0 = 0, 2, 1 {
  scope_begin
  submit scale(input t0, output_existing t2, scalar s0)
  scope_end
}
)"));
  // Passed to the Out param and to an In param of the same launch.
  EXPECT_EQ(compile(program_of(
                R"(kernel kadd(a: In tensor<i32>[8], b: In tensor<i32>[8], o: Out tensor<i32>[8]) -> (o) = builtin add
)",
                R"(  o = create [8]
  o1 = call kadd(o, x, o)
)")),
            main_plan(R"(alloc t2: [8]
submit add(input t2, input t0, output_existing t2)
)"));
  // Viewed: a slice is the first use.
  EXPECT_EQ(
      compile(program_of(R"(kernel ksc4(x: In tensor<i32>[4], o: Out tensor<i32>[4], s: In i64) -> (o) = builtin scale
)",
                         R"(  o = create [8]
  v = slice(o, [4], [4])
  u = slice(x, [0], [4])
  v1 = call ksc4(u, v, 5)
)")),
      main_plan(R"(alloc t2: [8]
view t3 = t2[4:4]
view t4 = t0[0:4]
submit scale(input t4, output_existing t3, scalar 5)
)"));
  // Passed only to an Out extra param (not builtin-written), then written as InOut.
  EXPECT_EQ(
      compile(program_of(
          R"(kernel kx(x: In tensor<i32>[8], a: InOut tensor<i32>[8], e: Out tensor<i32>[8]) -> (a, e) = builtin acc
)",
          R"(  o = create [8]
  r = call kx(x, c, o)
  e = r.1
  e1 = call kacc(x, e)
)")),
      main_plan(R"(alloc t2: [8]
submit acc(input t0, inout t1)
submit acc(input t0, inout t2)
)"));
}

// Entry `full` becomes a fill with an output slot; `assemble` a view and a copy whose
// result reuses the target's register; slices and multi-dimensional windows become views.
TEST(OrchestrationCodegen, full_assemble_views) {
  EXPECT_EQ(compile(with_fixture(R"(kernel kcp(s: In tensor<i32>[2, 4], d: Out tensor<i32>[2, 4]) -> (d) = builtin copy
orchestration main(x: In tensor<i32>[8], c: InOut tensor<i32>[8], m: InOut tensor<i32>[4, 8]) {
  f = full [8], 5
  c1 = call kacc(f, c)
  u = slice(x, [2], [4])
  c2 = assemble(c1, u, [4])
  c3 = call kacc(x, c2)
  a = slice(m, [0, 0], [2, 4])
  b = slice(m, [2, 4], [2, 4])
  b1 = call kcp(a, b)
}
)")),
            R"(tensor t0: In [8]
tensor t1: InOut [8]
tensor t2: InOut [4, 8]
scope_begin
submit fill(output t3: [8], scalar 5)
submit acc(input t3, inout t1)
view t4 = t0[2:4]
view t5 = t1[4:4]
submit copy(input t4, output_existing t5)
submit acc(input t0, inout t1)
view t6 = t2[0:2, 0:4]
view t7 = t2[2:2, 4:4]
submit copy(input t6, output_existing t7)
scope_end
)");
}

// `read` of entry In windows becomes a host read; compound operands get a `set`; loops
// and ifs nest with a scope around each entry loop iteration.
TEST(OrchestrationCodegen, reads_loops_ifs) {
  EXPECT_EQ(compile(main_of(R"(  n = read(x, [0])
  w = slice(x, [4], [4])
  for i in range(0, n % 3, 1) {
    t = create [8]
    if read(w, [i]) > 2 {
      t1 = call ksc(x, t, i + 1)
    } else {
      t2 = call kacc(x, t)
    }
    c1 = call kacc(t, c)
  }
)")),
            main_plan(R"(read s0 = t0[0]
view t2 = t0[4:4]
set s1 = s0 % 3
for s2 = 0, s1, 1 {
  scope_begin
  alloc t3: [8]
  read s3 = t2[s2]
  if s3 > 2 {
    set s4 = s2 + 1
    submit scale(input t0, output_existing t3, scalar s4)
  } else {
    submit acc(input t0, inout t3)
  }
  submit acc(input t3, inout t1)
  scope_end
}
)"));
}

// A graph with an internal loop: creates below depth 0 stay in the graph (an alloc per
// iteration), fresh ones become outputs; `scalar $k` passes a slot; no scopes in graphs.
TEST(OrchestrationCodegen, graph_body_registers) {
  EXPECT_EQ(
      compile(program_of(R"(graph h(x: In tensor<i32>[8], c: InOut tensor<i32>[8], n: In i64) -> (tensor<i32>[8]) {
  for j in range(0, 2, 1) {
    t = create [8]
    u = create [8]
    k = j * 3
    t1 = call ksc(x, t, k)
    u1 = call kacc(t1, u)
    c1 = call kacc(u1, c)
  }
  c2 = call ksc(x, c, n)
  return c
}
)",
                         R"(  for i in range(0, 3, 1) {
    call h(x, c, i)
  }
)")),
      program_plan(R"(graph h(t0, t1) {
  for s0 = 0, 2, 1 {
    alloc t2: [8]
    set s1 = s0 * 3
    submit scale(input t0, output t3: [8], scalar s1)
    submit acc(input t3, inout t2)
    submit acc(input t2, inout t1)
  }
  submit scale(input t0, output_existing t1, scalar $0)
}
)",
                   R"(for s0 = 0, 3, 1 {
  scope_begin
  submit_graph h(input t0, inout t1, scalar s0)
  scope_end
}
)"));
}

// Graph call results (rpi) reuse the argument's register, also through a submit tuple.
TEST(OrchestrationCodegen, graph_results_reuse_registers) {
  EXPECT_EQ(compile(program_of(
                R"(graph h(b: InOut tensor<i32>[8], d: InOut tensor<i32>[8]) -> (tensor<i32>[8], tensor<i32>[8]) {
  b1 = call kacc(d, b)
  return d, b1
}
)",
                R"(  t = create [8]
  t1 = call kacc(x, t)
  r = submit h(c, t1)
  p = r.0
  q = r.1
  p1 = call kacc(x, p)
  q1 = call kacc(x, q)
)")),
            program_plan(R"(graph h(t0, t1) {
  submit acc(input t1, inout t0)
}
)",
                         R"(alloc t2: [8]
submit acc(input t0, inout t2)
submit_graph h(inout t1, inout t2)
submit acc(input t0, inout t2)
submit acc(input t0, inout t1)
)"));
}

// A graph whose name is a `.plan` keyword is renamed.
TEST(OrchestrationCodegen, graph_named_like_plan_keyword) {
  const std::string plan =
      compile(program_of(R"(graph view(c: InOut tensor<i32>[8], x: In tensor<i32>[8]) -> (tensor<i32>[8]) {
  c1 = call kacc(x, c)
  return c
}
)",
                         R"(  call view(c, x)
)"));
  EXPECT_NE(plan.find("graph view_g(t0, t1) {"), std::string::npos) << plan;
  EXPECT_NE(plan.find("submit_graph view_g(inout t1, input t0)"), std::string::npos) << plan;
}

// Entry tensors keep param order; entry_names maps them back to the IR names.
TEST(OrchestrationCodegen, entry_names_in_param_order) {
  const CodegenResult r = generate_orchestration(
      testing::legalize(with_fixture(R"(orchestration main(c: InOut tensor<i32>[8], x: In tensor<i32>[8]) {
  c1 = call kacc(x, c)
}
)")));
  ASSERT_TRUE(r.ok);
  EXPECT_EQ(r.entry_names, (std::vector<std::string>{"c", "x"}));
  ASSERT_EQ(r.program.tensors.size(), 2u);
  EXPECT_EQ(r.program.tensors[0].name, "t0");
  EXPECT_TRUE(r.program.tensors[0].inout);
  EXPECT_FALSE(r.program.tensors[1].inout);
}

std::filesystem::path corpus_programs() {
  return std::filesystem::path(STACKCHECK_SOURCE_DIR) / "corpus" / "programs";
}

std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Every shared corpus program compiles: pipeline, codegen, a plan that validates and
// round-trips. The runtime binds it without a latch (graphs may still be unsupported).
TEST(OrchestrationCodegen, corpus_programs_compile) {
  const std::filesystem::path dir = corpus_programs();
  ASSERT_TRUE(std::filesystem::is_directory(dir)) << dir;
  int seen = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".gir") continue;
    SCOPED_TRACE(entry.path().filename().string());
    const CodegenResult r = generate_orchestration(testing::legalize(read_file(entry.path())));
    ASSERT_TRUE(r.ok) << (r.diagnostics.empty() ? "" : r.diagnostics.front().render(""));
    testing::expect_plan_round_trips(r.program);
    const runtime::BindResult b = runtime::bind_plan(r.program);
    EXPECT_TRUE(b.status == runtime::kStatusOk ||
                (b.status == runtime::kStatusUnsupported && !r.program.graphs.empty()))
        << runtime::status_line(b) << " " << b.detail;
    ++seen;
  }
  EXPECT_GE(seen, 2);
}

// decode_layers: the hoisted 2-D weight view and the derived scale scalar reach the call
// site; the 14 intermediate creates are all fresh or hoisted.
TEST(OrchestrationCodegen, corpus_decode_layers_call_site) {
  const std::string plan = compile(read_file(corpus_programs() / "decode_layers.gir"));
  EXPECT_NE(plan.find("view t"), std::string::npos) << plan;
  EXPECT_NE(plan.find("[s1:8, 0:8]"), std::string::npos) << plan;
  EXPECT_NE(plan.find("submit_graph layer("), std::string::npos) << plan;
}

// Graph-free codegen output binds on the runtime without any latch.
TEST(OrchestrationCodegen, entry_plans_bind_ok) {
  for (const char* body : {
           "  o = create [8]\n  o1 = call ksc(x, o, 3)\n  c1 = call kacc(o1, c)\n",
           "  f = full [8], 7\n  c1 = call kacc(f, c)\n  n = read(x, [1])\n  for i in range(0, n % 4 + 1, 1) {\n"
           "    t = create [8]\n    t1 = call kacc(x, t)\n    c2 = call kacc(t1, c)\n  }\n",
       }) {
    const CodegenResult r = generate_orchestration(testing::legalize(main_of(body)));
    ASSERT_TRUE(r.ok);
    const runtime::BindResult b = runtime::bind_plan(r.program);
    EXPECT_EQ(b.status, runtime::kStatusOk) << runtime::status_line(b) << " " << b.detail;
  }
}

}  // namespace
}  // namespace stackcheck::codegen
