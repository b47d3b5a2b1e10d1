// DeviceAccess and DevSpan: what device code (attach, scheduler, kernels) holds
// (RUNTIME.md §1, §2). DeviceAccess is a thin view over one DeviceMemory with only
// read/write/load/store and the 32/64-bit atomics: no reserve, no copies, no host pointers
// into device memory. Records are read by value (load<T>).
// DevSpan{addr, bytes} narrows further: every access through it must lie inside it
// (else DeviceFault kind kSpan) before it even reaches DeviceMemory's own checks. Kernels see
// a tensor only as [base, base+buffer_bytes); graph storage only as its exact span.
#pragma once

#include <atomic>
#include <cstdint>

#include "stack/runtime/devmem/device_memory.h"

namespace stackcheck::runtime {

class DeviceAccess {
 public:
  explicit DeviceAccess(DeviceMemory& mem) : mem_(&mem) {}

  void read(DevAddr src, void* dst, uint64_t n, std::memory_order o = std::memory_order_relaxed) {
    mem_->read(src, dst, n, o);
  }
  void write(DevAddr dst, const void* src, uint64_t n, std::memory_order o = std::memory_order_relaxed) {
    mem_->write(dst, src, n, o);
  }
  template <class T>
  T load(DevAddr a, std::memory_order o = std::memory_order_relaxed) {
    return mem_->load<T>(a, o);
  }
  template <class T>
  void store(DevAddr a, const T& v, std::memory_order o = std::memory_order_relaxed) {
    mem_->store<T>(a, v, o);
  }
  template <DeviceAtomicWord T>
  bool cas(DevAddr a, T& expected, T desired, std::memory_order o = std::memory_order_acq_rel) {
    return mem_->cas<T>(a, expected, desired, o);
  }
  template <DeviceAtomicWord T>
  T fetch_add(DevAddr a, T v, std::memory_order o = std::memory_order_acq_rel) {
    return mem_->fetch_add<T>(a, v, o);
  }
  template <DeviceAtomicWord T>
  T exchange(DevAddr a, T v, std::memory_order o = std::memory_order_acq_rel) {
    return mem_->exchange<T>(a, v, o);
  }
  // [a, a+n) lies in one live reservation (no bytes touched). Lets attach bound its reads.
  bool mapped(DevAddr a, uint64_t n) const { return mem_->mapped(a, n); }

 private:
  DeviceMemory* mem_;
};

struct DevSpan {
  DevAddr addr;
  uint64_t bytes = 0;

  DevAddr end() const { return addr + bytes; }
  // [a, a+n) non-empty, no wrap, inside this span.
  bool contains(DevAddr a, uint64_t n) const {
    if (n == 0 || a.raw() + n < a.raw()) return false;
    return a >= addr && (a - addr) <= bytes && n <= bytes - (a - addr);
  }
  // The address of [off, off+n) inside the span, or DeviceFault{op, addr+off, n, kSpan}.
  DevAddr at(uint64_t off, uint64_t n, DeviceOp op = DeviceOp::kRead) const {
    if (n == 0 || off > bytes || n > bytes - off) throw DeviceFault(op, addr + off, n, FaultKind::kSpan);
    return addr + off;
  }
  DevSpan sub(uint64_t off, uint64_t n) const { return DevSpan{at(off, n), n}; }

  template <class T>
  T load(DeviceAccess& dev, uint64_t off, std::memory_order o = std::memory_order_relaxed) const {
    return dev.load<T>(at(off, sizeof(T), DeviceOp::kLoad), o);
  }
  template <class T>
  void store(DeviceAccess& dev, uint64_t off, const T& v, std::memory_order o = std::memory_order_relaxed) const {
    dev.store<T>(at(off, sizeof(T), DeviceOp::kStore), v, o);
  }
  void read(DeviceAccess& dev, uint64_t off, void* dst, uint64_t n) const {
    dev.read(at(off, n, DeviceOp::kRead), dst, n);
  }
  void write(DeviceAccess& dev, uint64_t off, const void* src, uint64_t n) const {
    dev.write(at(off, n, DeviceOp::kWrite), src, n);
  }
};

}  // namespace stackcheck::runtime
