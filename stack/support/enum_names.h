// The printable names of an enum, kept in one table in enumerator order (a name function is
// then one lookup, not a switch that repeats the enum). names_through<Last>({...}) checks at
// compile time that the table has one name for each enumerator from 0 to Last, so an
// enumerator added at the end without its name does not build. A value outside the table
// (a corrupt byte cast to the enum) prints "?".
#pragma once

#include <array>
#include <cstddef>

namespace stackcheck::support {

template <auto Last, std::size_t N>
constexpr std::array<const char*, N> names_through(const char* const (&names)[N]) {
  static_assert(static_cast<std::size_t>(Last) + 1 == N, "one name per enumerator, in order");
  std::array<const char*, N> table{};
  for (std::size_t i = 0; i < N; ++i) table[i] = names[i];
  return table;
}

template <class E, std::size_t N>
constexpr const char* enum_name(const std::array<const char*, N>& table, E e) {
  const auto i = static_cast<std::size_t>(e);
  return i < N ? table[i] : "?";
}

}  // namespace stackcheck::support
