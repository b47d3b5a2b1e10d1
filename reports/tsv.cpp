#include "reports/tsv.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>

namespace stackcheck::report {

std::string Error::to_string() const {
  if (line == 0) return fmt::format("{}: {}", file, message);
  return fmt::format("{}:{}: {}", file, line, message);
}

std::optional<size_t> Table::column(std::string_view name) const {
  for (size_t i = 0; i < columns.size(); ++i)
    if (columns[i] == name) return i;
  return std::nullopt;
}

namespace {

std::vector<std::string> split_tabs(std::string_view line) {
  std::vector<std::string> fields;
  size_t start = 0;
  for (;;) {
    size_t tab = line.find('\t', start);
    if (tab == std::string_view::npos) {
      fields.emplace_back(line.substr(start));
      return fields;
    }
    fields.emplace_back(line.substr(start, tab - start));
    start = tab + 1;
  }
}

}  // namespace

std::string quote_field(std::string_view field) {
  constexpr size_t kMax = 40;
  std::string out = "'";
  size_t n = 0;
  for (char c : field) {
    if (n++ == kMax) {
      out += "...";
      break;
    }
    auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f)
      out += fmt::format("\\x{:02x}", u);
    else
      out += c;
  }
  return out + "'";
}

Result<Table> parse_tsv(std::string_view text, std::string file) {
  Table table;
  table.file = std::move(file);
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
  size_t line_no = 0;
  bool have_header = false;
  while (!text.empty()) {
    size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    ++line_no;
    if (line.ends_with('\r')) line.remove_suffix(1);
    if (line.empty()) continue;
    if (line.find('\0') != std::string_view::npos) return Error{table.file, line_no, "a NUL byte: not a text file"};
    auto fields = split_tabs(line);
    if (!have_header) {
      std::set<std::string_view> seen;
      for (const auto& name : fields) {
        if (name.empty()) return Error{table.file, line_no, "the header has an empty column name"};
        if (!seen.insert(name).second)
          return Error{table.file, line_no, fmt::format("the header names column '{}' twice", name)};
      }
      table.columns = std::move(fields);
      have_header = true;
      continue;
    }
    if (fields.size() != table.columns.size())
      return Error{table.file, line_no,
                   fmt::format("expected {} tab-separated fields as in the header, found {}", table.columns.size(),
                               fields.size())};
    table.rows.push_back(Row{line_no, std::move(fields)});
  }
  return table;
}

Result<std::string> read_file(const std::string& path, size_t max_bytes) {
  std::error_code ec;
  auto status = std::filesystem::status(path, ec);
  if (ec) return Error{path, 0, fmt::format("cannot read: {}", ec.message())};
  if (!std::filesystem::is_regular_file(status)) return Error{path, 0, "cannot read: not a regular file"};
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{path, 0, fmt::format("cannot read: {}", std::strerror(errno))};
  std::string text;
  char buf[1 << 16];
  while (in) {
    in.read(buf, sizeof buf);
    text.append(buf, static_cast<size_t>(in.gcount()));
    if (text.size() > max_bytes) return Error{path, 0, fmt::format("larger than {} bytes", max_bytes)};
  }
  if (in.bad()) return Error{path, 0, "cannot read: I/O error"};
  return text;
}

Result<double> parse_number(std::string_view field) {
  auto bad = [&] { return Error{"", 0, fmt::format("expected a non-negative number, found {}", quote_field(field))}; };
  if (field.empty()) return bad();
  // from_chars takes "inf" and "nan" and no leading '+'; only plain decimals are numbers here.
  for (char c : field)
    if (!std::strchr("0123456789.eE+-", c)) return bad();
  double value = 0;
  auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), value);
  if (ec != std::errc{} || end != field.data() + field.size() || !std::isfinite(value) || value < 0) return bad();
  return value == 0 ? 0.0 : value;  // no "-0" in a report
}

Result<std::optional<double>> parse_optional_number(std::string_view field) {
  if (field.empty() || field == "-") return std::optional<double>{};
  auto r = parse_number(field);
  if (std::holds_alternative<Error>(r))
    return Error{"", 0, fmt::format("expected a non-negative number or '-', found {}", quote_field(field))};
  return std::optional<double>{std::get<double>(r)};
}

Result<Reader> Reader::bind(const Table& table, std::vector<std::string_view> required,
                            std::vector<std::string_view> optional) {
  Reader reader;
  reader.table_ = &table;
  for (auto name : required) {
    auto index = table.column(name);
    if (!index) {
      if (table.columns.empty()) return Error{table.file, 0, "empty file: no header row"};
      return Error{table.file, 1, fmt::format("the header lacks the column '{}'", name)};
    }
    reader.index_.emplace_back(std::string(name), index);
  }
  for (auto name : optional) reader.index_.emplace_back(std::string(name), table.column(name));
  return reader;
}

std::optional<size_t> Reader::find(std::string_view name) const {
  for (const auto& [n, i] : index_)
    if (n == name) return i;
  return std::nullopt;  // a name the caller never bound reads as absent
}

bool Reader::has(std::string_view name) const { return find(name).has_value(); }

std::string Reader::text(const Row& row, std::string_view name) const {
  auto i = find(name);
  return i ? row.fields[*i] : std::string();
}

void Reader::fail(const Row& row, std::string_view name, std::string message) {
  if (!error_) error_ = Error{table_->file, row.line, fmt::format("column {}: {}", name, message)};
}

double Reader::number(const Row& row, std::string_view name) {
  auto i = find(name);
  if (!i) return 0;
  auto r = parse_number(row.fields[*i]);
  if (auto* e = std::get_if<Error>(&r)) {
    fail(row, name, e->message);
    return 0;
  }
  return std::get<double>(r);
}

std::optional<double> Reader::optional_number(const Row& row, std::string_view name) {
  auto i = find(name);
  if (!i) return std::nullopt;
  auto r = parse_optional_number(row.fields[*i]);
  if (auto* e = std::get_if<Error>(&r)) {
    fail(row, name, e->message);
    return std::nullopt;
  }
  return std::get<std::optional<double>>(r);
}

bool Reader::yes_no(const Row& row, std::string_view name) {
  auto i = find(name);
  if (!i) return false;
  const std::string& f = row.fields[*i];
  if (f == "yes" || f == "y" || f == "true" || f == "1") return true;
  if (f == "no" || f == "n" || f == "false" || f == "0") return false;
  fail(row, name, fmt::format("expected yes or no, found {}", quote_field(f)));
  return false;
}

}  // namespace stackcheck::report
