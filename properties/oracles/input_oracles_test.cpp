// The input oracles (input_oracles.h) on the shared corpus and on hand-made inputs, with a
// positive control each where the stack itself cannot fail them (the defect zoo is the rest),
// and their replay through counterexample files.
#include "properties/oracles/input_oracles.h"
#include "properties/oracles/image_mutation.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <limits>

#include "properties/oracles/compiler_oracles.h"
#include "properties/oracles/replay.h"
#include "stack/passes/pipeline.h"
#include "stack/ir/testing.h"
#include "stack/runtime/host/test_support.h"

namespace stackcheck::oracles {
namespace {

std::string read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

ir::Program program(const std::string& text) { return ir::testing::parse_or_fail(text); }
runtime::OrchProgram plan(const std::string& text) { return runtime::testing::parse_or_fail(text); }

const char* kFullInGraph =
    "kernel kacc(x: In tensor<i32>[8], a: InOut tensor<i32>[8]) -> (a) = builtin acc\n"
    "graph g(x: In tensor<i32>[8], c: InOut tensor<i32>[8]) -> (tensor<i32>[8]) {\n"
    "  f = full [8], 3\n  c1 = call kacc(x, c)\n  return c1\n}\n"
    "orchestration main(x: In tensor<i32>[8], c: InOut tensor<i32>[8]) {\n  call g(x, c)\n}\n";

TEST(InputOracles, boundary_and_rejection_on_programs) {
  const ir::Program example = program(read(STACKCHECK_CORPUS_DIR "/programs/example.gir"));
  EXPECT_TRUE(check_boundary(example, true).passed()) << check_boundary(example, true).to_string();
  EXPECT_TRUE(check_boundary(example, false).passed()) << check_boundary(example, false).to_string();
  const ir::Program full = program(kFullInGraph);
  EXPECT_TRUE(check_rejected(full, 206).passed()) << check_rejected(full, 206).to_string();
  // Rejected, but not with the code asked for; accepted: both fail.
  EXPECT_TRUE(check_rejected(full, 211).failed());
  EXPECT_TRUE(check_rejected(example, 206).failed());
  // A rejected program is no judgement of the boundary invariants.
  EXPECT_TRUE(check_boundary(full, true).inconclusive());
}

// Step A predicted (check_step_a_hoists): m (derivable, not invariant) and q (in an if, divided
// by a nonzero literal) are hoisted; a is an alias, k invariant. A report that drops a hoist,
// or that hoists the alias, is reported.
const char* kStepA =
    "kernel kacc(x: In tensor<i32>[8], a: InOut tensor<i32>[8]) -> (a) = builtin acc\n"
    "graph g(x: In tensor<i32>[16], c: InOut tensor<i32>[8], n: In i64) -> (tensor<i32>[8]) {\n"
    "  m = n + 1\n  a = m\n  k = 3\n"
    "  if n < 2 {\n    q = a / 2\n  }\n"
    "  v = slice(x, [(m % 2) * 8], [8])\n  c1 = call kacc(v, c)\n  return c1\n}\n"
    "orchestration main(x: In tensor<i32>[16], c: InOut tensor<i32>[8]) {\n"
    "  for i in range(0, 2, 1) {\n    call g(x, c, i)\n  }\n}\n";

TEST(InputOracles, step_a_hoists_predicted_with_control) {
  const ir::Program p = program(kStepA);
  EXPECT_TRUE(check_boundary(p, true).passed()) << check_boundary(p, true).to_string();
  const PipelineRun run = run_pipeline(p);
  ASSERT_TRUE(run.verdict.passed()) << run.verdict.to_string();
  ASSERT_GE(run.stages.size(), 2u);
  const ir::Program& input = run.stages[run.stages.size() - 2].program;
  ASSERT_TRUE(check_step_a_hoists(input, run.boundary_report).passed());
  std::vector<std::string> scalars;
  for (const auto& a : run.boundary_report.graphs.at(0).appended)
    if (a.kind == passes::HoistKind::Scalar) scalars.push_back(a.name);
  EXPECT_EQ(scalars, (std::vector<std::string>{"m", "q"}));
  passes::LegalizeGraphBoundaryReport dropped = run.boundary_report;
  auto& appended = dropped.graphs.at(0).appended;
  appended.erase(std::find_if(appended.begin(), appended.end(), [](const auto& a) { return a.name == "q"; }));
  const Verdict v = check_step_a_hoists(input, dropped);
  EXPECT_TRUE(v.failed()) << v.to_string();
  EXPECT_EQ(v.rule, "step-a");
  passes::LegalizeGraphBoundaryReport alias = run.boundary_report;
  alias.graphs.at(0).appended.push_back(passes::AppendedParam{"a", {}, passes::HoistKind::Scalar, 0, ir::Dir::In, {}});
  EXPECT_TRUE(check_step_a_hoists(input, alias).failed());
}

// The pass-contract oracle: the default pipeline's passes declare COMPILER.md's table; a pass
// under a table name declaring otherwise (LegalizeGraphBoundary invalidating WellFormed) is
// reported.
class DeclaringPass final : public passes::Pass {
 public:
  DeclaringPass(std::string_view name, passes::PropertySet req, passes::PropertySet prod, passes::PropertySet inv)
      : name_(name), req_(req), prod_(prod), inv_(inv) {}
  std::string_view name() const override { return name_; }
  passes::PropertySet required() const override { return req_; }
  passes::PropertySet produced() const override { return prod_; }
  passes::PropertySet invalidated() const override { return inv_; }
  passes::PassResult run(const ir::Program& input) override { return passes::PassResult{true, input, {}}; }

 private:
  std::string_view name_;
  passes::PropertySet req_, prod_, inv_;
};

TEST(InputOracles, pass_contracts_with_control) {
  EXPECT_TRUE(check_pass_contracts(passes::default_pipeline()).passed());
  const passes::PropertySet wf = passes::kWellFormed, rpe = passes::kReturnParamsExplicit,
                            gbl = passes::kGraphBoundaryLegalized;
  passes::PassManager right;
  right.add(std::make_unique<DeclaringPass>("LegalizeGraphBoundary", wf | rpe, gbl, 0));
  EXPECT_TRUE(check_pass_contracts(right).passed());
  passes::PassManager wrong;
  wrong.add(std::make_unique<DeclaringPass>("LegalizeGraphBoundary", wf | rpe, gbl, wf));
  const Verdict v = check_pass_contracts(wrong);
  EXPECT_TRUE(v.failed()) << v.to_string();
  EXPECT_EQ(v.rule, "pass-contract");
}

TEST(InputOracles, latch_compaction_corrupt_image_on_plans) {
  const runtime::OrchProgram deadlock = plan(read(STACKCHECK_CORPUS_DIR "/plans/fatal_01_scope_deadlock.plan"));
  EXPECT_TRUE(check_latched_plan(deadlock, 1).passed()) << check_latched_plan(deadlock, 1).to_string();
  const Verdict other = check_latched_plan(deadlock, 2);  // the first code is 1, not 2
  EXPECT_TRUE(other.failed());
  EXPECT_EQ(other.rule, "first-code");
  const runtime::OrchProgram two = plan(read(STACKCHECK_CORPUS_DIR "/plans/graph_two_submissions.plan"));
  EXPECT_TRUE(check_compaction_plan(two, std::nullopt, 1).passed()) << check_compaction_plan(two, {}, 1).to_string();
  EXPECT_TRUE(check_compaction_plan(two, 4, 1u << 20).passed());
  EXPECT_TRUE(check_latched_plan(two, 1).failed());  // a plan that completes is no latch
  EXPECT_TRUE(check_corrupt_plan(two).passed()) << check_corrupt_plan(two).to_string();
  runtime::OrchProgram corrupt = two;
  runtime::Mutation magic;  // byte 0 of the ImageHeader: its magic
  magic.offset = 0;
  magic.value = 0;
  corrupt.mutations.push_back(magic);
  EXPECT_TRUE(check_corrupt_plan(corrupt).passed()) << check_corrupt_plan(corrupt).to_string();
  // Positive control of the judgement: a DeviceFault in the runtime's own accesses.
  runtime::BindResult faulted;
  faulted.status = runtime::kStatusGeneric;
  faulted.failure = runtime::BindFailure::kDeviceFault;
  EXPECT_EQ(check_corrupt_image_run(faulted).rule, "device-fault");
  // The near-miss judgement (expect=CLASS): a clean image, or one rejected with another class,
  // fails it; the class it names passes.
  EXPECT_EQ(check_corrupt_plan(two, "BadGraphContext").rule, "near-miss-class");
  EXPECT_EQ(check_corrupt_plan(corrupt, "BadGraphContext").rule, "near-miss-class");  // BadMagic
  EXPECT_TRUE(check_corrupt_plan(corrupt, "BadMagic").passed()) << check_corrupt_plan(corrupt, "BadMagic").to_string();
  // The replay runs with strict uninitialised reads: the runtime header's image address moved
  // back into the device-only zone (never written before the scheduler runs) is refused as
  // BadLayout before a byte of it is read, not read as garbage (which would fault here).
  runtime::OrchProgram moved = two;
  runtime::Mutation back;
  back.target = runtime::MutationTarget::kRuntimeHeader;
  back.offset = offsetof(runtime::RuntimeHeader, image) + 1;  // 256-byte steps
  back.value = 0;
  moved.mutations.push_back(back);
  EXPECT_TRUE(check_corrupt_plan(moved, "BadLayout").passed()) << check_corrupt_plan(moved, "BadLayout").to_string();
  EXPECT_TRUE(check_corrupt_plan(moved).passed()) << check_corrupt_plan(moved).to_string();
}

TEST(InputOracles, offset_pairs) {
  const uint64_t two31 = uint64_t{1} << 31;
  for (auto [f, t] : {std::pair<uint64_t, uint64_t>{0, two31 - 1},
                      {0, two31},
                      {two31, 0},
                      {two31 + 1, 0},
                      {5, 5},
                      {std::numeric_limits<uint64_t>::max(), 0}})
    EXPECT_TRUE(check_offset_pair(f, t).passed()) << f << " " << t << ": " << check_offset_pair(f, t).to_string();
}

TEST(InputOracles, replayed_through_counterexample_files) {
  const std::string example = read(STACKCHECK_CORPUS_DIR "/programs/example.gir");
  const std::string two = read(STACKCHECK_CORPUS_DIR "/plans/graph_two_submissions.plan");
  const std::string deadlock = read(STACKCHECK_CORPUS_DIR "/plans/fatal_01_scope_deadlock.plan");
  const std::vector<Counterexample> passing = {
      {"boundary", example, {{"step_c", "0"}}, "", ""},
      {"rejection", kFullInGraph, {{"code", "206"}}, "", ""},
      {"latch", deadlock, {{"code", "1"}}, "", ""},
      {"compaction", two, {{"precondition", "0"}, {"by", "7"}}, "", ""},
      {"corrupt-image", two, {}, "", ""},
      {"relative-ptr", "", {{"field", "0"}, {"target", "2147483648"}}, "", ""},
      {"bind-structure", two, {}, "", ""},
  };
  for (const Counterexample& c : passing) {
    const ReplayResult r = replay_counterexample(write_counterexample(c));
    ASSERT_FALSE(r.error) << c.oracle << ": " << *r.error;
    EXPECT_EQ(r.oracle, c.oracle);
    EXPECT_TRUE(r.verdict.passed()) << c.oracle << ": " << r.verdict.to_string();
  }
  const ReplayResult wrong = replay_counterexample(write_counterexample({"latch", deadlock, {{"code", "9"}}, "", ""}));
  ASSERT_FALSE(wrong.error);
  EXPECT_TRUE(wrong.verdict.failed());
  EXPECT_TRUE(replay_counterexample("# stackcheck latch\n# replay: code=x\n").error);
}

}  // namespace
}  // namespace stackcheck::oracles
