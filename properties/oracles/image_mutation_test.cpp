// The mutation hook (image_mutation.h): a plan's `mutate` lines reach attach through bind's
// before-upload hook, the runtime header included; offsets past their target stop the bind
// before anything is uploaded; a plan without mutate lines gets no hook.
#include "properties/oracles/image_mutation.h"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <cstring>
#include <string_view>
#include <utility>
#include <vector>

#include "properties/oracles/image_checks.h"
#include "stack/runtime/plan/parser.h"
#include "stack/runtime/status/codes.h"

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

// The fanin prediction (predict_fanin_corruption): task 1 writes the window task 0 wrote, so
// its one fanin entry names 0. Changed to name itself, a later task or a negative id, the
// spec fixes scheduler code 103, stating that entry; the real bind must give it, and a bind
// that ran to completion instead (the positive control: a scheduler skipping the check), or
// a 103 stating another entry, must fail the oracle.
struct FaninCase {
  runtime::OrchProgram plan;
  uint64_t entry = 0;  // the image offset of the fanin pool's first entry
};
FaninCase fanin_case() {
  const runtime::PlanParseResult parsed = runtime::parse_plan(
      "tensor c: InOut [8]\nsubmit fill(output_existing c, scalar 1)\nsubmit fill(output_existing c, scalar 2)\n");
  EXPECT_TRUE(parsed.ok());
  FaninCase fc{parsed.program(), 0};
  auto b = Bench::create(fc.plan, 0xAA, true);
  const Captured c = b->bind(fc.plan);
  EXPECT_EQ(c.result.status, 0);
  const std::span<const std::byte> img = c.image();
  uint32_t count = 0;
  std::memcpy(&fc.entry, img.data() + 104, 8);  // seg_off[6], the fanin pool
  std::memcpy(&count, img.data() + 120, 4);
  EXPECT_EQ(count, 1u);
  return fc;
}
Captured corrupt(const FaninCase& fc, std::vector<runtime::Mutation> muts) {
  auto b = Bench::create(fc.plan, 0xAA, true);
  runtime::BindOptions o;
  o.schedule.mode = runtime::ScheduleOptions::Mode::kNewest;
  o.before_upload = mutation_hook(std::move(muts));
  return b->bind(fc.plan, o);
}

TEST(ImageMutation, fanin_entries_naming_no_earlier_task_are_103) {
  const FaninCase fc = fanin_case();
  for (const auto& [byte, value] : std::vector<std::pair<uint64_t, uint8_t>>{{0, 1}, {0, 7}, {3, 0x80}, {2, 1}}) {
    const std::vector<runtime::Mutation> muts{{runtime::MutationTarget::kImage, fc.entry + byte, value, {}}};
    const Captured c = corrupt(fc, muts);
    const auto pred = predict_fanin_corruption(c.staged, c.image_offset, muts);
    ASSERT_TRUE(pred.has_value()) << byte;
    EXPECT_TRUE(pred->invalid_entry) << byte;
    EXPECT_FALSE(pred->other_touched);
    EXPECT_EQ(runtime::status_to_code(c.result.status), 103) << runtime::status_line(c.result);
    EXPECT_TRUE(check_fanin_prediction(*pred, c.result).passed());
    runtime::BindResult completed;  // the control: what a scheduler skipping the check returns
    const Verdict v = check_fanin_prediction(*pred, completed);
    EXPECT_TRUE(v.failed());
    EXPECT_EQ(v.rule, "fanin-prediction");
    // The one invalid entry is stated exactly: task 1, its entry 0, the id it names, n = 2.
    EXPECT_EQ(pred->invalid_entries, 1u);
    int32_t named = 0;
    std::memcpy(&named, c.staged.data() + c.image_offset + fc.entry, 4);
    EXPECT_EQ(pred->reason, fmt::format("task 1 fanin entry 0 names producer {} (n=2)", named));
    EXPECT_TRUE(c.result.detail.ends_with(pred->reason)) << c.result.detail;
    runtime::BindResult elsewhere = c.result;  // the control: 103 stating another entry
    elsewhere.detail = "WAIT_REGISTRATION_FAILED: task 1 fanin entry 1 names producer 0 (n=2)";
    EXPECT_TRUE(check_fanin_prediction(*pred, elsewhere).failed());
  }
}

TEST(ImageMutation, fanin_entries_still_naming_earlier_tasks_run) {
  const FaninCase fc = fanin_case();
  const std::vector<runtime::Mutation> same{{runtime::MutationTarget::kImage, fc.entry, 0, {}}};  // still names 0
  const Captured c = corrupt(fc, same);
  const auto pred = predict_fanin_corruption(c.staged, c.image_offset, same);
  ASSERT_TRUE(pred.has_value());
  EXPECT_FALSE(pred->invalid_entry);
  EXPECT_TRUE(check_fanin_prediction(*pred, c.result).passed()) << runtime::status_line(c.result);
  runtime::BindResult latched;  // a 103 where every entry names an earlier task: wrong
  latched.status = runtime::to_status(runtime::ErrorCode::kWaitRegistrationFailed);
  latched.failure = runtime::BindFailure::kScheduler;
  EXPECT_TRUE(check_fanin_prediction(*pred, latched).failed());
  // A change outside the entries: no prediction.
  const std::vector<runtime::Mutation> elsewhere{{runtime::MutationTarget::kImage, fc.entry - 1, 0, {}}, same[0]};
  EXPECT_FALSE(predict_fanin_corruption(c.staged, c.image_offset, elsewhere).has_value());
  // A header that moves the pool onto itself (seg_off[6] @104 zeroed): the changed bytes then lie
  // "inside the pool" it claims, yet they are the header's: no prediction (attach: BadLayout).
  std::vector<runtime::Mutation> moved;
  for (uint64_t k = 0; k < 8; ++k) moved.push_back({runtime::MutationTarget::kImage, 104 + k, 0, {}});
  const Captured m = corrupt(fc, moved);
  EXPECT_FALSE(predict_fanin_corruption(m.staged, m.image_offset, moved).has_value());
}

}  // namespace
}  // namespace stackcheck::oracles
