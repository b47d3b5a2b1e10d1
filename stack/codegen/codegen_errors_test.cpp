// OrchestrationCodegen rejections (COMPILER.md §6, codes 300-306). 301, 302, 304 and 305
// are pre-empted by GraphBoundaryLegalized in the pipeline, so these tests call codegen
// directly on parsed programs. Each code has a positive control (a near miss that passes).
#include "stack/codegen/codegen.h"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include "stack/codegen/codegen_test_util.h"

namespace stackcheck::codegen {
namespace {

using testing::codes_of;
using testing::kFixture;
using testing::parse_gir;
using testing::plan_of;

ir::Program fixture_program(std::string_view rest) { return parse_gir(std::string(kFixture) + std::string(rest)); }

using Codes = std::vector<int>;

TEST(OrchestrationCodegenErrors, code_301_graph_out_param) {
  const ir::Program p = fixture_program(R"(graph h(x: In tensor<i32>[8], o: Out tensor<i32>[8]) -> (tensor<i32>[8]) {
  o1 = call ksc(x, o, 1)
  return o
}
orchestration main(x: In tensor<i32>[8], c: InOut tensor<i32>[8]) {
  call h(x, c)
}
)");
  EXPECT_EQ(codes_of(p), Codes{301});
  const CodegenResult r = generate_orchestration(p);
  ASSERT_EQ(r.diagnostics.size(), 1u);
  EXPECT_EQ(r.diagnostics[0].location.function, "h");
  EXPECT_EQ(r.diagnostics[0].location.line, 5u);
  // Control: the same graph with an InOut param.
  EXPECT_NE(plan_of(fixture_program(R"(graph h(x: In tensor<i32>[8], o: InOut tensor<i32>[8]) -> (tensor<i32>[8]) {
  o1 = call ksc(x, o, 1)
  return o
}
orchestration main(x: In tensor<i32>[8], c: InOut tensor<i32>[8]) {
  call h(x, c)
}
)")),
            "");
}

TEST(OrchestrationCodegenErrors, code_302_full_in_graph) {
  EXPECT_EQ(codes_of(fixture_program(R"(graph h(c: InOut tensor<i32>[8]) -> (tensor<i32>[8]) {
  f = full [8], 1
  c1 = call kacc(f, c)
  return c
}
orchestration main(x: In tensor<i32>[8], c: InOut tensor<i32>[8]) {
  call h(c)
}
)")),
            Codes{302});
  // Control: `full` in the entry is a fill.
  EXPECT_NE(plan_of(fixture_program(R"(orchestration main(x: In tensor<i32>[8], c: InOut tensor<i32>[8]) {
  f = full [8], 1
  c1 = call kacc(f, c)
}
)"))
                .find("submit fill(output t2: [8], scalar 1)"),
            std::string::npos);
}

TEST(OrchestrationCodegenErrors, code_303_read_not_entry_in) {
  // A create, an entry InOut param and a graph param are not entry In roots.
  EXPECT_EQ(codes_of(fixture_program(R"(orchestration main(x: In tensor<i32>[8], c: InOut tensor<i32>[8]) {
  t = create [8]
  t1 = call kacc(x, t)
  a = read(t1, [0])
  v = slice(c, [2], [4])
  b = read(v, [a % 4])
}
)")),
            (Codes{303, 303}));
  EXPECT_EQ(codes_of(fixture_program(R"(graph h(x: In tensor<i32>[8], c: InOut tensor<i32>[8]) -> (tensor<i32>[8]) {
  s = read(x, [0])
  c1 = call ksc(x, c, s)
  return c
}
orchestration main(x: In tensor<i32>[8], c: InOut tensor<i32>[8]) {
  call h(x, c)
}
)")),
            Codes{303});
  // Control: a window of an entry In param reads on the host.
  EXPECT_NE(plan_of(fixture_program(R"(orchestration main(x: In tensor<i32>[8], c: InOut tensor<i32>[8]) {
  v = slice(x, [2], [4])
  w = v
  a = read(w, [1])
  c1 = call ksc(x, c, a)
}
)"))
                .find("read s0 = t2[1]"),
            std::string::npos);
}

TEST(OrchestrationCodegenErrors, code_304_graph_from_graph) {
  const std::string inner = R"(graph h(c: InOut tensor<i32>[8], x: In tensor<i32>[8]) -> (tensor<i32>[8]) {
  c1 = call kacc(x, c)
  return c
}
)";
  EXPECT_EQ(
      codes_of(fixture_program(inner + R"(graph g(c: InOut tensor<i32>[8], x: In tensor<i32>[8]) -> (tensor<i32>[8]) {
  c1 = call h(c, x)
  c2 = call kacc(x, c1)
  return c
}
orchestration main(x: In tensor<i32>[8], c: InOut tensor<i32>[8]) {
  call g(c, x)
}
)")),
      Codes{304});
  // Control: both graphs launched from the entry.
  EXPECT_NE(
      plan_of(fixture_program(inner + R"(graph g(c: InOut tensor<i32>[8], x: In tensor<i32>[8]) -> (tensor<i32>[8]) {
  c2 = call kacc(x, c)
  return c
}
orchestration main(x: In tensor<i32>[8], c: InOut tensor<i32>[8]) {
  c1 = call h(c, x)
  call g(c1, x)
}
)")),
      "");
}

// A graph with `tensors` InOut tensor params and `scalars` scalar params, called once.
ir::Program wide_graph(int tensors, int scalars) {
  std::vector<std::string> params, args;
  for (int i = 0; i < tensors; ++i) {
    params.push_back(fmt::format("p{}: InOut tensor<i32>[8]", i));
    args.push_back("c");
  }
  for (int i = 0; i < scalars; ++i) {
    params.push_back(fmt::format("n{}: In i64", i));
    args.push_back(fmt::format("{}", i));
  }
  return fixture_program(fmt::format(R"(graph w({}) -> (tensor<i32>[8]) {{
  q = call kacc(p0, p0)
  return p0
}}
orchestration main(x: In tensor<i32>[8], c: InOut tensor<i32>[8]) {{
  call w({})
}}
)",
                                     fmt::join(params, ", "), fmt::join(args, ", ")));
}

TEST(OrchestrationCodegenErrors, code_305_graph_boundary_too_large) {
  const auto program = wide_graph;
  EXPECT_EQ(codes_of(program(129, 0)), Codes{305});
  EXPECT_EQ(codes_of(program(1, 65)), Codes{305});
  // Control: exactly 128 tensors and 64 scalars.
  const std::string plan = plan_of(program(128, 64));
  EXPECT_NE(plan.find("scalar 63)"), std::string::npos);
  EXPECT_NE(plan.find("graph w(t0, "), std::string::npos);
}

TEST(OrchestrationCodegenErrors, code_306_entry_scalar_param) {
  EXPECT_EQ(codes_of(fixture_program(R"(orchestration main(x: In tensor<i32>[8], n: In i64, c: InOut tensor<i32>[8]) {
  c1 = call ksc(x, c, n)
}
)")),
            Codes{306});
}

TEST(OrchestrationCodegenErrors, code_300_preconditions) {
  // Unknown name.
  EXPECT_EQ(codes_of(fixture_program(R"(orchestration main(x: In tensor<i32>[8], c: InOut tensor<i32>[8]) {
  c1 = call kacc(x, zz)
}
)")),
            Codes{300});
  // No orchestration function.
  EXPECT_EQ(codes_of(fixture_program("")), Codes{300});
  // A create whose shape is not static.
  EXPECT_EQ(codes_of(fixture_program(R"(orchestration main(x: In tensor<i32>[8], c: InOut tensor<i32>[8]) {
  n = read(x, [0])
  t = create [n]
}
)")),
            Codes{300});
  // Unknown callee, and a tuple element out of range.
  EXPECT_EQ(codes_of(fixture_program(R"(orchestration main(x: In tensor<i32>[8], c: InOut tensor<i32>[8]) {
  call nope(x)
}
)")),
            Codes{300});
  EXPECT_EQ(codes_of(fixture_program(R"(orchestration main(x: In tensor<i32>[8], c: InOut tensor<i32>[8]) {
  o = create [8]
  r = call k2(x, o, c)
  y = r.5
}
)")),
            Codes{300});
}

// A name used after the block that defined it (WellFormed 3): refused at the use, not lowered
// into a plan whose register is out of scope there (found by the WellFormed breaker's
// out-of-scope variant: codegen once refused it at the entry's line, through validate_plan).
TEST(OrchestrationCodegenErrors, code_300_a_name_used_after_its_block) {
  for (const char* opener : {"for i in range(0, 1, 1) {", "if 0 < 1 {"}) {
    const CodegenResult r = generate_orchestration(fixture_program(
        fmt::format("orchestration main(x: In tensor<i32>[8], c: InOut tensor<i32>[8]) {{\n  {}\n    n = 3\n  }}\n"
                    "  c1 = call ksc(x, c, n)\n}}\n",
                    opener)));
    ASSERT_EQ(r.diagnostics.size(), 1u) << opener;
    EXPECT_EQ(r.diagnostics[0].code, 300);
    EXPECT_NE(r.diagnostics[0].message.find("'n' is not defined"), std::string::npos) << r.diagnostics[0].message;
  }
  // Control: the use inside the block lowers.
  EXPECT_TRUE(generate_orchestration(fixture_program(R"(orchestration main(x: In tensor<i32>[8], c: InOut tensor<i32>[8]) {
  if 0 < 1 {
    n = 3
    c1 = call ksc(x, c, n)
  }
}
)"))
                  .ok);
}

// All findings are collected, in program order, each naming its function.
TEST(OrchestrationCodegenErrors, collects_all) {
  const CodegenResult r = generate_orchestration(
      fixture_program(R"(graph h(c: InOut tensor<i32>[8], x: In tensor<i32>[8]) -> (tensor<i32>[8]) {
  c1 = call kacc(x, c)
  return c
}
graph g(c: InOut tensor<i32>[8], x: In tensor<i32>[8], o: Out tensor<i32>[8]) -> (tensor<i32>[8]) {
  f = full [8], 2
  c1 = call h(c, f)
  return c
}
orchestration main(x: In tensor<i32>[8], c: InOut tensor<i32>[8], n: In i64) {
  t = create [8]
  call g(c, x, t)
  s = read(c, [0])
}
)"));
  EXPECT_FALSE(r.ok);
  std::vector<std::pair<int, std::string>> got;
  for (const ir::Diagnostic& d : r.diagnostics) got.emplace_back(d.code, d.location.function);
  EXPECT_EQ(got, (std::vector<std::pair<int, std::string>>{
                     {301, "g"}, {302, "g"}, {304, "g"}, {306, "main"}, {303, "main"}}));
}

}  // namespace
}  // namespace stackcheck::codegen
