// Where the judge of a case (judges.h) sends its verdicts (HARNESS.md §9). The oracle sequence
// for a program, a plan and a corrupted image is written once (judges.h); who runs it decides
// what a verdict does: the fuzz targets' Judge (fuzz/fuzz_target.h) prints a finding and aborts,
// or notes the outcome for the replay driver; a property's (judge_props.cpp) fails the property
// with the case's text form as its counterexample, or discards an inconclusive case.
// No RapidCheck, no libFuzzer here.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "properties/oracles/oracle.h"

namespace stackcheck::judge {

class Judgement {
 public:
  virtual ~Judgement() = default;
  // True on pass. A failure ends the judgement (fail() never returns); the first inconclusive
  // verdict is kept and makes the case inconclusive when it is done().
  virtual bool check(std::string_view oracle, const oracles::Verdict& v) = 0;
  // A failure found without an oracle function: never returns.
  [[noreturn]] virtual void fail(std::string_view oracle, const oracles::Verdict& v) = 0;
  // The case lies outside the judge's domain (changes of a text form that do not apply).
  virtual int reject(std::string why) = 0;
  // The case is judged; returns libFuzzer's 0.
  virtual int done() = 0;
  // A result of the run (a printed program, a bind's outcome: oracles/digest.h) folded into
  // the replay driver's determinism digest; `f` returns the digest and runs only when someone
  // keeps one (digesting()), so a libFuzzer run or a property pays nothing.
  template <class F>
  void observe(F&& f) {
    if (digesting()) observe_digest(f());
  }
  virtual bool digesting() const { return false; }
  virtual void observe_digest(uint64_t) {}
};

}  // namespace stackcheck::judge
