// What the generator targets (fuzz_program, fuzz_bind_plan, fuzz_attach) share around their
// judges (properties/judge/judges.h): how one input goes through a target (a text form parsed,
// raw bytes decoded) and its canonical text. Inline: a Judge notes outcomes in the replay
// build only (fuzz_target.h), so this compiles with each target.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <variant>

#include "fuzz/fuzz_target.h"
#include "properties/gen/choice.h"
#include "properties/judge/judges.h"

namespace stackcheck::fuzz {

// One input: a text form goes to `parse` (text -> variant<Case, std::string>: its error
// rejects the input), then to `judge(j, case)`; raw bytes go to `raw(j, choices)`, which
// decodes and judges them. Returns libFuzzer's 0.
template <class Parse, class JudgeCase, class Raw>
int run_input(const uint8_t* data, size_t size, Parse&& parse, JudgeCase&& judge, Raw&& raw) {
  Judge j(target_name());
  const std::string_view text = as_text(data, size);
  if (is_text_form(text)) {
    auto parsed = parse(text);
    if (auto* why = std::get_if<std::string>(&parsed)) return j.reject(*why);
    return judge(j, std::get<0>(parsed));
  }
  gen::ByteChoices c(std::span<const uint8_t>(data, size));
  return raw(j, c);
}

// The canonical text of an input: a text form as it is, under this target's header; raw bytes
// decoded and printed by `print_raw(choices)`.
template <class PrintRaw>
std::string case_text_form(std::span<const uint8_t> in, PrintRaw&& print_raw) {
  const std::string_view text = as_text(in.data(), in.size());
  if (is_text_form(text)) return with_header(target_name(), text);
  gen::ByteChoices c(in);
  return print_raw(c);
}

}  // namespace stackcheck::fuzz

// A generator target over one input kind of properties/judge/judges.h: its name, its text form
// (a text form as it is; raw bytes decoded by DECODE and printed by judge::print_case) and its
// LLVMFuzzerTestOneInput (a text form parsed by PARSE, raw bytes decoded; both judged by JUDGE,
// an overload set over the parsed and the decoded case).
#define STACKCHECK_CASE_TARGET(NAME, PARSE, DECODE, JUDGE)                                                    \
  namespace stackcheck::fuzz {                                                                                \
  const char* target_name() { return NAME; }                                                                  \
  bool parses_text_form() { return true; }                                                                    \
  std::string text_form(std::span<const uint8_t> in) {                                                        \
    return case_text_form(in, [](gen::ChoiceSource& c) { return judge::print_case(NAME, DECODE(c)); });       \
  }                                                                                                           \
  }                                                                                                           \
  extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {                                   \
    using namespace stackcheck;                                                                               \
    return fuzz::run_input(                                                                                   \
        data, size, PARSE, [](fuzz::Judge& j, const auto& parsed) { return JUDGE(j, parsed); },               \
        [](fuzz::Judge& j, gen::ChoiceSource& c) { return JUDGE(j, DECODE(c)); });                            \
  }
