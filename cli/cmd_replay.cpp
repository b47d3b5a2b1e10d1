// replay: runs a saved counterexample (properties' build/counterexamples/ files, or any file
// with the same header) through the oracle its header names (properties/oracles/replay.h).
#include <fmt/format.h>

#include "properties/oracles/replay.h"
#include "cli/cli.h"

namespace stackcheck::cli {

int cmd_replay(const Args& a) {
  std::string text, error;
  if (!read_input(a.positional[0], text, error)) {
    fmt::print(stderr, "stackcheck: {}\n", error);
    return kUsage;
  }
  const std::string file = display_name(a.positional[0]);
  const oracles::ReplayResult r = oracles::replay_counterexample(text);
  if (r.error) {
    fmt::print(stderr, "stackcheck: {}: cannot replay: {}\n", file, *r.error);
    return kUsage;
  }
  fmt::print(stderr, "replay: {} through {}\n", file, r.oracle);
  fmt::print("{}: {}\n", r.oracle, r.verdict.to_string());
  switch (r.verdict.kind) {
    case oracles::VerdictKind::Pass: return kOk;
    case oracles::VerdictKind::Inconclusive: return kInconclusive;
    case oracles::VerdictKind::Fail: break;
  }
  return kFail;
}

}  // namespace stackcheck::cli
