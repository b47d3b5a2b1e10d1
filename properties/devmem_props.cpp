// DeviceMemory against a model written from RUNTIME.md §2 and device_memory.h's contract.
// DeviceMemory is the machinery every runtime oracle reads (copy ledger, read and written
// bits, reservations, counters): a slip in it blinds those oracles instead of failing them,
// so it is checked here on its own. A case is a sequence of up to 48 operations drawn through
// a ChoiceSource: reservations of sizes at and around the page size (and one large, lazily
// backed one), releases (of live, released, inner and unmapped addresses), host copies both
// ways, device reads and writes (relaxed and ordered), loads and stores of 1-8 bytes, 32/64-bit
// cas / fetch_add / exchange (aligned and not), clear_read_bits, strict mode on and off, and
// counter resets. Ranges favour the edges: offset 0, the last byte, one past the end, a page
// boundary, a range straddling the end, a range starting in the gap or a released reservation.
// Reads land in buffers with a canary tail the read must leave alone; ordered accesses take
// every size from 1 to 16 at addresses that are multiples of it (one atomic only for 1/2/4/8).
// reset(cfg) and open_link() are steps too: the model starts afresh, and link ids count from 1.
// After every operation the model predicts its outcome exactly (the values read, the fault's
// op, kind, address, length and text, or no fault) and, after the sequence and at random
// points, every observation: bytes_read / bytes_written / mapped / inspect over edge ranges,
// uninit_reads, counters, the host-copy ledger, reservations() and reservation_of,
// live_reserved_bytes, strict_uninit() and resident_pages (the pages the model's accesses
// touched in live reservations). Base placement is checked as a rule (first at kFirstBase,
// aligned to max(align, 64 KiB), at least 64 KiB past the previous end), not predicted.
// Positive controls (DevmemControl): a model wrong in one rule (host reads as device reads, a
// stale base called unmapped, a reset that keeps the old fill byte, reads that back no page)
// must fail the same checks.
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "properties/gen/arbitrary.h"
#include "properties/property.h"
#include "stack/runtime/devmem/device_memory.h"

using namespace stackcheck;
using runtime::CopyDirection;
using runtime::DevAddr;
using runtime::DeviceFault;
using runtime::DeviceMemory;
using runtime::DeviceOp;
using runtime::FaultKind;

namespace {

constexpr uint64_t kPage = DeviceMemory::kPageBytes;

// The positive controls' wrong models: each must make the property fail.
enum class Flaw : uint8_t {
  kNone,
  kHostReadsAreDeviceReads,  // copy_to_host sets read bits and counts uninitialised reads
  kStaleBaseUnmapped,        // an access in a released reservation is predicted `unmapped`
  kResetKeepsFill,           // reset(cfg) keeps the fill byte it had
  kReadsBackNoPage,          // a page only read (never written) is not counted resident
};

// One reservation's byte state, page-sparse: a page never touched holds the fill byte and
// no bits (a 256 MiB reservation costs nothing until touched, in the model too).
struct Res {
  uint64_t base = 0, bytes = 0, align = 0;
  std::string name;
  bool live = true;
  runtime::HostLinkId link = 0;
  uint64_t copies_in = 0, last_off = 0, last_bytes = 0;
  struct Page {
    std::vector<uint8_t> data, rbit, wbit;
  };
  std::map<uint64_t, Page> pages;
  uint8_t fill = 0;

  uint64_t end() const { return base + bytes; }
  Page& page(uint64_t off) {
    auto [it, fresh] = pages.try_emplace(off / kPage);
    if (fresh) it->second = Page{std::vector<uint8_t>(kPage, fill), std::vector<uint8_t>(kPage, 0),
                                 std::vector<uint8_t>(kPage, 0)};
    return it->second;
  }
  uint8_t& data(uint64_t off) { return page(off).data[off % kPage]; }
  uint8_t& rbit(uint64_t off) { return page(off).rbit[off % kPage]; }
  uint8_t& wbit(uint64_t off) { return page(off).wbit[off % kPage]; }
  uint8_t peek(uint64_t off) const {
    auto it = pages.find(off / kPage);
    return it == pages.end() ? fill : it->second.data[off % kPage];
  }
  // Set bits of [lo, hi) (offsets), over touched pages only.
  uint64_t count(uint64_t lo, uint64_t hi, bool read) const {
    uint64_t total = 0;
    for (const auto& [index, p] : pages) {
      const uint64_t a = std::max(lo, index * kPage), b = std::min(hi, (index + 1) * kPage);
      for (uint64_t o = a; o < b; ++o) total += (read ? p.rbit : p.wbit)[o % kPage];
    }
    return total;
  }
  void clear_reads(uint64_t lo, uint64_t hi) {
    for (auto& [index, p] : pages) {
      const uint64_t a = std::max(lo, index * kPage), b = std::min(hi, (index + 1) * kPage);
      for (uint64_t o = a; o < b; ++o) p.rbit[o % kPage] = 0;
    }
  }
};

struct Model {
  Flaw flaw = Flaw::kNone;
  uint8_t fill = 0;
  bool strict = false;
  std::vector<Res> res;  // in reservation order (bases ascend)
  runtime::CopyCounters counters;
  std::vector<runtime::HostCopy> ledger;
  uint64_t uninit = 0;
  runtime::HostLinkId links = 0;  // open_link() calls since construction or reset

  // The reservation an access [a, a+n) lies in, or the fault RUNTIME.md §2 gives it.
  struct Located {
    Res* r = nullptr;
    FaultKind kind = FaultKind::kReservation;
  };
  Located locate(uint64_t a, uint64_t n) {
    if (n == 0 || a + n < a) return {nullptr, FaultKind::kReservation};
    Res* below = nullptr;
    for (Res& r : res)
      if (r.base <= a) below = &r;
    if (below == nullptr || a >= below->end()) return {nullptr, FaultKind::kUnmapped};
    if (!below->live) return {nullptr, flaw == Flaw::kStaleBaseUnmapped ? FaultKind::kUnmapped : FaultKind::kReleased};
    if (n > below->end() - a) return {nullptr, FaultKind::kReservation};
    return {below, FaultKind::kReservation};
  }
  // Distinct bytes of [a, a+n) (clamped at 2^64) with the bit set, over live reservations.
  uint64_t count_bits(uint64_t a, uint64_t n, bool read) const {
    const uint64_t e = a + n < a ? ~uint64_t{0} : a + n;
    uint64_t total = 0;
    for (const Res& r : res)
      if (r.live && r.end() > a && r.base < e)
        total += r.count(std::max(a, r.base) - r.base, std::min(e, r.end()) - r.base, read);
    return total;
  }
  void clear_reads(uint64_t a, uint64_t n) {
    const uint64_t e = a + n < a ? ~uint64_t{0} : a + n;
    for (Res& r : res)
      if (r.live && r.end() > a && r.base < e) r.clear_reads(std::max(a, r.base) - r.base, std::min(e, r.end()) - r.base);
  }
};

std::string hex(uint64_t v) { return fmt::format("{:#x}", v); }

class Checker {
 public:
  Checker(gen::ChoiceSource& c, uint8_t fill, Flaw flaw) : c_(c), mem_(runtime::DeviceMemoryConfig{fill, false}) {
    m_.fill = fill;
    m_.flaw = flaw;
  }

  void run() {
    reserve();  // most operations need a reservation to act on
    const size_t ops = c_.length(48);
    for (size_t i = 0; i < ops && failure_.empty(); ++i) {
      step();
      if (failure_.empty() && c_.chance(20)) observe_all();
    }
    if (failure_.empty()) observe_all();
  }
  const std::string& failure() const { return failure_; }
  const std::string& trace() const { return trace_; }

 private:
  gen::ChoiceSource& c_;
  DeviceMemory mem_;
  Model m_;
  std::string trace_, failure_;
  runtime::HostLinkId links_ = 0;

  void fail(const std::string& what) {
    if (failure_.empty()) failure_ = what;
  }
  void log(const std::string& line) { trace_ += line + "\n"; }

  // An address range favouring the edges of a reservation (or none at all).
  std::pair<uint64_t, uint64_t> range(uint64_t max_n = 3 * kPage) {
    uint64_t n;
    switch (c_.one_of(6)) {
      case 0: n = 1 + c_.integer(0, 15); break;
      case 1: n = 8; break;
      case 2: n = kPage; break;
      case 3: n = kPage + 1 + c_.integer(0, 63); break;
      case 4: n = 1 + c_.integer(0, static_cast<int64_t>(max_n) - 1); break;
      default: n = c_.chance(50) ? 0 : ~uint64_t{0} - c_.integer(0, 8); break;  // empty, or wrapping
    }
    if (m_.res.empty() || c_.chance(5)) return {c_.chance(50) ? 0 : DeviceMemory::kFirstBase - 8, n};
    const Res& r = m_.res[c_.one_of(m_.res.size())];
    if (c_.chance(50)) {  // a range that fits: anywhere inside, at the start or ending at the last byte
      const uint64_t len = 1 + c_.integer(0, static_cast<int64_t>(std::min<uint64_t>(r.bytes, max_n) - 1));
      const uint64_t room = r.bytes - len;
      const uint64_t off = std::vector<uint64_t>{0, room, static_cast<uint64_t>(c_.integer(0, room))}[c_.one_of(3)];
      return {r.base + off, len};
    }
    const uint64_t bounded = n > r.bytes ? r.bytes : n;
    uint64_t off;
    switch (c_.one_of(8)) {
      case 0: off = 0; break;
      case 1: off = r.bytes - std::max<uint64_t>(bounded, 1); break;  // the range ends at the last byte
      case 2: off = r.bytes - std::max<uint64_t>(bounded, 1) + 1; break;  // one past: straddles the end
      case 3: off = r.bytes; break;  // just past the end
      case 4: off = (r.bytes + kPage - 1) / kPage * kPage + c_.integer(0, 64); break;  // in the gap
      case 5: off = std::min(r.bytes - 1, kPage - 1 - c_.integer(0, 7)); break;  // across a page boundary
      case 6: off = r.bytes > 1 ? r.bytes - 1 : 0; break;
      default: off = c_.integer(0, static_cast<int64_t>(r.bytes - 1)); break;
    }
    return {r.base + off, n};
  }

  // A fault names the access (fault.h): its op and kind, the address it began at and its
  // length, and describe() says so in fault.h's format. `n` is unchecked where no contract
  // gives it (a release: none).
  template <class F>
  void expect_outcome(const std::string& what, DeviceOp op, const Model::Located& at, uint64_t a,
                      std::optional<uint64_t> n, F&& call) {
    std::optional<FaultKind> expected;
    if (at.r == nullptr) expected = at.kind;
    gen::tag(fmt::format("{}:{}", runtime::op_name(op), expected ? fault_kind_name(*expected) : "ok"));
    try {
      call();
      if (expected) fail(fmt::format("{}: expected DeviceFault kind={}, none thrown", what, fault_kind_name(*expected)));
    } catch (const DeviceFault& f) {
      const uint64_t len = n.value_or(f.n());
      const std::string text = fmt::format("DeviceFault({} addr={:#x} n={} kind={})", runtime::op_name(op), a, len,
                                           expected ? fault_kind_name(*expected) : "?");
      if (!expected)
        fail(fmt::format("{}: unexpected {}", what, f.describe()));
      else if (f.kind() != *expected || f.op() != op)
        fail(fmt::format("{}: expected a {} fault of kind {}, got {}", what, runtime::op_name(op),
                         fault_kind_name(*expected), f.describe()));
      else if (f.addr().raw() != a || f.n() != len || f.describe() != text)
        fail(fmt::format("{}: expected {}, got {} (addr {}, n {})", what, text, f.describe(), hex(f.addr().raw()), f.n()));
    }
  }

  void reserve() {
    static const uint64_t sizes[] = {1, 63, 64, 65, 4096, kPage - 1, kPage, kPage + 1, 2 * kPage + 7, 3 * kPage};
    uint64_t bytes = sizes[c_.one_of(std::size(sizes))];
    if (c_.chance(10)) bytes = c_.chance(75) ? 256ull << 20 : DeviceMemory::kMaxReservationBytes;  // lazily backed
    if (c_.chance(5)) bytes = c_.chance(50) ? 0 : DeviceMemory::kMaxReservationBytes + 1;  // faults
    static const uint64_t aligns[] = {0, 1, 2, 64, 1024, kPage, 2 * kPage, 1ull << 20, 3, 1ull << 31, DeviceMemory::kMaxAlign};
    const uint64_t align = aligns[c_.one_of(std::size(aligns))];
    const uint64_t a = align == 0 ? 1 : align;
    const bool bad = bytes == 0 || bytes > DeviceMemory::kMaxReservationBytes || a > DeviceMemory::kMaxAlign ||
                     (a & (a - 1)) != 0;
    const std::string name = fmt::format("r{}", m_.res.size());
    const runtime::HostLinkId by = c_.one_of(links_ + 1);
    log(fmt::format("reserve({}, {}, {}, link {})", bytes, align, name, by));
    gen::tag(bad ? "reserve:reservation" : "reserve:ok");
    try {
      const DevAddr base = mem_.reserve(bytes, align, name, by);
      if (bad) return fail(fmt::format("reserve({}, {}) succeeded; expected a reserve fault", bytes, align));
      const uint64_t b = base.raw();
      const uint64_t need = std::max(a, kPage);
      if (b % need != 0) fail(fmt::format("reserve: base {} not aligned to {}", hex(b), need));
      if (m_.res.empty() && a <= DeviceMemory::kFirstBase && b != DeviceMemory::kFirstBase)
        fail(fmt::format("the first reservation is at {}, not {}", hex(b), hex(DeviceMemory::kFirstBase)));
      if (!m_.res.empty() && b < m_.res.back().end() + DeviceMemory::kGapBytes)
        fail(fmt::format("reserve: base {} is less than 64 KiB past the previous end {}", hex(b),
                         hex(m_.res.back().end())));
      Res r;
      r.base = b;
      r.bytes = bytes;
      r.align = a;
      r.name = name;
      r.link = by;
      r.fill = m_.fill;
      m_.res.push_back(std::move(r));
      if (bytes == DeviceMemory::kMaxReservationBytes) {  // the largest size is legal; too big to observe live
        log(fmt::format("release({})", hex(b)));
        mem_.release(base);
        m_.res.back().live = false;
      }
    } catch (const DeviceFault& f) {
      if (!bad) fail(fmt::format("reserve({}, {}): unexpected {}", bytes, align, f.describe()));
      else if (f.kind() != FaultKind::kReservation || f.op() != DeviceOp::kReserve || f.n() != bytes)
        fail(fmt::format("reserve({}, {}): expected a reserve fault of kind reservation and n={}, got {}", bytes,
                         align, bytes, f.describe()));
    }
  }

  void release() {
    uint64_t a = DeviceMemory::kFirstBase - kPage;
    if (!m_.res.empty()) {
      const Res& r = m_.res[c_.one_of(m_.res.size())];
      a = c_.chance(80) ? r.base : r.base + 1 + c_.integer(0, static_cast<int64_t>(r.bytes));
    }
    log(fmt::format("release({})", hex(a)));
    // A live base releases; a released base faults released; else the fault of an access there,
    // or `reservation` for an address inside a live reservation that is not its base.
    Model::Located at{nullptr, FaultKind::kReservation};
    Res* exact = nullptr;
    for (Res& r : m_.res)
      if (r.base == a) exact = &r;
    if (exact != nullptr) {
      if (exact->live) at = {exact, FaultKind::kReservation};
      else at = {nullptr, FaultKind::kReleased};
    } else {
      at = m_.locate(a, 1);
      if (at.r != nullptr) at = {nullptr, FaultKind::kReservation};
    }
    expect_outcome(fmt::format("release({})", hex(a)), DeviceOp::kRelease, at, a, std::nullopt,
                   [&] { mem_.release(DevAddr(a)); });
    if (at.r != nullptr) {
      at.r->live = false;
      at.r->pages.clear();
    }
  }

  // n bytes to write, then 8 canary bytes the write must not take (a store that reads past
  // its source then puts the canaries in memory, where observe_around sees them).
  std::vector<uint8_t> bytes_for(uint64_t n) {
    std::vector<uint8_t> v(static_cast<size_t>(n) + 8, 0xC3);
    const uint8_t seed = static_cast<uint8_t>(c_.integer(0, 255));
    for (size_t i = 0; i < n; ++i) v[i] = static_cast<uint8_t>(seed + 31 * i);
    return v;
  }

  // A read's destination: n bytes, then 8 canary bytes the read must leave alone (all of it
  // canaries for a read that faults).
  static std::vector<uint8_t> canaried(uint64_t n) { return std::vector<uint8_t>(static_cast<size_t>(n) + 8, 0x5C); }
  void check_canaries(const std::string& what, const std::vector<uint8_t>& got, uint64_t n) {
    for (size_t i = static_cast<size_t>(n); i < got.size(); ++i)
      if (got[i] != 0x5C)
        return fail(fmt::format("{}: wrote {:#04x} into byte {} of the destination, past the {} it asked for", what,
                                got[i], i, n));
  }

  // A device or host read's bytes and bits in the model (no fault: checked by the caller).
  std::vector<uint8_t> model_read(Res& r, uint64_t off, uint64_t n, bool device) {
    std::vector<uint8_t> out(n);
    for (uint64_t i = 0; i < n; ++i) {
      out[i] = r.data(off + i);
      if (device) {
        m_.uninit += r.wbit(off + i) == 0;
        r.rbit(off + i) = 1;
      }
    }
    return out;
  }
  // Strict mode refuses a read of any never-written byte. An access inside a live reservation
  // backs every page of its range before that check (a refused read leaves them resident).
  bool strict_refuses(Res& r, uint64_t off, uint64_t n) {
    if (!m_.strict) return false;
    bool refused = false;
    for (uint64_t i = off; i < off + n; ++i) refused |= r.wbit(i) == 0;
    return refused;
  }
  void model_write(Res& r, uint64_t off, const std::vector<uint8_t>& v, uint64_t n) {
    for (size_t i = 0; i < n; ++i) {
      r.data(off + i) = v[i];
      r.wbit(off + i) = 1;
    }
  }

  void host_copy(bool to_device) {
    const auto picked = range();
    uint64_t a = picked.first, n = picked.second;
    const runtime::HostLinkId by = c_.one_of(links_ + 1);
    const Model::Located at = m_.locate(a, n);
    const std::string what = fmt::format("copy_to_{}({}, {}, link {})", to_device ? "device" : "host", hex(a), n, by);
    log(what);
    const DeviceOp op = to_device ? DeviceOp::kCopyToDevice : DeviceOp::kCopyToHost;
    if (to_device) {
      std::vector<uint8_t> v = bytes_for(at.r ? n : 1);
      expect_outcome(what, op, at, a, n, [&] { mem_.copy_to_device(DevAddr(a), v.data(), n, by); });
      if (!at.r) return;
      model_write(*at.r, a - at.r->base, v, n);
      observe_around(*at.r, a - at.r->base, n);
      ++m_.counters.h2d_calls;
      m_.counters.h2d_bytes += n;
      ++at.r->copies_in;
      at.r->last_off = a - at.r->base;
      at.r->last_bytes = n;
    } else {
      std::vector<uint8_t> got = canaried(at.r ? n : 0);
      expect_outcome(what, op, at, a, n, [&] { mem_.copy_to_host(got.data(), DevAddr(a), n, by); });
      check_canaries(what, got, at.r ? n : 0);
      if (!at.r) return;
      got.resize(n);
      if (got != model_read(*at.r, a - at.r->base, n, m_.flaw == Flaw::kHostReadsAreDeviceReads))
        fail(what + ": bytes differ from the model");
      ++m_.counters.d2h_calls;
      m_.counters.d2h_bytes += n;
    }
    m_.ledger.push_back(runtime::HostCopy{to_device ? CopyDirection::kToDevice : CopyDirection::kToHost, by,
                                          DevAddr(a), n, DevAddr(at.r->base)});
  }

  void device_access(bool write) {
    const auto picked = range();
    uint64_t a = picked.first, n = picked.second;
    if (c_.chance(50)) {  // load / store sizes, or any size to 16, at a multiple of the size most often
      n = c_.chance(50) ? std::vector<uint64_t>{1, 2, 4, 8}[c_.one_of(4)] : 1 + c_.integer(0, 15);
      if (c_.chance(75)) a = a / n * n;
    }
    const bool ordered = c_.chance(40);
    const std::memory_order order =
        ordered ? (write ? std::memory_order_release : std::memory_order_acquire) : std::memory_order_relaxed;
    Model::Located at = m_.locate(a, n);
    const DeviceOp op = write ? DeviceOp::kWrite : DeviceOp::kRead;
    const std::string what = fmt::format("{}({}, {}{})", write ? "write" : "read", hex(a), n, ordered ? ", ordered" : "");
    log(what);
    if (write) {
      std::vector<uint8_t> v = bytes_for(at.r ? n : 1);
      expect_outcome(what, op, at, a, n, [&] { mem_.write(DevAddr(a), v.data(), n, order); });
      if (at.r) {
        model_write(*at.r, a - at.r->base, v, n);
        observe_around(*at.r, a - at.r->base, n);
      }
      return;
    }
    if (at.r && strict_refuses(*at.r, a - at.r->base, n)) at = {nullptr, FaultKind::kUninit};
    std::vector<uint8_t> got = canaried(at.r ? n : 0);
    expect_outcome(what, op, at, a, n, [&] { mem_.read(DevAddr(a), got.data(), n, order); });
    check_canaries(what, got, at.r ? n : 0);
    if (!at.r) return;
    got.resize(n);
    if (got != model_read(*at.r, a - at.r->base, n, true)) fail(what + ": bytes differ from the model");
  }

  template <class T>
  void atomic_rmw() {
    uint64_t a = range().first;  // an atomic's extent is its type's, not the range's
    a = c_.chance(80) ? a / sizeof(T) * sizeof(T) : a | 1;  // naturally aligned, or not
    const int kind = static_cast<int>(c_.one_of(3));
    const DeviceOp op = kind == 0 ? DeviceOp::kCas : kind == 1 ? DeviceOp::kFetchAdd : DeviceOp::kExchange;
    Model::Located at = m_.locate(a, sizeof(T));
    if (at.r && a % sizeof(T) != 0) at = {nullptr, FaultKind::kMisaligned};
    if (at.r && strict_refuses(*at.r, a - at.r->base, sizeof(T))) at = {nullptr, FaultKind::kUninit};
    const T operand = static_cast<T>(c_.integer(0, 1000) - 500);
    T current{};
    if (at.r)
      for (size_t i = 0; i < sizeof(T); ++i)
        reinterpret_cast<uint8_t*>(&current)[i] = at.r->data(a - at.r->base + i);
    const T asked = c_.chance(50) ? current : static_cast<T>(current + 1);
    T expected = asked;
    const std::string what = fmt::format("{}<{}>({}, {})", runtime::op_name(op), sizeof(T) * 8, hex(a), operand);
    log(what);
    T got{};
    bool ok = false;
    expect_outcome(what, op, at, a, sizeof(T), [&] {
      if (op == DeviceOp::kCas) ok = mem_.cas<T>(DevAddr(a), expected, operand);
      else if (op == DeviceOp::kFetchAdd) got = mem_.fetch_add<T>(DevAddr(a), operand);
      else got = mem_.exchange<T>(DevAddr(a), operand);
    });
    if (!at.r) return;
    Res& r = *at.r;
    const uint64_t off = a - r.base;
    for (uint64_t i = off; i < off + sizeof(T); ++i) {
      m_.uninit += r.wbit(i) == 0;
      r.rbit(i) = 1;
    }
    T next = operand;
    bool writes = true;
    if (op == DeviceOp::kCas) {
      if (ok != (asked == current))
        fail(fmt::format("{}: cas expecting {} over {} returned {}", what, asked, current, ok));
      if (!ok && expected != current)
        fail(fmt::format("{}: a failed cas reported {}, memory holds {}", what, expected, current));
      writes = ok;
    } else {
      if (got != current) fail(fmt::format("{}: returned {}, memory held {}", what, got, current));
      if (op == DeviceOp::kFetchAdd) next = static_cast<T>(current + operand);
    }
    if (writes) {
      std::vector<uint8_t> v(sizeof(T));
      std::memcpy(v.data(), &next, sizeof(T));
      model_write(r, off, v, sizeof(T));
    }
    observe_around(r, off, sizeof(T));
  }

  void step() {
    switch (c_.one_of(11)) {
      case 0: return reserve();
      case 1: return c_.chance(50) ? reserve() : release();
      case 2: return host_copy(true);
      case 3: return host_copy(false);
      case 4: return device_access(true);
      case 5: return device_access(false);
      case 6: return c_.chance(50) ? atomic_rmw<uint32_t>() : atomic_rmw<uint64_t>();
      case 7: {
        const auto picked = range();
        uint64_t a = picked.first, n = picked.second;
        log(fmt::format("clear_read_bits({}, {})", hex(a), n));
        mem_.clear_read_bits(DevAddr(a), n);
        m_.clear_reads(a, n);
        return;
      }
      case 8:
        m_.strict = !m_.strict;
        log(fmt::format("set_strict_uninit({})", m_.strict));
        mem_.set_strict_uninit(m_.strict);
        return;
      case 9:
        if (c_.chance(25)) return reset();
        log("reset_counters()");
        mem_.reset_counters();
        m_.counters = {};
        return;
      default:
        links_ = mem_.open_link();
        log(fmt::format("open_link() = {}", links_));
        if (links_ != ++m_.links) fail(fmt::format("open_link() = {}, expected {}", links_, m_.links));
        return;
    }
  }

  // reset(cfg): the state of DeviceMemory(cfg), whatever was live, touched or counted before.
  void reset() {
    const runtime::DeviceMemoryConfig cfg{static_cast<uint8_t>(c_.chance(50) ? 0xAA : 0x00), c_.chance(30)};
    log(fmt::format("reset(fill {:#04x}, strict {})", cfg.fill_byte, cfg.strict_uninit));
    mem_.reset(cfg);
    const uint8_t old_fill = m_.fill;
    const Flaw flaw = m_.flaw;
    m_ = Model{};
    m_.flaw = flaw;
    m_.fill = m_.flaw == Flaw::kResetKeepsFill ? old_fill : cfg.fill_byte;
    m_.strict = cfg.strict_uninit;
    links_ = 0;
    gen::tag("reset");
  }

  // Every byte around an access that changed memory, as inspect() sees it: a store that
  // wrote more than it was given shows in the bytes next to it.
  void observe_around(const Res& r, uint64_t off, uint64_t n) {
    const uint64_t lo = off >= 16 ? off - 16 : 0, hi = std::min(r.bytes, off + n + 16);
    std::vector<uint8_t> got(hi - lo);
    mem_.inspect(DevAddr(r.base + lo), got.data(), got.size());
    for (uint64_t i = lo; i < hi; ++i)
      if (got[i - lo] != r.peek(i))
        return fail(fmt::format("after the access at {}+{} ({} B), byte +{} is {:#04x}, the model holds {:#04x}",
                                r.name, off, n, i, got[i - lo], r.peek(i)));
  }

  void observe_range(uint64_t a, uint64_t n) {
    const std::string at = fmt::format("[{}, +{})", hex(a), n);
    if (mem_.bytes_read(DevAddr(a), n) != m_.count_bits(a, n, true))
      fail(fmt::format("bytes_read{} = {}, the model counts {}", at, mem_.bytes_read(DevAddr(a), n),
                       m_.count_bits(a, n, true)));
    if (mem_.bytes_written(DevAddr(a), n) != m_.count_bits(a, n, false))
      fail(fmt::format("bytes_written{} = {}, the model counts {}", at, mem_.bytes_written(DevAddr(a), n),
                       m_.count_bits(a, n, false)));
    const Model::Located l = m_.locate(a, n);
    if (mem_.mapped(DevAddr(a), n) != (l.r != nullptr))
      fail(fmt::format("mapped{} = {}, expected {}", at, mem_.mapped(DevAddr(a), n), l.r != nullptr));
    if (l.r != nullptr && n <= 4 * kPage) {
      std::vector<uint8_t> got(n);
      mem_.inspect(DevAddr(a), got.data(), n);
      const uint64_t off = a - l.r->base;
      for (uint64_t i = 0; i < n; ++i) {
        const uint8_t want = l.r->peek(off + i);
        if (got[i] != want) {
          fail(fmt::format("inspect{}: byte {} is {:#04x}, the model holds {:#04x}", at, i, got[i], want));
          break;
        }
      }
    }
    const auto info = mem_.reservation_of(DevAddr(a));
    const Res* holder = nullptr;
    for (const Res& r : m_.res)
      if (r.base <= a && a < r.end()) holder = &r;
    if (info.has_value() != (holder != nullptr) || (info && info->base.raw() != holder->base))
      fail(fmt::format("reservation_of({}) = {}, expected {}", hex(a), info ? hex(info->base.raw()) : "none",
                       holder ? hex(holder->base) : "none"));
  }

  void observe_all() {
    for (int i = 0; i < 3; ++i) {
      const auto picked = range();
      uint64_t a = picked.first, n = picked.second;
      observe_range(a, n);
    }
    observe_range(DeviceMemory::kFirstBase, ~uint64_t{0} - DeviceMemory::kFirstBase);  // everything
    if (mem_.uninit_reads() != m_.uninit)
      fail(fmt::format("uninit_reads() = {}, the model counts {}", mem_.uninit_reads(), m_.uninit));
    const runtime::CopyCounters k = mem_.counters();
    if (!(k == m_.counters))
      fail(fmt::format("counters h2d {}/{} d2h {}/{}, the model has h2d {}/{} d2h {}/{}", k.h2d_calls, k.h2d_bytes,
                       k.d2h_calls, k.d2h_bytes, m_.counters.h2d_calls, m_.counters.h2d_bytes, m_.counters.d2h_calls,
                       m_.counters.d2h_bytes));
    if (mem_.host_copy_count() != m_.ledger.size() || mem_.host_copies() != m_.ledger)
      fail(fmt::format("host-copy ledger has {} entries, the model {} (or they differ)", mem_.host_copy_count(),
                       m_.ledger.size()));
    const size_t from = m_.ledger.empty() ? 0 : c_.one_of(m_.ledger.size() + 1);
    const auto tail = mem_.host_copies(from);
    if (!std::equal(tail.begin(), tail.end(), m_.ledger.begin() + from, m_.ledger.end()))
      fail(fmt::format("host_copies({}) differs from the ledger's tail", from));
    const auto infos = mem_.reservations();
    uint64_t live = 0, pages = 0, touched = 0;
    if (infos.size() != m_.res.size()) fail(fmt::format("{} reservations, the model {}", infos.size(), m_.res.size()));
    for (size_t i = 0; i < std::min(infos.size(), m_.res.size()); ++i) {
      const runtime::ReservationInfo& r = infos[i];
      const Res& w = m_.res[i];
      if (r.base.raw() != w.base || r.bytes != w.bytes || r.align != w.align || r.name != w.name || r.live != w.live ||
          r.link != w.link || r.copies_in != w.copies_in || r.last_copy_offset != w.last_off ||
          r.last_copy_bytes != w.last_bytes)
        fail(fmt::format("reservation {} ({}): info base {} bytes {} align {} live {} link {} copies {} last {}+{}; "
                         "the model: base {} bytes {} align {} live {} link {} copies {} last {}+{}",
                         i, w.name, hex(r.base.raw()), r.bytes, r.align, r.live, r.link, r.copies_in, r.last_copy_offset,
                         r.last_copy_bytes, hex(w.base), w.bytes, w.align, w.live, w.link, w.copies_in, w.last_off,
                         w.last_bytes));
      if (w.live) {
        live += w.bytes;
        pages += (w.bytes + kPage - 1) / kPage;
        for (const auto& [index, p] : w.pages)
          touched += m_.flaw != Flaw::kReadsBackNoPage || std::count(p.wbit.begin(), p.wbit.end(), 1) > 0;
      }
    }
    if (mem_.live_reserved_bytes() != live)
      fail(fmt::format("live_reserved_bytes() = {}, the model {}", mem_.live_reserved_bytes(), live));
    if (mem_.resident_pages() > pages)
      fail(fmt::format("resident_pages() = {}: more than the {} pages of the live reservations", mem_.resident_pages(),
                       pages));
    else if (mem_.resident_pages() != touched)
      fail(fmt::format("resident_pages() = {}, the model's accesses touched {} pages of live reservations",
                       mem_.resident_pages(), touched));
    if (mem_.strict_uninit() != m_.strict)
      fail(fmt::format("strict_uninit() = {}, the model {}", mem_.strict_uninit(), m_.strict));
  }
};

std::string run_case(gen::ChoiceSource& c, std::string* trace, Flaw flaw) {
  const uint8_t fill = c.chance(50) ? 0xAA : 0x00;
  Checker k(c, fill, flaw);
  k.run();
  *trace = fmt::format("fill {:#04x}\n{}", fill, k.trace());
  return k.failure();
}

void devmem_case(Flaw flaw) {
  gen::feature_tally().begin_case();
  gen::ChoiceSource& choices = gen::choices();
  std::string trace;
  const std::string failure = run_case(choices, &trace, flaw);
  if (!failure.empty())
    props::report(oracles::Verdict::fail("device-memory", fmt::format("{}\nafter:\n{}", failure, trace)));
}

void host_reads_case() {
  ++props::tally().cases;
  devmem_case(Flaw::kHostReadsAreDeviceReads);
}

}  // namespace

STACKCHECK_PROP(DevmemProps, device_memory_equals_its_model, 0.0) { devmem_case(Flaw::kNone); }

// Positive controls: a model that is wrong in one rule is caught, naming what differed.
// The flaw shows in either figure it changes (read bits: bytes_read; a host read of a
// never-written byte: uninit_reads), whichever a seed's first failing case compares first.
TEST(DevmemControl, a_model_counting_host_reads_as_device_reads_fails) {
  testing::TestPartResultArray failures;
  {
    testing::ScopedFakeTestPartResultReporter capture(testing::ScopedFakeTestPartResultReporter::INTERCEPT_ONLY_CURRENT_THREAD,
                                                      &failures);
    rc::detail::checkGTest(&host_reads_case);
  }
  bool named = false;
  for (int i = 0; i < failures.size(); ++i) {
    const std::string m = failures.GetTestPartResult(i).message();
    named = named || m.find("bytes_read") != std::string::npos || m.find("uninit_reads()") != std::string::npos;
  }
  EXPECT_GT(failures.size(), 0) << "the flawed model was not caught";
  EXPECT_TRUE(named) << "caught, but not as a bytes_read or uninit_reads difference";
}
STACKCHECK_CONTROL(DevmemControl, a_model_calling_stale_bases_unmapped_fails, "kind unmapped, got DeviceFault") {
  devmem_case(Flaw::kStaleBaseUnmapped);
}
STACKCHECK_CONTROL(DevmemControl, a_model_keeping_the_fill_byte_across_reset_fails, "the model") {
  devmem_case(Flaw::kResetKeepsFill);
}
STACKCHECK_CONTROL(DevmemControl, a_model_backing_no_page_on_reads_fails, "resident_pages() =") {
  devmem_case(Flaw::kReadsBackNoPage);
}
