// Positive controls of the verdict contract (property.h): a failing verdict fails its
// property with the message and the replay line; a property whose inconclusive share passes
// its bound fails for having tested nothing; a share within the bound passes.
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include "properties/gen/arbitrary.h"
#include "properties/property.h"

using namespace stackcheck;

namespace {

void half_inconclusive() {
  ++props::tally().cases;
  if (gen::choices().boolean())
    props::report(oracles::Verdict::inconclusive(oracles::Inconclusive::kResourceLatch, "latched", 2));
}

void always_failing() {
  ++props::tally().cases;
  props::report(oracles::Verdict::fail("ctl-rule", "the control fails"));
}

}  // namespace

TEST(PropertyContract, inconclusive_share_over_the_bound_fails_the_property) {
  EXPECT_NONFATAL_FAILURE(
      {
        props::begin_property();
        rc::detail::checkGTest(&half_inconclusive);
        props::end_property(0.2);
      },
      "the property tested nothing");
  // The discarded cases were counted under their typed reason.
  EXPECT_GT(props::tally().by_reason["resource-latch:2"], 0u);
}

TEST(PropertyContract, inconclusive_share_within_the_bound_passes) {
  props::begin_property();
  rc::detail::checkGTest(&half_inconclusive);
  props::end_property(0.9);
  EXPECT_GT(props::tally().inconclusive, 0u);
}

TEST(PropertyContract, a_failing_verdict_fails_with_message_and_replay_line) {
  EXPECT_FATAL_FAILURE(rc::detail::checkGTest(&always_failing), "fail [ctl-rule]: the control fails");
  EXPECT_FATAL_FAILURE(rc::detail::checkGTest(&always_failing), "replay: RC_PARAMS=\"seed=");
}

// fuzz_props' positive control (registered, not a gtest: it fails by design). Four drawn
// bytes must spell "FUZZ" for the case to fail: random draws meet that one time in 2^32;
// libFuzzer, for which each matched byte is a new branch, within seconds (3.5-16.5 s at seeds
// 1-3, fuzz preset). A committed text form of the failing bytes (corpus/fuzz_props/control/)
// must replay as this finding (ctest replay/fuzz_props/control), and
// fuzz-smoke/fuzz_props/control must find it.
namespace {
void narrow_condition() {
  gen::ChoiceSource& c = gen::choices();
  // Four branches, not a loop: each byte matched is a new edge (a loop's trip count is only a
  // counter bucket, which libFuzzer found in 0.6 M inputs once and missed in 4.4 M another time).
  if (c.integer(0, 255) != 'F') return;
  if (c.integer(0, 255) != 'U') return;
  if (c.integer(0, 255) != 'Z') return;
  if (c.integer(0, 255) != 'Z') return;
  props::report(oracles::Verdict::fail("ctl-narrow", "the drawn bytes spell FUZZ"));
}
[[maybe_unused]] const bool narrow_registered =
    props::register_property("PropertyControl", "fails_when_the_bytes_spell_FUZZ", 0.0, &narrow_condition);
}  // namespace
