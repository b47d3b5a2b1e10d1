// Pass manager: property tracking, the verify instrument's three verdicts (ok, input
// rejected, pass bug — each with a case that must trigger it), print-after-all, the
// verifier registry, and the instrument hooks: what they see, failing, stopping
// (stop-after) and snapshots. The pipeline's definition: pipeline_test.cpp.
#include "stack/passes/pass_manager.h"

#include "stack/passes/golden_test_util.h"
#include "stack/passes/normalize_return_order.h"
#include "stack/passes/pipeline.h"
#include "stack/passes/simplify.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
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
    r.diagnostics.push_back(ir::Diagnostic{"Picky", 250, {"g", 1, 2}, "no"});
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

// Options that print the program after every pass into `out`.
PassManagerOptions printing_after_all(std::string& out) {
  PassManagerOptions o;
  o.print_after_all = true;
  o.sink = string_sink(out);
  return o;
}

TEST(PassManager, print_after_all) {
  std::string out;
  PassManager pm(printing_after_all(out));
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
  PassManagerOptions none;
  none.verifiers = VerifierRegistry{};  // no verifier at all: every property is trusted, and said so
  PassManager pm(none);
  pm.add(fake("Liar", kWellFormed, kReturnParamsExplicit, 0, unsort_k2));
  PipelineResult r = pm.run(parse_or_fail(fixture("")));
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(r.unverified, PropertySet{kWellFormed | kReturnParamsExplicit});

  PassManagerOptions strict;
  strict.verifiers.set(kGraphBoundaryLegalized, [](const ir::Program&) {
    return ir::Diagnostics{ir::Diagnostic{"GraphBoundaryLegalized", 216, {}, "test"}};
  });
  PassManager pm2(strict);
  pm2.add(fake("Claims", kWellFormed, kGraphBoundaryLegalized, 0, same));
  r = pm2.run(parse_or_fail(fixture("")));
  EXPECT_EQ(r.outcome, Outcome::PassBug);
  EXPECT_EQ(r.diagnostics.at(0).code, 216);
}

TEST(PassManager, default_verifiers_are_values) {
  // Every call gives a registry of the three verifiers; changing one changes no other (the
  // registry replaced here would otherwise reject every program).
  VerifierRegistry changed = default_verifiers();
  changed.set(kWellFormed, [](const ir::Program&) {
    return ir::Diagnostics{ir::Diagnostic{"WellFormed", 1, {}, "test"}};
  });
  const VerifierRegistry fresh = default_verifiers();
  for (Property p : {kWellFormed, kReturnParamsExplicit, kGraphBoundaryLegalized}) {
    ASSERT_NE(fresh.find(p), nullptr) << property_name(p);
  }
  const ir::Program ok = parse_or_fail(fixture(""));
  EXPECT_TRUE((*fresh.find(kWellFormed))(ok).empty());
  EXPECT_FALSE((*changed.find(kWellFormed))(ok).empty());
  PassManager pm;
  pm.add(fake("A", kWellFormed, 0, 0, same));
  EXPECT_TRUE(pm.run(ok).ok());
}

TEST(PassManager, names) {
  EXPECT_EQ(property_name(kWellFormed), "WellFormed");
  EXPECT_EQ(property_set_name(kWellFormed | kGraphBoundaryLegalized), "WellFormed|GraphBoundaryLegalized");
  EXPECT_EQ(property_set_name(0), "-");
  EXPECT_STREQ(outcome_name(Outcome::PassBug), "pass bug");
}

// ---- instruments -----------------------------------------------------------------------

// Logs every hook it sees, with what the hook was given.
class Recorder final : public PassInstrument {
 public:
  explicit Recorder(std::vector<std::string>& log, std::string tag = "") : log_(log), tag_(std::move(tag)) {}
  void before_pipeline(const ir::Program& input, PropertyLedger& ledger) override {
    log_.push_back(
        fmt::format("{}pipeline functions={} held={}", tag_, input.functions.size(), property_set_name(ledger.held)));
  }
  HookResult before_pass(const Pass& pass, const ir::Program&, PropertyLedger& ledger) override {
    log_.push_back(fmt::format("{}before {} held={} run={}", tag_, pass.name(), property_set_name(ledger.held),
                               ledger.passes_run.size()));
    return HookResult::proceed();
  }
  HookResult after_pass(const Pass& pass, const ir::Program& input, const ir::Program& output,
                        PropertyLedger& ledger) override {
    log_.push_back(
        fmt::format("{}after {} held={} claimant={} changed={}", tag_, pass.name(), property_set_name(ledger.held),
                    ledger.claimant.count(kReturnParamsExplicit) ? ledger.claimant[kReturnParamsExplicit] : "-",
                    ir::print_program(input) != ir::print_program(output)));
    return HookResult::proceed();
  }
  void after_pass_failed(const Pass& pass, const ir::Program&, const ir::Diagnostics& diagnostics,
                         const PropertyLedger&) override {
    log_.push_back(fmt::format("{}failed {} codes={}", tag_, pass.name(),
                               fmt::join(ir::testing::diagnostic_codes(diagnostics), ",")));
  }

 private:
  std::vector<std::string>& log_;
  std::string tag_;
};

// Fails every pass's output, or only `pass`'s.
class Veto final : public PassInstrument {
 public:
  explicit Veto(std::string pass) : pass_(std::move(pass)) {}
  HookResult after_pass(const Pass& pass, const ir::Program&, const ir::Program&, PropertyLedger&) override {
    if (pass.name() != pass_) return HookResult::proceed();
    return HookResult::fail(Outcome::PassBug, pass_, "vetoed",
                            {ir::Diagnostic{"Veto", 399, {"main", 1, 1}, "vetoed"}});
  }

 private:
  std::string pass_;
};

TEST(PassInstruments, hooks_see_the_pass_its_programs_and_the_ledger) {
  std::vector<std::string> log;
  PassManager pm;  // verify first, so the recorder sees its effect on the ledger
  pm.emplace_instrument<Recorder>(log);
  pm.add(std::make_unique<Simplify>()).add(std::make_unique<NormalizeReturnOrder>());
  ASSERT_TRUE(pm.run(parse_or_fail(fixture(""))).ok());
  EXPECT_EQ(log, (std::vector<std::string>{
                     "pipeline functions=6 held=-",
                     "before Simplify held=WellFormed run=0",
                     "after Simplify held=WellFormed claimant=- changed=false",
                     "before NormalizeReturnOrder held=WellFormed run=1",
                     // k2's returns sorted; RPE now claimed by the pass
                     "after NormalizeReturnOrder held=WellFormed|ReturnParamsExplicit "
                     "claimant=NormalizeReturnOrder changed=true",
                 }));
}

TEST(PassInstruments, after_pass_failed_on_rejections_and_vetoes) {
  std::vector<std::string> log;
  PassManager picky;
  picky.emplace_instrument<Recorder>(log);
  picky.add(fake("Picky", kWellFormed, 0, 0, [](const ir::Program&) {
    PassResult r;
    r.diagnostics.push_back(ir::Diagnostic{"Picky", 250, {"g", 1, 2}, "no"});
    return r;
  }));
  EXPECT_EQ(picky.run(parse_or_fail(fixture(""))).outcome, Outcome::InputRejected);
  EXPECT_EQ(log.back(), "failed Picky codes=250");

  // A veto ends the step: instruments after it see no after_pass, every one sees the failure.
  log.clear();
  PassManager vetoed;
  vetoed.emplace_instrument<Recorder>(log, "1:");
  vetoed.emplace_instrument<Veto>("A");
  vetoed.emplace_instrument<Recorder>(log, "2:");
  vetoed.add(fake("A", kWellFormed, 0, 0, same)).add(fake("B", kWellFormed, 0, 0, same));
  const ir::Program in = parse_or_fail(fixture("  a = 1 + 1\n"));
  const PipelineResult r = vetoed.run(in);
  EXPECT_EQ(r.outcome, Outcome::PassBug);
  EXPECT_EQ(r.pass, "A");
  EXPECT_EQ(r.message, "vetoed");
  EXPECT_EQ(ir::testing::diagnostic_codes(r.diagnostics), std::vector<int>{399});
  EXPECT_TRUE(r.passes_run.empty());
  EXPECT_EQ(ir::print_program(r.program), ir::print_program(in));
  EXPECT_EQ(log, (std::vector<std::string>{"1:pipeline functions=6 held=-", "2:pipeline functions=6 held=-",
                                           "1:before A held=WellFormed run=0", "2:before A held=WellFormed run=0",
                                           "1:after A held=WellFormed claimant=- changed=false", "1:failed A codes=399",
                                           "2:failed A codes=399"}));
}

TEST(PassInstruments, stop_after_ends_the_run_cleanly) {
  PassManagerOptions o;
  o.stop_after = "NormalizeReturnOrder";
  PassManager pm = default_pipeline({}, o);
  const ir::Program in = parse_or_fail(fixture("  a = 1 + 1\n  c1 = call kacc(x, c)\n"));
  const PipelineResult r = pm.run(in);
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_EQ(r.stopped_after, "NormalizeReturnOrder");
  EXPECT_EQ(r.passes_run, (std::vector<std::string>{"Simplify", "NormalizeReturnOrder"}));
  EXPECT_FALSE(r.ran("LegalizeGraphBoundary"));
  EXPECT_EQ(ir::print_program(r.program), ir::print_program(normalize_return_order(simplify(in))));
  EXPECT_EQ(r.held, PropertySet{kWellFormed | kReturnParamsExplicit});
  // Without it the whole pipeline runs; a name no pass has stops nothing.
  const PipelineResult whole = default_pipeline().run(in);
  ASSERT_TRUE(whole.ok()) << whole.message;
  EXPECT_EQ(whole.passes_run.size(), 3u);
  o.stop_after = "NoSuchPass";
  const PipelineResult all = default_pipeline({}, o).run(in);
  ASSERT_TRUE(all.ok()) << all.message;
  EXPECT_EQ(all.passes_run.size(), 3u);
  EXPECT_EQ(all.stopped_after, "");
  // The stopped pass's output is still verified.
  PassManagerOptions liar_stop;
  liar_stop.stop_after = "Liar";
  PassManager liar(liar_stop);
  liar.add(fake("Liar", kWellFormed, kReturnParamsExplicit, 0, unsort_k2));
  EXPECT_EQ(liar.run(parse_or_fail(fixture(""))).outcome, Outcome::PassBug);
}

TEST(PassInstruments, snapshot_keeps_each_accepted_output) {
  PassManager pm;
  const SnapshotInstrument& snapshots = pm.emplace_instrument<SnapshotInstrument>();
  pm.add(std::make_unique<Simplify>()).add(std::make_unique<NormalizeReturnOrder>());
  const ir::Program in = parse_or_fail(fixture("  a = 1 + 1\n"));
  ASSERT_TRUE(pm.run(in).ok());
  ASSERT_EQ(snapshots.snapshots().size(), 2u);
  EXPECT_EQ(snapshots.snapshots()[0].pass, "Simplify");
  EXPECT_EQ(ir::print_program(*snapshots.snapshots()[0].program), ir::print_program(simplify(in)));
  EXPECT_EQ(snapshots.snapshots()[1].pass, "NormalizeReturnOrder");
  EXPECT_EQ(ir::print_program(*snapshots.snapshots()[1].program),
            ir::print_program(normalize_return_order(simplify(in))));
  // A rejected output is not kept (verify runs first), and each run starts afresh.
  PassManager buggy;
  const SnapshotInstrument& kept = buggy.emplace_instrument<SnapshotInstrument>();
  buggy.add(std::make_unique<Simplify>()).add(fake("Dropper", kWellFormed, 0, 0, drop_entry));
  EXPECT_EQ(buggy.run(in).outcome, Outcome::PassBug);
  ASSERT_EQ(kept.snapshots().size(), 1u);
  EXPECT_EQ(kept.snapshots()[0].pass, "Simplify");
  EXPECT_EQ(buggy.run(in).outcome, Outcome::PassBug);
  EXPECT_EQ(kept.snapshots().size(), 1u);
}

TEST(PassInstruments, a_result_without_its_program_keeps_the_snapshots) {
  const ir::Program in = parse_or_fail(fixture("  a = 1 + 1\n"));
  PassManager keeps;
  keeps.add(std::make_unique<Simplify>());
  PassManagerOptions options;
  options.result_program = false;
  PassManager lean(std::move(options));
  const SnapshotInstrument& snapshots = lean.emplace_instrument<SnapshotInstrument>();
  lean.add(std::make_unique<Simplify>());
  const PipelineResult full = keeps.run(in), bare = lean.run(in);
  ASSERT_TRUE(full.ok() && bare.ok());
  EXPECT_EQ(ir::print_program(full.program), ir::print_program(simplify(in)));
  EXPECT_TRUE(bare.program.functions.empty());
  ASSERT_EQ(snapshots.snapshots().size(), 1u);
  EXPECT_EQ(ir::print_program(*snapshots.snapshots()[0].program), ir::print_program(full.program));
  EXPECT_EQ(bare.passes_run, full.passes_run);
}

TEST(PassInstruments, print_after_all_shows_the_output_verify_then_blames) {
  std::string out;
  PassManager pm(printing_after_all(out));
  pm.add(fake("Liar", kWellFormed, kReturnParamsExplicit, 0, unsort_k2));
  const ir::Program in = parse_or_fail(fixture(""));
  EXPECT_EQ(pm.run(in).outcome, Outcome::PassBug);
  EXPECT_EQ(out, "# after Liar\n" + ir::print_program(unsort_k2(in).program));
}

}  // namespace
}  // namespace stackcheck::passes
