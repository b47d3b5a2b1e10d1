// Reference interpreter (COMPILER.md §7): inputs from splitmix64, each builtin, aliasing
// windows, writebacks, tuples, graph calls, errors with locations, the budget, determinism
// and a hand-computed program.
#include "stack/interp/interp.h"

#include "stack/ir/testing.h"
#include "stack/support/splitmix.h"

#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace stackcheck::interp {
namespace {

const char* kKernels =
    "kernel kfill(o: Out tensor<i32>[4], s: In i64) -> (o) = builtin fill\n"
    "kernel kcopy(x: In tensor<i32>[4], o: Out tensor<i32>[4]) -> (o) = builtin copy\n"
    "kernel kadd(a: In tensor<i32>[4], b: In tensor<i32>[4], o: Out tensor<i32>[4]) -> (o)"
    " = builtin add\n"
    "kernel kacc(x: In tensor<i32>[4], a: InOut tensor<i32>[4]) -> (a) = builtin acc\n"
    "kernel ksc(x: In tensor<i32>[4], o: Out tensor<i32>[4], s: In i64) -> (o) = builtin scale\n"
    "kernel kmm(a: In tensor<i32>[2, 3], b: In tensor<i32>[3, 2], o: Out tensor<i32>[2, 2])"
    " -> (o) = builtin matmul\n"
    "kernel krs(x: In tensor<i32>[2, 3], o: Out tensor<i32>[2, 1]) -> (o) = builtin rowsum\n"
    "kernel k2(x: In tensor<i32>[4], o1: Out tensor<i32>[4], o2: InOut tensor<i32>[4]) -> (o2, o1)"
    " = builtin copy\n";

ir::Program parse(const std::string& text) { return ir::testing::parse_or_fail(text); }

// Runs kKernels + `text`; expects success.
Outputs run_ok(const std::string& text, uint64_t seed = 1) {
  Result r = run(parse(std::string(kKernels) + text), seed);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().render());
  return r.ok() ? r.outputs() : Outputs{};
}

Error run_err(const std::string& text, uint64_t seed = 1, Options o = {}) {
  Result r = run(parse(std::string(kKernels) + text), seed, o);
  EXPECT_FALSE(r.ok()) << "expected an interpreter error";
  return r.ok() ? Error{} : r.error();
}

std::vector<uint32_t> words(const TensorBytes& t) {
  std::vector<uint32_t> out(t.bytes.size() / 4);
  for (size_t i = 0; i < out.size(); ++i) {
    out[i] = static_cast<uint32_t>(t.bytes[4 * i]) | static_cast<uint32_t>(t.bytes[4 * i + 1]) << 8 |
             static_cast<uint32_t>(t.bytes[4 * i + 2]) << 16 | static_cast<uint32_t>(t.bytes[4 * i + 3]) << 24;
  }
  return out;
}

// The input elements of every tensor param of `entry_header`'s function for `seed`.
std::vector<std::vector<uint32_t>> inputs_of(const std::string& text, uint64_t seed = 1) {
  ir::Program p = parse(std::string(kKernels) + text);
  std::vector<std::vector<uint32_t>> out;
  for (const ir::Function& f : p.functions) {
    if (f.kind != ir::Function::Kind::Orchestration) continue;
    auto in = generate_inputs(f, seed);
    for (const InputValue& v : std::get<std::vector<InputValue>>(in)) {
      out.push_back(v.tensor ? v.elements : std::vector<uint32_t>{static_cast<uint32_t>(v.scalar)});
    }
  }
  return out;
}

using Inputs = std::vector<std::vector<uint32_t>>;

// Runs kKernels + `text` (seed 1) and checks its tensor param `index` against `want`,
// computed by hand from the inputs the run drew.
void expect_tensor(const std::string& text, size_t index, const std::function<std::vector<uint32_t>(Inputs)>& want) {
  const Outputs o = run_ok(text);
  ASSERT_GT(o.tensors.size(), index);
  EXPECT_EQ(words(o.tensors[index]), want(inputs_of(text)));
}

// The interpreter error of kKernels + `text`: its kind, and its line and column where given
// (0: not checked).
Error expect_error(const std::string& text, ErrorKind kind, uint32_t line = 0, uint32_t column = 0) {
  Error e = run_err(text);
  EXPECT_EQ(e.kind, kind);
  if (line != 0) {
    EXPECT_EQ(e.location.line, line);
  }
  if (column != 0) {
    EXPECT_EQ(e.location.column, column);
  }
  return e;
}

TEST(Interp, inputs_drawn_per_element_then_scalar_mod_16) {
  // x: draws 1, 2 (low 32 bits); n: draw 3 % 16; y: draws 4.. (row-major).
  Outputs o = run_ok("orchestration main(x: InOut tensor<i32>[2], n: In i64, y: In tensor<i32>[1]) {\n}\n", 0);
  ASSERT_EQ(o.tensors.size(), 2u);  // tensor params only, in order
  EXPECT_EQ(o.tensors[0].name, "x");
  EXPECT_EQ(o.tensors[0].bytes, (std::vector<uint8_t>{0xAF, 0xCD, 0x1D, 0x7B, 0xF4, 0x65, 0xB9, 0xA1}));
  support::SplitMix64 r(0);
  r.next(), r.next();
  const uint64_t n = r.next() % 16;
  const uint32_t y = static_cast<uint32_t>(r.next());
  EXPECT_EQ(n, 0x06C45D188009454Full % 16);
  EXPECT_EQ(words(o.tensors[1]), std::vector<uint32_t>{y});
}

TEST(Interp, builtin_fill_takes_low_32_bits) {
  Outputs o = run_ok(
      "orchestration main(c: InOut tensor<i32>[4]) {\n"
      "  c1 = call kfill(c, 4294967301)\n}\n");
  EXPECT_EQ(words(o.tensors[0]), (std::vector<uint32_t>{5, 5, 5, 5}));
  o = run_ok("orchestration main(c: InOut tensor<i32>[4]) {\n  c1 = call kfill(c, -1)\n}\n");
  EXPECT_EQ(words(o.tensors[0]), (std::vector<uint32_t>(4, 0xFFFFFFFFu)));
}

TEST(Interp, builtin_copy_add_acc_scale) {
  const std::string head =
      "orchestration main(x: In tensor<i32>[4], y: In tensor<i32>[4], "
      "c: InOut tensor<i32>[4]) {\n";
  auto in = inputs_of(head + "}\n");
  const auto &x = in[0], &y = in[1], &c = in[2];
  std::vector<uint32_t> want(4);

  Outputs o = run_ok(head + "  c1 = call kcopy(x, c)\n}\n");
  EXPECT_EQ(words(o.tensors[2]), x);
  EXPECT_EQ(words(o.tensors[0]), x);  // In params are reported too, unchanged

  o = run_ok(head + "  c1 = call kadd(x, y, c)\n}\n");
  for (int i = 0; i < 4; ++i) want[i] = x[i] + y[i];
  EXPECT_EQ(words(o.tensors[2]), want);

  o = run_ok(head + "  c1 = call kacc(x, c)\n}\n");
  for (int i = 0; i < 4; ++i) want[i] = c[i] + x[i];
  EXPECT_EQ(words(o.tensors[2]), want);

  o = run_ok(head + "  c1 = call ksc(x, c, -3)\n}\n");
  for (int i = 0; i < 4; ++i) want[i] = x[i] * 0xFFFFFFFDu;
  EXPECT_EQ(words(o.tensors[2]), want);
}

TEST(Interp, builtin_matmul_and_rowsum) {
  const std::string head =
      "orchestration main(a: In tensor<i32>[2, 3], b: In tensor<i32>[3, 2], "
      "c: InOut tensor<i32>[2, 2], r: InOut tensor<i32>[2, 1]) {\n";
  auto in = inputs_of(head + "}\n");
  const auto &a = in[0], &b = in[1];
  Outputs o = run_ok(head + "  c1 = call kmm(a, b, c)\n  r1 = call krs(a, r)\n}\n");
  std::vector<uint32_t> mm(4, 0), rs(2, 0);
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 2; ++j) {
      for (int k = 0; k < 3; ++k) mm[i * 2 + j] += a[i * 3 + k] * b[k * 2 + j];
    }
    for (int k = 0; k < 3; ++k) rs[i] += a[i * 3 + k];
  }
  EXPECT_EQ(words(o.tensors[2]), mm);
  EXPECT_EQ(words(o.tensors[3]), rs);
}

TEST(Interp, windows_share_their_buffer) {
  // A 2-D window of c: writes through it are seen by c; everything else stays.
  const std::string text = R"(kernel kf2(o: Out tensor<i32>[2, 2], s: In i64) -> (o) = builtin fill
orchestration main(c: InOut tensor<i32>[3, 4]) {
  v = slice(c, [1, 1], [2, 2])
  v1 = call kf2(v, 7)
}
)";
  expect_tensor(text, 0, [](Inputs in) {
    for (int i : {5, 6, 9, 10}) in[0][i] = 7;
    return in[0];
  });
}

TEST(Interp, overlapping_windows_read_before_write) {
  // w = c[2:6] += v = c[0:4], overlapping in c[2:4]: every input is read first.
  const std::string text = R"(orchestration main(c: InOut tensor<i32>[8]) {
  v = slice(c, [0], [4])
  w = slice(c, [2], [4])
  w1 = call kacc(v, w)
}
)";
  expect_tensor(text, 0, [](const Inputs& in) {
    auto want = in[0];
    for (int i = 0; i < 4; ++i) want[2 + i] = in[0][2 + i] + in[0][i];
    return want;
  });
}

TEST(Interp, slice_of_slice_and_assemble_copy) {
  const std::string text =
      "orchestration main(x: In tensor<i32>[8], c: InOut tensor<i32>[8]) {\n"
      "  v = slice(x, [2], [6])\n  w = slice(v, [1], [4])\n"      // x[3:7]
      "  c1 = assemble(c, w, [4])\n"                              // c[4:8] = x[3:7]
      "  u = slice(c1, [0], [4])\n  u1 = call kfill(u, 9)\n}\n";  // c1 is c's window
  expect_tensor(text, 1, [](const Inputs& in) {
    return std::vector<uint32_t>{9, 9, 9, 9, in[0][3], in[0][4], in[0][5], in[0][6]};
  });
}

TEST(Interp, assemble_overlapping_source_reads_first) {
  const std::string text = R"(orchestration main(c: InOut tensor<i32>[8]) {
  s = slice(c, [0], [6])
  c1 = assemble(c, s, [2])
}
)";
  expect_tensor(text, 0, [](const Inputs& in) {
    auto want = in[0];
    for (int i = 0; i < 6; ++i) want[2 + i] = in[0][i];
    return want;
  });
}

TEST(Interp, create_is_fresh_and_zeroed_each_time) {
  // Each iteration's t starts at zero: c ends as x, not 2x.
  const std::string text = R"(orchestration main(x: In tensor<i32>[4], c: InOut tensor<i32>[4]) {
  for i in range(0, 2, 1) {
    t = create [4]
    t1 = call kacc(x, t)
    c1 = call kcopy(t1, c)
  }
}
)";
  expect_tensor(text, 1, [](const Inputs& in) { return in[0]; });
}

TEST(Interp, full_and_read) {
  // read yields the element as a signed i32: full of -1 reads -1.
  const std::string text = R"(orchestration main(c: InOut tensor<i32>[4]) {
  f = full [2, 2], -1
  s = read(f, [1, 1])
  c1 = call kfill(c, s * 2)
}
)";
  EXPECT_EQ(words(run_ok(text).tensors[0]), (std::vector<uint32_t>(4, 0xFFFFFFFEu)));
}

TEST(Interp, writebacks_and_tuples_follow_rpi) {
  const std::string text =
      "orchestration main(x: In tensor<i32>[4], c: InOut tensor<i32>[4], o: InOut tensor<i32>[4]) {\n"
      "  t = create [4]\n  t1 = call kacc(x, t)\n  t2 = call kacc(x, t1)\n"  // t = 2x
      "  r = call k2(t2, o, c)\n  y = r.0\n  z = r.1\n"                      // k2 returns (o2=c, o1=o); o = 2x
      "  y1 = call kacc(x, y)\n"                                             // c += x
      "  q = submit kacc(x, z)\n  w = q.0\n  w1 = call kacc(x, w)\n}\n";     // o += 2x
  auto in = inputs_of(text);
  const auto &x = in[0], &c = in[1];
  std::vector<uint32_t> wc(4), wo(4);
  for (int i = 0; i < 4; ++i) {
    wc[i] = c[i] + x[i];
    wo[i] = 4 * x[i];
  }
  Outputs o = run_ok(text);
  EXPECT_EQ(words(o.tensors[1]), wc);
  EXPECT_EQ(words(o.tensors[2]), wo);
}

TEST(Interp, graph_call_runs_body_on_arguments) {
  // The COMPILER.md §1 example: c += x[0:8] + x[8:16]. Its kacc (on tensor<i32>[8]) is ka8 here:
  // kKernels has a kacc on tensor<i32>[4].
  std::string text = ir::testing::kSection1Example;
  for (size_t at = text.find("kacc"); at != std::string::npos; at = text.find("kacc", at)) text.replace(at, 4, "ka8");
  expect_tensor(text, 1, [](const Inputs& in) {
    std::vector<uint32_t> want(8);
    for (int i = 0; i < 8; ++i) want[i] = in[1][i] + in[0][i] + in[0][8 + i];
    return want;
  });
}

TEST(Interp, graph_result_is_the_returned_window) {
  // g returns a window of its own fresh buffer (r) and one of its argument (c's, via h.1).
  const std::string text =
      R"(graph g(x: In tensor<i32>[4], c: InOut tensor<i32>[4]) -> (tensor<i32>[4], tensor<i32>[4]) {
  t = create [4]
  t1 = call kacc(x, t)
  return t1, c
}
orchestration main(x: In tensor<i32>[4], c: InOut tensor<i32>[4], d: InOut tensor<i32>[4]) {
  h = call g(x, c)
  r = h.0
  s = h.1
  d1 = call kcopy(r, d)
  s1 = call kfill(s, 3)
}
)";
  auto in = inputs_of(text);
  Outputs o = run_ok(text);
  EXPECT_EQ(words(o.tensors[2]), in[0]);
  EXPECT_EQ(words(o.tensors[1]), (std::vector<uint32_t>(4, 3)));
}

TEST(Interp, if_and_negative_step_loops) {
  // range(3, -1, -2) runs i = 3, 1; i = 3 takes the then-branch, i = 1 the else-branch.
  const std::string text = R"(orchestration main(c: InOut tensor<i32>[4]) {
  for i in range(3, -1, -2) {
    v = slice(c, [i], [1])
    if i > 2 {
      t = full [4], i
      u = slice(t, [0], [1])
      kk = assemble(c, u, [0])
    } else {
      w = assemble(c, v, [2])
    }
  }
}
)";
  expect_tensor(text, 0, [](const Inputs& in) { return std::vector<uint32_t>{3, in[0][1], in[0][1], in[0][3]}; });
}

TEST(Interp, hand_computed_program) {
  // Independent of the inputs: c = fill 2; t = 3 * c = 6; c += t (8); c[1:3] += c[0:2] (16).
  const std::string text = R"(orchestration main(c: InOut tensor<i32>[4]) {
  c1 = call kfill(c, 2)
  t = create [4]
  t1 = call ksc(c1, t, 3)
  c2 = call kacc(t1, c1)
  a = slice(c2, [0], [2])
  b = slice(c2, [1], [2])
  b1 = call kacc2(a, b)
}
)";
  const std::string k2 = "kernel kacc2(x: In tensor<i32>[2], a: InOut tensor<i32>[2]) -> (a) = builtin acc\n";
  Outputs o = run_ok(k2 + text, 1);
  EXPECT_EQ(words(o.tensors[0]), (std::vector<uint32_t>{8, 16, 16, 8}));
  EXPECT_EQ(o.tensors[0].bytes, (std::vector<uint8_t>{8, 0, 0, 0, 16, 0, 0, 0, 16, 0, 0, 0, 8, 0, 0, 0}));
  // Budget used: 7 statements + fill 4 + create 4 + scale 4 + acc 4 + acc 2.
  EXPECT_EQ(o.steps, 7u + 4 + 4 + 4 + 4 + 2);
  EXPECT_EQ(words(run_ok(k2 + text, 99).tensors[0]), words(o.tensors[0]));
}

TEST(Interp, error_zero_divisor_with_location) {
  const Error e = expect_error(
      "orchestration main(c: InOut tensor<i32>[4]) {\n"
      "  z = dim(c, 0) - 4\n  q = 8 / z\n}\n",
      ErrorKind::ZeroDivisor, 11, 7);  // kKernels has 8 lines
  EXPECT_EQ(e.location.function, "main");
  EXPECT_NE(e.render().find("main:11:7"), std::string::npos);
  EXPECT_EQ(run_err("orchestration main(c: InOut tensor<i32>[4]) {\n"
                    "  z = dim(c, 0) - 4\n  q = 8 % z\n}\n")
                .kind,
            ErrorKind::ZeroDivisor);
}

TEST(Interp, error_out_of_bounds) {
  expect_error(
      "orchestration main(c: InOut tensor<i32>[8]) {\n"
      "  z = dim(c, 0) - 3\n  v = slice(c, [z], [4])\n}\n",
      ErrorKind::OutOfBounds, 11, 3);
  expect_error(  // a negative offset
      "orchestration main(c: InOut tensor<i32>[8]) {\n"
      "  z = dim(c, 0) - 9\n  v = slice(c, [z], [4])\n}\n",
      ErrorKind::OutOfBounds);
  expect_error("orchestration main(c: InOut tensor<i32>[4]) {\n  s = read(c, [4])\n}\n", ErrorKind::OutOfBounds, 10);
  expect_error(
      "orchestration main(c: InOut tensor<i32>[8]) {\n"
      "  s = slice(c, [0], [4])\n  z = dim(c, 0) - 3\n  c1 = assemble(c, s, [z])\n}\n",
      ErrorKind::OutOfBounds, 12);
}

TEST(Interp, error_zero_step) {
  expect_error(
      "orchestration main(c: InOut tensor<i32>[4]) {\n"
      "  z = dim(c, 0) - 4\n  for i in range(0, 4, z) {\n  }\n}\n",
      ErrorKind::ZeroStep, 11, 3);
}

TEST(Interp, error_budget_exact_and_huge_loops) {
  // 1 loop statement + 5 iterations + 5 fills of 4 elements + 5 statements = 31.
  const std::string text = R"(orchestration main(c: InOut tensor<i32>[4]) {
  for i in range(0, 5, 1) {
    c1 = call kfill(c, i)
  }
}
)";
  Result ok = run(parse(std::string(kKernels) + text), 1, Options{31});
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(ok.outputs().steps, 31u);
  Error e = run_err(text, 1, Options{30});
  EXPECT_EQ(e.kind, ErrorKind::Budget);
  EXPECT_EQ(e.location.line, 11u);  // the last kfill call
  // 2^64-1 empty iterations stop at the default budget.
  expect_error(
      "orchestration main(c: InOut tensor<i32>[4]) {\n"
      "  for i in range(-9223372036854775808, 9223372036854775807, 1) {\n  }\n}\n",
      ErrorKind::Budget, 10);
}

TEST(Interp, deterministic_per_seed) {
  const std::string text = R"(orchestration main(x: In tensor<i32>[4], c: InOut tensor<i32>[4], n: In i64) {
  c1 = call ksc(x, c, n)
}
)";
  ir::Program p = parse(std::string(kKernels) + text);
  Result a = run(p, 42), b = run(p, 42), c = run(p, 43);
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  EXPECT_EQ(a.outputs().tensors[1].bytes, b.outputs().tensors[1].bytes);
  EXPECT_EQ(fnv1a64(a.outputs()), fnv1a64(b.outputs()));
  EXPECT_NE(a.outputs().tensors[0].bytes, c.outputs().tensors[0].bytes);
  EXPECT_NE(fnv1a64(a.outputs()), fnv1a64(c.outputs()));
}

TEST(Interp, ill_formed_programs_error_instead_of_crashing) {
  EXPECT_EQ(run(ir::Program{}, 1).error().kind, ErrorKind::Invalid);
  // Unknown callee, wrong arity, scalar/tensor mix-ups, tuple misuse, call cycles.
  for (const char* body :
       {"  call nope(c)\n", "  c1 = call kacc(c)\n", "  c1 = call kfill(c, c)\n", "  c1 = call kacc(c, 3)\n",
        "  r = call kacc(c, c)\n  y = r.3\n", "  s = c + 1\n", "  v = slice(q, [0], [1])\n", "  call main(c)\n",
        "  t = create [0]\n", "  t = create [70000]\n"}) {
    Result r = run(parse(std::string(kKernels) + "orchestration main(c: InOut tensor<i32>[4]) {\n" + body + "}\n"), 1);
    ASSERT_FALSE(r.ok()) << body;
    EXPECT_EQ(r.error().kind, ErrorKind::Invalid) << body;
  }
  Result r = run(parse("graph a(c: InOut tensor<i32>[4]) {\n  call a(c)\n}\n"
                       "orchestration main(c: InOut tensor<i32>[4]) {\n  call a(c)\n}\n"),
                 1);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, ErrorKind::Invalid);
}

}  // namespace
}  // namespace stackcheck::interp
