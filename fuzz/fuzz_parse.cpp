// fuzz_parse: raw bytes into the `.gir` parser. Oracles: the parser never crashes (any
// bytes); an accepted program round-trips through the printer; the verifiers never crash
// on it. Text-form inputs are the same thing: `.gir` text is this target's raw form.
#include "fuzz/fuzz_target.h"
#include "properties/oracles/roundtrip.h"
#include "stack/ir/parser.h"
#include "stack/verify/well_formed.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace stackcheck;
  ir::ParseResult r = ir::parse_program(fuzz::as_text(data, size));
  if (!r.ok()) {
    if (r.error().line == 0 || r.error().column == 0)
      fuzz::report_finding("fuzz_parse",
                           oracles::Verdict::fail("parse-error-location", "parse error without line:column"));
    return 0;
  }
  oracles::Verdict v = oracles::check_print_roundtrip(r.program());
  if (v.failed()) fuzz::report_finding("fuzz_parse", v);
  (void)verify::check_well_formed(r.program());
  return 0;
}
