// The bind-plan generator on the byte engine: every byte string decodes to a plan that
// validate_plan accepts and that prints and parses back to itself; clean plans bind with
// status 0 (or a resource latch of their own small config), and the device agrees with the
// plan model.
#include "properties/gen/plan_gen.h"

#include <gtest/gtest.h>

#include <map>

#include "properties/oracles/plan_model.h"
#include "stack/runtime/host/bind.h"
#include "stack/runtime/plan/check.h"
#include "stack/runtime/plan/parser.h"
#include "stack/runtime/plan/printer.h"
#include "stack/runtime/status/codes.h"
#include "stack/support/splitmix.h"

namespace stackcheck::gen {
namespace {

std::vector<uint8_t> random_bytes(support::SplitMix64& rng, size_t max) {
  std::vector<uint8_t> b(rng.next() % max);
  for (uint8_t& x : b) x = static_cast<uint8_t>(rng.next());
  return b;
}

TEST(PlanGenBytes, random_bytes_decode_to_valid_plans_that_round_trip) {
  support::SplitMix64 rng(7);
  for (int round = 0; round < 300; ++round) {
    const std::vector<uint8_t> bytes = random_bytes(rng, 2048);
    ByteChoices c(bytes);
    PlanKnobs knobs;
    knobs.planted_percent = 30;
    const GeneratedPlan g = generate_plan(c, knobs);
    const std::string text = runtime::print_plan(g.plan);
    if (auto err = runtime::validate_plan(g.plan))
      FAIL() << "round " << round << ": " << err->to_string() << "\n" << text;
    runtime::PlanParseResult back = runtime::parse_plan(text);
    ASSERT_TRUE(back.ok()) << back.error().to_string() << "\n" << text;
    ASSERT_TRUE(back.program() == g.plan) << text;
  }
}

// PlanKnobs::min_submissions: each graph's submit_graphs (the body's, wherever they sit, and
// the root-level ones the generator adds) number at least that many, from any input.
int submissions_of(const runtime::PlanBlock& b, const std::string& graph) {
  int n = 0;
  for (const runtime::PlanStmt& st : b) {
    if (const auto* sg = std::get_if<runtime::SubmitGraphStmt>(&st.node)) n += sg->graph == graph;
    if (const auto* f = std::get_if<runtime::ForStmt>(&st.node)) n += submissions_of(f->body, graph);
    if (const auto* i = std::get_if<runtime::IfStmt>(&st.node))
      n += submissions_of(i->then_body, graph) + submissions_of(i->else_body, graph);
  }
  return n;
}

TEST(PlanGenBytes, min_submissions_gives_each_graph_that_many) {
  support::SplitMix64 rng(11);
  for (int round = 0; round < 50; ++round) {
    const std::vector<uint8_t> bytes = round == 0 ? std::vector<uint8_t>{} : random_bytes(rng, 1024);
    for (int want : {1, 3}) {
      ByteChoices c(bytes);
      PlanKnobs knobs;
      knobs.min_graphs = 1;
      knobs.min_submissions = want;
      const GeneratedPlan g = generate_plan(c, knobs);
      ASSERT_FALSE(g.plan.graphs.empty());
      for (const runtime::PlanGraph& graph : g.plan.graphs) {
        if (graph.name != "unused_g") {  // the one definition a plan may leave unsubmitted on purpose
          EXPECT_GE(submissions_of(g.plan.body, graph.name), want) << runtime::print_plan(g.plan);
        }
      }
      if (round == 0) {  // choice 0: just those
        EXPECT_EQ(submissions_of(g.plan.body, g.plan.graphs[0].name), want);
      }
    }
  }
}

TEST(PlanGenBytes, clean_plans_bind_and_match_the_plan_model) {
  support::SplitMix64 rng(11);
  std::map<int, int> statuses;
  for (int round = 0; round < 200; ++round) {
    const std::vector<uint8_t> bytes = random_bytes(rng, 2048);
    ByteChoices c(bytes);
    const GeneratedPlan g = generate_plan(c);
    runtime::BindOptions opts;
    opts.schedule.mode = runtime::ScheduleOptions::Mode::kNewest;
    const runtime::BindResult r = runtime::bind_plan(g.plan, opts);
    ++statuses[r.status];
    if (r.status != 0) {
      EXPECT_TRUE(runtime::is_resource_latch_status(r.status)) << runtime::status_line(r) << " " << r.detail << "\n"
                                                               << runtime::print_plan(g.plan);
      continue;
    }
    const oracles::Verdict v = oracles::check_plan_model(g.plan, opts.seed, r);
    EXPECT_TRUE(v.passed()) << v.to_string() << "\n" << runtime::print_plan(g.plan);
  }
  EXPECT_GE(statuses[0], 150) << "clean plans should mostly bind";
}

}  // namespace
}  // namespace stackcheck::gen
