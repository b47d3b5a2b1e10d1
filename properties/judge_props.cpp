// The all-tier properties (HARNESS.md §9): the fuzz targets' own cases, decoded from the choice
// source as fuzz_program, fuzz_bind_plan and fuzz_attach decode them, judged by the one oracle
// sequence of their input kind (judge/judges.h). So RapidCheck (with shrinking), fuzz_props and
// the three fuzz targets run the same checks on the same inputs. A failure writes the case as
// its fuzz target's text form (`# stackcheck fuzz_program` ...), which scripts/replay reruns.
// Positive controls: a judgement whose end-to-end oracle is handed a wrong expectation, and a
// plan that latches another code than the one its generator planted.
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <cstdlib>

#include <fmt/format.h>

#include <functional>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "properties/gen/arbitrary.h"
#include "properties/judge/cases.h"
#include "properties/judge/judges.h"
#include "properties/property.h"
#include "stack/ir/printer.h"
#include "stack/runtime/plan/printer.h"

using namespace stackcheck;

namespace stackcheck::judge {
// RapidCheck prints a drawn case as its fuzz target's text form.
void showValue(const ProgramCase& c, std::ostream& os) { os << "\n" << print_program_case("fuzz_program", c); }
void showValue(const PlanCase& c, std::ostream& os) { os << "\n" << print_plan_case("fuzz_bind_plan", c); }
void showValue(const AttachCase& c, std::ostream& os) {
  os << "\n" << print_plan_case("fuzz_attach", with_placed_draws(c));
}
}  // namespace stackcheck::judge

namespace {

// The property's Judgement: a failure fails the property with the case as counterexample
// (and names the oracle), the first inconclusive verdict discards the case when it is done,
// a rejected case is inconclusive (its input was refused).
class PropertyJudgement final : public judge::Judgement {
 public:
  using Text = std::function<oracles::Counterexample()>;
  explicit PropertyJudgement(Text cx) : cx_(std::move(cx)) {}
  bool check(std::string_view oracle, const oracles::Verdict& v) override {
    if (v.failed()) fail(oracle, v);
    if (v.inconclusive() && !kept_) kept_ = v;
    return v.passed();
  }
  [[noreturn]] void fail(std::string_view oracle, const oracles::Verdict& v) override {
    oracles::Verdict named = v;
    named.message = fmt::format("{}: {}", oracle, v.message);
    props::report(named, cx_(), oracle);
    throw std::logic_error("a failing verdict was reported and returned");  // report() throws
  }
  int reject(std::string why) override {
    props::report(oracles::Verdict::inconclusive(oracles::Inconclusive::kInputRejected, why));
    return 0;
  }
  int done() override {
    if (kept_) props::report(*kept_);
    return 0;
  }

 private:
  Text cx_;
  std::optional<oracles::Verdict> kept_;
};

template <class Case>
oracles::Counterexample case_counterexample(const char* target, const Case& c, std::string text) {
  oracles::Counterexample cx{target, std::move(text), {}, "", ""};
  for (const auto& [k, v] : judge::replay_params(c)) cx.params[k] = v;
  return cx;
}

using ProgramJudge = std::function<int(judge::Judgement&, const judge::ProgramCase&)>;

void program_case(const ProgramJudge& judge_it) {
  const judge::ProgramCase pc =
      gen::draw_value<judge::ProgramCase>([](gen::ChoiceSource& c) { return judge::decode_program(c); });
  PropertyJudgement j([&] { return case_counterexample("fuzz_program", pc, ir::print_program(pc.program)); });
  judge_it(j, pc);
}

}  // namespace

STACKCHECK_PROP(AllTiers, fuzz_program_cases_pass_every_tier, 0.2) { program_case(judge::judge_program); }

STACKCHECK_PROP(AllTiers, fuzz_bind_plan_cases_pass_every_tier, 0.2) {
  const judge::PlanCase pc = gen::draw_value<judge::PlanCase>([](gen::ChoiceSource& c) { return judge::decode_plan(c); });
  PropertyJudgement j([&] { return case_counterexample("fuzz_bind_plan", pc, runtime::print_plan(pc.plan)); });
  judge::judge_plan(j, pc);
}

STACKCHECK_PROP(AllTiers, fuzz_attach_cases_pass_every_tier, 0.2) {
  const judge::AttachCase a =
      gen::draw_value<judge::AttachCase>([](gen::ChoiceSource& c) { return judge::decode_attach(c); });
  std::vector<runtime::Mutation> applied;
  PropertyJudgement j([&] {
    judge::PlanCase shown = a.plan;
    shown.plan.mutations = applied;
    return case_counterexample("fuzz_attach", shown, runtime::print_plan(shown.plan));
  });
  judge::judge_attach(j, a.plan, &a.draws, &applied);
}

// The positive control: the program judge run through a Judgement that turns the end-to-end
// oracle's pass into a failure (as a device result off by one would be judged): the property
// must fail, naming the oracle, with the case written as a fuzz_program text form.
namespace {
class OffByOne final : public judge::Judgement {
 public:
  explicit OffByOne(judge::Judgement& inner) : inner_(inner) {}
  bool check(std::string_view oracle, const oracles::Verdict& v) override {
    if (oracle == "end-to-end" && v.passed())
      return inner_.check(oracle, oracles::Verdict::fail("differential", "planted: element 0 off by one"));
    return inner_.check(oracle, v);
  }
  [[noreturn]] void fail(std::string_view oracle, const oracles::Verdict& v) override {
    inner_.fail(oracle, v);
    std::abort();  // (inner_.fail never returns; the attribute does not pass through the virtual call)
  }
  int reject(std::string why) override { return inner_.reject(std::move(why)); }
  int done() override { return inner_.done(); }

 private:
  judge::Judgement& inner_;
};
void off_by_one_case() {
  ++props::tally().cases;
  program_case([](judge::Judgement& j, const judge::ProgramCase& pc) {
    OffByOne wrapped(j);
    return judge::judge_program(wrapped, pc);
  });
}
}  // namespace

TEST(AllTiersControl, a_failing_end_to_end_verdict_fails_the_property_as_a_fuzz_program_case) {
  EXPECT_FATAL_FAILURE(rc::detail::checkGTest(&off_by_one_case), "end-to-end: planted: element 0 off by one");
  EXPECT_FATAL_FAILURE(rc::detail::checkGTest(&off_by_one_case), "replay: scripts/replay");
}

// The planted-code oracle's positive control: a generated plan said to plant code 8 (a wait
// timeout) that latches 9 first (an explicit fatal) fails "planted-latches"; said to plant 9, it
// passes every oracle of judge_plan.
namespace {
struct Stopped {};
class Recording final : public judge::Judgement {
 public:
  std::vector<std::string> failed;
  bool check(std::string_view oracle, const oracles::Verdict& v) override {
    if (v.failed()) failed.push_back(fmt::format("{}/{}", oracle, v.rule));
    return v.passed();
  }
  [[noreturn]] void fail(std::string_view oracle, const oracles::Verdict& v) override {
    failed.push_back(fmt::format("{}/{}", oracle, v.rule));
    throw Stopped{};
  }
  int reject(std::string) override { return 0; }
  int done() override { return 0; }
};
std::vector<std::string> judge_fatal_plan_said_to_plant(int planted) {
  auto parsed = judge::parse_bind_plan_case("tensor x: In [8]\nread v = x[0]\nif v != v + 1 {\n  fatal\n}\n");
  if (auto* why = std::get_if<std::string>(&parsed)) return {"parse: " + *why};
  judge::PlanCase pc = std::get<judge::PlanCase>(std::move(parsed));
  pc.generated = true;
  pc.planted = planted;
  Recording j;
  try {
    judge::judge_plan(j, pc);
  } catch (const Stopped&) {
  }
  return j.failed;
}
}  // namespace

TEST(AllTiersControl, a_plan_latching_another_code_than_its_planted_one_fails) {
  EXPECT_EQ(judge_fatal_plan_said_to_plant(8), std::vector<std::string>{"bind-structure/planted-latches"});
  EXPECT_EQ(judge_fatal_plan_said_to_plant(9), std::vector<std::string>{});
}
