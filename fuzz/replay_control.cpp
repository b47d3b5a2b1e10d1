// The replay driver's positive control (replay_contract_test.sh): a target whose outcome is
// its input, so every class and the finding path can be seen to work. Input (after the text
// form's header lines, if any): `fail` a finding (oracle control, rule forced, a message
// across two lines), `inconclusive` an inconclusive verdict, `reject` rejected, `crash` a
// plain abort (no finding lines), `drift` a pass whose observed result changes from run to
// run (a counter), `per-process` one that changes from process to process (the pid): the
// determinism check's positive controls (determinism_test.sh); anything else a pass. Not a
// fuzz target (no fuzz_ prefix).
#include <unistd.h>

#include <cstdlib>

#include "fuzz/fuzz_target.h"

const char* stackcheck::fuzz::target_name() { return "replay_control"; }  // its text form: raw_text.cpp

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace stackcheck;
  fuzz::Judge j(fuzz::target_name());
  std::string_view in = fuzz::as_text(data, size);
  while (!in.empty() && in.front() == '#') {  // the text form's comment lines
    const size_t nl = in.find('\n');
    in = nl == std::string_view::npos ? std::string_view() : in.substr(nl + 1);
  }
  while (!in.empty() && (in.back() == '\n' || in.back() == ' ')) in.remove_suffix(1);
  if (in == "fail") j.fail("control", oracles::Verdict::fail("forced", "a forced\nfinding"));
  if (in == "inconclusive")
    j.check("control", oracles::Verdict::inconclusive(oracles::Inconclusive::kInterpreterBudget, "forced"));
  if (in == "reject") return j.reject("forced");
  if (in == "crash") std::abort();
  static uint64_t runs = 0;  // the planted nondeterminism: state kept between inputs
  if (in == "drift") j.observe([] { return ++runs; });
  if (in == "per-process") j.observe([] { return static_cast<uint64_t>(getpid()); });
  return j.done();
}
