// Spare mirror allocations per thread (spare_mirrors.h).
#include "properties/oracles/spare_mirrors.h"

#include <algorithm>
#include <vector>

namespace stackcheck::oracles {
namespace {

constexpr size_t kKept = 2;

std::vector<runtime::MirrorBuffer>& spares() {
  thread_local std::vector<runtime::MirrorBuffer> kept;
  return kept;
}

bool smaller(const runtime::MirrorBuffer& a, const runtime::MirrorBuffer& b) { return a.capacity() < b.capacity(); }

}  // namespace

runtime::MirrorBuffer take_spare_mirror() {
  auto& kept = spares();
  if (kept.empty()) return {};
  const auto it = std::max_element(kept.begin(), kept.end(), smaller);
  runtime::MirrorBuffer b = std::move(*it);
  kept.erase(it);
  return b;
}

void keep_spare_mirror(runtime::MirrorBuffer&& b) {
  if (b.capacity() == 0) return;
  auto& kept = spares();
  if (kept.size() < kKept) {
    kept.push_back(std::move(b));
    return;
  }
  if (const auto it = std::min_element(kept.begin(), kept.end(), smaller); it->capacity() < b.capacity())
    *it = std::move(b);
}

}  // namespace stackcheck::oracles
