// Tests of simulated device memory (RUNTIME.md §2, §16 DeviceMemory cases). Memory is
// poisoned 0xAA (STYLE.md 11) so unwritten bytes are visible.
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "stack/runtime/devmem/device_access.h"
#include "stack/runtime/devmem/host_link.h"

namespace stackcheck::runtime {
namespace {

DeviceMemoryConfig poisoned() { return DeviceMemoryConfig{0xAA, false}; }

// Runs fn, expecting a DeviceFault of `kind`.
template <class Fn>
void expect_fault(Fn&& fn, FaultKind kind, DeviceOp op) {
  try {
    fn();
    ADD_FAILURE() << "no fault";
  } catch (const DeviceFault& f) {
    EXPECT_EQ(f.kind(), kind) << f.describe();
    EXPECT_EQ(f.op(), op) << f.describe();
  }
}

TEST(DeviceMemory, placement_first_base_and_gap) {
  DeviceMemory mem(poisoned());
  HostLink host(mem);
  DevAddr a = host.reserve(100, 64, "a");
  DevAddr b = host.reserve(1, 1, "b");
  DevAddr c = host.reserve(1 << 20, 1 << 20, "c");
  EXPECT_EQ(a.raw(), DeviceMemory::kFirstBase);
  EXPECT_GE(b.raw(), a.raw() + 100 + 64 * 1024);
  EXPECT_GE(c.raw(), b.raw() + 1 + 64 * 1024);
  EXPECT_EQ(c.raw() % (1 << 20), 0u);
  expect_fault([&] { host.reserve(0, 64, "zero"); }, FaultKind::kReservation, DeviceOp::kReserve);
  expect_fault([&] { host.reserve(8, 3, "align"); }, FaultKind::kReservation, DeviceOp::kReserve);
}

TEST(DeviceMemory, dm_fault_before) {
  DeviceMemory mem(poisoned());
  DeviceAccess dev(mem);
  DevAddr a = HostLink(mem).reserve(4096, 64, "a");
  expect_fault([&] { dev.load<uint8_t>(a - 1); }, FaultKind::kUnmapped, DeviceOp::kLoad);
  expect_fault([&] { dev.load<uint32_t>(DevAddr(0)); }, FaultKind::kUnmapped, DeviceOp::kLoad);
  // Starting before the base and running into it is still outside any reservation.
  expect_fault([&] { dev.load<uint64_t>(a - 4); }, FaultKind::kUnmapped, DeviceOp::kLoad);
  EXPECT_EQ(dev.load<uint8_t>(a), 0xAA);  // positive control: the first byte is fine
}

TEST(DeviceMemory, dm_fault_past_end) {
  DeviceMemory mem(poisoned());
  DeviceAccess dev(mem);
  DevAddr a = HostLink(mem).reserve(100, 64, "a");
  EXPECT_NO_THROW(dev.load<uint32_t>(a + 96));  // last 4 bytes
  expect_fault([&] { dev.load<uint32_t>(a + 97); }, FaultKind::kReservation, DeviceOp::kLoad);
  expect_fault([&] { dev.load<uint8_t>(a + 100); }, FaultKind::kUnmapped, DeviceOp::kLoad);
  uint8_t buf[8];
  expect_fault([&] { dev.read(a + 10, buf, 0); }, FaultKind::kReservation, DeviceOp::kRead);
  expect_fault([&] { dev.read(DevAddr(~uint64_t{0} - 2), buf, 8); }, FaultKind::kReservation,
               DeviceOp::kRead);  // wraps
}

TEST(DeviceMemory, dm_fault_straddle) {
  DeviceMemory mem(poisoned());
  DeviceAccess dev(mem);
  HostLink host(mem);
  DevAddr a = host.reserve(64 * 1024, 64, "a");
  DevAddr b = host.reserve(64 * 1024, 64, "b");
  std::vector<uint8_t> buf(b - a + 16);
  expect_fault([&] { dev.read(a + 8, buf.data(), b - a); }, FaultKind::kReservation, DeviceOp::kRead);
  expect_fault([&] { host.copy_to_device(a, buf.data(), b - a + 16); }, FaultKind::kReservation,
               DeviceOp::kCopyToDevice);
  EXPECT_NO_THROW(dev.read(a, buf.data(), 64 * 1024));  // whole of a is fine
}

TEST(DeviceMemory, dm_fault_released) {
  DeviceMemory mem(poisoned());
  DeviceAccess dev(mem);
  HostLink host(mem);
  DevAddr a = host.reserve(256, 64, "a");
  dev.store<uint32_t>(a, 7);
  host.release(a);
  expect_fault([&] { dev.load<uint32_t>(a); }, FaultKind::kReleased, DeviceOp::kLoad);
  expect_fault([&] { dev.store<uint32_t>(a + 16, 1); }, FaultKind::kReleased, DeviceOp::kStore);
  expect_fault([&] { host.release(a); }, FaultKind::kReleased, DeviceOp::kRelease);
  // Never reused: a later reservation lands elsewhere and the stale base still faults.
  DevAddr b = host.reserve(256, 64, "b");
  EXPECT_GT(b.raw(), a.raw());
  expect_fault([&] { dev.load<uint32_t>(a); }, FaultKind::kReleased, DeviceOp::kLoad);
  EXPECT_EQ(mem.resident_pages(), 0u);  // a's page freed, b untouched
  expect_fault([&] { host.release(b + 64); }, FaultKind::kReservation, DeviceOp::kRelease);
}

TEST(DeviceMemory, dm_span_fault) {
  DeviceMemory mem(poisoned());
  DeviceAccess dev(mem);
  DevAddr a = HostLink(mem).reserve(4096, 64, "buf");
  DevSpan span{a + 64, 128};
  EXPECT_NO_THROW(span.store<uint64_t>(dev, 120, 5));
  EXPECT_EQ(span.load<uint64_t>(dev, 120), 5u);
  expect_fault([&] { span.load<uint64_t>(dev, 121); }, FaultKind::kSpan, DeviceOp::kLoad);
  expect_fault([&] { span.load<uint8_t>(dev, 128); }, FaultKind::kSpan, DeviceOp::kLoad);
  expect_fault([&] { span.at(0, 0); }, FaultKind::kSpan, DeviceOp::kRead);
  expect_fault([&] { span.at(~uint64_t{0}, 2); }, FaultKind::kSpan, DeviceOp::kRead);
  // The bytes just outside the span are mapped: only the span stops the access.
  EXPECT_NO_THROW(dev.load<uint8_t>(a + 64 + 128));
  EXPECT_TRUE(span.contains(a + 64, 128));
  EXPECT_FALSE(span.contains(a + 63, 2));
  DevSpan sub = span.sub(16, 16);
  expect_fault([&] { sub.load<uint8_t>(dev, 16); }, FaultKind::kSpan, DeviceOp::kLoad);
}

TEST(DeviceMemory, dm_lazy_256mib) {
  DeviceMemory mem(poisoned());
  DeviceAccess dev(mem);
  const uint64_t big = 256ull << 20;
  DevAddr a = HostLink(mem).reserve(big, 1024, "task_heap");
  EXPECT_EQ(mem.resident_pages(), 0u);
  EXPECT_EQ(dev.load<uint8_t>(a + big - 1), 0xAA);  // fill byte on first touch
  dev.store<uint32_t>(a, 0x01020304u);
  EXPECT_EQ(mem.resident_pages(), 2u);
  EXPECT_EQ(dev.load<uint32_t>(a), 0x01020304u);
  dev.store<uint16_t>(a + DeviceMemory::kPageBytes - 1, 0xBEEF);  // crosses one page boundary
  EXPECT_EQ(dev.load<uint16_t>(a + DeviceMemory::kPageBytes - 1), 0xBEEF);
  EXPECT_EQ(mem.resident_pages(), 3u);
  EXPECT_EQ(mem.live_reserved_bytes(), big);
}

TEST(DeviceMemory, dm_copy_counters) {
  DeviceMemory mem(poisoned());
  HostLink host(mem);
  DevAddr a = host.reserve(1000, 64, "a");
  std::vector<uint8_t> src(1000), dst(1000, 0);
  for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<uint8_t>(i * 7);
  host.copy_to_device(a, src.data(), 1000);
  host.copy_to_device(a + 10, src.data(), 20);
  host.copy_to_host(dst.data(), a + 500, 500);
  EXPECT_EQ(mem.counters(), (CopyCounters{2, 1020, 1, 500}));
  EXPECT_TRUE(std::equal(dst.begin(), dst.begin() + 500, src.begin() + 500));
  // A refused copy is not counted.
  EXPECT_THROW(host.copy_to_host(dst.data(), a + 999, 2), DeviceFault);
  EXPECT_EQ(mem.counters().d2h_calls, 1u);
  EXPECT_EQ(mem.bytes_written(a, 1000), 1000u);  // host copies set written bits
  EXPECT_EQ(mem.bytes_read(a, 1000), 0u);        // and no read bits
  mem.reset_counters();
  EXPECT_EQ(mem.counters(), CopyCounters{});
}

// The ledgers record every successful copy with its caller, range and reservation, and
// every reservation with its caller and the copies that landed in it; refused copies leave
// no entry. Two links on one memory are told apart.
TEST(DeviceMemory, dm_copy_ledger) {
  DeviceMemory mem(poisoned());
  HostLink one(mem), two(mem);
  EXPECT_NE(one.id(), two.id());
  EXPECT_NE(one.id(), kDirectCaller);
  const DevAddr a = one.reserve(1000, 64, "a");
  const DevAddr b = two.reserve(64, 64, "b");
  std::vector<uint8_t> bytes(1000, 3);
  one.copy_to_device(a, bytes.data(), 1000);
  two.copy_to_device(b + 8, bytes.data(), 16);
  one.copy_to_device(a + 100, bytes.data(), 50);
  EXPECT_THROW(one.copy_to_device(a + 999, bytes.data(), 2), DeviceFault);
  one.copy_to_host(bytes.data(), a + 10, 20);
  mem.copy_to_host(bytes.data(), b, 4);
  EXPECT_EQ(mem.host_copy_count(), 5u);
  const std::vector<HostCopy> all = mem.host_copies();
  ASSERT_EQ(all.size(), 5u);
  EXPECT_EQ(all[0], (HostCopy{CopyDirection::kToDevice, one.id(), a, 1000, a}));
  EXPECT_EQ(all[1], (HostCopy{CopyDirection::kToDevice, two.id(), b + 8, 16, b}));
  EXPECT_EQ(all[2], (HostCopy{CopyDirection::kToDevice, one.id(), a + 100, 50, a}));
  EXPECT_EQ(all[3], (HostCopy{CopyDirection::kToHost, one.id(), a + 10, 20, a}));
  EXPECT_EQ(all[4], (HostCopy{CopyDirection::kToHost, kDirectCaller, b, 4, b}));
  EXPECT_EQ(mem.host_copies(3), std::vector<HostCopy>(all.begin() + 3, all.end()));
  EXPECT_TRUE(mem.host_copies(5).empty());
  EXPECT_TRUE(mem.host_copies(99).empty());
  const ReservationInfo ra = *mem.reservation_of(a), rb = *mem.reservation_of(b);
  EXPECT_EQ(ra.link, one.id());
  EXPECT_EQ(rb.link, two.id());
  EXPECT_EQ(ra.copies_in, 2u);  // host->device only; the refused one is not there
  EXPECT_EQ(ra.last_copy_offset, 100u);
  EXPECT_EQ(ra.last_copy_bytes, 50u);
  EXPECT_EQ(rb.copies_in, 1u);
  EXPECT_EQ(rb.last_copy_offset, 8u);
  // The counters agree with the ledger.
  EXPECT_EQ(mem.counters(), (CopyCounters{3, 1066, 2, 24}));
  // Released reservations keep their record.
  one.release(a);
  EXPECT_EQ(mem.reservation_of(a)->copies_in, 2u);
  EXPECT_FALSE(mem.reservation_of(a)->live);
}

// inspect observes without being a device read or a host copy.
TEST(DeviceMemory, dm_inspect_is_not_an_access) {
  DeviceMemory mem(poisoned());
  HostLink host(mem);
  const DevAddr a = host.reserve(3 * DeviceMemory::kPageBytes, 64, "a");
  const uint32_t v = 0x01020304;
  host.copy_to_device(a + DeviceMemory::kPageBytes - 2, &v, 4);  // straddles pages 0 and 1
  const uint64_t pages = mem.resident_pages(), copies = mem.host_copy_count();
  const CopyCounters counters = mem.counters();
  uint8_t got[8];
  mem.inspect(a + DeviceMemory::kPageBytes - 4, got, 8);
  EXPECT_EQ(std::vector<uint8_t>(got, got + 8), (std::vector<uint8_t>{0xAA, 0xAA, 4, 3, 2, 1, 0xAA, 0xAA}));
  uint8_t untouched[4];
  mem.inspect(a + 2 * DeviceMemory::kPageBytes + 8, untouched, 4);  // page 2 never backed
  EXPECT_EQ(std::vector<uint8_t>(untouched, untouched + 4), std::vector<uint8_t>(4, 0xAA));
  EXPECT_EQ(mem.resident_pages(), pages);
  EXPECT_EQ(mem.host_copy_count(), copies);
  EXPECT_EQ(mem.counters(), counters);
  EXPECT_EQ(mem.bytes_read(a, 3 * DeviceMemory::kPageBytes), 0u);
  EXPECT_EQ(mem.uninit_reads(), 0u);
  // Positive control: a device read of the same bytes does set read bits.
  DeviceAccess dev(mem);
  dev.read(a + DeviceMemory::kPageBytes - 4, got, 8);
  EXPECT_EQ(mem.bytes_read(a, 3 * DeviceMemory::kPageBytes), 8u);
  expect_fault([&] { mem.inspect(a + 3 * DeviceMemory::kPageBytes - 1, got, 2); }, FaultKind::kReservation,
               DeviceOp::kCopyToHost);
}

TEST(DeviceMemory, dm_read_distinct) {
  DeviceMemory mem(poisoned());
  DeviceAccess dev(mem);
  DevAddr a = HostLink(mem).reserve(1 << 17, 64, "a");
  uint8_t buf[200];
  dev.read(a + 10, buf, 100);
  dev.read(a + 50, buf, 100);  // overlaps [50, 110)
  dev.load<uint64_t>(a + 10);  // already counted
  EXPECT_EQ(mem.bytes_read(a, 1 << 17), 140u);
  EXPECT_EQ(mem.bytes_read(a + 100, 100), 50u);
  // Across a page boundary.
  dev.read(a + DeviceMemory::kPageBytes - 8, buf, 16);
  EXPECT_EQ(mem.bytes_read(a, 1 << 17), 156u);
  mem.clear_read_bits(a, 60);
  EXPECT_EQ(mem.bytes_read(a, 1 << 17), 106u);
  EXPECT_EQ(mem.uninit_reads(), 100u + 100u + 8u + 16u);  // nothing was ever written
}

TEST(DeviceMemory, dm_uninit_strict) {
  DeviceMemory mem(DeviceMemoryConfig{0xAA, true});
  DeviceAccess dev(mem);
  HostLink host(mem);
  DevAddr a = host.reserve(256, 64, "a");
  expect_fault([&] { dev.load<uint32_t>(a); }, FaultKind::kUninit, DeviceOp::kLoad);
  dev.store<uint16_t>(a, 1);
  expect_fault([&] { dev.load<uint32_t>(a); }, FaultKind::kUninit, DeviceOp::kLoad);  // half
  uint32_t v = 0;
  expect_fault([&] { dev.cas<uint32_t>(a, v, 1u); }, FaultKind::kUninit, DeviceOp::kCas);
  dev.store<uint16_t>(a + 2, 0);
  EXPECT_EQ(dev.load<uint32_t>(a), 1u);
  uint64_t x = 9;
  host.copy_to_device(a + 8, &x, 8);
  EXPECT_EQ(dev.load<uint64_t>(a + 8), 9u);
  EXPECT_EQ(mem.uninit_reads(), 0u);  // faulting reads are refused, not counted
  mem.set_strict_uninit(false);
  dev.load<uint32_t>(a + 16);
  EXPECT_EQ(mem.uninit_reads(), 4u);
}

TEST(DeviceMemory, atomics_and_alignment) {
  DeviceMemory mem(poisoned());
  DeviceAccess dev(mem);
  DevAddr a = HostLink(mem).reserve(256, 64, "a");
  dev.store<int32_t>(a, 0);
  int32_t e = 1;
  EXPECT_FALSE(dev.cas<int32_t>(a, e, 5));
  EXPECT_EQ(e, 0);
  EXPECT_TRUE(dev.cas<int32_t>(a, e, 5));
  EXPECT_EQ(dev.fetch_add<int32_t>(a, 3), 5);
  EXPECT_EQ(dev.exchange<int32_t>(a, -1), 8);
  EXPECT_EQ(dev.load<int32_t>(a), -1);
  dev.store<uint64_t>(a + 8, 1ull << 40);
  EXPECT_EQ(dev.fetch_add<uint64_t>(a + 8, 1), 1ull << 40);
  EXPECT_EQ(dev.load<uint64_t>(a + 8), (1ull << 40) + 1);
  expect_fault([&] { dev.fetch_add<uint64_t>(a + 4, 1); }, FaultKind::kMisaligned, DeviceOp::kFetchAdd);
  expect_fault([&] { dev.exchange<uint32_t>(a + 254, 1); }, FaultKind::kReservation, DeviceOp::kExchange);
}

TEST(DeviceMemory, concurrent_workers_count_exactly) {
  DeviceMemory mem(poisoned());
  DeviceAccess dev(mem);
  const uint64_t bytes = 8ull << 20;  // 128 pages, first touched concurrently
  DevAddr a = HostLink(mem).reserve(bytes, 64, "a");
  dev.store<uint64_t>(a, 0);
  std::vector<std::thread> ts;
  for (int t = 0; t < 4; ++t)
    ts.emplace_back([&, t] {
      for (int i = 0; i < 2000; ++i) {
        dev.fetch_add<uint64_t>(a, 1);
        uint64_t off = (static_cast<uint64_t>(i) * 4099 + t * 64) % (bytes - 64);
        dev.store<uint32_t>(a + 64 + (off & ~uint64_t{3}), static_cast<uint32_t>(i));
      }
    });
  for (auto& t : ts) t.join();
  EXPECT_EQ(dev.load<uint64_t>(a), 8000u);
  EXPECT_LE(mem.resident_pages(), bytes / DeviceMemory::kPageBytes);
}

TEST(DeviceMemory, ordered_flag_publishes_data) {
  DeviceMemory mem(poisoned());
  DeviceAccess dev(mem);
  DevAddr a = HostLink(mem).reserve(4096, 64, "a");
  dev.store<uint8_t>(a, 0);
  std::thread producer([&] {
    for (uint32_t k = 0; k < 64; ++k) dev.store<uint32_t>(a + 64 + 4 * k, k * 3);
    dev.store<uint8_t>(a, 1, std::memory_order_release);
  });
  while (dev.load<uint8_t>(a, std::memory_order_acquire) == 0) std::this_thread::yield();
  for (uint32_t k = 0; k < 64; ++k) EXPECT_EQ(dev.load<uint32_t>(a + 64 + 4 * k), k * 3);
  producer.join();
}

TEST(DeviceMemory, reservation_queries) {
  DeviceMemory mem(poisoned());
  HostLink host(mem);
  DevAddr a = host.reserve(128, 64, "entry:x");
  host.reserve(64, 64, "region");
  host.release(a);
  auto all = mem.reservations();
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].name, "entry:x");
  EXPECT_FALSE(all[0].live);
  EXPECT_TRUE(all[1].live);
  EXPECT_EQ(mem.reservation_of(a + 5)->name, "entry:x");
  EXPECT_FALSE(mem.reservation_of(a + 128).has_value());
  EXPECT_FALSE(mem.mapped(a, 1));
  EXPECT_TRUE(mem.mapped(all[1].base, 64));
  EXPECT_FALSE(mem.mapped(all[1].base, 65));
  EXPECT_EQ(mem.live_reserved_bytes(), 64u);
}

}  // namespace
}  // namespace stackcheck::runtime
