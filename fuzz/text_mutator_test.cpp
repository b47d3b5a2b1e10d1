// The text targets' mutators (text_mutator.h) without libFuzzer: over the committed `.gir`
// seeds and 600 seeds each, most structural outputs parse and (fuzz_pipeline's options) are
// WellFormed, the byte share is what the options say, the same seed gives the same output, a
// buffer too small for the printed text falls back to bytes, and the crossover splices two
// programs or cuts two byte strings. Positive control: the same statistics over byte
// mutations alone (an inserted random byte) stay far below the bars.
#include "fuzz/text_mutator.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "stack/ir/parser.h"
#include "stack/support/splitmix.h"
#include "stack/verify/well_formed.h"

namespace stackcheck::fuzz {
namespace {

constexpr size_t kMax = 4096;

std::vector<std::string> seeds() {
  std::vector<std::string> out;
  const std::filesystem::path root = std::filesystem::path(STACKCHECK_SOURCE_DIR) / "corpus";
  for (const char* dir : {"programs", "fuzz_parse/seed", "fuzz_pipeline/seed"})
    for (const auto& e : std::filesystem::directory_iterator(root / dir)) {
      std::ifstream f(e.path());
      out.emplace_back(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
    }
  return out;
}

// A byte mutation as crude as libFuzzer's InsertByte: one random byte at a random place.
size_t insert_byte(uint8_t* data, size_t size, size_t max_size) {
  static support::SplitMix64 rng(7);
  if (size >= max_size) return size;
  const size_t at = rng.next() % (size + 1);
  std::memmove(data + at + 1, data + at, size - at);
  data[at] = static_cast<uint8_t>(rng.next());
  return size + 1;
}

struct Tally {
  std::map<TextMutation, int> kinds;
  std::map<TextMutation, std::pair<int, int>> by_kind;  // parsed, well-formed
  int structural = 0, parsed = 0, well_formed = 0;
  int from_well_formed = 0, stayed = 0;  // structural mutations of a WellFormed input; WellFormed after

  std::string describe() const {
    std::ostringstream o;
    o << parsed << " parse and " << well_formed << " are WellFormed of " << structural << " structural; " << stayed
      << " of " << from_well_formed << " from a WellFormed input stay so;";
    for (const auto& [k, n] : kinds)
      o << " " << text_mutation_name(k) << " " << n << " (" << (by_kind.count(k) ? by_kind.at(k).first : 0) << " parse, "
        << (by_kind.count(k) ? by_kind.at(k).second : 0) << " WellFormed)";
    return o.str();
  }
};

Tally run(const TextMutatorOptions& options, unsigned rounds) {
  Tally t;
  const std::vector<std::string> texts = seeds();
  for (unsigned seed = 0; seed < rounds; ++seed) {
    std::vector<uint8_t> buf(kMax);
    const std::string& in = texts[seed % texts.size()];
    const ir::ParseResult before = ir::parse_program(in);
    const bool wf_input = before.ok() && verify::check_well_formed(before.program()).empty();
    std::copy(in.begin(), in.end(), buf.begin());
    const TextMutationResult r = mutate_text(buf.data(), in.size(), kMax, seed, options, insert_byte);
    ++t.kinds[r.kind];
    if (r.kind == TextMutation::Bytes && options.bytes_percent < 100) continue;
    ++t.structural;
    t.from_well_formed += wf_input;
    const ir::ParseResult p = ir::parse_program(std::string_view(reinterpret_cast<const char*>(buf.data()), r.size));
    if (!p.ok()) continue;
    ++t.parsed;
    ++t.by_kind[r.kind].first;
    if (!verify::check_well_formed(p.program()).empty()) continue;
    ++t.well_formed;
    ++t.by_kind[r.kind].second;
    t.stayed += wf_input;
  }
  return t;
}

TEST(TextMutator, structural_outputs_parse_and_stay_well_formed_for_the_pipeline) {
  const Tally t = run(TextMutatorOptions{.want_well_formed = true}, 600);
  ASSERT_GT(t.structural, 400);
  EXPECT_GE(t.parsed * 100, t.structural * 98) << t.describe();
  std::printf("pipeline options: %s\n", t.describe().c_str());
  ASSERT_GT(t.from_well_formed, 200) << t.describe();
  EXPECT_GE(t.stayed * 100, t.from_well_formed * 70) << t.describe();
  for (TextMutation k : {TextMutation::Edit, TextMutation::Splice, TextMutation::Fresh, TextMutation::Bytes})
    EXPECT_GT(t.kinds.count(k) ? t.kinds.at(k) : 0, 20) << text_mutation_name(k);
  // The byte share is the option's (20% of 600 = 120; binomial sd ~10).
  EXPECT_NEAR(t.kinds.at(TextMutation::Bytes), 120, 40);
}

TEST(TextMutator, the_parser_target_keeps_edits_that_break_the_program) {
  const Tally t = run(TextMutatorOptions{}, 600);  // fuzz_parse: no redraws, no fallback
  EXPECT_GE(t.parsed * 100, t.structural * 75) << t.describe();
  EXPECT_LT(t.stayed * 100, t.from_well_formed * 70) << t.describe();  // edits left as drawn break it
}

TEST(TextMutator, byte_mutations_alone_fall_far_below_the_bars) {  // positive control of the statistic
  const Tally t = run(TextMutatorOptions{.bytes_percent = 100}, 600);
  ASSERT_EQ(t.kinds.at(TextMutation::Bytes), 600);
  EXPECT_LT(t.parsed * 100, t.structural * 75) << t.describe();
  EXPECT_LT(t.stayed * 100, t.from_well_formed * 70) << t.describe();
}

TEST(TextMutator, same_seed_same_output_and_a_small_buffer_falls_back_to_bytes) {
  const std::string in = seeds().front();
  int compared = 0;
  for (unsigned seed = 0; seed < 40; ++seed) {
    std::vector<uint8_t> a(kMax), b(kMax);
    std::copy(in.begin(), in.end(), a.begin());
    std::copy(in.begin(), in.end(), b.begin());
    const TextMutationResult ra = mutate_text(a.data(), in.size(), kMax, seed, {}, insert_byte);
    const TextMutationResult rb = mutate_text(b.data(), in.size(), kMax, seed, {}, insert_byte);
    EXPECT_EQ(ra.kind, rb.kind);
    if (ra.kind == TextMutation::Bytes) continue;  // the byte mutator here has state of its own
    ++compared;
    ASSERT_EQ(ra.size, rb.size);
    EXPECT_EQ(std::memcmp(a.data(), b.data(), ra.size), 0);
  }
  EXPECT_GT(compared, 20);
  std::vector<uint8_t> tiny(8, 'x');
  for (unsigned seed = 0; seed < 50; ++seed) {
    const TextMutationResult r = mutate_text(tiny.data(), 4, tiny.size(), seed, {}, insert_byte);
    EXPECT_EQ(r.kind, TextMutation::Bytes);  // no program prints in 8 bytes
    EXPECT_LE(r.size, tiny.size());
  }
}

TEST(TextMutator, crossover_splices_programs_or_cuts_bytes) {
  const std::vector<std::string> texts = seeds();
  const std::string& a = texts[0];
  const std::string b = generated_program_text(11);
  std::vector<uint8_t> out(kMax);
  int parsed = 0;
  for (unsigned seed = 0; seed < 50; ++seed) {
    const size_t n = crossover_text(reinterpret_cast<const uint8_t*>(a.data()), a.size(),
                                    reinterpret_cast<const uint8_t*>(b.data()), b.size(), out.data(), out.size(), seed);
    parsed += ir::parse_program(std::string_view(reinterpret_cast<const char*>(out.data()), n)).ok();
  }
  EXPECT_EQ(parsed, 50);
  const std::string bad_a = "not a program {{", bad_b = "tail bytes";
  const size_t n = crossover_text(reinterpret_cast<const uint8_t*>(bad_a.data()), bad_a.size(),
                                  reinterpret_cast<const uint8_t*>(bad_b.data()), bad_b.size(), out.data(), 64, 3);
  const std::string child(reinterpret_cast<const char*>(out.data()), n);
  size_t head = 0;  // a prefix of a, then a suffix of b
  while (head < child.size() && head < bad_a.size() && child[head] == bad_a[head]) ++head;
  bool ok = false;
  for (size_t h = 0; h <= head && !ok; ++h) {
    const std::string tail = child.substr(h);
    ok = bad_b.size() >= tail.size() && bad_b.compare(bad_b.size() - tail.size(), tail.size(), tail) == 0;
  }
  EXPECT_TRUE(ok) << child;
}

}  // namespace
}  // namespace stackcheck::fuzz
