// The mutation hook (image_mutation.h): a plan's `mutate` lines reach attach through bind's
// before-upload hook, the runtime header included; offsets past their target stop the bind
// before anything is uploaded; a plan without mutate lines gets no hook.
#include "properties/oracles/image_mutation.h"

#include <gtest/gtest.h>

#include <string_view>

#include "stack/runtime/plan/parser.h"

namespace stackcheck::oracles {
namespace {

constexpr const char* kPlan = "tensor c: InOut [8]\nsubmit fill(output_existing c, scalar 1)\n";

runtime::BindResult bind_with_lines(std::string_view mutate_lines) {
  const runtime::PlanParseResult parsed = runtime::parse_plan(std::string(kPlan) + std::string(mutate_lines));
  EXPECT_TRUE(parsed.ok()) << parsed.error().to_string();
  if (!parsed.ok()) return {};
  runtime::BindOptions opts;
  opts.fill_byte = 0xAA;
  opts.before_upload = mutation_hook(parsed.program().mutations);
  return runtime::bind_plan(parsed.program(), opts);
}

TEST(ImageMutation, image_lines_reach_attach) {
  EXPECT_EQ(bind_with_lines("").status, 0);  // control
  const runtime::BindResult magic = bind_with_lines("mutate 0 0\n");
  EXPECT_EQ(magic.status, -1);
  EXPECT_EQ(magic.detail.rfind("attach: BadMagic: image header", 0), 0u) << magic.detail;
  EXPECT_EQ(magic.stats.h2d, 1u);                        // uploaded, then refused by the device
  EXPECT_EQ(bind_with_lines("mutate 8 1\n").status, 0);  // the version byte keeps its value
}

TEST(ImageMutation, header_lines_reach_attach) {
  const runtime::BindResult magic = bind_with_lines("mutate header 0 0\n");
  EXPECT_EQ(magic.status, -1);
  EXPECT_EQ(magic.detail.rfind("attach: BadMagic: runtime header", 0), 0u) << magic.detail;
  // RuntimeHeader::image_bytes (@32) grown by 256: the headers disagree.
  const runtime::BindResult layout = bind_with_lines("mutate header 33 1\n");
  EXPECT_EQ(layout.status, -1);
  EXPECT_EQ(layout.detail.rfind("attach: BadLayout: runtime header says", 0), 0u) << layout.detail;
  // RuntimeHeader::image (@24) moved by 256 bytes either way: the image is not right after
  // the runtime header (RUNTIME.md §5), refused before anything is read there.
  for (const char* line : {"mutate header 25 0\n", "mutate header 25 255\n"}) {
    const runtime::BindResult moved = bind_with_lines(line);
    EXPECT_EQ(moved.detail.rfind("attach: BadLayout: image at", 0), 0u) << line << moved.detail;
  }
  // Header and image lines together, in order: the later line on the same byte wins.
  EXPECT_EQ(bind_with_lines("mutate header 0 0\nmutate header 0 83\n").status, 0);  // 'S' restored
}

TEST(ImageMutation, offsets_past_their_target_stop_the_bind) {
  const runtime::BindResult past = bind_with_lines("mutate 100000 1\n");
  EXPECT_EQ(past.status, -1);
  EXPECT_NE(past.detail.find("mutate offset 100000 is past the"), std::string::npos) << past.detail;
  EXPECT_EQ(past.stats.h2d, 0u);
  const runtime::BindResult header = bind_with_lines("mutate header 128 1\n");
  EXPECT_EQ(header.status, -1);
  EXPECT_EQ(header.detail, "mutate header offset 128 is past the 128 runtime header bytes");
  EXPECT_EQ(header.stats.h2d, 0u);
  // Nothing applied when a later line is out of range: the earlier good line changed nothing.
  std::vector<std::byte> bytes(128 + 256, std::byte{7});
  runtime::DeviceMemory mem;
  runtime::HostLink link(mem);
  runtime::StagedUpload up{bytes, 128, 256, runtime::DevAddr(), link};
  const std::vector<runtime::Mutation> lines = {{runtime::MutationTarget::kImage, 0, 1, {}},
                                                {runtime::MutationTarget::kImage, 256, 1, {}}};
  EXPECT_EQ(apply_mutations(lines, up), "mutate offset 256 is past the 256 image bytes");
  EXPECT_EQ(bytes[128], std::byte{7});
  // The last image byte and the last header byte are in range.
  const std::vector<runtime::Mutation> edges = {{runtime::MutationTarget::kImage, 255, 1, {}},
                                                {runtime::MutationTarget::kRuntimeHeader, 127, 2, {}}};
  EXPECT_EQ(apply_mutations(edges, up), std::nullopt);
  EXPECT_EQ(bytes[128 + 255], std::byte{1});
  EXPECT_EQ(bytes[127], std::byte{2});
}

// The corrupt-image oracle: a class, a code, completion or a contained builtin fault pass;
// a DeviceFault in the runtime's own accesses, another failure, or a class that does not go
// with the failure fail (positive controls, built by hand).
TEST(ImageMutation, corrupt_image_run_verdicts) {
  EXPECT_TRUE(check_corrupt_image_run(bind_with_lines("")).passed());
  EXPECT_TRUE(check_corrupt_image_run(bind_with_lines("mutate 0 0\n")).passed());  // BadMagic
  runtime::BindResult r;
  r.status = -1;
  r.failure = runtime::BindFailure::kKernelFault;
  EXPECT_TRUE(check_corrupt_image_run(r).passed());
  r.failure = runtime::BindFailure::kDeviceFault;
  EXPECT_EQ(check_corrupt_image_run(r).rule, "device-fault");
  r.failure = runtime::BindFailure::kCompaction;
  EXPECT_EQ(check_corrupt_image_run(r).rule, "corrupt-image");
  r.failure = runtime::BindFailure::kAttach;
  EXPECT_EQ(check_corrupt_image_run(r).rule, "attach-class");  // attach failed, no class
  r.failure = runtime::BindFailure::kNone;
  r.status = 0;
  r.attach_class = runtime::AttachErrorClass::kBadMagic;
  EXPECT_EQ(check_corrupt_image_run(r).rule, "attach-class");  // a class, no attach failure
}

TEST(ImageMutation, no_lines_no_hook) { EXPECT_FALSE(static_cast<bool>(mutation_hook({}))); }

}  // namespace
}  // namespace stackcheck::oracles
