// The codegen layout oracle (codegen_layout.h): codegen's plans of COMPILER.md §6's cases and
// of programs built to put each part of the fresh-create rule on its edge pass it; plans with
// one planted layout fault (the positive controls) fail it.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "properties/oracles/codegen_layout.h"
#include "stack/codegen/codegen.h"
#include "stack/codegen/codegen_test_util.h"
#include "stack/runtime/plan/printer.h"

namespace stackcheck::oracles {
namespace {

using codegen::testing::main_of;
using codegen::testing::program_of;

struct Compiled {
  ir::Program legal;
  runtime::OrchProgram plan;
};

Compiled compile(const std::string& gir) {
  Compiled c;
  c.legal = codegen::testing::legalize(gir);
  codegen::CodegenResult r = codegen::generate_orchestration(c.legal);
  EXPECT_TRUE(r.ok) << gir;
  c.plan = std::move(r.program);
  return c;
}

void expect_layout(const std::string& gir) {
  const Compiled c = compile(gir);
  const Verdict v = check_codegen_layout(c.legal, c.plan);
  EXPECT_TRUE(v.passed()) << v.to_string() << "\n" << gir << "\n" << runtime::print_plan(c.plan);
}

// The control's verdict: a fail of the layout rule whose message holds `why`.
void expect_fault(const Compiled& c, const std::string& why) {
  const Verdict v = check_codegen_layout(c.legal, c.plan);
  EXPECT_TRUE(v.failed()) << runtime::print_plan(c.plan);
  EXPECT_EQ(v.rule, "codegen-layout");
  EXPECT_NE(v.message.find(why), std::string::npos) << v.message;
}

runtime::PlanBlock& entry_list(Compiled& c) { return c.plan.body; }

template <class T>
T* find_stmt(runtime::PlanBlock& b) {
  for (runtime::PlanStmt& s : b)
    if (T* t = std::get_if<T>(&s.node)) return t;
  return nullptr;
}

TEST(CodegenLayout, the_specs_cases_pass) {
  expect_layout(codegen::testing::kSection1Example);
  expect_layout(main_of("  o = create [8]\n  o1 = call ksc(x, o, 3)\n"));  // §6 `tags`
  expect_layout(main_of(codegen::testing::kAllTagsBody));
  std::string batches;  // §6 `batches`: 20 creates first used as InOut, 21 launches
  for (int i = 0; i < 20; ++i) batches += fmt::format("  b{} = create [8]\n", i);
  for (int i = 0; i < 20; ++i) batches += fmt::format("  w{} = call kacc(x, b{})\n", i, i);
  expect_layout(main_of(batches + "  w = call kacc(x, c)\n"));
}

TEST(CodegenLayout, the_fresh_rule_on_its_edges) {
  // First used in a nested block, by a view, in a `dim` (no use), twice in one launch, as InOut, by
  // an extra param, after a `dim` (no use), in an if's branches, under a loop.
  expect_layout(main_of("  o = create [8]\n  for i in range(0, 2, 1) {\n    o1 = call ksc(x, o, i)\n  }\n"));
  expect_layout(main_of("  o = create [8]\n  v = slice(o, [0], [4])\n  o1 = call ksc(x, o, 1)\n"));
  expect_layout(main_of("  o = create [8]\n  o1 = call ksc(x, o, dim(o, 0))\n"));
  expect_layout(main_of("  o = create [8]\n  o1 = call ksc(o, o, 1)\n"));
  expect_layout(main_of("  o = create [8]\n  o1 = call kacc(x, o)\n"));
  expect_layout(main_of("  o = create [8]\n  r = call k2(x, c, o)\n"));
  expect_layout(main_of("  o = create [8]\n  n = dim(o, 0)\n  o1 = call ksc(x, o, n)\n"));
  expect_layout(main_of("  o = create [8]\n  u = create [8]\n  r = call k2(x, o, u)\n  o1 = call ksc(x, u, 2)\n"));
  expect_layout(main_of("  if 1 < 2 {\n    o = create [8]\n    o1 = call ksc(x, o, 3)\n  } else {\n"
                        "    f = full [8], 7\n    g1 = call kacc(f, c)\n  }\n"));
  expect_layout(main_of("  for i in range(0, 3, 1) {\n    o = create [8]\n    p = create [8]\n"
                        "    o1 = call ksc(x, o, i)\n    p1 = call kacc(o1, p)\n    q = assemble(c, p1, [0])\n  }\n"));
}

TEST(CodegenLayout, graph_names_that_are_plan_keywords_take_a_suffix) {
  const std::string graph = "graph view(x: In tensor<i32>[8], c: InOut tensor<i32>[8]) -> (tensor<i32>[8]) {\n"
                            "  c1 = call kacc(x, c)\n  return c1\n}\n";
  expect_layout(program_of(graph, "  call view(x, c)\n"));
  const std::string taken = "graph view_g(x: In tensor<i32>[8], c: InOut tensor<i32>[8]) -> (tensor<i32>[8]) {\n"
                            "  c1 = call kacc(x, c)\n  return c1\n}\n";
  expect_layout(program_of(taken + graph, "  call view(x, c)\n  call view_g(x, c)\n"));
}

TEST(CodegenLayout, corpus_programs_pass) {
  size_t n = 0;
  for (const auto& entry : std::filesystem::directory_iterator(STACKCHECK_CORPUS_DIR "/programs")) {
    std::ifstream in(entry.path(), std::ios::binary);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    SCOPED_TRACE(entry.path().string());
    expect_layout(text);
    ++n;
  }
  EXPECT_GE(n, 2u);
}

// ---- positive controls: one planted fault each ----

TEST(CodegenLayout, control_a_fresh_create_allocated) {
  Compiled c = compile(main_of("  o = create [8]\n  o1 = call ksc(x, o, 3)\n"));
  auto* sub = find_stmt<runtime::SubmitStmt>(entry_list(c));
  ASSERT_NE(sub, nullptr);
  ASSERT_EQ(sub->args[1].tag, runtime::PlanTag::Output);
  const std::string reg = sub->args[1].out_name;
  sub->args[1] = runtime::PlanArg::tensor(runtime::PlanTag::OutputExisting, runtime::PlanWindow{reg, {}, {}});
  runtime::AllocStmt a;
  a.buffers.push_back(runtime::PlanBuffer{reg, {8}});
  entry_list(c).insert(entry_list(c).begin() + 1, runtime::PlanStmt{a, runtime::PlanLoc{2, 3}});
  expect_fault(c, "an alloc 'alloc t2: [8]' past the list's opening allocs");  // the alloc is there...
  entry_list(c).erase(entry_list(c).begin() + 1);
  expect_fault(c, "predicted submit scale(input, output, scalar)");  // ... and the tag without it
}

TEST(CodegenLayout, control_an_allocated_create_made_fresh) {
  Compiled c = compile(main_of("  o = create [8]\n  o1 = call kacc(x, o)\n"));
  entry_list(c).erase(entry_list(c).begin() + 1);  // the alloc of o
  expect_fault(c, "predicted an alloc of 1 buffers");
}

TEST(CodegenLayout, control_allocs_batched_otherwise) {
  std::string body;
  for (int i = 0; i < 18; ++i) body += fmt::format("  b{} = create [8]\n", i);
  for (int i = 0; i < 18; ++i) body += fmt::format("  w{} = call kacc(x, b{})\n", i, i);
  Compiled c = compile(main_of(body));
  auto& first = std::get<runtime::AllocStmt>(entry_list(c)[1].node);
  auto& second = std::get<runtime::AllocStmt>(entry_list(c)[2].node);
  second.buffers.insert(second.buffers.begin(), first.buffers.back());  // 15 + 3
  first.buffers.pop_back();
  expect_fault(c, "predicted an alloc of 16 buffers");
}

TEST(CodegenLayout, control_a_statement_located_elsewhere) {
  Compiled c = compile(main_of("  for i in range(0, 2, 1) {\n    l = call kacc(x, c)\n  }\n"));
  auto* loop = find_stmt<runtime::ForStmt>(entry_list(c));
  ASSERT_NE(loop, nullptr);
  runtime::PlanStmt& launch = loop->body[1];
  launch.loc.line += 1;
  expect_fault(c, "is located at");
}

TEST(CodegenLayout, control_a_tag_or_graph_name_off) {
  Compiled c = compile(main_of("  o = create [8]\n  o1 = call ksc(x, o, 3)\n  l = call kacc(o1, c)\n"));
  runtime::PlanBlock& b = entry_list(c);
  std::get<runtime::SubmitStmt>(b[b.size() - 2].node).args[1].tag = runtime::PlanTag::OutputExisting;  // kacc's inout
  expect_fault(c, "predicted submit acc(input, inout)");
  Compiled g = compile(codegen::testing::kSection1Example);
  g.plan.graphs[0].name = "g_g";
  expect_fault(g, "a .plan name must be kept");
}

TEST(CodegenLayout, control_a_keyword_graph_renamed_onto_a_function) {
  const std::string graph = "graph view(x: In tensor<i32>[8], c: InOut tensor<i32>[8]) -> (tensor<i32>[8]) {\n"
                            "  c1 = call kacc(x, c)\n  return c1\n}\n";
  Compiled c = compile(program_of(graph, "  call view(x, c)\n"));
  ASSERT_EQ(c.plan.graphs.size(), 1u);
  EXPECT_EQ(c.plan.graphs[0].name.rfind("view", 0), 0u);
  c.plan.graphs[0].name = "kacc";  // an IR kernel's name, and not an extension of `view`
  expect_fault(c, "a keyword's new name must be a .plan name that extends it");
  c.plan.graphs[0].name = "view_kacc";
  expect_fault(c, "predicted submit_graph view_kacc");  // the submit_graph still names the old one
}

}  // namespace
}  // namespace stackcheck::oracles
