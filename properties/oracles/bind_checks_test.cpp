// Positive controls of the bind checks (bind_checks.h): each reports the defect it exists
// for, and passes a real bind.
#include "properties/oracles/bind_checks.h"

#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <functional>
#include <iterator>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "stack/runtime/image/layout.h"
#include "stack/runtime/image/records.h"
#include "stack/runtime/plan/parser.h"

namespace stackcheck::oracles {
namespace {

using namespace runtime;

OrchProgram parse(const char* text) {
  PlanParseResult p = parse_plan(text);
  EXPECT_TRUE(p.ok()) << (p.ok() ? "" : p.error().to_string());
  return p.ok() ? p.program() : OrchProgram{};
}

// A plan of corpus/plans/, parsed.
OrchProgram corpus_plan(const char* name) {
  std::ifstream in(std::string(STACKCHECK_CORPUS_DIR "/plans/") + name);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return parse(text.c_str());
}

// One bind of a program on a bench poisoned with 0xAA that keeps a copy ledger: the program,
// the bench (whose memory and runtime the checks read) and what the bind captured. Built in
// place (never moved), so the bench's program stays where it was bound.
struct Bound {
  explicit Bound(OrchProgram program) : p(std::move(program)), b(Bench::create(p, 0xAA, true)), c(b->bind(p)) {}
  Bound(const Bound&) = delete;
  Bound& operator=(const Bound&) = delete;
  const OrchProgram p;
  const std::unique_ptr<Bench> b;
  const Captured c;
};

// A plan whose bind latches EXPLICIT_FATAL before it uploads anything.
const char* kFatalPlan = "tensor c: InOut [8]\nsubmit fill(output_existing c, scalar 1)\nfatal\n";

const char* kGraphPlan =
    "config W=64\ntensor x: In [16]\ntensor c: InOut [16]\n"
    "graph g(a, b) {\n  alloc t: [8]\n  submit copy(input a, output_existing t)\n  submit acc(input t, inout b)\n}\n"
    "submit_graph g(input x[0:8], inout c[0:8])\nsubmit_graph g(input x[8:8], inout c[8:8])\n";

TEST(BindChecks, copies_and_bytes_read) {
  const auto& [p, b, c] = Bound(parse(kGraphPlan));
  ASSERT_EQ(c.result.status, 0) << c.result.detail;
  EXPECT_TRUE(check_copies(c.result.stats, 1, p.tensors).passed());
  BindStats twice = c.result.stats;
  twice.h2d = 2;
  EXPECT_TRUE(check_copies(twice, 1, p.tensors).failed());
  EXPECT_TRUE(check_copies(c.result.stats, 2, p.tensors).failed());  // a definition copy missing
  std::vector<runtime::EntryTensor> three = p.tensors;
  three.push_back(three.front());
  EXPECT_TRUE(check_copies(c.result.stats, 1, three).failed());
  // The read-backs: the error words and c (InOut), not x (In); one missing or one too many fails.
  EXPECT_EQ(c.result.stats.d2h, 2u);
  for (uint64_t d2h : {1u, 3u}) {
    BindStats s = c.result.stats;
    s.d2h = d2h;
    EXPECT_EQ(check_copies(s, 1, p.tensors).rule, "read-backs") << d2h;
  }
  std::vector<runtime::EntryTensor> both_inout = p.tensors;
  for (auto& e : both_inout) e.inout = true;  // a plan whose x were InOut reads back 3
  EXPECT_TRUE(check_copies(c.result.stats, 1, both_inout).failed());
}

// The reservations the plan alone predicts: the config's heaps (or the spec's defaults) and
// 4 bytes per entry element (x [16] and c [16]: 128); one figure off fails.
TEST(BindChecks, reservations_predicted_from_the_plan) {
  const auto& [p, b, c] = Bound(parse(kGraphPlan));
  EXPECT_TRUE(check_reserved_from_plan(p, c.result.stats).passed()) << check_reserved_from_plan(p, c.result.stats).message;
  EXPECT_EQ(c.result.stats.reserved.entries, 128u);
  EXPECT_EQ(c.result.stats.reserved.task_heap, 256ull << 20);
  for (uint64_t ReservedBytes::*field : {&ReservedBytes::task_heap, &ReservedBytes::graph_heap, &ReservedBytes::entries}) {
    BindStats s = c.result.stats;
    ++(s.reserved.*field);
    EXPECT_EQ(check_reserved_from_plan(p, s).rule, "reserved-from-plan");
  }
  const auto& [q, b2, c2] = Bound(parse("config W=64 task_heap=65536 graph_heap=4096\ntensor c: InOut [2, 3]\n"
                                        "submit fill(output_existing c, scalar 1)\n"));
  ASSERT_EQ(c2.result.status, 0) << c2.result.detail;
  EXPECT_TRUE(check_reserved_from_plan(q, c2.result.stats).passed()) << check_reserved_from_plan(q, c2.result.stats).message;
  EXPECT_TRUE(check_reserved_from_plan(p, c2.result.stats).failed());  // another plan's figures
}

// §15.5, measured on the device memory: a completed bind with three graph submissions
// (corpus/plans/graph_three_records.plan) read
// every shipped byte. Positive controls: one byte's read bit cleared after the run (in the
// image, in the padding between the image and the zone, in the zone's padding after the first
// record), a copy missing from the ledger's view, and BindStats that report other figures.
TEST(BindChecks, every_shipped_byte_read) {
  const auto& [p, b, c] = Bound(corpus_plan("graph_three_records.plan"));
  ASSERT_EQ(c.result.status, 0) << c.result.detail;
  EXPECT_TRUE(check_image_read(c, b->memory()).passed()) << check_image_read(c, b->memory()).to_string();
  RuntimeHeader rh;
  std::memcpy(&rh, c.staged.data(), sizeof rh);
  const uint64_t zone = rh.submissions.raw() - c.destination.raw();
  const uint64_t image_end = c.image_offset + c.image_bytes;
  ASSERT_EQ(rh.graph_count, 3u);
  ASSERT_LT(image_end, zone);
  const uint64_t first_record = graph_submission_bytes(2, 0);
  ASSERT_LT(zone + first_record, zone + align64(first_record));  // padding after the first record
  struct Unread {
    uint64_t off;
    const char* where;
  };
  for (const Unread& u : {Unread{c.image_offset + 200, "image +200"}, Unread{image_end, "padding after the image"},
                          Unread{zone + first_record, "submissions zone +"}}) {
    auto again = Bench::create(p, 0xAA, true);
    const Captured d = again->bind(p);
    ASSERT_EQ(d.result.status, 0);
    again->memory().clear_read_bits(d.destination + u.off, 1);
    const Verdict v = check_image_read(d, again->memory());
    EXPECT_EQ(v.rule, "image-read") << v.to_string();
    EXPECT_NE(v.message.find(fmt::format("byte {} ({}", u.off, u.where)), std::string::npos) << v.message;
  }
  Captured later = c;  // the ledger read from after the bind: no copy covers the bytes
  later.first_copy = b->memory().host_copy_count();
  EXPECT_EQ(check_image_read(later, b->memory()).rule, "image-read");
  Captured lying = c;  // the device memory is right, the figures the bind reports are not
  lying.result.stats.read -= 1;
  EXPECT_EQ(check_image_read(lying, b->memory()).rule, "bind-stats");
  lying = c;
  lying.result.stats.shipped += 64;
  EXPECT_EQ(check_image_read(lying, b->memory()).rule, "bind-stats");
}

TEST(BindChecks, graph_heap_blocks_and_high_water) {
  const auto& [p, b, c] = Bound(corpus_plan("graph_three_records.plan"));
  ASSERT_EQ(c.result.status, 0) << c.result.detail;
  EXPECT_TRUE(check_graph_storage(c, b->memory()).passed()) << check_graph_storage(c, b->memory()).to_string();
  Captured lying = c;  // a high water that is not the blocks' 64-rounded sum
  lying.result.stats.graph_heap_high_water += 64;
  const Verdict v = check_graph_storage(lying, b->memory());
  EXPECT_EQ(v.rule, "storage-span");
  EXPECT_NE(v.message.find("graph_hw="), std::string::npos) << v.message;
}

TEST(BindChecks, stats_figures_are_the_observed_ones) {
  const auto& [p, b, c] = Bound(corpus_plan("graph_three_records.plan"));
  ASSERT_EQ(c.result.status, 0) << c.result.detail;
  EXPECT_TRUE(check_stats_observed(c, b->memory()).passed()) << check_stats_observed(c, b->memory()).to_string();
  ASSERT_GT(c.result.stats.defs, 0u);
  // Each figure the bind reports wrongly, one at a time: the oracle names it.
  const std::vector<std::pair<std::function<void(BindStats&)>, const char*>> lies{
      {[](BindStats& s) { s.reserved.graph_heap += 64; }, "reserved.gh"},
      {[](BindStats& s) { s.reserved.task_heap -= 64; }, "reserved.th"},
      {[](BindStats& s) { s.reserved.entries += 4; }, "reserved.ent"},
      {[](BindStats& s) { s.reserved.definitions = 0; }, "reserved.def"},
      {[](BindStats& s) { s.defs += 1; }, "defs"},
      {[](BindStats& s) { s.reserved.device_only += 64; }, "reserved.dev"},
      {[](BindStats& s) { s.reserved.image += 1; }, "reserved.img"},
      {[](BindStats& s) { s.mirror -= 1; }, "mirror"},
  };
  for (const auto& [lie, name] : lies) {
    Captured lying = c;
    lie(lying.result.stats);
    const Verdict v = check_stats_observed(lying, b->memory());
    EXPECT_EQ(v.rule, "bind-stats") << name;
    EXPECT_NE(v.message.find(std::string("BindStats say ") + name), std::string::npos) << v.message;
  }
  // A printer with two figures swapped, or one missing.
  const BindStats& s = c.result.stats;
  std::string line = s.to_line();
  EXPECT_TRUE(check_stats_line(s, line).passed()) << check_stats_line(s, line).to_string();
  const std::string shipped = fmt::format(" shipped={} ", s.shipped), mirror = fmt::format(" mirror={} ", s.mirror);
  ASSERT_NE(s.shipped, s.mirror);
  std::string swapped = line;
  swapped.replace(swapped.find(shipped), shipped.size(), fmt::format(" shipped={} ", s.mirror));
  swapped.replace(swapped.find(mirror), mirror.size(), fmt::format(" mirror={} ", s.shipped));
  EXPECT_NE(check_stats_line(s, swapped).message.find("shipped"), std::string::npos)
      << check_stats_line(s, swapped).to_string();
  std::string missing = line;
  missing.erase(missing.find(mirror), mirror.size() - 1);
  EXPECT_EQ(check_stats_line(s, missing).rule, "bind-stats");
  // The reserved group's keys are matched with their prefix: the same figures under another
  // group's name are not the reserved ones.
  std::string regrouped = line;
  ASSERT_NE(regrouped.find("reserved=("), std::string::npos) << line;
  regrouped.replace(regrouped.find("reserved=("), 10, "kept=(");
  EXPECT_NE(check_stats_line(s, regrouped).message.find("kept.dev"), std::string::npos)
      << check_stats_line(s, regrouped).to_string();
}

// §13/§14 as a user reads them: a real completed bind and a latched one pass; a status §13
// does not list, a failure without a detail, a latch's detail under another name, and copy
// figures the ledger does not hold fail.
TEST(BindChecks, bind_report_with_control) {
  const auto& [p, b, c] = Bound(parse(kGraphPlan));
  ASSERT_EQ(c.result.status, 0) << c.result.detail;
  EXPECT_TRUE(check_bind_report(c, b->memory()).passed()) << check_bind_report(c, b->memory()).to_string();
  const std::vector<std::pair<std::function<void(Captured&)>, const char*>> lies{
      {[](Captured& x) { x.result.status = -3; }, "none of RUNTIME.md"},
      {[](Captured& x) { x.result.status = -1012; }, "none of RUNTIME.md"},
      {[](Captured& x) { x.result.status = -1009; }, "carries no detail"},
      {[](Captured& x) { x.result.stats.h2d = 2; }, "copy ledger holds 1 copies"},
      {[](Captured& x) { x.result.stats.shipped -= 8; }, "copy ledger holds 1 copies"},
      {[](Captured& x) { x.first_copy = 1u << 20; }, "copy ledger holds 0 copies"},
  };
  for (const auto& [lie, says] : lies) {
    Captured lying = c;
    lie(lying);
    const Verdict v = check_bind_report(lying, b->memory());
    EXPECT_EQ(v.rule, "bind-report") << says;
    EXPECT_NE(v.message.find(says), std::string::npos) << v.message;
  }
  const auto& [fatal, bf, latched] = Bound(parse(kFatalPlan));
  ASSERT_EQ(latched.result.status, -1009);
  EXPECT_TRUE(check_bind_report(latched, bf->memory()).passed()) << check_bind_report(latched, bf->memory()).to_string();
  Captured silent = latched;
  silent.result.detail.clear();
  EXPECT_NE(check_bind_report(silent, bf->memory()).message.find("EXPLICIT_FATAL' (failure latched) carries no detail"),
            std::string::npos)
      << check_bind_report(silent, bf->memory()).to_string();
  // The detail names the latched code first (§13's name, ": " and why): another code's name, a
  // bare colon or a lowercase name fails; the name alone or with a reason passes.
  for (const auto& [detail, ok] : std::vector<std::pair<std::string, bool>>{{"INVALID_ARGS: line 3", false},
                                                                           {"EXPLICIT_FATAL: ", false},
                                                                           {"explicit_fatal: line 3", false},
                                                                           {"EXPLICIT_FATAL", true},
                                                                           {"EXPLICIT_FATAL: line 3", true}}) {
    Captured named = latched;
    named.result.detail = detail;
    const Verdict v = check_bind_report(named, bf->memory());
    EXPECT_EQ(v.passed(), ok) << detail << ": " << v.to_string();
    if (!ok) EXPECT_NE(v.message.find("is not 'EXPLICIT_FATAL'"), std::string::npos) << v.message;
  }
}

TEST(BindChecks, latched_binds_upload_nothing) {
  const auto& [p, b, c] = Bound(parse(kFatalPlan));
  ASSERT_EQ(c.result.status, -1009);
  EXPECT_TRUE(check_latch_uploads_nothing(c).passed());
  Captured leaked = c;
  leaked.result.stats.h2d = 1;
  EXPECT_TRUE(check_latch_uploads_nothing(leaked).failed());
  Captured staged = c;
  staged.staged.resize(128);
  EXPECT_TRUE(check_latch_uploads_nothing(staged).failed());
}

TEST(BindChecks, compaction_reading_past_the_live_prefix_is_caught) {
  const auto& [p, b, c] = Bound(parse(kGraphPlan));
  ASSERT_EQ(c.result.status, 0);
  const Orchestrator& o = b->runtime().orchestrator();
  EXPECT_TRUE(check_compaction_live_prefix(runtime_compactor(), b->runtime().mirror(), o.layout(), o.cursors(),
                                           o.submitted(), c.image())
                  .passed());
  // A compaction that lets the first descriptor past the prefix leak into its output.
  const Compactor leaky = [](std::span<const std::byte> m, const MirrorLayout& L, const PoolCounts& cur, uint32_t n,
                             std::span<std::byte> out) {
    if (!compact_live_image(m, L, cur, n, out)) return false;
    out[offsetof(ImageHeader, reserved)] ^= m[L.seg.desc_at(n)];
    return true;
  };
  const Verdict v =
      check_compaction_live_prefix(leaky, b->runtime().mirror(), o.layout(), o.cursors(), o.submitted(), c.image());
  ASSERT_TRUE(v.failed());
  EXPECT_EQ(v.rule, "compaction-live-prefix");
}

TEST(BindChecks, graph_storage_figures) {
  const auto& [p, b, c] = Bound(parse(kGraphPlan));
  ASSERT_EQ(c.result.status, 0);
  uint32_t n = 0;
  EXPECT_TRUE(check_graph_storage(c, b->memory(), &n).passed()) << check_graph_storage(c, b->memory()).to_string();
  EXPECT_EQ(n, 2u);
  // A block that claims stride x n storage (the historical off-by-24), and a second block
  // placed over the first.
  RuntimeHeader rh;
  std::memcpy(&rh, c.staged.data(), sizeof rh);
  const uint64_t sub0 = rh.submissions - c.destination;
  Captured wide = c;
  uint64_t bytes;
  std::memcpy(&bytes, wide.staged.data() + sub0 + offsetof(GraphSubmission, block_bytes), 8);
  bytes += 24;
  std::memcpy(wide.staged.data() + sub0 + offsetof(GraphSubmission, block_bytes), &bytes, 8);
  EXPECT_TRUE(check_graph_storage(wide, b->memory()).failed());
  Captured moved = c;
  GraphSubmission s0;
  std::memcpy(&s0, c.staged.data() + sub0, sizeof s0);
  const uint64_t sub1 = align64(sub0 + s0.record_bytes);
  std::memcpy(moved.staged.data() + sub1 + offsetof(GraphSubmission, block_base), &s0.block_base, 8);
  EXPECT_TRUE(check_graph_storage(moved, b->memory()).failed());
}

// A bind that got past attach vouches for its submission records: a second block one byte
// short of what its definition needs, or off the graph heap, must be reported; an image attach
// rejected vouches for nothing.
TEST(BindChecks, accepted_graph_blocks) {
  const Bound bound(parse(kGraphPlan));
  const auto& b = bound.b;  // (plain references: the lambda below captures them, and clang 14
  const auto& c = bound.c;  // cannot capture a structured binding)
  ASSERT_EQ(c.result.status, 0);
  EXPECT_TRUE(check_accepted_graph_blocks(c, b->memory()).passed())
      << check_accepted_graph_blocks(c, b->memory()).to_string();
  RuntimeHeader rh;
  std::memcpy(&rh, c.staged.data(), sizeof rh);
  GraphSubmission s0;
  std::memcpy(&s0, c.staged.data() + (rh.submissions - c.destination), sizeof s0);
  const uint64_t sub1 = align64(rh.submissions - c.destination + s0.record_bytes);
  auto with = [&](size_t field, uint64_t value) {
    Captured m = c;
    std::memcpy(m.staged.data() + sub1 + field, &value, 8);
    return check_accepted_graph_blocks(m, b->memory());
  };
  EXPECT_EQ(with(offsetof(GraphSubmission, block_bytes), s0.block_bytes - 1).rule, "accepted-graph-block");
  EXPECT_TRUE(with(offsetof(GraphSubmission, block_bytes), s0.block_bytes + 64).passed());  // roomier is fine
  EXPECT_TRUE(with(offsetof(GraphSubmission, block_base), rh.graph_heap.raw() + rh.graph_heap_bytes).failed());
  EXPECT_TRUE(with(offsetof(GraphSubmission, block_base), s0.block_base.raw() + 8).failed());  // misaligned
  Captured rejected = c;
  std::memset(rejected.staged.data() + sub1 + offsetof(GraphSubmission, block_bytes), 0, 8);
  rejected.result.failure = BindFailure::kAttach;
  EXPECT_TRUE(check_accepted_graph_blocks(rejected, b->memory()).passed());
}

}  // namespace
}  // namespace stackcheck::oracles
