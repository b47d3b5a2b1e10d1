// The verdict contract of every property suite (HARNESS.md §2-§3). A property is declared
// with STACKCHECK_PROP and reports each oracle verdict through report():
//   fail         -> RC_FAIL with the oracle's message and the one-line replay command;
//   inconclusive -> the case is discarded (RC_DISCARD) and counted under its typed reason;
//   pass         -> nothing.
// When the property has run, its inconclusive share must stay within the bound given to
// STACKCHECK_PROP, else the test fails: a property whose cases are mostly discarded tested
// nothing. The counts (cases, inconclusive per reason) and the generator's feature shares are
// printed after each property (props_main.cpp).
#pragma once

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cstdio>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "properties/gen/choice.h"
#include "properties/oracles/oracle.h"
#include "properties/oracles/replay.h"
#include "stack/ir/ast.h"

namespace stackcheck::props {

struct Tally {
  size_t cases = 0;                         // bodies run (shrink steps included)
  size_t inconclusive = 0;                  // cases discarded as inconclusive
  std::map<std::string, size_t> by_reason;  // reason_key -> cases
  std::string table() const;
};
Tally& tally();  // the running property's

// The command that reruns the running test with the running seed.
std::string replay_command();
void set_program_name(std::string argv0);

void report(const oracles::Verdict& v);
// report() with a context line prepended to a failure's message (e.g. the schedule).
void report(const oracles::Verdict& v, const std::string& context);
// report() of a failure that `stackcheck replay` can rerun: the shrunk input is written to
// the counterexample folder (build/counterexamples/<Suite>.<Name>.gir|plan, overwritten at
// each shrink step, so it ends as the smallest) with its header, and the failure message
// names the file and the replay command.
void report(const oracles::Verdict& v, oracles::Counterexample cx);
// The same, naming the oracle that failed when the counterexample's header names another (a
// fuzz target's text form: `# stackcheck fuzz_program`); fuzz_props reports that oracle.
void report(const oracles::Verdict& v, oracles::Counterexample cx, std::string_view oracle);
std::string counterexample_dir();
// The counterexample of `oracle` on the input `text` (.gir or .plan) with its replay
// parameters; report() names the failure and who found it.
oracles::Counterexample counterexample(std::string oracle, std::string text,
                                       std::map<std::string, std::string> params = {});

// A suite's own counts (T: default-constructible, with a `std::string table() const`), reset
// when each test starts and printed on stderr when it ends. The suite's file registers them
// once, at namespace scope: `const bool added = props::TestTally<T>::install();`.
template <class T>
class TestTally : public ::testing::EmptyTestEventListener {
 public:
  static T& get() {
    static T t;
    return t;
  }
  static bool install() {
    ::testing::UnitTest::GetInstance()->listeners().Append(new TestTally);
    return true;
  }

 private:
  void OnTestStart(const ::testing::TestInfo&) override { get() = {}; }
  void OnTestEnd(const ::testing::TestInfo&) override { std::fputs(get().table().c_str(), stderr); }
};

// A generated program is legal by construction (the generator's promise). Every property that
// draws one judges its compile first, as Pipeline.boundary_invariants does: a rejection
// is a false rejection, and the pipeline's verifiers and the boundary invariants (node counts,
// hoisted creates from depth 0 and InOut, graph writes InOut, Step C) must hold. Without it a
// runtime or end-to-end property discards (or never looks at) exactly the cases in which a
// compiler defect shows. The counterexample is a `boundary` .gir with legal=1.
void require_legal_compile(const ir::Program& p, bool step_c);

void begin_property();
// Fails the running test when inconclusive / cases > bound.
void end_property(double inconclusive_bound);

// ---- One property, three engines (HARNESS.md §9) ----
// Every STACKCHECK_PROP is registered under "Suite.Name" with its body, which draws only through
// gen::choices() (gen/arbitrary.h). The gtest case runs the body on RapidCheck; fuzz_props
// runs it on bytes (run_on_bytes), coverage-guided under libFuzzer or replayed.
struct Property {
  std::string name;  // Suite.Name
  double bound = 0;  // the largest inconclusive share of a RapidCheck run
  void (*body)() = nullptr;
};
const std::vector<Property>& properties();  // in registration order
const Property* find_property(std::string_view name);
bool register_property(const char* suite, const char* name, double bound, void (*body)());

// One run of a body on a choice source other than RapidCheck's.
struct BytesOutcome {
  enum class Kind : uint8_t { kPass, kInconclusive, kFail };
  Kind kind = Kind::kPass;
  // kFail: the oracle that failed (a counterexample's oracle, "property" for a verdict without
  // one, "(test assertion)" for RC_ASSERT and its kin, "exception" for an escaped exception);
  // kInconclusive: "property".
  std::string oracle;
  oracles::Verdict verdict;  // kFail, kInconclusive: the verdict (rule, message, reason)
  std::string text;          // kFail with a counterexample: its text (.gir or .plan)
  std::vector<std::string> drawn;  // the values the case drew (gen::drawn_values())
};
BytesOutcome run_on_bytes(const Property& p, gen::ChoiceSource& c);

// One RapidCheck case of a STACKCHECK_PROP: counted in the tally, then its body run. In a
// schemata build of scripts/mutate (the prelude defines STACKCHECK_SCHEMATA) the case also
// records which mutant switches it reached, and skips its body when the run's case plan says
// so: a mutant is then judged only by the cases that reach its site (HARNESS.md §10).
void run_case(void (*body)());

}  // namespace stackcheck::props

// A property: a gtest test that runs the body on RapidCheck under the verdict contract, and an
// entry of properties() that fuzz_props runs on bytes. `bound` is the largest inconclusive
// share (0..1) the property may have and still count as having tested something. The body
// draws only through gen::choices().

#define STACKCHECK_PROP(Suite, Name, bound)                                                    \
  void stackcheck_prop_##Suite##_##Name();                                                     \
  [[maybe_unused]] static const bool stackcheck_registered_##Suite##_##Name =                  \
      ::stackcheck::props::register_property(#Suite, #Name, bound, &stackcheck_prop_##Suite##_##Name); \
  TEST(Suite, Name) {                                                                          \
    ::stackcheck::props::begin_property();                                                     \
    ::rc::detail::checkGTest([] { ::stackcheck::props::run_case(&stackcheck_prop_##Suite##_##Name); }); \
    ::stackcheck::props::end_property(bound);                                                  \
  }                                                                                            \
  void stackcheck_prop_##Suite##_##Name()

// A positive control (STYLE.md 12): a gtest test that runs the body on RapidCheck, counting its
// cases as STACKCHECK_PROP does, and passes only when the run fails with a message containing
// `message`. The body is a property run against a planted defect (a blind check, a lax parser).
#define STACKCHECK_CONTROL(Suite, Name, message)                  \
  void stackcheck_control_##Suite##_##Name();                     \
  TEST(Suite, Name) {                                             \
    EXPECT_FATAL_FAILURE(::rc::detail::checkGTest([] {            \
                           ++::stackcheck::props::tally().cases;  \
                           stackcheck_control_##Suite##_##Name(); \
                         }),                                      \
                         message);                                \
  }                                                               \
  void stackcheck_control_##Suite##_##Name()
