// HostLink: what the host holds of device memory (RUNTIME.md §1): reserve, release and the
// two counted copies, nothing else. A thin view over one DeviceMemory; it cannot read or
// write device bytes outside a copy, so every host->device transfer is visible in the
// copy counters. Each link has its own id in DeviceMemory's ledgers, so what one Runtime
// reserved and copied can be told from another's on the same memory.
#pragma once

#include <cstdint>
#include <string>

#include "stack/runtime/devmem/device_memory.h"

namespace stackcheck::runtime {

class HostLink {
 public:
  explicit HostLink(DeviceMemory& mem) : mem_(&mem), id_(mem.open_link()) {}

  DevAddr reserve(uint64_t bytes, uint64_t align, std::string name) {
    return mem_->reserve(bytes, align, std::move(name), id_);
  }
  void release(DevAddr base) { mem_->release(base); }
  void copy_to_device(DevAddr dst, const void* src, uint64_t n) { mem_->copy_to_device(dst, src, n, id_); }
  void copy_to_host(void* dst, DevAddr src, uint64_t n) { mem_->copy_to_host(dst, src, n, id_); }
  uint8_t fill_byte() const { return mem_->fill_byte(); }
  HostLinkId id() const { return id_; }  // this link's entries in DeviceMemory's ledgers

 private:
  DeviceMemory* mem_;
  HostLinkId id_;
};

}  // namespace stackcheck::runtime
