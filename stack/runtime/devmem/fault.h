// DeviceFault: the one exception of simulated device memory (RUNTIME.md §2). Thrown by
// DeviceMemory, HostLink, DeviceAccess and DevSpan when an access is malformed or lands
// outside a single live reservation. It carries enough (op, addr, n, kind) to become the
// `detail` of a generic (-1) bind status; describe() formats it (library code never prints).
#pragma once

#include <cstdint>
#include <exception>
#include <string>

#include "stack/runtime/devmem/dev_addr.h"

namespace stackcheck::runtime {

enum class DeviceOp : uint8_t {
  kReserve,
  kRelease,
  kCopyToDevice,
  kCopyToHost,  // host (HostLink)
  kRead,
  kWrite,
  kLoad,
  kStore,
  kCas,
  kFetchAdd,
  kExchange,  // device (DeviceAccess)
};

enum class FaultKind : uint8_t {
  kReservation,  // n == 0, wrap, straddles a reservation end, bad reserve/release argument
  kReleased,     // starts inside a reservation that was released (stale base)
  kUnmapped,     // starts outside every reservation ever made
  kSpan,         // outside the DevSpan the caller was given (kernel/graph-storage view)
  kUninit,       // strict mode: reads a byte never written
  kMisaligned,   // atomic (cas/fetch_add/exchange or ordered load/store) not naturally aligned
};

const char* op_name(DeviceOp op);
const char* fault_kind_name(FaultKind k);

class DeviceFault : public std::exception {
 public:
  DeviceFault(DeviceOp op, DevAddr addr, uint64_t n, FaultKind kind);

  DeviceOp op() const { return op_; }
  DevAddr addr() const { return addr_; }
  uint64_t n() const { return n_; }
  FaultKind kind() const { return kind_; }

  // "DeviceFault(read addr=0x100000001000 n=8 kind=released)"
  const std::string& describe() const { return text_; }
  const char* what() const noexcept override { return text_.c_str(); }

 private:
  DeviceOp op_;
  DevAddr addr_;
  uint64_t n_;
  FaultKind kind_;
  std::string text_;
};

}  // namespace stackcheck::runtime
