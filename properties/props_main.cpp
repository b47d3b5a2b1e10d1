// main() of every property suite: prints the RapidCheck seed up front (stderr) and, for each
// failed property, a one-line command that replays it with the same seed.
#include <gtest/gtest.h>

#include <rapidcheck.h>
#include <rapidcheck/detail/Configuration.h>
#include "properties/gen/arbitrary.h"

#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

std::string g_argv0;

class ReplayHint : public testing::EmptyTestEventListener {
  void OnTestStart(const testing::TestInfo&) override { stackcheck::gen::feature_tally().reset(); }
  void OnTestEnd(const testing::TestInfo& info) override {
    const std::string table = stackcheck::gen::feature_tally().table();
    if (!table.empty()) std::fprintf(stderr, "%s", table.c_str());
    if (!info.result()->Failed()) return;
    const auto seed = rc::detail::configuration().testParams.seed;
    std::fprintf(stderr, "replay: RC_PARAMS=\"seed=%llu\" %s --gtest_filter='%s.%s'\n",
                 static_cast<unsigned long long>(seed), g_argv0.c_str(), info.test_suite_name(), info.name());
  }
};

}  // namespace

int main(int argc, char** argv) {
  g_argv0 = argv[0];
  testing::InitGoogleTest(&argc, argv);
  const auto& cfg = rc::detail::configuration();
  std::fprintf(stderr, "rapidcheck: seed=%llu max_success=%d max_size=%d (RC_PARAMS=\"%s\")\n",
               static_cast<unsigned long long>(cfg.testParams.seed), cfg.testParams.maxSuccess, cfg.testParams.maxSize,
               std::getenv("RC_PARAMS") ? std::getenv("RC_PARAMS") : "");
  testing::UnitTest::GetInstance()->listeners().Append(new ReplayHint);
  return RUN_ALL_TESTS();
}
