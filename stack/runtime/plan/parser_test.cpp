// `.plan` parser, printer and static checks: golden round trips (the §17 example among
// them), canonical printing, and rejections with their line:column.
#include "stack/runtime/plan/parser.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <random>
#include <string>
#include <string_view>

#include "stack/runtime/plan/config_ranges.h"
#include "stack/runtime/plan/check.h"
#include "stack/runtime/plan/printer.h"

namespace stackcheck::runtime {
namespace {

// The RUNTIME.md §17 example, verbatim after its comment lines, as corpus/plans/example.plan
// keeps it.
std::string spec_example() {
  const std::filesystem::path path = std::filesystem::path(STACKCHECK_SOURCE_DIR) / "corpus/plans/example.plan";
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << path;
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}
// The text without its leading comment lines (the printer keeps no comments).
std::string strip_header(std::string s) {
  while (!s.empty() && s[0] == '#') s.erase(0, s.find('\n') + 1);
  return s;
}

std::string error_of(std::string_view text) {
  PlanParseResult r = parse_plan(text);
  return r.ok() ? "ok" : r.error().to_string();
}

// A text and what its parse says: its first error with line:column, or "ok".
struct ErrorCase {
  std::string_view text;
  std::string_view error;
};
void expect_errors(std::initializer_list<ErrorCase> cases) {
  for (const ErrorCase& c : cases) EXPECT_EQ(error_of(c.text), c.error) << c.text;
}

// `text` parses, and prints as `printed` (the canonical form).
void expect_prints(std::string_view text, std::string_view printed) {
  PlanParseResult r = parse_plan(text);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_EQ(print_plan(r.program()), printed);
}

// parse -> print -> parse: equal programs, and the print is a fixed point.
void expect_round_trip(std::string_view text) {
  PlanParseResult a = parse_plan(text);
  ASSERT_TRUE(a.ok()) << a.error().to_string() << "\n" << text;
  const std::string printed = print_plan(a.program());
  PlanParseResult b = parse_plan(printed);
  ASSERT_TRUE(b.ok()) << b.error().to_string() << "\n" << printed;
  EXPECT_EQ(a.program(), b.program()) << printed;
  EXPECT_EQ(print_plan(b.program()), printed);
}

TEST(PlanParser, spec_example_golden) {
  PlanParseResult r = parse_plan(spec_example());
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  const OrchProgram& p = r.program();
  ASSERT_EQ(p.config.size(), 1u);
  EXPECT_EQ(p.config[0].key, "W");
  EXPECT_EQ(p.config[0].value, 64);
  ASSERT_EQ(p.tensors.size(), 2u);
  EXPECT_FALSE(p.tensors[0].inout);
  EXPECT_TRUE(p.tensors[1].inout);
  ASSERT_EQ(p.graphs.size(), 1u);
  EXPECT_EQ(p.graphs[0].params, (std::vector<std::string>{"a", "b"}));
  ASSERT_EQ(p.body.size(), 1u);
  const auto& f = std::get<ForStmt>(p.body[0].node);
  EXPECT_EQ(f.var, "i");
  ASSERT_EQ(f.body.size(), 7u);
  const auto& sub = std::get<SubmitStmt>(f.body[4].node);
  EXPECT_EQ(sub.builtin, Builtin::Acc);
  EXPECT_EQ(sub.args[1].tag, PlanTag::Inout);
  EXPECT_EQ(p.body[0].loc.line, 11u);  // after the file's four comment lines
  EXPECT_EQ(p.body[0].loc.column, 1u);
  // The canonical print is the example itself (without its comment line).
  EXPECT_EQ(print_plan(p), strip_header(spec_example()));
  expect_round_trip(spec_example());
}

TEST(PlanParser, all_statements_round_trip) {
  constexpr const char* kText = R"(config W=16 task_heap=4096 fill_byte=170
tensor x: In [4, 8]
tensor y: InOut [8]
scope_begin
alloc a: [8], b: [2, 4]
set n = (1 + 2) * 3 - -4 / (5 % 2)
set m = n - (n - 1)
read r = x[n % 4, 7]
view v = x[0:2, n:4]
view w = y
submit fill(output o: [8], scalar -9223372036854775808)
submit copy(input o, output_existing a)
submit add(input o, no_dep a, inout y)
wait_tensor y
sync_start 3
if r >= 2 {
  submit acc(input v, inout b)
} else {
  fatal
}
if n != 0 {
}
for i = 10, 0, -3 {
  for j = 0, i, 1 {
    set k = i * j
  }
}
scope_end
mutate 0 255
mutate header 0 0
mutate 4096 0
mutate header 127 9
)";
  expect_round_trip(kText);
  PlanParseResult r = parse_plan(kText);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(print_plan(r.program()), kText);  // already canonical
  const std::vector<Mutation>& m = r.program().mutations;
  ASSERT_EQ(m.size(), 4u);
  EXPECT_EQ(m[0].target, MutationTarget::kImage);
  EXPECT_EQ(m[1].target, MutationTarget::kRuntimeHeader);  // the order of the lines is kept
  EXPECT_EQ(m[1].offset, 0u);
  EXPECT_EQ(m[2].target, MutationTarget::kImage);
  EXPECT_EQ(m[2].offset, 4096u);
  EXPECT_EQ(m[3].target, MutationTarget::kRuntimeHeader);
  EXPECT_EQ(m[3].offset, 127u);
  EXPECT_EQ(m[3].value, 9u);
}

TEST(PlanParser, mutate_target_is_part_of_the_program) {
  // Same offset and value, another target: unequal programs, distinct texts.
  const PlanParseResult image = parse_plan("mutate 8 1\n"), header = parse_plan("mutate header 8 1\n");
  ASSERT_TRUE(image.ok());
  ASSERT_TRUE(header.ok());
  EXPECT_FALSE(image.program() == header.program());
  EXPECT_EQ(print_plan(header.program()), "mutate header 8 1\n");
  // `header` is not a keyword elsewhere: it stays an ordinary name.
  EXPECT_TRUE(parse_plan("set header = 1\n").ok());
}

TEST(PlanParser, canonical_parentheses_and_spacing) {
  expect_prints(
      "set a = ((1+2))*3\nset b = 1-(2-3)\nset c = (1-2)-3\nset d = 1*(2*3)\n"
      "set e = 1  +  2*3\n",
      "set a = (1 + 2) * 3\nset b = 1 - (2 - 3)\nset c = 1 - 2 - 3\nset d = 1 * (2 * 3)\n"
      "set e = 1 + 2 * 3\n");
}

TEST(PlanParser, comments_blank_lines_and_graph_between_statements) {
  expect_prints(
      "\n# c\n\ntensor x: In [4]  # tail\n\nset a = 1\n"
      "graph g(p) {\n\n  submit fill(output_existing p, scalar $3)\n}\n"
      "submit_graph g(inout x, scalar a)\n",
      "tensor x: In [4]\ngraph g(p) {\n  submit fill(output_existing p, scalar $3)\n}\n"
      "set a = 1\nsubmit_graph g(inout x, scalar a)\n");
}

TEST(PlanParser, empty_else_is_dropped) {
  expect_prints("if 1 < 2 {\n  fatal\n} else {\n}\n", "if 1 < 2 {\n  fatal\n}\n");
}

TEST(PlanParser, empty_input_is_an_empty_program) {
  PlanParseResult r = parse_plan("# only a comment\n\n");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.program(), OrchProgram{});
  EXPECT_EQ(print_plan(r.program()), "");
}

TEST(PlanParser, syntax_errors_have_locations) {
  expect_errors({
      {"set a = 1\r\n", "1:10: carriage return (CRLF line endings are not accepted)"},
      {"set a = 9223372036854775808\n", "1:9: integer literal too large"},
      {"set a = 99999999999999999999\n", "1:9: integer literal too large"},
      {"set a = -9223372036854775808\n", "ok"},
      {"set a = 1 ?\n", "1:11: unexpected character '?'"},
      {"set a = \x01\n", "1:9: unexpected byte 0x01"},
      {"submit frob(input x)\n", "1:8: unknown builtin 'frob' (fill, copy, add, acc, scale, matmul, rowsum)"},
      {"set for = 1\n", "1:5: expected a name, found keyword 'for'"},
      {"for i = 0, 1, 1 {\n", "2:1: expected '}' before end of input"},
      {"for i = 0, 1, 1 { fatal\n}\n", "1:19: expected end of line after '{', found 'fatal'"},
      {"fatal fatal\n", "1:7: expected end of line, found 'fatal'"},
      {"fatal\ntensor x: In [4]\n", "2:1: entry tensors must come before graphs and statements"},
      {"fatal\nconfig W=4\n", "2:1: config must be the first line"},
      {"mutate 1 2\nfatal\n", "2:1: expected 'mutate' after a mutate line, found 'fatal'"},
      {"mutate 1 256\n", "1:10: mutate value is not in 0..255"},
      {"mutate header 1 256\n", "1:17: mutate value is not in 0..255"},
      {"mutate header x 1\n", "1:15: expected a mutate offset, found 'x'"},
      {"mutate head 1 2\n", "1:8: expected a mutate offset, found 'head'"},
      {"mutate header 1 2\nset a = 1\n", "2:1: expected 'mutate' after a mutate line, found 'set'"},
      {"submit acc(foo x)\n",
       "1:12: expected an argument tag (input, inout, output, output_existing, no_dep, scalar), found 'foo'"},
      {"graph g() {\n  graph h() {\n  }\n}\n", "2:3: graphs cannot be defined inside a block"},
      {"if 1 = 2 {\n}\n", "1:6: expected a comparison, found '='"},
      {"tensor x: Out [4]\n", "1:11: expected 'In' or 'InOut', found 'Out'"},
      {"alloc t: [1, 2, 3, 4, 5]\n", "1:23: more than 4 dimensions"},
  });
}

TEST(PlanParser, meaning_errors_have_locations) {
  expect_errors({
      {"set a = b\n", "1:9: undefined name 'b'"},
      {"set a = 1\nset a = 2\n", "2:1: name 'a' bound twice in one body"},
      {"tensor x: In [4]\nset a = x\n", "2:9: 'x' is a tensor, not a scalar"},
      {"set a = 1\nview v = a\n", "2:10: 'a' is a scalar, not a tensor"},
      {"for i = 0, 2, 1 {\n  set k = i\n}\nset z = k\n", "4:9: undefined name 'k'"},
      {"for i = 0, 2, 1 {\n}\nset z = i\n", "3:9: undefined name 'i'"},
      {"for i = 0, 2, 1 {\n  set k = i\n}\nset k = 1\n", "4:1: name 'k' bound twice in one body"},
      {"set a = $0\n", "1:9: '$' slot outside a graph body"},
      {"graph g(p) {\n  set a = $64\n}\n", "2:11: slot $64 is not in $0..$63"},
      {"tensor c: InOut [4]\nread r = c[0]\n", "2:1: read of 'c', whose root is not an entry In tensor"},
      {"tensor x: In [4]\nview v = x[1:2]\nread r = v[0]\n", "ok"},
      {"submit_graph h()\n", "1:1: undefined graph 'h'"},
      {"alloc t: [0]\n", "1:1: alloc dimension 0 is not >= 1"},
      {"tensor x: In [2048, 1024]\n", "1:1: entry tensor has more than 1048576 elements"},
      {"config W=4 W=8\n", "1:12: config key 'W' repeated"},
      {"config V=4\n", "1:8: unknown config key 'V'"},
      {"submit copy(output o: [4], input o)\n", "1:34: undefined name 'o'"},
      {"graph g(p, p) {\n}\n", "1:1: name 'p' bound twice in one body"},
      {"tensor x: In [4]\ngraph g(p) {\n  submit acc(input x, inout p)\n}\n", "3:20: undefined name 'x'"},
  });
}

TEST(PlanParser, nesting_and_depth_limits) {
  std::string deep = "set a = " + std::string(300, '(') + "1" + std::string(300, ')') + "\n";
  EXPECT_EQ(error_of(deep), "1:265: nesting deeper than 256");
  std::string ok = "set a = " + std::string(250, '(') + "1" + std::string(250, ')') + "\n";
  EXPECT_EQ(error_of(ok), "ok");
  std::string chain = "set a = 1";
  for (int i = 0; i < 1100; ++i) chain += " + 1";
  EXPECT_EQ(error_of(chain + "\n"), "1:4103: expression deeper than 1024");
  std::string loops;
  for (int i = 0; i < 300; ++i) loops += "if 1 < 2 {\n";
  EXPECT_EQ(error_of(loops), "257:10: nesting deeper than 256");
  PlanLimits small;
  small.max_bytes = 4;
  PlanParseResult r = parse_plan("fatal\n", small);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().to_string(), "1:1: input of 6 bytes exceeds the 4-byte limit");
}

TEST(PlanParser, never_crashes_on_random_bytes) {
  // Mutations of a valid plan and raw random bytes: always ok or an error with a location.
  std::mt19937_64 rng(12345);
  const std::string base = spec_example();
  const std::string alphabet = "abcxyz_019$:=[](){},+-*/%<>!# \n\t\rIOinputscalarfor";
  for (int iter = 0; iter < 3000; ++iter) {
    std::string s = base;
    const int edits = 1 + static_cast<int>(rng() % 6);
    for (int e = 0; e < edits && !s.empty(); ++e) {
      const size_t at = rng() % s.size();
      switch (rng() % 3) {
        case 0: s[at] = alphabet[rng() % alphabet.size()]; break;
        case 1: s.erase(at, 1 + rng() % 8); break;
        default: s.insert(at, 1, static_cast<char>(rng() % 256)); break;
      }
    }
    PlanParseResult r = parse_plan(s);
    if (r.ok()) {
      const std::string printed = print_plan(r.program());
      PlanParseResult again = parse_plan(printed);
      ASSERT_TRUE(again.ok()) << again.error().to_string() << "\n" << printed;
      EXPECT_EQ(again.program(), r.program());
    } else {
      EXPECT_GE(r.error().line, 1u);
      EXPECT_GE(r.error().column, 1u);
      EXPECT_FALSE(r.error().message.empty());
    }
  }
}

TEST(PlanCheck, rejects_hand_built_programs_that_would_not_round_trip) {
  OrchProgram p;
  p.body.push_back(PlanStmt{SetStmt{"for", PlanExpr::integer(1)}, {}});
  ASSERT_TRUE(validate_plan(p).has_value());
  EXPECT_EQ(validate_plan(p)->message, "bad name 'for'");

  OrchProgram q;
  PlanArg a;
  a.tag = PlanTag::Scalar;
  a.scalar = PlanExpr::integer(3);
  a.out_name = "junk";  // unused by a scalar argument: would be lost by the printer
  q.body.push_back(PlanStmt{SubmitStmt{Builtin::Fill, {a}}, {}});
  ASSERT_TRUE(validate_plan(q).has_value());
  EXPECT_EQ(validate_plan(q)->message, "argument has fields its tag does not use");

  // Positive control: a clean hand-built program passes and round-trips.
  a.out_name.clear();
  OrchProgram ok;
  ok.tensors.push_back(EntryTensor{"x", true, {8}, {}});
  ok.body.push_back(PlanStmt{SubmitStmt{Builtin::Fill,
                                        {PlanArg::tensor(PlanTag::OutputExisting, PlanWindow{"x", {}, {}}),
                                         PlanArg::scalar_value(PlanExpr::integer(3))}},
                             {}});
  ok.body.push_back(PlanStmt{
      SubmitStmt{Builtin::Copy, {PlanArg::tensor(PlanTag::Input, PlanWindow{"x", {}, {}}), PlanArg::output("y", {8})}},
      {}});
  EXPECT_EQ(print_plan(ok),
            "tensor x: InOut [8]\nsubmit fill(output_existing x, scalar 3)\n"
            "submit copy(input x, output y: [8])\n");
  EXPECT_FALSE(validate_plan(ok).has_value());
  PlanParseResult back = parse_plan(print_plan(ok));
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back.program(), ok);
}

TEST(PlanCheck, deep_hand_built_expression_is_rejected_not_overflowed) {
  PlanExpr e = PlanExpr::integer(1);
  for (int i = 0; i < 5000; ++i) e = PlanExpr::binary(PlanBinOp::Add, std::move(e), PlanExpr::integer(1));
  OrchProgram p;
  p.body.push_back(PlanStmt{SetStmt{"a", std::move(e)}, {}});
  ASSERT_TRUE(validate_plan(p).has_value());
  EXPECT_EQ(validate_plan(p)->message, "expression deeper than 1024");
}

// §17: a graph is defined at top level before its first use. A submit_graph above its
// graph's definition is refused at the submit_graph, even though the program (which keeps
// its graphs apart from its statements) would print with the graph first.
TEST(PlanParser, graphs_are_defined_before_use) {
  const char* head = "tensor x: In [16]\ntensor c: InOut [8]\n";
  const std::string g = "graph g(a, b) {\n  submit acc(input a, inout b)\n}\n";
  EXPECT_EQ(error_of(std::string(head) + "submit_graph g(input x[0:8], inout c)\n" + g),
            "3:1: graph 'g' used before its definition");
  EXPECT_EQ(error_of(std::string(head) +
                     "for i = 0, 2, 1 {\n  if i < 1 {\n    submit_graph g(input x[0:8], inout c)\n"
                     "  }\n}\n" +
                     g),
            "5:5: graph 'g' used before its definition");
  // The first use counts; a later one below the definition does not make it right.
  EXPECT_EQ(
      error_of(std::string(head) + "submit_graph g(input x, inout c)\n" + g + "submit_graph g(input x, inout c)\n"),
      "3:1: graph 'g' used before its definition");
  // An earlier error in the text is still the first one; a later one is not.
  EXPECT_EQ(error_of(std::string(head) + "set a = nope\nsubmit_graph g(input x, inout c)\n" + g),
            "3:9: undefined name 'nope'");
  EXPECT_EQ(error_of(std::string(head) + "submit_graph g(input x, inout c)\nset a = nope\n" + g),
            "3:1: graph 'g' used before its definition");
  // A graph body using a later graph (in a body, submit_graph latches 5 at run time).
  EXPECT_EQ(error_of(std::string(head) + "graph f(a) {\n  submit_graph g(input a, inout a)\n}\n" + g),
            "4:3: graph 'g' used before its definition");
  // Controls: defined above the use, between statements or first; a graph naming itself.
  EXPECT_EQ(error_of(std::string(head) + "set a = 1\n" + g + "submit_graph g(input x, inout c)\n"), "ok");
  EXPECT_EQ(error_of(std::string(head) + g + "submit_graph g(input x, inout c)\n"), "ok");
  EXPECT_EQ(error_of("graph f(a) {\n  submit_graph f(inout a)\n}\n"), "ok");
  EXPECT_EQ(error_of("submit_graph h()\n"), "1:1: undefined graph 'h'");  // never defined
  // Not at top level: inside a loop, an if, a scope pair or a graph body.
  EXPECT_EQ(error_of("for i = 0, 1, 1 {\n  graph h() {\n  }\n}\n"), "2:3: graphs are defined at top level only");
  EXPECT_EQ(error_of("if 1 < 2 {\n  graph h() {\n  }\n}\n"), "2:3: graphs are defined at top level only");
  EXPECT_EQ(error_of("graph f() {\n  graph h() {\n  }\n}\n"), "2:3: graphs cannot be defined inside a block");
  // scope_begin/scope_end are statements, not blocks: a graph between them is at top level.
  EXPECT_EQ(error_of(std::string(head) + "scope_begin\n" + g + "submit_graph g(input x, inout c)\nscope_end\n"), "ok");
}

// The same rule on programs built in code (validate_plan): a graph body may name only the
// graphs before it and itself, so every program that passes prints to text that parses.
TEST(PlanCheck, a_graph_body_names_earlier_graphs_only) {
  auto graph = [](const char* name, const char* callee) {
    PlanGraph g;
    g.name = name;
    g.params = {"a"};
    g.body.push_back(PlanStmt{SubmitGraphStmt{callee, {PlanArg::tensor(PlanTag::Inout, PlanWindow{"a", {}, {}})}}, {}});
    return g;
  };
  OrchProgram p;
  p.graphs = {graph("f", "g"), graph("g", "g")};
  ASSERT_TRUE(validate_plan(p).has_value());
  EXPECT_EQ(validate_plan(p)->message, "graph 'g' used before its definition");
  OrchProgram ok;  // control: the other order
  ok.graphs = {graph("g", "g"), graph("f", "g")};
  EXPECT_FALSE(validate_plan(ok).has_value());
  PlanParseResult back = parse_plan(print_plan(ok));
  ASSERT_TRUE(back.ok()) << back.error().to_string();
  EXPECT_EQ(back.program(), ok);
}

// RUNTIME.md §17: a config value outside its field's range is an error at its KEY=INT, not
// a status; the ranges are plan/config_ranges.h's.
TEST(PlanParser, config_values_are_checked_where_written) {
  const std::pair<const char*, const char*> refused[] = {
      {"config W=-1\n", "1:8: config W=-1 is not a power of two in [4, 2^19]"},
      {"config W=64 task_heap=0\n", "1:13: config task_heap=0 is not in [1024, 2^40]"},
      {"config W=48\n", "1:8: config W=48 is not a power of two in [4, 2^19]"},
      {"config W=1048576\n", "1:8: config W=1048576 is not a power of two in [4, 2^19]"},
      {"config graph_heap=63\n", "1:8: config graph_heap=63 is not in [64, 2^40]"},
      {"config ready_capacity=-3\n", "1:8: config ready_capacity=-3 is not in [0, 2^32]"},
      {"config tensormap_capacity=0\n", "1:8: config tensormap_capacity=0 is not in [1, 2^32]"},
      {"config scope_tasks_capacity=4294967297\n", "1:8: config scope_tasks_capacity=4294967297 is not in [0, 2^32]"},
      {"config workers=0\n", "1:8: config workers=0 is not in [1, 256]"},
      {"config workers=257\n", "1:8: config workers=257 is not in [1, 256]"},
      {"config progress_timeout_ms=0\n", "1:8: config progress_timeout_ms=0 is not in [1, 2^32]"},
      {"config clusters=-24\n", "1:8: config clusters=-24 is not in [1, 65536]"},
      {"config fill_byte=256\n", "1:8: config fill_byte=256 is not in [0, 255]"},
      {"config W=-9223372036854775808\n", "1:8: config W=-9223372036854775808 is not a power of two in [4, 2^19]"},
  };
  for (const auto& [text, want] : refused) EXPECT_EQ(error_of(text), want) << text;
  // Controls: every bound itself, and the zeros that mean "derived".
  EXPECT_EQ(error_of("config W=4 task_heap=1024 graph_heap=64 ready_capacity=0 tensormap_capacity=1 "
                     "scope_tasks_capacity=0 workers=1 progress_timeout_ms=1 clusters=1 fill_byte=0\n"),
            "ok");
  EXPECT_EQ(error_of("config W=524288 task_heap=1099511627776 graph_heap=1099511627776 ready_capacity=4294967296 "
                     "tensormap_capacity=4294967296 scope_tasks_capacity=4294967296 workers=256 "
                     "progress_timeout_ms=4294967296 clusters=65536 fill_byte=255\n"),
            "ok");
  // The table covers every key the config knows.
  for (std::string_view key : config_keys()) EXPECT_NE(config_range(key), nullptr) << key;
  EXPECT_EQ(config_ranges().size(), config_keys().size());
}

}  // namespace
}  // namespace stackcheck::runtime
