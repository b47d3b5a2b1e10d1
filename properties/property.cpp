#include "properties/property.h"

#include <fmt/format.h>

#include <rapidcheck/detail/Configuration.h>
#include <rapidcheck/detail/ImplicitParam.h>
#include <rapidcheck/detail/PropertyContext.h>

#include "properties/gen/arbitrary.h"
#include "properties/oracles/input_oracles.h"
#include "stack/ir/printer.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

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

namespace {
// The byte engine's state for the running body: which property, and what report() said last
// before it unwound (the finding's oracle and verdict).
struct BytesRun {
  const Property* property = nullptr;
  bool reported = false;
  std::string oracle;
  oracles::Verdict verdict;
  std::string text;
};
BytesRun*& bytes_run() {
  thread_local BytesRun* r = nullptr;
  return r;
}
void note_report(std::string_view oracle, const oracles::Verdict& v, const std::string& text = "") {
  if (BytesRun* r = bytes_run()) {
    r->reported = true;
    r->oracle = std::string(oracle);
    r->verdict = v;
    r->text = text;
  }
}
}  // namespace

std::string replay_command() {
  if (const BytesRun* r = bytes_run())
    return fmt::format("replay: scripts/replay <this input> (or fuzz_props_replay --property={} FILE)", r->property->name);
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  const auto seed = rc::detail::configuration().testParams.seed;
  return fmt::format("replay: RC_PARAMS=\"seed={}\" {} --gtest_filter='{}.{}'", seed, program_name(),
                     info ? info->test_suite_name() : "*", info ? info->name() : "*");
}

void report(const oracles::Verdict& v) { report(v, ""); }

namespace {
const auto kProcessStart = std::chrono::steady_clock::now();

// The first failing case of the process, before RapidCheck shrinks it: one stderr line with
// the seconds since the process started, so a caller (scripts/zoo) can tell the time to detect
// from the time to a shrunk counterexample.
void note_first_failure() {
  static bool noted = false;
  if (noted) return;
  noted = true;
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - kProcessStart).count();
  std::fprintf(stderr, "stackcheck: first failing case at %.3f s\n", s);
  std::fflush(stderr);
}
}  // namespace

void report(const oracles::Verdict& v, const std::string& context) {
  if (v.passed()) return;
  if (v.inconclusive()) {
    ++tally().inconclusive;
    ++tally().by_reason[v.reason_key()];
    note_report("property", v);
    RC_DISCARD(v.to_string());
  }
  note_first_failure();
  oracles::Verdict noted = v;
  if (!context.empty()) noted.message = context + ": " + v.message;
  note_report("property", noted);
  RC_FAIL(fmt::format("{}{}{}\n{}", context, context.empty() ? "" : ": ", v.to_string(), replay_command()));
}

std::string counterexample_dir() {
  if (const char* d = std::getenv("STACKCHECK_COUNTEREXAMPLES")) return d;
  return STACKCHECK_COUNTEREXAMPLE_DIR;
}

void report(const oracles::Verdict& v, oracles::Counterexample cx) { report(v, std::move(cx), ""); }

void report(const oracles::Verdict& v, oracles::Counterexample cx, std::string_view oracle) {
  if (!v.failed()) {
    report(v);
    return;
  }
  note_first_failure();
  note_report(oracle.empty() ? std::string_view(cx.oracle) : oracle, v, cx.text);
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  const std::string name = bytes_run() ? bytes_run()->property->name
                           : info      ? fmt::format("{}.{}", info->test_suite_name(), info->name())
                                       : "property";
  cx.failed = v.to_string();
  cx.found_by = fmt::format("{} ({})", name, replay_command().substr(8));
  // The text's own form: a program holds its `orchestration` function.
  const bool program = cx.text.rfind("orchestration ", 0) == 0 || cx.text.find("\norchestration ") != std::string::npos;
  const std::string path = fmt::format("{}/{}.{}", counterexample_dir(), name, program ? "gir" : "plan");
  std::error_code ec;
  std::filesystem::create_directories(counterexample_dir(), ec);
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << oracles::write_counterexample(cx);
  }
  std::filesystem::rename(tmp, path, ec);
  if (cx.oracle == "property")
    RC_FAIL(fmt::format("{}\n{}\ncounterexample: {}\n{}", cx.text, v.to_string(), path, replay_command()));
  if (cx.oracle.rfind("fuzz_", 0) == 0)  // a fuzz target's text form: its replay driver reruns it
    RC_FAIL(fmt::format("{}\n{}\ncounterexample: {}\nreplay: scripts/replay {}\n{}", cx.text, v.to_string(), path,
                        path, replay_command()));
  RC_FAIL(fmt::format("{}\n{}\ncounterexample: {}\nreplay: stackcheck replay {}\n{}", cx.text, v.to_string(), path,
                      path, replay_command()));
}

oracles::Counterexample counterexample(std::string oracle, std::string text,
                                       std::map<std::string, std::string> params) {
  return oracles::Counterexample{std::move(oracle), std::move(text), std::move(params), "", ""};
}

namespace {
size_t case_index = 0;  // the running property's cases so far (run_case)
}  // namespace

void begin_property() {
  tally() = Tally();
  case_index = 0;
}

void run_case(void (*body)()) {
  ++tally().cases;
#ifdef STACKCHECK_SCHEMATA
  // A skipped case ends as the baseline's case k did (passed, discarded, discarded as
  // inconclusive), so RapidCheck's sizes and the inconclusive share stay the baseline's: each
  // case draws from its own split of the seed, whatever the cases before it did.
  namespace sw = ::stackcheck_schemata;
  const size_t k = case_index++;
  const char plan = sw::case_plan(k);
  if (plan == 'p') return;
  if (plan == 'i') ++tally().inconclusive;
  if (plan == 'i' || plan == 'd') RC_DISCARD("skipped: the case does not reach the active mutant");
  const size_t inconclusive = tally().inconclusive;
  sw::case_begin();
  try {
    body();
  } catch (const rc::detail::CaseResult& r) {
    using Type = rc::detail::CaseResult::Type;
    sw::case_end(k, r.type == Type::Success ? 'p'
                    : r.type == Type::Failure ? 'f'
                    : tally().inconclusive > inconclusive ? 'i'
                                                          : 'd');
    throw;
  } catch (...) {
    sw::case_end(k, 'f');
    throw;
  }
  sw::case_end(k, 'p');
#else
  body();
#endif
}

namespace {
std::vector<Property>& registry() {
  static std::vector<Property> r;
  return r;
}

// The property context of a body run on bytes: RC_TAG and RC_CLASSIFY go nowhere, results are
// reported by throwing (RC_FAIL, RC_ASSERT, RC_PRE and RC_DISCARD all throw a CaseResult).
class BytesContext final : public rc::detail::PropertyContext {
 public:
  bool reportResult(const rc::detail::CaseResult&) override { return false; }
  std::ostream& logStream() override { return log_; }
  void addTag(std::string) override {}

 private:
  std::ostringstream log_;
};
}  // namespace

const std::vector<Property>& properties() { return registry(); }

const Property* find_property(std::string_view name) {
  for (const Property& p : registry())
    if (p.name == name) return &p;
  return nullptr;
}

bool register_property(const char* suite, const char* name, double bound, void (*body)()) {
  registry().push_back(Property{fmt::format("{}.{}", suite, name), bound, body});
  return true;
}

BytesOutcome run_on_bytes(const Property& p, gen::ChoiceSource& c) {
  BytesRun run;
  run.property = &p;
  BytesRun* const saved = bytes_run();
  bytes_run() = &run;
  BytesOutcome out;
  {
    gen::ScopedChoices scope(c);
    BytesContext context;
    rc::detail::ImplicitParam<rc::detail::param::CurrentPropertyContext> let(&context);
    auto fail = [&](std::string oracle, oracles::Verdict v) {
      out.kind = BytesOutcome::Kind::kFail;
      out.oracle = std::move(oracle);
      out.verdict = std::move(v);
    };
    try {
      ++tally().cases;
      p.body();
    } catch (const rc::detail::CaseResult& r) {
      if (r.type == rc::detail::CaseResult::Type::Discard) {
        out.kind = BytesOutcome::Kind::kInconclusive;
        out.oracle = "property";
        out.verdict = run.reported && run.verdict.inconclusive()
                          ? run.verdict
                          : oracles::Verdict::inconclusive(oracles::Inconclusive::kUnsupported, r.description);
      } else if (r.type == rc::detail::CaseResult::Type::Failure) {
        if (run.reported && run.verdict.failed()) {
          fail(run.oracle, run.verdict);
          out.text = run.text;
        } else {
          fail("(test assertion)", oracles::Verdict::fail("assertion", r.description));
        }
      }
    } catch (const rc::GenerationFailure& e) {
      out.kind = BytesOutcome::Kind::kInconclusive;
      out.oracle = "property";
      out.verdict = oracles::Verdict::inconclusive(oracles::Inconclusive::kUnsupported,
                                                   std::string("generation failed: ") + e.what());
    } catch (const std::exception& e) {
      fail("exception", oracles::Verdict::fail("exception", std::string("exception thrown: ") + e.what()));
    }
    out.drawn = gen::drawn_values();
  }
  bytes_run() = saved;
  return out;
}

void end_property(double bound) {
  const Tally& t = tally();
  if (t.cases == 0) return;
  const double share = static_cast<double>(t.inconclusive) / static_cast<double>(t.cases);
  EXPECT_LE(share, bound) << fmt::format(
      "the property tested nothing: {:.1f}% of its cases were inconclusive (bound {:.1f}%): {}", 100 * share,
      100 * bound, t.table());
}

void require_legal_compile(const ir::Program& p, bool step_c) {
  oracles::Verdict v = oracles::check_boundary(p, step_c);
  if (v.reason == oracles::Inconclusive::kInputRejected) v = oracles::Verdict::fail("false-rejection", v.message);
  if (v.passed()) return;
  report(v, counterexample("boundary", ir::print_program(p), {{"step_c", step_c ? "1" : "0"}, {"legal", "1"}}));
}

}  // namespace stackcheck::props
