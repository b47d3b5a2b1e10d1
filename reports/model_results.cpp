// Building the results sections of the report: the corpus classification, the property runs,
// line and branch coverage, and the defect zoo.
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "reports/model_internal.h"
#include "reports/svg.h"
#include "reports/text.h"

namespace stackcheck::report::detail {
namespace {

// pass, then the inconclusive reasons, rejected, the failures, anything else.
int class_rank(const std::string& k) {
  if (k == "pass") return 0;
  if (k.starts_with("inconclusive")) return 1;
  if (k == "rejected") return 2;
  if (k.starts_with("fail")) return 3;
  return 4;
}

std::string class_colour(int rank, size_t nth) {
  static const std::vector<std::vector<const char*>> kShades = {
      {"#009E73", "#5CC8A0"},
      {"#E69F00", "#F5C46B", "#B87B00", "#FBE0A8", "#8C5E00"},
      {"#9E9E9E", "#C8C8C8"},
      {"#D55E00", "#A3241A", "#F08C5C", "#6E1A10"},
      {"#0072B2", "#56B4E9", "#CC79A7"},
  };
  const auto& shades = kShades[static_cast<size_t>(rank)];
  return shades[nth % shades.size()];
}

}  // namespace

void add_classes(const RunData& data, std::vector<Section>& out) {
  if (!data.has_classes) return;
  Section s{"classes", "Corpus classification", {}};
  if (data.classes.empty()) {
    s.blocks.push_back(Paragraph{{text("classes.tsv lists no input.")}, ""});
    out.push_back(std::move(s));
    return;
  }
  // One colour per class for every target, ordered by kind, then by how common it is.
  std::map<std::string, double> totals;
  for (const auto& c : data.classes) totals[c.klass] += c.count;
  std::vector<std::string> classes;
  for (const auto& [k, n] : totals) classes.push_back(k);
  std::stable_sort(classes.begin(), classes.end(), [&](const std::string& a, const std::string& b) {
    if (class_rank(a) != class_rank(b)) return class_rank(a) < class_rank(b);
    return totals[a] > totals[b];
  });
  std::map<std::string, std::string> colour;
  std::map<int, size_t> used;
  for (const auto& k : classes) colour[k] = class_colour(class_rank(k), used[class_rank(k)]++);

  std::vector<std::string> targets;
  for (const auto& t : data.target_order())
    for (const auto& c : data.classes)
      if (c.target == t) {
        targets.push_back(t);
        break;
      }

  BarChart chart;
  chart.title = "Final corpus by outcome";
  chart.x_max = 100;
  chart.tick_suffix = "%";
  chart.x_label = "share of the target's corpus";
  for (const auto& k : classes) chart.legend.push_back({k, colour[k], ""});
  TableGrid grid;
  for (const auto& target : targets) {
    std::map<std::string, double> n;
    double total = 0;
    for (const auto& c : data.classes)
      if (c.target == target) n[c.klass] += c.count, total += c.count;
    Bar bar;
    auto t = table({"class", numeric("inputs"), numeric("share")}, target);
    for (const auto& k : classes) {
      if (!n.count(k)) continue;
      std::string share = percent(n[k], total);
      double value = total > 0 ? 100 * n[k] / total : 0;
      bar.segments.push_back({value, colour[k], fmt::format("{}: {} ({})", k, count(n[k]), share), share});
      int rank = class_rank(k);
      add_row(t, {cell(k), cell(count(n[k])), cell(share)}, rank == 3 ? "bad" : "");
    }
    add_row(t, {cell("total"), cell(count(total)), cell(total > 0 ? "100.0%" : "-")});
    t.last_is_total = true;
    bar.end_label = fmt::format("{} inputs", count(total));
    chart.rows.push_back({target, {std::move(bar)}});
    grid.tables.push_back(std::move(t));
  }
  s.blocks.push_back(Paragraph{{text("Each target's final corpus replayed through its oracle: pass, inconclusive "
                                     "with its reason, rejected input, or fail naming oracle and rule.")},
                               ""});
  s.blocks.push_back(ChartGrid{{{bar_chart_svg(chart), ""}}, "The stacked bars of these shares are in index.html."});
  s.blocks.push_back(std::move(grid));
  out.push_back(std::move(s));
}

void add_properties(const RunData& data, std::vector<Section>& out) {
  if (!data.has_properties) return;
  Section s{"properties", "Properties at scale", {}};
  double cases = 0, discarded = 0, seconds = 0;
  std::vector<const PropertyRun*> failed;
  for (const auto& p : data.properties) {
    cases += p.cases, discarded += p.discarded, seconds += p.seconds;
    if (p.failed()) failed.push_back(&p);
  }
  Inlines line = {
      text(fmt::format("{} propert{}, {} cases ({} discarded as inconclusive) in {}", data.properties.size(),
                       data.properties.size() == 1 ? "y" : "ies", count(cases), count(discarded), duration(seconds)))};
  if (seconds > 0) line.push_back(text(fmt::format(": {} cases/s", rate(cases / seconds))));
  line.push_back(text(". "));
  line.push_back(strong(failed.empty() ? "All passed." : fmt::format("{} failed.", failed.size())));
  s.blocks.push_back(Paragraph{std::move(line), failed.empty() ? "good" : "bad"});
  auto t = table({"suite", "property", "result", numeric("cases"), numeric("discarded"), numeric("discarded share"),
                  numeric("time"), numeric("cases/s"), "seed"});
  for (const auto& p : data.properties) {
    add_row(t,
            {cell(p.suite), cell(p.property),
             cell(p.result, p.failed() ? "bad"
                            : p.cut()  ? ""
                                       : "good"),
             cell(count(p.cases)), cell(count(p.discarded)), cell(percent(p.discarded, p.cases + p.discarded)),
             cell(duration(p.seconds)), cell(p.seconds > 0 ? rate(p.cases / p.seconds) : "-"),
             cell(p.seed.empty() ? "-" : p.seed)},
            p.failed() ? "bad" : "");
  }
  s.blocks.push_back(std::move(t));
  for (const auto* p : failed) {
    s.blocks.push_back(
        Paragraph{{strong(fmt::format("{}.{}", p->suite, p->property)),
                   text(fmt::format(" {} (seed {}); replay:", p->result, p->seed.empty() ? "-" : p->seed))},
                  "bad"});
    s.blocks.push_back(CodeBlock{p->replay.empty() ? "(no replay command recorded)" : p->replay});
  }
  out.push_back(std::move(s));
}

void add_coverage(const RunData& data, std::vector<Section>& out) {
  if (!data.has_coverage) return;
  Section s{"coverage", "Coverage of stack/", {}};
  auto t = table({"folder", numeric("lines"), numeric("covered"), numeric("line coverage"), numeric("branches"),
                  numeric("covered"), numeric("branch coverage")});
  BarChart chart;
  chart.title = "Line and branch coverage per folder";
  chart.x_max = 100;
  chart.tick_suffix = "%";
  chart.legend = {{"lines", "#0072B2", ""}, {"branches", "#56B4E9", ""}};
  double l = 0, lc = 0, b = 0, bc = 0;
  for (const auto& c : data.coverage) {
    add_row(
        t, {cell(c.folder), cell(count(c.lines)), cell(count(c.lines_covered)), cell(percent(c.lines_covered, c.lines)),
            cell(count(c.branches)), cell(count(c.branches_covered)), cell(percent(c.branches_covered, c.branches))});
    auto bar = [](double part, double whole, const char* colour, const char* what) {
      double v = whole > 0 ? 100 * part / whole : 0;
      return Bar{
          {{v, colour, fmt::format("{}: {} of {}", what, count(part), count(whole)), ""}}, percent(part, whole), ""};
    };
    chart.rows.push_back({c.folder,
                          {bar(c.lines_covered, c.lines, "#0072B2", "lines"),
                           bar(c.branches_covered, c.branches, "#56B4E9", "branches")}});
    l += c.lines, lc += c.lines_covered, b += c.branches, bc += c.branches_covered;
  }
  if (data.coverage.empty()) {
    s.blocks.push_back(Paragraph{{text("coverage.tsv lists no folder.")}, ""});
    out.push_back(std::move(s));
    return;
  }
  add_row(t, {cell("total"), cell(count(l)), cell(count(lc)), cell(percent(lc, l)), cell(count(b)), cell(count(bc)),
              cell(percent(bc, b))});
  t.last_is_total = true;
  s.blocks.push_back(std::move(t));
  s.blocks.push_back(ChartGrid{{{bar_chart_svg(chart), ""}}, "The coverage bar chart is in index.html."});
  out.push_back(std::move(s));
}

void add_zoo(const RunData& data, std::vector<Section>& out) {
  if (!data.has_zoo) return;
  Section s{"zoo", "Defect zoo", {}};
  size_t defects = 0, detected = 0;
  std::vector<double> times;
  const ZooDefect* control = nullptr;
  for (const auto& z : data.zoo) {
    if (z.is_control()) {
      control = &z;
      continue;
    }
    ++defects;
    if (z.detected) {
      ++detected;
      if (z.seconds) times.push_back(*z.seconds);
    }
  }
  Inlines line = {text("Detected "), strong(fmt::format("{} of {}", detected, defects)),
                  text(fmt::format(" injected defect{}.", defects == 1 ? "" : "s"))};
  if (!times.empty()) {
    line.push_back(text(" Time to detect: median "));
    line.push_back(strong(duration(median(times))));
    line.push_back(text(", maximum "));
    line.push_back(strong(duration(*std::max_element(times.begin(), times.end()))));
    line.push_back(text("."));
  }
  s.blocks.push_back(Paragraph{std::move(line), detected == defects ? "good" : "bad"});
  if (control && control->detected)
    s.blocks.push_back(
        Paragraph{{strong("False positive: "),
                   text(fmt::format("the run with no defect active failed ({} {}).", control->oracle, control->rule))},
                  "bad"});
  else if (control)
    s.blocks.push_back(Paragraph{
        {text("The control run with no defect active found nothing: "), strong("no false positive"), text(".")},
        "good"});

  auto t = table({"defect", "detected", numeric("time to detect"), numeric("shrunk by"), "oracle", "rule",
                  numeric("shrunk size"), numeric("reproducer size"), "reproducer", "found by"});
  BarChart chart;
  chart.title = "Time to detect per defect";
  chart.x_label = "seconds to the first failure";
  for (const auto& z : data.zoo) {
    Cell det = z.is_control() ? (z.detected ? cell("yes: false positive", "bad") : cell("no (control)", "good"))
                              : (z.detected ? cell("yes", "good") : cell("no", "bad"));
    std::string time = z.seconds ? duration(*z.seconds) : "-";
    if (!z.detected && z.seconds) time = "> " + time;
    add_row(t,
            {cell(z.is_control() ? "none (control)" : z.defect), det, cell(time),
             cell(z.detected && z.shrunk_seconds ? duration(*z.shrunk_seconds) : "-"), cell(z.oracle), cell(z.rule),
             cell(z.shrunk_size ? count(*z.shrunk_size) : "-"),
             cell(z.reproducer_size ? fmt::format("{} statements", count(*z.reproducer_size)) : "-"),
             code_cell(z.reproducer), cell(z.found_by)},
            (z.detected == z.is_control()) ? "bad" : "");
    if (z.is_control()) continue;
    Bar bar;
    if (z.detected && z.seconds) {
      bar.segments.push_back({*z.seconds, "#0072B2", fmt::format("{}: {}", z.defect, duration(*z.seconds)), ""});
      bar.end_label = duration(*z.seconds);
      if (z.shrunk_seconds && *z.shrunk_seconds > *z.seconds) {  // then the shrinking, lighter
        bar.segments.push_back({*z.shrunk_seconds - *z.seconds, "#9DC3E6",
                                fmt::format("{}: shrunk by {}", z.defect, duration(*z.shrunk_seconds)), ""});
        bar.end_label += fmt::format(" (shrunk by {})", duration(*z.shrunk_seconds));
      }
    } else if (z.detected) {
      bar.end_label = "detected (no time)";
    } else {
      bar.end_label = z.seconds ? fmt::format("not detected in {}", duration(*z.seconds)) : "not detected";
      bar.end_colour = "#B3261E";
    }
    chart.rows.push_back({z.defect, {std::move(bar)}});
  }
  if (!chart.rows.empty())
    s.blocks.push_back(ChartGrid{{{bar_chart_svg(chart), ""}}, "The time-to-detect bar chart is in index.html."});
  s.blocks.push_back(std::move(t));
  out.push_back(std::move(s));
}

}  // namespace stackcheck::report::detail
