// What the program and plan builders (program_builder.h, plan_builder.h) keep alike: the
// choices and knobs they build from, the tags of what they built, fresh names, and each
// buffer's recent accesses (the windows a new one is placed against, and the overlaps a
// write is tagged with: tag_write_overlap, tags.h).
#pragma once

#include <fmt/format.h>

#include <cstddef>
#include <string>
#include <vector>

#include "properties/gen/choice.h"
#include "properties/gen/tags.h"

namespace stackcheck::gen {

// One static window an access touched.
struct Access {
  Dims off, dims;
  bool wrote = false;
};

template <class Knobs, class Tags>
class BuilderBase {
 public:
  BuilderBase(ChoiceSource& c, const Knobs& k) : c_(c), k_(k) {}

 protected:
  // `stem` and a number no other name of this builder has.
  std::string fresh(const char* stem) { return fmt::format("{}{}", stem, fresh_++); }
  // A new buffer's (empty) record of accesses; returns its index.
  int new_access_record() {
    accesses_.emplace_back();
    return static_cast<int>(accesses_.size()) - 1;
  }
  // An access of `buf` at (off, dims), kept with the 7 before it (the builder's dims: a
  // std::vector or the IR's ir::Dims).
  template <class D>
  void remember_access(int buf, const D& off, const D& dims, bool wrote) {
    auto& acc = accesses_[static_cast<size_t>(buf)];
    acc.push_back({Dims(off.begin(), off.end()), Dims(dims.begin(), dims.end()), wrote});
    if (acc.size() > 8) acc.erase(acc.begin());
  }

  ChoiceSource& c_;
  const Knobs& k_;
  Tags features_;
  std::vector<std::vector<Access>> accesses_;  // per buffer, oldest first

 private:
  int fresh_ = 0;
};

}  // namespace stackcheck::gen
