// Shared plumbing of the fuzz targets (HARNESS.md §4): how a target judges one input and
// reports what it found, and the text form every target reads.
//
// A target runs its oracles through a Judge. A failing verdict is a finding: report_finding
// prints, on stderr,
//   # stackcheck <target>
//   # oracle: <oracle>
//   # rule: <rule>
//   # message: <the verdict's message on one line>
// and aborts, which libFuzzer treats as a crash (it saves the input) and the replay driver
// sees the same way, so ctest fails on the same file. Otherwise the Judge notes the input's
// outcome (pass, inconclusive with its reason, or rejected: outside the target's domain).
//
// The replay driver (replay_main.cpp, built with STACKCHECK_FUZZ_REPLAY) is the only reader
// of those notes: it classifies files (`--classify`) and, there, a finding unwinds to it
// instead of aborting. In the libFuzzer build the notes compile to nothing and a finding
// aborts directly, so no state survives from one input to the next.
//
// Text form: an input whose first line starts with `# stackcheck` is parsed (.gir or .plan
// with the target's parameters on `# replay:` comment lines, oracles/replay.h), not decoded;
// every other comment line after the first is ignored. Each target also defines
// text_form(), the canonical text of any input (the replay driver's `--text`).
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string>
#include <string_view>

#include "properties/judge/judgement.h"
#include "properties/oracles/digest.h"
#include "properties/oracles/oracle.h"

namespace stackcheck::fuzz {

// What one input came to.
struct Outcome {
  enum class Kind : uint8_t { kPass, kInconclusive, kRejected, kFail };
  Kind kind = Kind::kPass;
  std::string oracle;        // kInconclusive, kFail: the oracle that answered
  oracles::Verdict verdict;  // kInconclusive, kFail
  std::string why;           // kRejected: why the input is outside the domain
  // Replay build only: every verdict and every result the target observed, folded
  // (oracles/digest.h); the driver's `--hash` compares it between runs.
  uint64_t digest = 0;

  // pass | inconclusive:<reason_key> | rejected | fail:<oracle>/<rule>
  std::string class_name() const {
    switch (kind) {
      case Kind::kPass: return "pass";
      case Kind::kInconclusive: return "inconclusive:" + verdict.reason_key();
      case Kind::kRejected: return "rejected";
      case Kind::kFail: return "fail:" + oracle + "/" + verdict.rule;
    }
    return "?";
  }
};

// The finding's lines (report_finding's stderr output), the message on one line.
inline std::string finding_text(const char* target, std::string_view oracle, const oracles::Verdict& v) {
  std::string message = v.message;
  for (char& c : message)
    if (c == '\n' || c == '\r') c = ' ';
  return std::string("# stackcheck ") + target + "\n# oracle: " + std::string(oracle) + "\n# rule: " + v.rule +
         "\n# message: " + message + "\n";
}

#if defined(STACKCHECK_FUZZ_REPLAY)
// Defined by the replay driver: records the outcome of the running input.
void replay_note_outcome(const Outcome& o);
// Defined by the replay driver: prints and aborts, or (classifying) unwinds to the driver.
[[noreturn]] void replay_report_finding(const char* target, std::string_view oracle, const oracles::Verdict& v);
#endif

[[noreturn]] inline void report_finding(const char* target, std::string_view oracle, const oracles::Verdict& v) {
#if defined(STACKCHECK_FUZZ_REPLAY)
  replay_report_finding(target, oracle, v);
#else
  const std::string text = finding_text(target, oracle, v);
  std::fputs(text.c_str(), stderr);
  std::fflush(stderr);
  std::abort();
#endif
}

inline void note_outcome(const Outcome& o) {
#if defined(STACKCHECK_FUZZ_REPLAY)
  replay_note_outcome(o);
#else
  (void)o;
#endif
}

// Judges one input (a judges.h judge, or a target's own oracles): each oracle's verdict goes
// through check(); the first failure is a finding (never returns), the first inconclusive
// verdict is kept; done() notes the outcome.
class Judge final : public judge::Judgement {
 public:
  explicit Judge(const char* target) : target_(target) {}
  // True on pass. A fail reports the finding; an inconclusive verdict is kept (the first).
  bool check(std::string_view oracle, const oracles::Verdict& v) override {
    if (v.failed()) report_finding(target_, oracle, v);
    observe([&] {
      uint64_t h = oracles::digest_text(oracles::digest_text(support::kFnvOffset, oracle), v.rule);
      return oracles::digest_text(oracles::digest_u64(h, static_cast<uint64_t>(v.kind)), v.message);
    });
    if (v.inconclusive() && out_.kind == Outcome::Kind::kPass) {
      out_.kind = Outcome::Kind::kInconclusive;
      out_.oracle = std::string(oracle);
      out_.verdict = v;
    }
    return v.passed();
  }
  // A failure found without an oracle function: the finding (never returns).
  [[noreturn]] void fail(std::string_view oracle, const oracles::Verdict& v) override {
    report_finding(target_, oracle, v);
  }
  // The input lies outside the target's domain (a text that does not parse, bad parameters).
  int reject(std::string why) override {
    out_.kind = Outcome::Kind::kRejected;
    observe([&] { return oracles::digest_text(support::kFnvOffset, why); });
    out_.why = std::move(why);
    return done();
  }
  // Results of the run fold into the outcome's digest in the replay build only, so the
  // libFuzzer build pays nothing.
  bool digesting() const override {
#if defined(STACKCHECK_FUZZ_REPLAY)
    return true;
#else
    return false;
#endif
  }
  void observe_digest(uint64_t d) override { out_.digest = oracles::digest_u64(out_.digest, d); }
  // Notes the outcome for the replay driver; returns libFuzzer's 0.
  int done() override {
    note_outcome(out_);
    return 0;
  }

 private:
  const char* target_;
  Outcome out_;
};

inline std::string_view as_text(const uint8_t* data, size_t size) {
  return size == 0 ? std::string_view() : std::string_view(reinterpret_cast<const char*>(data), size);
}

// True when the input is the readable text form: first line starts with "# stackcheck".
inline bool is_text_form(std::string_view in) { return in.rfind("# stackcheck", 0) == 0; }

// `text` headed by `# stackcheck <target>`: unchanged when its first line is exactly that,
// else with that line prepended (an old first line stays, as a comment).
inline std::string with_header(const char* target, std::string_view text) {
  const std::string head = std::string("# stackcheck ") + target + "\n";
  if (text.rfind(head, 0) == 0) return std::string(text);
  return head + std::string(text);
}

// Defined by each target: its name, and the canonical text form of `input` (first line
// `# stackcheck <target>`): raw bytes decoded and printed, a text form as it is. Used by the
// replay driver only.
const char* target_name();
std::string text_form(std::span<const uint8_t> input);
// True when the target parses its text form (a `.gir`/`.plan` with `# replay:` lines) rather
// than taking the text as raw bytes (fuzz_parse, fuzz_pipeline): a text-form file such a
// target rejects is a broken corpus file, which the replay driver reports.
bool parses_text_form();

}  // namespace stackcheck::fuzz
