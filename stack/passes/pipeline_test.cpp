// The pipeline's one definition (passes/pipeline.h): its stages in order, each factory
// making the pass of its name with the pipeline's options, the name list used by messages,
// and the default pipeline on COMPILER.md §1's example end to end.
#include "stack/passes/pipeline.h"

#include "stack/passes/golden_test_util.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace stackcheck::passes {
namespace {

using testing::canonical;
using testing::parse_or_fail;

TEST(Pipeline, stages_in_order_each_making_its_pass) {
  std::vector<std::string> names;
  for (const PipelineStage& s : pipeline_stages()) {
    names.emplace_back(s.name);
    const std::unique_ptr<Pass> pass = s.make({});
    ASSERT_NE(pass, nullptr) << s.name;
    EXPECT_EQ(pass->name(), s.name);
    EXPECT_EQ(find_stage(s.name), &s);
  }
  EXPECT_EQ(names, (std::vector<std::string>{"Simplify", "NormalizeReturnOrder", "LegalizeGraphBoundary"}));
  EXPECT_EQ(pipeline_stage_names(), "Simplify, NormalizeReturnOrder, LegalizeGraphBoundary");
  EXPECT_EQ(find_stage("OrchestrationCodegen"), nullptr);
  EXPECT_EQ(find_stage(""), nullptr);
}

TEST(Pipeline, options_reach_their_stage) {
  PipelineOptions o;
  o.graph_boundary.step_c = false;
  const PassManager pm = default_pipeline(o);
  ASSERT_EQ(pm.passes().size(), pipeline_stages().size());
  for (size_t i = 0; i < pm.passes().size(); ++i) EXPECT_EQ(pm.passes()[i]->name(), pipeline_stages()[i].name);
  const LegalizeGraphBoundary* legalize = find_pass<LegalizeGraphBoundary>(pm);
  ASSERT_NE(legalize, nullptr);
  EXPECT_FALSE(legalize->options().step_c);
  EXPECT_TRUE(find_pass<LegalizeGraphBoundary>(default_pipeline())->options().step_c);
  EXPECT_EQ(find_pass<LegalizeGraphBoundary>(PassManager{}), nullptr);
  // Without Step C the example's depth-0 create stays in g.
  const PipelineResult r = default_pipeline(o).run(parse_or_fail(ir::testing::kSection1Example));
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_NE(ir::print_program(r.program).find("t = create [8]"), std::string::npos);
}

TEST(Pipeline, default_pipeline_on_the_section_1_example) {
  std::string log;
  PassManagerOptions o;
  o.print_after_all = true;
  o.sink = string_sink(log);
  PassManager pm = default_pipeline({}, o);
  const ir::Program in = parse_or_fail(ir::testing::kSection1Example);
  PipelineResult r = pm.run(in);
  ASSERT_TRUE(r.ok()) << r.message << "\n" << testing::diagnostics_text(r.diagnostics);
  EXPECT_EQ(r.passes_run, (std::vector<std::string>{"Simplify", "NormalizeReturnOrder", "LegalizeGraphBoundary"}));
  EXPECT_EQ(r.held, PropertySet{kWellFormed | kReturnParamsExplicit | kGraphBoundaryLegalized});
  EXPECT_EQ(r.unverified, PropertySet{0});  // every property has its verifier wired
  EXPECT_NE(log.find("# after LegalizeGraphBoundary\n"), std::string::npos);
  // The COMPILER.md §5.3 result of this example.
  EXPECT_EQ(ir::print_program(r.program), canonical(ir::testing::kSection1Legalized));
  testing::expect_same_meaning(in, r.program);
}

}  // namespace
}  // namespace stackcheck::passes
