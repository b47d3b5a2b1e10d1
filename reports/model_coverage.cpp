// Building the reach sections (scripts/coverage's reach.tsv and functions.tsv): what of stack/
// the harness alone reaches (property-based tests and corpus replay), what only the unit tests
// reach (the harness's blind spots) and what neither does, per folder with a bar chart and per
// file; then the functions behind the gaps: whole functions only the unit tests enter, lines
// only they reach inside functions the harness enters, and functions no test enters.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <tuple>

#include "reports/model_internal.h"
#include "reports/svg.h"
#include "reports/text.h"

namespace stackcheck::report::detail {
namespace {

// The project's targets for the harness alone; a harness share below one is highlighted.
constexpr double kLineTarget = 96;    // percent of the lines of stack/
constexpr double kBranchTarget = 88;  // percent of the branches of stack/

constexpr const char* kHarnessColour = "#0072B2";
constexpr const char* kUnitOnlyColour = "#E69F00";

std::string plural(double n, const char* one, const char* many) {
  return fmt::format("{} {}", count(n), n == 1 ? one : many);
}

// Whether the harness's `part` of `whole` falls short of `target` (percent).
bool short_of(double part, double whole, double target) { return whole > 0 && 100 * part / whole < target; }

// The harness's share of `whole`, highlighted when below `target`.
Cell harness_cell(double part, double whole, double target) {
  return cell(percent(part, whole), short_of(part, whole, target) ? "warn" : "");
}

std::vector<Cell> reach_cells(const std::string& name, const ReachRow& r) {
  return {cell(name),
          cell(count(r.lines)),
          harness_cell(r.harness, r.lines, kLineTarget),
          cell(percent(r.unit, r.lines)),
          cell(count(r.unit_only())),
          cell(count(r.neither())),
          cell(count(r.branches)),
          harness_cell(r.b_harness, r.branches, kBranchTarget),
          cell(percent(r.b_unit, r.branches)),
          cell(count(r.b_unit_only())),
          cell(count(r.b_neither()))};
}

// The rows of one scope, by name.
std::vector<const ReachRow*> rows_of(const RunData& data, const std::string& scope) {
  std::vector<const ReachRow*> out;
  for (const auto& r : data.reach)
    if (r.scope == scope) out.push_back(&r);
  std::stable_sort(out.begin(), out.end(), [](auto* a, auto* b) { return a->name < b->name; });
  return out;
}

// reach.tsv's total row; without one, the sum of the folders (or of the files).
ReachRow total_of(const RunData& data) {
  for (const auto& r : data.reach)
    if (r.scope == "total") return r;
  auto parts = rows_of(data, "folder");
  if (parts.empty()) parts = rows_of(data, "file");
  ReachRow t{"total", "stack/"};
  for (const auto* r : parts) {
    t.lines += r->lines, t.harness += r->harness, t.unit += r->unit, t.either += r->either;
    t.branches += r->branches, t.b_harness += r->b_harness, t.b_unit += r->b_unit, t.b_either += r->b_either;
  }
  return t;
}

TableBlock reach_table(const std::vector<const ReachRow*>& rows, const char* what, const ReachRow& total) {
  auto t = table({Column(what), numeric("lines"), numeric("harness"), numeric("unit"), numeric("only unit"),
                  numeric("neither"), numeric("branches"), numeric("harness"), numeric("unit"), numeric("only unit"),
                  numeric("neither")});
  for (const auto* r : rows) add_row(t, reach_cells(r->name, *r));
  add_row(t, reach_cells("total", total));
  t.last_is_total = true;
  return t;
}

// Per folder: the harness's share of the lines, then the unit tests' own share, stacked.
std::string reach_chart(const std::vector<const ReachRow*>& folders) {
  BarChart chart;
  chart.title = "Lines reached per folder";
  chart.x_max = 100;
  chart.tick_suffix = "%";
  chart.x_label = "share of the folder's instrumented lines";
  chart.legend = {{"harness", kHarnessColour, ""}, {"only the unit tests", kUnitOnlyColour, ""}};
  for (const auto* r : folders) {
    Bar bar;
    if (r->lines > 0) {
      bar.segments.push_back(
          {100 * r->harness / r->lines, kHarnessColour,
           fmt::format("{}: {} of {} lines reached by the harness", r->name, count(r->harness), count(r->lines)), ""});
      bar.segments.push_back(
          {100 * r->unit_only() / r->lines, kUnitOnlyColour,
           fmt::format("{}: {} only the unit tests reach", r->name, plural(r->unit_only(), "line", "lines")), ""});
      bar.end_label = fmt::format("{} + {}", percent(r->harness, r->lines), percent(r->unit_only(), r->lines));
    } else {
      bar.end_label = "no instrumented line";
    }
    chart.rows.push_back({r->name, {std::move(bar)}});
  }
  return bar_chart_svg(chart);
}

Section reach_section(const RunData& data) {
  Section s{"reach", "Harness-alone reach of stack/", {}};
  if (data.reach.empty()) {
    s.blocks.push_back(Paragraph{{text("reach.tsv lists no line.")}, ""});
    return s;
  }
  const ReachRow total = total_of(data);
  const bool below =
      short_of(total.harness, total.lines, kLineTarget) || short_of(total.b_harness, total.branches, kBranchTarget);
  s.blocks.push_back(Paragraph{
      {text("The harness alone reaches "), strong(percent(total.harness, total.lines)), text(" of the lines and "),
       strong(percent(total.b_harness, total.branches)),
       text(fmt::format(" of the branches of stack/ (the unit tests alone: {} and {}; together: {} and {}). ",
                        percent(total.unit, total.lines), percent(total.b_unit, total.branches),
                        percent(total.either, total.lines), percent(total.b_either, total.branches))),
       text(fmt::format("Only the unit tests reach {} and {}: the harness's blind spots; neither reaches {} and {}.",
                        plural(total.unit_only(), "line", "lines"), plural(total.b_unit_only(), "branch", "branches"),
                        plural(total.neither(), "line", "lines"), plural(total.b_neither(), "branch", "branches")))},
      below ? "warn" : "good"});
  s.blocks.push_back(Paragraph{
      {text(fmt::format("The harness: the property-based tests and the corpus replay, positive controls left out. "
                        "A branch is one outcome of a condition the compiler left to run time: folded conditions "
                        "(an if constexpr, a constexpr call) are left out, as llvm-cov's own summaries leave them "
                        "out, and so is the zoo's code in stack/ (the statement of an if on defects::active(), "
                        "run only when a defect of stack/defects is switched on); a closing brace after a return that ran "
                        "is no line (llvm-cov 14 gives it a region no input can reach). Its targets: {}% of the lines and {}% of the branches (a share below one is "
                        "highlighted in index.html).",
                        kLineTarget, kBranchTarget))},
      ""});
  const auto folders = rows_of(data, "folder"), files = rows_of(data, "file");
  if (!folders.empty()) {
    std::vector<std::string> below_target;  // "stack/x (lines 94.5%, branches 86.7%)"
    for (const auto* r : folders) {
      std::vector<std::string> what;
      if (short_of(r->harness, r->lines, kLineTarget)) what.push_back("lines " + percent(r->harness, r->lines));
      if (short_of(r->b_harness, r->branches, kBranchTarget))
        what.push_back("branches " + percent(r->b_harness, r->branches));
      if (!what.empty()) below_target.push_back(fmt::format("{} ({})", r->name, fmt::join(what, ", ")));
    }
    if (below_target.empty())
      s.blocks.push_back(Paragraph{{text("Every folder meets both targets. Per folder:")}, ""});
    else
      s.blocks.push_back(
          Paragraph{{text(fmt::format("Below a target: {}. Per folder:", fmt::join(below_target, "; ")))}, "warn"});
    s.blocks.push_back(reach_table(folders, "folder", total));
    s.blocks.push_back(
        ChartGrid{{{reach_chart(folders), ""}}, "The bar chart of the lines reached per folder is in index.html."});
  }
  if (!files.empty()) {
    s.blocks.push_back(Paragraph{{text("Per file:")}, ""});
    s.blocks.push_back(reach_table(files, "file", total));
  }
  return s;
}

std::string line_range(const FunctionReach& f) {
  return f.first_line == f.last_line ? fmt::format("{}", f.first_line)
                                     : fmt::format("{}–{}", f.first_line, f.last_line);
}

Cell reason_cell(const FunctionReach& f) { return cell(f.reason.empty() ? "-" : f.reason); }

// One section of functions.tsv's rows that `pick` takes, by file and first line: a count line,
// then the table (or one line saying there is none).
template <class Pick, class Summary, class RowOf>
Section functions_section(const RunData& data, std::string id, std::string title, Pick pick, Summary summary,
                          std::vector<Column> columns, RowOf row_of, const char* none) {
  std::vector<const FunctionReach*> picked;
  for (const auto& f : data.functions)
    if ((f.unit_only > 0 || f.neither > 0) && pick(f)) picked.push_back(&f);
  std::stable_sort(picked.begin(), picked.end(), [](auto* a, auto* b) {
    return std::tie(a->file, a->first_line) < std::tie(b->file, b->first_line);
  });
  Section s{std::move(id), std::move(title), {}};
  if (picked.empty()) {
    s.blocks.push_back(Paragraph{{text(none)}, "good"});
    return s;
  }
  double unit_only = 0, neither = 0, reasoned = 0;
  for (const auto* f : picked) unit_only += f->unit_only, neither += f->neither, reasoned += !f->reason.empty();
  Inlines line = summary(static_cast<double>(picked.size()), unit_only, neither);
  if (reasoned > 0)
    line.push_back(text(fmt::format(" {} {} a reviewed reason.", count(reasoned), reasoned == 1 ? "has" : "have")));
  s.blocks.push_back(Paragraph{std::move(line), ""});
  auto t = table(std::move(columns));
  for (const auto* f : picked) add_row(t, row_of(*f));
  s.blocks.push_back(std::move(t));
  return s;
}

}  // namespace

void add_reach(const RunData& data, std::vector<Section>& out) {
  if (data.has_reach) out.push_back(reach_section(data));
  if (!data.has_functions) return;
  out.push_back(functions_section(
      data, "reach-unit-only", "Functions only the unit tests reach",
      [](const FunctionReach& f) { return f.unit_only_function(); },
      [](double n, double unit_only, double) -> Inlines {
        return {strong(fmt::format("{}, {}", plural(n, "function", "functions"), plural(unit_only, "line", "lines"))),
                text(": whole functions the harness never enters and the unit tests do, a gap of the generators.")};
      },
      {"file", "function", numeric("lines"), "unit-only lines", "reason"},
      [](const FunctionReach& f) -> std::vector<Cell> {
        return {cell(f.file), code_cell(f.function), cell(line_range(f)), code_cell(f.unit_only_lines), reason_cell(f)};
      },
      "No function is reached only by the unit tests."));
  out.push_back(functions_section(
      data, "reach-partial", "Lines only the unit tests reach, in functions the harness reaches",
      [](const FunctionReach& f) { return f.harness_partial(); },
      [](double n, double unit_only, double neither) -> Inlines {
        std::string rest = neither > 0 ? fmt::format(", and {} there neither reaches", plural(neither, "line", "lines"))
                                       : std::string();
        return {strong(fmt::format("{}, {}", plural(n, "function", "functions"), plural(unit_only, "line", "lines"))),
                text(": lines only the unit tests reach inside functions the harness enters" + rest + ".")};
      },
      {"file", "function", "unit-only lines", "neither lines", "reason"},
      [](const FunctionReach& f) -> std::vector<Cell> {
        return {cell(f.file), code_cell(f.function), code_cell(f.unit_only_lines), code_cell(f.neither_lines),
                reason_cell(f)};
      },
      "The harness reaches every line of the functions it enters."));
  out.push_back(functions_section(
      data, "reach-neither", "Reached by neither", [](const FunctionReach& f) { return f.unreached(); },
      [](double n, double, double neither) -> Inlines {
        return {strong(fmt::format("{}, {}", plural(n, "function", "functions"), plural(neither, "line", "lines"))),
                text(": functions no test enters.")};
      },
      {"file", "function", numeric("lines"), "neither lines", "reason"},
      [](const FunctionReach& f) -> std::vector<Cell> {
        return {cell(f.file), code_cell(f.function), cell(line_range(f)), code_cell(f.neither_lines), reason_cell(f)};
      },
      "Every function of stack/ is entered by the harness or by the unit tests."));
}

}  // namespace stackcheck::report::detail
