// fuzz_parse: raw bytes into the `.gir` parser. Oracles: the parser never crashes (any
// bytes) and every error has a line:column; an accepted program round-trips through the
// printer; the verifiers never crash on it. Text-form inputs are the same thing: `.gir` text
// is this target's raw form, so its text form is the input itself under the header line.
#include "fuzz/fuzz_target.h"
#include "properties/oracles/roundtrip.h"
#include "stack/ir/parser.h"
#include "stack/verify/well_formed.h"

const char* stackcheck::fuzz::target_name() { return "fuzz_parse"; }  // its text form: raw_text.cpp

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace stackcheck;
  fuzz::Judge judge(fuzz::target_name());
  ir::ParseResult r = ir::parse_program(fuzz::as_text(data, size));
  if (!r.ok()) {
    if (r.error().line == 0 || r.error().column == 0)
      judge.fail("parser", oracles::Verdict::fail("parse-error-location",
                                                  "parse error without line:column: " + r.error().to_string()));
    return judge.reject(r.error().to_string());
  }
  judge.observe([&] { return oracles::digest_program(support::kFnvOffset, r.program()); });
  judge.check("roundtrip", oracles::check_print_roundtrip(r.program()));
  (void)verify::check_well_formed(r.program());
  return judge.done();
}
