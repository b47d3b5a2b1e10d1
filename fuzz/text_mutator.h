// Structure-aware mutation for the text targets (fuzz_parse, fuzz_pipeline; HARNESS.md §5):
// byte mutations of `.gir` text break its syntax, so most of what libFuzzer's own mutators
// make is text the parser rejects. These mutators work on the program instead and print it,
// so most of their outputs parse, and most of fuzz_pipeline's are WellFormed too:
//   - edit: parse, make one edit, print: a cheap one (a literal to a value near it or at a
//     boundary, an operator, a comparison, a param's direction, a statement dropped, repeated
//     or moved one place) or, one time in five, one of gen::ir_edit_sites's one-field edits (a
//     name, a kind, a dim, a function dropped or repeated, ...); for fuzz_pipeline an edit that
//     breaks WellFormed is redrawn a few times, and text the parser refuses is replaced;
//   - splice: one function of the input replaced by the same-kind function of a generated
//     program (judge::decode_program over seeded bytes), or appended when it has none;
//   - fresh: a generated program, printed (also the answer to text that does not parse);
//   - bytes: the engine's own byte mutation, a fixed share of the time, so that the parser's
//     error paths stay fuzzed.
// The crossover parses both parents and gives the first one a function of the second; when
// either does not parse it cuts both byte strings at one point each and joins them.
// The engine's byte mutator is passed in, so the core runs without libFuzzer (the unit test);
// text_mutator_hooks.cpp defines LLVMFuzzerCustomMutator/CrossOver over it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

namespace stackcheck::fuzz {

enum class TextMutation : uint8_t { Bytes, Edit, Splice, Fresh };
const char* text_mutation_name(TextMutation m);

struct TextMutatorOptions {
  bool want_well_formed = false;  // fuzz_pipeline: redraw edits that break WellFormed
  unsigned bytes_percent = 20;    // the share left to the engine's byte mutation
};

// The engine's byte mutation: (data, size, max_size) -> new size, in place.
using ByteMutate = std::function<size_t(uint8_t*, size_t, size_t)>;

struct TextMutationResult {
  size_t size = 0;
  TextMutation kind = TextMutation::Bytes;
};

// Mutates data[0, size) in place (at most max_size bytes) as the seed decides.
TextMutationResult mutate_text(uint8_t* data, size_t size, size_t max_size, unsigned seed,
                               const TextMutatorOptions& options, const ByteMutate& bytes);

// Writes a child of a and b to out (at most max_out bytes); returns its size.
size_t crossover_text(const uint8_t* a, size_t a_size, const uint8_t* b, size_t b_size, uint8_t* out, size_t max_out,
                      unsigned seed);

// A generated program's text (the printer's), from a seed.
std::string generated_program_text(uint64_t seed);

}  // namespace stackcheck::fuzz
