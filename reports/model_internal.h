// Pieces shared by the document builders (model.cpp, model_results.cpp, model_mutate.cpp,
// model_coverage.cpp); not a public header.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "reports/document.h"
#include "reports/run_data.h"

namespace stackcheck::report::detail {

inline Cell cell(std::string s, std::string tone = "") { return Cell{{text(std::move(s))}, std::move(tone)}; }
inline Cell code_cell(const std::string& s) {
  if (s.empty() || s == "-") return cell("-");
  return Cell{{code(s)}, ""};
}

// A table column: its header, and whether it holds figures (right-aligned). A plain header
// is a text column; numeric("count") a figure column.
struct Column {
  Column(const char* h) : header(h) {}  // NOLINT: implicit, so that table({"a", numeric("b")}) reads
  explicit Column(std::string h) : header(std::move(h)) {}
  std::string header;
  bool numeric = false;
};
inline Column numeric(const char* header) {
  Column c(header);
  c.numeric = true;
  return c;
}

// A table with these columns and no rows yet.
inline TableBlock table(std::vector<Column> columns, std::string caption = "") {
  TableBlock t;
  t.caption = std::move(caption);
  for (auto& c : columns) {
    t.headers.push_back(std::move(c.header));
    t.numeric.push_back(c.numeric);
  }
  return t;
}

inline void add_row(TableBlock& t, std::vector<Cell> row, std::string tone = "") {
  t.rows.push_back(std::move(row));
  t.row_tone.push_back(std::move(tone));
}

// Sections about results (model_results.cpp); each appends nothing when its file is absent.
void add_classes(const RunData& data, std::vector<Section>& out);
void add_properties(const RunData& data, std::vector<Section>& out);
void add_coverage(const RunData& data, std::vector<Section>& out);
void add_zoo(const RunData& data, std::vector<Section>& out);
// The mutation analysis (model_mutate.cpp): score per folder and file, survivors, the rest.
void add_mutate(const RunData& data, std::vector<Section>& out);
// Harness-alone reach (model_coverage.cpp): reach.tsv per folder and file, functions.tsv's gaps.
void add_reach(const RunData& data, std::vector<Section>& out);

double median(std::vector<double> v);

}  // namespace stackcheck::report::detail
