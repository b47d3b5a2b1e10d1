// The image-mutation generator (mutation_gen.h) on the byte engine: every byte string gives
// 1..8 changes inside their targets, which apply_mutations applies to the same upload; the
// exhausted input gives the simplest change; a change that flips or steps a byte sees the
// earlier change of that byte (an offset is its draw modulo the target's size).
#include "properties/gen/mutation_gen.h"

#include <gtest/gtest.h>

#include "properties/oracles/image_mutation.h"
#include "stack/runtime/devmem/device_memory.h"
#include "stack/runtime/devmem/host_link.h"
#include "stack/support/splitmix.h"

namespace stackcheck::gen {
namespace {

TEST(MutationGen, random_bytes_give_changes_inside_their_targets) {
  support::SplitMix64 rng(5);
  runtime::DeviceMemory mem;
  runtime::HostLink link(mem);
  for (int round = 0; round < 300; ++round) {
    std::vector<uint8_t> bytes(rng.next() % 64);
    for (uint8_t& b : bytes) b = static_cast<uint8_t>(rng.next());
    const uint64_t header = 128, image = 128 + rng.next() % 4096;
    std::vector<std::byte> staged(header + image, std::byte{0x5A});
    ByteChoices c(bytes);
    const std::vector<runtime::Mutation> muts = generate_mutations(c, staged, header);
    ASSERT_GE(muts.size(), 1u);
    ASSERT_LE(muts.size(), 8u);
    for (const runtime::Mutation& m : muts)
      EXPECT_LT(m.offset, m.target == runtime::MutationTarget::kRuntimeHeader ? header : image);
    runtime::StagedUpload up{staged, header, image, runtime::DevAddr(), link};
    EXPECT_EQ(oracles::apply_mutations(muts, up), std::nullopt);
  }
}

TEST(MutationGen, exhausted_input_gives_the_simplest_change) {
  std::vector<std::byte> staged(128 + 256, std::byte{1});
  ByteChoices c({});
  const std::vector<runtime::Mutation> muts = generate_mutations(c, staged, 128);
  ASSERT_EQ(muts.size(), 1u);
  EXPECT_EQ(muts[0].target, runtime::MutationTarget::kRuntimeHeader);
  EXPECT_EQ(muts[0].offset, 0u);
  EXPECT_EQ(muts[0].value, 0u);
  EXPECT_TRUE(generate_mutations(c, {}, 0).empty());
}

TEST(MutationGen, steps_see_the_earlier_change_of_a_byte) {
  std::vector<std::byte> staged(128 + 256, std::byte{0x10});
  // Recorded choices: every change in the runtime header (focus 0), more than one change
  // (2 + 0), both at header byte 5: set 0x40, then flip bit 0.
  const std::vector<Choice> want = {{0, 6, 0},      {0, 1, 1},           {0, 6, 0},
                                    {0, 9, 0},      {0, 0xFFFF'FFFF, 5}, {0, 4, 0},
                                    {0, 255, 0x40}, {0, 9, 1},           {0, 0xFFFF'FFFF, 128 + 5},
                                    {0, 4, 3},      {0, 255, 8}};
  const std::vector<uint8_t> bytes = encode_choices(want);
  ByteChoices c(bytes);
  const std::vector<runtime::Mutation> muts = generate_mutations(c, staged, 128);
  ASSERT_EQ(muts.size(), 2u);
  EXPECT_EQ(muts[0].value, 0x40);
  EXPECT_EQ(muts[1].value, 0x41);
}

}  // namespace
}  // namespace stackcheck::gen
