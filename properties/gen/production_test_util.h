// The production tables of the generators' unit tests (limits.h): inputs drawn from choice
// seeds as the properties draw them, their productions counted, the table printed, and the
// check's positive control on the same counts. Only these tests print.
#pragma once

#include <gtest/gtest.h>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdint>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "properties/gen/choice.h"
#include "properties/gen/productions.h"

namespace stackcheck::gen {

inline constexpr uint64_t kLimitsSeed = 20261203;

// Productions over `n` inputs, the i-th read by `productions_of(choices, i)` from the choices of
// seed kLimitsSeed + i (a set of names, or nothing for an input the properties would skip).
template <class Productions>
std::map<std::string, int> count_productions(int n, Productions productions_of) {
  std::map<std::string, int> counts;
  for (int i = 0; i < n; ++i) {
    SeededChoices c(kLimitsSeed + static_cast<uint64_t>(i));
    for (const std::string& p : productions_of(c, i)) ++counts[p];
  }
  return counts;
}

// Prints the table of `n` inputs and requires no production problem.
inline void expect_every_production(const char* what, int n, const std::vector<Production>& universe,
                                    const std::map<std::string, int>& counts) {
  std::cout << fmt::format("seed {}, {} {} (choice seeds {}..{})\n", kLimitsSeed, n, what, kLimitsSeed,
                           kLimitsSeed + static_cast<uint64_t>(n) - 1)
            << production_table(universe, counts, n);
  const std::vector<std::string> problems = production_problems(universe, counts);
  EXPECT_TRUE(problems.empty()) << fmt::format("{}", fmt::join(problems, "\n"));
}

// The positive control: over counts read from real inputs, a production nobody makes added to
// the universe is reported as never used, and a production the inputs use, listed as a known
// gap, is reported as used.
inline void expect_control_reports(std::vector<Production> universe, const std::map<std::string, int>& counts) {
  universe.push_back({"control:made-by-no-input", "", ""});
  auto used = std::find_if(universe.begin(), universe.end(), [&](const Production& p) {
    return p.unreachable.empty() && p.gap.empty() && counts.count(p.name) > 0;
  });
  ASSERT_NE(used, universe.end()) << "no input uses any production";
  used->gap = "listed as a gap by the control";
  const std::string gap = used->name;
  const std::vector<std::string> problems = production_problems(universe, counts);
  auto has = [&](const std::string& s) { return std::find(problems.begin(), problems.end(), s) != problems.end(); };
  EXPECT_TRUE(has("never used: control:made-by-no-input")) << fmt::format("{}", fmt::join(problems, "\n"));
  EXPECT_TRUE(has("used, take it off the known gaps: " + gap)) << fmt::format("{}", fmt::join(problems, "\n"));
}

}  // namespace stackcheck::gen
