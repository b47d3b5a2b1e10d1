#include "reports/text.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <locale>

namespace stackcheck::report {
namespace {

struct Thousands : std::numpunct<char> {
  char do_thousands_sep() const override { return ','; }
  std::string do_grouping() const override { return "\3"; }
  char do_decimal_point() const override { return '.'; }
};

const std::locale& grouping() {
  static const std::locale loc(std::locale::classic(), new Thousands);
  return loc;
}

bool word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }

}  // namespace

std::string count(double v) { return fmt::format(grouping(), "{:L}", static_cast<long long>(std::llround(v))); }

std::string fixed(double v, int decimals) {
  std::string s = fmt::format(grouping(), "{:.{}Lf}", v, decimals);
  if (s.starts_with('-') && s.find_first_not_of("-0.,") == std::string::npos) s.erase(0, 1);  // "-0.0"
  return s;
}

std::string rate(double v) {
  double a = std::fabs(v);
  if (a >= 100 || a == 0) return count(v);
  if (a >= 10) return fixed(v, 1);
  return fixed(v, 2);
}

std::string percent(double part, double whole) {
  if (whole <= 0) return "-";
  double p = 100.0 * part / whole;
  // Never round a partial share to 100% or a non-zero one to 0%.
  if (p > 99.9 && part < whole) return ">99.9%";
  if (p < 0.1 && part > 0) return "<0.1%";
  return fixed(p, 1) + "%";
}

std::string bytes(double v) {
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (v >= 999.5 && u < 4) {  // what would print as 1,000 KiB reads better as 1.0 MiB
    v /= 1024;
    ++u;
  }
  if (u == 0) return count(v) + " B";
  return fmt::format("{} {}", fixed(v, v >= 100 ? 0 : 1), kUnits[u]);
}

std::string duration(double seconds) {
  if (seconds < 10) return fmt::format("{:.1f} s", seconds);
  auto s = static_cast<long long>(std::llround(seconds));
  if (s < 60) return fmt::format("{} s", s);
  if (s < 3600) return fmt::format("{} min {:02} s", s / 60, s % 60);
  if (s < 86400) return fmt::format("{} h {:02} min", s / 3600, s % 3600 / 60);
  return fmt::format("{} d {:02} h", s / 86400, s % 86400 / 3600);
}

std::string compact(double v) {
  static constexpr const char* kSuffix[] = {"", "k", "M", "G", "T", "P"};
  if (v == 0) return "0";
  int i = 0;
  while (std::fabs(v) >= 1000 && i < 5) {
    v /= 1000;
    ++i;
  }
  // Three significant digits at most, trailing zeros dropped ("2.50" -> "2.5").
  std::string s = fmt::format("{:.3g}", v);
  if (s.find('e') != std::string::npos) s = fmt::format("{:.0f}", v);
  return s + kSuffix[i];
}

std::string html_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string md_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '_') {
      bool inside = i > 0 && i + 1 < text.size() && word_char(text[i - 1]) && word_char(text[i + 1]);
      if (!inside) out += '\\';
      out += c;
    } else if (c == '\n' || c == '\r') {
      out += ' ';
    } else {
      if (std::string_view("\\`*[]<|#~").find(c) != std::string_view::npos) out += '\\';
      out += c;
    }
  }
  return out;
}

std::string md_code(std::string_view text, bool in_table) {
  size_t longest = 0, run = 0;
  for (char c : text) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  std::string fence(longest + 1, '`');
  std::string body;
  for (char c : text) {
    if (c == '\n' || c == '\r') c = ' ';
    if (c == '|' && in_table) body += '\\';
    body += c;
  }
  if (body.empty()) return "";
  bool pad = body.front() == '`' || body.back() == '`';
  return fence + (pad ? " " : "") + body + (pad ? " " : "") + fence;
}

}  // namespace stackcheck::report
