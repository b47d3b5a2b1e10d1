// Pieces shared by the document builders (model.cpp, model_results.cpp); not a public header.
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

// A table with these (header, numeric) columns and no rows yet.
inline TableBlock table(std::vector<std::pair<std::string, bool>> columns, std::string caption = "") {
  TableBlock t;
  t.caption = std::move(caption);
  for (auto& [h, n] : columns) {
    t.headers.push_back(std::move(h));
    t.numeric.push_back(n);
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

double median(std::vector<double> v);

}  // namespace stackcheck::report::detail
