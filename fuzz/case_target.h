// What the generator targets (fuzz_program, fuzz_bind_plan, fuzz_attach) share around their
// oracles (cases.h): how one input goes through a target (a text form parsed, raw bytes
// decoded), its canonical text, the Bench a case binds on, and the plan-model and dependency
// oracles over one bind. Inline: a Judge notes outcomes in the replay build only
// (fuzz_target.h), so this compiles with each target.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

#include "properties/judge/cases.h"
#include "fuzz/fuzz_target.h"
#include "properties/gen/choice.h"
#include "properties/oracles/deps.h"
#include "properties/oracles/image_checks.h"
#include "properties/oracles/plan_model.h"

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

// The Bench a case binds `plan` on (0xAA device memory), or null with the config's outcome
// judged under `oracle`: a failure when the generator chose the config (`generator_config`),
// else inconclusive (unsupported).
inline std::unique_ptr<oracles::Bench> case_bench(Judge& j, std::string_view oracle, const runtime::OrchProgram& plan,
                                                  bool strict_uninit, bool generator_config) {
  std::string why;
  auto bench = oracles::Bench::create(plan, 0xAA, strict_uninit, &why);
  if (bench) return bench;
  if (generator_config) j.fail(oracle, oracles::Verdict::fail("config", "the generator's config was rejected: " + why));
  j.check(oracle, oracles::Verdict::inconclusive(oracles::Inconclusive::kUnsupported, "config rejected: " + why));
  return nullptr;
}

// A case's bind options: its seed and schedule.
template <class Case>
runtime::BindOptions case_bind_options(const Case& c) {
  runtime::BindOptions o;
  o.seed = c.seed;
  o.schedule = c.schedule;
  return o;
}

// Over one bind `c` on `bench`: plan-model, the device result == the sequential plan model
// (RUNTIME.md §15.11); deps, the dependency oracle on the shipped bytes, its provenance
// naming the model's plan lines (§15.10).
inline void check_model_and_deps(Judge& j, const oracles::Captured& c, oracles::Bench& bench,
                                 oracles::PlanModelResult model) {
  j.check("plan-model", oracles::check_plan_model(model, c.result));
  j.check("deps",
          oracles::check_captured_dependencies(c, bench.memory(), oracles::plan_provenance(std::move(model))).verdict);
}

}  // namespace stackcheck::fuzz
