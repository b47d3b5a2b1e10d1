// The limits of the orchestrator calls (limits.h): setups and command sequences drawn as
// OrchestratorModel.predicts_every_step draws them on the byte engine (a provoking case in
// three, up to 64 commands of its kinds and weights, each kind's calls against the model as
// the earlier commands left it), the productions read from the setup and the call sequence.
#include "properties/gen/orchestrator_calls.h"

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "properties/gen/limits.h"
#include "properties/gen/production_test_util.h"

namespace stackcheck::gen {
namespace {

using oracles::orch::Call;
using oracles::orch::ModelSetup;
using oracles::orch::OrchestratorModel;

// The property's command kinds with their weights (kMakers in orchestrator_model_props.cpp).
constexpr CallKind kCommandMix[] = {CallKind::kSubmit,      CallKind::kSubmit,      CallKind::kSubmit,
                                    CallKind::kAlloc,       CallKind::kScopeBegin,  CallKind::kScopeEnd,
                                    CallKind::kSubmitGraph, CallKind::kSubmitGraph, CallKind::kRead,
                                    CallKind::kFan,         CallKind::kSyncStart,   CallKind::kGraphSweep,
                                    CallKind::kProvoke};
constexpr size_t kMaxCommands = 64;

std::map<std::string, int> call_productions(int n) {
  return count_productions(n, [](ChoiceSource& c, int) {
    const bool provoking = c.chance(35);
    const ModelSetup setup = generate_model_setup(c, provoking);
    OrchestratorModel m(std::make_shared<const ModelSetup>(setup));
    std::vector<Call> calls;
    const size_t commands = c.length(kMaxCommands);
    for (size_t i = 0; i < commands; ++i) {
      const std::vector<Call> more = generate_calls(c, m, kCommandMix[c.one_of(std::size(kCommandMix))], provoking);
      for (const Call& call : more) m.apply(call);
      calls.insert(calls.end(), more.begin(), more.end());
    }
    return orchestrator_call_productions(setup, calls);
  });
}

TEST(GenLimits, orchestrator_calls_reach_every_production) {
  const int n = 8000;
  expect_every_production("orchestrator call sequences", n, orchestrator_call_production_universe(),
                          call_productions(n));
}

TEST(GenLimitsControl, an_orchestrator_call_production_nobody_makes_is_reported) {
  expect_control_reports(orchestrator_call_production_universe(), call_productions(100));
}

}  // namespace
}  // namespace stackcheck::gen
