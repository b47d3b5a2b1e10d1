// The byte engine of the choice source (choice.h) and the program generator over it: every
// byte string decodes to a well-formed program that LegalizeGraphBoundary accepts, exhausted
// input takes the smallest choices, and recorded choices encode to bytes that replay them.
#include "properties/gen/choice.h"

#include <gtest/gtest.h>

#include <limits>

#include "properties/gen/program_gen.h"
#include "stack/ir/equal.h"
#include "stack/ir/printer.h"
#include "stack/passes/pipeline.h"
#include "stack/support/splitmix.h"
#include "stack/verify/well_formed.h"

namespace stackcheck::gen {
namespace {

TEST(ByteChoices, decodes_little_endian_modulo_the_range) {
  const std::vector<uint8_t> bytes = {7, 0x34, 0x12, 200};
  ByteChoices c(bytes);
  EXPECT_EQ(c.integer(0, 9), 7);           // one byte, 7 % 10
  EXPECT_EQ(c.integer(0, 65535), 0x1234);  // two bytes, little-endian
  EXPECT_EQ(c.integer(-5, 5), -5 + 200 % 11);
  EXPECT_TRUE(c.exhausted());
  EXPECT_EQ(c.integer(3, 1000), 3);  // exhausted: the smallest choice
  EXPECT_EQ(c.integer(4, 4), 4);     // a one-value range reads nothing
}

TEST(ByteChoices, bytes_per_range) {
  EXPECT_EQ(bytes_for_range(5, 5), 0u);
  EXPECT_EQ(bytes_for_range(0, 255), 1u);
  EXPECT_EQ(bytes_for_range(0, 256), 2u);
  EXPECT_EQ(bytes_for_range(std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()), 8u);
}

TEST(ByteChoices, encode_replays_recorded_choices_at_the_range_edges) {
  constexpr int64_t lo = std::numeric_limits<int64_t>::min(), hi = std::numeric_limits<int64_t>::max();
  const std::vector<Choice> want = {{0, 1, 1},      {lo, hi, lo}, {lo, hi, hi}, {lo, hi, -1},
                                    {-3, 300, 299}, {10, 10, 10}, {0, 255, 255}};
  const std::vector<uint8_t> bytes = encode_choices(want);
  ByteChoices c(bytes);
  for (const Choice& ch : want) EXPECT_EQ(c.integer(ch.lo, ch.hi), ch.value);
  EXPECT_TRUE(c.exhausted());
}

TEST(ByteChoices, recording_forwards_and_keeps_the_sequence) {
  const std::vector<uint8_t> bytes = {1, 2, 3};
  ByteChoices inner(bytes);
  RecordingChoices rec(inner);
  EXPECT_EQ(rec.integer(0, 9), 1);
  EXPECT_TRUE(rec.boolean() == false);  // 2 % 2
  EXPECT_EQ(rec.one_of(3), 0u);         // 3 % 3
  ASSERT_EQ(rec.choices().size(), 3u);
  EXPECT_EQ(rec.choices()[1], (Choice{0, 1, 0}));
}

// The generator's promise on the fuzzing engine: any bytes, a legal program.
TEST(ProgramGenBytes, random_byte_strings_decode_to_legal_programs) {
  support::SplitMix64 rng(20261201);
  size_t with_graphs = 0;
  for (int round = 0; round < 300; ++round) {
    std::vector<uint8_t> bytes(rng.next() % 2048);
    for (uint8_t& b : bytes) b = static_cast<uint8_t>(rng.next());
    ByteChoices c(bytes);
    const GeneratedProgram g = generate_program(c);
    const auto diags = verify::check_well_formed(g.program);
    ASSERT_TRUE(diags.empty()) << "round " << round << ": " << diags.front().render("<bytes>") << "\n"
                               << ir::print_program(g.program);
    const passes::PipelineResult r = passes::default_pipeline().run(g.program);
    ASSERT_TRUE(r.ok()) << "round " << round << ": " << r.message << "\n" << ir::print_program(g.program);
    for (const auto& f : g.program.functions) with_graphs += f.kind == ir::Function::Kind::Graph;
  }
  EXPECT_GT(with_graphs, 100u) << "random bytes should reach graphs";
}

TEST(ProgramGenBytes, empty_input_is_the_smallest_program) {
  ByteChoices c({});
  const GeneratedProgram g = generate_program(c);
  EXPECT_TRUE(verify::check_well_formed(g.program).empty());
  // No graph, an entry with its two tensors and nothing else.
  ASSERT_EQ(g.program.functions.size(), 1u);
  EXPECT_EQ(ir::print_program(g.program), "orchestration main(a: In tensor<i32>[16], c: InOut tensor<i32>[16]) {\n}\n");
}

TEST(ProgramGenBytes, decoding_is_deterministic) {
  const std::vector<uint8_t> bytes = {3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3, 2, 3, 8, 4, 6, 2, 6, 4, 3, 3};
  ByteChoices a(bytes), b(bytes);
  EXPECT_TRUE(ir::equal(generate_program(a).program, generate_program(b).program));
}

}  // namespace
}  // namespace stackcheck::gen
