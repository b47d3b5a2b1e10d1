// WellFormed (COMPILER.md §4, codes 1-14): per code a positive case (the code is reported,
// and only it) and a close valid program (nothing reported), written as `.gir` text; plus
// the §1 example, program order of several errors, builtins.h and never-crash cases.
#include "stack/verify/well_formed.h"

#include "stack/ir/builder.h"
#include "stack/ir/testing.h"
#include "stack/verify/builtins.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace stackcheck::verify {
namespace {

Diagnostics check(const std::string& text) { return check_well_formed(ir::testing::parse_or_fail(text)); }
std::vector<int> codes(const Diagnostics& ds) { return ir::testing::diagnostic_codes(ds); }
std::string dump(const Diagnostics& ds) { return ir::testing::diagnostics_text(ds); }

#define EXPECT_CODES(text, ...)                                          \
  do {                                                                   \
    const Diagnostics ds_ = check(text);                                 \
    for (const Diagnostic& d_ : ds_) EXPECT_EQ(d_.rule, "WellFormed");   \
    EXPECT_EQ(codes(ds_), (std::vector<int>{__VA_ARGS__})) << dump(ds_); \
  } while (0)
#define EXPECT_CLEAN(text)                 \
  do {                                     \
    const Diagnostics ds_ = check(text);   \
    EXPECT_TRUE(ds_.empty()) << dump(ds_); \
  } while (0)

// The §5 fixture's kernels and a fill kernel, prepended to most cases.
const std::string kKernels =
    std::string(ir::testing::kFixtureKernels) + "kernel kfill(o: Out tensor<i32>[8], v: In i64) -> () = builtin fill\n";

// An entry over a: In T, b: InOut T, n: In i64 with `body` (lines, two-space indented).
std::string entry(const std::string& body) {
  return kKernels + "orchestration main(a: In tensor<i32>[8], b: InOut tensor<i32>[8], n: In i64) {\n" + body + "}\n";
}

const char* kExample = ir::testing::kSection1Example;

TEST(WellFormed, example_is_accepted) { EXPECT_CLEAN(kExample); }

TEST(WellFormed, fixture_entry_is_accepted) {
  EXPECT_CLEAN(
      entry("  t = create [8]\n"
            "  t1 = call kacc(a, t)\n"
            "  r = submit k2(t1, t, b)\n"
            "  p = r.0\n"
            "  q = r.1\n"
            "  id = r.2\n"
            "  u = call ksc(p, q, n % 3 + dim(a, 0))\n"
            "  s = read(a, [7])\n"
            "  if s < 0 {\n"
            "    f = full [2, 4], s\n"
            "  } else {\n"
            "    call kfill(b, -1)\n"
            "  }\n"
            "  w = slice(b, [4], [4])\n"
            "  w1 = call kacc4(w, w)\n"
            "  b1 = assemble(b, w1, [0])\n"
            "  return\n"));
}

// ---- 1: duplicate function, not exactly one orchestration ------------------------------

TEST(WellFormed, code01_empty_program) {
  const Diagnostics ds = check("");
  ASSERT_EQ(codes(ds), (std::vector<int>{1})) << dump(ds);
  EXPECT_EQ(ds[0].rule, "WellFormed");
  EXPECT_EQ(ds[0].location.function, "");
}

TEST(WellFormed, code01_no_orchestration) { EXPECT_CODES(kKernels, 1); }

TEST(WellFormed, code01_two_orchestrations) {
  const Diagnostics ds = check("orchestration main() {\n}\norchestration other() {\n}\n");
  ASSERT_EQ(codes(ds), (std::vector<int>{1})) << dump(ds);
  EXPECT_EQ(ds[0].location.function, "other");
  EXPECT_EQ(ds[0].location.line, 3u);
}

TEST(WellFormed, code01_duplicate_function) {
  EXPECT_CODES(kKernels +
                   "kernel kacc(x: In tensor<i32>[4], a: InOut tensor<i32>[4]) -> (a) = builtin acc\n"
                   "orchestration main() {\n}\n",
               1);
  EXPECT_CODES("graph g() {\n}\ngraph g() {\n}\norchestration main() {\n}\n", 1);
}

TEST(WellFormed, code01_negative_one_entry) { EXPECT_CLEAN(kKernels + "orchestration main() {\n}\n"); }

// ---- 2: name defined twice ------------------------------------------------------------

TEST(WellFormed, code02_assigned_twice) { EXPECT_CODES(entry("  t = create [8]\n  t = create [8]\n"), 2); }

TEST(WellFormed, code02_param_reassigned) { EXPECT_CODES(entry("  a = create [8]\n"), 2); }

TEST(WellFormed, code02_duplicate_param) { EXPECT_CODES("orchestration main(n: In i64, n: In i64) {\n}\n", 2); }

TEST(WellFormed, code02_loop_var_and_sibling_blocks) {
  EXPECT_CODES(entry("  for n in range(0, 2, 1) {\n  }\n"), 2);
  // Once per function: disjoint blocks do not make a second definition legal.
  EXPECT_CODES(entry("  if n < 1 {\n    s = 1\n  } else {\n    s = 2\n  }\n"), 2);
  EXPECT_CODES(entry("  for i in range(0, 2, 1) {\n  }\n  for i in range(0, 2, 1) {\n  }\n"), 2);
}

TEST(WellFormed, code02_negative_distinct_names) {
  EXPECT_CLEAN(
      entry("  if n < 1 {\n    s = 1\n  } else {\n    s2 = 2\n  }\n"
            "  for i in range(0, 2, 1) {\n  }\n  for j in range(0, 2, 1) {\n  }\n"));
}

// ---- 3: undefined, out-of-scope or early use ------------------------------------------

TEST(WellFormed, code03_undefined) {
  const Diagnostics ds = check(entry("  s = m + 1\n"));
  ASSERT_EQ(codes(ds), (std::vector<int>{3})) << dump(ds);
  EXPECT_NE(ds[0].message.find("'m'"), std::string::npos);
  EXPECT_EQ(ds[0].location.function, "main");
  EXPECT_EQ(ds[0].location.line, 7u);
  EXPECT_EQ(ds[0].location.column, 7u);
}

TEST(WellFormed, code03_out_of_scope) {
  EXPECT_CODES(entry("  for i in range(0, 2, 1) {\n    s = i\n  }\n  u = s\n"), 3);
  EXPECT_CODES(entry("  for i in range(0, 2, 1) {\n  }\n  u = i\n"), 3);
  EXPECT_CODES(entry("  if n > 0 {\n    t = create [8]\n  }\n  t1 = call kacc(a, t)\n"), 3);
}

TEST(WellFormed, code03_early_use) {
  EXPECT_CODES(entry("  u = s\n  s = 1\n"), 3);
  EXPECT_CODES(entry("  s = s + 1\n"), 3);
  EXPECT_CODES(entry("  for i in range(0, i, 1) {\n  }\n"), 3);
}

TEST(WellFormed, code03_negative_visible) {
  EXPECT_CLEAN(
      entry("  s = 1\n  for i in range(0, 2, 1) {\n    u = s + i\n    if u > 1 {\n      w = u\n"
            "    }\n  }\n  v = s\n"));
}

// ---- 4: unknown callee/builtin, entry called, call cycle ------------------------------

TEST(WellFormed, code04_unknown_callee) { EXPECT_CODES(entry("  call nothere(a, b)\n"), 4); }

TEST(WellFormed, code04_unknown_builtin) {
  EXPECT_CODES("kernel k(x: In tensor<i32>[8]) -> () = builtin sort\norchestration main() {\n}\n", 4);
}

TEST(WellFormed, code04_entry_called) {
  EXPECT_CODES("orchestration main(n: In i64) {\n  call main(n)\n}\n", 4);
  EXPECT_CODES(kKernels + "graph g(n: In i64) {\n  call main(n)\n}\norchestration main(n: In i64) {\n}\n", 4);
}

TEST(WellFormed, code04_call_cycle) {
  EXPECT_CODES("graph g(n: In i64) {\n  call g(n)\n}\norchestration main() {\n}\n", 4);
  EXPECT_CODES(
      "graph g(n: In i64) {\n  call h(n)\n}\ngraph h(n: In i64) {\n  call g(n)\n}\n"
      "orchestration main(n: In i64) {\n  call g(n)\n}\n",
      4, 4);
}

TEST(WellFormed, code04_negative_graph_calls_graph) {
  EXPECT_CLEAN(kKernels +
               "graph h(c: InOut tensor<i32>[8]) {\n  t = create [8]\n  c1 = call kacc(t, c)\n}\n"
               "graph g(c: InOut tensor<i32>[8]) {\n  call h(c)\n  call h(c)\n}\n"
               "orchestration main(c: InOut tensor<i32>[8]) {\n  call g(c)\n  call h(c)\n}\n");
}

// ---- 5: arity ---------------------------------------------------------------------------

TEST(WellFormed, code05_arity) {
  EXPECT_CODES(entry("  t1 = call kacc(a)\n"), 5);
  EXPECT_CODES(entry("  call ksc(a, b, n, n)\n"), 5);
}

TEST(WellFormed, code05_negative) { EXPECT_CLEAN(entry("  call ksc(a, b, n)\n")); }

// ---- 6: kind / type / shape of arguments; tensor as scalar and the reverse -------------

TEST(WellFormed, code06_shape_mismatch) {
  EXPECT_CODES(entry("  v = slice(a, [0], [4])\n  t1 = call kacc(v, b)\n"), 6);
}

TEST(WellFormed, code06_tensor_as_scalar) {
  EXPECT_CODES(entry("  s = a + 1\n"), 6);
  EXPECT_CODES(entry("  call ksc(a, b, a)\n"), 6);
  EXPECT_CODES(entry("  for i in range(0, a, 1) {\n  }\n"), 6);
}

TEST(WellFormed, code06_scalar_as_tensor) {
  EXPECT_CODES(entry("  t1 = call kacc(n, b)\n"), 6);
  EXPECT_CODES(entry("  t1 = call kacc(3, b)\n"), 6);
  EXPECT_CODES(entry("  v = slice(n, [0], [4])\n"), 6);
  EXPECT_CODES(entry("  s = dim(n, 0)\n"), 6);
}

TEST(WellFormed, code06_negative) {
  EXPECT_CLEAN(entry("  v = slice(a, [0], [4])\n  w = slice(b, [n % 5], [4])\n  w1 = call kacc4(v, w)\n"));
}

// ---- 7: Out/InOut argument or assemble target not writable ----------------------------

TEST(WellFormed, code07_in_param_written) {
  EXPECT_CODES(entry("  t1 = call kacc(b, a)\n"), 7);
  EXPECT_CODES(entry("  call ksc(b, a, 2)\n"), 7);
}

TEST(WellFormed, code07_through_alias_and_slice) {
  EXPECT_CODES(entry("  y = a\n  v = slice(y, [4], [4])\n  v1 = call kacc4(v, v)\n"), 7);
}

TEST(WellFormed, code07_assemble_target) {
  EXPECT_CODES(entry("  v = slice(b, [0], [4])\n  a1 = assemble(a, v, [4])\n"), 7);
}

TEST(WellFormed, code07_through_graph_result) {
  // h returns its In param: the result is a window of main's In param a.
  const std::string h = "graph h(x: In tensor<i32>[8]) -> (tensor<i32>[8]) {\n  y = x\n  return y\n}\n";
  EXPECT_CODES(h.substr(0) + entry("  y = call h(a)\n  y1 = call kacc(b, y)\n"), 7);
  // A graph returning its own create is writable at the call site.
  const std::string h2 = "graph h(x: In tensor<i32>[8]) -> (tensor<i32>[8]) {\n  t = create [8]\n  return t\n}\n";
  EXPECT_CLEAN(h2 + entry("  y = call h(a)\n  y1 = call kacc(b, y)\n"));
}

TEST(WellFormed, code07_through_tuple_element) {
  // k2 returns (o2, o1): r.0 is a window of argument 2 (b), r.1 of argument 1 (a local).
  EXPECT_CLEAN(
      entry("  t = create [8]\n  r = call k2(a, t, b)\n  p = r.0\n  q = r.1\n"
            "  p1 = call kacc(a, p)\n  q1 = call kacc(a, q)\n"));
  const std::string g =
      "graph g(x: In tensor<i32>[8], c: InOut tensor<i32>[8]) -> (tensor<i32>[8], tensor<i32>[8]) {\n"
      "  return c, x\n}\n";
  EXPECT_CODES(g + entry("  r = submit g(a, b)\n  x = r.1\n  x1 = call kacc(b, x)\n"), 7);
}

TEST(WellFormed, code07_negative_writable) {
  EXPECT_CLEAN(
      entry("  t = create [8]\n  t1 = call kacc(a, t)\n  t2 = call kacc(t1, b)\n"
            "  v = slice(t2, [0], [4])\n  b1 = assemble(b, v, [4])\n"));
}

// ---- 8: scalar param not In, entry Out param ------------------------------------------

TEST(WellFormed, code08_scalar_not_in) {
  EXPECT_CODES("graph g(n: InOut i64) {\n}\norchestration main() {\n}\n", 8);
  EXPECT_CODES("orchestration main(n: Out i64) {\n}\n", 8);
}

TEST(WellFormed, code08_entry_out_param) {
  const Diagnostics ds = check("orchestration main(x: Out tensor<i32>[8]) {\n}\n");
  ASSERT_EQ(codes(ds), (std::vector<int>{8})) << dump(ds);
  EXPECT_EQ(ds[0].location.line, 1u);
  EXPECT_EQ(ds[0].location.column, 20u);
}

TEST(WellFormed, code08_negative) {
  EXPECT_CLEAN(
      "graph g(o: Out tensor<i32>[8], n: In i64) {\n}\n"
      "orchestration main(x: InOut tensor<i32>[8], y: In tensor<i32>[8], n: In i64) {\n}\n");
}

// ---- 9: bad type or create/full shape -------------------------------------------------

TEST(WellFormed, code09_shape_not_static) { EXPECT_CODES(entry("  t = create [n]\n"), 9); }

TEST(WellFormed, code09_rank_dims_size) {
  EXPECT_CODES(entry("  t = create [2, 2, 2, 2]\n"), 9);
  EXPECT_CODES(entry("  t = create [0]\n"), 9);
  EXPECT_CODES(entry("  t = create [-4]\n"), 9);
  EXPECT_CODES(entry("  t = full [256, 257], 1\n"), 9);
  EXPECT_CODES(entry("  t = create [65537]\n"), 9);
  EXPECT_CODES(entry("  t = create [9223372036854775807, 9223372036854775807]\n"), 9);
}

TEST(WellFormed, code09_bad_param_and_result_types) {
  EXPECT_CODES("orchestration main(x: In tensor<i32>[4294967296, 4294967296, 4294967296]) {\n}\n", 9);
  EXPECT_CODES("orchestration main(x: In tensor<i32>[2, 2, 2, 2]) {\n}\n", 9);
  EXPECT_CODES("graph g() -> (i64) {\n  return\n}\norchestration main() {\n}\n", 9, 14);
}

TEST(WellFormed, code09_negative_static_shapes) {
  EXPECT_CLEAN(
      entry("  s = 4 * 2\n  m = s - 7\n  t = create [s, m, dim(a, 0)]\n  u = full [256, 256], n\n"
            "  w = create [65536]\n"));
}

// ---- 10: kernel vs builtin, kernel returns --------------------------------------------

TEST(WellFormed, code10_kernel_vs_builtin) {
  const std::string m = "orchestration main() {\n}\n";
  EXPECT_CODES("kernel k(x: In tensor<i32>[8], a: Out tensor<i32>[8]) -> (a) = builtin acc\n" + m, 10);
  EXPECT_CODES("kernel k(x: In tensor<i32>[8], a: InOut tensor<i32>[4]) -> (a) = builtin acc\n" + m, 10);
  EXPECT_CODES("kernel k(x: In tensor<i32>[8]) -> () = builtin copy\n" + m, 10);
  EXPECT_CODES("kernel k(s: In i64, o: Out tensor<i32>[8]) -> (o) = builtin fill\n" + m, 10, 10);
  EXPECT_CODES(
      "kernel k(a: In tensor<i32>[2, 3], b: In tensor<i32>[4, 4], o: Out tensor<i32>[2, 4]) -> (o) "
      "= builtin matmul\n" +
          m,
      10);
  EXPECT_CODES("kernel k(x: In tensor<i32>[4, 8], o: Out tensor<i32>[4, 2]) -> (o) = builtin rowsum\n" + m, 10);
}

TEST(WellFormed, code10_kernel_returns) {
  const std::string m = "orchestration main() {\n}\n";
  EXPECT_CODES("kernel k(x: In tensor<i32>[8], a: InOut tensor<i32>[8]) -> (x) = builtin acc\n" + m, 10);
  EXPECT_CODES("kernel k(x: In tensor<i32>[8], a: InOut tensor<i32>[8]) -> (a, a) = builtin acc\n" + m, 10);
  EXPECT_CODES("kernel k(x: In tensor<i32>[8], a: InOut tensor<i32>[8]) -> (z) = builtin acc\n" + m, 10);
}

TEST(WellFormed, code10_negative) {
  EXPECT_CLEAN(
      "kernel mm(a: In tensor<i32>[2, 3], b: In tensor<i32>[3, 4], o: Out tensor<i32>[2, 4]) -> (o) "
      "= builtin matmul\n"
      "kernel rs(x: In tensor<i32>[4, 8], o: Out tensor<i32>[4, 1], e: InOut tensor<i32>[3], m: In i64) "
      "-> (e, o) = builtin rowsum\n"
      "kernel ad(a: In tensor<i32>[2, 2, 2], b: In tensor<i32>[2, 2, 2], o: Out tensor<i32>[2, 2, 2]) -> () "
      "= builtin add\n"
      "orchestration main() {\n}\n");
}

// ---- 11: bad slice/assemble/dim/read --------------------------------------------------

TEST(WellFormed, code11_slice) {
  EXPECT_CODES(entry("  v = slice(a, [0, 0], [4, 1])\n"), 11);
  EXPECT_CODES(entry("  v = slice(a, [0], [9])\n"), 11);
  EXPECT_CODES(entry("  v = slice(a, [5], [4])\n"), 11);
  EXPECT_CODES(entry("  o = 2 * 3\n  v = slice(a, [o], [4])\n"), 11);
  EXPECT_CODES(entry("  v = slice(a, [-1], [4])\n"), 11);
}

TEST(WellFormed, code11_assemble) {
  EXPECT_CODES(entry("  t = create [16]\n  b1 = assemble(b, t, [0])\n"), 11);
  EXPECT_CODES(entry("  t = create [4]\n  b1 = assemble(b, t, [5])\n"), 11);
  EXPECT_CODES(entry("  t = create [2, 2]\n  b1 = assemble(b, t, [0])\n"), 11);
}

TEST(WellFormed, code11_dim_read) {
  EXPECT_CODES(entry("  s = dim(a, 1)\n"), 11);
  EXPECT_CODES(entry("  s = read(a, [0, 0])\n"), 11);
  EXPECT_CODES(entry("  s = read(a, [8])\n"), 11);
  EXPECT_CODES(entry("  s = read(a, [-1])\n"), 11);
}

TEST(WellFormed, code11_negative) {
  EXPECT_CLEAN(
      entry("  v = slice(a, [4], [4])\n  w = slice(b, [n], [4])\n  t = create [4]\n"
            "  b1 = assemble(b, t, [4])\n  b2 = assemble(b, t, [n * 100])\n"
            "  s = dim(a, 0) + read(a, [7]) + read(a, [n])\n"));
}

// ---- 12: tuple misuse -----------------------------------------------------------------

TEST(WellFormed, code12_tuple_used_directly) {
  EXPECT_CODES(entry("  t = create [8]\n  r = call k2(a, t, b)\n  u = call kacc(a, r)\n"), 12);
  EXPECT_CODES(entry("  r = submit kacc(a, b)\n  u = r\n"), 12);
}

TEST(WellFormed, code12_bad_index) {
  EXPECT_CODES(entry("  r = submit kacc(a, b)\n  u = r.2\n"), 12);
  EXPECT_CODES(entry("  u = call kacc(a, b)\n  w = u.0\n"), 12);
}

TEST(WellFormed, code12_task_id_used) {
  EXPECT_CODES(entry("  r = submit kacc(a, b)\n  id = r.1\n  s = id + 1\n"), 12);
}

TEST(WellFormed, code12_no_result_call_used) { EXPECT_CODES(entry("  r = call kfill(b, 3)\n"), 12); }

TEST(WellFormed, code12_negative) {
  EXPECT_CLEAN(
      entry("  r = submit kacc(a, b)\n  u = r.0\n  id = r.1\n  w = call kacc(a, u)\n"
            "  q = submit kfill(b, 3)\n  qid = q.0\n  call kfill(b, 3)\n"));
}

// ---- 13: static zero divisor, literal zero step ---------------------------------------

TEST(WellFormed, code13_zero_divisor) {
  EXPECT_CODES(entry("  s = n / 0\n"), 13);
  EXPECT_CODES(entry("  z = 3 - 3\n  s = 7 % z\n"), 13);
  EXPECT_CODES(entry("  t = create [8 / (2 - 2)]\n"), 13);
}

TEST(WellFormed, code13_zero_step) {
  EXPECT_CODES(entry("  for i in range(0, 4, 0) {\n  }\n"), 13);
  EXPECT_CODES(entry("  for i in range(0, 4, dim(a, 0) - 8) {\n  }\n"), 13);
}

TEST(WellFormed, code13_negative) {
  // A divisor that is not static, and a zero step that is not a literal (a name), are the
  // interpreter's to report.
  EXPECT_CLEAN(entry("  s = 7 / n\n  z = 0\n  for i in range(0, 4, z) {\n  }\n  w = -7 % 2\n"));
}

// ---- 14: return not last or != declared -----------------------------------------------

TEST(WellFormed, code14_return_not_last) {
  EXPECT_CODES(entry("  return\n  s = 1\n"), 14);
  EXPECT_CODES(entry("  for i in range(0, 2, 1) {\n    return\n  }\n"), 14);
}

TEST(WellFormed, code14_graph_return_mismatch) {
  const std::string sig = "graph g(c: InOut tensor<i32>[8], d: InOut tensor<i32>[4]) -> (tensor<i32>[8]) {\n";
  const std::string m = "orchestration main() {\n}\n";
  EXPECT_CODES(sig + "  return d\n}\n" + m, 14);
  EXPECT_CODES(sig + "  return c, c\n}\n" + m, 14);
  EXPECT_CODES(sig + "  t = create [8]\n}\n" + m, 14);
  EXPECT_CODES(sig + "  s = 1\n  return s\n}\n" + m, 14);
}

TEST(WellFormed, code14_entry_returns_value) { EXPECT_CODES(entry("  return b\n"), 14); }

TEST(WellFormed, code14_negative) {
  EXPECT_CLEAN(
      "graph g(c: InOut tensor<i32>[8], d: InOut tensor<i32>[4]) -> (tensor<i32>[4], tensor<i32>[8]) {\n"
      "  return d, c\n}\ngraph h() {\n  return\n}\ngraph h2() {\n}\norchestration main() {\n  return\n}\n");
}

// ---- order, builtins, robustness ------------------------------------------------------

TEST(WellFormed, several_errors_in_program_order) {
  const Diagnostics ds = check(
      "kernel k(x: In tensor<i32>[8], a: Out tensor<i32>[8]) -> (a) = builtin acc\n"  // 10 @1
      "graph g(n: Out i64) {\n"                                                       // 8 @2
      "  s = m\n"                                                                     // 3 @3
      "  s = 1\n"                                                                     // 2 @4
      "}\n"
      "orchestration main(x: In tensor<i32>[8]) {\n"
      "  call k(x, x)\n"  // 7 @7
      "  u = 1 / 0\n"     // 13 @8
      "  call nope()\n"   // 4 @9
      "}\n"
      "graph g() {\n}\n");  // 1 @11
  EXPECT_EQ(codes(ds), (std::vector<int>{10, 8, 3, 2, 7, 13, 4, 1})) << dump(ds);
  std::vector<uint32_t> lines;
  for (const Diagnostic& d : ds) lines.push_back(d.location.line);
  EXPECT_EQ(lines, (std::vector<uint32_t>{1, 2, 3, 4, 7, 8, 9, 11}));
  EXPECT_EQ(ds[4].location.function, "main");
}

TEST(WellFormed, one_mistake_is_reported_once) {
  // The poisoned names (unknown callee result, bad create) are not reported again.
  EXPECT_CODES(entry("  r = call nope(a)\n  u = r.0\n  w = u + 1\n  t = create [n]\n  t1 = call kacc(a, t)\n"), 4, 9);
}

TEST(Builtins, table_and_shape_rules) {
  ASSERT_EQ(builtins().size(), 7u);
  const Builtin* acc = find_builtin("acc");
  ASSERT_NE(acc, nullptr);
  EXPECT_EQ(acc->arity(), 2u);
  EXPECT_EQ(acc->params[1].dir, ir::Dir::InOut);
  EXPECT_TRUE(acc->writes(1));
  EXPECT_FALSE(acc->writes(0));
  EXPECT_EQ(find_builtin("sort"), nullptr);
  EXPECT_EQ(&builtin(BuiltinKind::Rowsum), find_builtin("rowsum"));
  for (const Builtin& b : builtins()) {
    bool writes = false;
    for (size_t i = 0; i < b.arity(); ++i) {
      writes = writes || (b.params[i].tensor && b.writes(i));
      if (!b.params[i].tensor) {
        EXPECT_EQ(b.params[i].dir, ir::Dir::In);
      }
    }
    EXPECT_TRUE(writes) << b.name;
  }
  const std::vector<std::vector<int64_t>> mm_ok = {{2, 3}, {3, 4}, {2, 4}};
  const std::vector<std::vector<int64_t>> mm_bad = {{2, 3}, {4, 4}, {2, 4}};
  EXPECT_FALSE(shape_rule_violation(*find_builtin("matmul"), mm_ok));
  EXPECT_TRUE(shape_rule_violation(*find_builtin("matmul"), mm_bad));
  const std::vector<std::vector<int64_t>> rs_bad = {{4, 8}, {4}};
  EXPECT_TRUE(shape_rule_violation(*find_builtin("rowsum"), rs_bad));
  const std::vector<std::vector<int64_t>> too_few = {{4}};
  EXPECT_TRUE(shape_rule_violation(*find_builtin("add"), too_few));
}

TEST(WellFormed, garbage_does_not_crash) {
  const std::string text =
      "kernel k() -> (a, b, b) = builtin matmul\n"
      "kernel k2(x: In tensor<i32>[0, 0, 0], y: Out tensor<i32>[2, 2, 2], s: InOut i64) -> (s, y) = builtin rowsum\n"
      "graph g(x: In tensor<i32>[99999999999], n: In i64) -> (tensor<i32>[8], i64) {\n"
      "  r = submit k2(x, x, x, x)\n"
      "  q = r.9223372036854775807\n"
      "  w = read(r, [q, r, n / 0, dim(x, 5), dim(n, 0)])\n"
      "  v = slice(x, [1, 2, 3, 4], [0, 9223372036854775807])\n"
      "  u = assemble(v, n, [read(v, [0])])\n"
      "  for i in range(i, 9223372036854775807, -9223372036854775808) {\n"
      "    if read(x, [0]) < dim(x, 0) % 0 {\n"
      "      return x, x, x\n"
      "    } else {\n"
      "      call g(x, n)\n"
      "    }\n"
      "  }\n"
      "  t = create [9223372036854775807 * 9223372036854775807, -1, 0, 5]\n"
      "  z = full [t], t\n"
      "  return undefined\n"
      "}\n"
      "orchestration main(x: Out tensor<i32>[1]) {\n"
      "  m = call main(x)\n"
      "  p = call g(m, m)\n"
      "  call k(p, -9223372036854775808 / -1)\n"
      "}\n"
      "orchestration main() {\n}\n";
  const Diagnostics ds = check(text);
  EXPECT_GE(ds.size(), 10u) << dump(ds);
  for (const Diagnostic& d : ds) {
    EXPECT_GE(d.code, 1);
    EXPECT_LE(d.code, 14);
    EXPECT_FALSE(d.message.empty());
  }
}

TEST(WellFormed, built_programs_do_not_crash) {
  namespace b = ir::build;
  ir::Program p;
  ir::Expr broken;  // a Binary with no operands: only code can build it
  broken.kind = ir::Expr::Kind::Binary;
  ir::Type bad = ir::Type::tensor({});
  bad.dtype = "f32";
  ir::Type scalar_with_dims = ir::Type::i64();
  scalar_with_dims.dims = {3};
  p.functions.push_back(
      b::orchestration("main", {b::param("x", ir::Dir::In, bad), b::param("n", ir::Dir::In, scalar_with_dims)},
                       {b::let("s", broken), b::slice("v", "x", {b::lit(0)}, {-5}), b::tuple_get("w", "nope", -1),
                        b::call("main", {})}));
  p.functions[0].results.push_back(ir::Type::i64());
  const Diagnostics ds = check_well_formed(p);
  EXPECT_FALSE(ds.empty());
  // A long left-deep sum (no nesting) is walked without recursion.
  ir::Expr sum = b::lit(1);
  for (int i = 0; i < 10000; ++i) sum = b::add(std::move(sum), b::lit(1));
  ir::Program q;
  q.functions.push_back(b::orchestration("main", {}, {b::let("s", std::move(sum))}));
  EXPECT_TRUE(check_well_formed(q).empty());
}

}  // namespace
}  // namespace stackcheck::verify
