// A corrupt TensorArg through a whole bind (RUNTIME.md §11, §12): attach does not vouch for
// what a TensorArg points at, so a task handed a corrupt one runs, and the device kernel
// re-validates it. A case binds a generated plan once to get its shipped image, picks one task
// that runs on the device (a kernel or an ALLOC task) and one of its tensor arguments in the
// tensor pool, and changes one field of it: the rank to 0 or 5, a dim to 0 or -1 or one more,
// a stride to 0, -1, 2 or one more, the offset past its span, unaligned or a line back, or
// buffer_bytes a few bytes short. The image is bound again with that change (the one-thread
// `newest` policy, device memory not strict), and the outcome is predicted by the kernel model
// (oracles/kernel_model.h) from the task's shipped arguments alone:
// - a KernelError: the bind ends -1 with a kernel fault whose detail is exactly
//   `task T: kernel error: MESSAGE`;
// - a span fault: a kernel fault whose detail is exactly
//   `task T (NAME): DeviceFault(OP addr=0x... n=N kind=span)`;
// - a window the kernel accepts: the bind completes (the values it computes are not judged).
// Control (KernelFaultControl): a prediction naming the task one below its id must fail.
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <array>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "properties/gen/arbitrary.h"
#include "properties/oracles/image_checks.h"
#include "properties/oracles/image_mutation.h"
#include "properties/oracles/kernel_model.h"
#include "properties/oracles/spec_layout.h"
#include "properties/oracles/status_codes.h"
#include "properties/property.h"
#include "stack/runtime/host/bind.h"
#include "stack/runtime/image/records.h"
#include "stack/runtime/plan/printer.h"

using namespace stackcheck;
using oracles::Inconclusive;
using oracles::Verdict;
using runtime::TensorArg;

namespace {

template <class T>
std::optional<T> at(const std::vector<std::byte>& b, uint64_t off) {
  if (off > b.size() || b.size() - off < sizeof(T)) return std::nullopt;
  T v;
  std::memcpy(&v, b.data() + off, sizeof v);
  return v;
}

// One device task of the shipped image: its kernel and where its arguments lie (staged offsets).
struct ShippedTask {
  uint32_t id = 0;
  int32_t kernel = 0;
  uint64_t tensors_at = 0, scalars_at = 0;
  uint16_t n_tensors = 0, n_scalars = 0;
};

// Offsets of §4's records, written from the spec: the ImageHeader's n @20 and seg_off @56; a
// descriptor's kernel_id @4 and kind @8; a payload's counts @0 and @2, deltas @8 and @12.
std::vector<ShippedTask> device_tasks(const oracles::Captured& c) {
  std::vector<ShippedTask> out;
  const uint64_t img = c.image_offset;
  const auto n = at<uint32_t>(c.staged, img + 20);
  if (!n) return out;
  uint64_t seg[oracles::spec::kSegs];
  for (int s = 0; s < oracles::spec::kSegs; ++s) seg[s] = at<uint64_t>(c.staged, img + 56 + 8 * s).value_or(0);
  for (uint32_t i = 0; i < *n; ++i) {
    const uint64_t d = img + seg[oracles::spec::kDesc] + 32 * uint64_t{i};
    const uint64_t p = img + seg[oracles::spec::kPayload] + 32 * uint64_t{i};
    const auto kind = at<uint32_t>(c.staged, d + 8);
    const auto flag = at<uint8_t>(c.staged, img + seg[oracles::spec::kFlag] + i);
    if (!kind || !flag || *flag != 0 || (*kind != runtime::kKindKernel && *kind != runtime::kKindAlloc)) continue;
    ShippedTask t;
    t.id = i;
    t.kernel = at<int32_t>(c.staged, d + 4).value_or(-1);
    t.n_tensors = at<uint16_t>(c.staged, p).value_or(0);
    t.n_scalars = at<uint16_t>(c.staged, p + 2).value_or(0);
    t.tensors_at = p + 8 + static_cast<uint64_t>(static_cast<int64_t>(at<int32_t>(c.staged, p + 8).value_or(0)));
    t.scalars_at = p + 12 + static_cast<uint64_t>(static_cast<int64_t>(at<int32_t>(c.staged, p + 12).value_or(0)));
    if (t.n_tensors > 0) out.push_back(t);
  }
  return out;
}

// One field of `a` changed; the change's name.
std::string corrupt(gen::ChoiceSource& c, TensorArg& a) {
  const uint32_t d = a.rank >= 1 && a.rank <= 4 ? static_cast<uint32_t>(c.integer(0, a.rank - 1)) : 0;
  switch (c.one_of(5)) {
    case 0: a.rank = c.boolean() ? 5 : 0; return "rank";
    case 1: a.shape[d] = std::array<int32_t, 3>{0, -1, a.shape[d] + 1}[c.one_of(3)]; return "dim";
    case 2: a.stride[d] = std::array<int32_t, 4>{0, -1, 2, a.stride[d] + 1}[c.one_of(4)]; return "stride";
    case 3:
      a.offset_bytes = std::array<uint64_t, 3>{a.buffer_bytes, a.offset_bytes + static_cast<uint64_t>(c.integer(1, 3)),
                                               a.offset_bytes - 4}[c.one_of(3)];
      return "offset";
    default:
      a.buffer_bytes -= std::min<uint64_t>(a.buffer_bytes, static_cast<uint64_t>(c.integer(1, 8)));
      return "bytes";
  }
}

// The detail the bind's kernel fault states, or nullopt when the kernel accepts the arguments.
std::optional<std::string> expected_detail(const ShippedTask& t, const std::vector<TensorArg>& args,
                                           const std::vector<uint64_t>& scalars, bool flawed) {
  oracles::KernelMemory mem;  // the window's bytes do not decide a refusal: any will do
  for (const TensorArg& a : args) mem.regions.push_back({a.base.raw(), std::vector<uint8_t>(a.buffer_bytes)});
  const oracles::KernelOutcome o = oracles::predict_kernel(mem, t.kernel, args, scalars);
  const uint32_t id = flawed ? t.id - 1 : t.id;
  static constexpr const char* kNames[] = {"fill", "copy", "add", "acc", "scale", "matmul", "rowsum", "zero"};
  switch (o.kind) {
    case oracles::KernelOutcome::Kind::kDone: return std::nullopt;
    case oracles::KernelOutcome::Kind::kError: return fmt::format("task {}: kernel error: {}", id, o.message);
    case oracles::KernelOutcome::Kind::kFault:
      return fmt::format("task {} ({}): DeviceFault({} addr={:#x} n={} kind=span)", id, kNames[t.kernel],
                         o.op == runtime::DeviceOp::kWrite ? "write" : "read", o.addr, o.n);
  }
  return std::nullopt;
}

void kernel_fault_case(bool flawed) {
  gen::feature_tally().begin_case();
  // A plan with a device task that has a tensor: up to four draws (a plan may submit only
  // graphs, or nothing), at full size from the first case.
  gen::GeneratedPlan g;
  runtime::BindOptions o;
  o.schedule.mode = runtime::ScheduleOptions::Mode::kNewest;
  oracles::Captured clean;
  std::vector<ShippedTask> tasks;
  for (int attempt = 0; attempt < 4 && tasks.empty(); ++attempt) {
    g = gen::any_plan(gen::PlanKnobs{}, gen::Size::kFull);
    clean = oracles::lease_bench(g.plan, 0xAA, false)->bind(g.plan, o);
    if (clean.result.status == 0) tasks = device_tasks(clean);
  }
  if (clean.result.status != 0)
    props::report(Verdict::inconclusive(Inconclusive::kResourceLatch, runtime::status_line(clean.result)));
  if (tasks.empty()) props::report(Verdict::inconclusive(Inconclusive::kInputRejected, "no device task has a tensor"));
  gen::ChoiceSource& c = gen::choices();
  const ShippedTask& t = tasks[c.one_of(tasks.size())];
  std::vector<TensorArg> args(t.n_tensors);
  for (size_t k = 0; k < args.size(); ++k) args[k] = at<TensorArg>(clean.staged, t.tensors_at + 64 * k).value();
  std::vector<uint64_t> scalars(t.n_scalars);
  for (size_t k = 0; k < scalars.size(); ++k) scalars[k] = at<uint64_t>(clean.staged, t.scalars_at + 8 * k).value();
  const size_t which = c.one_of(args.size());
  const std::string field = corrupt(c, args[which]);
  std::vector<runtime::Mutation> muts;
  const auto* bytes = reinterpret_cast<const std::byte*>(&args[which]);
  for (uint64_t b = 0; b < sizeof(TensorArg); ++b) {
    const uint64_t off = t.tensors_at + 64 * which + b;
    if (bytes[b] == clean.staged[off]) continue;
    runtime::Mutation m;
    m.offset = off - clean.image_offset;
    m.value = static_cast<uint8_t>(bytes[b]);
    muts.push_back(m);
  }
  o.before_upload = oracles::mutation_hook(muts);
  const oracles::Captured run = oracles::lease_bench(g.plan, 0xAA, false)->bind(g.plan, o);
  const std::optional<std::string> want = expected_detail(t, args, scalars, flawed);
  gen::tag(fmt::format("{} of tensor {}: {}", field, which, want ? "kernel fault" : "accepted"));
  runtime::OrchProgram shown = g.plan;
  shown.mutations = muts;
  const auto cx = props::counterexample("corrupt-image", runtime::print_plan(shown));
  const runtime::BindResult& r = run.result;
  if (!want) {
    if (r.status != 0)
      props::report(Verdict::fail("kernel-fault", fmt::format("task {}'s {} changed in a way its kernel "
                                                              "accepts; the bind ended {} ({})",
                                                              t.id, field, runtime::status_line(r), r.detail)),
                    cx);
    return;
  }
  if (r.status != -1 || r.failure != runtime::BindFailure::kKernelFault || r.detail != *want)
    props::report(Verdict::fail("kernel-fault", fmt::format("task {}'s {} changed: the bind ended {} ({}: {}); the "
                                                            "kernel model: -1, kernel-fault, '{}'",
                                                            t.id, field, runtime::status_line(r),
                                                            runtime::bind_failure_name(r.failure), r.detail, *want)),
                  cx);
}

}  // namespace

STACKCHECK_PROP(KernelFault, corrupt_tensor_args_fault_as_the_kernel_model_predicts, 0.2) { kernel_fault_case(false); }

STACKCHECK_CONTROL(KernelFaultControl, a_prediction_naming_the_task_below_fails, "kernel-fault") {
  kernel_fault_case(true);
}
