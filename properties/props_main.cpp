// main() of every property suite: prints the RapidCheck seed up front (stderr); after each
// property, its verdict counts (cases, inconclusive per reason) and the generator's feature
// shares; for each failed property, a one-line command that replays it with the same seed.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/detail/Configuration.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "properties/gen/arbitrary.h"
#include "properties/property.h"
#include "stack/defects/defects.h"

namespace {

class PropertyListener : public testing::EmptyTestEventListener {
  void OnTestStart(const testing::TestInfo&) override {
    stackcheck::gen::feature_tally().reset();
    stackcheck::props::tally() = {};
  }
  void OnTestEnd(const testing::TestInfo& info) override {
    if (stackcheck::props::tally().cases > 0) std::fprintf(stderr, "%s", stackcheck::props::tally().table().c_str());
    const std::string features = stackcheck::gen::feature_tally().table();
    if (!features.empty()) std::fprintf(stderr, "%s", features.c_str());
    if (info.result()->Failed()) std::fprintf(stderr, "%s\n", stackcheck::props::replay_command().c_str());
  }
};

}  // namespace

int main(int argc, char** argv) {
  // An unknown STACKCHECK_DEFECT (or one this build cannot honour) would run clean: refuse.
  if (auto why = stackcheck::defects::check_selection()) {
    std::fprintf(stderr, "%s: %s\n", argv[0], why->c_str());
    return 2;
  }
  stackcheck::props::set_program_name(argv[0]);
  testing::InitGoogleTest(&argc, argv);
  const auto& cfg = rc::detail::configuration();
  std::fprintf(stderr, "rapidcheck: seed=%llu max_success=%d max_size=%d (RC_PARAMS=\"%s\")\n",
               static_cast<unsigned long long>(cfg.testParams.seed), cfg.testParams.maxSuccess, cfg.testParams.maxSize,
               std::getenv("RC_PARAMS") ? std::getenv("RC_PARAMS") : "");
  if (const std::string d = stackcheck::defects::active_names(); !d.empty())
    std::fprintf(stderr, "defects active: %s\n", d.c_str());
  testing::UnitTest::GetInstance()->listeners().Append(new PropertyListener);
  return RUN_ALL_TESTS();
}
