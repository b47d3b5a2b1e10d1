// Test fixtures shared by the compiler's unit tests (included by *_test.cpp files, those of
// properties/oracles too, and their test-only helper headers; never by libstack, the
// property suites or fuzz): COMPILER.md §5's case
// fixture (its kernels and its g/main program), §1's example before and after the pipeline,
// parsing that fails the test on a parse error, canonical printing, diagnostics as codes or
// text for failure messages, and deeply nested programs with a small stack to walk them on.
// Header-only; it uses GoogleTest's assertions.
#pragma once

#include "stack/ir/ast.h"
#include "stack/ir/parser.h"
#include "stack/ir/printer.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <pthread.h>

#include <cctype>
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace stackcheck::ir::testing {

// The §5 fixture's kernels as COMPILER.md writes them (T = tensor<i32>[8], T4 =
// tensor<i32>[4]); k2 returns (o2, o1), out of param order.
inline constexpr const char* kFixtureKernels =
    "kernel kacc(x: In tensor<i32>[8], a: InOut tensor<i32>[8]) -> (a) = builtin acc\n"
    "kernel kacc4(x: In tensor<i32>[4], a: InOut tensor<i32>[4]) -> (a) = builtin acc\n"
    "kernel ksc(x: In tensor<i32>[8], o: Out tensor<i32>[8], s: In i64) -> (o) = builtin scale\n"
    "kernel k2(x: In tensor<i32>[8], o1: Out tensor<i32>[8], o2: InOut tensor<i32>[8]) -> (o2, o1) = builtin copy\n";

// The same kernels after NormalizeReturnOrder (k2 returns (o1, o2)): the §5.3 cases' input.
inline std::string fixture_kernels_normalized() {
  std::string text = kFixtureKernels;
  const std::string from = "-> (o2, o1)";
  text.replace(text.find(from), from.size(), "-> (o1, o2)");
  return text;
}

// §5's `L`: a launch, appended to sketches that have none.
inline constexpr const char* kFixtureLaunch = "l1 = call kacc(x, c)";

// `T` and `T4` (whole words) -> tensor<i32>[8] and tensor<i32>[4].
inline std::string expand_fixture_types(std::string_view in) {
  auto word_char = [&](size_t i) { return std::isalnum(static_cast<unsigned char>(in[i])) || in[i] == '_'; };
  std::string out;
  for (size_t i = 0; i < in.size();) {
    const bool word_start = i == 0 || !word_char(i - 1);
    auto word_is = [&](std::string_view w) {
      return in.substr(i, w.size()) == w && (i + w.size() == in.size() || !word_char(i + w.size()));
    };
    if (word_start && word_is("T4")) {
      out += "tensor<i32>[4]";
      i += 2;
    } else if (word_start && word_is("T")) {
      out += "tensor<i32>[8]";
      i += 1;
    } else {
      out += in[i++];
    }
  }
  return out;
}

// The §5 fixture program, in the T shorthand:
//   <kernels> <graphs>
//   graph g(x: In T, c: InOut T, n: In i64<params>) -> (T) { <body> return <ret> }
//   orchestration main(a: In T, b: InOut T) { for i in range(0, 2, 1) { <site> <call><args>) } }
// with g's body starting on the line after its header.
struct FixtureProgram {
  std::string body{};                   // g's statements before its return, one per line
  std::string params{};                 // appended to g's params, e.g. ", s: In i64"
  std::string site{};                   // lines before the call
  std::string args{};                   // appended to the call's arguments
  std::string ret = "c";                // what g returns
  std::string call = "call g(a, b, i";  // the call up to its appended arguments
  std::string graphs{};                 // more functions, before g
};

// The program's text with T and T4 expanded, over `kernels` (the §5.3 cases use
// fixture_kernels_normalized()).
inline std::string fixture_text(const FixtureProgram& f, std::string_view kernels = kFixtureKernels) {
  return expand_fixture_types(std::string(kernels) + f.graphs + "graph g(x: In T, c: InOut T, n: In i64" + f.params +
                              ") -> (T) {\n" + f.body + "\nreturn " + f.ret +
                              "\n}\norchestration main(a: In T, b: InOut T) {\nfor i in range(0, 2, 1) {\n" + f.site +
                              "\n" + f.call + f.args + ")\n}\n}\n");
}

// COMPILER.md §1's example program, as the pipeline receives it.
inline constexpr const char* kSection1Example =
    R"(kernel kacc(x: In tensor<i32>[8], a: InOut tensor<i32>[8]) -> (a) = builtin acc
graph g(x: In tensor<i32>[16], c: InOut tensor<i32>[8], n: In i64) -> (tensor<i32>[8]) {
  v = slice(x, [n * 8], [8])
  t = create [8]
  t1 = call kacc(v, t)
  c1 = call kacc(t1, c)
  return c1
}
orchestration main(x: In tensor<i32>[16], c: InOut tensor<i32>[8]) {
  for i in range(0, 2, 1) {
    call g(x, c, i)
  }
}
)";

// The example after NormalizeReturnOrder: g returns its param c, which c1 writes back (A0).
inline std::string section1_example_normalized() {
  std::string text = kSection1Example;
  const std::string from = "return c1";
  text.replace(text.find(from), from.size(), "return c");
  return text;
}

// The example after the whole pipeline (COMPILER.md §5.3), as printed.
inline constexpr const char* kSection1Legalized =
    R"(kernel kacc(x: In tensor<i32>[8], a: InOut tensor<i32>[8]) -> (a) = builtin acc
graph g(x: In tensor<i32>[16], c: InOut tensor<i32>[8], n: In i64, t: InOut tensor<i32>[8], v: In tensor<i32>[8]) -> (tensor<i32>[8]) {
  t1 = call kacc(v, t)
  c1 = call kacc(t1, c)
  return c
}
orchestration main(x: In tensor<i32>[16], c: InOut tensor<i32>[8]) {
  for i in range(0, 2, 1) {
    v__graph_arg0 = slice(x, [i * 8], [8])
    t__graph_arg1 = create [8]
    call g(x, c, i, t__graph_arg1, v__graph_arg0)
  }
}
)";

// Parses `text`; a parse error fails the test (and yields an empty program).
inline Program parse_or_fail(std::string_view text) {
  ParseResult r = parse_program(text);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().to_string()) << "\nin:\n" << text;
  return r.ok() ? std::move(r.program()) : Program{};
}

// The printer's form of `text`, so that layout never matters in comparisons.
inline std::string canonical(std::string_view text) { return print_program(parse_or_fail(text)); }

// The codes of ir::Diagnostics (any sequence of things with a `code`), in order.
template <typename Diagnostics>
std::vector<int> diagnostic_codes(const Diagnostics& ds) {
  std::vector<int> out;
  for (const auto& d : ds) out.push_back(d.code);
  return out;
}

// One line per diagnostic, "<function> [<rule>] <line:column: error[N]: message>", for
// failure messages ("" when there are none).
template <typename Diagnostics>
std::string diagnostics_text(const Diagnostics& ds) {
  std::string out;
  for (const auto& d : ds) out += fmt::format("{} [{}] {}\n", d.location.function, d.rule, d.render(""));
  return out;
}

// ---- deep nesting ----------------------------------------------------------------------
// Code-built programs nest without the parser's cap; walks over them must not recurse.
// These build such programs, run code on a stack too small for recursion at that depth
// (walk_test.cpp shows a recursive walk dying there) and take the trees apart again
// without recursion (their destructors recurse once per level).

inline constexpr size_t kDeepNesting = 20'000;
inline constexpr size_t kSmallStackBytes = 512 * 1024;

// `depth` nested loops `for iK in range(0, 1, 1) { ... }` (i0 outermost) around `body`,
// built from the inside out by moves (a copy would recurse).
inline std::vector<Stmt> nest_in_loops(std::vector<Stmt> body, size_t depth) {
  for (size_t k = depth; k-- > 0;) {
    Stmt loop;
    loop.kind = Stmt::Kind::For;
    loop.name = "i" + std::to_string(k);
    loop.lo.value = 0;
    loop.hi.value = 1;
    loop.step.value = 1;
    loop.body = std::move(body);
    body = std::vector<Stmt>();
    body.push_back(std::move(loop));
  }
  return body;
}

inline void dismantle(std::vector<Stmt>& root) {
  std::vector<Stmt> pending = std::move(root);
  while (!pending.empty()) {
    Stmt s = std::move(pending.back());
    pending.pop_back();
    for (Stmt& c : s.body) pending.push_back(std::move(c));
    for (Stmt& c : s.else_body) pending.push_back(std::move(c));
  }
}
inline void dismantle(Expr& root) {
  std::vector<Expr> pending;
  pending.push_back(std::move(root));
  while (!pending.empty()) {
    Expr e = std::move(pending.back());
    pending.pop_back();
    for (Expr& a : e.args) pending.push_back(std::move(a));
  }
}

// Runs fn to completion on a thread whose stack has kSmallStackBytes.
inline void on_small_stack(const std::function<void()>& fn) {
  pthread_attr_t attr;
  ASSERT_EQ(pthread_attr_init(&attr), 0);
  ASSERT_EQ(pthread_attr_setstacksize(&attr, kSmallStackBytes), 0);
  pthread_t thread;
  auto run = [](void* arg) -> void* {
    (*static_cast<const std::function<void()>*>(arg))();
    return nullptr;
  };
  ASSERT_EQ(pthread_create(&thread, &attr, run, const_cast<std::function<void()>*>(&fn)), 0);
  pthread_join(thread, nullptr);
  pthread_attr_destroy(&attr);
}

}  // namespace stackcheck::ir::testing
