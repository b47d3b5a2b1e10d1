// Expected<T, E>: a value or a typed error (C++20 has no std::expected). Used by the runtime's
// fallible operations (compaction, attach) so bad input is a value, never an exception or
// a crash. Invariant: holds exactly one of T or E; accessing the wrong one is a STACK_CHECK.
#pragma once

#include <utility>
#include <variant>

#include "stack/support/check.h"

namespace stackcheck::runtime {

// Wraps an error so Expected<T, E> can be built from it even when T and E convert.
template <class E>
struct Unexpected {
  E error;
};
template <class E>
Unexpected<E> unexpected(E e) {
  return Unexpected<E>{std::move(e)};
}

template <class T, class E>
class Expected {
 public:
  Expected(T value) : v_(std::in_place_index<0>, std::move(value)) {}            // NOLINT: implicit
  Expected(Unexpected<E> e) : v_(std::in_place_index<1>, std::move(e.error)) {}  // NOLINT

  bool has_value() const { return v_.index() == 0; }
  explicit operator bool() const { return has_value(); }

  T& value() {
    STACK_CHECK(has_value(), "Expected::value() on an error");
    return std::get<0>(v_);
  }
  const T& value() const {
    STACK_CHECK(has_value(), "Expected::value() on an error");
    return std::get<0>(v_);
  }
  T& operator*() { return value(); }
  const T& operator*() const { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  const E& error() const {
    STACK_CHECK(!has_value(), "Expected::error() on a value");
    return std::get<1>(v_);
  }

 private:
  std::variant<T, E> v_;
};

}  // namespace stackcheck::runtime
