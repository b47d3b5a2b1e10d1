// The loaders' shared machinery (load.cpp, load_coverage.cpp); not a public header: reading an
// optional table, binding its columns by name, and filling records column by column.
#pragma once

#include <filesystem>
#include <optional>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

#include "reports/run_data.h"
#include "reports/tsv.h"

namespace stackcheck::report::loader {
namespace fs = std::filesystem;

using MaybeError = std::optional<Error>;

// An optional file: nullopt when absent, else its table or the error reading it.
std::optional<Result<Table>> load_table(const fs::path& path);

// Runs `each(reader, row)` over the rows of an optional table (nothing when it is absent or
// empty); `present` says whether the file exists. Stops at the first error.
template <class Each>
std::optional<Error> for_rows(const fs::path& path, std::vector<std::string_view> required,
                              std::vector<std::string_view> optional, bool* present, Each each) {
  auto loaded = load_table(path);
  if (present) *present = loaded.has_value();
  if (!loaded) return std::nullopt;
  if (auto* e = std::get_if<Error>(&*loaded)) return *e;
  const Table& table = std::get<Table>(*loaded);
  if (table.columns.empty()) return std::nullopt;  // an empty file: nothing recorded yet
  auto bound = Reader::bind(table, std::move(required), std::move(optional));
  if (auto* e = std::get_if<Error>(&bound)) return *e;
  Reader& r = std::get<Reader>(bound);
  for (const Row& row : table.rows) {
    if (auto e = each(r, row)) return e;
    if (r.error()) return r.error();
  }
  return std::nullopt;
}

// One column of a record type: its name in the header and the member it fills, read as text,
// a number, an optional number ("" or "-" for none) or yes/no. An optional column may be
// absent from the header; the member then keeps its default.
template <class T>
struct Column {
  using Member = std::variant<std::string T::*, double T::*, std::optional<double> T::*, bool T::*>;
  std::string_view name;
  Member member;
  bool optional = false;
};

template <class T, class V>
Column<T> col(std::string_view name, V T::*member) {
  return {name, member};
}
template <class T, class V>
Column<T> optional_col(std::string_view name, V T::*member) {
  return {name, member, true};
}

template <class T>
void read_field(Reader& r, const Row& row, const Column<T>& c, T& out) {
  std::visit(
      [&](auto member) {
        using V = std::remove_reference_t<decltype(out.*member)>;
        if constexpr (std::is_same_v<V, std::string>) {
          out.*member = r.text(row, c.name);
        } else if constexpr (std::is_same_v<V, double>) {
          out.*member = r.number(row, c.name);
        } else if constexpr (std::is_same_v<V, std::optional<double>>) {
          out.*member = r.optional_number(row, c.name);
        } else {
          out.*member = r.yes_no(row, c.name);
        }
      },
      c.member);
}

// Reads the records of an optional table into `out`, column by column in the order given
// (which is also the order required columns are looked for). `check(record, reader, row)`
// may refuse a record whose fields all parsed.
template <class T, class Check>
MaybeError load_records(const fs::path& path, const std::vector<Column<T>>& columns, bool* present, std::vector<T>& out,
                        Check check) {
  std::vector<std::string_view> required, optional;
  for (const auto& c : columns) (c.optional ? optional : required).push_back(c.name);
  return for_rows(path, std::move(required), std::move(optional), present,
                  [&](Reader& r, const Row& row) -> MaybeError {
                    T record;
                    for (const auto& c : columns) read_field(r, row, c, record);
                    if (r.error()) return std::nullopt;  // for_rows reports it
                    if (MaybeError e = check(record, r, row)) return e;
                    out.push_back(std::move(record));
                    return std::nullopt;
                  });
}

template <class T>
MaybeError load_records(const fs::path& path, const std::vector<Column<T>>& columns, bool* present,
                        std::vector<T>& out) {
  return load_records(path, columns, present, out,
                      [](const T&, const Reader&, const Row&) -> MaybeError { return std::nullopt; });
}

// The reach files of scripts/coverage (load_coverage.cpp): reach.tsv and functions.tsv.
MaybeError load_reach(const fs::path& dir, RunData& data);
MaybeError load_functions(const fs::path& dir, RunData& data);

}  // namespace stackcheck::report::loader
