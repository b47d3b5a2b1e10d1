// The text targets' structure-aware mutators (text_mutator.h).
#include "fuzz/text_mutator.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "properties/gen/choice.h"
#include "properties/gen/ir_edits.h"
#include "properties/judge/judges.h"
#include "stack/ir/parser.h"
#include "stack/ir/printer.h"
#include "stack/support/splitmix.h"
#include "stack/verify/well_formed.h"

namespace stackcheck::fuzz {

namespace {

constexpr size_t kGeneratorBytes = 512;  // seeded bytes a generated program is decoded from
constexpr unsigned kRedraws = 8;         // fuzz_pipeline: edits or donors tried before one that breaks WellFormed is kept

std::optional<ir::Program> parse_text(const uint8_t* data, size_t size) {
  ir::ParseLimits limits;
  limits.max_bytes = 64 << 10;
  ir::ParseResult r = ir::parse_program(std::string_view(reinterpret_cast<const char*>(data), size), limits);
  if (!r.ok()) return std::nullopt;
  return std::move(r.program());
}

ir::Program generated_program(uint64_t seed) {
  support::SplitMix64 rng(seed);
  std::vector<uint8_t> bytes(kGeneratorBytes);
  for (size_t i = 0; i < bytes.size(); i += 8) {
    const uint64_t v = rng.next();
    std::memcpy(bytes.data() + i, &v, std::min<size_t>(8, bytes.size() - i));
  }
  gen::ByteChoices c{std::span<const uint8_t>(bytes)};
  return judge::decode_program(c).program;
}

// Writes `text` over the buffer when it fits; else leaves it and returns nullopt.
std::optional<size_t> put(const std::string& text, uint8_t* data, size_t max_size) {
  if (text.empty() || text.size() > max_size) return std::nullopt;
  std::memcpy(data, text.data(), text.size());
  return text.size();
}

bool well_formed(const ir::Program& p) { return verify::check_well_formed(p).empty(); }

// One to three edits. With `keep_well_formed` (fuzz_pipeline, on a WellFormed input) an edit
// that breaks WellFormed is redrawn, up to kRedraws times; most one-field edits do (a renamed
// use, a dim), so the ones that stay are the value edits the pipeline can take.
// Returns how many edits it made: with `keep_well_formed` an edit none of whose redraws stays
// WellFormed is not made.
unsigned edit(ir::Program& p, support::SplitMix64& rng, bool keep_well_formed) {
  const unsigned n = 1 + static_cast<unsigned>(rng.next() % 3);
  unsigned made = 0;
  for (unsigned k = 0; k < n; ++k) {
    const std::vector<gen::IrEdit> sites = gen::ir_edit_sites(p);
    if (sites.empty()) break;
    for (unsigned attempt = 0; attempt < kRedraws; ++attempt) {
      ir::Program next = p;
      sites[rng.next() % sites.size()].apply(next);
      if (!keep_well_formed || well_formed(next)) {
        p = std::move(next);
        ++made;
        break;
      }
    }
  }
  return made;
}

// A function of `donor` of the same kind as a function of `p` takes its place (its name kept,
// so the calls to it still resolve), or is appended when `p` has none of that kind. With
// `keep_well_formed`, another donor function is tried (kRedraws times) while the result is not.
void splice(ir::Program& p, const ir::Program& donor, support::SplitMix64& rng, bool keep_well_formed) {
  if (donor.functions.empty()) return;
  for (unsigned attempt = 0;; ++attempt) {
    ir::Program next = p;
    const ir::Function& f = donor.functions[rng.next() % donor.functions.size()];
    std::vector<size_t> same;
    for (size_t i = 0; i < next.functions.size(); ++i)
      if (next.functions[i].kind == f.kind) same.push_back(i);
    if (same.empty()) {
      next.functions.push_back(f);
    } else {
      ir::Function& into = next.functions[same[rng.next() % same.size()]];
      std::string name = std::move(into.name);
      into = f;
      into.name = std::move(name);
    }
    if (!keep_well_formed || attempt + 1 >= kRedraws || well_formed(next)) {
      p = std::move(next);
      return;
    }
  }
}

bool parses(const std::string& text) {
  ir::ParseLimits limits;
  limits.max_bytes = 64 << 10;
  return ir::parse_program(text, limits).ok();
}

}  // namespace

const char* text_mutation_name(TextMutation m) {
  switch (m) {
    case TextMutation::Bytes: return "bytes";
    case TextMutation::Edit: return "edit";
    case TextMutation::Splice: return "splice";
    case TextMutation::Fresh: return "fresh";
  }
  return "?";
}

std::string generated_program_text(uint64_t seed) { return ir::print_program(generated_program(seed)); }

TextMutationResult mutate_text(uint8_t* data, size_t size, size_t max_size, unsigned seed,
                               const TextMutatorOptions& options, const ByteMutate& bytes) {
  support::SplitMix64 rng(seed);
  const auto by_bytes = [&] { return TextMutationResult{bytes(data, size, max_size), TextMutation::Bytes}; };
  if (rng.next() % 100 < options.bytes_percent) return by_bytes();
  std::optional<ir::Program> p = parse_text(data, size);
  const uint64_t roll = rng.next() % 100;
  const bool keep = options.want_well_formed && p && well_formed(*p);
  TextMutation kind = TextMutation::Fresh;
  if (!p || roll >= 85) {
    p = generated_program(rng.next());
  } else if (roll >= 60) {
    splice(*p, generated_program(rng.next()), rng, keep);
    kind = TextMutation::Splice;
  } else if (edit(*p, rng, keep) > 0) {
    kind = TextMutation::Edit;
  } else {  // no edit kept it WellFormed: a generated program rather than the input again
    p = generated_program(rng.next());
  }
  std::string text = ir::print_program(*p);
  // A few edits print text the parser refuses (a dtype, a rank-0 tensor): fine for the parser's
  // target, a wasted input for the pipeline's, which gets a generated program instead.
  if (options.want_well_formed && kind != TextMutation::Fresh && !parses(text)) {
    text = ir::print_program(generated_program(rng.next()));
    kind = TextMutation::Fresh;
  }
  if (const std::optional<size_t> n = put(text, data, max_size)) return {*n, kind};
  return by_bytes();  // too long to print in place
}

size_t crossover_text(const uint8_t* a, size_t a_size, const uint8_t* b, size_t b_size, uint8_t* out, size_t max_out,
                      unsigned seed) {
  support::SplitMix64 rng(seed);
  std::optional<ir::Program> pa = parse_text(a, a_size);
  const std::optional<ir::Program> pb = pa ? parse_text(b, b_size) : std::nullopt;
  if (pa && pb) {
    splice(*pa, *pb, rng, false);
    if (const std::optional<size_t> n = put(ir::print_program(*pa), out, max_out)) return *n;
  }
  // One cut in each: a's head, b's tail.
  const size_t cut_a = a_size == 0 ? 0 : rng.next() % (a_size + 1);
  const size_t cut_b = b_size == 0 ? 0 : rng.next() % (b_size + 1);
  const size_t head = std::min(cut_a, max_out);
  const size_t tail = std::min(b_size - cut_b, max_out - head);
  std::memcpy(out, a, head);
  std::memcpy(out + head, b + cut_b, tail);
  return head + tail;
}

}  // namespace stackcheck::fuzz
