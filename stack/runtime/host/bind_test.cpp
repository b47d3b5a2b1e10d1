// Bind (RUNTIME.md §10, §14): the §16 Bind cases, over device memory and a mirror poisoned
// with 0xAA.
#include "stack/runtime/host/bind.h"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>

#include <fmt/format.h>

#include "stack/runtime/device/attach.h"
#include "stack/runtime/devmem/device_access.h"
#include "stack/runtime/host/runtime.h"
#include "stack/runtime/host/test_support.h"
#include "stack/runtime/plan/parser.h"
#include "stack/runtime/plan/printer.h"
#include "stack/support/splitmix.h"

namespace stackcheck::runtime {
namespace {

using testing::BoundPlan;
using testing::expect_stats;
using testing::parse_or_fail;
using testing::RuntimeBench;

constexpr const char* kSmall = R"(config W=16 task_heap=65536
tensor x: In [16]
tensor c: InOut [8]
for i = 0, 2, 1 {
  scope_begin
  alloc t: [8]
  view v = x[i * 8:8]
  submit acc(input v, inout t)
  submit acc(input t, inout c)
  scope_end
}
)";

TEST(Bind, bind_one_copy) {
  BoundPlan t(kSmall);
  auto& [p, b, r] = t;
  ASSERT_EQ(r.status, 0) << r.detail;
  expect_stats(r.stats, {.tasks = 6, .h2d = 1, .def_h2d = 0, .tensor_h2d = 2});
  const CopyCounters c = b.mem.counters();
  EXPECT_EQ(c.h2d_calls, r.stats.h2d + r.stats.tensor_h2d);  // one image copy + the entries
  EXPECT_EQ(c.h2d_bytes, r.stats.shipped + 16 * 4 + 8 * 4);
  EXPECT_EQ(r.stats.shipped, sizeof(RuntimeHeader) + r.stats.image);
  EXPECT_EQ(c.d2h_calls, r.stats.d2h);
  // The image ran where bind put it (step 9): 6 tasks, every flag set, no scheduler code.
  DeviceAccess dev(b.mem);
  const auto ih = dev.load<ImageHeader>(b.rt->last_plan().image);
  EXPECT_EQ(ih.n, 6u);
  EXPECT_EQ(ih.sched_error, 0);
  for (uint64_t i = 0; i < 6; ++i) EXPECT_EQ(dev.load<uint8_t>(b.rt->last_plan().image + ih.seg_off[kSegFlag] + i), 1u);
  EXPECT_EQ(r.trace.size(), 6u);
}

// BindStats is measured (RUNTIME.md §14): a second image copy made behind the bind's back,
// through the Runtime's own link, shows as h2d=2 with twice the shipped bytes.
TEST(Bind, bind_measures_a_second_image_copy) {
  const OrchProgram p = parse_or_fail(kSmall);
  RuntimeBench b(p);
  const BindResult once = b.rt->bind(p);
  ASSERT_EQ(once.status, 0) << once.detail;
  ASSERT_EQ(once.stats.h2d, 1u);  // control
  BindOptions twice;
  twice.before_upload = [](StagedUpload& up) -> std::optional<std::string> {
    up.link.copy_to_device(up.destination, up.bytes.data(), up.bytes.size());
    return std::nullopt;
  };
  const BindResult r = b.rt->bind(p, twice);
  ASSERT_EQ(r.status, 0) << r.detail;
  EXPECT_EQ(r.stats.h2d, 2u);
  EXPECT_EQ(r.stats.shipped, 2 * once.stats.shipped);
  EXPECT_EQ(r.stats.tensor_h2d, 2u);
  EXPECT_EQ(r.stats.image, once.stats.image);
  EXPECT_NE(r.stats.to_line().find(" h2d=2 "), std::string::npos) << r.stats.to_line();
  // A copy by another link on the same memory is not this Runtime's.
  BindOptions other;
  other.before_upload = [&](StagedUpload& up) -> std::optional<std::string> {
    HostLink(b.mem).copy_to_device(up.destination, up.bytes.data(), up.bytes.size());
    return std::nullopt;
  };
  EXPECT_EQ(b.rt->bind(p, other).stats.h2d, 1u);
}

// Copies are classified by the reservation they land in: an entry upload counts in
// tensor_h2d, never in h2d; a copy anywhere else outside the definitions counts as an image
// copy (so a stray one cannot hide); every device->host copy counts in d2h.
TEST(Bind, bind_entry_uploads_count_as_tensor_h2d) {
  const OrchProgram p = parse_or_fail(kSmall);
  RuntimeBench b(p);
  const auto live_base = [&](std::string_view name) {
    for (const ReservationInfo& i : b.mem.reservations())
      if (i.live && i.name == name) return i.base;
    ADD_FAILURE() << "no live " << name;
    return DevAddr();
  };
  const BindResult plain = b.rt->bind(p);
  ASSERT_EQ(plain.status, 0) << plain.detail;
  EXPECT_EQ(plain.stats.tensor_h2d, 2u);  // x and c, one copy each
  EXPECT_EQ(plain.stats.h2d, 1u);
  BindOptions reupload;  // x uploaded a second time, then c read once more
  reupload.before_upload = [&](StagedUpload& up) -> std::optional<std::string> {
    std::vector<int32_t> x(16, 1), c(8);
    up.link.copy_to_device(live_base("entry:x"), x.data(), 64);
    up.link.copy_to_host(c.data(), live_base("entry:c"), 32);
    return std::nullopt;
  };
  const BindResult r = b.rt->bind(p, reupload);
  ASSERT_EQ(r.status, 0) << r.detail;
  EXPECT_EQ(r.stats.tensor_h2d, 3u);
  EXPECT_EQ(r.stats.h2d, 1u);
  EXPECT_EQ(r.stats.shipped, plain.stats.shipped);
  EXPECT_EQ(r.stats.d2h, plain.stats.d2h + 1);
  BindOptions stray;  // 64 bytes into the task heap
  stray.before_upload = [&](StagedUpload& up) -> std::optional<std::string> {
    std::vector<uint8_t> junk(64, 0);
    up.link.copy_to_device(b.rt->task_heap(), junk.data(), junk.size());
    return std::nullopt;
  };
  const BindResult s = b.rt->bind(p, stray);
  EXPECT_EQ(s.stats.h2d, 2u);
  EXPECT_EQ(s.stats.shipped, plain.stats.shipped + 64);
  EXPECT_EQ(s.stats.tensor_h2d, 2u);
}

// Reservations are read per Runtime: two Runtimes on one DeviceMemory see only their own.
TEST(Bind, bind_stats_per_runtime) {
  const OrchProgram p = parse_or_fail(kSmall);
  RuntimeBench b(p);
  RuntimeConfig cfg;
  ASSERT_FALSE(apply_config(parse_or_fail("config W=16 task_heap=131072\n").config, cfg).has_value());
  auto second = Runtime::create(b.mem, cfg);
  ASSERT_TRUE(second.has_value());
  const BindResult r1 = b.rt->bind(p);
  const BindResult r2 = (*second)->bind(parse_or_fail("config W=16 task_heap=131072\ntensor y: In [4]\n"));
  ASSERT_EQ(r1.status, 0) << r1.detail;
  ASSERT_EQ(r2.status, 0) << r2.detail;
  EXPECT_EQ(r1.stats.reserved.task_heap, 65536u);
  EXPECT_EQ(r2.stats.reserved.task_heap, 131072u);
  EXPECT_EQ(r1.stats.reserved.entries, (16 + 8) * 4u);
  EXPECT_EQ(r2.stats.reserved.entries, 16u);
  EXPECT_EQ(r2.stats.tensor_h2d, 1u);
  EXPECT_EQ(b.rt->bind(p).stats, r1.stats);  // the other Runtime's bind changed nothing here
}

TEST(Bind, bind_zero_submit) {
  const OrchProgram p = parse_or_fail("config W=4\n");
  RuntimeBench b(p);
  const BindResult r = b.rt->bind(p);
  ASSERT_EQ(r.status, 0) << r.detail;
  EXPECT_EQ(r.stats.tasks, 0u);
  EXPECT_EQ(r.stats.h2d, 1u);
  EXPECT_EQ(r.stats.image, LayoutPlanner::image(0, {}).total_bytes);
  EXPECT_EQ(b.rt->last_plan().Q, 1u);  // pitch max(n, 1)
  EXPECT_EQ(r.stats.tensor_h2d, 0u);
  EXPECT_EQ(r.stats.d2h, 1u);  // the error words
}

TEST(Bind, bind_entry_upload_readback) {
  const OrchProgram p = parse_or_fail(kSmall);
  RuntimeBench b(p);
  BindOptions o;
  o.seed = 0;
  const BindResult r = b.rt->bind(p, o);
  ASSERT_EQ(r.status, 0) << r.detail;
  EXPECT_TRUE(b.has_reservation("entry:x"));
  EXPECT_TRUE(b.has_reservation("entry:c"));
  EXPECT_EQ(r.stats.reserved.entries, (16 + 8) * 4u);
  EXPECT_EQ(r.stats.d2h, 2u);  // error words + c (InOut); x (In) is not read back
  ASSERT_EQ(r.entries.size(), 2u);
  EXPECT_EQ(r.entries[0].name, "x");
  EXPECT_FALSE(r.entries[0].inout);
  // One splitmix64 draw per element, low 32 bits, x then c (seed 0: 0xE220A8397B1DCDAF, ...).
  EXPECT_EQ(r.entries[0].bytes[0], 0xAF);
  EXPECT_EQ(r.entries[0].bytes[3], 0x7B);
  support::SplitMix64 rng(0);
  std::vector<uint32_t> expect(24);
  for (uint32_t& v : expect) v = static_cast<uint32_t>(rng.next());
  ASSERT_EQ(r.entries[1].bytes.size(), 32u);
  std::vector<uint32_t> got(8);
  std::memcpy(got.data(), r.entries[1].bytes.data(), 32);
  std::vector<uint32_t> ran(8);  // the scheduler ran: c += x[0:8], then c += x[8:16] (u32 wrap)
  for (size_t k = 0; k < 8; ++k) ran[k] = expect[16 + k] + expect[k] + expect[8 + k];
  EXPECT_EQ(got, ran);
  // Another seed, other inputs.
  o.seed = 1;
  const BindResult r1 = b.rt->bind(p, o);
  ASSERT_EQ(r1.status, 0);
  EXPECT_NE(r1.entries[0].bytes, r.entries[0].bytes);
  int live_x = 0, all_x = 0;  // the first bind's entries were released, not leaked
  for (const ReservationInfo& i : b.mem.reservations())
    if (i.name == "entry:x") {
      ++all_x;
      live_x += i.live ? 1 : 0;
    }
  EXPECT_EQ(all_x, 2);
  EXPECT_EQ(live_x, 1);
}

// One plan per orchestrator code: the status is map(code), and nothing but the entry
// tensors was reserved or copied (§15.7).
struct FatalCase {
  int code;
  const char* plan;
};
const FatalCase kFatalCases[] = {
    {1, "tensor x: In [8]\nscope_begin\nsubmit fill(output o: [8], scalar 1)\n"},
    {2, "config task_heap=1024\nalloc a: [128]\nalloc b: [128]\n"},
    {3, "config W=4\nfor i = 0, 5, 1 {\n  submit fill(output o: [8], scalar i)\n}\n"},
    {4,
     "config W=256\ntensor x: InOut [2048]\nalloc y: [2048]\nfor i = 0, 128, 1 {\n"
     "  view v = x[i * 16:16]\n  submit fill(output_existing v, scalar i)\n}\nsubmit acc(input x, inout y)\n"},
    {5, "tensor x: In [8]\nsubmit acc(input x, input x)\n"},
    {7, "tensor x: In [8]\nsync_start 25\n"},
    {8, "tensor x: In [8]\nwait_tensor x\n"},
    {9, "tensor x: In [8]\nfatal\nset a = 1 / 0\n"},
    {10, "config scope_tasks_capacity=2\nfor i = 0, 3, 1 {\n  submit fill(output o: [8], scalar i)\n}\n"},
    {11,
     "config tensormap_capacity=8\ntensor x: In [64]\nfor i = 0, 8, 1 {\n  view v = x[i * 8:8]\n"
     "  submit copy(input v, output o: [8])\n}\n"},
};

void expect_refused(const FatalCase& c) {
  SCOPED_TRACE(c.plan);
  const OrchProgram p = parse_or_fail(c.plan);
  RuntimeBench b(p);
  const BindResult r = b.rt->bind(p);
  EXPECT_EQ(r.status, -(1000 + c.code)) << r.detail;
  EXPECT_EQ(r.failure, BindFailure::kLatched);
  EXPECT_EQ(r.stats.h2d, 0u);
  EXPECT_EQ(r.stats.def_h2d, 0u);
  EXPECT_EQ(r.stats.shipped, 0u);
  EXPECT_EQ(r.stats.d2h, 0u);
  EXPECT_TRUE(r.entries.empty());
  EXPECT_FALSE(b.has_reservation("region"));
  const CopyCounters cc = b.mem.counters();
  EXPECT_EQ(cc.h2d_calls, r.stats.tensor_h2d);
  EXPECT_EQ(cc.h2d_calls, p.tensors.size());
  EXPECT_EQ(cc.d2h_calls, 0u);
  EXPECT_EQ(status_line(r), fmt::format("status={} {}", r.status, code_name(c.code)));
}

TEST(Bind, bind_fatal_before_upload_1) { expect_refused(kFatalCases[0]); }
TEST(Bind, bind_fatal_before_upload_2) { expect_refused(kFatalCases[1]); }
TEST(Bind, bind_fatal_before_upload_3) { expect_refused(kFatalCases[2]); }
TEST(Bind, bind_fatal_before_upload_4) { expect_refused(kFatalCases[3]); }
TEST(Bind, bind_fatal_before_upload_5) { expect_refused(kFatalCases[4]); }
TEST(Bind, bind_fatal_before_upload_7) { expect_refused(kFatalCases[5]); }
TEST(Bind, bind_fatal_before_upload_8) { expect_refused(kFatalCases[6]); }
TEST(Bind, bind_fatal_before_upload_9) { expect_refused(kFatalCases[7]); }
TEST(Bind, bind_fatal_before_upload_10) { expect_refused(kFatalCases[8]); }
TEST(Bind, bind_fatal_before_upload_11) { expect_refused(kFatalCases[9]); }

// Positive control for the table: each plan minus its fault binds and uploads.
TEST(Bind, bind_fatal_cases_controls) {
  const char* controls[] = {
      "tensor x: In [8]\nscope_begin\nsubmit fill(output o: [8], scalar 1)\nscope_end\n",
      "config task_heap=1024\nalloc a: [128]\n",
      "config W=4\nfor i = 0, 4, 1 {\n  submit fill(output o: [8], scalar i)\n}\n",
      "config W=256\ntensor x: InOut [2048]\nalloc y: [2048]\nfor i = 0, 127, 1 {\n"
      "  view v = x[i * 16:16]\n  submit fill(output_existing v, scalar i)\n}\nsubmit acc(input x, inout y)\n",
      "tensor x: In [8]\nalloc y: [8]\nsubmit acc(input x, inout y)\n",
      "tensor x: In [8]\nsync_start 24\n",
      "config scope_tasks_capacity=2\nfor i = 0, 3, 1 {\n  scope_begin\n  submit fill(output o: [8], scalar i)\n"
      "  scope_end\n}\n",
      "config tensormap_capacity=32\ntensor x: In [64]\nfor i = 0, 8, 1 {\n  view v = x[i * 8:8]\n"
      "  submit copy(input v, output o: [8])\n}\n",
  };
  for (const char* text : controls) {
    SCOPED_TRACE(text);
    const OrchProgram p = parse_or_fail(text);
    RuntimeBench b(p);
    const BindResult r = b.rt->bind(p);
    EXPECT_EQ(r.status, 0) << r.detail;
    EXPECT_EQ(r.stats.h2d, 1u);
  }
}

// One fill task, and a plan of `tasks` fills that outgrows the region the first one reserved.
const char* kOneFill = "config W=1024\nsubmit fill(output o: [8], scalar 1)\n";
OrchProgram many_fills(int tasks) {
  return parse_or_fail(
      fmt::format("config W=1024\nfor i = 0, {}, 1 {{\n  submit fill(output o: [8], scalar i)\n}}\n", tasks));
}

TEST(Bind, bind_growth_rebase) {
  const OrchProgram small = parse_or_fail(kOneFill), big = many_fills(200);
  RuntimeBench b(small);
  ASSERT_EQ(b.rt->bind(small).status, 0);
  const DevAddr r1 = b.rt->region();
  const uint64_t s1 = b.rt->region_bytes();
  const BindResult rb = b.rt->bind(big);
  ASSERT_EQ(rb.status, 0) << rb.detail;
  const DevAddr r2 = b.rt->region();
  EXPECT_NE(r2, r1);
  const uint64_t need = (b.rt->last_plan().runtime_header - r2) + b.rt->last_plan().shipped;
  EXPECT_EQ(b.rt->region_bytes(), std::max(need, 2 * s1));
  EXPECT_EQ(rb.stats.reserved.device_only + rb.stats.reserved.copied, b.rt->region_bytes());
  // The shipped header names the new region, and the image attaches there.
  DeviceAccess dev(b.mem);
  const RuntimeHeader rh = dev.load<RuntimeHeader>(b.rt->last_plan().runtime_header);
  EXPECT_EQ(rh.region, r2);
  EXPECT_EQ(rh.image, b.rt->last_plan().image);
  EXPECT_EQ(dev.load<ImageHeader>(rh.image).n, 200u);  // the big image, scheduled there
  // A smaller bind fits the grown region: no new reservation.
  ASSERT_EQ(b.rt->bind(small).status, 0);
  EXPECT_EQ(b.rt->region(), r2);
  // The heaps never move.
  EXPECT_EQ(rh.task_heap, b.rt->task_heap());
}

TEST(Bind, bind_stale_base_faults) {
  const OrchProgram small = parse_or_fail(kOneFill), big = many_fills(300);
  RuntimeBench b(small);
  ASSERT_EQ(b.rt->bind(small).status, 0);
  const DevAddr old_header = b.rt->last_plan().runtime_header;
  const DevAddr old_region = b.rt->region();
  DeviceAccess dev(b.mem);
  EXPECT_NO_THROW(dev.load<RuntimeHeader>(old_header));  // control: live before the growth
  ASSERT_EQ(b.rt->bind(big).status, 0);
  ASSERT_NE(b.rt->region(), old_region);
  try {
    dev.load<RuntimeHeader>(old_header);
    ADD_FAILURE() << "a stale region base must fault";
  } catch (const DeviceFault& f) {
    EXPECT_EQ(f.kind(), FaultKind::kReleased);
  }
  EXPECT_FALSE(attach_populated(dev, old_header).has_value());  // attach reports, never faults
}

TEST(Bind, bind_stats_line) {
  const OrchProgram p = parse_or_fail(kSmall);
  RuntimeBench b(p);
  const BindResult r = b.rt->bind(p);
  ASSERT_EQ(r.status, 0);
  // 6 tasks: 2 x (ALLOC, acc, acc); image = planner(6, cursors (2 ALLOC + 4 x 2 tensors = 10,
  // 0 scalars, fanin ...)); the region holds SchedControl + 6 ring entries, then the copy.
  const SegmentLayout img = LayoutPlanner::image(6, b.rt->orchestrator().cursors());
  EXPECT_EQ(r.stats.image, img.total_bytes);
  EXPECT_EQ(r.stats.mirror, LayoutPlanner::mirror(16).seg.total_bytes);
  const std::string line = r.stats.to_line();
  // image: header 128 | desc 6x32 | payload | slot | flag (6, padded to 768) | 10 TensorArgs
  // (2 ALLOC buffers + 4 acc x 2) | no scalars | 7 fanin ids  = 1436; shipped adds the
  // RuntimeHeader. dev = SchedControl + 6 ring entries, 64-aligned = 128.
  EXPECT_EQ(line, fmt::format("bind tasks=6 nodes=0 defs=0 inlined=0 h2d=1 def_h2d=0 tensor_h2d=2 d2h=2 shipped=1564 "
                              "read={} ratio={} image=1436 image_read={} mirror=44736 task_hw=64 graph_hw=0 gint=0 "
                              "reserved=(dev=128,cp={},img=1436,sub=0,th=65536,gh=67108864,def=0,ent=96)",
                              r.stats.read, r.stats.ratio_text(), r.stats.image_read, b.rt->region_bytes() - 128));
  // Attach reads headers, descriptors, payloads, slots and padding, the scheduler every flag
  // and pool entry: a completed run reads exactly what was shipped (§15.5).
  EXPECT_EQ(r.stats.read, r.stats.shipped);
  EXPECT_EQ(r.stats.image_read, r.stats.image);
  EXPECT_EQ(r.stats.ratio_text(), "1.000");
}

// A config value outside its field's range is refused where it is written (RUNTIME.md §17):
// in text at its line:column, in a program built in code by validate_plan (status -1, an
// invalid plan). Status -2 is left to a RuntimeConfig built in code (Runtime::create).
TEST(Bind, rejected_config_is_unsupported) {
  for (const char* text : {"config W=3\n", "config W=1048576\n", "config task_heap=100\n", "config workers=0\n",
                           "config fill_byte=256\n", "config clusters=-1\n", "config W=-1\n"}) {
    const PlanParseResult parsed = parse_plan(text);
    ASSERT_FALSE(parsed.ok()) << text;
    EXPECT_EQ(parsed.error().line, 1u) << text;
    EXPECT_EQ(parsed.error().column, 8u) << text;
    OrchProgram built;
    const std::string_view t(text);
    const size_t eq = t.find('=');
    built.config.push_back({std::string(t.substr(7, eq - 7)), std::stoll(std::string(t.substr(eq + 1))), {}});
    const BindResult r = bind_plan(built);
    EXPECT_EQ(r.status, -1) << text;
    EXPECT_EQ(r.failure, BindFailure::kInvalidPlan);
    EXPECT_EQ(r.detail, "invalid plan: 0:0: " + parsed.error().message);
  }
  EXPECT_EQ(bind_plan(parse_or_fail("config W=4 workers=1\n")).status, 0);  // control
  DeviceMemory mem;
  RuntimeConfig cfg;
  cfg.W = 48;
  auto rt = Runtime::create(mem, cfg);
  ASSERT_FALSE(rt.has_value());
  EXPECT_EQ(rt.error(), "config W=48 is not a power of two in [4, 2^19]");
}

// Each config key sets its own field and no other (plan/config_ranges.h's order is
// RuntimeConfig's field table's): a key at a valid value other than its default moves only
// the field named after it.
TEST(Bind, config_key_sets_its_field) {
  const RuntimeConfig defaults;
  const auto name_of = [&](uint64_t RuntimeConfig::*f) {
    for (size_t i = 0; i < config_fields().size(); ++i)
      if (config_fields()[i] == f) return config_keys()[i];
    return std::string_view("?");
  };
  EXPECT_EQ(name_of(&RuntimeConfig::W), "W");
  EXPECT_EQ(name_of(&RuntimeConfig::task_heap), "task_heap");
  EXPECT_EQ(name_of(&RuntimeConfig::graph_heap), "graph_heap");
  EXPECT_EQ(name_of(&RuntimeConfig::ready_capacity), "ready_capacity");
  EXPECT_EQ(name_of(&RuntimeConfig::tensormap_capacity), "tensormap_capacity");
  EXPECT_EQ(name_of(&RuntimeConfig::scope_tasks_capacity), "scope_tasks_capacity");
  EXPECT_EQ(name_of(&RuntimeConfig::workers), "workers");
  EXPECT_EQ(name_of(&RuntimeConfig::progress_timeout_ms), "progress_timeout_ms");
  EXPECT_EQ(name_of(&RuntimeConfig::clusters), "clusters");
  EXPECT_EQ(name_of(&RuntimeConfig::fill_byte), "fill_byte");
  ASSERT_EQ(config_fields().size(), config_ranges().size());
  for (size_t i = 0; i < config_ranges().size(); ++i) {
    const ConfigRange& r = config_ranges()[i];
    const int64_t v = static_cast<uint64_t>(r.hi) == defaults.*config_fields()[i] ? r.lo : r.hi;
    RuntimeConfig got;
    ASSERT_EQ(apply_config(std::vector<ConfigEntry>{{std::string(r.key), v, {}}}, got), std::nullopt) << r.key;
    for (size_t j = 0; j < config_fields().size(); ++j)
      EXPECT_EQ(got.*config_fields()[j], i == j ? static_cast<uint64_t>(v) : defaults.*config_fields()[j])
          << r.key << " moved " << config_keys()[j];
  }
}

// A definition is uploaded (its own reservation, one def_h2d) by the first bind that submits
// it and stays resident: binding again on the same Runtime replays it with no upload.
TEST(Bind, bind_defs_once) {
  const OrchProgram p = parse_or_fail(
      "tensor c: InOut [8]\ngraph g(a) {\n  submit fill(output_existing a, scalar $0)\n}\n"
      "for i = 0, 3, 1 {\n  submit_graph g(inout c, scalar i)\n}\n");
  RuntimeBench b(p);
  const BindResult r1 = b.rt->bind(p);
  ASSERT_EQ(r1.status, 0) << r1.detail;
  expect_stats(r1.stats, {.tasks = 3, .defs = 1, .h2d = 1, .def_h2d = 1});
  const DevAddr def = b.rt->orchestrator().graph_cache().at(0).device;
  ASSERT_FALSE(def.is_null());
  const CopyCounters c1 = b.mem.counters();
  const BindResult r2 = b.rt->bind(p);
  ASSERT_EQ(r2.status, 0) << r2.detail;
  EXPECT_EQ(r2.stats.def_h2d, 0u);
  EXPECT_EQ(r2.stats.defs, 1u);
  EXPECT_EQ(r2.stats.reserved.definitions, r1.stats.reserved.definitions);
  EXPECT_EQ(b.rt->orchestrator().graph_cache().at(0).device, def);
  EXPECT_EQ(b.mem.counters().h2d_calls - c1.h2d_calls, r2.stats.h2d + r2.stats.tensor_h2d);  // no definition copy
  int defs = 0;
  for (const ReservationInfo& i : b.mem.reservations()) defs += i.name.rfind("graph_def:", 0) == 0 ? 1 : 0;
  EXPECT_EQ(defs, 1);
  // Another program's graph in the same position is another function: a new definition.
  const OrchProgram q = parse_or_fail(
      "tensor c: InOut [8]\ngraph g(a) {\n  submit fill(output_existing a, scalar 7)\n}\n"
      "submit_graph g(inout c)\n");
  const BindResult r3 = b.rt->bind(q);
  ASSERT_EQ(r3.status, 0) << r3.detail;
  EXPECT_EQ(r3.stats.def_h2d, 1u);
  EXPECT_EQ(r3.stats.defs, 2u);
  // A graph that is never submitted records nothing.
  const BindResult r4 = bind_plan(parse_or_fail("graph g(a) {\n}\n"));
  EXPECT_EQ(r4.status, 0);
  EXPECT_EQ(r4.stats.defs, 0u);
}

TEST(Bind, invalid_plan_and_budget_are_generic) {
  OrchProgram bad;
  bad.body.push_back(PlanStmt{SetStmt{"a", PlanExpr::named("nope")}, {}});
  const BindResult r = bind_plan(bad);
  EXPECT_EQ(r.status, -1);
  EXPECT_EQ(status_line(r), "status=-1 GENERIC invalid plan: 0:0: undefined name 'nope'");
  EXPECT_EQ(r.failure, BindFailure::kInvalidPlan);
  BindOptions o;
  o.max_statements = 1000;
  const BindResult spin = bind_plan(parse_or_fail("for i = 0, 9223372036854775807, 1 {\n  set a = i\n}\n"), o);
  EXPECT_EQ(spin.status, -1);
  EXPECT_NE(spin.detail.find("budget"), std::string::npos);
  EXPECT_EQ(spin.failure, BindFailure::kBudget);
  EXPECT_EQ(bind_plan(parse_or_fail("submit fill(output o: [8], scalar 1)\n")).failure, BindFailure::kNone);
}

// The before-upload hook (a harness's seam): it sees the staged bytes after compaction and
// where they will land, what it changes is what attach judges, and it can stop the bind.
TEST(Bind, before_upload_hook_reaches_attach) {
  const OrchProgram p = parse_or_fail("submit fill(output o: [8], scalar 1)\n");
  EXPECT_EQ(bind_plan(p).status, 0);  // control: no hook
  BindOptions seen;
  uint64_t staged = 0, image_offset = 0, image_bytes = 0;
  DevAddr destination;
  seen.before_upload = [&](StagedUpload& up) -> std::optional<std::string> {
    staged = up.bytes.size();
    image_offset = up.image_offset;
    image_bytes = up.image_bytes;
    destination = up.destination;
    return std::nullopt;
  };
  RuntimeBench b(p);
  const BindResult r = b.rt->bind(p, seen);
  ASSERT_EQ(r.status, 0) << r.detail;
  EXPECT_EQ(staged, r.stats.shipped);
  EXPECT_EQ(image_offset, sizeof(RuntimeHeader));
  EXPECT_EQ(image_bytes, r.stats.image);
  EXPECT_EQ(destination, b.rt->last_plan().runtime_header);

  BindOptions image_magic;  // ImageHeader byte 0
  image_magic.before_upload = testing::set_image_byte(0, 0);
  const BindResult magic = bind_plan(p, image_magic);
  EXPECT_EQ(magic.status, -1);
  EXPECT_EQ(magic.detail.rfind("attach: BadMagic: image header", 0), 0u) << magic.detail;
  EXPECT_EQ(magic.failure, BindFailure::kAttach);
  EXPECT_EQ(magic.attach_class, AttachErrorClass::kBadMagic);
  EXPECT_EQ(magic.stats.h2d, 1u);  // uploaded, then refused by the device
  BindOptions runtime_magic;       // RuntimeHeader byte 0
  runtime_magic.before_upload = [](StagedUpload& up) -> std::optional<std::string> {
    up.bytes[0] = std::byte{0};
    return std::nullopt;
  };
  const BindResult rt_magic = bind_plan(p, runtime_magic);
  EXPECT_EQ(rt_magic.status, -1);
  EXPECT_EQ(rt_magic.detail.rfind("attach: BadMagic: runtime header", 0), 0u) << rt_magic.detail;
  BindOptions same;  // the version byte rewritten to its own value
  same.before_upload = testing::set_image_byte(8, 1);
  EXPECT_EQ(bind_plan(p, same).status, 0);
  BindOptions stop;
  stop.before_upload = [](StagedUpload&) -> std::optional<std::string> { return "stopped by the harness"; };
  const BindResult stopped = bind_plan(p, stop);
  EXPECT_EQ(stopped.status, -1);
  EXPECT_EQ(stopped.detail, "stopped by the harness");
  EXPECT_EQ(stopped.failure, BindFailure::kHook);
  EXPECT_FALSE(stopped.attach_class.has_value());
  EXPECT_EQ(stopped.stats.h2d, 0u);
  // The runtime never applies `mutate` lines itself: without a hook they change nothing.
  EXPECT_EQ(bind_plan(parse_or_fail("submit fill(output o: [8], scalar 1)\nmutate 0 0\nmutate header 0 0\n")).status,
            0);
}

// §15.5 with graph submissions: three records of 48 + 2 x 64 = 176 bytes, each at a 64-byte
// boundary, leave 16 padding bytes after each of the first two, and the zone starts at the
// next 64-byte boundary after the image. Attach reads that padding (DirtyPadding), so a
// completed bind reads every shipped byte, as the device memory's read bits count them; a
// nonzero byte of it is refused (corpus/plans/graph_three_records.plan).

TEST(Bind, bind_reads_every_shipped_byte_graph_padding_included) {
  const OrchProgram p = parse_or_fail(testing::read_corpus_plan("graph_three_records.plan"));
  RuntimeBench b(p);
  const BindResult r = b.rt->bind(p);
  ASSERT_EQ(r.status, 0) << r.detail;
  const RegionPlan& plan = b.rt->last_plan();
  const uint64_t image_end = sizeof(RuntimeHeader) + plan.image_bytes;
  ASSERT_LT(image_end, align64(image_end));  // a gap before the zone
  EXPECT_EQ(plan.submissions, plan.runtime_header + align64(image_end));
  EXPECT_EQ(plan.submissions_bytes, 2 * 192 + 176u);
  EXPECT_EQ(plan.shipped, align64(image_end) + plan.submissions_bytes);
  EXPECT_EQ(b.mem.bytes_read(plan.runtime_header, plan.shipped), plan.shipped);
  EXPECT_EQ(r.stats.shipped, plan.shipped);
  EXPECT_EQ(r.stats.read, r.stats.shipped);
  EXPECT_EQ(r.stats.ratio_text(), "1.000");

  const uint64_t pads[] = {image_end - sizeof(RuntimeHeader),                        // the first gap byte, then the
                           align64(image_end) + 176 - sizeof(RuntimeHeader),         // padding after
                           align64(image_end) + 192 + 191 - sizeof(RuntimeHeader)};  // records 0 and 1
  for (uint64_t at : pads) {
    BindOptions dirty;
    dirty.before_upload = testing::set_image_byte(at, 1);
    const BindResult d = bind_plan(p, dirty);
    EXPECT_EQ(d.attach_class, AttachErrorClass::kDirtyPadding) << at << ": " << d.detail;
  }
  BindOptions clean;  // control: the same bytes rewritten to 0
  clean.before_upload = testing::set_image_byte(pads[1], 0);
  EXPECT_EQ(bind_plan(p, clean).status, 0);
}

// The shared seeds in corpus/plans: each parses, prints canonically back to itself (minus
// comments), and binds; fatal_NN_* plans end in status map(NN), every other plan in 0.
TEST(Bind, corpus_plans_bind_as_named) {
  const std::filesystem::path dir = testing::corpus_plans_dir();
  ASSERT_TRUE(std::filesystem::is_directory(dir)) << dir;
  int seen = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".plan") continue;
    const std::string name = entry.path().filename().string();
    SCOPED_TRACE(name);
    const std::string text = testing::read_corpus_plan(name);
    EXPECT_EQ(text.rfind("# stackcheck shared\n", 0), 0u);
    PlanParseResult parsed = parse_plan(text);
    ASSERT_TRUE(parsed.ok()) << parsed.error().to_string();
    PlanParseResult again = parse_plan(print_plan(parsed.program()));
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(again.program(), parsed.program());
    BindOptions o;
    o.fill_byte = 0xAA;
    const BindResult r = bind_plan(parsed.program(), o);
    const int expected = name.rfind("fatal_", 0) == 0 ? -(1000 + std::stoi(name.substr(6, 2))) : 0;
    EXPECT_EQ(r.status, expected) << r.detail;
    ++seen;
  }
  EXPECT_GE(seen, 12);
}

}  // namespace
}  // namespace stackcheck::runtime
