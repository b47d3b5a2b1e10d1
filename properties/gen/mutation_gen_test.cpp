// The image-mutation generator (mutation_gen.h) on the byte engine: every byte string gives
// 1..8 changes inside their targets, which apply_mutations applies to the same upload; the
// exhausted input gives the simplest change; a change that flips or steps a byte sees the
// earlier change of that byte (an offset is its draw modulo the target's size).
#include "properties/gen/mutation_gen.h"

#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <set>
#include <string>

#include "properties/gen/limits.h"
#include "properties/gen/plan_gen.h"
#include "properties/gen/production_test_util.h"
#include "properties/oracles/image_checks.h"
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
    ASSERT_LE(muts.size(), 8u * 8u);  // 1..8 changes, a whole field's change up to 8 bytes
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

// Region 12: a whole field at a limit. Field 19 of the table is the ImageHeader's pitch (u32 @16).
TEST(MutationGen, a_field_change_rewrites_the_whole_field) {
  std::vector<std::byte> staged(128 + 256, std::byte{0});
  staged[128 + 16] = std::byte{0xFF};  // pitch 255
  const MutationDraw zero{12, 21, 1, 0}, plus_one{12, 21, 0, 1}, minus_128{12, 21, 0, 10};
  std::vector<runtime::Mutation> m = resolve_mutations(std::span(&zero, 1), staged, 128);
  ASSERT_EQ(m.size(), 4u);
  for (unsigned k = 0; k < 4; ++k) {
    EXPECT_EQ(m[k].target, runtime::MutationTarget::kImage);
    EXPECT_EQ(m[k].offset, 16u + k);
    EXPECT_EQ(m[k].value, 0u);
  }
  m = resolve_mutations(std::span(&plus_one, 1), staged, 128);  // 255 + 1 = 0x100
  ASSERT_EQ(m.size(), 4u);
  EXPECT_EQ(m[0].value, 0x00u);
  EXPECT_EQ(m[1].value, 0x01u);
  m = resolve_mutations(std::span(&minus_128, 1), staged, 128);  // 255 - 128 = 127
  ASSERT_EQ(m.size(), 4u);
  EXPECT_EQ(m[0].value, 127u);
  EXPECT_EQ(m[1].value, 0u);
  // A submission field (64: its definition_addr) where the upload has none (image_bytes @48 is
  // 256, the upload's end): one byte anywhere instead.
  staged[128 + 49] = std::byte{1};
  const MutationDraw sub{12, 64, 1, 0};
  m = resolve_mutations(std::span(&sub, 1), staged, 128);
  ASSERT_EQ(m.size(), 1u);
}

// The limits of the image mutations (limits.h): cases drawn as
// RuntimeExec.corrupt_images_rejected_or_run_safely draws them (a plan, a graph in half of them,
// its clean upload, then the changes from the same choices), the productions read from the
// upload's bytes before and after. A plan whose bind latches uploads nothing: no case, as the
// property makes it inconclusive.
std::map<std::string, int> mutation_productions(int n) {
  return count_productions(n, [](ChoiceSource& c, int) {
    PlanKnobs k;
    k.min_graphs = c.boolean() ? 1 : 0;
    const GeneratedPlan g = generate_plan(c, k);
    std::vector<std::byte> staged;
    uint64_t image_offset = 0;
    runtime::BindOptions o;
    o.before_upload = [&](runtime::StagedUpload& up) -> std::optional<std::string> {
      staged.assign(up.bytes.begin(), up.bytes.end());
      image_offset = up.image_offset;
      return "staged";  // nothing to run: the upload is all the generator needs
    };
    if (oracles::BenchLease bench = oracles::lease_bench(g.plan, 0xAA, false)) bench->bind(g.plan, o);
    if (staged.empty()) return std::set<std::string>{};
    const std::vector<runtime::Mutation> muts = generate_mutations(c, staged, image_offset);
    return image_mutation_productions(staged, image_offset, muts);
  });
}

TEST(GenLimits, image_mutations_reach_every_production) {
  const int n = 6000;
  expect_every_production("image mutations", n, image_mutation_production_universe(), mutation_productions(n));
}

TEST(GenLimitsControl, an_image_mutation_production_nobody_makes_is_reported) {
  expect_control_reports(image_mutation_production_universe(), mutation_productions(100));
}

}  // namespace
}  // namespace stackcheck::gen
