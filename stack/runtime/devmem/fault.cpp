// DeviceFault construction and the names of ops and fault kinds.
#include "stack/runtime/devmem/fault.h"
#include "stack/support/enum_names.h"

#include <fmt/format.h>

namespace stackcheck::runtime {

const char* op_name(DeviceOp op) {
  static constexpr auto kNames = support::names_through<DeviceOp::kExchange>({
      "reserve", "release", "copy_to_device", "copy_to_host", "read", "write", "load",
      "store", "cas", "fetch_add", "exchange"});
  return support::enum_name(kNames, op);
}

const char* fault_kind_name(FaultKind k) {
  static constexpr auto kNames = support::names_through<FaultKind::kMisaligned>({
      "reservation", "released", "unmapped", "span", "uninit", "misaligned"});
  return support::enum_name(kNames, k);
}

DeviceFault::DeviceFault(DeviceOp op, DevAddr addr, uint64_t n, FaultKind kind)
    : op_(op),
      addr_(addr),
      n_(n),
      kind_(kind),
      text_(fmt::format("DeviceFault({} addr={:#x} n={} kind={})", op_name(op), addr.raw(), n, fault_kind_name(kind))) {
}

}  // namespace stackcheck::runtime
