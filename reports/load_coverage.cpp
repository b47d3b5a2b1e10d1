// Reading the files of scripts/coverage: reach.tsv (what the harness and the unit tests reach,
// per total, folder and file) and functions.tsv (the functions with lines the harness misses),
// each row checked against itself so that the report's derived figures are never negative.
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <tuple>
#include <utility>

#include "reports/load_internal.h"

namespace stackcheck::report::loader {
namespace {

// The lines of a compact list ("12-15 20 31-33", "-" or "" for none), ascending and apart,
// each within [first, last]; nullopt when the list is not one.
std::optional<double> count_lines(std::string_view list, double first, double last) {
  if (list.empty() || list == "-") return 0;
  double n = 0, prev = 0;
  for (size_t i = 0; i <= list.size();) {
    size_t j = std::min(list.find(' ', i), list.size());
    std::string_view item = list.substr(i, j - i);
    size_t dash = item.find('-');
    auto number = [](std::string_view digits) -> std::optional<double> {
      unsigned long v = 0;
      auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
      if (digits.empty() || ec != std::errc() || end != digits.data() + digits.size() || v == 0) return std::nullopt;
      return static_cast<double>(v);
    };
    auto lo = number(item.substr(0, dash));
    auto hi = dash == std::string_view::npos ? lo : number(item.substr(dash + 1));
    if (!lo || !hi || *lo > *hi || *lo <= prev || *lo < first || *hi > last) return std::nullopt;
    n += *hi - *lo + 1;
    prev = *hi;
    i = j + 1;
  }
  return n;
}

}  // namespace

// reach.tsv: each side's count within the union, the union within the total and within the
// two sides together, for lines and for branches alike.
MaybeError load_reach(const fs::path& dir, RunData& data) {
  using R = ReachRow;
  const fs::path path = dir / "reach.tsv";
  bool total = false;
  return load_records<R>(
      path,
      {col("scope", &R::scope), col("name", &R::name), col("lines", &R::lines), col("harness", &R::harness),
       col("unit", &R::unit), col("union", &R::either), col("branches", &R::branches), col("b_harness", &R::b_harness),
       col("b_unit", &R::b_unit), col("b_union", &R::b_either)},
      &data.has_reach, data.reach, [&](const R& x, const Reader& r, const Row& row) -> MaybeError {
        if (x.scope != "total" && x.scope != "folder" && x.scope != "file")
          return Error{path.string(), row.line,
                       fmt::format("column scope: expected total, folder or file, found {}", quote_field(x.scope))};
        if (x.scope == "total" && std::exchange(total, true))
          return Error{path.string(), row.line, "a second total row"};
        // (column, its value, the bound, what the bound is): the first broken one is the error.
        const std::tuple<const char*, double, double, const char*> checks[] = {
            {"harness", x.harness, x.either, "union"},
            {"unit", x.unit, x.either, "union"},
            {"union", x.either, x.lines, "lines"},
            {"union", x.either, x.harness + x.unit, "harness + unit"},
            {"b_harness", x.b_harness, x.b_either, "b_union"},
            {"b_unit", x.b_unit, x.b_either, "b_union"},
            {"b_union", x.b_either, x.branches, "branches"},
            {"b_union", x.b_either, x.b_harness + x.b_unit, "b_harness + b_unit"},
        };
        for (const auto& [column, value, bound, what] : checks)
          if (value > bound)
            return Error{
                path.string(), row.line,
                fmt::format("{}: column {}: {} is above {} ({})", x.name, column, r.text(row, column), what, bound)};
        return std::nullopt;
      });
}

// functions.tsv: a function's range in order, each side's count within its lines, and the two
// lists of the lines the harness misses: well formed, inside the range, and as many as
// lines - harness (every instrumented line the harness misses is in exactly one of them).
MaybeError load_functions(const fs::path& dir, RunData& data) {
  using F = FunctionReach;
  const fs::path path = dir / "functions.tsv";
  return load_records<F>(
      path,
      {col("file", &F::file), col("function", &F::function), col("first_line", &F::first_line),
       col("last_line", &F::last_line), col("lines", &F::lines), col("harness", &F::harness), col("unit", &F::unit),
       col("unit_only_lines", &F::unit_only_lines), col("neither_lines", &F::neither_lines),
       optional_col("reason", &F::reason)},
      &data.has_functions, data.functions, [&](F& f, const Reader& r, const Row& row) -> MaybeError {
        auto fail = [&](std::string message) { return Error{path.string(), row.line, std::move(message)}; };
        if (f.last_line < f.first_line)
          return fail(fmt::format("column last_line: {} is before first_line ({})", r.text(row, "last_line"),
                                  r.text(row, "first_line")));
        if (f.harness > f.lines || f.unit > f.lines) {
          const char* column = f.harness > f.lines ? "harness" : "unit";
          return fail(fmt::format("column {}: {} is above lines ({})", column, r.text(row, column), f.lines));
        }
        for (auto [column, list, n] : {std::tuple{"unit_only_lines", &f.unit_only_lines, &f.unit_only},
                                       std::tuple{"neither_lines", &f.neither_lines, &f.neither}}) {
          auto lines = count_lines(*list, f.first_line, f.last_line);
          if (!lines)
            return fail(fmt::format(
                "column {}: expected ascending line numbers and ranges within {}-{} like '12-15 20', or '-', found {}",
                column, f.first_line, f.last_line, quote_field(*list)));
          *n = *lines;
        }
        if (f.unit_only + f.neither != f.lines - f.harness)
          return fail(fmt::format("{}: unit_only_lines and neither_lines list {} lines, lines - harness is {}",
                                  quote_field(f.function), f.unit_only + f.neither, f.lines - f.harness));
        if (f.unit_only > f.unit)
          return fail(
              fmt::format("column unit_only_lines: {} lines, more than unit ({})", f.unit_only, r.text(row, "unit")));
        if (f.reason == "-") f.reason.clear();
        return std::nullopt;
      });
}

}  // namespace stackcheck::report::loader
