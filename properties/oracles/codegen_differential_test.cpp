// Codegen semantics: for legal programs, the generated plan run by the plan model
// (plan_model.h: sequential record/replay, no runtime) reproduces the reference
// interpreter's entry tensors byte for byte, over several seeds. The positive controls show
// the comparison fails on a broken plan and on a graph whose view offset is frozen at
// recording (what LegalizeGraphBoundary exists to prevent). It lives under properties/
// because the plan model does.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "properties/oracles/plan_model.h"
#include "stack/codegen/codegen.h"
#include "stack/codegen/codegen_test_util.h"
#include "stack/interp/interp.h"

namespace stackcheck::codegen {
namespace {

using testing::main_of;
using testing::program_of;

// "" when the plan reproduces the interpreter on `seed`, else what differs.
std::string compare(const ir::Program& original, const CodegenResult& cg, uint64_t seed) {
  const interp::Result expected = interp::run(original, seed);
  if (!expected.ok()) return "interp: " + expected.error().render();
  const oracles::PlanModelResult got = oracles::run_plan_model(cg.program, seed);
  if (!got.ok()) return "plan: " + *got.error;
  const auto& want = expected.outputs().tensors;
  if (want.size() != got.entries.size() || cg.entry_names.size() != want.size()) return "tensor count differs";
  for (size_t i = 0; i < want.size(); ++i) {
    if (want[i].name != cg.entry_names[i]) return "entry name " + want[i].name + " vs " + cg.entry_names[i];
    if (want[i].bytes != got.entries[i].bytes) return "bytes of entry tensor " + want[i].name + " differ";
  }
  return "";
}

void expect_same_as_interp(const std::string& gir, const passes::PipelineOptions& options = {}) {
  const ir::Program original = testing::parse_gir(gir);
  passes::PassManager pm = passes::default_pipeline(options);
  const passes::PipelineResult legal = pm.run(original);
  ASSERT_TRUE(legal.ok()) << legal.message;
  const CodegenResult cg = generate_orchestration(legal.program);
  ASSERT_TRUE(cg.ok) << (cg.diagnostics.empty() ? "" : cg.diagnostics.front().render(""));
  testing::expect_plan_round_trips(cg.program);
  for (uint64_t seed = 0; seed < 6; ++seed)
    EXPECT_EQ(compare(original, cg, seed), "") << "seed " << seed << "\n" << gir;
}

constexpr const char* kExample = testing::kSection1Example;

TEST(CodegenDifferential, legalized_example) { expect_same_as_interp(kExample); }

TEST(CodegenDifferential, legalized_example_without_step_c) {
  passes::PipelineOptions o;
  o.graph_boundary.step_c = false;  // the create stays in the graph: an internal alloc per replay
  expect_same_as_interp(kExample, o);
}

TEST(CodegenDifferential, entry_only) {
  expect_same_as_interp(main_of(std::string(testing::kAllTagsBody) + R"(  f = full [8], -3
  c2 = call kacc(f, c)
  u = slice(x, [2], [4])
  c3 = assemble(c2, u, [4])
  c4 = call ksc(c3, c, 7)
)"));
  expect_same_as_interp(main_of(R"(  n = read(x, [0])
  w = slice(x, [4], [4])
  for i in range(0, n % 3 + 1, 1) {
    t = create [8]
    if read(w, [i]) % 2 > 0 {
      t1 = call ksc(x, t, i + 1)
    } else {
      t2 = call kacc(x, t)
    }
    c1 = call kacc(t, c)
    o = create [8]
    o1 = call ksc(c, o, n)
    c2 = call kacc(o1, c)
  }
)"));
}

TEST(CodegenDifferential, graphs) {
  // Internal loop with an invariant view and a fresh create; a slot scalar; derived scalar
  // and a view hoisted to the call site; a graph returning its params out of order.
  const std::string graphs = R"(graph h(x: In tensor<i32>[8], c: InOut tensor<i32>[8], n: In i64) -> (tensor<i32>[8]) {
  s = n * 2 + 1
  for j in range(0, 2, 1) {
    o = j * 4
    v = slice(c, [o], [4])
    w = slice(x, [4 - o], [4])
    v1 = call kacc4(w, v)
    t = create [8]
    t1 = call ksc(x, t, j + 5)
    c1 = call kacc(t1, c)
  }
  c2 = call ksc(c, c, s)
  return c
}
graph q(b: InOut tensor<i32>[8], d: InOut tensor<i32>[8], m: In i64) -> (tensor<i32>[8], tensor<i32>[8]) {
  b1 = call kacc(d, b)
  d1 = call ksc(b1, d, m)
  return d1, b1
}
)";
  expect_same_as_interp(program_of(graphs, R"(  t = create [8]
  t1 = call kacc(x, t)
  for i in range(0, 3, 1) {
    call h(x, c, i)
    r = submit q(c, t1, i - 1)
    a = r.0
    b = r.1
    b2 = call kacc(a, b)
  }
  if read(x, [3]) > 0 {
    call h(x, t1, 9)
  }
)"));
}

TEST(CodegenDifferential, corpus_programs) {
  const std::filesystem::path dir =
      std::filesystem::path(STACKCHECK_CORPUS_DIR) / "programs";
  int seen = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".gir") continue;
    SCOPED_TRACE(entry.path().filename().string());
    std::ifstream in(entry.path(), std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    expect_same_as_interp(text.str());
    ++seen;
  }
  EXPECT_GE(seen, 2);
}

// Positive control 1: dropping a launch from a correct plan is seen.
TEST(CodegenDifferential, control_broken_plan_detected) {
  const ir::Program original = testing::parse_gir(kExample);
  passes::PassManager pm = passes::default_pipeline();
  CodegenResult cg = generate_orchestration(pm.run(original).program);
  ASSERT_TRUE(cg.ok);
  ASSERT_EQ(compare(original, cg, 0), "");
  cg.program.graphs.at(0).body.pop_back();
  EXPECT_NE(compare(original, cg, 0), "");
}

// Positive control 2: codegen straight from the unlegalized §1 example (legal for
// WellFormed, not for GraphBoundaryLegalized) freezes `n * 8` at recording, so the second
// replay reads x[0:8] instead of x[8:16]; the executor's record/replay model shows it.
TEST(CodegenDifferential, control_frozen_offset_detected) {
  const ir::Program original = testing::parse_gir(kExample);
  const CodegenResult cg = generate_orchestration(original);
  ASSERT_TRUE(cg.ok);
  EXPECT_NE(runtime::print_plan(cg.program).find("set s0 = $0 * 8"), std::string::npos);
  EXPECT_EQ(compare(original, cg, 0), "bytes of entry tensor c differ");
}

}  // namespace
}  // namespace stackcheck::codegen
