// The plan interpreter (host orchestrator): statements mapped onto the orchestrator API,
// orchestration arithmetic, host reads, and the budget.
#include "stack/runtime/host/interpreter.h"

#include <gtest/gtest.h>

#include <cstring>
#include <memory>

#include "stack/runtime/host/test_support.h"
#include "stack/runtime/plan/parser.h"

namespace stackcheck::runtime {
namespace {

// A plan run on the shared orchestrator fixture (W 64), its entry tensors at the fixture's
// fake device addresses, with host copies `host_values` (zeros where not given).
struct PlanRun : testing::OrchestratorFixture {
  explicit PlanRun(std::string_view text, std::vector<std::vector<int32_t>> host_values = {},
                   uint64_t budget = 1'000'000)
      : OrchestratorFixture(testing::OrchestratorOptions{64}), program(testing::parse_or_fail(text)) {
    host = std::move(host_values);
    host.resize(program.tensors.size());
    std::vector<EntryView> views;
    for (size_t i = 0; i < program.tensors.size(); ++i) {
      const EntryTensor& t = program.tensors[i];
      host[i].resize(Shape::of(t.shape).elements());
      views.push_back(EntryView{t.name, entry(i, Shape::of(t.shape)), host[i], t.inout});
    }
    result = run_plan(program, *orch, views, budget);
  }
  TensorArg tensor(uint64_t k) const { return tensor_arg(k); }
  std::vector<int32_t> kernels() const {
    std::vector<int32_t> out;
    for (const TaskRecord& t : orch->task_log()) out.push_back(t.kernel_id);
    return out;
  }

  OrchProgram program;
  std::vector<std::vector<int32_t>> host;
  InterpretResult result;
};

TEST(PlanInterpreter, loops_views_and_branches) {
  PlanRun r(R"(tensor x: In [4, 8]
alloc acc: [2, 4]
for i = 3, -1, -2 {
  set o = i * 2 - 2
  view v = x[i - 1:2, o:4]
  if i > 2 {
    submit acc(input v, inout acc)
  } else {
    submit copy(no_dep v, output_existing acc)
  }
}
)");
  ASSERT_EQ(r.result.outcome, InterpretResult::Outcome::kCompleted) << r.result.detail;
  ASSERT_FALSE(r.orch->latched()) << r.orch->error_detail();
  EXPECT_EQ(r.kernels(), (std::vector<int32_t>{7, 3, 1}));  // i = 3, then i = 1
  // i = 3: x[2:2, 4:4] -> element offset 2*8+4; i = 1: x[0:2, 0:4].
  EXPECT_EQ(r.tensor(1).offset_bytes, (2 * 8 + 4) * 4u);
  EXPECT_EQ(r.tensor(1).shape[0], 2);
  EXPECT_EQ(r.tensor(1).shape[1], 4);
  EXPECT_EQ(r.tensor(1).stride[0], 8);
  EXPECT_EQ(r.tensor(3).offset_bytes, 0u);
  EXPECT_EQ(r.tensor(3).tag, kTagNoDep);
  EXPECT_EQ(r.tensor(4).tag, kTagOutputExisting);
  // alloc, for (its first iteration), 4 statements, the second iteration, 4 statements.
  EXPECT_EQ(r.result.statements, 2u + 4 + 1 + 4);
}

TEST(PlanInterpreter, read_takes_the_host_copy) {
  PlanRun r(
      "tensor x: In [2, 3]\nview w = x[1:1, 1:2]\nread a = w[0, 1]\nread b = x[0, 0]\n"
      "submit fill(output o: [4], scalar a * 1000 + b)\n",
      {{7, 0, 0, 0, 0, -5}});
  ASSERT_FALSE(r.orch->latched()) << r.orch->error_detail();
  EXPECT_EQ(static_cast<int64_t>(r.scalar(0)), -5 * 1000 + 7);  // i32 elements sign-extend
}

TEST(PlanInterpreter, read_outside_latches_5) {
  PlanRun r("tensor x: In [4]\nview w = x[2:2]\nread a = w[2]\n");
  EXPECT_EQ(r.orch->error(), 5);
  PlanRun ok("tensor x: In [4]\nview w = x[2:2]\nread a = w[1]\n");
  EXPECT_FALSE(ok.orch->latched());
}

TEST(Orchestrator, orch_arith_zero_5) {
  for (const char* text : {"set a = 7\nset b = a / (a - 7)\n", "set b = 5 % 0\n", "for i = 0, 3, 0 {\n}\n",
                           "set s = 0\nfor i = 0, 3, s {\n}\n", "tensor x: In [8]\nset z = 0\nview v = x[1 / z:2]\n"}) {
    PlanRun r(text);
    EXPECT_EQ(r.orch->error(), 5) << text;
    EXPECT_EQ(r.result.outcome, InterpretResult::Outcome::kCompleted);
  }
  // Controls: INT64_MIN / -1 wraps, floor semantics; nothing latches.
  PlanRun ok(
      "set m = -9223372036854775808 / -1\nset q = -7 / 2\nset r = -7 % 2\nif m == -9223372036854775808 {\n"
      "  submit fill(output o: [1], scalar q * 10 + r)\n}\n");
  EXPECT_FALSE(ok.orch->latched()) << ok.orch->error_detail();
  EXPECT_EQ(static_cast<int64_t>(ok.scalar(0)), -4 * 10 + 1);
}

TEST(PlanInterpreter, stops_at_the_first_latch) {
  PlanRun r("fatal\nset a = 1 / 0\nsubmit fill(output o: [4], scalar 1)\n");
  EXPECT_EQ(r.orch->error(), 9);
  EXPECT_EQ(r.result.statements, 1u);
  EXPECT_EQ(r.orch->submitted(), 0u);
}

TEST(PlanInterpreter, budget_bounds_every_loop) {
  PlanRun r("for i = 0, 9223372036854775807, 1 {\n  for j = 0, 9223372036854775807, 1 {\n  }\n}\n", {}, 5000);
  EXPECT_EQ(r.result.outcome, InterpretResult::Outcome::kBudgetExhausted);
  EXPECT_EQ(r.result.statements, 5001u);
}

TEST(PlanInterpreter, submit_graph_records_then_replays) {
  PlanRun r(
      "tensor x: In [16]\ntensor c: InOut [8]\ngraph g(a, b) {\n  set o = $0 * 2\n  view v = a[o:8]\n"
      "  submit scale(input v, output_existing b, scalar $0)\n  submit acc(input v, inout b)\n}\n"
      "for i = 0, 3, 1 {\n  submit_graph g(input x, inout c, scalar i + 1)\n}\n");
  ASSERT_EQ(r.result.outcome, InterpretResult::Outcome::kCompleted);
  ASSERT_FALSE(r.orch->latched()) << r.orch->error_detail();
  EXPECT_EQ(r.kernels(), (std::vector<int32_t>{-1, -1, -1}));
  EXPECT_EQ(r.result.statements, 3u + 3u * 1 + 4u);  // for + 3 submit_graph, one recording of 4
  ASSERT_EQ(r.orch->graph_cache().size(), 1u);
  const auto& subs = r.orch->graph_submissions();
  ASSERT_EQ(subs.size(), 3u);
  EXPECT_EQ(subs[2].slots, std::vector<uint64_t>{3});
  // `scalar $0` is SLOT 0; the view offset from $0 was frozen at the first value (1 * 2).
  const GraphDefinition& d = r.orch->graph_cache().at(0);
  GraphScalarArgDef s{};
  std::memcpy(&s, d.bytes.data() + d.header.scalar_args_off, sizeof s);
  EXPECT_EQ(s.source, kScalarSlot);
  GraphTensorArgDef t{};
  std::memcpy(&t, d.bytes.data() + d.header.tensor_args_off, sizeof t);
  EXPECT_EQ(t.offset_bytes, 8u);
}

TEST(PlanInterpreter, graph_body_budget_records_nothing) {
  PlanRun r(
      "tensor c: InOut [8]\ngraph g(a) {\n  submit fill(output_existing a, scalar 1)\n"
      "  for i = 0, 9223372036854775807, 1 {\n  }\n}\nsubmit_graph g(inout c)\nfatal\n",
      {}, 1000);
  EXPECT_EQ(r.result.outcome, InterpretResult::Outcome::kBudgetExhausted);
  EXPECT_EQ(r.orch->submitted(), 0u);
  EXPECT_EQ(r.orch->graph_cache().size(), 0u);  // cancelled: no half recording is cached
  EXPECT_FALSE(r.orch->latched());
}

TEST(PlanInterpreter, submit_graph_arity_and_tags_5) {
  for (const char* call : {"submit_graph g(inout c, inout c)", "submit_graph g(output_existing c)",
                           "submit_graph g(no_dep c)", "submit_graph g(output o: [8])"}) {
    SCOPED_TRACE(call);
    PlanRun r(std::string("tensor c: InOut [8]\ngraph g(a) {\n  submit fill(output_existing a, scalar 1)\n}\n") + call +
              "\n");
    EXPECT_EQ(r.orch->error(), 5) << r.orch->error_detail();
  }
  PlanRun ok(
      "tensor c: InOut [8]\ngraph g(a) {\n  submit fill(output_existing a, scalar 1)\n}\nsubmit_graph g(inout c)\n");
  EXPECT_EQ(ok.orch->error(), 0);
  EXPECT_EQ(ok.orch->submitted(), 1u);
}

}  // namespace
}  // namespace stackcheck::runtime
