// rpi and lineage (COMPILER.md §3, §5.2): kernels, every lineage step (alias, writeback,
// tuple element, assemble), the steps lineage never takes (slice, create), submit task ids,
// graph-to-graph lineage and robustness on ill-formed programs (cycles, unknown names).
#include "stack/ir/rpi.h"

#include "stack/ir/builder.h"
#include "stack/ir/testing.h"

#include <gtest/gtest.h>

#include <string>

namespace stackcheck::ir {
namespace {

// The §5 fixture's kernels and one returning nothing.
const std::string kKernels = std::string(testing::kFixtureKernels) +
                             "kernel knone(x: In tensor<i32>[8], o: Out tensor<i32>[8]) -> () = builtin copy\n";

Program parse(const std::string& text) { return testing::parse_or_fail(text); }

// rpi of the graph `g` whose body is `body` (params x: In, c: InOut, o: InOut, n).
ReturnParams graph_rpi(const std::string& body, const std::string& results = "tensor<i32>[8]") {
  Program p = parse(std::string(kKernels) +
                    "graph g(x: In tensor<i32>[8], c: InOut tensor<i32>[8], o: InOut "
                    "tensor<i32>[8], n: In i64) -> (" +
                    results + ") {\n" + body + "}\n");
  for (const Function& f : p.functions) {
    if (f.name == "g") return returned_param_indices(p, f);
  }
  ADD_FAILURE() << "no graph g";
  return {};
}

const Function& fn(const Program& p, const std::string& name) {
  for (const Function& f : p.functions) {
    if (f.name == name) return f;
  }
  static Function none;
  ADD_FAILURE() << "no function " << name;
  return none;
}

TEST(Rpi, kernel_named_params) {
  Program p = parse(kKernels);
  EXPECT_EQ(returned_param_indices(p, fn(p, "kacc")), (ReturnParams{1}));
  EXPECT_EQ(returned_param_indices(p, fn(p, "k2")), (ReturnParams{2, 1}));
  EXPECT_EQ(returned_param_indices(p, fn(p, "knone")), ReturnParams{});
}

TEST(Rpi, graph_param_returned_directly) { EXPECT_EQ(graph_rpi("  return c\n"), (ReturnParams{1})); }

TEST(Rpi, graph_writeback) { EXPECT_EQ(graph_rpi("  c1 = call kacc(x, c)\n  return c1\n"), (ReturnParams{1})); }

TEST(Rpi, graph_alias_and_tuple_element_by_rpi) {
  // k2 returns (o2, o1): r.0 is the third argument (c), r.1 the second (o).
  EXPECT_EQ(graph_rpi("  r = call k2(x, o, c)\n  y = r.0\n  z = y\n  return z\n"), (ReturnParams{1}));
  EXPECT_EQ(graph_rpi("  r = call k2(x, o, c)\n  y = r.1\n  return y\n"), (ReturnParams{2}));
}

TEST(Rpi, graph_assemble_reaches_its_target) {
  EXPECT_EQ(graph_rpi("  s = slice(x, [0], [8])\n  c1 = assemble(c, s, [0])\n  return c1\n"), (ReturnParams{1}));
}

TEST(Rpi, submit_tuple_and_task_id) {
  EXPECT_EQ(graph_rpi("  r = submit kacc(x, c)\n  y = r.0\n  return y\n"), (ReturnParams{1}));
  // r.1 is the task id: never a param.
  EXPECT_EQ(graph_rpi("  r = submit kacc(x, c)\n  y = r.1\n  return c\n"), (ReturnParams{1}));
  Program p = parse(std::string(kKernels) +
                    "graph g(x: In tensor<i32>[8], c: InOut tensor<i32>[8]) -> (tensor<i32>[8]) {\n"
                    "  r = submit kacc(x, c)\n  y = r.1\n  return y\n}\n");
  EXPECT_EQ(lineage_param(p, fn(p, "g"), "y"), std::nullopt);
}

TEST(Rpi, slice_create_and_extra_untraceable) {
  EXPECT_EQ(graph_rpi("  v = slice(c, [0], [8])\n  return v\n"), (ReturnParams{std::nullopt}));
  EXPECT_EQ(graph_rpi("  t = create [8]\n  t1 = call kacc(x, t)\n  return t1\n"), (ReturnParams{std::nullopt}));
  // A kernel without returns yields nothing: its "result" is no param.
  EXPECT_EQ(graph_rpi("  u = call knone(x, c)\n  return u\n"), (ReturnParams{std::nullopt}));
}

TEST(Rpi, graph_multiple_results_keep_positions) {
  EXPECT_EQ(graph_rpi("  c1 = call kacc(x, c)\n  o1 = call kacc(x, o)\n  t = create [8]\n"
                      "  return o1, t, c1\n",
                      "tensor<i32>[8], tensor<i32>[8], tensor<i32>[8]"),
            (ReturnParams{2, std::nullopt, 1}));
}

TEST(Rpi, lineage_through_a_graph_call) {
  // h returns (c1, b1) = params (1, 0); in g, the tuple elements reach g's own params.
  Program p = parse(std::string(kKernels) +
                    "graph h(b: InOut tensor<i32>[8], c: InOut tensor<i32>[8]) -> "
                    "(tensor<i32>[8], tensor<i32>[8]) {\n"
                    "  c1 = call kacc(b, c)\n  b1 = call kacc(c, b)\n  return c1, b1\n}\n"
                    "graph g(p: InOut tensor<i32>[8], q: InOut tensor<i32>[8]) -> "
                    "(tensor<i32>[8]) {\n  r = call h(p, q)\n  u = r.0\n  return u\n}\n");
  EXPECT_EQ(returned_param_indices(p, fn(p, "h")), (ReturnParams{1, 0}));
  EXPECT_EQ(returned_param_indices(p, fn(p, "g")), (ReturnParams{1}));
  RpiTable table(p);
  Lineage lin(fn(p, "g"), table);
  EXPECT_EQ(lin.param_of("u"), 1u);
  EXPECT_EQ(lin.param_of("p"), 0u);
  EXPECT_EQ(lin.param_of("r"), std::nullopt);  // a tuple is not a tensor
  EXPECT_EQ(lin.param_of("nope"), std::nullopt);
}

TEST(Rpi, orchestration_and_missing_return) {
  Program p = parse(std::string(kKernels) +
                    "graph g(c: InOut tensor<i32>[8]) -> (tensor<i32>[8], tensor<i32>[8]) {\n"
                    "  t = create [8]\n}\n"
                    "orchestration main(c: InOut tensor<i32>[8]) {\n  call g(c)\n}\n");
  EXPECT_EQ(returned_param_indices(p, fn(p, "g")), (ReturnParams{std::nullopt, std::nullopt}));
  EXPECT_EQ(returned_param_indices(p, fn(p, "main")), ReturnParams{});
}

TEST(Rpi, ill_formed_cycles_do_not_hang) {
  // A call cycle between graphs and a definition cycle inside one: both untraceable.
  Program p = parse(
      "graph a(c: InOut tensor<i32>[8]) -> (tensor<i32>[8]) {\n  r = call b(c)\n  return r\n}\n"
      "graph b(c: InOut tensor<i32>[8]) -> (tensor<i32>[8]) {\n  r = call a(c)\n  return r\n}\n"
      "graph d(c: InOut tensor<i32>[8]) -> (tensor<i32>[8]) {\n  u = v\n  v = u\n  return u\n}\n");
  RpiTable t(p);
  ASSERT_NE(t.find("a"), nullptr);
  ASSERT_NE(t.find("b"), nullptr);
  // Exactly one of a, b is computed first and sees the other as untraceable; the other
  // then traces through it. Neither crashes; the result is deterministic.
  const RpiTable again(p);
  for (const char* name : {"a", "b", "d"}) EXPECT_EQ(*again.find(name), *t.find(name)) << name;
  EXPECT_EQ(returned_param_indices(p, fn(p, "d")), (ReturnParams{std::nullopt}));
  EXPECT_EQ(t.find("missing"), nullptr);
}

TEST(Rpi, deep_alias_chain_is_iterative) {
  Function g = build::graph("g", {build::param("c", Dir::InOut, Type::tensor({8}))}, {Type::tensor({8})}, {});
  std::string prev = "c";
  for (int i = 0; i < 50000; ++i) {
    std::string name = "v" + std::to_string(i);
    g.body.push_back(build::let(name, build::var(prev)));
    prev = name;
  }
  g.body.push_back(build::ret({prev}));
  Program p;
  p.functions.push_back(std::move(g));
  EXPECT_EQ(returned_param_indices(p, p.functions[0]), (ReturnParams{0}));
}

}  // namespace
}  // namespace stackcheck::ir
