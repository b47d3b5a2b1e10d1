// The orchestrator model's window arithmetic and byte-range book (orchestrator_model_rules.h).
#include "properties/oracles/orchestrator_model_rules.h"

#include <algorithm>

namespace stackcheck::oracles::orch::rules {

uint64_t elements(const Dims& d) {
  uint64_t n = 1;
  for (int64_t x : d) n *= static_cast<uint64_t>(x);
  return n;
}

Dims row_major(const Dims& d) {
  Dims s(d.size(), 1);
  for (size_t i = d.size(); i-- > 1;) s[i - 1] = s[i] * d[i];
  return s;
}

bool dims_ok(const Dims& d) {
  // RUNTIME.md §3: a TensorArg holds rank 1..4 and its shape and strides (in elements) as i32, so
  // every extent and every row-major stride of a buffer must be one; and its element count at
  // most 2^40 (the host API's bound, orchestrator.h, that keeps a buffer's byte size exact).
  constexpr uint64_t kI32Max = 2147483647, kMaxElements = uint64_t{1} << 40;
  if (d.empty() || d.size() > 4) return false;
  uint64_t stride = 1;  // the row-major stride of the extent being checked
  for (size_t i = d.size(); i-- > 0;) {
    if (d[i] < 1 || static_cast<uint64_t>(d[i]) > kI32Max || stride > kI32Max) return false;
    stride *= static_cast<uint64_t>(d[i]);  // < 2^31 * 2^31: no wrap
    if (stride > kMaxElements) return false;
  }
  return true;
}

// A window's bounding byte range (§7: an access covers it).
std::pair<uint64_t, uint64_t> range_of(const TensorArg& a) {
  uint64_t last = 0;
  for (uint32_t i = 0; i < a.rank; ++i)
    last += static_cast<uint64_t>(a.shape[i] - 1) * static_cast<uint64_t>(a.stride[i]);
  const uint64_t lo = a.base.raw() + a.offset_bytes;
  return {lo, lo + (last + 1) * kElem};
}

OrchestratorModel::Mode mode_of(uint32_t tag) {
  switch (tag) {
    case runtime::kTagInput: return OrchestratorModel::Mode::kRead;
    case runtime::kTagInout: return OrchestratorModel::Mode::kReadWrite;
    case runtime::kTagOutput:
    case runtime::kTagOutputExisting: return OrchestratorModel::Mode::kWrite;
    default: return OrchestratorModel::Mode::kNone;
  }
}

// ---- the byte-range book (§7) ----

using Seg = OrchestratorModel::Segment;
using Book = std::vector<Seg>;
using Mode = OrchestratorModel::Mode;

uint64_t book_size(const Book& b) {
  uint64_t n = b.size();
  for (const Seg& s : b) n += s.readers.size();
  return n;
}

namespace {

// Cuts the segment holding x strictly inside it into two with the same writer and readers.
void cut(Book& b, uint64_t x) {
  for (size_t i = 0; i < b.size(); ++i)
    if (b[i].lo < x && x < b[i].hi) {
      Seg right = b[i];
      right.lo = x;
      b[i].hi = x;
      b.insert(b.begin() + static_cast<std::ptrdiff_t>(i) + 1, std::move(right));
      return;
    }
}

}  // namespace

// Producers an access of [lo, hi) must wait for: overlapping writers; for a writing access
// also the readers since (WAR), unless the flaw forgets them.
void producers(const Book& b, uint64_t lo, uint64_t hi, Mode m, bool forget_war, std::vector<Edge>& out) {
  if (m == Mode::kNone || lo >= hi) return;
  for (const Seg& s : b) {
    if (s.hi <= lo || s.lo >= hi) continue;
    if (s.writer >= 0) {
      if (m != Mode::kWrite) out.push_back({s.writer, EdgeKind::kRaw});
      if (m != Mode::kRead) out.push_back({s.writer, EdgeKind::kWaw});
    }
    if (m != Mode::kRead && !forget_war)
      for (int32_t r : s.readers) out.push_back({r, EdgeKind::kWar});
  }
}

// Registers the access: a read joins the readers of [lo, hi) (gaps become writer-less
// segments read by it); a write makes [lo, hi) one segment of its own with no readers.
void record(Book& b, uint64_t lo, uint64_t hi, Mode m, int32_t task) {
  if (m == Mode::kNone || lo >= hi) return;
  cut(b, lo);
  cut(b, hi);
  if (m != Mode::kRead) {
    std::erase_if(b, [&](const Seg& s) { return s.lo >= lo && s.hi <= hi; });
    auto at = std::find_if(b.begin(), b.end(), [&](const Seg& s) { return s.lo >= hi; });
    b.insert(at, Seg{lo, hi, task, {}});
    return;
  }
  Book out;
  uint64_t at = lo;  // [lo, at) is covered already
  auto gap_to = [&](uint64_t end) {
    if (at < end) out.push_back(Seg{at, end, -1, {task}});
    at = std::max(at, end);
  };
  for (Seg& s : b) {
    if (s.hi <= lo) {
      out.push_back(std::move(s));
      continue;
    }
    if (s.lo >= hi) {
      gap_to(hi);
      out.push_back(std::move(s));
      continue;
    }
    gap_to(s.lo);  // after the cuts, s lies inside [lo, hi)
    if (std::find(s.readers.begin(), s.readers.end(), task) == s.readers.end()) s.readers.push_back(task);
    at = s.hi;
    out.push_back(std::move(s));
  }
  gap_to(hi);
  b = std::move(out);
}

// Alias classes (§9): the smallest index of each overlap component of the boundary.
std::vector<uint32_t> classes_of(const std::vector<TensorArg>& bt) {
  std::vector<uint32_t> cls(bt.size());
  for (uint32_t i = 0; i < cls.size(); ++i) cls[i] = i;
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t i = 0; i < bt.size(); ++i)
      for (size_t j = i + 1; j < bt.size(); ++j) {
        const auto [li, hi_] = range_of(bt[i]);
        const auto [lj, hj] = range_of(bt[j]);
        if (li < hj && lj < hi_ && cls[i] != cls[j]) {
          const uint32_t keep = std::min(cls[i], cls[j]), drop = std::max(cls[i], cls[j]);
          for (uint32_t& c : cls)
            if (c == drop) c = keep;
          changed = true;
        }
      }
  }
  return cls;
}

}  // namespace stackcheck::oracles::orch::rules
