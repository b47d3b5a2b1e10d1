// DeviceMemory: reservations, lazy pages, counted host copies, tracked device access.
// Concurrency: mu_ is held shared by every access (so release cannot free a page under a
// running access) and exclusively by reserve/release. Pages are created by CAS on their
// table entry; device bytes and tracking bits are only touched through std::atomic_ref.
#include "stack/runtime/devmem/device_memory.h"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <mutex>

#include "stack/support/check.h"

namespace stackcheck::runtime {

namespace {
constexpr uint64_t kPagesPerChunk = 4096;  // one chunk maps 256 MiB (a smaller reservation: its own pages)
constexpr uint64_t kWordsPerPage = DeviceMemory::kPageBytes / 64;
// A page is filled (data with the fill byte, tracking bits cleared) one 4 KiB block at a time,
// when an access first reaches the block: a small tensor costs a block, not 64 KiB and 16 KiB
// of bitmaps. A block not yet filled reads as the fill byte and has no bits set.
constexpr uint64_t kBlockBytes = 4096;
constexpr uint64_t kBlocksPerPage = DeviceMemory::kPageBytes / kBlockBytes;
constexpr uint64_t kWordsPerBlock = kBlockBytes / 64;
static_assert(kBlocksPerPage <= 32);

// The blocks [po, po + len) of a page meets, as a mask (len > 0).
uint32_t block_mask(uint64_t po, uint64_t len) {
  const uint64_t first = po / kBlockBytes, last = (po + len - 1) / kBlockBytes;  // last < 32
  return static_cast<uint32_t>(((uint64_t{1} << (last + 1)) - 1) & ~((uint64_t{1} << first) - 1));
}

std::memory_order failure_order(std::memory_order o) {
  if (o == std::memory_order_acq_rel) return std::memory_order_acquire;
  if (o == std::memory_order_release) return std::memory_order_relaxed;
  return o;
}
bool is_read_order(std::memory_order o) { return o != std::memory_order_relaxed; }

// Mask of bits [lo, hi) within a 64-bit word, 0 <= lo < hi <= 64.
uint64_t bit_mask(uint64_t lo, uint64_t hi) {
  uint64_t upper = hi == 64 ? ~uint64_t{0} : ((uint64_t{1} << hi) - 1);
  return upper & ~((uint64_t{1} << lo) - 1);
}

// Applies fn(word_index, mask) to every word covering bits [o, o+len) of a page.
template <class Fn>
void for_words(uint64_t o, uint64_t len, Fn&& fn) {
  uint64_t end = o + len;
  while (o < end) {
    uint64_t w = o / 64, lo = o % 64;
    uint64_t hi = std::min<uint64_t>(64, lo + (end - o));
    fn(w, bit_mask(lo, hi));
    o += hi - lo;
  }
}
}  // namespace

struct DeviceMemory::Page {
  alignas(64) uint8_t data[kPageBytes];
  uint64_t read_bits[kWordsPerPage];
  uint64_t written_bits[kWordsPerPage];
  // Blocks filled so far (bit k: block k). Set with release under fill_mu after the block's
  // bytes and bits are written; an access that loads the bit (acquire) may touch the block.
  std::atomic<uint32_t> filled{0};
  std::mutex fill_mu;

  // Fills the blocks of [po, po + len) not filled yet.
  void fill(uint64_t po, uint64_t len, uint8_t fill_byte) {
    const uint32_t need = block_mask(po, len);
    if ((filled.load(std::memory_order_acquire) & need) == need) return;
    std::lock_guard lock(fill_mu);
    const uint32_t have = filled.load(std::memory_order_relaxed);
    const uint32_t todo = need & ~have;
    for (uint64_t b = 0; b < kBlocksPerPage; ++b) {
      if ((todo >> b & 1) == 0) continue;
      std::memset(data + b * kBlockBytes, fill_byte, kBlockBytes);
      std::memset(read_bits + b * kWordsPerBlock, 0, kWordsPerBlock * sizeof(uint64_t));
      std::memset(written_bits + b * kWordsPerBlock, 0, kWordsPerBlock * sizeof(uint64_t));
    }
    filled.fetch_or(todo, std::memory_order_release);
  }
  bool block_filled(uint64_t b) const { return (filled.load(std::memory_order_acquire) >> b & 1) != 0; }
};

struct DeviceMemory::Reservation {
  // A chunk maps up to kPagesPerChunk pages: as many as the reservation has left.
  struct Chunk {
    explicit Chunk(uint64_t n) : count(n), pages(new std::atomic<Page*>[n]()) {}
    uint64_t count;
    std::unique_ptr<std::atomic<Page*>[]> pages;
  };
  uint64_t base = 0, bytes = 0, align = 0;
  std::string name;
  bool live = true;
  HostLinkId link = kDirectCaller;
  uint64_t copies_in = 0, last_copy_offset = 0, last_copy_bytes = 0;  // under ledger_mu_
  ReservationInfo info() const {
    return ReservationInfo{DevAddr(base), bytes, align, name, live, link, copies_in, last_copy_offset, last_copy_bytes};
  }
  uint64_t n_pages = 0, n_chunks = 0;
  std::unique_ptr<std::atomic<Chunk*>[]> chunks;
  uint64_t chunk_pages(uint64_t c) const { return std::min(kPagesPerChunk, n_pages - c * kPagesPerChunk); }

  uint64_t end() const { return base + bytes; }
  ~Reservation() { drop(nullptr); }
  // Frees every page (into `spare` while it holds fewer than kSparePages); returns how many.
  uint64_t drop(std::vector<Page*>* spare) {
    uint64_t freed = 0;
    if (!chunks) return 0;
    for (uint64_t c = 0; c < n_chunks; ++c) {
      Chunk* ch = chunks[c].load();
      if (!ch) continue;
      for (uint64_t i = 0; i < ch->count; ++i)
        if (Page* pg = ch->pages[i].load()) {
          if (spare && spare->size() < kSparePages)
            spare->push_back(pg);
          else
            delete pg;
          ++freed;
        }
      delete ch;
    }
    chunks.reset();
    return freed;
  }
  Page* find_page(uint64_t index) const {
    if (!chunks) return nullptr;
    Chunk* ch = chunks[index / kPagesPerChunk].load(std::memory_order_acquire);
    return ch ? ch->pages[index % kPagesPerChunk].load(std::memory_order_acquire) : nullptr;
  }
};

DeviceMemory::DeviceMemory(DeviceMemoryConfig cfg) : cfg_(cfg), strict_(cfg.strict_uninit) {}

DeviceMemory::~DeviceMemory() {
  by_base_.clear();
  for (Page* p : spare_pages_) delete p;
}

uint64_t DeviceMemory::drop(Reservation& r) {
  std::lock_guard spare(spare_mu_);
  return r.drop(&spare_pages_);
}

DeviceMemory::Page* DeviceMemory::new_page() {
  {
    std::lock_guard spare(spare_mu_);
    if (!spare_pages_.empty()) {
      Page* p = spare_pages_.back();
      spare_pages_.pop_back();
      return p;
    }
  }
  return new Page;
}

void DeviceMemory::reset(DeviceMemoryConfig cfg) {
  std::unique_lock lock(mu_);
  for (auto& [base, r] : by_base_) drop(*r);
  by_base_.clear();
  cfg_ = cfg;
  strict_.store(cfg.strict_uninit);
  next_base_ = kFirstBase;
  h2d_calls_ = 0;
  h2d_bytes_ = 0;
  d2h_calls_ = 0;
  d2h_bytes_ = 0;
  uninit_reads_ = 0;
  resident_pages_ = 0;
  links_opened_ = 0;
  std::lock_guard ledger(ledger_mu_);
  copy_ledger_.clear();
}

HostLinkId DeviceMemory::open_link() { return links_opened_.fetch_add(1) + 1; }

DevAddr DeviceMemory::reserve(uint64_t bytes, uint64_t align, std::string name, HostLinkId by) {
  if (align == 0) align = 1;
  if (bytes == 0 || bytes > kMaxReservationBytes || align > kMaxAlign || (align & (align - 1)) != 0)
    throw DeviceFault(DeviceOp::kReserve, DevAddr(), bytes, FaultKind::kReservation);
  std::unique_lock lock(mu_);
  uint64_t a = std::max(align, kPageBytes);
  uint64_t base = (next_base_ + a - 1) & ~(a - 1);
  auto r = std::make_unique<Reservation>();
  r->base = base;
  r->bytes = bytes;
  r->align = align;
  r->name = std::move(name);
  r->link = by;
  uint64_t pages = (bytes + kPageBytes - 1) / kPageBytes;
  r->n_pages = pages;
  r->n_chunks = (pages + kPagesPerChunk - 1) / kPagesPerChunk;
  r->chunks = std::make_unique<std::atomic<Reservation::Chunk*>[]>(r->n_chunks);
  for (uint64_t c = 0; c < r->n_chunks; ++c) r->chunks[c].store(nullptr);
  // The next reservation starts at least one gap past this end, so an access running off
  // the end lands in unmapped space rather than in a neighbour.
  next_base_ = base + pages * kPageBytes + kGapBytes;
  by_base_.emplace(base, std::move(r));
  return DevAddr(base);
}

void DeviceMemory::release(DevAddr base) {
  std::unique_lock lock(mu_);
  auto it = by_base_.find(base.raw());
  if (it == by_base_.end()) {
    locate(DeviceOp::kRelease, base, 1);  // throws released/unmapped for the right reason
    throw DeviceFault(DeviceOp::kRelease, base, 0, FaultKind::kReservation);  // not a base
  }
  if (!it->second->live) throw DeviceFault(DeviceOp::kRelease, base, 0, FaultKind::kReleased);
  it->second->live = false;
  resident_pages_.fetch_sub(drop(*it->second));
}

DeviceMemory::Reservation& DeviceMemory::locate(DeviceOp op, DevAddr a, uint64_t n) const {
  if (n == 0 || a.raw() + n < a.raw()) throw DeviceFault(op, a, n, FaultKind::kReservation);
  auto it = by_base_.upper_bound(a.raw());
  if (it == by_base_.begin()) throw DeviceFault(op, a, n, FaultKind::kUnmapped);
  --it;
  Reservation& r = *it->second;
  if (a.raw() >= r.end()) throw DeviceFault(op, a, n, FaultKind::kUnmapped);
  if (!r.live) throw DeviceFault(op, a, n, FaultKind::kReleased);
  if (n > r.end() - a.raw()) throw DeviceFault(op, a, n, FaultKind::kReservation);
  return r;
}

bool DeviceMemory::mapped(DevAddr a, uint64_t n) const {
  std::shared_lock lock(mu_);
  try {
    locate(DeviceOp::kRead, a, n);
    return true;
  } catch (const DeviceFault&) {
    return false;
  }
}

DeviceMemory::Page& DeviceMemory::page(Reservation& r, uint64_t index) {
  auto& slot_chunk = r.chunks[index / kPagesPerChunk];
  Reservation::Chunk* ch = slot_chunk.load(std::memory_order_acquire);
  if (!ch) {
    auto* fresh = new Reservation::Chunk(r.chunk_pages(index / kPagesPerChunk));
    if (slot_chunk.compare_exchange_strong(ch, fresh, std::memory_order_acq_rel))
      ch = fresh;
    else
      delete fresh;  // another thread won; ch holds its chunk
  }
  auto& slot = ch->pages[index % kPagesPerChunk];
  Page* p = slot.load(std::memory_order_acquire);
  if (!p) {
    Page* fresh = new_page();
    fresh->filled.store(0, std::memory_order_relaxed);  // its blocks are filled as accesses reach them
    if (slot.compare_exchange_strong(p, fresh, std::memory_order_acq_rel)) {
      p = fresh;
      resident_pages_.fetch_add(1, std::memory_order_relaxed);
    } else {
      delete fresh;  // another thread won (not worth a spare)
    }
  }
  return *p;
}

// fn(Page&, offset in page, length, offset in the access)
template <class Fn>
void DeviceMemory::for_pages(Reservation& r, uint64_t off, uint64_t n, Fn&& fn) {
  uint64_t done = 0;
  while (done < n) {
    uint64_t o = off + done;
    uint64_t po = o % kPageBytes;
    uint64_t len = std::min(n - done, kPageBytes - po);
    Page& p = page(r, o / kPageBytes);
    p.fill(po, len, cfg_.fill_byte);
    fn(p, po, len, done);
    done += len;
  }
}

void DeviceMemory::copy_to_device(DevAddr dst, const void* src, uint64_t n, HostLinkId by) {
  std::shared_lock lock(mu_);
  Reservation& r = locate(DeviceOp::kCopyToDevice, dst, n);
  auto* s = static_cast<const uint8_t*>(src);
  for_pages(r, dst.raw() - r.base, n, [&](Page& p, uint64_t po, uint64_t len, uint64_t done) {
    // Host copies never overlap device execution (bind copies, then runs, then joins), so a
    // plain memcpy is race-free and keeps large uploads fast.
    std::memcpy(p.data + po, s + done, len);
    for_words(po, len, [&](uint64_t w, uint64_t m) {
      std::atomic_ref<uint64_t>(p.written_bits[w]).fetch_or(m, std::memory_order_relaxed);
    });
  });
  h2d_calls_.fetch_add(1);
  h2d_bytes_.fetch_add(n);
  std::lock_guard ledger(ledger_mu_);
  copy_ledger_.push_back(HostCopy{CopyDirection::kToDevice, by, dst, n, DevAddr(r.base)});
  ++r.copies_in;
  r.last_copy_offset = dst.raw() - r.base;
  r.last_copy_bytes = n;
}

void DeviceMemory::copy_to_host(void* dst, DevAddr src, uint64_t n, HostLinkId by) {
  std::shared_lock lock(mu_);
  Reservation& r = locate(DeviceOp::kCopyToHost, src, n);
  auto* d = static_cast<uint8_t*>(dst);
  for_pages(r, src.raw() - r.base, n,
            [&](Page& p, uint64_t po, uint64_t len, uint64_t done) { std::memcpy(d + done, p.data + po, len); });
  d2h_calls_.fetch_add(1);
  d2h_bytes_.fetch_add(n);
  std::lock_guard ledger(ledger_mu_);
  copy_ledger_.push_back(HostCopy{CopyDirection::kToHost, by, src, n, DevAddr(r.base)});
}

void DeviceMemory::inspect(DevAddr src, void* dst, uint64_t n) const {
  std::shared_lock lock(mu_);
  Reservation& r = locate(DeviceOp::kCopyToHost, src, n);
  auto* d = static_cast<uint8_t*>(dst);
  for (uint64_t done = 0, o = src.raw() - r.base; done < n;) {
    const uint64_t po = o % kPageBytes, len = std::min(n - done, kPageBytes - po);
    if (Page* p = r.find_page(o / kPageBytes)) {
      for (uint64_t i = 0; i < len; ++i) {
        const uint64_t at = po + i;
        d[done + i] = p->block_filled(at / kBlockBytes) ? std::atomic_ref<uint8_t>(p->data[at]).load(std::memory_order_relaxed)
                                                        : cfg_.fill_byte;
      }
    } else {
      std::memset(d + done, cfg_.fill_byte, len);  // never touched: what a first touch would fill
    }
    done += len;
    o += len;
  }
}

void DeviceMemory::read(DevAddr src, void* dst, uint64_t n, std::memory_order order) {
  read_raw(DeviceOp::kRead, src, dst, n, order);
}
void DeviceMemory::write(DevAddr dst, const void* src, uint64_t n, std::memory_order order) {
  write_raw(DeviceOp::kWrite, dst, src, n, order);
}

namespace {
// One atomic op for an aligned 1/2/4/8-byte range, so ordered flags and counters are plain
// atomics (and TSan sees them as such).
bool single_word(uint64_t addr, uint64_t n) { return (n == 1 || n == 2 || n == 4 || n == 8) && addr % n == 0; }
template <class U>
U atomic_load_n(uint8_t* p, std::memory_order o) {
  return std::atomic_ref<U>(*reinterpret_cast<U*>(p)).load(o);
}
template <class U>
void atomic_store_n(uint8_t* p, U v, std::memory_order o) {
  std::atomic_ref<U>(*reinterpret_cast<U*>(p)).store(v, o);
}
// Relaxed copies of device bytes (which other threads may touch, so only ever accessed
// atomically): a byte at a time up to the first 8-aligned device byte and after the last
// whole word, a word at a time between (a page's data is 64-aligned).
bool word_aligned(const uint8_t* p) { return reinterpret_cast<uintptr_t>(p) % 8 == 0; }
void relaxed_load_bytes(uint8_t* host, uint8_t* dev, uint64_t len) {
  uint64_t i = 0;
  for (; i < len && !word_aligned(dev + i); ++i) host[i] = std::atomic_ref<uint8_t>(dev[i]).load(std::memory_order_relaxed);
  for (; len - i >= 8; i += 8) {
    const uint64_t v = atomic_load_n<uint64_t>(dev + i, std::memory_order_relaxed);
    std::memcpy(host + i, &v, 8);
  }
  for (; i < len; ++i) host[i] = std::atomic_ref<uint8_t>(dev[i]).load(std::memory_order_relaxed);
}
void relaxed_store_bytes(uint8_t* dev, const uint8_t* host, uint64_t len) {
  uint64_t i = 0;
  for (; i < len && !word_aligned(dev + i); ++i) std::atomic_ref<uint8_t>(dev[i]).store(host[i], std::memory_order_relaxed);
  for (; len - i >= 8; i += 8) {
    uint64_t v;
    std::memcpy(&v, host + i, 8);
    atomic_store_n(dev + i, v, std::memory_order_relaxed);
  }
  for (; i < len; ++i) std::atomic_ref<uint8_t>(dev[i]).store(host[i], std::memory_order_relaxed);
}
}  // namespace

void DeviceMemory::read_raw(DeviceOp op, DevAddr src, void* dst, uint64_t n, std::memory_order order) {
  std::shared_lock lock(mu_);
  Reservation& r = locate(op, src, n);
  const uint64_t off = src.raw() - r.base;
  if (strict_.load(std::memory_order_relaxed)) {
    bool clean = true;
    for_pages(r, off, n, [&](Page& p, uint64_t po, uint64_t len, uint64_t) {
      for_words(po, len, [&](uint64_t w, uint64_t m) {
        uint64_t wb = std::atomic_ref<uint64_t>(p.written_bits[w]).load(std::memory_order_relaxed);
        if ((wb & m) != m) clean = false;
      });
    });
    if (!clean) throw DeviceFault(op, src, n, FaultKind::kUninit);
  }
  auto* d = static_cast<uint8_t*>(dst);
  uint64_t uninit = 0;
  const bool one = is_read_order(order) && single_word(src.raw(), n);
  for_pages(r, off, n, [&](Page& p, uint64_t po, uint64_t len, uint64_t done) {
    uint8_t* s = p.data + po;
    if (one) {
      switch (n) {
        case 1: {
          auto v = atomic_load_n<uint8_t>(s, order);
          std::memcpy(d, &v, 1);
          break;
        }
        case 2: {
          auto v = atomic_load_n<uint16_t>(s, order);
          std::memcpy(d, &v, 2);
          break;
        }
        case 4: {
          auto v = atomic_load_n<uint32_t>(s, order);
          std::memcpy(d, &v, 4);
          break;
        }
        default: {
          auto v = atomic_load_n<uint64_t>(s, order);
          std::memcpy(d, &v, 8);
          break;
        }
      }
    } else {
      relaxed_load_bytes(d + done, s, len);
    }
    for_words(po, len, [&](uint64_t w, uint64_t m) {
      std::atomic_ref<uint64_t> rb(p.read_bits[w]);
      if ((rb.load(std::memory_order_relaxed) & m) != m) rb.fetch_or(m, std::memory_order_relaxed);
      uint64_t wb = std::atomic_ref<uint64_t>(p.written_bits[w]).load(std::memory_order_relaxed);
      if (const uint64_t unwritten = m & ~wb) uninit += std::popcount(unwritten);  // rare: skip the count
    });
  });
  if (!one && is_read_order(order)) std::atomic_thread_fence(std::memory_order_acquire);
  if (uninit) uninit_reads_.fetch_add(uninit, std::memory_order_relaxed);
}

void DeviceMemory::write_raw(DeviceOp op, DevAddr dst, const void* src, uint64_t n, std::memory_order order) {
  std::shared_lock lock(mu_);
  Reservation& r = locate(op, dst, n);
  const uint64_t off = dst.raw() - r.base;
  auto* s = static_cast<const uint8_t*>(src);
  const bool one = is_read_order(order) && single_word(dst.raw(), n);
  if (!one && is_read_order(order)) std::atomic_thread_fence(std::memory_order_release);
  for_pages(r, off, n, [&](Page& p, uint64_t po, uint64_t len, uint64_t done) {
    uint8_t* d = p.data + po;
    if (one) {
      switch (n) {
        case 1: {
          uint8_t v;
          std::memcpy(&v, s, 1);
          atomic_store_n(d, v, order);
          break;
        }
        case 2: {
          uint16_t v;
          std::memcpy(&v, s, 2);
          atomic_store_n(d, v, order);
          break;
        }
        case 4: {
          uint32_t v;
          std::memcpy(&v, s, 4);
          atomic_store_n(d, v, order);
          break;
        }
        default: {
          uint64_t v;
          std::memcpy(&v, s, 8);
          atomic_store_n(d, v, order);
          break;
        }
      }
    } else {
      relaxed_store_bytes(d, s + done, len);
    }
    for_words(po, len, [&](uint64_t w, uint64_t m) {
      std::atomic_ref<uint64_t> wb(p.written_bits[w]);
      if ((wb.load(std::memory_order_relaxed) & m) != m) wb.fetch_or(m, std::memory_order_relaxed);
    });
  });
}

uint64_t DeviceMemory::rmw(DeviceOp op, DevAddr a, unsigned size, uint64_t operand, uint64_t expected, bool* cas_ok,
                           std::memory_order order) {
  STACK_CHECK(size == 4 || size == 8, "device atomics are 32 or 64 bit");
  std::shared_lock lock(mu_);
  Reservation& r = locate(op, a, size);
  if (a.raw() % size != 0) throw DeviceFault(op, a, size, FaultKind::kMisaligned);
  const uint64_t off = a.raw() - r.base;
  Page& p = page(r, off / kPageBytes);  // aligned, so within one page (and one block)
  const uint64_t po = off % kPageBytes;
  p.fill(po, size, cfg_.fill_byte);
  uint64_t w = po / 64;
  uint64_t m = bit_mask(po % 64, po % 64 + size);
  uint64_t wb = std::atomic_ref<uint64_t>(p.written_bits[w]).load(std::memory_order_relaxed);
  if ((wb & m) != m) {
    if (strict_.load(std::memory_order_relaxed)) throw DeviceFault(op, a, size, FaultKind::kUninit);
    uninit_reads_.fetch_add(std::popcount(m & ~wb), std::memory_order_relaxed);
  }
  uint8_t* d = p.data + po;
  uint64_t old = 0;
  bool wrote = true;
  auto run = [&](auto tag) {
    using U = decltype(tag);
    std::atomic_ref<U> ref(*reinterpret_cast<U*>(d));
    U v = static_cast<U>(operand);
    switch (op) {
      case DeviceOp::kCas: {
        U e = static_cast<U>(expected);
        wrote = ref.compare_exchange_strong(e, v, order, failure_order(order));
        old = e;
        if (cas_ok) *cas_ok = wrote;
        break;
      }
      case DeviceOp::kFetchAdd: old = ref.fetch_add(v, order); break;
      case DeviceOp::kExchange: old = ref.exchange(v, order); break;
      default: STACK_CHECK(false, "rmw op");
    }
  };
  if (size == 4)
    run(uint32_t{});
  else
    run(uint64_t{});
  std::atomic_ref<uint64_t>(p.read_bits[w]).fetch_or(m, std::memory_order_relaxed);
  if (wrote) std::atomic_ref<uint64_t>(p.written_bits[w]).fetch_or(m, std::memory_order_relaxed);
  return old;
}

template <class Fn>
void DeviceMemory::for_resident(DevAddr a, uint64_t n, Fn&& fn) const {
  if (n == 0) return;
  uint64_t end = a.raw() + n < a.raw() ? ~uint64_t{0} : a.raw() + n;
  for (auto& [base, rp] : by_base_) {
    const Reservation& r = *rp;
    if (!r.live || r.end() <= a.raw() || r.base >= end) continue;
    uint64_t lo = std::max(r.base, a.raw()) - r.base, hi = std::min(r.end(), end) - r.base;
    // Filled blocks of resident pages only: a block not filled has no bits set.
    for (uint64_t o = lo; o < hi;) {
      uint64_t po = o % kPageBytes, len = std::min(hi - o, kBlockBytes - po % kBlockBytes);
      if (Page* p = r.find_page(o / kPageBytes); p != nullptr && p->block_filled(po / kBlockBytes)) fn(*p, po, len);
      o += len;
    }
  }
}

template <class Bits>
uint64_t DeviceMemory::count_marked(DevAddr a, uint64_t n, Bits bits) const {
  std::shared_lock lock(mu_);
  uint64_t total = 0;
  for_resident(a, n, [&](Page& p, uint64_t po, uint64_t len) {
    uint64_t* words = bits(p);
    for_words(po, len, [&](uint64_t w, uint64_t m) {
      total += std::popcount(std::atomic_ref<uint64_t>(words[w]).load(std::memory_order_relaxed) & m);
    });
  });
  return total;
}

uint64_t DeviceMemory::bytes_read(DevAddr a, uint64_t n) const {
  return count_marked(a, n, [](Page& p) { return p.read_bits; });
}

uint64_t DeviceMemory::bytes_written(DevAddr a, uint64_t n) const {
  return count_marked(a, n, [](Page& p) { return p.written_bits; });
}

void DeviceMemory::clear_read_bits(DevAddr a, uint64_t n) {
  std::shared_lock lock(mu_);
  for_resident(a, n, [&](Page& p, uint64_t po, uint64_t len) {
    for_words(po, len, [&](uint64_t w, uint64_t m) {
      std::atomic_ref<uint64_t>(p.read_bits[w]).fetch_and(~m, std::memory_order_relaxed);
    });
  });
}

uint64_t DeviceMemory::uninit_reads() const { return uninit_reads_.load(); }
void DeviceMemory::set_strict_uninit(bool on) { strict_.store(on); }
bool DeviceMemory::strict_uninit() const { return strict_.load(); }

CopyCounters DeviceMemory::counters() const {
  return CopyCounters{h2d_calls_.load(), h2d_bytes_.load(), d2h_calls_.load(), d2h_bytes_.load()};
}
void DeviceMemory::reset_counters() {
  h2d_calls_ = 0;
  h2d_bytes_ = 0;
  d2h_calls_ = 0;
  d2h_bytes_ = 0;
}
uint64_t DeviceMemory::resident_pages() const { return resident_pages_.load(); }

std::vector<ReservationInfo> DeviceMemory::reservations() const {
  std::shared_lock lock(mu_);
  std::lock_guard ledger(ledger_mu_);
  std::vector<ReservationInfo> out;
  for (auto& [base, r] : by_base_) out.push_back(r->info());
  return out;
}

std::optional<ReservationInfo> DeviceMemory::reservation_of(DevAddr a) const {
  std::shared_lock lock(mu_);
  auto it = by_base_.upper_bound(a.raw());
  if (it == by_base_.begin()) return std::nullopt;
  --it;
  const Reservation& r = *it->second;
  if (a.raw() >= r.end()) return std::nullopt;
  std::lock_guard ledger(ledger_mu_);
  return r.info();
}

uint64_t DeviceMemory::live_reserved_bytes() const {
  std::shared_lock lock(mu_);
  uint64_t total = 0;
  for (auto& [base, r] : by_base_)
    if (r->live) total += r->bytes;
  return total;
}

uint64_t DeviceMemory::host_copy_count() const {
  std::lock_guard ledger(ledger_mu_);
  return copy_ledger_.size();
}

std::vector<HostCopy> DeviceMemory::host_copies(uint64_t from) const {
  std::lock_guard ledger(ledger_mu_);
  if (from >= copy_ledger_.size()) return {};
  return std::vector<HostCopy>(copy_ledger_.begin() + static_cast<std::ptrdiff_t>(from), copy_ledger_.end());
}

}  // namespace stackcheck::runtime
