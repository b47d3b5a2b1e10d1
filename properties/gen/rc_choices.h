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
  // Uniform over the range whatever the run's size (a plain inRange scales the range with the
  // size, which would make the later options of every one_of rare); shrinks toward lo.
  int64_t integer(int64_t lo, int64_t hi) override { return draw(lo, hi, true); }
  // Sizes grow with RapidCheck's size: small programs first.
  int64_t sized(int64_t lo, int64_t hi) override { return draw(lo, hi, false); }

 private:
  static int64_t draw(int64_t lo, int64_t hi, bool uniform) {
    if (lo == hi) return lo;
    auto in_range = [uniform](int64_t a, int64_t b) {
      return uniform ? *rc::gen::resize(rc::kNominalSize, rc::gen::inRange<int64_t>(a, b))
                     : *rc::gen::inRange<int64_t>(a, b);
    };
    if (hi == std::numeric_limits<int64_t>::max()) {
      // inRange's bound is exclusive: take [lo, hi - 1] and let one bit reach hi.
      const int64_t v = in_range(lo, hi);
      return v == hi - 1 && *rc::gen::arbitrary<bool>() ? hi : v;
    }
    return in_range(lo, hi + 1);
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
