// The charts: one line per target, axes with ticks and labels, a legend, one sample, zeros,
// and the log scale for targets of very different speeds.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "reports/svg.h"

namespace stackcheck::report {
namespace {

size_t occurrences(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

LineChart chart_of(std::vector<std::pair<std::string, std::vector<Point>>> lines) {
  LineChart c;
  c.title = "Executions per second";
  c.x_label = "time (s)";
  c.y_label = "exec/s";
  size_t i = 0;
  for (auto& [name, points] : lines) {
    c.series.push_back({name, series_colour(i), series_dash(i), std::move(points)});
    ++i;
  }
  return c;
}

TEST(Axis, linear_axes_end_on_nice_values) {
  Axis a = linear_axis(4630);
  EXPECT_EQ(a.lo, 0);
  EXPECT_EQ(a.hi, 5000);
  EXPECT_EQ(a.ticks, (std::vector<double>{0, 1000, 2000, 3000, 4000, 5000}));
  EXPECT_EQ(linear_axis(0).hi, 1);  // all zeros still make an axis
  EXPECT_EQ(linear_axis(1).ticks.size(), 6u);
  EXPECT_DOUBLE_EQ(linear_axis(12).hi, 12.5);
}

TEST(Axis, log_axes_run_between_decades) {
  Axis a = log_axis(50, 118000);
  EXPECT_EQ(a.lo, 10);
  EXPECT_EQ(a.hi, 2e5);
  EXPECT_EQ(a.ticks, (std::vector<double>{10, 100, 1e3, 1e4, 1e5}));
  EXPECT_DOUBLE_EQ(log_axis(50, 90000).place(1000, 0, 100), 50);  // 10 .. 100k: 1k half way
  EXPECT_DOUBLE_EQ(a.place(0, 0, 100), 0);                        // zero sits on the bottom edge
  EXPECT_EQ(log_axis(100, 100).hi, 200);                          // one value still gets a span
  EXPECT_EQ(log_axis(0.4, 140).hi, 200);
  EXPECT_EQ(log_axis(0.4, 450).hi, 500);
  EXPECT_EQ(log_axis(0.4, 501).hi, 1000);
  EXPECT_LE(log_axis(1, 1e12).ticks.size(), 7u);
}

TEST(Axis, log_scale_only_when_peaks_span_more_than_two_decades) {
  EXPECT_EQ(choose_scale({50, 50000}), Scale::Log);
  EXPECT_EQ(choose_scale({50, 4000}), Scale::Linear);
  EXPECT_EQ(choose_scale({0, 0}), Scale::Linear);
  EXPECT_EQ(choose_scale({0, 1e6}), Scale::Linear);  // a zero peak is no scale
  EXPECT_EQ(choose_scale({}), Scale::Linear);
}

TEST(LineChartSvg, one_polyline_per_target_with_axes_and_legend) {
  std::string svg = line_chart_svg(chart_of({{"fuzz_parse", {{0, 0}, {10, 40000}, {20, 41000}}},
                                             {"fuzz_pipeline", {{0, 0}, {10, 3000}, {20, 2900}}},
                                             {"fuzz_program", {{0, 0}, {10, 60}, {20, 55}}}}));
  EXPECT_TRUE(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
  EXPECT_EQ(occurrences(svg, "<polyline"), 3u);
  for (const char* t : {"fuzz_parse", "fuzz_pipeline", "fuzz_program"})
    EXPECT_NE(svg.find(std::string("data-series=\"") + t + "\""), std::string::npos) << t;
  EXPECT_NE(svg.find("class=\"axes\""), std::string::npos);
  EXPECT_NE(svg.find("class=\"axis x-axis\""), std::string::npos);
  EXPECT_NE(svg.find(">time (s)</text>"), std::string::npos);
  EXPECT_NE(svg.find(">exec/s</text>"), std::string::npos);
  EXPECT_NE(svg.find("class=\"legend\""), std::string::npos);
  // 55 exec/s next to 41,000: a log scale with decade ticks, so the slow target is visible.
  EXPECT_NE(svg.find("(log scale)"), std::string::npos);
  EXPECT_NE(svg.find(">1k</text>"), std::string::npos);
  EXPECT_NE(svg.find(">10k</text>"), std::string::npos);
  EXPECT_EQ(svg.find("nan"), std::string::npos);
  EXPECT_EQ(svg.find("inf"), std::string::npos);
}

TEST(LineChartSvg, similar_targets_share_a_linear_axis) {
  std::string svg = line_chart_svg(chart_of({{"a", {{0, 100}, {60, 1800}}}, {"b", {{0, 90}, {60, 1500}}}}));
  EXPECT_EQ(svg.find("(log scale)"), std::string::npos);
  EXPECT_NE(svg.find(">2k</text>"), std::string::npos);
  EXPECT_NE(svg.find(">0</text>"), std::string::npos);
}

TEST(LineChartSvg, one_sample_and_all_zeros_are_drawn) {
  std::string one = line_chart_svg(chart_of({{"fuzz_attach", {{0, 1200}}}}));
  EXPECT_EQ(occurrences(one, "<polyline"), 1u);
  EXPECT_EQ(occurrences(one, "<circle"), 1u);  // a single point is visible as a marker
  EXPECT_EQ(one.find("nan"), std::string::npos);
  std::string zeros = line_chart_svg(chart_of({{"a", {{0, 0}, {10, 0}}}, {"b", {{0, 0}, {10, 0}}}}));
  EXPECT_EQ(occurrences(zeros, "<polyline"), 2u);
  EXPECT_EQ(zeros.find("nan"), std::string::npos);
  EXPECT_EQ(zeros.find("(log scale)"), std::string::npos);
  std::string empty = line_chart_svg(chart_of({}));
  EXPECT_NE(empty.find("no samples"), std::string::npos);
}

TEST(LineChartSvg, names_are_escaped_and_long_series_thinned) {
  std::vector<Point> many;
  for (int i = 0; i < 100000; ++i) many.push_back({static_cast<double>(i), std::sin(i * 0.01) + 1});
  std::string svg = line_chart_svg(chart_of({{"<b>&x", many}}));
  EXPECT_NE(svg.find("data-series=\"&lt;b&gt;&amp;x\""), std::string::npos);
  EXPECT_EQ(svg.find("<b>"), std::string::npos);
  EXPECT_LT(svg.size(), 60000u);  // about four points per pixel column, not 100,000
  EXPECT_EQ(occurrences(svg, "<circle"), 0u);
}

TEST(BarChartSvg, stacked_shares_grouped_bars_and_end_labels) {
  BarChart c;
  c.title = "Final corpus by outcome";
  c.x_max = 100;
  c.tick_suffix = "%";
  c.legend = {{"pass", "#009E73", ""}, {"rejected", "#9E9E9E", ""}};
  c.rows.push_back(
      {"fuzz_parse",
       {Bar{{{62.8, "#009E73", "pass: 402", "62.8%"}, {37.2, "#9E9E9E", "rejected", "37.2%"}}, "640 inputs", ""}}});
  c.rows.push_back(
      {"stack/ir", {Bar{{{90, "#0072B2", "lines", ""}}, "90.0%", ""}, Bar{{{80, "#56B4E9", "b", ""}}, "80.0%", ""}}});
  std::string svg = bar_chart_svg(c);
  EXPECT_EQ(occurrences(svg, "<rect class=\"bar\""), 4u);
  EXPECT_NE(svg.find(">100%</text>"), std::string::npos);
  EXPECT_NE(svg.find(">640 inputs</text>"), std::string::npos);
  EXPECT_NE(svg.find(">62.8%</text>"), std::string::npos);
  EXPECT_EQ(occurrences(svg, "<rect x="), 2u);  // the legend's swatches
  EXPECT_EQ(svg.find("(log scale)"), std::string::npos);
}

TEST(BarChartSvg, times_spanning_decades_get_a_log_axis_and_undetected_rows_a_note) {
  BarChart c;
  c.title = "Time to detect per defect";
  c.rows.push_back({"fast", {Bar{{{0.4, "#0072B2", "", ""}}, "0.4 s", ""}}});
  c.rows.push_back({"slow", {Bar{{{140, "#0072B2", "", ""}}, "2 min 20 s", ""}}});
  c.rows.push_back({"missed", {Bar{{}, "not detected", "#B3261E"}}});
  std::string svg = bar_chart_svg(c);
  EXPECT_NE(svg.find("(log scale)"), std::string::npos);
  EXPECT_EQ(occurrences(svg, "<rect class=\"bar\""), 2u);
  EXPECT_NE(svg.find(">not detected</text>"), std::string::npos);
  EXPECT_EQ(svg.find("nan"), std::string::npos);
}

}  // namespace
}  // namespace stackcheck::report
