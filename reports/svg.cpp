#include "reports/svg.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iterator>

#include "reports/text.h"

namespace stackcheck::report {
namespace {

constexpr double kFont = 12;    // tick labels, legend
constexpr double kCharW = 0.6;  // average glyph width of a sans font, in em (estimate)
constexpr double kLegendRow = 18;
constexpr size_t kMaxLabel = 40;  // bar labels longer than this are cut (the full text is the tooltip)

double text_width(std::string_view s, double font = kFont) { return static_cast<double>(s.size()) * font * kCharW; }

// 1, 2, 2.5 or 5 times a power of ten, the smallest such at least `raw`.
double nice_step(double raw) {
  double p = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 2.5, 5.0, 10.0})
    if (m * p >= raw * (1 - 1e-9)) return m * p;
  return 10 * p;
}

std::string num(double v) { return fmt::format("{:.1f}", v); }

// A label cut to `max_chars` with an ellipsis (the full text goes in a <title>).
std::string cut(const std::string& s, size_t max_chars) {
  if (s.size() <= max_chars) return s;
  return s.substr(0, max_chars - 1) + "\u2026";
}

// Dark text on light fills, white on dark ones.
std::string text_on(const std::string& fill) {
  if (fill.size() != 7 || fill[0] != '#') return "#fff";
  auto channel = [&](int i) { return std::stoi(fill.substr(1 + 2 * i, 2), nullptr, 16) / 255.0; };
  double lum = 0.2126 * channel(0) + 0.7152 * channel(1) + 0.0722 * channel(2);
  return lum > 0.55 ? "#1a1a1a" : "#fff";
}

struct Svg {
  std::string out;
  template <class... A>
  void put(fmt::format_string<A...> f, A&&... a) {
    fmt::format_to(std::back_inserter(out), f, std::forward<A>(a)...);
  }
  void open(double w, double h, const std::string& title) {
    put("<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" viewBox=\"0 0 {} {}\" width=\"{}\" height=\"{}\" "
        "role=\"img\" aria-label=\"{}\" font-family=\"system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif\" "
        "font-size=\"{}\">\n",
        num(w), num(h), num(w), num(h), html_escape(title), kFont);
    put("<title>{}</title>\n", html_escape(title));
  }
  void text(double x, double y, const std::string& s, const char* anchor = "start", const char* extra = "") {
    put("<text x=\"{}\" y=\"{}\" text-anchor=\"{}\"{}>{}</text>\n", num(x), num(y), anchor, extra, html_escape(s));
  }
  void line(double x1, double y1, double x2, double y2, const char* cls) {
    put("<line class=\"{}\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/>\n", cls, num(x1), num(y1), num(x2), num(y2));
  }
  void title_line(double x, double y, const std::string& title, Scale scale) {
    put("<text class=\"chart-title\" x=\"{}\" y=\"{}\" font-size=\"14\" font-weight=\"600\">{}", num(x), num(y),
        html_escape(title));
    if (scale == Scale::Log)
      put("<tspan class=\"scale-note\" font-size=\"12\" font-weight=\"400\" fill=\"#666\"> (log scale)</tspan>");
    put("</text>\n");
  }
  // The <svg> element and the chart's title line.
  void open_chart(double w, double h, const std::string& title, double title_x, Scale scale) {
    open(w, h, title);
    title_line(title_x, 20, title, scale);
  }
  // The grid group: a line at each tick of `a` (placed between pixels p0 and p1) across the
  // plot from `from` to `to`; horizontal lines for a y axis, vertical ones for an x axis.
  void grid(const Axis& a, double p0, double p1, bool horizontal, double from, double to) {
    put("<g class=\"grid\" stroke=\"#e3e3e3\" stroke-width=\"1\">\n");
    for (double t : a.ticks) {
      const double p = a.place(t, p0, p1);
      if (horizontal) {
        put("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/>\n", num(from), num(p), num(to), num(p));
      } else {
        put("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/>\n", num(p), num(from), num(p), num(to));
      }
    }
    put("</g>\n");
  }
  // The two axis lines: up the left edge x0 from y0 to y1, along the bottom y0 to x1.
  void axes(double x0, double y1, double y0, double x1) {
    put("<path class=\"axes\" d=\"M{} {}V{}H{}\" fill=\"none\" stroke=\"#888\" stroke-width=\"1\"/>\n", num(x0),
        num(y1), num(y0), num(x1));
  }
  void close() { put("</svg>\n"); }
};

// Lays legend entries out in columns under the plot; returns the rows used.
int legend(Svg& svg, const std::vector<LegendEntry>& entries, double x0, double width, double top, bool as_lines) {
  if (entries.empty()) return 0;
  double colw = 0;
  for (const auto& e : entries) colw = std::max(colw, text_width(e.name) + 34);
  int cols = std::max(1, static_cast<int>(width / colw));
  cols = std::min<int>(cols, static_cast<int>(entries.size()));
  svg.put("<g class=\"legend\">\n");
  for (size_t i = 0; i < entries.size(); ++i) {
    double x = x0 + static_cast<double>(i % cols) * colw;
    double y = top + static_cast<double>(i / cols) * kLegendRow;
    const auto& e = entries[i];
    if (as_lines) {
      svg.put("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\" stroke-width=\"3\"{}/>\n", num(x),
              num(y - 4), num(x + 22), num(y - 4), e.colour,
              e.dash.empty() ? std::string() : fmt::format(" stroke-dasharray=\"{}\"", e.dash));
    } else {
      svg.put("<rect x=\"{}\" y=\"{}\" width=\"14\" height=\"12\" rx=\"2\" fill=\"{}\"/>\n", num(x + 4), num(y - 10),
              e.colour);
    }
    svg.text(x + 28, y, e.name);
  }
  svg.put("</g>\n");
  return static_cast<int>((entries.size() + cols - 1) / cols);
}

// The rows the legend will take in `width` (its height decides the SVG's).
int legend_rows(const std::vector<LegendEntry>& entries, double width, bool as_lines) {
  Svg probe;
  return legend(probe, entries, 0, width, 0, as_lines);
}

// Keeps at most about four points per pixel column (first, lowest, highest, last), so a long
// campaign's series stays small without losing its spikes.
std::vector<std::pair<double, double>> thin(std::vector<std::pair<double, double>> px) {
  if (px.size() < 2000) return px;
  std::vector<std::pair<double, double>> out;
  size_t i = 0;
  while (i < px.size()) {
    size_t j = i;
    long column = std::lround(px[i].first);
    size_t lo = i, hi = i;
    while (j < px.size() && std::lround(px[j].first) == column) {
      if (px[j].second < px[lo].second) lo = j;
      if (px[j].second > px[hi].second) hi = j;
      ++j;
    }
    std::vector<size_t> keep = {i, lo, hi, j - 1};
    std::sort(keep.begin(), keep.end());
    keep.erase(std::unique(keep.begin(), keep.end()), keep.end());
    for (size_t k : keep) out.push_back(px[k]);
    i = j;
  }
  return out;
}

}  // namespace

double Axis::place(double v, double p0, double p1) const {
  double f = 0;
  if (scale == Scale::Log) {
    f = v <= lo ? 0 : (std::log10(v) - std::log10(lo)) / (std::log10(hi) - std::log10(lo));
  } else {
    f = (v - lo) / (hi - lo);
  }
  f = std::clamp(f, 0.0, 1.0);
  return p0 + f * (p1 - p0);
}

Axis linear_axis(double max) {
  Axis a;
  a.scale = Scale::Linear;
  if (!(max > 0)) max = 1;
  double step = nice_step(max / 5);
  a.hi = std::ceil(max / step - 1e-9) * step;
  for (int i = 0; step * i <= a.hi * (1 + 1e-9); ++i) a.ticks.push_back(step * i);
  return a;
}

Axis log_axis(double min_positive, double max) {
  Axis a;
  a.scale = Scale::Log;
  if (!(min_positive > 0)) min_positive = 1;
  if (max < min_positive) max = min_positive;
  int d0 = static_cast<int>(std::floor(std::log10(min_positive) + 1e-9));
  int d1 = static_cast<int>(std::ceil(std::log10(max) - 1e-9));
  if (d1 <= d0) d1 = d0 + 1;
  a.lo = std::pow(10.0, d0);
  // The top is the nice value (2 or 5 times a decade) just above max: a whole decade of empty
  // plot above 140 s would squeeze the data into the lower half.
  a.hi = std::pow(10.0, d1);
  for (double m : {0.2, 0.5})
    if (a.hi * m >= max * (1 - 1e-9) && a.hi * m > a.lo) {
      a.hi *= m;
      break;
    }
  int step = (d1 - d0 + 5) / 6;  // at most about six labelled decades
  for (int d = d0; std::pow(10.0, d) <= a.hi * (1 + 1e-9); d += step) a.ticks.push_back(std::pow(10.0, d));
  return a;
}

Scale choose_scale(const std::vector<double>& peaks) {
  double lo = 0, hi = 0;
  for (double p : peaks) {
    if (p <= 0) continue;
    lo = lo == 0 ? p : std::min(lo, p);
    hi = std::max(hi, p);
  }
  return lo > 0 && hi / lo > 100 ? Scale::Log : Scale::Linear;
}

Axis axis_for(const std::vector<double>& values, Scale scale) {
  double max = 0, min_pos = 0;
  for (double v : values) {
    max = std::max(max, v);
    if (v > 0) min_pos = min_pos == 0 ? v : std::min(min_pos, v);
  }
  if (scale == Scale::Log && min_pos > 0) return log_axis(min_pos, max);
  return linear_axis(max);
}

std::string series_colour(size_t i) {
  static constexpr const char* kPalette[] = {"#0072B2", "#E69F00", "#009E73", "#D55E00",
                                             "#CC79A7", "#56B4E9", "#7F6D00", "#555555"};
  return kPalette[i % std::size(kPalette)];
}

std::string series_dash(size_t i) {
  static constexpr const char* kDashes[] = {"", "7 4", "2 3", "10 3 2 3"};
  return kDashes[(i / 8) % std::size(kDashes)];
}

std::string line_chart_svg(const LineChart& c) {
  std::vector<double> peaks, ys;
  double xmax = 0;
  for (const auto& s : c.series) {
    double peak = 0;
    for (const auto& p : s.points) {
      peak = std::max(peak, p.y);
      ys.push_back(p.y);
      xmax = std::max(xmax, p.x);
    }
    peaks.push_back(peak);
  }
  Scale scale = c.scale.value_or(choose_scale(peaks));
  Axis ya = axis_for(ys, scale);
  Axis xa = linear_axis(xmax);

  double tick_w = 0;
  for (double t : ya.ticks) tick_w = std::max(tick_w, text_width(compact(t)));
  const double W = c.width, H = c.height;
  const double ml = 24 + tick_w + 8, mr = 18, mt = 34, mb = 46;
  const double x0 = ml, x1 = W - mr, y0 = H - mb, y1 = mt;

  std::vector<LegendEntry> entries;
  for (const auto& s : c.series) entries.push_back({s.name, s.colour, s.dash});
  int rows = legend_rows(entries, x1 - x0, true);
  const double legend_top = H + 10;
  const double total_h = rows ? legend_top + (rows - 1) * kLegendRow + 10 : H;

  Svg svg;
  svg.open_chart(W, total_h, c.title, x0, scale);
  svg.grid(ya, y0, y1, true, x0, x1);
  svg.put("<g class=\"axis y-axis\" fill=\"#444\">\n");
  for (double t : ya.ticks) svg.text(x0 - 6, ya.place(t, y0, y1) + 4, compact(t), "end");
  svg.put("</g>\n<g class=\"axis x-axis\" fill=\"#444\" stroke-width=\"1\">\n");
  for (double t : xa.ticks) {
    double x = xa.place(t, x0, x1);
    svg.put("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#888\"/>\n", num(x), num(y0), num(x), num(y0 + 4));
    svg.text(x, y0 + 17, compact(t), "middle");
  }
  svg.put("</g>\n");
  svg.axes(x0, y1, y0, x1);
  svg.text((x0 + x1) / 2, y0 + 36, c.x_label, "middle", " class=\"axis-label\" fill=\"#333\"");
  svg.put(
      "<text class=\"axis-label\" transform=\"translate(14 {}) rotate(-90)\" text-anchor=\"middle\" "
      "fill=\"#333\">{}</text>\n",
      num((y0 + y1) / 2), html_escape(c.y_label));
  if (ys.empty()) svg.text((x0 + x1) / 2, (y0 + y1) / 2, "no samples", "middle", " fill=\"#888\"");

  for (const auto& s : c.series) {
    std::vector<std::pair<double, double>> px;
    for (const auto& p : s.points) px.emplace_back(xa.place(p.x, x0, x1), ya.place(p.y, y0, y1));
    px = thin(std::move(px));
    svg.put(
        "<polyline class=\"series\" data-series=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\" "
        "stroke-linejoin=\"round\"{} points=\"",
        html_escape(s.name), s.colour,
        s.dash.empty() ? std::string() : fmt::format(" stroke-dasharray=\"{}\"", s.dash));
    for (size_t i = 0; i < px.size(); ++i) svg.put("{}{},{}", i ? " " : "", num(px[i].first), num(px[i].second));
    svg.put("\"><title>{}</title></polyline>\n", html_escape(s.name));
    if (px.size() <= 12)  // a few samples (or one) are drawn as points too
      for (const auto& [x, y] : px)
        svg.put("<circle class=\"marker\" cx=\"{}\" cy=\"{}\" r=\"3.5\" fill=\"{}\"/>\n", num(x), num(y), s.colour);
  }
  legend(svg, entries, x0, x1 - x0, legend_top, true);
  svg.close();
  return svg.out;
}

std::string bar_chart_svg(const BarChart& c) {
  std::vector<double> totals;
  size_t label_chars = 0;
  double end_w = 0;
  for (const auto& row : c.rows) {
    label_chars = std::max(label_chars, std::min<size_t>(row.label.size(), kMaxLabel));
    for (const auto& bar : row.bars) {
      double t = 0;
      for (const auto& s : bar.segments) t += s.value;
      totals.push_back(t);
      end_w = std::max(end_w, text_width(bar.end_label, 11));
    }
  }
  Scale scale = c.scale.value_or(c.x_max ? Scale::Linear : choose_scale(totals));
  Axis xa = c.x_max ? linear_axis(*c.x_max) : axis_for(totals, scale);

  const double W = c.width;
  const double ml = text_width(std::string(label_chars, 'x')) + 16, mr = end_w + 14, mt = 34;
  const double x0 = ml, x1 = W - mr;
  auto bar_h = [](const BarRow& r) { return r.bars.size() > 1 ? 11.0 : 16.0; };
  double plot_h = 0;
  for (const auto& r : c.rows) plot_h += bar_h(r) * static_cast<double>(r.bars.size()) + 2.0 * (r.bars.size() - 1) + 12;
  const double y1 = mt, y0 = mt + plot_h;
  int rows = legend_rows(c.legend, x1 - x0, false);
  const double legend_top = y0 + (c.x_label.empty() ? 38 : 56);
  const double total_h = rows ? legend_top + (rows - 1) * kLegendRow + 10 : y0 + (c.x_label.empty() ? 26 : 42);

  Svg svg;
  svg.open_chart(W, total_h, c.title, x0, scale);
  svg.grid(xa, x0, x1, false, y1, y0);
  svg.put("<g class=\"axis x-axis\" fill=\"#444\">\n");
  for (double t : xa.ticks) svg.text(xa.place(t, x0, x1), y0 + 16, compact(t) + c.tick_suffix, "middle");
  svg.put("</g>\n");
  if (!c.x_label.empty()) svg.text((x0 + x1) / 2, y0 + 34, c.x_label, "middle", " class=\"axis-label\" fill=\"#333\"");

  double y = y1 + 6;
  for (const auto& row : c.rows) {
    double h = bar_h(row);
    double row_h = h * static_cast<double>(row.bars.size()) + 2.0 * (row.bars.size() - 1);
    svg.put("<g class=\"bar-row\"><title>{}</title>\n", html_escape(row.label));
    svg.text(x0 - 8, y + row_h / 2 + 4, cut(row.label, kMaxLabel), "end", " fill=\"#222\"");
    svg.put("</g>\n");
    for (const auto& bar : row.bars) {
      double acc = 0, end = x0;
      for (const auto& s : bar.segments) {
        double a = scale == Scale::Log ? x0 : xa.place(acc, x0, x1);
        double b = xa.place(acc + s.value, x0, x1);
        acc += s.value;
        if (b - a < 0.05) continue;
        svg.put(
            "<rect class=\"bar\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\"><title>{}</title></rect>\n",
            num(a), num(y), num(b - a), num(h), s.colour, html_escape(s.tooltip));
        if (!s.inside.empty() && b - a > text_width(s.inside, 11) + 6)
          svg.put("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" font-size=\"11\" fill=\"{}\">{}</text>\n",
                  num((a + b) / 2), num(y + h / 2 + 4), text_on(s.colour), html_escape(s.inside));
        end = b;
      }
      if (!bar.end_label.empty())
        svg.put("<text class=\"end-label\" x=\"{}\" y=\"{}\" font-size=\"11\" fill=\"{}\">{}</text>\n", num(end + 5),
                num(y + h / 2 + 4), bar.end_colour.empty() ? "#333" : bar.end_colour, html_escape(bar.end_label));
      y += h + 2;
    }
    y += 10;
  }
  svg.axes(x0, y1, y0, x1);
  legend(svg, c.legend, x0, x1 - x0, legend_top, false);
  svg.close();
  return svg.out;
}

}  // namespace stackcheck::report
