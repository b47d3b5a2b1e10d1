// The text form of the targets whose raw input is text (fuzz_parse, fuzz_pipeline, and the
// replay driver's control): the input itself under the header line, taken as raw bytes (a
// text form is not parsed apart from them). Each defines only its target_name().
#include "fuzz/fuzz_target.h"

namespace stackcheck::fuzz {

bool parses_text_form() { return false; }

std::string text_form(std::span<const uint8_t> in) { return with_header(target_name(), as_text(in.data(), in.size())); }

}  // namespace stackcheck::fuzz
