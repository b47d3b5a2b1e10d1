// Spare mirror allocations per thread (spare_mirrors.h).
#include "properties/oracles/spare_mirrors.h"

#include <algorithm>
#include <vector>

namespace stackcheck::oracles {
namespace {

constexpr size_t kKept = 2;

// Set when the thread's pool is destroyed at thread exit: a thread_local made before it (a spare
// Bench) is destroyed after it and hands its mirror back then; that allocation is just freed.
// A bool has no destructor, so it stays readable to the end.
thread_local bool pool_gone = false;

struct Pool {
  std::vector<runtime::MirrorBuffer> kept;
  ~Pool() { pool_gone = true; }
};

std::vector<runtime::MirrorBuffer>* spares() {
  if (pool_gone) return nullptr;
  thread_local Pool pool;
  return &pool.kept;
}

bool smaller(const runtime::MirrorBuffer& a, const runtime::MirrorBuffer& b) { return a.capacity() < b.capacity(); }

}  // namespace

runtime::MirrorBuffer take_spare_mirror() {
  auto* kept = spares();
  if (!kept || kept->empty()) return {};
  const auto it = std::max_element(kept->begin(), kept->end(), smaller);
  runtime::MirrorBuffer b = std::move(*it);
  kept->erase(it);
  return b;
}

void keep_spare_mirror(runtime::MirrorBuffer&& b) {
  auto* kept = spares();
  if (!kept || b.capacity() == 0) return;
  if (kept->size() < kKept) {
    kept->push_back(std::move(b));
    return;
  }
  if (const auto it = std::min_element(kept->begin(), kept->end(), smaller); it->capacity() < b.capacity())
    *it = std::move(b);
}

}  // namespace stackcheck::oracles
