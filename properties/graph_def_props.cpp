// Graph definitions forged past their hash (RUNTIME.md §9). A definition's hash is checked
// first, so a corrupted upload or a flipped byte only ever meets "definition hash": every rule
// after it (counts and §9 limits, section offsets, storage, internal_off, node ranges, argument
// sources, the two edge CSRs) is reached only by a definition whose hash was recomputed after
// the damage, which is what this property forges.
//
// A definition is drawn as a spec (1..16 nodes, or exactly the 1,024 limit; 0..128 boundary
// tensors and 0..64 boundary scalars, favouring the limits; internal allocations; nodes of up to
// the 32 tensor and 16 scalar arguments, each from the boundary, an internal allocation, a slot
// or a literal; fanin from earlier nodes) and encoded by the host encoder. It must validate, its
// header read back as encoded. Then one field is changed so that exactly one §9 rule breaks
// (every rule the validator checks before it still holds), the hash is recomputed, and
// validate_graph_def must refuse it for that rule: the forge predicts the rule, and the message
// must be that rule's. The forges are the graph-definition family of the rule catalog
// (gen/breakers/graph_def_edit.h: one entry per rule, the spec's field offsets written there,
// not read from the encoder's structs).
//
// Class of bug: a check of §9 dropped, weakened by one (`>` for `>=` at a limit), or moved after
// another (the refusal names a later rule); a limit refused at the limit itself. Not reached: a
// definition over INT32_MAX bytes (rule 4, it needs a 2 GiB buffer; total_bytes past the buffer
// is refused first). Control: a validator blind to kernel ids.
#include "properties/gen/arbitrary.h"
#include "properties/gen/breakers/graph_def_edit.h"
#include "properties/gen/tags.h"
#include "properties/property.h"
#include "stack/runtime/image/graph_def.h"
#include "stack/runtime/image/records.h"

#include <fmt/format.h>

#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <rapidcheck/gtest.h>

#include <cstring>
#include <functional>
#include <optional>
#include <regex>
#include <string>
#include <vector>

using namespace stackcheck;

namespace {

using oracles::Verdict;
namespace rt = stackcheck::runtime;

using gen::breakers::Forged;
using gen::breakers::get;
using gen::breakers::put;
constexpr int kEdits = gen::breakers::kGraphDefEdits;

// A definition within §9 (gen/breakers/graph_def_edit.h), tagged when it has the most nodes.
rt::GraphDefSpec draw_spec(gen::ChoiceSource& c) {
  rt::GraphDefSpec s = gen::breakers::draw_graph_def_spec(c);
  if (s.nodes.size() == rt::kGraphMaxNodes) gen::tag("nodes-at-limit");
  return s;
}

using Validator = std::function<std::optional<std::string>(std::span<const std::byte>, rt::GraphDefHeader*)>;

void judge_forged(const Validator& validate, const rt::GraphDefSpec& spec, const Forged& forged);
void forged_case(const Validator& validate, std::optional<int> only) {
  const rt::GraphDefSpec spec = gen::draw_value<rt::GraphDefSpec>(draw_spec);
  const std::vector<std::byte> good = rt::encode_graph_def(spec);
  rt::GraphDefHeader h{};
  if (auto why = validate(good, &h))
    props::report(Verdict::fail("graph-def", fmt::format("a definition within §9 is refused: {}", *why)));
  if (std::memcmp(&h, good.data(), sizeof h) != 0)
    props::report(Verdict::fail("graph-def", "the header read back differs from the encoded one"));
  // One edit, drawn; one with no place in this definition gives way to another (up to four).
  std::optional<Forged> f;
  for (int attempt = 0; attempt < 4 && !f; ++attempt) {
    const int kind = only ? *only : static_cast<int>(gen::choices().one_of(kEdits));
    // By value: RapidCheck replays the recipe while it shrinks, after this scope is gone.
    f = gen::draw_value<std::optional<Forged>>([good, kind](gen::ChoiceSource& c) { return gen::breakers::forge_graph_def(c, good, kind); });
  }
  if (!f) props::report(Verdict::inconclusive(oracles::Inconclusive::kUnsupported, "no place for the edit"));
  judge_forged(validate, spec, *f);
}

void judge_forged(const Validator& validate, const rt::GraphDefSpec& spec, const Forged& forged) {
  const Forged* f = &forged;
  gen::tag("forged-" + f->rule);
  const std::optional<std::string> why = validate(f->bytes, nullptr);
  const std::string context =
      fmt::format("{} nodes, {} boundary tensors, {} boundary scalars, {} internal: {} (rule {})", spec.nodes.size(),
                  spec.n_boundary_tensors, spec.n_boundary_scalars, spec.internal_bytes.size(), f->edit, f->rule);
  if (!why)
    props::report(Verdict::fail("graph-def-forged", fmt::format("accepted a forged definition: {}", context)));
  if (!std::regex_match(*why, std::regex(f->pattern)))
    props::report(Verdict::fail("graph-def-forged", fmt::format("refused a forged definition with \"{}\"; the rule "
                                                                "broken wants \"{}\": {}",
                                                                *why, f->pattern, context)));
}

std::optional<std::string> real_validator(std::span<const std::byte> b, rt::GraphDefHeader* h) {
  return rt::validate_graph_def_bytes(b, h);
}

}  // namespace

STACKCHECK_PROP(GraphDefProps, forged_definitions_refused_for_the_rule_broken, 0.05) {
  forged_case(real_validator, std::nullopt);
}

// Every one of the 24 edits forged in one drawn definition (each where it has a place), each
// judged as above: a rule's variants (a tensor argument's tag, rank or reserved word; each
// section offset) are met at 100 cases instead of four times each.
namespace {
void every_edit_case(const Validator& validate) {
  const rt::GraphDefSpec spec = gen::draw_value<rt::GraphDefSpec>(draw_spec);
  const std::vector<std::byte> good = rt::encode_graph_def(spec);
  if (auto why = validate(good, nullptr))
    props::report(Verdict::fail("graph-def", fmt::format("a definition within §9 is refused: {}", *why)));
  for (int kind = 0; kind < kEdits; ++kind) {
    const auto f =
        gen::draw_value<std::optional<Forged>>([good, kind](gen::ChoiceSource& c) { return gen::breakers::forge_graph_def(c, good, kind); });
    if (f) judge_forged(validate, spec, *f);
  }
}
}  // namespace
STACKCHECK_PROP(GraphDefProps, every_edit_forged_in_each_definition, 0.0) { every_edit_case(real_validator); }

namespace {
// The control's validator: the real one, except that it lets a bad kernel id through.
std::optional<std::string> blind_to_kernel_ids(std::span<const std::byte> b, rt::GraphDefHeader* h) {
  std::optional<std::string> why = rt::validate_graph_def_bytes(b, h);
  if (why && why->find("kernel id") != std::string::npos) return std::nullopt;
  return why;
}
}  // namespace

TEST(GraphDefPropsControl, a_validator_blind_to_kernel_ids_fails_every_edit) {
  EXPECT_FATAL_FAILURE(rc::detail::checkGTest([] {
                         ++props::tally().cases;
                         every_edit_case(blind_to_kernel_ids);
                       }),
                       "accepted a forged definition");
}
TEST(GraphDefPropsControl, a_validator_blind_to_kernel_ids_fails) {
  EXPECT_FATAL_FAILURE(rc::detail::checkGTest([] { forged_case(blind_to_kernel_ids, 14); }),
                       "accepted a forged definition");
}
