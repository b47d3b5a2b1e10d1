// Building the mutation-analysis sections (scripts/mutate's mutants.tsv): the score with its 95%
// interval, per stack/ folder, file and operator with bar charts, every survivor (and mutant no
// judging test reached) by file and function with its one-line diff, the tests that reached it
// and whether the unit tests kill it, the argued equivalents with their reasons, the timeouts,
// and which tests killed how many.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include "reports/model_internal.h"
#include "reports/svg.h"
#include "reports/text.h"

namespace stackcheck::report::detail {
namespace {

struct Tally {
  double killed = 0, timeout = 0, survived = 0, not_reached = 0, equivalent = 0, argued = 0, build_fail = 0, total = 0,
         schemata = 0;
  double scored() const { return killed + timeout + survived + not_reached; }
  void add(const MutantResult& m) {
    ++total;
    if (m.path == "schemata") ++schemata;
    if (!m.argued.empty())
      ++argued;
    else if (m.outcome == "KILLED")
      ++killed;
    else if (m.outcome == "TIMEOUT")
      ++timeout;
    else if (m.outcome == "SURVIVED")
      ++survived;
    else if (m.outcome == "NOT REACHED")
      ++not_reached;
    else if (m.outcome == "EQUIVALENT")
      ++equivalent;
    else
      ++build_fail;
  }
};

// The 95% Wilson score interval of k of n, as "a-b%".
std::string interval(double k, double n) {
  if (n <= 0) return "-";
  const double z = 1.96, p = k / n, d = 1 + z * z / n, c = (p + z * z / (2 * n)) / d;
  const double h = z * std::sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d;
  return fmt::format("{:.1f}-{:.1f}%", 100 * std::max(0.0, c - h), 100 * std::min(1.0, c + h));
}

std::vector<Cell> tally_cells(const std::string& name, const Tally& t) {
  return {cell(name),
          cell(count(t.total)),
          cell(count(t.killed)),
          cell(count(t.timeout)),
          cell(count(t.survived), t.survived > 0 ? "bad" : ""),
          cell(count(t.not_reached), t.not_reached > 0 ? "bad" : ""),
          cell(count(t.equivalent)),
          cell(count(t.argued)),
          cell(count(t.build_fail)),
          cell(percent(t.killed + t.timeout, t.scored())),
          cell(interval(t.killed + t.timeout, t.scored()))};
}

// One table and one bar chart of the score per group (folder or file), with a total row.
void score_blocks(const std::map<std::string, Tally>& groups, const std::string& what, const Tally& all,
                  std::vector<Block>& out) {
  auto t = table({Column(what), numeric("mutants"), numeric("killed"), numeric("timeout"), numeric("survived"),
                  numeric("not reached"), numeric("equivalent"), numeric("argued"), numeric("build fail"),
                  numeric("score"), numeric("95% interval")});
  BarChart chart;
  chart.title = fmt::format("Mutation score per {}", what);
  chart.x_max = 100;
  chart.tick_suffix = "%";
  chart.x_label = "killed share of the scored mutants (killed + timeout + survived + not reached)";
  chart.legend = {{"killed", "#0072B2", ""}, {"timeout", "#56B4E9", ""}};
  for (const auto& [name, g] : groups) {
    add_row(t, tally_cells(name, g));
    Bar bar;
    if (g.scored() > 0) {
      bar.segments.push_back({100 * g.killed / g.scored(), "#0072B2",
                              fmt::format("{}: {} killed of {}", name, count(g.killed), count(g.scored())), ""});
      if (g.timeout > 0)
        bar.segments.push_back(
            {100 * g.timeout / g.scored(), "#56B4E9", fmt::format("{}: {} timeouts", name, count(g.timeout)), ""});
      bar.end_label = fmt::format("{} ({} of {})", percent(g.killed + g.timeout, g.scored()),
                                  count(g.killed + g.timeout), count(g.scored()));
    } else {
      bar.end_label = "nothing scored";
    }
    chart.rows.push_back({name, {std::move(bar)}});
  }
  add_row(t, tally_cells("total", all));
  t.last_is_total = true;
  out.push_back(std::move(t));
  out.push_back(
      ChartGrid{{{bar_chart_svg(chart), ""}}, fmt::format("The score-per-{} bar chart is in index.html.", what)});
}

Cell unit_cell(const std::string& unit) {
  if (unit.empty() || unit == "-") return cell("not run (--with-unit)");
  if (unit == "no") return cell("nothing catches it", "bad");
  return Cell{{text("unit tests catch it: "), code(unit)}, "warn"};
}

Cell diff_cell(const MutantResult& m) { return Cell{{code(m.before), text(" → "), code(m.after)}, ""}; }

Cell reach_cell(const MutantResult& m) {
  if (m.outcome == "NOT REACHED") return cell("no judging test", "bad");
  if (m.reached_by.empty()) return cell(m.path == "schemata" ? "-" : "every test (one at a time)");
  std::vector<std::string> names;
  for (size_t at = 0; at < m.reached_by.size();) {
    size_t end = m.reached_by.find(' ', at);
    if (end == std::string::npos) end = m.reached_by.size();
    if (end > at) names.push_back(m.reached_by.substr(at, end - at));
    at = end + 1;
  }
  std::string shown;
  for (size_t i = 0; i < names.size() && i < 5; ++i) shown += (i ? ", " : "") + names[i];
  if (names.size() > 5) shown += fmt::format(" (+{} more)", names.size() - 5);
  return cell(shown);
}

// The score: killed of scored with its interval, what was left out of it and what the unit tests
// say of the survivors; then per folder, operator and file.
Section score_section(const RunData& data, const Tally& all, const std::map<std::string, Tally>& folders,
                      const std::map<std::string, Tally>& files, const std::map<std::string, Tally>& operators) {
  Section s{"mutation", "Mutation score", {}};
  size_t unit_kills = 0, unit_none = 0;
  for (const auto& m : data.mutants)
    if (m.scored() && m.outcome == "SURVIVED") {
      if (m.unit == "no")
        ++unit_none;
      else if (!m.unit.empty() && m.unit != "-")
        ++unit_kills;
    }
  Inlines line = {text("Mutation score "), strong(percent(all.killed + all.timeout, all.scored())),
                  text(fmt::format(" (95% interval {}): {} of {} scored mutants killed by the harness alone",
                                   interval(all.killed + all.timeout, all.scored()), count(all.killed + all.timeout),
                                   count(all.scored())))};
  if (all.not_reached > 0)
    line.push_back(
        text(fmt::format(" ({} not reached by any judging test, counted as missed)", count(all.not_reached))));
  if (all.timeout > 0) line.push_back(text(fmt::format(" ({} of them by a timeout)", count(all.timeout))));
  line.push_back(text(
      fmt::format(". Left out of the score: {} equivalent (same object code), {} argued equivalent, "
                  "{} build failure{}.",
                  count(all.equivalent), count(all.argued), count(all.build_fail), all.build_fail == 1 ? "" : "s")));
  if (all.schemata > 0)
    line.push_back(text(fmt::format(" Judged in the schemata build: {} of {}; one at a time: {}.", count(all.schemata),
                                    count(all.total), count(all.total - all.schemata))));
  if (all.survived > 0) {
    const double asked = static_cast<double>(unit_kills + unit_none);
    line.push_back(text(fmt::format(" {} survivor{}", count(all.survived), all.survived == 1 ? "" : "s")));
    if (asked > 0)
      line.push_back(text(
          fmt::format(": {} caught by a unit test (a generator gap), {} caught by nothing", unit_kills, unit_none)));
    if (asked < all.survived)
      line.push_back(text(fmt::format("{}{} not put to the unit tests (--with-unit)", asked > 0 ? ", " : ": ",
                                      count(all.survived - asked))));
    line.push_back(text("."));
  }
  if (data.mutants.empty()) line = {text("mutants.tsv lists no mutant.")};
  s.blocks.push_back(Paragraph{std::move(line), all.survived > 0 ? "warn" : "good"});
  s.blocks.push_back(Paragraph{{text("A mutant is one generic fault planted in stack/ (one token or one statement); "
                                     "the harness kills it when a property or replay test fails (positive controls "
                                     "left out). Per folder:")},
                               ""});
  if (!data.mutants.empty()) {
    score_blocks(folders, "folder", all, s.blocks);
    s.blocks.push_back(Paragraph{{text("Per operator:")}, ""});
    score_blocks(operators, "operator", all, s.blocks);
    s.blocks.push_back(Paragraph{{text("Per file:")}, ""});
    score_blocks(files, "file", all, s.blocks);
  }
  return s;
}

// Survivors by the row of docs/observables.md their code computes (mutants.tsv's `observable`,
// from scripts/observables_map.tsv): which output each blind spot changes. Rows with the most
// survivors first; none when the run's table has no such column.
std::optional<TableBlock> by_observable_table(const std::vector<const MutantResult*>& surv) {
  std::map<std::string, std::vector<const MutantResult*>> rows;
  for (auto* m : surv)
    if (!m->observable.empty()) rows[m->observable].push_back(m);
  if (rows.empty()) return std::nullopt;
  std::vector<std::pair<std::string, std::vector<const MutantResult*>>> ordered(rows.begin(), rows.end());
  std::stable_sort(ordered.begin(), ordered.end(), [](auto& a, auto& b) { return a.second.size() > b.second.size(); });
  auto t = table({"observable (docs/observables.md)", numeric("survivors"), "mutants"}, "By observable");
  for (const auto& [row, ms] : ordered) {
    std::string ids;
    for (auto* m : ms) ids += (ids.empty() ? "" : " ") + m->id;
    add_row(t, {cell(row), cell(count(static_cast<double>(ms.size()))), code_cell(ids)});
  }
  return t;
}

// Survivors, by file, then function and line.
Section survivors_section(const RunData& data) {
  std::vector<const MutantResult*> surv;
  for (const auto& m : data.mutants)
    if (m.scored() && m.missed()) surv.push_back(&m);
  std::stable_sort(surv.begin(), surv.end(), [](auto* a, auto* b) {
    return std::tie(a->file, a->function, a->line) < std::tie(b->file, b->function, b->line);
  });
  Section sv{"survivors", "Survivors", {}};
  if (surv.empty()) {
    sv.blocks.push_back(Paragraph{{strong("No survivor"), text(": every scored mutant was killed.")}, "good"});
  } else {
    sv.blocks.push_back(Paragraph{{text(fmt::format("{} mutant{} no property or replay test noticed (or none ran "
                                                    "its site), by file and function: each is a fault the harness "
                                                    "would let through.",
                                                    surv.size(), surv.size() == 1 ? "" : "s"))},
                                  ""});
    if (auto t = by_observable_table(surv)) sv.blocks.push_back(std::move(*t));
    for (size_t i = 0; i < surv.size();) {
      const std::string& file = surv[i]->file;
      auto t = table({"function", numeric("line"), "operator", "mutant", "reached by", "unit tests"}, file);
      for (; i < surv.size() && surv[i]->file == file; ++i) {
        const auto& m = *surv[i];
        add_row(t, {cell(m.function.empty() || m.function == "-" ? "(file scope)" : m.function), cell(count(m.line)),
                    cell(m.op), diff_cell(m), reach_cell(m), unit_cell(m.unit)});
      }
      sv.blocks.push_back(std::move(t));
    }
  }
  return sv;
}

// The argued equivalents, the timeouts, and the killers.
Section others_section(const RunData& data, const Tally& all) {
  auto listed = [&](auto pred, std::vector<Column> cols, auto row) {
    auto t = table(std::move(cols));
    for (const auto& m : data.mutants)
      if (pred(m)) add_row(t, row(m));
    return t;
  };
  Section rest{"mutants-other", "Equivalents, timeouts and killers", {}};
  auto argued = listed([](const MutantResult& m) { return !m.argued.empty(); }, {"mutant", "change", "reason"},
                       [](const MutantResult& m) -> std::vector<Cell> {
                         return {code_cell(m.id), diff_cell(m), cell(m.argued)};
                       });
  rest.blocks.push_back(
      Paragraph{{text(fmt::format("{} argued equivalent{} (scripts/mutate_equivalents.tsv: reviewed, "
                                  "out of the score), {} equivalent by object code, {} build "
                                  "failure{}.",
                                  count(all.argued), all.argued == 1 ? "" : "s", count(all.equivalent),
                                  count(all.build_fail), all.build_fail == 1 ? "" : "s"))},
                ""});
  if (!argued.rows.empty()) rest.blocks.push_back(std::move(argued));
  auto timeouts = listed([](const MutantResult& m) { return m.argued.empty() && m.outcome == "TIMEOUT"; },
                         {"mutant", "function", "change", "test running"},
                         [](const MutantResult& m) -> std::vector<Cell> {
                           return {code_cell(m.id), cell(m.function), diff_cell(m), cell(m.killer)};
                         });
  rest.blocks.push_back(Paragraph{
      {text(fmt::format("{} timeout{} (counted as killed):", count(all.timeout), all.timeout == 1 ? "" : "s"))}, ""});
  if (!timeouts.rows.empty()) rest.blocks.push_back(std::move(timeouts));
  std::map<std::string, std::pair<std::string, double>> killers;
  for (const auto& m : data.mutants)
    if (m.argued.empty() && m.outcome == "KILLED") {
      auto& k = killers[m.killer];
      if (k.first.empty()) k.first = m.oracle + " / " + m.rule;
      ++k.second;
    }
  auto kt = table({"killed by", "first oracle / rule", numeric("mutants")});
  std::vector<std::pair<std::string, std::pair<std::string, double>>> ks(killers.begin(), killers.end());
  std::stable_sort(ks.begin(), ks.end(), [](auto& a, auto& b) { return a.second.second > b.second.second; });
  for (const auto& [who, k] : ks) add_row(kt, {cell(who), cell(k.first), cell(count(k.second))});
  if (!kt.rows.empty()) rest.blocks.push_back(std::move(kt));
  return rest;
}

}  // namespace

void add_mutate(const RunData& data, std::vector<Section>& out) {
  if (!data.has_mutants) return;
  Tally all;
  std::map<std::string, Tally> folders, files, operators;
  for (const auto& m : data.mutants) {
    all.add(m);
    folders[m.folder()].add(m);
    files[m.file].add(m);
    operators[m.op].add(m);
  }
  out.push_back(score_section(data, all, folders, files, operators));
  out.push_back(survivors_section(data));
  out.push_back(others_section(data, all));
}

}  // namespace stackcheck::report::detail
