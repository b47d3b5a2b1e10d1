// SelfRelativePtr<T> and the offset API (RUNTIME.md §3).
// A self-relative pointer stores int32 delta = target address - its own address; 0 means
// unbound, so zeroed memory is unbound. Invariant: a delta is either 0 or the exact 64-bit
// difference; a difference outside int32 (or exactly 0, i.e. pointing at itself) leaves the
// pointer unbound and set() returns false. It never truncates.
// Because the value is relative, a buffer memcpy'd to any base (host or device) resolves the
// same way. Copy and assignment are deleted: copying the object alone would re-aim it.
// Shipped records store the delta as a plain int32_t field (records must stay trivially
// copyable for load<T>); the offset API below sets and resolves such fields without
// touching memory (delta_for, resolve) or with one 4-byte store (set_at).
#pragma once

#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>

#include <type_traits>

#include "stack/defects/defects.h"
#include "stack/runtime/devmem/dev_addr.h"

namespace stackcheck::runtime {

// Delta from a field at byte offset field_off to a target at target_off (same buffer).
// nullopt when the difference is 0 or outside int32 (never truncated).
constexpr std::optional<int32_t> delta_for(uint64_t field_off, uint64_t target_off) {
  if (!std::is_constant_evaluated() && defects::active(defects::Defect::kDeltaTruncated)) {
    // Zoo: the 64-bit difference truncated to its low 32 bits, out of reach or not.
    const uint64_t d = target_off - field_off;
    if (d == 0) return std::nullopt;
    return static_cast<int32_t>(static_cast<uint32_t>(d));
  }
  // Compute in unsigned 64-bit and classify by direction, so no signed overflow exists.
  if (target_off >= field_off) {
    uint64_t d = target_off - field_off;
    if (d == 0 || d > static_cast<uint64_t>(std::numeric_limits<int32_t>::max())) return std::nullopt;
    return static_cast<int32_t>(d);
  }
  uint64_t d = field_off - target_off;  // magnitude of a negative delta
  if (d > (1ull << 31)) return std::nullopt;
  return static_cast<int32_t>(-static_cast<int64_t>(d));
}

// Writes the int32 delta for (field_off -> target_off) into base+field_off. On failure the
// field is set to 0 (unbound) and false is returned. base must hold field_off+4 bytes.
inline bool set_at(std::byte* base, uint64_t field_off, uint64_t target_off) {
  std::optional<int32_t> d = delta_for(field_off, target_off);
  int32_t v = d ? *d : 0;
  std::memcpy(base + field_off, &v, sizeof v);
  return d.has_value();
}

// Byte offset a bound delta stored at field_off points to; nullopt when unbound or when
// the target would lie below offset 0.
constexpr std::optional<uint64_t> resolve_offset(uint64_t field_off, int32_t delta) {
  if (delta == 0) return std::nullopt;
  if (delta < 0 && static_cast<uint64_t>(-static_cast<int64_t>(delta)) > field_off) return std::nullopt;
  return field_off + static_cast<uint64_t>(static_cast<int64_t>(delta));
}

// Device side: the address a delta stored at `field` points to; nullopt when unbound or
// when the target would wrap around the 64-bit address space.
constexpr std::optional<DevAddr> resolve(DevAddr field, int32_t delta) {
  std::optional<uint64_t> t = resolve_offset(field.raw(), delta);
  if (!t) return std::nullopt;
  if (delta > 0 && *t < field.raw()) return std::nullopt;
  return DevAddr(*t);
}

template <class T>
class SelfRelativePtr {
 public:
  SelfRelativePtr() = default;  // unbound
  SelfRelativePtr(const SelfRelativePtr&) = delete;
  SelfRelativePtr& operator=(const SelfRelativePtr&) = delete;

  // Binds to p; nullptr unbinds (returns true). Out of int32 reach (or p == this):
  // unbound, returns false.
  bool set(const T* p) {
    if (p == nullptr) {
      delta_ = 0;
      return true;
    }
    // uintptr_t arithmetic: pointers to different objects cannot be subtracted portably.
    auto self = reinterpret_cast<uintptr_t>(this);
    auto target = reinterpret_cast<uintptr_t>(p);
    std::optional<int32_t> d = delta_for(self, target);
    delta_ = d ? *d : 0;
    return d.has_value();
  }
  T* get() const {
    if (delta_ == 0) return nullptr;
    auto self = reinterpret_cast<uintptr_t>(this);
    return reinterpret_cast<T*>(self + static_cast<uintptr_t>(static_cast<intptr_t>(delta_)));
  }
  bool bound() const { return delta_ != 0; }
  int32_t delta() const { return delta_; }

 private:
  int32_t delta_ = 0;
};

static_assert(sizeof(SelfRelativePtr<int>) == 4);

}  // namespace stackcheck::runtime
