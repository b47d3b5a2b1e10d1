// Building the report's document: the header, the targets and their series, the finding
// buckets, the run's keys and the notes. Results sections are in model_results.cpp, the
// mutation analysis in model_mutate.cpp, harness-alone reach in model_coverage.cpp.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <optional>

#include "reports/document.h"
#include "reports/model_internal.h"
#include "reports/svg.h"
#include "reports/text.h"

namespace stackcheck::report {
namespace detail {

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

}  // namespace detail

namespace {
using namespace detail;

// Seconds since the epoch of "YYYY-MM-DDTHH:MM:SS[.fff]Z" (or "+00:00"), if it is one.
std::optional<double> parse_utc(const std::string& s) {
  int y, mo, d, h, mi;
  double sec;
  char tail[8] = {};
  if (std::sscanf(s.c_str(), "%4d-%2d-%2dT%2d:%2d:%lf%7s", &y, &mo, &d, &h, &mi, &sec, tail) < 6) return std::nullopt;
  std::string t(tail);
  if (!t.empty() && t != "Z" && t != "+00:00") return std::nullopt;
  using namespace std::chrono;
  year_month_day ymd{year{y}, month{static_cast<unsigned>(mo)}, day{static_cast<unsigned>(d)}};
  if (!ymd.ok()) return std::nullopt;
  double days = static_cast<double>(sys_days{ymd}.time_since_epoch().count());
  return days * 86400 + h * 3600 + mi * 60 + sec;
}

std::string default_title(const std::string& kind) {
  if (kind == "zoo") return "stackcheck defect zoo";
  if (kind == "campaign") return "stackcheck fuzzing campaign";
  if (kind == "mutate") return "stackcheck mutation analysis";
  if (kind == "coverage") return "stackcheck reach (harness-alone coverage)";
  return "stackcheck report";
}

std::vector<Badge> badges(const RunData& data) {
  std::vector<Badge> out;
  auto add = [&](std::string label, std::string value, std::string tone = "") {
    if (!value.empty()) out.push_back({std::move(label), std::move(value), std::move(tone)});
  };
  add("kind", data.value("kind"));
  std::string status = data.value("status");
  add("status", status, status == "complete" ? "good" : status == "interrupted" ? "warn" : "info");
  add("seed", data.value("seed"), "key");
  std::string minutes = data.value("minutes");
  if (minutes == "0")
    add("budget", "until interrupted");
  else if (!minutes.empty())
    add("budget", minutes + " min");
  auto started = parse_utc(data.value("started")), finished = parse_utc(data.value("finished"));
  add("started", data.value("started"));
  if (started && finished && *finished >= *started) add("ran", duration(*finished - *started));
  auto order = data.target_order();
  if (!order.empty()) add("targets", std::to_string(order.size()));
  add("sample", data.value("sample"));
  add("jobs", data.value("jobs"));
  add("cores", data.value("cores"));
  std::string commit = data.value("commit");
  add("commit", commit.substr(0, 12));
  return out;
}

// The figures a reader looks for first, in one paragraph.
std::optional<Section> summary(const RunData& data) {
  Inlines line;
  auto sep = [&] {
    if (!line.empty()) line.push_back(text(" · "));
  };
  if (data.has_targets) {
    double execs = 0;
    for (const auto& t : data.targets) execs += t.execs;
    sep();
    line.push_back(strong(count(execs)));
    line.push_back(
        text(fmt::format(" executions over {} target{}", data.targets.size(), data.targets.size() == 1 ? "" : "s")));
  }
  std::string tone;
  if (data.has_buckets || data.has_targets) {
    sep();
    if (data.buckets.empty()) {
      line.push_back(strong("no findings"));
      tone = "good";
    } else {
      double n = 0;
      for (const auto& b : data.buckets) n += b.count;
      line.push_back(
          strong(fmt::format("{} finding bucket{}", data.buckets.size(), data.buckets.size() == 1 ? "" : "s")));
      line.push_back(text(fmt::format(" ({} finding{})", count(n), n == 1 ? "" : "s")));
      tone = "bad";
    }
  }
  if (data.has_properties) {
    size_t failed = std::count_if(data.properties.begin(), data.properties.end(), [](auto& p) { return p.failed(); });
    sep();
    line.push_back(
        text(fmt::format("{} propert{}, ", data.properties.size(), data.properties.size() == 1 ? "y" : "ies")));
    line.push_back(strong(failed ? fmt::format("{} failed", failed) : "none failed"));
    const size_t cut = std::count_if(data.properties.begin(), data.properties.end(), [](auto& p) { return p.cut(); });
    if (cut) line.push_back(text(fmt::format(", {} cut by the time share", cut)));
    if (failed) tone = "bad";
  }
  if (data.has_coverage && !data.coverage.empty()) {
    double l = 0, lc = 0;
    for (const auto& c : data.coverage) l += c.lines, lc += c.lines_covered;
    sep();
    line.push_back(text("line coverage "));
    line.push_back(strong(percent(lc, l)));
  }
  Section s{"summary", "Summary", {}};
  if (!line.empty()) s.blocks.push_back(Paragraph{std::move(line), tone});
  std::string status = data.value("status");
  if (status == "running")
    s.blocks.push_back(
        Paragraph{{text("The run is still going: this report is a snapshot, refreshed as it runs.")}, "warn"});
  else if (status == "interrupted")
    s.blocks.push_back(Paragraph{{text("The run was interrupted: the figures cover the time it ran.")}, "warn"});
  if (s.blocks.empty()) return std::nullopt;
  return s;
}

std::optional<double> peak_rss(const RunData& data, const std::string& target) {
  std::optional<double> peak;
  for (const auto& s : data.series)
    if (s.target == target)
      for (const auto& x : s.samples)
        if (x.rss_mb) peak = std::max(peak.value_or(0), *x.rss_mb);
  return peak;
}

std::optional<Section> targets_section(const RunData& data) {
  if (!data.has_targets) return std::nullopt;
  bool rss = false;
  for (const auto& t : data.targets) rss = rss || peak_rss(data, t.target).has_value();
  auto t =
      table({"target", "status", numeric("time"), numeric("executions"), numeric("exec/s"), numeric("coverage"),
             numeric("features"), numeric("corpus"), numeric("corpus size"), numeric("findings"), numeric("buckets")});
  if (rss) t.headers.push_back("peak RSS"), t.numeric.push_back(true);
  double execs = 0, findings = 0, buckets = 0;
  for (const auto& x : data.targets) {
    std::vector<Cell> row = {cell(x.target),
                             cell(x.status),
                             cell(duration(x.seconds)),
                             cell(count(x.execs)),
                             cell(rate(x.exec_s)),
                             cell(count(x.cov)),
                             cell(count(x.ft)),
                             cell(count(x.corpus)),
                             cell(bytes(x.corpus_bytes)),
                             cell(count(x.findings), x.findings > 0 ? "bad" : ""),
                             cell(count(x.buckets), x.buckets > 0 ? "bad" : "")};
    if (rss) {
      auto peak = peak_rss(data, x.target);
      row.push_back(cell(peak ? fixed(*peak, 0) + " MB" : "-"));
    }
    add_row(t, std::move(row));
    execs += x.execs, findings += x.findings, buckets += x.buckets;
  }
  if (data.targets.size() > 1) {
    std::vector<Cell> total(t.headers.size(), cell(""));
    total[0] = cell("total");
    total[3] = cell(count(execs));
    total[9] = cell(count(findings), findings > 0 ? "bad" : "");
    total[10] = cell(count(buckets), buckets > 0 ? "bad" : "");
    add_row(t, std::move(total));
    t.last_is_total = true;
  }
  Section s{"targets", "Fuzz targets", {}};
  s.blocks.push_back(Paragraph{{text("Final figures per target: coverage and features as libFuzzer counts them "
                                     "(cov, ft); corpus after merging.")},
                               ""});
  s.blocks.push_back(std::move(t));
  return s;
}

struct Metric {
  const char* title;
  const char* y_label;
  double Sample::*field;
};

std::optional<Section> series_section(const RunData& data) {
  size_t samples = 0;
  double t_max = 0;
  for (const auto& s : data.series) {
    samples += s.samples.size();
    if (!s.samples.empty()) t_max = std::max(t_max, s.samples.back().t_s);
  }
  if (samples == 0) return std::nullopt;
  double unit = 1;
  const char* unit_name = "s";
  if (t_max > 3 * 3600)
    unit = 3600, unit_name = "h";
  else if (t_max > 180)
    unit = 60, unit_name = "min";

  static constexpr Metric kMetrics[] = {
      {"Executions", "executions", &Sample::execs},
      {"Executions per second", "exec/s", &Sample::exec_s},
      {"Coverage", "coverage (cov)", &Sample::cov},
      {"Corpus size", "inputs in corpus", &Sample::corpus},
  };
  const auto order = data.target_order();
  ChartGrid grid;
  grid.markdown_note =
      "The charts (executions, exec/s, coverage and corpus size over time, one line per target) "
      "are in index.html.";
  for (const auto& m : kMetrics) {
    LineChart chart;
    chart.title = m.title;
    chart.x_label = fmt::format("time ({})", unit_name);
    chart.y_label = m.y_label;
    for (const auto& s : data.series) {
      size_t i = static_cast<size_t>(std::find(order.begin(), order.end(), s.target) - order.begin());
      LineSeries line{s.target, series_colour(i), series_dash(i), {}};
      for (const auto& x : s.samples) line.points.push_back({x.t_s / unit, x.*m.field});
      chart.series.push_back(std::move(line));
    }
    grid.charts.push_back({line_chart_svg(chart), ""});
  }
  Section s{"series", "Over time", {}};
  s.blocks.push_back(Paragraph{
      {text(fmt::format("{} samples from {} target{}. A chart switches to a log scale when "
                        "the targets' peaks differ by more than 100x; zeros then sit on its "
                        "bottom edge.",
                        count(static_cast<double>(samples)), data.series.size(), data.series.size() == 1 ? "" : "s"))},
      ""});
  s.blocks.push_back(std::move(grid));
  return s;
}

std::optional<Section> findings_section(const RunData& data) {
  if (!data.has_buckets && !data.has_targets) return std::nullopt;
  Section s{"findings", "Findings", {}};
  if (data.buckets.empty()) {
    s.blocks.push_back(Paragraph{{strong("No findings"), text(data.has_buckets ? ": buckets.tsv lists no bucket."
                                                                               : ": the run wrote no buckets.tsv.")},
                                 "good"});
    return s;
  }
  s.blocks.push_back(Paragraph{{text("Findings deduplicated into buckets (target, oracle, rule, top frames). Each "
                                     "bucket's minimized input is a candidate for corpus/<target>/regression/ "
                                     "(scripts/promote FILE); the replay command reruns it.")},
                               ""});
  auto t = table({"bucket", "target", "oracle", "rule", "top frames", numeric("count"), numeric("first seen"), "replay",
                  "candidate"});
  for (const auto& b : data.buckets) {
    add_row(t, {cell(b.bucket), cell(b.target), cell(b.oracle), cell(b.rule), code_cell(b.frames), cell(count(b.count)),
                cell(b.first_seen_s ? duration(*b.first_seen_s) : "-"), code_cell(b.replay), code_cell(b.candidate)});
  }
  s.blocks.push_back(std::move(t));
  return s;
}

Section run_section(const RunData& data) {
  Section s{"run", "Run", {}};
  auto t = table({"key", "value"});
  for (const auto& [k, v] : data.run) {
    bool as_code = k == "command" || k == "commit" || k == "seed" || k == "targets";
    add_row(t, {cell(k), as_code ? code_cell(v) : cell(v)});
  }
  s.blocks.push_back(std::move(t));
  return s;
}

}  // namespace

Document build_document(const RunData& data, const Options& options) {
  Document doc;
  doc.title = !options.title.empty() ? options.title : data.value("title");
  if (doc.title.empty()) doc.title = default_title(data.value("kind"));
  doc.badges = badges(data);
  doc.command = data.value("command");
  auto add = [&](std::optional<Section> s) {
    if (s) doc.sections.push_back(std::move(*s));
  };
  add(summary(data));
  add_zoo(data, doc.sections);
  add_mutate(data, doc.sections);
  add_reach(data, doc.sections);
  add(targets_section(data));
  add(series_section(data));
  add(findings_section(data));
  add_classes(data, doc.sections);
  add_properties(data, doc.sections);
  add_coverage(data, doc.sections);
  doc.sections.push_back(run_section(data));
  if (data.notes) doc.sections.push_back(Section{"notes", "Notes", {Verbatim{*data.notes}}});
  return doc;
}

}  // namespace stackcheck::report
