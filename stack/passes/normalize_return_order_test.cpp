// NormalizeReturnOrder golden tests: every case of the COMPILER.md §5.2 table (A0, A, B),
// rpi before and after, and the ReturnParamsExplicit verifier on the results.
#include "stack/passes/normalize_return_order.h"

#include "stack/ir/rpi.h"
#include "stack/passes/golden_test_util.h"
#include "stack/verify/return_params_explicit.h"

#include <gtest/gtest.h>

#include <string>

namespace stackcheck::passes {
namespace {

using testing::canonical;
using testing::kFixtureKernels;
using testing::parse_or_fail;

ir::Program nro(const ir::Program& p) { return normalize_return_order(p); }

// The fixture's k2 after A.
std::string sorted_k2(std::string text) {
  const std::string from = "-> (o2, o1)", to = "-> (o1, o2)";
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at)) {
    text.replace(at, from.size(), to);
  }
  return text;
}

// The fixture with g's whole body given (including its return).
std::string with_g(const std::string& body) {
  return std::string(kFixtureKernels) +
         "graph g(x: In tensor<i32>[8], c: InOut tensor<i32>[8], n: In i64) -> (tensor<i32>[8]) {\n" + body +
         "}\norchestration main(a: In tensor<i32>[8], b: InOut tensor<i32>[8]) {\n"
         "  for i in range(0, 2, 1) {\n    call g(a, b, i)\n  }\n}\n";
}

void golden(const std::string& before, const std::string& expected) {
  testing::expect_golden(nro, before, expected);
  const ir::Program out = nro(parse_or_fail(before));
  EXPECT_EQ(testing::diagnostics_text(verify::check_return_params_explicit(out)), "");
}

const ir::Function& fn(const ir::Program& p, const std::string& name) {
  for (const ir::Function& f : p.functions) {
    if (f.name == name) return f;
  }
  static const ir::Function none;
  ADD_FAILURE() << "no function " << name;
  return none;
}

TEST(NormalizeReturnOrder, kernel_sorted) {
  const std::string before = with_g("  return c\n");
  golden(before, sorted_k2(before));
  const ir::Program in = parse_or_fail(before), out = nro(in);
  EXPECT_EQ(ir::returned_param_indices(in, fn(in, "k2")), (ir::ReturnParams{2, 1}));
  EXPECT_EQ(ir::returned_param_indices(out, fn(out, "k2")), (ir::ReturnParams{1, 2}));
}

TEST(NormalizeReturnOrder, tuple_remapped) {
  const std::string head = std::string(kFixtureKernels) +
                           "orchestration main(a: In tensor<i32>[8], b: InOut tensor<i32>[8], "
                           "c: InOut tensor<i32>[8]) {\n  r = call k2(a, b, c)\n";
  const std::string tail =
      "  p1 = call kacc(a, p)\n  q1 = call kacc(p, q)\n"
      "  s = submit k2(a, b, c)\n";
  golden(head + "  p = r.0\n  q = r.1\n" + tail + "  t = s.2\n  u = s.0\n  u1 = call kacc(a, u)\n}\n",
         sorted_k2(head + "  p = r.1\n  q = r.0\n" + tail + "  t = s.2\n  u = s.1\n  u1 = call kacc(a, u)\n}\n"));
}

TEST(NormalizeReturnOrder, tuple_remapped_three_way) {
  // k3 -> (c, a, b) sorts to (a, b, c): old 0 -> 2, 1 -> 0, 2 -> 1 (P is not an involution).
  const std::string k3 =
      "kernel k3(x: In tensor<i32>[8], a: InOut tensor<i32>[8], b: InOut tensor<i32>[8], "
      "c: InOut tensor<i32>[8]) -> ";
  const std::string rest =
      " = builtin acc\n"
      "orchestration main(x: In tensor<i32>[8], p: InOut tensor<i32>[8], q: InOut tensor<i32>[8], "
      "s: InOut tensor<i32>[8]) {\n  r = submit k3(x, p, q, s)\n";
  golden(k3 + "(c, a, b)" + rest +
             "  v0 = r.0\n  v1 = r.1\n  v2 = r.2\n  id = r.3\n"
             "  w = call k3(x, v0, v1, v2)\n}\n",
         k3 + "(a, b, c)" + rest +
             "  v0 = r.2\n  v1 = r.0\n  v2 = r.1\n  id = r.3\n"
             "  w = call k3(x, v0, v1, v2)\n}\n");
}

TEST(NormalizeReturnOrder, graph_lineage_writeback) {
  golden(with_g("  c1 = call kacc(x, c)\n  return c1\n"), sorted_k2(with_g("  c1 = call kacc(x, c)\n  return c\n")));
}

TEST(NormalizeReturnOrder, graph_lineage_tuple_alias) {
  // r.0 of k2(x, o, c) is o2 = c; after A it is r.1.
  golden(with_g("  o = create [8]\n  r = call k2(x, o, c)\n  y = r.0\n  z = y\n  return z\n"),
         sorted_k2(with_g("  o = create [8]\n  r = call k2(x, o, c)\n  y = r.1\n  z = y\n"
                          "  return c\n")));
}

TEST(NormalizeReturnOrder, graph_lineage_assemble) {
  golden(with_g("  s = slice(x, [0], [8])\n  c1 = assemble(c, s, [0])\n  return c1\n"),
         sorted_k2(with_g("  s = slice(x, [0], [8])\n  c1 = assemble(c, s, [0])\n  return c\n")));
}

TEST(NormalizeReturnOrder, untraceable_unchanged) {
  for (const char* body :
       {"  t = create [8]\n  t1 = call kacc(x, t)\n  return t1\n", "  v = slice(c, [0], [8])\n  return v\n"}) {
    golden(with_g(body), sorted_k2(with_g(body)));
    const ir::Program out = nro(parse_or_fail(with_g(body)));
    EXPECT_EQ(ir::returned_param_indices(out, fn(out, "g")), (ir::ReturnParams{std::nullopt}));
  }
}

TEST(NormalizeReturnOrder, not_reordered) {
  const std::string before =
      "kernel kacc(x: In tensor<i32>[8], a: InOut tensor<i32>[8]) -> (a) = builtin acc\n"
      "graph h(b: InOut tensor<i32>[8], c: InOut tensor<i32>[8]) -> (tensor<i32>[8], "
      "tensor<i32>[8]) {\n  c1 = call kacc(b, c)\n  b1 = call kacc(c, b)\n  return c1, b1\n}\n"
      "orchestration main(p: InOut tensor<i32>[8], q: InOut tensor<i32>[8]) {\n"
      "  r = call h(p, q)\n  u = r.0\n  u1 = call kacc(p, u)\n}\n";
  std::string expected = before;
  expected.replace(expected.find("return c1, b1"), 13, "return c, b");
  golden(before, expected);
  const ir::Program out = nro(parse_or_fail(before));
  EXPECT_EQ(ir::returned_param_indices(out, fn(out, "h")), (ir::ReturnParams{1, 0}));
  // u's root is q (param 1 of main).
  EXPECT_EQ(ir::lineage_param(out, fn(out, "main"), "u"), 1u);
}

TEST(NormalizeReturnOrder, rpi_preserved_for_every_function) {
  const std::string before = with_g(
      "  o = create [8]\n  r = call k2(x, o, c)\n  y = r.0\n"
      "  return y\n");
  const ir::Program in = parse_or_fail(before), out = nro(in);
  // Graph rpi unchanged; kernel rpi permuted as a set of returned params.
  EXPECT_EQ(ir::returned_param_indices(in, fn(in, "g")), ir::returned_param_indices(out, fn(out, "g")));
}

TEST(NormalizeReturnOrder, pass_interface) {
  NormalizeReturnOrder p;
  EXPECT_EQ(p.name(), "NormalizeReturnOrder");
  EXPECT_EQ(p.required(), PropertySet{kWellFormed});
  EXPECT_EQ(p.produced(), PropertySet{kReturnParamsExplicit});
  EXPECT_EQ(p.invalidated(), PropertySet{0});
  PassResult r = p.run(parse_or_fail(with_g("  return c\n")));
  ASSERT_TRUE(r.ok);
  EXPECT_EQ(ir::print_program(r.program), canonical(sorted_k2(with_g("  return c\n"))));
}

}  // namespace
}  // namespace stackcheck::passes
