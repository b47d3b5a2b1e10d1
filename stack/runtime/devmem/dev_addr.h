// DevAddr: a simulated device address (RUNTIME.md §1). A strong u64 with no conversion to
// or from a host pointer, so host pointers can never leak into device records and device
// code can only reach memory through DeviceAccess. Trivially copyable, 8 bytes, so shipped
// records may embed it. Arithmetic wraps like u64; range checks belong to DeviceMemory.
#pragma once

#include <compare>
#include <cstdint>
#include <type_traits>

namespace stackcheck::runtime {

class DevAddr {
 public:
  constexpr DevAddr() = default;  // 0: the null device address (never reserved)
  constexpr explicit DevAddr(uint64_t raw) : raw_(raw) {}

  constexpr uint64_t raw() const { return raw_; }
  constexpr bool is_null() const { return raw_ == 0; }

  constexpr DevAddr operator+(uint64_t off) const { return DevAddr(raw_ + off); }
  constexpr DevAddr operator-(uint64_t off) const { return DevAddr(raw_ - off); }
  // Byte distance this - base (u64 wrap; callers check order first).
  constexpr uint64_t operator-(DevAddr base) const { return raw_ - base.raw_; }

  constexpr auto operator<=>(const DevAddr&) const = default;

 private:
  uint64_t raw_ = 0;
};

static_assert(sizeof(DevAddr) == 8 && std::is_trivially_copyable_v<DevAddr>);
static_assert(std::is_standard_layout_v<DevAddr>);
static_assert(!std::is_convertible_v<DevAddr, const void*>);

}  // namespace stackcheck::runtime
