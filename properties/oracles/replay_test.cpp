// Counterexample files (replay.h): written with their header, read back and rerun through the
// oracle the header names; a failing input fails again, a passing one passes, and a file
// whose header or text is broken gets an error, never a crash.
#include "properties/oracles/replay.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

namespace stackcheck::oracles {
namespace {

std::string read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

TEST(Replay, written_files_replay_through_their_oracle) {
  const std::string example = read(STACKCHECK_CORPUS_DIR "/programs/example.gir");
  for (const char* oracle : {"end-to-end", "pipeline", "semantics", "roundtrip", "deps"}) {
    Counterexample c{
        oracle, example, {{"seed", "3"}, {"schedule", "newest"}, {"step_c", "1"}, {"W", "256"}}, "", "a test"};
    const std::string file = write_counterexample(c);
    EXPECT_EQ(file.rfind(std::string("# stackcheck ") + oracle + "\n", 0), 0u) << file;
    const ReplayResult r = replay_counterexample(file);
    ASSERT_FALSE(r.error) << oracle << ": " << *r.error;
    EXPECT_TRUE(r.verdict.passed()) << oracle << ": " << r.verdict.to_string();
  }
  const std::string plan = read(STACKCHECK_CORPUS_DIR "/plans/example.plan");
  for (const char* oracle : {"plan-model", "bind-structure", "deps"}) {
    const ReplayResult r = replay_counterexample(write_counterexample({oracle, plan, {{"seed", "1"}}, "", ""}));
    ASSERT_FALSE(r.error) << oracle << ": " << *r.error;
    EXPECT_TRUE(r.verdict.passed()) << oracle << ": " << r.verdict.to_string();
  }
}

TEST(Replay, a_failing_input_fails_again) {
  // docs/deps_example.plan drops a fanin edge in the shipped image: the dependency oracle
  // must report it on replay.
  const ReplayResult r = replay_counterexample(read(STACKCHECK_CORPUS_DIR "/../docs/deps_example.plan"));
  ASSERT_FALSE(r.error) << *r.error;
  EXPECT_EQ(r.oracle, "deps");
  EXPECT_TRUE(r.verdict.failed()) << r.verdict.to_string();
}

// With code=N the bind-structure replay expects N first (or a config-bound code): the explicit
// fatal plan passes with code=9 and fails "planted-latches" with code=8 (its positive control).
TEST(Replay, a_planted_code_replays_as_that_code_only) {
  const std::string plan = read(STACKCHECK_CORPUS_DIR "/plans/fatal_09_explicit_fatal.plan");
  const auto replay = [&](const char* code) {
    return replay_counterexample(write_counterexample({"bind-structure", plan, {{"code", code}}, "", ""}));
  };
  const ReplayResult as_planted = replay("9");
  ASSERT_FALSE(as_planted.error) << *as_planted.error;
  EXPECT_TRUE(as_planted.verdict.passed()) << as_planted.verdict.to_string();
  const ReplayResult other = replay("8");
  ASSERT_FALSE(other.error) << *other.error;
  EXPECT_TRUE(other.verdict.failed()) << other.verdict.to_string();
  EXPECT_EQ(other.verdict.rule, "planted-latches");
}

TEST(Replay, broken_files_get_errors) {
  EXPECT_TRUE(replay_counterexample("").error);
  EXPECT_TRUE(replay_counterexample("kernel k() -> () = builtin fill\n").error);  // no header
  EXPECT_TRUE(replay_counterexample("# stackcheck nope\n").error);                // unknown oracle
  EXPECT_TRUE(replay_counterexample("# stackcheck end-to-end\n# replay: seed=x\norchestration main() {\n}\n").error);
  EXPECT_TRUE(replay_counterexample("# stackcheck end-to-end\n# replay: color=red\n").error);
  EXPECT_TRUE(replay_counterexample("# stackcheck end-to-end\n# replay: seed\n").error);
  EXPECT_TRUE(replay_counterexample("# stackcheck end-to-end\nnot a program {\n").error);
  EXPECT_TRUE(replay_counterexample("# stackcheck plan-model\nsubmit nope(\n").error);
  const ReplayResult expect = replay_counterexample("# stackcheck corrupt-image\n# replay: expect=BadMagc\n");
  ASSERT_TRUE(expect.error);  // an attach class that does not exist
  EXPECT_NE(expect.error->find("expect 'BadMagc' is not an attach class name"), std::string::npos) << *expect.error;
  const ReplayResult prop =
      replay_counterexample("# stackcheck property\n# failed: x\n# found by S.N (RC_PARAMS=\"seed=1\" b)\n");
  ASSERT_TRUE(prop.error);
  EXPECT_NE(prop.error->find("rerun by the property that found it: S.N"), std::string::npos) << *prop.error;
  const std::string binary("# stackcheck roundtrip\n\x01\x02\xff\x00garbage", 30);
  EXPECT_TRUE(replay_counterexample(binary).error);
}

}  // namespace
}  // namespace stackcheck::oracles
