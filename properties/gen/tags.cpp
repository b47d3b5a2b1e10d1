#include "properties/gen/tags.h"

#include <algorithm>
#include <iterator>

namespace stackcheck::gen {

const char* write_tag_name(WriteTag t) {
  static constexpr const char* kNames[] = {"matmul",        "rowsum",          "noncommuting-write",
                                           "overlap-exact", "overlap-partial", "overlap-single"};
  static_assert(std::size(kNames) == kWriteTags);
  return kNames[static_cast<unsigned>(t)];
}

int64_t overlap_elements(std::span<const int64_t> oa, std::span<const int64_t> da, std::span<const int64_t> ob,
                         std::span<const int64_t> db) {
  if (oa.size() != ob.size()) return 0;
  int64_t n = 1;
  for (size_t i = 0; i < oa.size(); ++i) {
    const int64_t lo = std::max(oa[i], ob[i]), hi = std::min(oa[i] + da[i], ob[i] + db[i]);
    if (hi <= lo) return 0;
    n *= hi - lo;
  }
  return n;
}

Dims window_dims_within(ChoiceSource& c, const Dims& base) {
  static constexpr int64_t kExtents[] = {1, 2, 4, 8, 16};
  Dims w;
  for (int64_t d : base) {
    boost::container::small_vector<int64_t, 5> fit;
    for (int64_t e : kExtents)
      if (e <= d) fit.push_back(e);
    const size_t k = c.one_of(fit.size() + 1);
    w.push_back(k == 0 ? d : fit[k - 1]);
  }
  return w;
}

}  // namespace stackcheck::gen
