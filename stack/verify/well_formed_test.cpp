// WellFormed (COMPILER.md §4, codes 1-14): per code a positive case (the code is reported,
// and only it) and a close valid program (nothing reported), written as `.gir` text; plus
// the §1 example, program order of several errors, builtins.h and never-crash cases. The
// per-code cases are a table (kCases), one test each, named WellFormed/Cases.codes/<case>.
#include "stack/verify/well_formed.h"

#include "stack/ir/builder.h"
#include "stack/ir/testing.h"
#include "stack/ir/builtins.h"

#include <gtest/gtest.h>

#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace stackcheck::verify {
namespace {

ir::Diagnostics check(const std::string& text) { return check_well_formed(ir::testing::parse_or_fail(text)); }
std::vector<int> codes(const ir::Diagnostics& ds) { return ir::testing::diagnostic_codes(ds); }
std::string dump(const ir::Diagnostics& ds) { return ir::testing::diagnostics_text(ds); }

// The §5 fixture's kernels and a fill kernel, prepended to most cases.
const std::string kKernels =
    std::string(ir::testing::kFixtureKernels) + "kernel kfill(o: Out tensor<i32>[8], v: In i64) -> () = builtin fill\n";

// An entry over a: In T, b: InOut T, n: In i64 with `body` (lines, two-space indented).
std::string entry(const std::string& body) {
  return kKernels + "orchestration main(a: In tensor<i32>[8], b: InOut tensor<i32>[8], n: In i64) {\n" + body + "}\n";
}

// An entry with no params and no body, after the functions under test.
const std::string kEmptyMain = "orchestration main() {\n}\n";

// graph g(c: InOut T, d: InOut T4) -> (T) with `body` (lines), and kEmptyMain.
std::string graph_cd(const std::string& body) {
  return "graph g(c: InOut tensor<i32>[8], d: InOut tensor<i32>[4]) -> (tensor<i32>[8]) {\n" + body + "}\n" +
         kEmptyMain;
}

const char* kExample = ir::testing::kSection1Example;

// What the first diagnostic must say besides its code; unset parts are not checked.
struct First {
  std::optional<std::string> function{};
  std::optional<uint32_t> line{}, column{};
  std::string mentions{};  // a part of its message
};

// One program and what WellFormed says about it: exactly `codes`, in order, each with rule
// WellFormed (no code at all: the program is accepted).
struct Check {
  std::vector<int> codes;
  std::string text;
  std::optional<First> first{};
};
Check reports(int code, std::string text, std::optional<First> first = std::nullopt) {
  return {{code}, std::move(text), std::move(first)};
}
Check reports(std::vector<int> codes, std::string text) { return {std::move(codes), std::move(text)}; }
Check accepts(std::string text) { return {{}, std::move(text)}; }
// Each of `texts` reports `code` alone.
std::vector<Check> all_report(int code, const std::vector<std::string>& texts) {
  std::vector<Check> out;
  for (const std::string& t : texts) out.push_back(reports(code, t));
  return out;
}

struct Case {
  const char* name;
  std::vector<Check> checks;
};
void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

const std::vector<Case> kCases = {
    {"example_is_accepted", {accepts(kExample)}},
    {"fixture_entry_is_accepted",
     {accepts(entry("  t = create [8]\n"
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
                    "  return\n"))}},

    // ---- 1: duplicate function, not exactly one orchestration ----------------------------
    {"code01_empty_program", {reports(1, "", First{.function = ""})}},
    {"code01_no_orchestration", {reports(1, kKernels)}},
    {"code01_two_orchestrations",
     {reports(1, "orchestration main() {\n}\norchestration other() {\n}\n", First{.function = "other", .line = 3})}},
    {"code01_duplicate_function",
     all_report(1, {kKernels + "kernel kacc(x: In tensor<i32>[4], a: InOut tensor<i32>[4]) -> (a) = builtin acc\n"
                               "orchestration main() {\n}\n",
                    "graph g() {\n}\ngraph g() {\n}\norchestration main() {\n}\n"})},
    {"code01_negative_one_entry", {accepts(kKernels + kEmptyMain)}},

    // ---- 2: name defined twice ----------------------------------------------------------
    {"code02_assigned_twice", {reports(2, entry("  t = create [8]\n  t = create [8]\n"))}},
    {"code02_param_reassigned", {reports(2, entry("  a = create [8]\n"))}},
    {"code02_duplicate_param", {reports(2, "orchestration main(n: In i64, n: In i64) {\n}\n")}},
    // Once per function: disjoint blocks do not make a second definition legal.
    {"code02_loop_var_and_sibling_blocks",
     all_report(2, {entry("  for n in range(0, 2, 1) {\n  }\n"),
                    entry("  if n < 1 {\n    s = 1\n  } else {\n    s = 2\n  }\n"),
                    entry("  for i in range(0, 2, 1) {\n  }\n  for i in range(0, 2, 1) {\n  }\n")})},
    {"code02_negative_distinct_names",
     {accepts(entry("  if n < 1 {\n    s = 1\n  } else {\n    s2 = 2\n  }\n"
                    "  for i in range(0, 2, 1) {\n  }\n  for j in range(0, 2, 1) {\n  }\n"))}},

    // ---- 3: undefined, out-of-scope or early use ----------------------------------------
    {"code03_undefined",
     {reports(3, entry("  s = m + 1\n"), First{.function = "main", .line = 7, .column = 7, .mentions = "'m'"})}},
    {"code03_out_of_scope", all_report(3, {entry("  for i in range(0, 2, 1) {\n    s = i\n  }\n  u = s\n"),
                                           entry("  for i in range(0, 2, 1) {\n  }\n  u = i\n"),
                                           entry("  if n > 0 {\n    t = create [8]\n  }\n  t1 = call kacc(a, t)\n")})},
    {"code03_early_use",
     all_report(3, {entry("  u = s\n  s = 1\n"), entry("  s = s + 1\n"), entry("  for i in range(0, i, 1) {\n  }\n")})},
    {"code03_negative_visible",
     {accepts(entry("  s = 1\n  for i in range(0, 2, 1) {\n    u = s + i\n    if u > 1 {\n      w = u\n"
                    "    }\n  }\n  v = s\n"))}},

    // ---- 4: unknown callee/builtin, entry called, call cycle ----------------------------
    {"code04_unknown_callee", {reports(4, entry("  call nothere(a, b)\n"))}},
    {"code04_unknown_builtin",
     {reports(4, "kernel k(x: In tensor<i32>[8]) -> () = builtin sort\norchestration main() {\n}\n")}},
    {"code04_entry_called",
     all_report(4, {"orchestration main(n: In i64) {\n  call main(n)\n}\n",
                    kKernels + "graph g(n: In i64) {\n  call main(n)\n}\norchestration main(n: In i64) {\n}\n"})},
    {"code04_call_cycle",
     {reports(4, "graph g(n: In i64) {\n  call g(n)\n}\norchestration main() {\n}\n"),
      reports({4, 4},
              "graph g(n: In i64) {\n  call h(n)\n}\ngraph h(n: In i64) {\n  call g(n)\n}\n"
              "orchestration main(n: In i64) {\n  call g(n)\n}\n"),
      // A cycle through the entry: the call of main is refused, and main's call of g closes it.
      reports({4, 4}, "graph g(n: In i64) {\n  call main(n)\n}\norchestration main(n: In i64) {\n  call g(n)\n}\n")}},
    {"code04_negative_graph_calls_graph",
     {accepts(kKernels + "graph h(c: InOut tensor<i32>[8]) {\n  t = create [8]\n  c1 = call kacc(t, c)\n}\n"
                         "graph g(c: InOut tensor<i32>[8]) {\n  call h(c)\n  call h(c)\n}\n"
                         "orchestration main(c: InOut tensor<i32>[8]) {\n  call g(c)\n  call h(c)\n}\n")}},

    // ---- 5: arity -------------------------------------------------------------------------
    {"code05_arity", all_report(5, {entry("  t1 = call kacc(a)\n"), entry("  call ksc(a, b, n, n)\n")})},
    {"code05_negative", {accepts(entry("  call ksc(a, b, n)\n"))}},

    // ---- 6: kind / type / shape of arguments; tensor as scalar and the reverse -----------
    {"code06_shape_mismatch", {reports(6, entry("  v = slice(a, [0], [4])\n  t1 = call kacc(v, b)\n"))}},
    {"code06_tensor_as_scalar", all_report(6, {entry("  s = a + 1\n"), entry("  call ksc(a, b, a)\n"),
                                               entry("  for i in range(0, a, 1) {\n  }\n")})},
    {"code06_scalar_as_tensor", all_report(6, {entry("  t1 = call kacc(n, b)\n"), entry("  t1 = call kacc(3, b)\n"),
                                               entry("  v = slice(n, [0], [4])\n"), entry("  s = dim(n, 0)\n")})},
    {"code06_negative",
     {accepts(entry("  v = slice(a, [0], [4])\n  w = slice(b, [n % 5], [4])\n  w1 = call kacc4(v, w)\n"))}},

    // ---- 7: Out/InOut argument or assemble target not writable --------------------------
    {"code07_in_param_written", all_report(7, {entry("  t1 = call kacc(b, a)\n"), entry("  call ksc(b, a, 2)\n")})},
    {"code07_through_alias_and_slice",
     {reports(7, entry("  y = a\n  v = slice(y, [4], [4])\n  v1 = call kacc4(v, v)\n"))}},
    {"code07_assemble_target", {reports(7, entry("  v = slice(b, [0], [4])\n  a1 = assemble(a, v, [4])\n"))}},
    // h returns its In param: the result is a window of main's In param a. A graph returning
    // its own create is writable at the call site.
    {"code07_through_graph_result",
     {reports(7, "graph h(x: In tensor<i32>[8]) -> (tensor<i32>[8]) {\n  y = x\n  return y\n}\n" +
                     entry("  y = call h(a)\n  y1 = call kacc(b, y)\n")),
      accepts("graph h(x: In tensor<i32>[8]) -> (tensor<i32>[8]) {\n  t = create [8]\n  return t\n}\n" +
              entry("  y = call h(a)\n  y1 = call kacc(b, y)\n"))}},
    // k2 returns (o2, o1): r.0 is a window of argument 2 (b), r.1 of argument 1 (a local).
    {"code07_through_tuple_element",
     {accepts(entry("  t = create [8]\n  r = call k2(a, t, b)\n  p = r.0\n  q = r.1\n"
                    "  p1 = call kacc(a, p)\n  q1 = call kacc(a, q)\n")),
      reports(7,
              "graph g(x: In tensor<i32>[8], c: InOut tensor<i32>[8]) -> (tensor<i32>[8], tensor<i32>[8]) {\n"
              "  return c, x\n}\n" +
                  entry("  r = submit g(a, b)\n  x = r.1\n  x1 = call kacc(b, x)\n"))}},
    {"code07_negative_writable",
     {accepts(entry("  t = create [8]\n  t1 = call kacc(a, t)\n  t2 = call kacc(t1, b)\n"
                    "  v = slice(t2, [0], [4])\n  b1 = assemble(b, v, [4])\n"))}},

    // ---- 8: scalar param not In, entry Out param ------------------------------------------
    {"code08_scalar_not_in", all_report(8, {"graph g(n: InOut i64) {\n}\norchestration main() {\n}\n",
                                            "orchestration main(n: Out i64) {\n}\n"})},
    {"code08_entry_out_param",
     {reports(8, "orchestration main(x: Out tensor<i32>[8]) {\n}\n", First{.line = 1, .column = 20})}},
    {"code08_negative",
     {accepts("graph g(o: Out tensor<i32>[8], n: In i64) {\n}\n"
              "orchestration main(x: InOut tensor<i32>[8], y: In tensor<i32>[8], n: In i64) {\n}\n")}},

    // ---- 9: bad type or create/full shape -------------------------------------------------
    {"code09_shape_not_static", {reports(9, entry("  t = create [n]\n"))}},
    {"code09_rank_dims_size",
     all_report(9, {entry("  t = create [2, 2, 2, 2]\n"), entry("  t = create [0]\n"), entry("  t = create [-4]\n"),
                    entry("  t = full [256, 257], 1\n"), entry("  t = create [65537]\n"),
                    entry("  t = create [9223372036854775807, 9223372036854775807]\n")})},
    {"code09_bad_param_and_result_types",
     {reports(9, "orchestration main(x: In tensor<i32>[4294967296, 4294967296, 4294967296]) {\n}\n"),
      reports(9, "orchestration main(x: In tensor<i32>[2, 2, 2, 2]) {\n}\n"),
      reports({9, 14}, "graph g() -> (i64) {\n  return\n}\norchestration main() {\n}\n")}},
    {"code09_negative_static_shapes",
     {accepts(entry("  s = 4 * 2\n  m = s - 7\n  t = create [s, m, dim(a, 0)]\n  u = full [256, 256], n\n"
                    "  w = create [65536]\n"))}},

    // ---- 10: kernel vs builtin, kernel returns --------------------------------------------
    {"code10_kernel_vs_builtin",
     {reports(10, "kernel k(x: In tensor<i32>[8], a: Out tensor<i32>[8]) -> (a) = builtin acc\n" + kEmptyMain),
      reports(10, "kernel k(x: In tensor<i32>[8], a: InOut tensor<i32>[4]) -> (a) = builtin acc\n" + kEmptyMain),
      reports(10, "kernel k(x: In tensor<i32>[8]) -> () = builtin copy\n" + kEmptyMain),
      reports({10, 10}, "kernel k(s: In i64, o: Out tensor<i32>[8]) -> (o) = builtin fill\n" + kEmptyMain),
      reports(10,
              "kernel k(a: In tensor<i32>[2, 3], b: In tensor<i32>[4, 4], o: Out tensor<i32>[2, 4]) -> (o) "
              "= builtin matmul\n" +
                  kEmptyMain),
      reports(10,
              "kernel k(x: In tensor<i32>[4, 8], o: Out tensor<i32>[4, 2]) -> (o) = builtin rowsum\n" + kEmptyMain)}},
    {"code10_kernel_returns",
     all_report(10, {"kernel k(x: In tensor<i32>[8], a: InOut tensor<i32>[8]) -> (x) = builtin acc\n" + kEmptyMain,
                     "kernel k(x: In tensor<i32>[8], a: InOut tensor<i32>[8]) -> (a, a) = builtin acc\n" + kEmptyMain,
                     "kernel k(x: In tensor<i32>[8], a: InOut tensor<i32>[8]) -> (z) = builtin acc\n" + kEmptyMain})},
    {"code10_negative",
     {accepts("kernel mm(a: In tensor<i32>[2, 3], b: In tensor<i32>[3, 4], o: Out tensor<i32>[2, 4]) -> (o) "
              "= builtin matmul\n"
              "kernel rs(x: In tensor<i32>[4, 8], o: Out tensor<i32>[4, 1], e: InOut tensor<i32>[3], m: In i64) "
              "-> (e, o) = builtin rowsum\n"
              "kernel ad(a: In tensor<i32>[2, 2, 2], b: In tensor<i32>[2, 2, 2], o: Out tensor<i32>[2, 2, 2]) -> () "
              "= builtin add\n"
              "orchestration main() {\n}\n")}},

    // ---- 11: bad slice/assemble/dim/read --------------------------------------------------
    {"code11_slice",
     all_report(11, {entry("  v = slice(a, [0, 0], [4, 1])\n"), entry("  v = slice(a, [0], [9])\n"),
                     entry("  v = slice(a, [5], [4])\n"), entry("  o = 2 * 3\n  v = slice(a, [o], [4])\n"),
                     entry("  v = slice(a, [-1], [4])\n")})},
    {"code11_assemble", all_report(11, {entry("  t = create [16]\n  b1 = assemble(b, t, [0])\n"),
                                        entry("  t = create [4]\n  b1 = assemble(b, t, [5])\n"),
                                        entry("  t = create [2, 2]\n  b1 = assemble(b, t, [0])\n")})},
    {"code11_dim_read", all_report(11, {entry("  s = dim(a, 1)\n"), entry("  s = read(a, [0, 0])\n"),
                                        entry("  s = read(a, [8])\n"), entry("  s = read(a, [-1])\n")})},
    {"code11_negative",
     {accepts(entry("  v = slice(a, [4], [4])\n  w = slice(b, [n], [4])\n  t = create [4]\n"
                    "  b1 = assemble(b, t, [4])\n  b2 = assemble(b, t, [n * 100])\n"
                    "  s = dim(a, 0) + read(a, [7]) + read(a, [n])\n"))}},

    // ---- 12: tuple misuse -----------------------------------------------------------------
    {"code12_tuple_used_directly",
     all_report(12, {entry("  t = create [8]\n  r = call k2(a, t, b)\n  u = call kacc(a, r)\n"),
                     entry("  r = submit kacc(a, b)\n  u = r\n")})},
    {"code12_bad_index",
     all_report(12, {entry("  r = submit kacc(a, b)\n  u = r.2\n"), entry("  u = call kacc(a, b)\n  w = u.0\n")})},
    {"code12_task_id_used", {reports(12, entry("  r = submit kacc(a, b)\n  id = r.1\n  s = id + 1\n"))}},
    {"code12_no_result_call_used", {reports(12, entry("  r = call kfill(b, 3)\n"))}},
    {"code12_negative",
     {accepts(entry("  r = submit kacc(a, b)\n  u = r.0\n  id = r.1\n  w = call kacc(a, u)\n"
                    "  q = submit kfill(b, 3)\n  qid = q.0\n  call kfill(b, 3)\n"))}},

    // ---- 13: static zero divisor, literal zero step ---------------------------------------
    {"code13_zero_divisor", all_report(13, {entry("  s = n / 0\n"), entry("  z = 3 - 3\n  s = 7 % z\n"),
                                            entry("  t = create [8 / (2 - 2)]\n")})},
    {"code13_zero_step", all_report(13, {entry("  for i in range(0, 4, 0) {\n  }\n"),
                                         entry("  for i in range(0, 4, dim(a, 0) - 8) {\n  }\n")})},
    // A divisor that is not static, and a zero step that is not a literal (a name), are the
    // interpreter's to report.
    {"code13_negative", {accepts(entry("  s = 7 / n\n  z = 0\n  for i in range(0, 4, z) {\n  }\n  w = -7 % 2\n"))}},

    // ---- 14: return not last or != declared -----------------------------------------------
    {"code14_return_not_last",
     all_report(14, {entry("  return\n  s = 1\n"), entry("  for i in range(0, 2, 1) {\n    return\n  }\n")})},
    {"code14_graph_return_mismatch",
     all_report(14, {graph_cd("  return d\n"), graph_cd("  return c, c\n"), graph_cd("  t = create [8]\n"),
                     graph_cd("  s = 1\n  return s\n")})},
    {"code14_entry_returns_value", {reports(14, entry("  return b\n"))}},
    {"code14_negative",
     {accepts("graph g(c: InOut tensor<i32>[8], d: InOut tensor<i32>[4]) -> (tensor<i32>[4], tensor<i32>[8]) {\n"
              "  return d, c\n}\ngraph h() {\n  return\n}\ngraph h2() {\n}\norchestration main() {\n  return\n}\n")}},

    // ---- order -----------------------------------------------------------------------------
    // The poisoned names (unknown callee result, bad create) are not reported again.
    {"one_mistake_is_reported_once",
     {reports({4, 9},
              entry("  r = call nope(a)\n  u = r.0\n  w = u + 1\n  t = create [n]\n  t1 = call kacc(a, t)\n"))}},
};

class Cases : public ::testing::TestWithParam<Case> {};

TEST_P(Cases, codes) {
  for (const Check& c : GetParam().checks) {
    SCOPED_TRACE(c.text);
    const ir::Diagnostics ds = check(c.text);
    for (const ir::Diagnostic& d : ds) EXPECT_EQ(d.rule, "WellFormed");
    EXPECT_EQ(codes(ds), c.codes) << dump(ds);
    if (!c.first || ds.empty()) continue;
    const ir::Diagnostic& d = ds[0];
    if (c.first->function) {
      EXPECT_EQ(d.location.function, *c.first->function);
    }
    if (c.first->line) {
      EXPECT_EQ(d.location.line, *c.first->line);
    }
    if (c.first->column) {
      EXPECT_EQ(d.location.column, *c.first->column);
    }
    EXPECT_NE(d.message.find(c.first->mentions), std::string::npos) << d.message;
  }
}

INSTANTIATE_TEST_SUITE_P(WellFormed, Cases, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<Case>& info) { return std::string(info.param.name); });

// ---- order, builtins, robustness ------------------------------------------------------

TEST(WellFormed, several_errors_in_program_order) {
  const ir::Diagnostics ds = check(
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
  for (const ir::Diagnostic& d : ds) lines.push_back(d.location.line);
  EXPECT_EQ(lines, (std::vector<uint32_t>{1, 2, 3, 4, 7, 8, 9, 11}));
  EXPECT_EQ(ds[4].location.function, "main");
}

TEST(Builtins, table_and_shape_rules) {
  ASSERT_EQ(ir::builtins().size(), 7u);
  const ir::Builtin* acc = ir::find_builtin("acc");
  ASSERT_NE(acc, nullptr);
  EXPECT_EQ(acc->arity(), 2u);
  EXPECT_EQ(acc->params[1].dir, ir::Dir::InOut);
  EXPECT_TRUE(acc->writes(1));
  EXPECT_FALSE(acc->writes(0));
  EXPECT_EQ(ir::find_builtin("sort"), nullptr);
  EXPECT_EQ(&ir::builtin(ir::BuiltinKind::Rowsum), ir::find_builtin("rowsum"));
  for (const ir::Builtin& b : ir::builtins()) {
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
  EXPECT_FALSE(ir::shape_rule_violation(*ir::find_builtin("matmul"), mm_ok));
  EXPECT_TRUE(ir::shape_rule_violation(*ir::find_builtin("matmul"), mm_bad));
  const std::vector<std::vector<int64_t>> rs_bad = {{4, 8}, {4}};
  EXPECT_TRUE(ir::shape_rule_violation(*ir::find_builtin("rowsum"), rs_bad));
  const std::vector<std::vector<int64_t>> too_few = {{4}};
  EXPECT_TRUE(ir::shape_rule_violation(*ir::find_builtin("add"), too_few));
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
  const ir::Diagnostics ds = check(text);
  EXPECT_GE(ds.size(), 10u) << dump(ds);
  for (const ir::Diagnostic& d : ds) {
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
  const ir::Diagnostics ds = check_well_formed(p);
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
