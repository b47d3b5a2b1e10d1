// GraphBoundaryLegalized (COMPILER.md §4, codes 201-217): the legalized §5.3 example
// passes and the unlegalized §1 example fails (positive control); one graph per code, each
// beside a close program that passes; views of writebacks and submit tuple elements at
// `[n]` (211); node counts; program order; never crashing on malformed built programs.
#include "stack/verify/graph_boundary_legalized.h"

#include "stack/ir/builder.h"
#include "stack/ir/testing.h"
#include "stack/verify/well_formed.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace stackcheck::verify {
namespace {

namespace b = ir::build;

using ir::testing::parse_or_fail;

// The §5 fixture's kernels, k2 sorted (a legalized program has passed NormalizeReturnOrder).
const std::string kKernels = ir::testing::fixture_kernels_normalized();

// g(x: In T, c: InOut T, n: In i64) -> (T) { <body> return <ret> }, called from main's loop.
std::string graph(const std::string& body, const std::string& ret = "c") {
  return ir::testing::fixture_text({.body = body, .ret = ret}, kKernels);
}

ir::Program parse(const std::string& text) { return parse_or_fail(text); }
std::vector<int> codes(const ir::Diagnostics& ds) { return ir::testing::diagnostic_codes(ds); }
std::string dump(const ir::Diagnostics& ds) { return ir::testing::diagnostics_text(ds); }

void expect_codes(const ir::Program& p, const std::vector<int>& expected) {
  const ir::Diagnostics ds = check_graph_boundary_legalized(p);
  for (const ir::Diagnostic& d : ds) EXPECT_EQ(d.rule, "GraphBoundaryLegalized");
  EXPECT_EQ(codes(ds), expected) << dump(ds);
}
void expect_codes(const std::string& text, const std::vector<int>& expected) { expect_codes(parse(text), expected); }

const std::string kL = std::string(ir::testing::kFixtureLaunch) + "\n";

// ---- the examples ------------------------------------------------------------------

const std::string kLegalized = ir::testing::kSection1Legalized;

TEST(GraphBoundaryLegalized, legalized_example_passes) {
  const ir::Program p = parse(kLegalized);
  expect_codes(p, {});
  EXPECT_EQ(graph_node_counts(p), (std::map<std::string, uint64_t>{{"g", 2}}));
}

TEST(GraphBoundaryLegalized, unlegalized_example_fails) {
  const ir::Program p = parse(ir::testing::section1_example_normalized());
  const ir::Diagnostics ds = check_graph_boundary_legalized(p);
  ASSERT_EQ(codes(ds), std::vector<int>{211}) << dump(ds);
  EXPECT_EQ(ds[0].location.function, "g");
  EXPECT_EQ(ds[0].location.line, 3u);
  EXPECT_EQ(graph_node_counts(p).at("g"), 3u);  // a depth-0 create is a node until hoisted
}

TEST(GraphBoundaryLegalized, program_without_graphs_passes) {
  expect_codes(kKernels +
                   "orchestration main(a: In tensor<i32>[8], b: InOut tensor<i32>[8]) {\n"
                   "  b1 = call kacc(a, b)\n}\n",
               {});
}

// ---- one graph per code ------------------------------------------------------------

TEST(GraphBoundaryLegalized, code201_scalar_param_not_in) {
  // WellFormed 8 rejects this first; only a direct call reaches 201.
  const ir::Type t8 = ir::Type::tensor({8});
  ir::Program p;
  p.functions.push_back(
      b::kernel("kacc", {b::param("x", ir::Dir::In, t8), b::param("a", ir::Dir::InOut, t8)}, {"a"}, "acc"));
  p.functions.push_back(b::graph("g",
                                 {b::param("x", ir::Dir::In, t8), b::param("c", ir::Dir::InOut, t8),
                                  b::param("n", ir::Dir::InOut, ir::Type::i64())},
                                 {t8}, {b::call_to("c1", "kacc", b::names({"x", "c"})), b::ret({"c"})}));
  p.functions.push_back(b::orchestration("main", {b::param("a", ir::Dir::In, t8), b::param("b", ir::Dir::InOut, t8)},
                                         {b::call("g", {b::var("a"), b::var("b"), b::lit(1)})}));
  expect_codes(p, {201});
  p.functions[1].params[2].dir = ir::Dir::In;
  expect_codes(p, {});
}

TEST(GraphBoundaryLegalized, code202_tensor_param_out) {
  const std::string src = kKernels + R"(graph h(x: In tensor<i32>[8], o: DIR tensor<i32>[8]) -> (tensor<i32>[8]) {
  o1 = call ksc(x, o, 2)
  return o
}
orchestration main(a: In tensor<i32>[8], b: InOut tensor<i32>[8]) {
  r = call h(a, b)
}
)";
  auto with = [&](const char* dir) {
    std::string s = src;
    s.replace(s.find("DIR"), 3, dir);
    return s;
  };
  expect_codes(with("Out"), {202});
  expect_codes(with("InOut"), {});
}

TEST(GraphBoundaryLegalized, code203_no_tensor_param) {
  expect_codes(kKernels + R"(graph h(n: In i64) {
  t = create [8]
  u = create [8]
  u1 = call kacc(t, u)
}
orchestration main(a: In tensor<i32>[8], b: InOut tensor<i32>[8]) {
  call h(1)
}
)",
               {203});
}

// A graph with `tensors` In tensor params (plus c) and `scalars` scalar params, each used.
std::string many_params(int tensors, int scalars) {
  std::string params = "c: InOut tensor<i32>[8]", args = "b", body;
  for (int k = 0; k < tensors; ++k) {
    params += fmt::format(", x{}: In tensor<i32>[8]", k);
    args += ", a";
  }
  for (int k = 0; k < scalars; ++k) {
    params += fmt::format(", n{}: In i64", k);
    args += fmt::format(", {}", k);
    body += fmt::format("  c{} = call ksc(x0, c, n{})\n", k, k);
  }
  return kKernels + "graph h(" + params + ") {\n" + body + "  l1 = call kacc(x0, c)\n}\n" +
         "orchestration main(a: In tensor<i32>[8], b: InOut tensor<i32>[8]) {\n  call h(" + args + ")\n}\n";
}

TEST(GraphBoundaryLegalized, code204_too_many_tensor_params) {
  expect_codes(many_params(127, 1), {});  // 128 tensors
  expect_codes(many_params(128, 1), {204});
}

TEST(GraphBoundaryLegalized, code205_too_many_scalar_params) {
  expect_codes(many_params(1, 64), {});
  expect_codes(many_params(1, 65), {205});
}

TEST(GraphBoundaryLegalized, code206_full) { expect_codes(graph("f = full [8], 1\n" + kL), {206}); }

TEST(GraphBoundaryLegalized, code207_create_shape_not_literal) {
  expect_codes(graph("s = 8\nt = create [s]\n" + kL), {207});
  expect_codes(graph("t = create [dim(x, 0) * 2]\n" + kL), {});
}

TEST(GraphBoundaryLegalized, code208_graph_calls_graph) {
  const std::string h =
      "graph h(x: In tensor<i32>[8], c: InOut tensor<i32>[8]) -> (tensor<i32>[8]) {\n"
      "c1 = call kacc(x, c)\nreturn c\n}\n";
  std::string src = graph("c2 = call h(x, c)\n" + kL);
  src.insert(kKernels.size(), h);
  const ir::Diagnostics ds = check_graph_boundary_legalized(parse(src));
  ASSERT_EQ(codes(ds), std::vector<int>{208}) << dump(ds);
  EXPECT_EQ(ds[0].location.function, "g");
}

TEST(GraphBoundaryLegalized, code209_return_not_traceable) {
  expect_codes(graph("t = create [8]\nt1 = call kacc(x, t)", "t1"), {209});
  expect_codes(graph("v = slice(c, [0], [8])\nv1 = call kacc(x, v)", "v1"), {209});
  // Writebacks and tuple elements are traceable.
  expect_codes(graph("c1 = call kacc(x, c)", "c1"), {});
  expect_codes(graph("r = submit k2(x, c, c)\ny = r.1", "y"), {});
}

TEST(GraphBoundaryLegalized, code210_call_site_args_differ_from_params) {
  const std::string g = kKernels +
                        "graph g(x: In tensor<i32>[8], c: InOut tensor<i32>[8], n: In i64, v: In tensor<i32>[4]) {\n"
                        "  c1 = call kacc(x, c)\n}\n"
                        "orchestration main(a: In tensor<i32>[8], b: InOut tensor<i32>[8]) {\n";
  expect_codes(g + "  v = slice(a, [0], [4])\n  call g(a, b, 1, v)\n}\n", {});
  expect_codes(g + "  call g(a, b, 1)\n}\n", {210});                               // too few
  expect_codes(g + "  call g(a, b, 1, a)\n}\n", {210});                            // wrong shape
  expect_codes(g + "  v = slice(a, [0], [4])\n  call g(a, b, v, v)\n}\n", {210});  // tensor for scalar
  expect_codes(g + "  call g(a, b, 1, 2)\n}\n", {210});                            // scalar for tensor
}

TEST(GraphBoundaryLegalized, code211_view_offsets_not_invariant) {
  expect_codes(graph("v = slice(x, [n], [4])\n" + kL), {211});
  expect_codes(graph("v = slice(x, [4], [4])\n" + kL), {});
  // Loop vars of constant-trip loops are invariant; of other loops not.
  expect_codes(graph("for j in range(0, 2, 1) {\no = j * 4\nv = slice(c, [o], [4])\nv1 = call kacc4(v, v)\n}"), {});
  expect_codes(graph("for j in range(0, n, 1) {\nv = slice(c, [j], [4])\n}\n" + kL), {211});
}

TEST(GraphBoundaryLegalized, code211_view_of_writeback) {
  expect_codes(graph("c1 = call kacc(x, c)\nv = slice(c1, [n], [4])"), {211});
}

TEST(GraphBoundaryLegalized, code211_view_of_submit_tuple_element) {
  expect_codes(graph("r = submit k2(x, c, c)\ny = r.1\nv = slice(y, [n], [4])"), {211});
}

TEST(GraphBoundaryLegalized, code212_assemble_offsets_not_invariant) {
  expect_codes(graph("u = slice(x, [0], [4])\nc1 = assemble(c, u, [n])"), {212});
  expect_codes(graph("u = slice(x, [0], [4])\nc1 = assemble(c, u, [4])"), {});
}

// A kernel launch in a graph, checked by the verifier on its own (WellFormed 5 reports the
// arity first): it may leave out only a trailing run of Out params.
TEST(GraphBoundaryLegalized, code210_launch_leaving_out_params) {
  // kouts binds acc to (x, a); s (In), o and p (Out) are extras.
  const std::string kouts =
      "kernel kouts(x: In tensor<i32>[8], a: InOut tensor<i32>[8], s: In i64, o: Out tensor<i32>[8], "
      "p: Out tensor<i32>[8]) -> (a) = builtin acc\n";
  expect_codes(kouts + graph("c1 = call kouts(x, c, n, c, c)"), {});
  // Only trailing Out params left out: not GraphBoundaryLegalized's concern.
  expect_codes(kouts + graph("c1 = call kouts(x, c, n, c)"), {});
  expect_codes(kouts + graph("c1 = call kouts(x, c, n)"), {});
  EXPECT_EQ(codes(verify::check_well_formed(parse(kouts + graph("c1 = call kouts(x, c, n)")))), std::vector<int>{5});
  // An In param left out, at the end or in the middle of the omitted run; an InOut one; too many.
  const ir::Diagnostics in = check_graph_boundary_legalized(parse(graph("c1 = call ksc(x, c)")));
  ASSERT_EQ(codes(in), std::vector<int>{210}) << dump(in);
  EXPECT_EQ(in[0].location.function, "g");
  EXPECT_EQ(in[0].location.line, 6u);  // the launch's line
  expect_codes(kouts + graph("c1 = call kouts(x, c)"), {210});
  expect_codes(graph("c1 = call kacc(x)"), {210});
  expect_codes(graph("c1 = call kacc(x, c, c)"), {210});
}

TEST(GraphBoundaryLegalized, code213_launch_scalar_argument) {
  expect_codes(graph("c1 = call ksc(x, c, n + 1)"), {213});
  expect_codes(graph("m = n\nc1 = call ksc(x, c, m)"), {213});  // an alias left in place
  expect_codes(graph("c1 = call ksc(x, c, n)"), {});
  expect_codes(graph("c1 = call ksc(x, c, 3 * dim(x, 0))"), {});
}

TEST(GraphBoundaryLegalized, code214_loop_with_nodes_without_constant_trips) {
  expect_codes(graph("for j in range(0, n, 1) {\n" + kL + "}"), {214});
  expect_codes(graph("for j in range(0, n, 1) {\nt = create [8]\n}\n" + kL), {214});
  expect_codes(graph("for j in range(0, n, 1) {\ns = j * 2\n}\n" + kL), {});
}

TEST(GraphBoundaryLegalized, code215_if_with_nodes) {
  expect_codes(graph("if n > 0 {\n" + kL + "}"), {215});
  expect_codes(graph("if n > 0 {\ns = 1\n} else {\nt = create [8]\n}\n" + kL), {215});
  expect_codes(graph("if n > 0 {\nv = slice(x, [0], [4])\n}\n" + kL), {});
}

TEST(GraphBoundaryLegalized, code216_node_count) {
  auto loop = [](const char* hi) { return graph(fmt::format("for j in range(0, {}, 1) {{\n{}}}", hi, kL)); };
  expect_codes(loop("1024"), {});
  expect_codes(loop("1025"), {216});
  expect_codes(graph(""), {216});
}

TEST(GraphBoundaryLegalized, code217_read) {
  expect_codes(graph("s = read(x, [0])\n" + kL), {217});
  expect_codes(graph("v = slice(x, [read(x, [0])], [4])\n" + kL), {211, 217});
}

// ---- node counts, order, robustness ------------------------------------------------

TEST(GraphBoundaryLegalized, node_counts) {
  std::string creates;
  for (int k = 0; k < 20; ++k) creates += fmt::format("t{} = create [8]\n", k);
  EXPECT_EQ(graph_node_counts(parse(graph("for j in range(0, 2, 1) {\n" + creates + kL + "}"))).at("g"), 6u);
  std::string top;
  for (int k = 0; k < 80; ++k) top += fmt::format("u{} = create [8]\n", k);
  EXPECT_EQ(graph_node_counts(parse(graph(top + "for j in range(0, 1020, 1) {\n" + kL + "}"))).at("g"), 1025u);
  const ir::Program big =
      parse(graph("for j in range(-9223372036854775808, 9223372036854775807, 1) {\n" + kL + "l2 = call kacc(x, c)\n}"));
  EXPECT_EQ(graph_node_counts(big).at("g"), UINT64_MAX);  // (2^64-1) x 2 saturates
  expect_codes(big, {216});
  // A non-constant loop counts its body once; an if counts both branches.
  EXPECT_EQ(graph_node_counts(parse(graph("for j in range(0, n, 1) {\n" + kL + "}"))).at("g"), 1u);
  EXPECT_EQ(graph_node_counts(parse(graph("if n > 0 {\n" + kL + "} else {\nl2 = call kacc(x, c)\n}"))).at("g"), 2u);
}

TEST(GraphBoundaryLegalized, diagnostics_in_program_order) {
  const ir::Diagnostics ds = check_graph_boundary_legalized(
      parse(graph("f = full [8], 1\nv = slice(x, [n], [4])\nc1 = call ksc(x, c, n + 1)")));
  EXPECT_EQ(codes(ds), (std::vector<int>{206, 211, 213})) << dump(ds);
  for (size_t i = 1; i < ds.size(); ++i) EXPECT_LT(ds[i - 1].location.line, ds[i].location.line);
}

TEST(GraphBoundaryLegalized, never_crashes_on_malformed_programs) {
  const ir::Type t8 = ir::Type::tensor({8});
  ir::Expr bad;  // a Binary without operands
  bad.kind = ir::Expr::Kind::Binary;
  ir::Program p;
  p.functions.push_back(
      b::graph("g", {b::param("x", ir::Dir::In, t8)}, {t8},
               {b::slice("v", "nowhere", {bad}, {4}), b::call_to("r", "unknown", {bad}), b::tuple_get("y", "r", 5),
                b::tuple_get("z", "x", -1), b::assemble("w", "q", "v", {}), b::create("t", {bad}),
                b::for_("j", bad, b::lit(4), b::lit(0), {b::call("g", {})}),
                b::if_(bad, ir::CmpOp::Eq, b::read("x", {bad}), {b::call("unknown", {})}), b::ret({"zz", "x"})}));
  p.functions.push_back(b::orchestration("main", {}, {b::call("g", {}), b::call("g", {bad, bad})}));
  const ir::Diagnostics ds = check_graph_boundary_legalized(p);
  EXPECT_FALSE(ds.empty());
  (void)graph_node_counts(p);
  expect_codes(ir::Program{}, {});
}

}  // namespace
}  // namespace stackcheck::verify
