// The RapidCheck engine of the choice source (choice.h): each choice is one
// rc::gen::inRange draw, so choices scale with RapidCheck's size (small cases first) and
// shrink toward lo with integrated shrinking. Valid only inside a generator run by RapidCheck
// (rc::gen::exec, a property body); `from_choices` turns any generator over a ChoiceSource
// into an rc::Gen.
#pragma once

#include <rapidcheck.h>

#include <functional>
#include <limits>

#include "properties/gen/choice.h"

namespace stackcheck::gen {

class RapidCheckChoices final : public ChoiceSource {
 public:
  int64_t integer(int64_t lo, int64_t hi) override {
    if (lo == hi) return lo;
    if (hi == std::numeric_limits<int64_t>::max()) {
      // inRange's bound is exclusive: take [lo, hi - 1] and let one bit reach hi.
      const int64_t v = *rc::gen::inRange<int64_t>(lo, hi);
      return v == hi - 1 && *rc::gen::arbitrary<bool>() ? hi : v;
    }
    return *rc::gen::inRange<int64_t>(lo, hi + 1);
  }
};

template <class T>
rc::Gen<T> from_choices(std::function<T(ChoiceSource&)> build) {
  return rc::gen::exec([build] {
    RapidCheckChoices choices;
    return build(choices);
  });
}

}  // namespace stackcheck::gen
