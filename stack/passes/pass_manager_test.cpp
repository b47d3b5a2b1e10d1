// Pass manager: property tracking, the verify instrument's three verdicts (ok, input
// rejected, pass bug — each with a case that must trigger it), print-after-all, the
// verifier registry and the default pipeline.
#include "stack/passes/pass_manager.h"

#include "stack/passes/golden_test_util.h"
#include "stack/passes/normalize_return_order.h"
#include "stack/passes/simplify.h"

#include <gtest/gtest.h>

#include <string>

namespace stackcheck::passes {
namespace {

using testing::canonical;
using testing::fixture;
using testing::parse_or_fail;

// A pass made of a function, with declared properties.
class FakePass final : public Pass {
 public:
  FakePass(std::string name, PropertySet req, PropertySet prod, PropertySet inv,
           std::function<PassResult(const ir::Program&)> fn)
      : name_(std::move(name)), req_(req), prod_(prod), inv_(inv), fn_(std::move(fn)) {}
  std::string_view name() const override { return name_; }
  PropertySet required() const override { return req_; }
  PropertySet produced() const override { return prod_; }
  PropertySet invalidated() const override { return inv_; }
  PassResult run(const ir::Program& input) override { return fn_(input); }

 private:
  std::string name_;
  PropertySet req_, prod_, inv_;
  std::function<PassResult(const ir::Program&)> fn_;
};

PassResult same(const ir::Program& p) { return PassResult{true, p, {}}; }

// Makes k2's return list unsorted again (breaks ReturnParamsExplicit, keeps WellFormed).
PassResult unsort_k2(const ir::Program& p) {
  PassResult r{true, p, {}};
  for (ir::Function& f : r.program.functions) {
    if (f.name == "k2") f.kernel_returns = {"o2", "o1"};
  }
  return r;
}

// Drops the entry (breaks WellFormed 1).
PassResult drop_entry(const ir::Program& p) {
  PassResult r{true, p, {}};
  r.program.functions.pop_back();
  return r;
}

std::unique_ptr<Pass> fake(std::string name, PropertySet req, PropertySet prod, PropertySet inv,
                           std::function<PassResult(const ir::Program&)> fn) {
  return std::make_unique<FakePass>(std::move(name), req, prod, inv, std::move(fn));
}

TEST(PassManager, ok_tracks_held_properties) {
  PassManager pm;
  pm.add(fake("A", kWellFormed, 0, kGraphBoundaryLegalized, same))
      .add(fake("B", kWellFormed, kReturnParamsExplicit, 0, [](const ir::Program& p) {
        return PassResult{true, normalize_return_order(p), {}};
      }));
  PipelineResult r = pm.run(parse_or_fail(fixture("")), kGraphBoundaryLegalized);
  ASSERT_TRUE(r.ok()) << r.message;
  // GBL claimed by the caller, invalidated by A; WF verified; RPE produced by B.
  EXPECT_EQ(r.held, PropertySet{kWellFormed | kReturnParamsExplicit});
  EXPECT_EQ(r.passes_run, (std::vector<std::string>{"A", "B"}));
  EXPECT_EQ(r.pass, "");
}

TEST(PassManager, input_rejected_when_required_never_produced) {
  PassManager pm;
  pm.add(std::make_unique<Simplify>());
  // `q` is undefined: WellFormed 3.
  PipelineResult r = pm.run(parse_or_fail(fixture("  a = q + 1\n")));
  EXPECT_EQ(r.outcome, Outcome::InputRejected);
  EXPECT_EQ(r.pass, "Simplify");
  ASSERT_FALSE(r.diagnostics.empty());
  EXPECT_EQ(r.diagnostics[0].code, 3);
  EXPECT_NE(r.message.find("WellFormed"), std::string::npos) << r.message;
  EXPECT_TRUE(r.passes_run.empty());
}

TEST(PassManager, input_rejected_by_the_pass_itself) {
  PassManager pm;
  pm.add(fake("Picky", kWellFormed, 0, 0, [](const ir::Program&) {
    PassResult r;
    r.diagnostics.push_back(verify::Diagnostic{"Picky", 250, {"g", 1, 2}, "no"});
    return r;
  }));
  PipelineResult r = pm.run(parse_or_fail(fixture("")));
  EXPECT_EQ(r.outcome, Outcome::InputRejected);
  EXPECT_EQ(r.pass, "Picky");
  ASSERT_EQ(r.diagnostics.size(), 1u);
  EXPECT_EQ(r.diagnostics[0].code, 250);
}

TEST(PassManager, pass_bug_when_output_breaks_well_formed) {
  PassManager pm;
  pm.add(fake("Dropper", kWellFormed, 0, 0, drop_entry));
  const ir::Program in = parse_or_fail(fixture(""));
  PipelineResult r = pm.run(in);
  EXPECT_EQ(r.outcome, Outcome::PassBug);
  EXPECT_EQ(r.pass, "Dropper");
  ASSERT_FALSE(r.diagnostics.empty());
  EXPECT_EQ(r.diagnostics[0].code, 1);
  EXPECT_NE(r.message.find("bug in pass Dropper"), std::string::npos) << r.message;
  EXPECT_EQ(ir::print_program(r.program), ir::print_program(in));  // the accepted input
}

TEST(PassManager, pass_bug_when_output_breaks_a_produced_property) {
  PassManager pm;
  pm.add(fake("Liar", kWellFormed, kReturnParamsExplicit, 0, unsort_k2));
  PipelineResult r = pm.run(parse_or_fail(fixture("")));
  EXPECT_EQ(r.outcome, Outcome::PassBug);
  EXPECT_EQ(r.pass, "Liar");
  ASSERT_FALSE(r.diagnostics.empty());
  EXPECT_EQ(r.diagnostics[0].code, 101);
}

TEST(PassManager, required_property_broken_later_blames_its_producer) {
  // NRO produces RPE; Breaker keeps it (invalidates nothing) but breaks it; a pass that
  // requires RPE then finds it broken: a bug of the producer's claim chain, not the input.
  PassManager pm;
  pm.add(std::make_unique<NormalizeReturnOrder>())
      .add(fake("Breaker", kWellFormed, 0, 0, unsort_k2))
      .add(fake("Needs", kWellFormed | kReturnParamsExplicit, 0, 0, same));
  PipelineResult r = pm.run(parse_or_fail(fixture("")));
  EXPECT_EQ(r.outcome, Outcome::PassBug);
  EXPECT_EQ(r.pass, "NormalizeReturnOrder");
  EXPECT_NE(r.message.find("Breaker"), std::string::npos) << r.message;
  // Had Breaker declared that it invalidates RPE, the input of Needs is simply rejected.
  PassManager honest;
  honest.add(std::make_unique<NormalizeReturnOrder>())
      .add(fake("Breaker", kWellFormed, 0, kReturnParamsExplicit, unsort_k2))
      .add(fake("Needs", kWellFormed | kReturnParamsExplicit, 0, 0, same));
  r = honest.run(parse_or_fail(fixture("")));
  EXPECT_EQ(r.outcome, Outcome::InputRejected);
  EXPECT_EQ(r.pass, "Needs");
}

TEST(PassManager, required_property_found_to_hold_is_accepted) {
  // RPE never produced, but the input already satisfies it (k2 sorted): no rejection.
  std::string text = fixture("");
  text.replace(text.find("-> (o2, o1)"), 11, "-> (o1, o2)");
  PassManager pm;
  pm.add(fake("Needs", kWellFormed | kReturnParamsExplicit, 0, 0, same));
  PipelineResult r = pm.run(parse_or_fail(text));
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_EQ(r.held, PropertySet{kWellFormed | kReturnParamsExplicit});
  // Unsorted input: rejected.
  EXPECT_EQ(pm.run(parse_or_fail(fixture(""))).outcome, Outcome::InputRejected);
}

TEST(PassManager, verify_off_trusts_everything) {
  PassManagerOptions o;
  o.verify = false;
  PassManager pm(o);
  pm.add(fake("Liar", kWellFormed, kReturnParamsExplicit, 0, unsort_k2));
  PipelineResult r = pm.run(parse_or_fail(fixture("  a = q\n")));
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(r.held, PropertySet{kReturnParamsExplicit});
}

TEST(PassManager, print_after_all) {
  std::string out;
  PassManagerOptions o;
  o.print_after_all = true;
  o.sink = string_sink(out);
  PassManager pm(o);
  pm.add(std::make_unique<Simplify>()).add(std::make_unique<NormalizeReturnOrder>());
  const ir::Program in = parse_or_fail(fixture("  a = 1 + 1\n"));
  PipelineResult r = pm.run(in);
  ASSERT_TRUE(r.ok()) << r.message;
  const ir::Program simplified = simplify(in);
  EXPECT_EQ(out, "# after Simplify\n" + ir::print_program(simplified) + "# after NormalizeReturnOrder\n" +
                     ir::print_program(normalize_return_order(simplified)));
  // Off by default: nothing written.
  std::string quiet;
  PassManagerOptions q;
  q.sink = string_sink(quiet);
  PassManager pm2(q);
  pm2.add(std::make_unique<Simplify>());
  ASSERT_TRUE(pm2.run(in).ok());
  EXPECT_EQ(quiet, "");
}

TEST(PassManager, registry_and_unverified_properties) {
  VerifierRegistry none;  // no verifier at all: every property is trusted, and said so
  PassManager pm(PassManagerOptions{}, none);
  pm.add(fake("Liar", kWellFormed, kReturnParamsExplicit, 0, unsort_k2));
  PipelineResult r = pm.run(parse_or_fail(fixture("")));
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(r.unverified, PropertySet{kWellFormed | kReturnParamsExplicit});

  VerifierRegistry strict = default_verifiers();
  strict.set(kGraphBoundaryLegalized, [](const ir::Program&) {
    return verify::Diagnostics{verify::Diagnostic{"GraphBoundaryLegalized", 216, {}, "test"}};
  });
  PassManager pm2(PassManagerOptions{}, strict);
  pm2.add(fake("Claims", kWellFormed, kGraphBoundaryLegalized, 0, same));
  r = pm2.run(parse_or_fail(fixture("")));
  EXPECT_EQ(r.outcome, Outcome::PassBug);
  EXPECT_EQ(r.diagnostics.at(0).code, 216);
}

TEST(PassManager, register_verifier_wires_the_default_registry) {
  ASSERT_NE(default_verifiers().find(kWellFormed), nullptr);
  ASSERT_NE(default_verifiers().find(kReturnParamsExplicit), nullptr);
  const Verifier* before = default_verifiers().find(kGraphBoundaryLegalized);
  const Verifier saved = before ? *before : Verifier{};
  register_verifier(kGraphBoundaryLegalized, [](const ir::Program&) { return verify::Diagnostics{}; });
  EXPECT_NE(default_verifiers().find(kGraphBoundaryLegalized), nullptr);
  register_verifier(kGraphBoundaryLegalized, saved);  // restore for other tests
}

TEST(PassManager, names) {
  EXPECT_EQ(property_name(kWellFormed), "WellFormed");
  EXPECT_EQ(property_set_name(kWellFormed | kGraphBoundaryLegalized), "WellFormed|GraphBoundaryLegalized");
  EXPECT_EQ(property_set_name(0), "-");
  EXPECT_STREQ(outcome_name(Outcome::PassBug), "pass bug");
}

TEST(PassManager, default_pipeline_on_the_section_1_example) {
  const std::string text = ir::testing::kSection1Example;
  std::string log;
  PassManagerOptions o;
  o.print_after_all = true;
  o.sink = string_sink(log);
  PassManager pm = default_pipeline({}, o);
  ASSERT_EQ(pm.passes().size(), 3u);
  EXPECT_EQ(pm.passes()[0]->name(), "Simplify");
  EXPECT_EQ(pm.passes()[1]->name(), "NormalizeReturnOrder");
  EXPECT_EQ(pm.passes()[2]->name(), "LegalizeGraphBoundary");
  const ir::Program in = parse_or_fail(text);
  PipelineResult r = pm.run(in);
  ASSERT_TRUE(r.ok()) << r.message << "\n" << testing::diagnostics_text(r.diagnostics);
  EXPECT_EQ(r.held, PropertySet{kWellFormed | kReturnParamsExplicit | kGraphBoundaryLegalized});
  EXPECT_EQ(r.unverified, PropertySet{0});  // every property has its verifier wired
  EXPECT_NE(log.find("# after LegalizeGraphBoundary\n"), std::string::npos);
  // The COMPILER.md §5.3 result of this example.
  EXPECT_EQ(ir::print_program(r.program), canonical(ir::testing::kSection1Legalized));
  testing::expect_same_meaning(in, r.program);
}

}  // namespace
}  // namespace stackcheck::passes
