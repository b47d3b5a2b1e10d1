// The attach model (attach_model.h): for one corruption per RUNTIME.md §11 class it predicts
// that class, and attach agrees; a clean upload it predicts accepted. Controls: the oracle fails
// when attach's class is not the predicted one, and when attach rejects an image the model
// accepts (a relabelled bind result, since attach itself is right here), and when a refusal
// misstates the figures the model predicts for its rule.
#include "properties/oracles/attach_model.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "properties/oracles/image_mutation.h"
#include "stack/runtime/plan/parser.h"

namespace stackcheck::oracles {
namespace {

// Four tasks: an ALLOC, a kernel with a scalar, a GRAPH (a submission record, a definition)
// and a kernel with fanin.
constexpr const char* kPlan =
    "config W=64\n"
    "tensor c: InOut [8]\n"
    "graph g(a, b) {\n"
    "  submit scale(input a, output_existing b, scalar $0)\n"
    "}\n"
    "alloc t: [8]\n"
    "submit fill(output_existing t, scalar 3)\n"
    "submit_graph g(input t, inout c, scalar 2)\n"
    "submit copy(input c, output_existing t)\n";

runtime::OrchProgram plan() {
  const runtime::PlanParseResult parsed = runtime::parse_plan(kPlan);
  EXPECT_TRUE(parsed.ok()) << parsed.error().to_string();
  return parsed.ok() ? parsed.program() : runtime::OrchProgram{};
}

struct Bound {
  std::unique_ptr<Bench> bench;
  Captured captured;
  std::optional<AttachPrediction> predicted;
  std::string unknown;
};

Bound bind(const std::vector<runtime::Mutation>& muts) {
  Bound r;
  r.bench = Bench::create(plan(), 0xAA, /*strict_uninit=*/true);
  runtime::BindOptions o;
  o.schedule.mode = runtime::ScheduleOptions::Mode::kNewest;
  o.before_upload = mutation_hook(muts);
  r.captured = r.bench->bind(plan(), o);
  r.predicted = predict_attach(r.captured.staged, r.captured.destination, r.bench->memory(), &r.unknown);
  return r;
}

// Image offsets read from a clean upload's ImageHeader (seg_off @56).
struct Clean {
  std::vector<std::byte> staged;
  uint64_t seg(int s) const {
    uint64_t v = 0;
    std::memcpy(&v, staged.data() + 128 + 56 + 8 * s, 8);
    return v;
  }
  uint8_t byte(uint64_t image_off) const { return static_cast<uint8_t>(staged[128 + image_off]); }
  template <class T>
  T get(uint64_t at) const {  // at: offset in the staged bytes
    T v{};
    std::memcpy(&v, staged.data() + at, sizeof v);
    return v;
  }
};
Clean clean() { return Clean{bind({}).captured.staged}; }

runtime::Mutation img(uint64_t off, uint8_t v) { return {runtime::MutationTarget::kImage, off, v, {}}; }
runtime::Mutation hdr(uint64_t off, uint8_t v) { return {runtime::MutationTarget::kRuntimeHeader, off, v, {}}; }
// A little-endian field of the image (or of the RuntimeHeader) rewritten whole.
template <class T>
std::vector<runtime::Mutation> field(bool header, uint64_t off, T value) {
  std::vector<runtime::Mutation> out;
  for (size_t k = 0; k < sizeof(T); ++k)
    out.push_back({header ? runtime::MutationTarget::kRuntimeHeader : runtime::MutationTarget::kImage,
                   off + k,
                   static_cast<uint8_t>(static_cast<uint64_t>(value) >> (8 * k)),
                   {}});
  return out;
}

std::string attach_class(const runtime::BindResult& r) {
  return r.failure == runtime::BindFailure::kAttach && r.attach_class ? runtime::attach_error_name(*r.attach_class)
                                                                      : "";
}

TEST(AttachModel, a_clean_upload_is_predicted_accepted) {
  const Bound r = bind({});
  ASSERT_EQ(r.captured.result.status, 0) << r.captured.result.detail;
  ASSERT_TRUE(r.predicted) << r.unknown;
  EXPECT_TRUE(r.predicted->accepts()) << r.predicted->rejected << ": " << r.predicted->why;
  EXPECT_TRUE(check_attach_prediction(*r.predicted, r.captured.result).passed());
}

TEST(AttachModel, predicts_each_class_as_attach_reports_it) {
  const Clean c = clean();
  ASSERT_FALSE(c.staged.empty());
  const uint64_t desc = c.seg(0), payload = c.seg(1), slot = c.seg(2);
  // The submissions zone starts at ALIGN64 of the image's end (image_bytes @48).
  uint64_t image_bytes = 0;
  std::memcpy(&image_bytes, c.staged.data() + 128 + 48, 8);
  const uint64_t record = (128 + image_bytes + 63) / 64 * 64 - 128;
  struct Case {
    const char* cls;
    std::vector<runtime::Mutation> muts;
  };
  const std::vector<Case> cases = {
      {"BadMagic", {hdr(0, 'X')}},
      {"BadMagic", {img(8, 2)}},                                            // image version
      {"BadLayout", {hdr(24, static_cast<uint8_t>(c.staged[24]) ^ 0x40)}},  // image not after the header
      {"BadPitch", {img(16, 9)}},                                           // pitch 9 with n 4
      {"BadPitch", {img(12, 32)}},                                          // image W 32, runtime W 64
      {"Truncated", {img(48, 0), img(49, 0)}},                              // image_bytes 0
      {"TooLarge", {img(51, 0x80)}},                                        // image_bytes > INT32_MAX
      {"TooLarge", {hdr(112, 0), hdr(113, 0), hdr(114, 0), hdr(115, 0)}},   // region_bytes cut
      {"BadLayout", field<uint64_t>(true, 32, c.get<uint64_t>(32) + 64)},   // the headers' image_bytes differ
      {"BadLayout", field<uint64_t>(false, 56 + 8 * 6, c.seg(6) + 64)},     // fanin segment moved
      {"PoolOutOfImage", field<uint32_t>(false, 120, c.get<uint32_t>(128 + 120) + 1)},  // one fanin entry more
      {"DeltaOutOfImage", field<int32_t>(false, slot + 4, 0)},                          // slot 0's desc delta unbound
      {"DeltaMisaligned", field<int32_t>(false, slot + 4, c.get<int32_t>(128 + slot + 4) + 32)},  // -> desc[1]
      {"CountMismatch", {img(desc + 0, 9)}},                                                      // task 0's id
      {"CountMismatch", {img(desc + 8, 5)}},                                                      // task 0's kind
      {"DirtyPadding", {img(desc + 12, 1)}},                                                      // a reserved field
      {"DirtyPadding", {img(slot + 32 * 1 + 12, 1)}},                                             // slot 1's wake_head
      {"BadGraphContext",                                                                         // task 2's graph_ctx
       field<uint64_t>(false, payload + 32 * 2 + 24, c.get<uint64_t>(128 + payload + 32 * 2 + 24) + 64)},
      {"BadGraphContext", field<uint64_t>(false, record + 24, c.get<uint64_t>(128 + record + 24) - 1)},  // block short
      {"BadGraphContext", {img(record + 32, 1)}},                                                        // outer_id
      {"LatchedError", {img(28, 1)}},                                                                    // orch_error
      {"LatchedError", {img(24, 0)}},                                                                    // orch_done
  };
  for (const Case& k : cases) {
    const Bound r = bind(k.muts);
    SCOPED_TRACE(std::string(k.cls) + " at " + std::to_string(k.muts.front().offset));
    EXPECT_EQ(attach_class(r.captured.result), k.cls) << r.captured.result.detail;
    ASSERT_TRUE(r.predicted) << r.unknown;
    EXPECT_EQ(r.predicted->rejected, k.cls) << r.predicted->why;
    EXPECT_TRUE(check_attach_prediction(*r.predicted, r.captured.result).passed());
  }
}

TEST(AttachModel, a_change_that_keeps_a_byte_is_accepted) {
  const Clean c = clean();
  const Bound r = bind({img(16, c.byte(16))});
  ASSERT_TRUE(r.predicted) << r.unknown;
  EXPECT_TRUE(r.predicted->accepts());
  EXPECT_EQ(r.captured.result.status, 0);
}

TEST(AttachModelControl, a_class_other_than_the_predicted_one_fails) {
  Bound r = bind({img(16, 9)});  // BadPitch
  ASSERT_TRUE(r.predicted);
  ASSERT_EQ(r.predicted->rejected, "BadPitch");
  runtime::BindResult relabelled = r.captured.result;
  relabelled.attach_class = runtime::AttachErrorClass::kBadLayout;
  const Verdict v = check_attach_prediction(*r.predicted, relabelled);
  EXPECT_TRUE(v.failed());
  EXPECT_EQ(v.rule, "attach-model");
  EXPECT_NE(v.message.find("expects BadPitch"), std::string::npos) << v.message;
  // The shared judgement reports it too.
  r.captured.result = relabelled;
  EXPECT_EQ(judge_corrupt_bind(r.captured, r.bench->memory(), {}).first_failure().rule, "attach-model");
}

TEST(AttachModelControl, a_rejection_of_an_image_the_model_accepts_fails) {
  const Bound r = bind({});
  ASSERT_TRUE(r.predicted && r.predicted->accepts());
  runtime::BindResult rejected = r.captured.result;
  rejected.failure = runtime::BindFailure::kAttach;
  rejected.attach_class = runtime::AttachErrorClass::kDirtyPadding;
  rejected.status = -1;
  const Verdict v = check_attach_prediction(*r.predicted, rejected);
  EXPECT_TRUE(v.failed());
  EXPECT_NE(v.message.find("accepts the image"), std::string::npos) << v.message;
  // And a missing rejection where one is due.
  const Bound bad = bind({img(28, 1)});
  ASSERT_TRUE(bad.predicted);
  runtime::BindResult ran = bad.captured.result;
  ran.failure = runtime::BindFailure::kNone;
  ran.attach_class.reset();
  ran.status = 0;
  EXPECT_TRUE(check_attach_prediction(*bad.predicted, ran).failed());
}

TEST(AttachModelControl, a_refusal_misstating_its_figures_fails) {
  AttachPrediction p{"CountMismatch", "slot 1 fanin_cursor", {1, 0, 1}};
  runtime::BindResult r;
  r.status = -1;
  r.failure = runtime::BindFailure::kAttach;
  r.attach_class = runtime::AttachErrorClass::kCountMismatch;
  r.detail = "attach: CountMismatch: slot 1 fanin_cursor 0 != n_fanin 1";
  EXPECT_TRUE(check_attach_prediction(p, r).passed()) << check_attach_prediction(p, r).to_string();
  r.detail = "attach: CountMismatch: slot 1 fanin_cursor 1 != n_fanin 0";  // the two values swapped
  const Verdict v = check_attach_prediction(p, r);
  EXPECT_TRUE(v.failed());
  EXPECT_NE(v.message.find("stating [1, 0, 1]"), std::string::npos) << v.message;
  r.detail = "attach: CountMismatch: slot -1 fanin_cursor 0 != n_fanin 1";  // a sign is part of the figure
  EXPECT_TRUE(check_attach_prediction(p, r).failed());
  // The header rules state their figures too: BadPitch the pitch, n and W; LatchedError the
  // error words. The real refusal passes, the same refusal with two figures swapped fails.
  const Bound pitch = bind({img(16, 9)});
  ASSERT_TRUE(pitch.predicted) << pitch.unknown;
  EXPECT_EQ(pitch.predicted->figures, (std::vector<int64_t>{9, 4, 64}));
  EXPECT_TRUE(check_attach_prediction(*pitch.predicted, pitch.captured.result).passed())
      << pitch.captured.result.detail;
  runtime::BindResult swapped = pitch.captured.result;
  swapped.detail = "attach: BadPitch: pitch 4 with n=9 W=64";
  EXPECT_TRUE(check_attach_prediction(*pitch.predicted, swapped).failed());
  const Bound latched = bind({img(28, 7)});
  ASSERT_TRUE(latched.predicted) << latched.unknown;
  EXPECT_EQ(latched.predicted->figures, (std::vector<int64_t>{7, 0, 0}));
  EXPECT_TRUE(check_attach_prediction(*latched.predicted, latched.captured.result).passed())
      << latched.captured.result.detail;
}

TEST(AttachModel, reads_past_the_shipped_bytes_are_unknown_not_guessed) {
  const Bound r = bind({});
  // The image alone, without its submissions: the BadGraphContext rules read past it.
  std::vector<std::byte> cut(r.captured.staged.begin(), r.captured.staged.begin() + 128 + r.captured.image_bytes);
  std::string why;
  EXPECT_FALSE(predict_attach(cut, r.captured.destination, r.bench->memory(), &why));
  EXPECT_NE(why.find("outside"), std::string::npos) << why;
  EXPECT_FALSE(predict_attach(std::span<const std::byte>(r.captured.staged).first(100), r.captured.destination,
                              r.bench->memory(), &why));
}

}  // namespace
}  // namespace stackcheck::oracles
