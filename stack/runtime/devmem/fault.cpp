// DeviceFault construction and the names of ops and fault kinds.
#include "stack/runtime/devmem/fault.h"

#include <fmt/format.h>

namespace stackcheck::runtime {

const char* op_name(DeviceOp op) {
  switch (op) {
    case DeviceOp::kReserve: return "reserve";
    case DeviceOp::kRelease: return "release";
    case DeviceOp::kCopyToDevice: return "copy_to_device";
    case DeviceOp::kCopyToHost: return "copy_to_host";
    case DeviceOp::kRead: return "read";
    case DeviceOp::kWrite: return "write";
    case DeviceOp::kLoad: return "load";
    case DeviceOp::kStore: return "store";
    case DeviceOp::kCas: return "cas";
    case DeviceOp::kFetchAdd: return "fetch_add";
    case DeviceOp::kExchange: return "exchange";
  }
  return "?";
}

const char* fault_kind_name(FaultKind k) {
  switch (k) {
    case FaultKind::kReservation: return "reservation";
    case FaultKind::kReleased: return "released";
    case FaultKind::kUnmapped: return "unmapped";
    case FaultKind::kSpan: return "span";
    case FaultKind::kUninit: return "uninit";
    case FaultKind::kMisaligned: return "misaligned";
  }
  return "?";
}

DeviceFault::DeviceFault(DeviceOp op, DevAddr addr, uint64_t n, FaultKind kind)
    : op_(op),
      addr_(addr),
      n_(n),
      kind_(kind),
      text_(fmt::format("DeviceFault({} addr={:#x} n={} kind={})", op_name(op), addr.raw(), n, fault_kind_name(kind))) {
}

}  // namespace stackcheck::runtime
