// The limits of the orchestrator calls (limits.h): setups and command sequences drawn as
// OrchestratorModel.predicts_every_step draws them on the byte engine (generate_call_case: a
// provoking case in three, a swarm mask over the kinds, up to 64 commands of the allowed kinds
// and weights, each kind's calls against the model as the earlier commands left it), the
// productions read from the setup and the call sequence. Then the swarm mask's own draws.
#include "properties/gen/orchestrator_calls.h"

#include <gtest/gtest.h>

#include <map>
#include <span>
#include <variant>
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

std::map<std::string, int> call_productions(int n) {
  return count_productions(n, [](ChoiceSource& c, int) {
    const CallCase k = generate_call_case(c, true);
    return orchestrator_call_productions(k.head.setup, k.calls);
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

// The mask: every kind in about a quarter of the cases; each maskable kind off in some cases and
// on in others; submit and provoke never off; and the all-zero draw (where shrinking goes) keeps
// only those two.
TEST(GenSwarm, orchestrator_call_kinds_mask_each_kind_but_submit) {
  const int n = 4000;
  int defaults = 0;
  std::map<CallKind, int> off;
  for (int i = 0; i < n; ++i) {
    SeededChoices c(static_cast<uint64_t>(i) * 7919u + 17u);
    SwarmMask mask;
    const uint32_t kinds = swarm_call_kinds(c, mask);
    defaults += mask.defaults;
    if (mask.defaults) {
      EXPECT_EQ(kinds, kEveryCallKind);
    }
    for (unsigned k = 0; k <= static_cast<unsigned>(CallKind::kProvoke); ++k)
      off[static_cast<CallKind>(k)] += !kind_allowed(kinds, static_cast<CallKind>(k));
    EXPECT_EQ(mask.off.size(), static_cast<size_t>(__builtin_popcount(kEveryCallKind & ~kinds)));
  }
  EXPECT_NEAR(defaults, n * kSwarmDefaultsPercent / 100, n / 25);
  EXPECT_EQ(off[CallKind::kSubmit], 0);
  EXPECT_EQ(off[CallKind::kProvoke], 0);
  for (CallKind k : {CallKind::kScopeBegin, CallKind::kScopeEnd, CallKind::kAlloc, CallKind::kSubmitGraph,
                     CallKind::kRead, CallKind::kFan, CallKind::kGraphSweep, CallKind::kSyncStart}) {
    EXPECT_GT(off[k], n / 10) << call_kind_name(k);
    EXPECT_LT(off[k], n * 3 / 4) << call_kind_name(k);
  }
  ByteChoices zero(std::span<const uint8_t>{});
  SwarmMask mask;
  const uint32_t kinds = swarm_call_kinds(zero, mask);
  EXPECT_EQ(kinds, (1u << static_cast<unsigned>(CallKind::kSubmit)) | (1u << static_cast<unsigned>(CallKind::kProvoke)))
      << mask.describe();
}

// A masked case draws only the kinds its mask allows (read back from its calls: scope_begin and
// sync_start come from their own kinds only, outside a provoking case), and the same seed gives
// the same case.
TEST(GenSwarm, a_masked_orchestrator_case_draws_only_its_kinds) {
  int masked = 0;
  for (uint64_t seed = 1; seed <= 400; ++seed) {
    SeededChoices c(seed);
    const CallCase k = generate_call_case(c, true);
    SeededChoices again(seed);
    EXPECT_EQ(generate_call_case(again, true).calls.size(), k.calls.size());
    if (k.head.swarm.defaults || k.head.provoking) continue;
    ++masked;
    for (const Call& call : k.calls) {
      if (!kind_allowed(k.head.kinds, CallKind::kScopeBegin)) {
        EXPECT_FALSE(std::holds_alternative<oracles::orch::ScopeBegin>(call)) << k.head.swarm.describe();
      }
      if (!kind_allowed(k.head.kinds, CallKind::kSyncStart)) {
        EXPECT_FALSE(std::holds_alternative<oracles::orch::SyncStart>(call)) << k.head.swarm.describe();
      }
    }
  }
  EXPECT_GT(masked, 150);
}

}  // namespace
}  // namespace stackcheck::gen
