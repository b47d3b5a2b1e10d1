// Integer literals around the i64 edges, for the two parsers' literal properties (GirLimits,
// PlanLimits): a drawn literal and the value COMPILER.md §1 gives it (INT <= 2^63 - 1; `-` INT
// is one negative literal, so 2^63 only right after the minus).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "properties/gen/choice.h"

namespace stackcheck::gen {

struct EdgeLiteral {
  bool minus = false;
  std::string digits;
};

// One of `edges`, or (3 times in 10) 18 to 18 + extra digits at random; a minus 4 times in 10.
inline EdgeLiteral draw_edge_literal(ChoiceSource& c, std::span<const char* const> edges, int extra) {
  EdgeLiteral l;
  l.digits = edges[c.one_of(edges.size())];
  if (c.chance(30)) {
    l.digits = std::to_string(1 + c.integer(0, 8));
    for (int i = 0, n = static_cast<int>(17 + c.integer(0, extra)); i < n; ++i)
      l.digits += static_cast<char>('0' + c.integer(0, 9));
  }
  l.minus = c.chance(40);
  return l;
}

// The literal's value, or nullopt past the i64 range (`admit_2_63`: a flawed model's reading,
// which lets 2^63 through without a minus).
inline std::optional<int64_t> edge_literal_value(const EdgeLiteral& l, bool admit_2_63 = false) {
  unsigned __int128 v = 0;
  for (char d : l.digits) {
    v = v * 10 + static_cast<unsigned>(d - '0');
    if (v > (static_cast<unsigned __int128>(1) << 63) - (l.minus || admit_2_63 ? 0 : 1)) return std::nullopt;
  }
  return l.minus ? static_cast<int64_t>(0 - static_cast<uint64_t>(v)) : static_cast<int64_t>(v);
}

}  // namespace stackcheck::gen
