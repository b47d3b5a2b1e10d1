#include "properties/property.h"

#include <fmt/format.h>
#include <rapidcheck/detail/Configuration.h>

namespace stackcheck::props {

namespace {
std::string& program_name() {
  static std::string name = "<suite>";
  return name;
}
}  // namespace

Tally& tally() {
  static Tally t;
  return t;
}

std::string Tally::table() const {
  std::string out = fmt::format("verdicts: {} cases, {} inconclusive", cases, inconclusive);
  for (const auto& [reason, n] : by_reason) out += fmt::format(" [{}: {}]", reason, n);
  return out + "\n";
}

void set_program_name(std::string argv0) { program_name() = std::move(argv0); }

std::string replay_command() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  const auto seed = rc::detail::configuration().testParams.seed;
  return fmt::format("replay: RC_PARAMS=\"seed={}\" {} --gtest_filter='{}.{}'", seed, program_name(),
                     info ? info->test_suite_name() : "*", info ? info->name() : "*");
}

void report(const oracles::Verdict& v) { report(v, ""); }

void report(const oracles::Verdict& v, const std::string& context) {
  if (v.passed()) return;
  if (v.inconclusive()) {
    ++tally().inconclusive;
    ++tally().by_reason[v.reason_key()];
    RC_DISCARD(v.to_string());
  }
  RC_FAIL(fmt::format("{}{}{}\n{}", context, context.empty() ? "" : ": ", v.to_string(), replay_command()));
}

void begin_property() { tally() = Tally(); }

void end_property(double bound) {
  const Tally& t = tally();
  if (t.cases == 0) return;
  const double share = static_cast<double>(t.inconclusive) / static_cast<double>(t.cases);
  EXPECT_LE(share, bound) << fmt::format(
      "the property tested nothing: {:.1f}% of its cases were inconclusive (bound {:.1f}%): {}", 100 * share,
      100 * bound, t.table());
}

}  // namespace stackcheck::props
