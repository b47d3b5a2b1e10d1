// DeviceMemory: the simulated device address space (RUNTIME.md §2).
// - Reservations: the first at 0x1000'0000'0000, each later one at least 64 KiB past the
//   previous end; ranges are never reused, so a stale base faults (kReleased) forever.
// - Backing is lazy: 64 KiB pages, created on first touch (thread-safe) and filled with
//   fill_byte; a 256 MiB reservation costs nothing until touched.
// - Every access needs n > 0, no wrap, and one live reservation, else DeviceFault.
// - Device data moves as relaxed atomics (per byte, or one atomic for an aligned 1/2/4/8-byte
//   ordered access), so concurrent workers never data-race; a missing dependency edge shows
//   up as wrong values, not UB. Ordered loads/stores/atomics take a std::memory_order.
// - Per-byte read/written bits: host copies set written bits, device reads set read bits.
// - Ledgers: every reservation is kept (never forgotten, release only clears `live`) with
//   who made it and how many host copies landed in it; every host copy is appended to the
//   host-copy ledger (direction, caller, device range, the reservation it stayed in). These
//   are what bind's statistics read (RUNTIME.md §14), so a copy the bind code does not know
//   about still shows.
// - reset() returns the memory to the state its constructor left it in (a process that judges
//   many inputs reuses one DeviceMemory); pages freed by release() or reset() are kept, up to
//   kSparePages, and back later touches after being filled again like new ones. A page is only
//   reachable through a live reservation, so a recycled page is never seen through an old one.
// The host holds only a HostLink, device code only a DeviceAccess (host_link.h,
// device_access.h); tests and bind's statistics use this class directly.
#pragma once

#include <atomic>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <type_traits>
#include <vector>

#include "stack/runtime/devmem/dev_addr.h"
#include "stack/runtime/devmem/fault.h"

namespace stackcheck::runtime {

struct DeviceMemoryConfig {
  uint8_t fill_byte = 0x00;    // RuntimeConfig default; tests use 0xAA (STYLE.md 11)
  bool strict_uninit = false;  // fault (kUninit) on reads of never-written bytes
};

struct CopyCounters {
  uint64_t h2d_calls = 0, h2d_bytes = 0;  // copy_to_device
  uint64_t d2h_calls = 0, d2h_bytes = 0;  // copy_to_host
  bool operator==(const CopyCounters&) const = default;
};

// Who made a host call: each HostLink has its own id (open_link); 0 is a caller of
// DeviceMemory itself (tests).
using HostLinkId = uint32_t;
inline constexpr HostLinkId kDirectCaller = 0;

struct ReservationInfo {
  DevAddr base;
  uint64_t bytes = 0;
  uint64_t align = 0;
  std::string name;
  bool live = false;
  HostLinkId link = kDirectCaller;  // who reserved it
  uint64_t copies_in = 0;           // host->device copies that landed in it
  uint64_t last_copy_offset = 0;    // where the last of them started (from base)...
  uint64_t last_copy_bytes = 0;     // ...and its size (both 0 before the first)
};

enum class CopyDirection : uint8_t { kToDevice, kToHost };

// One entry of the host-copy ledger (a successful copy_to_device or copy_to_host).
struct HostCopy {
  CopyDirection direction = CopyDirection::kToDevice;
  HostLinkId link = kDirectCaller;
  DevAddr device;  // destination (to device) or source (to host)
  uint64_t bytes = 0;
  DevAddr reservation;  // base of the live reservation the copy stayed in
  bool operator==(const HostCopy&) const = default;
};

template <class T>
concept DeviceAtomicWord = std::is_same_v<T, int32_t> || std::is_same_v<T, uint32_t> || std::is_same_v<T, int64_t> ||
    std::is_same_v<T, uint64_t>;

class DeviceMemory {
 public:
  static constexpr uint64_t kFirstBase = 0x1000'0000'0000ull;
  static constexpr uint64_t kPageBytes = 64 * 1024;
  static constexpr uint64_t kGapBytes = 64 * 1024;              // minimum gap between reservations
  static constexpr uint64_t kMaxReservationBytes = 1ull << 40;  // bad sizes fault, not OOM
  static constexpr uint64_t kMaxAlign = 1ull << 30;

  static constexpr uint64_t kSparePages = 256;  // freed pages kept for reuse (16 MiB of data)

  explicit DeviceMemory(DeviceMemoryConfig cfg = {});
  ~DeviceMemory();
  // The state of `DeviceMemory(cfg)`: no reservation (the next one at kFirstBase again), empty
  // ledgers, zero counters and uninit reads, no resident page, link ids from 1 again,
  // strict_uninit and fill byte from `cfg`. Not concurrent with any other call.
  void reset(DeviceMemoryConfig cfg);
  DeviceMemory(const DeviceMemory&) = delete;
  DeviceMemory& operator=(const DeviceMemory&) = delete;

  // ---- host side (wrapped by HostLink, which passes its id as `by`) ----
  // A fresh caller id (1, 2, ...) for a HostLink, so the ledgers can tell Runtimes apart.
  HostLinkId open_link();
  // bytes in (0, kMaxReservationBytes], align a power of two <= kMaxAlign (0 means 1), else
  // DeviceFault{kReserve, kReservation}. The base is aligned to max(align, 64 KiB).
  DevAddr reserve(uint64_t bytes, uint64_t align, std::string name, HostLinkId by = kDirectCaller);
  // base must be the base of a live reservation (else kReleased / kUnmapped / kReservation).
  // Frees its pages; the range is never handed out again.
  void release(DevAddr base);
  // Whole range inside one live reservation; counted per direction and entered in the
  // host-copy ledger. copy_to_device sets written bits; copy_to_host sets no read bits (host
  // reads are not device reads).
  void copy_to_device(DevAddr dst, const void* src, uint64_t n, HostLinkId by = kDirectCaller);
  void copy_to_host(void* dst, DevAddr src, uint64_t n, HostLinkId by = kDirectCaller);

  // ---- device side (wrapped by DeviceAccess) ----
  // `order` other than relaxed: acquire for reads, release for writes (fences around the
  // per-byte moves, or one atomic for an aligned 1/2/4/8-byte range).
  void read(DevAddr src, void* dst, uint64_t n, std::memory_order order = std::memory_order_relaxed);
  void write(DevAddr dst, const void* src, uint64_t n, std::memory_order order = std::memory_order_relaxed);

  template <class T>
  T load(DevAddr a, std::memory_order order = std::memory_order_relaxed) {
    static_assert(std::is_trivially_copyable_v<T>);
    T v;
    read_raw(DeviceOp::kLoad, a, &v, sizeof(T), order);
    return v;
  }
  template <class T>
  void store(DevAddr a, const T& v, std::memory_order order = std::memory_order_relaxed) {
    static_assert(std::is_trivially_copyable_v<T>);
    write_raw(DeviceOp::kStore, a, &v, sizeof(T), order);
  }

  // 32/64-bit atomics; the address must be naturally aligned (else kMisaligned).
  // cas: on failure `expected` receives the current value (like compare_exchange_strong).
  template <DeviceAtomicWord T>
  bool cas(DevAddr a, T& expected, T desired, std::memory_order order = std::memory_order_acq_rel) {
    uint64_t e = static_cast<uint64_t>(expected);
    bool ok = false;
    uint64_t cur = rmw(DeviceOp::kCas, a, sizeof(T), static_cast<uint64_t>(desired), e, &ok, order);
    if (!ok) expected = static_cast<T>(cur);
    return ok;
  }
  template <DeviceAtomicWord T>
  T fetch_add(DevAddr a, T v, std::memory_order order = std::memory_order_acq_rel) {
    return static_cast<T>(rmw(DeviceOp::kFetchAdd, a, sizeof(T), static_cast<uint64_t>(v), 0, nullptr, order));
  }
  template <DeviceAtomicWord T>
  T exchange(DevAddr a, T v, std::memory_order order = std::memory_order_acq_rel) {
    return static_cast<T>(rmw(DeviceOp::kExchange, a, sizeof(T), static_cast<uint64_t>(v), 0, nullptr, order));
  }

  // True iff [a, a+n) is non-empty, does not wrap, and lies in one live reservation.
  // Touches no bytes and sets no bits (attach uses it to bound what it will read).
  bool mapped(DevAddr a, uint64_t n) const;

  // ---- tracking and statistics (tests, bind stats) ----
  // Distinct bytes of [a, a+n) with the read (resp. written) bit set, over live reservations.
  uint64_t bytes_read(DevAddr a, uint64_t n) const;
  uint64_t bytes_written(DevAddr a, uint64_t n) const;
  // Bytes read (with multiplicity) whose written bit was clear at the time.
  uint64_t uninit_reads() const;
  // Forget device reads on [a, a+n) (e.g. before a new bind reuses the region).
  void clear_read_bits(DevAddr a, uint64_t n);
  void set_strict_uninit(bool on);
  bool strict_uninit() const;
  uint8_t fill_byte() const { return cfg_.fill_byte; }
  CopyCounters counters() const;
  void reset_counters();
  uint64_t resident_pages() const;                                 // pages backed right now, all reservations
  std::vector<ReservationInfo> reservations() const;               // every reservation ever made
  std::optional<ReservationInfo> reservation_of(DevAddr a) const;  // containing one, if any
  uint64_t live_reserved_bytes() const;
  // The host-copy ledger: entries [from, host_copy_count()) in the order the copies finished.
  uint64_t host_copy_count() const;
  std::vector<HostCopy> host_copies(uint64_t from = 0) const;
  // Reads [src, src+n) of one live reservation for statistics and tests: no read bits, no
  // counters, no ledger entry (an observation, not a device read or a host copy); untouched
  // pages read as the fill byte and stay unbacked. Faults like copy_to_host.
  void inspect(DevAddr src, void* dst, uint64_t n) const;

  // Raw entry points behind the templates (also used by the views).
  void read_raw(DeviceOp op, DevAddr src, void* dst, uint64_t n, std::memory_order order);
  void write_raw(DeviceOp op, DevAddr dst, const void* src, uint64_t n, std::memory_order order);
  uint64_t rmw(DeviceOp op, DevAddr a, unsigned size, uint64_t operand, uint64_t expected, bool* cas_ok,
               std::memory_order order);

 private:
  struct Page;
  struct Reservation;
  // Finds the live reservation holding [a, a+n) or throws the right DeviceFault.
  // Caller holds mu_ (shared suffices).
  Reservation& locate(DeviceOp op, DevAddr a, uint64_t n) const;
  Page& page(Reservation& r, uint64_t index);
  template <class Fn>
  void for_pages(Reservation& r, uint64_t off, uint64_t n, Fn&& fn);
  // fn(Page&, offset in page, length) over resident pages of live reservations
  // overlapping [a, a+n); no faults. Caller holds mu_.
  template <class Fn>
  void for_resident(DevAddr a, uint64_t n, Fn&& fn) const;
  // The bytes of [a, a+n) whose bit is set in bits(page) (its read or its written bits).
  template <class Bits>
  uint64_t count_marked(DevAddr a, uint64_t n, Bits bits) const;
  // Frees the pages and chunks of `r` into the spares (the rest deleted); returns the pages.
  uint64_t drop(Reservation& r);
  Page* new_page();


  DeviceMemoryConfig cfg_;
  std::atomic<bool> strict_{false};
  mutable std::shared_mutex mu_;  // shared: accesses; exclusive: reserve/release
  std::map<uint64_t, std::unique_ptr<Reservation>> by_base_;
  uint64_t next_base_ = kFirstBase;
  std::atomic<uint64_t> h2d_calls_{0}, h2d_bytes_{0}, d2h_calls_{0}, d2h_bytes_{0};
  std::atomic<uint64_t> uninit_reads_{0};
  std::atomic<uint64_t> resident_pages_{0};
  std::atomic<HostLinkId> links_opened_{0};
  mutable std::mutex ledger_mu_;  // guards copy_ledger_ and the reservations' copy records
  std::vector<HostCopy> copy_ledger_;
  std::mutex spare_mu_;  // guards spare_pages_ (page() runs under a shared mu_)
  std::vector<Page*> spare_pages_;
};

}  // namespace stackcheck::runtime
