// bind_plan and status_line (bind.h).
#include "stack/runtime/host/bind.h"

#include <fmt/format.h>

#include "stack/runtime/devmem/device_memory.h"
#include "stack/runtime/host/runtime.h"
#include "stack/runtime/plan/check.h"

namespace stackcheck::runtime {

BindResult bind_plan(const OrchProgram& p, const BindOptions& opts) {
  BindResult r;
  if (auto err = validate_plan(p)) {
    r.status = kStatusGeneric;
    r.failure = BindFailure::kInvalidPlan;
    r.detail = "invalid plan: " + err->to_string();
    return r;
  }
  RuntimeConfig cfg;
  if (auto why = apply_config(p.config, cfg)) {
    r.status = kStatusUnsupported;
    r.failure = BindFailure::kConfig;
    r.detail = *why;
    return r;
  }
  if (opts.fill_byte) cfg.fill_byte = *opts.fill_byte;
  DeviceMemoryConfig mc;
  mc.fill_byte = static_cast<uint8_t>(cfg.fill_byte);
  mc.strict_uninit = opts.strict_uninit;
  DeviceMemory mem(mc);  // declared first: outlives the Runtime
  auto rt = Runtime::create(mem, cfg);
  if (!rt) {
    r.status = kStatusUnsupported;
    r.failure = BindFailure::kConfig;
    r.detail = rt.error();
    return r;
  }
  return (*rt)->bind(p, opts);
}

const char* bind_failure_name(BindFailure f) {
  switch (f) {
    case BindFailure::kNone: return "none";
    case BindFailure::kInvalidPlan: return "invalid-plan";
    case BindFailure::kConfig: return "config";
    case BindFailure::kBudget: return "budget";
    case BindFailure::kLatched: return "latched";
    case BindFailure::kCompaction: return "compaction";
    case BindFailure::kHook: return "hook";
    case BindFailure::kAttach: return "attach";
    case BindFailure::kScheduler: return "scheduler";
    case BindFailure::kKernelFault: return "kernel-fault";
    case BindFailure::kDeviceFault: return "device-fault";
  }
  return "?";
}

std::string status_line(const BindResult& r) {
  if (r.status == kStatusOk) return "status=0 OK";
  if (r.status == kStatusUnsupported) return "status=-2 UNSUPPORTED";
  if (auto code = status_to_code(r.status)) return fmt::format("status={} {}", r.status, code_name(*code));
  return fmt::format("status={} GENERIC {}", r.status, r.detail);
}

}  // namespace stackcheck::runtime
