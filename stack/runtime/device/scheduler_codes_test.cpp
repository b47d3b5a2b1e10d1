// The scheduler's error codes (RUNTIME.md §12, §13; §16 sched_code_100..104) and its
// fault path. 103 and 104 come through bind (a before-upload hook, a `ready_capacity` config);
// 100..102 need device state that no valid upload has, so they use a hand-built image
// (TestMirror + compaction + one copy, as attach's tests stage it) with real tensors, where
// a "rogue" kernel's output window is aimed at the scheduler's own records in the image.
// Each case has a positive control that completes.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "stack/runtime/device/kernels.h"
#include "stack/runtime/device/scheduler.h"
#include "stack/runtime/devmem/host_link.h"
#include "stack/runtime/host/bind.h"
#include "stack/runtime/host/runtime.h"
#include "stack/runtime/host/test_support.h"
#include "stack/runtime/image/compact.h"
#include "stack/runtime/image/test_support.h"
#include "stack/runtime/plan/parser.h"

namespace stackcheck::runtime {
namespace {

using Mode = ScheduleOptions::Mode;

// ---- a hand-built image ----

struct HandTask {
  int32_t kernel;
  std::vector<TensorArg> tensors;
  std::vector<uint64_t> scalars;
  std::vector<int32_t> fanin;
};

class HandImage {
 public:
  HandImage() : dev(mem), host_(mem), m_(16) {}

  // A buffer of `n` i32 elements, uploaded, and the whole-buffer TensorArg over it.
  TensorArg buffer(uint32_t n, uint32_t value, uint32_t tag = kTagInput) {
    const DevAddr b = host_.reserve(4 * n, 1024, "buf");
    std::vector<uint32_t> v(n, value);
    host_.copy_to_device(b, v.data(), 4 * n);
    return window(b, 4 * n, tag);
  }
  static TensorArg window(DevAddr base, uint64_t bytes, uint32_t tag = kTagOutputExisting) {
    TensorArg a{};
    a.base = base;
    a.buffer_bytes = bytes;
    a.tag = tag;
    a.rank = 1;
    a.shape[0] = static_cast<int32_t>(bytes / 4);
    a.stride[0] = 1;
    return a;
  }

  int32_t add(const HandTask& t) {
    const PoolCounts at = m_.cursors;
    const int32_t id = m_.add(testing::TaskSpec{kKindKernel, t.kernel, static_cast<uint16_t>(t.tensors.size()),
                                                static_cast<uint16_t>(t.scalars.size()), t.fanin});
    for (size_t k = 0; k < t.tensors.size(); ++k) m_.put(m_.layout.seg.tensor_at(at.tensors + k), t.tensors[k]);
    for (size_t k = 0; k < t.scalars.size(); ++k) m_.put(m_.layout.seg.scalar_at(at.scalars + k), t.scalars[k]);
    tensor_at_.push_back(at.tensors);
    return id;
  }

  // Reserves the region, so the image address is known (for rogue windows) before upload.
  void plan() {
    L = LayoutPlanner::image(m_.n, m_.cursors);
    q_ = L.pitch;
    dev_only_ = align64(sizeof(SchedControl) + 8 * q_);
    region_ = host_.reserve(dev_only_ + sizeof(RuntimeHeader) + L.total_bytes, 64, "region");
    rt_addr = region_ + dev_only_;
    image = rt_addr + sizeof(RuntimeHeader);
  }
  void set_tensor(int32_t task, size_t k, const TensorArg& a) {
    m_.put(m_.layout.seg.tensor_at(tensor_at_[static_cast<size_t>(task)] + k), a);
  }
  void upload() {
    std::vector<std::byte> stage(sizeof(RuntimeHeader) + L.total_bytes);
    auto r = compact_live_image(m_.bytes, m_.layout, m_.cursors, m_.n,
                                std::span(stage).subspan(sizeof(RuntimeHeader), L.total_bytes));
    ASSERT_TRUE(r.has_value());
    const RuntimeHeader rt =
        testing::hand_runtime_header(16, q_, region_, dev_only_, dev_only_ + stage.size(), L.total_bytes);
    std::memcpy(stage.data(), &rt, sizeof rt);
    host_.copy_to_device(rt_addr, stage.data(), stage.size());
    auto v = attach_populated(dev, rt_addr);
    ASSERT_TRUE(v.has_value()) << v.error().message;
    view = *v;
  }
  ScheduleResult run(Mode m, unsigned workers = 0, uint32_t timeout_ms = 0) {
    ScheduleOptions o;
    o.mode = m;
    o.workers = workers;
    o.progress_timeout_ms = timeout_ms;
    return run_scheduler(dev, view, o);
  }
  template <class T>
  T header(size_t field) {
    return dev.load<T>(image + field);
  }

  DeviceMemory mem{DeviceMemoryConfig{0xAA, false}};
  DeviceAccess dev;
  SegmentLayout L;
  DevAddr rt_addr, image;
  DevImageView view;

 private:
  HostLink host_;
  testing::TestMirror m_;
  std::vector<uint64_t> tensor_at_;
  uint64_t q_ = 0, dev_only_ = 0;
  DevAddr region_;
};

void expect_latched(HandImage& h, const ScheduleResult& r, int32_t code, int32_t thread) {
  EXPECT_EQ(r.code, code) << r.detail;
  EXPECT_FALSE(r.faulted);
  EXPECT_FALSE(r.detail.empty());
  EXPECT_EQ(r.code_thread, thread);
  EXPECT_EQ(h.header<int32_t>(offsetof(ImageHeader, sched_error)), code);
  EXPECT_EQ(h.header<int32_t>(offsetof(ImageHeader, sched_error_thread)), thread);
  EXPECT_NE(h.header<uint64_t>(offsetof(ImageHeader, sched_error_bitmap)) & (uint64_t{1} << thread), 0u);
}

// Lost wakeup: task 2 parks on task 1; task 0 (the only root, and task 1's producer) is a
// fill whose output window is task 1's wake_head, so it overwrites the registration before
// task 1 completes, and nothing can ever wake task 2. `head` is what the fill writes: 0
// loses the waiter; 3 (= waiter 2 + 1, the value already there) is the control.
void build_lost_wakeup(HandImage& h, uint32_t head, TensorArg* out) {
  const TensorArg b = h.buffer(4, 9), c = h.buffer(4, 0, kTagOutputExisting);
  *out = c;
  h.add({kKernelFill, {b}, {head}, {}});  // 0: rogue (window aimed below)
  h.add({kKernelFill, {b}, {1}, {0}});    // 1: waits on 0
  h.add({kKernelCopy, {b, c}, {}, {1}});  // 2: waits on 1
  h.plan();
  h.set_tensor(0, 0, HandImage::window(h.image + h.L.slot_at(1) + offsetof(SlotState, wake_head), 4));
  h.upload();
}

std::vector<uint32_t> read4(HandImage& h, const TensorArg& t) {
  std::vector<uint32_t> v(4);
  h.dev.read(t.base, v.data(), 16);
  return v;
}

TEST(SchedulerCodes, sched_code_100) {
  for (Mode m : {Mode::kNewest, Mode::kOldest, Mode::kRandom}) {
    SCOPED_TRACE(schedule_mode_name(m));
    HandImage h;
    TensorArg c;
    build_lost_wakeup(h, 0, &c);
    const ScheduleResult r = h.run(m);
    expect_latched(h, r, 100, 0);  // at once: nothing ready while task 2 remains
    EXPECT_EQ(r.trace, (std::vector<TraceEntry>{{0, -1}, {1, -1}}));
    EXPECT_EQ(r.units_completed, 2u);
  }
  {  // Threaded: the watchdog (thread id = workers) sees no completion within the timeout.
    HandImage h;
    TensorArg c;
    build_lost_wakeup(h, 0, &c);
    const ScheduleResult r = h.run(Mode::kThreaded, 1, 50);
    expect_latched(h, r, 100, 1);
    EXPECT_NE(r.detail.find("no completion within 50 ms"), std::string::npos) << r.detail;
  }
  // Controls: the same image whose rogue write keeps the list completes everywhere.
  for (Mode m : {Mode::kNewest, Mode::kOldest, Mode::kRandom, Mode::kThreaded}) {
    SCOPED_TRACE(schedule_mode_name(m));
    HandImage h;
    TensorArg c;
    build_lost_wakeup(h, 3, &c);
    const ScheduleResult r = h.run(m, 1, 5000);
    EXPECT_TRUE(r.completed()) << r.detail;
    EXPECT_EQ(r.units_completed, 3u);
    EXPECT_EQ(read4(h, c), (std::vector<uint32_t>{1, 1, 1, 1}));
    EXPECT_EQ(h.header<int32_t>(offsetof(ImageHeader, sched_error)), 0);
  }
}

// A fill whose output window is its own slot state: at completion the state is `state`,
// not RUNNING (4), unless the control writes 4.
TEST(SchedulerCodes, sched_code_101) {
  for (Mode m : {Mode::kNewest, Mode::kOldest, Mode::kThreaded}) {
    for (uint32_t state : {7u, 4u}) {
      SCOPED_TRACE(fmt::format("{} state {}", schedule_mode_name(m), state));
      HandImage h;
      const TensorArg b = h.buffer(4, 0, kTagOutputExisting);
      h.add({kKernelFill, {b}, {state}, {}});
      h.add({kKernelCopy, {h.buffer(4, 5), b}, {}, {0}});
      h.plan();
      h.set_tensor(0, 0, HandImage::window(h.image + h.L.slot_at(0) + offsetof(SlotState, state), 4));
      h.upload();
      const ScheduleResult r = h.run(m);
      if (state == 4) {
        EXPECT_TRUE(r.completed()) << r.detail;
        EXPECT_EQ(read4(h, b), (std::vector<uint32_t>{5, 5, 5, 5}));
        continue;
      }
      EXPECT_EQ(r.code, 101) << r.detail;
      EXPECT_NE(r.detail.find("task 0: state 7"), std::string::npos) << r.detail;
      EXPECT_EQ(h.header<int32_t>(offsetof(ImageHeader, sched_error)), 101);
      EXPECT_EQ(r.units_completed, 0u);  // task 1 never ran
      EXPECT_EQ(read4(h, b), (std::vector<uint32_t>{0, 0, 0, 0}));
    }
  }
}

// 65535 waiters is the u16 limit: the producer's count is set to 65534 or 65535 after
// attach (a natural case needs a window of 2^17 tasks), then one consumer registers.
TEST(SchedulerCodes, sched_code_102) {
  for (uint16_t before : {uint16_t{65535}, uint16_t{65534}}) {
    SCOPED_TRACE(before);
    HandImage h;
    const TensorArg b = h.buffer(4, 0, kTagOutputExisting), c = h.buffer(4, 0, kTagOutputExisting);
    h.add({kKernelFill, {b}, {6}, {}});
    h.add({kKernelCopy, {b, c}, {}, {0}});
    h.plan();
    h.upload();
    const DevAddr count = h.image + h.L.slot_at(0) + offsetof(SlotState, wake_count);
    h.dev.store<uint16_t>(count, before);
    const ScheduleResult r = h.run(Mode::kOldest);
    if (before == 65535) {
      expect_latched(h, r, 102, 0);
      EXPECT_TRUE(r.trace.empty());  // latched while classifying
    } else {
      EXPECT_TRUE(r.completed()) << r.detail;
      EXPECT_EQ(h.dev.load<uint16_t>(count), 65535);
      EXPECT_EQ(read4(h, c), (std::vector<uint32_t>{6, 6, 6, 6}));
    }
  }
}

using testing::parse_or_fail;
using testing::poisoned_bind_options;

// Image offset of segment `s` for plan `text` (bound once on a poisoned device).
uint64_t segment_offset(const std::string& text, Segment s) {
  const OrchProgram p = parse_or_fail(text);
  testing::RuntimeBench b(p);
  EXPECT_EQ(b.rt->bind(p).status, 0);
  DeviceAccess dev(b.mem);
  return dev.load<ImageHeader>(b.rt->last_plan().image).seg_off[s];
}

// Task 1 = acc(input t, inout c) waits on task 0 (ALLOC t): its one fanin entry is rewritten
// to name itself, a later task, or a negative id.
TEST(SchedulerCodes, sched_code_103) {
  const std::string plan = "config W=16\ntensor c: InOut [8]\nalloc t: [8]\nsubmit acc(input t, inout c)\n";
  const uint64_t fanin = segment_offset(plan, kSegFanin);
  for (Mode m : {Mode::kThreaded, Mode::kNewest, Mode::kOldest}) {
    SCOPED_TRACE(schedule_mode_name(m));
    for (const auto& [at, value] : {std::pair<uint64_t, uint8_t>{fanin, 1}, {fanin, 9}, {fanin + 3, 255}}) {
      BindOptions o = poisoned_bind_options(m);
      o.before_upload = testing::set_image_byte(at, value);
      const BindResult r = bind_plan(parse_or_fail(plan), o);
      EXPECT_EQ(r.status, -1103) << at << "=" << int(value) << " " << r.detail;
      EXPECT_EQ(r.detail.rfind("WAIT_REGISTRATION_FAILED: task 1 fanin entry 0 names producer", 0), 0u) << r.detail;
      EXPECT_EQ(r.stats.d2h, 1u);  // the error words only, no entries
      EXPECT_TRUE(r.entries.empty());
    }
    BindOptions control = poisoned_bind_options(m);
    control.before_upload = testing::set_image_byte(fanin, 0);  // the value already there
    const BindResult ok = bind_plan(parse_or_fail(plan), control);
    EXPECT_EQ(ok.status, 0) << ok.detail;
  }
}

TEST(SchedulerCodes, sched_code_104) {
  const char* plan =
      "config W=16 ready_capacity={}\nsubmit fill(output a: [8], scalar 1)\n"
      "submit fill(output b: [8], scalar 2)\nsubmit add(input a, input b, output c: [8])\n";
  for (Mode m : {Mode::kNewest, Mode::kOldest, Mode::kRandom}) {
    SCOPED_TRACE(schedule_mode_name(m));
    const BindResult r = bind_plan(parse_or_fail(fmt::format(fmt::runtime(plan), 1)), poisoned_bind_options(m));
    EXPECT_EQ(r.status, -1104) << r.detail;
    EXPECT_NE(r.detail.find("ready ring of 1 full at task 1"), std::string::npos) << r.detail;
    const BindResult ok =
        bind_plan(parse_or_fail(fmt::format(fmt::runtime(plan), 2)), poisoned_bind_options(m));  // control
    EXPECT_EQ(ok.status, 0) << ok.detail;
    EXPECT_EQ(ok.trace.size(), 3u);
  }
}

// A DeviceFault stops the run (no code) and becomes the detail: a kernel's output base
// rewritten (by the before-upload hook, byte 5 of the TensorArg's base) to an address never
// reserved.
TEST(SchedulerCodes, sched_device_fault_stops) {
  const std::string plan =
      "config W=16\ntensor c: InOut [8]\nsubmit fill(output_existing c, scalar 1)\n"
      "submit scale(input c, output_existing c, scalar 3)\n";
  const uint64_t tensors = segment_offset(plan, kSegTensor);
  for (Mode m : {Mode::kThreaded, Mode::kOldest}) {
    SCOPED_TRACE(schedule_mode_name(m));
    BindOptions o = poisoned_bind_options(m);
    o.before_upload = testing::set_image_byte(tensors + 5, 112);
    const BindResult r = bind_plan(parse_or_fail(plan), o);
    EXPECT_EQ(r.status, -1) << r.detail;
    EXPECT_NE(r.detail.find("task 0 (fill): DeviceFault(write"), std::string::npos) << r.detail;
    EXPECT_NE(r.detail.find("kind=unmapped"), std::string::npos) << r.detail;
    EXPECT_EQ(r.trace, (std::vector<TraceEntry>{{0, -1}}));                          // task 1 never ran
    const BindResult ok = bind_plan(parse_or_fail(plan), poisoned_bind_options(m));  // control
    EXPECT_EQ(ok.status, 0) << ok.detail;
  }
  // The same, hand-built: the control block records the fault.
  HandImage h;
  h.add({kKernelFill, {HandImage::window(DevAddr(0x7000'0000'0000ull), 16)}, {1}, {}});
  h.plan();
  h.upload();
  const ScheduleResult r = h.run(Mode::kOldest);
  EXPECT_TRUE(r.faulted);
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(h.dev.load<int32_t>(h.view.rt.device_only + offsetof(SchedControl, fault)), 1);
  EXPECT_EQ(h.header<int32_t>(offsetof(ImageHeader, sched_error)), 0);
}

}  // namespace
}  // namespace stackcheck::runtime
