// Inline SVG charts for index.html: line charts (one line per target over time) and
// horizontal bar charts (grouped or stacked bars per row). Every chart is self-contained
// SVG text (no scripts, no external fonts or styles beyond the page's font family), with
// axes, tick labels and a legend; all text is HTML-escaped. A y axis switches to a log scale
// when the series' peaks span more than two decades (50 exec/s next to 50,000 exec/s), so a
// slow target is not a flat line at zero; zeros then sit on the bottom of the axis.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace stackcheck::report {

enum class Scale { Linear, Log };

// An axis from lo to hi with its tick values. Linear axes start at 0 and end at a "nice"
// value (1, 2, 2.5 or 5 times a power of ten); log axes start at a decade, end at 1, 2 or 5
// times a decade, and have their ticks on the decades.
struct Axis {
  Scale scale = Scale::Linear;
  double lo = 0, hi = 1;
  std::vector<double> ticks;
  // Where v falls between pixel positions p0 (at lo) and p1 (at hi); clamped to the axis.
  double place(double v, double p0, double p1) const;
};
Axis linear_axis(double max);
Axis log_axis(double min_positive, double max);
// Log when the largest peak is more than 100 times the smallest positive peak.
Scale choose_scale(const std::vector<double>& peaks);
// The axis for these values on that scale.
Axis axis_for(const std::vector<double>& values, Scale scale);

// Colour and dash pattern of the i-th series (Okabe-Ito colours, readable by colour-blind
// readers; past the palette the colours repeat dashed).
std::string series_colour(size_t i);
std::string series_dash(size_t i);

struct LegendEntry {
  std::string name, colour, dash;
};

struct Point {
  double x = 0, y = 0;
};

struct LineSeries {
  std::string name, colour, dash;
  std::vector<Point> points;  // x non-decreasing
};

struct LineChart {
  std::string title, x_label, y_label;
  std::vector<LineSeries> series;
  std::optional<Scale> scale;     // unset: choose_scale over the series' peaks
  int width = 600, height = 300;  // without the legend, which adds rows below
};

struct BarSegment {
  double value = 0;
  std::string colour, tooltip;
  std::string inside;  // drawn inside the segment when it fits (a share)
};

struct Bar {
  std::vector<BarSegment> segments;  // stacked left to right
  std::string end_label;             // after the bar: its value, or e.g. "not detected"
  std::string end_colour;            // of the end label; "" for the default text colour
};

struct BarRow {
  std::string label;
  std::vector<Bar> bars;  // grouped top to bottom
};

struct BarChart {
  std::string title, x_label;
  std::vector<BarRow> rows;
  std::vector<LegendEntry> legend;
  std::optional<double> x_max;  // a fixed axis end (100 for percentages)
  std::optional<Scale> scale;   // unset: choose_scale over the bar totals
  std::string tick_suffix;      // appended to tick labels ("%")
  int width = 900;
};

std::string line_chart_svg(const LineChart& chart);
std::string bar_chart_svg(const BarChart& chart);

}  // namespace stackcheck::report
