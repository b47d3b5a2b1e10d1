// The replaceable global allocation functions, counting into two relaxed atomics and then
// calling malloc (or aligned_alloc): under ASan, malloc is still ASan's, so the instrumented
// build's allocations cost what they cost in the fuzz targets.
#include "bench/alloc_count.h"

#include <atomic>
#include <cstdlib>
#include <new>

namespace stackcheck::bench {
namespace {
std::atomic<bool> counting{false};
std::atomic<uint64_t> allocations{0};
std::atomic<uint64_t> bytes{0};
std::atomic<uint64_t> frees{0};

void note(std::size_t n) {
  if (!counting.load(std::memory_order_relaxed)) return;
  allocations.fetch_add(1, std::memory_order_relaxed);
  bytes.fetch_add(n, std::memory_order_relaxed);
}

void release(void* p) noexcept {
  if (p != nullptr && counting.load(std::memory_order_relaxed)) frees.fetch_add(1, std::memory_order_relaxed);
  std::free(p);
}

void* allocate(std::size_t n) {
  note(n);
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}

void* allocate_aligned(std::size_t n, std::align_val_t al) {
  note(n);
  const std::size_t a = static_cast<std::size_t>(al);
  const std::size_t rounded = (n + a - 1) / a * a;
  if (void* p = std::aligned_alloc(a, rounded ? rounded : a)) return p;
  throw std::bad_alloc();
}
}  // namespace

void set_counting(bool on) { counting.store(on, std::memory_order_relaxed); }

AllocCounts alloc_counts() {
  return {allocations.load(std::memory_order_relaxed), bytes.load(std::memory_order_relaxed),
          frees.load(std::memory_order_relaxed)};
}

}  // namespace stackcheck::bench

using stackcheck::bench::allocate;
using stackcheck::bench::allocate_aligned;
using stackcheck::bench::release;

void* operator new(std::size_t n) { return allocate(n); }
void* operator new[](std::size_t n) { return allocate(n); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  try {
    return allocate(n);
  } catch (...) {
    return nullptr;
  }
}
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept {
  try {
    return allocate(n);
  } catch (...) {
    return nullptr;
  }
}
void* operator new(std::size_t n, std::align_val_t a) { return allocate_aligned(n, a); }
void* operator new[](std::size_t n, std::align_val_t a) { return allocate_aligned(n, a); }
void operator delete(void* p) noexcept { release(p); }
void operator delete[](void* p) noexcept { release(p); }
void operator delete(void* p, std::size_t) noexcept { release(p); }
void operator delete[](void* p, std::size_t) noexcept { release(p); }
void operator delete(void* p, std::align_val_t) noexcept { release(p); }
void operator delete[](void* p, std::align_val_t) noexcept { release(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { release(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { release(p); }
