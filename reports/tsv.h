// Tab-separated tables as the campaign writes them: a header row naming the columns, then one
// row per line, fields split on every tab (no quoting, no escapes: a field never holds a tab
// or a newline). CRLF line ends, a UTF-8 BOM, a missing final newline and blank lines are
// accepted; a row with a different field count than the header is an error at its line.
// Columns are found by name, so a writer may add columns without breaking readers.
// Nothing here prints or exits: every problem comes back as an Error naming file and line.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace stackcheck::report {

struct Error {
  std::string file;
  size_t line = 0;  // 1-based; 0 when the problem is the file as a whole
  std::string message;
  std::string to_string() const;  // "file:line: message" or "file: message"
};

struct Row {
  size_t line = 0;  // where the row sits in its file (1-based)
  std::vector<std::string> fields;
};

struct Table {
  std::string file;  // the path diagnostics name
  std::vector<std::string> columns;
  std::vector<Row> rows;
  // The index of a column, if the header names it.
  std::optional<size_t> column(std::string_view name) const;
};

template <class T>
using Result = std::variant<T, Error>;

// An empty text (zero bytes) is a table with no columns and no rows.
Result<Table> parse_tsv(std::string_view text, std::string file);

// Reads a whole file (at most max_bytes) or says why it could not.
inline constexpr size_t kMaxFileBytes = size_t{64} << 20;
Result<std::string> read_file(const std::string& path, size_t max_bytes = kMaxFileBytes);

// The value of a numeric field: finite, non-negative, decimal or scientific notation.
// `optional` fields also take "" or "-" for "no value".
Result<double> parse_number(std::string_view field);
Result<std::optional<double>> parse_optional_number(std::string_view field);

// Binds column names to indices once per table, then reads typed fields of each row,
// remembering the first problem (with its line and column) instead of stopping the caller.
class Reader {
 public:
  // Fails naming the first required column the header lacks.
  static Result<Reader> bind(const Table& table, std::vector<std::string_view> required,
                             std::vector<std::string_view> optional = {});

  bool has(std::string_view name) const;
  std::string text(const Row& row, std::string_view name) const;  // "" for an absent optional column
  double number(const Row& row, std::string_view name);
  std::optional<double> optional_number(const Row& row, std::string_view name);
  bool yes_no(const Row& row, std::string_view name);  // yes/no, y/n, true/false, 1/0

  const std::optional<Error>& error() const { return error_; }

 private:
  const Table* table_ = nullptr;
  std::vector<std::pair<std::string, std::optional<size_t>>> index_;
  std::optional<Error> error_;

  std::optional<size_t> find(std::string_view name) const;
  void fail(const Row& row, std::string_view name, std::string message);
};

// A field quoted for a one-line diagnostic: control bytes escaped, long values cut.
std::string quote_field(std::string_view field);

}  // namespace stackcheck::report
