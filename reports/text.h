// Text of the reports: numbers as people read them (fmt, thousands separators from a fixed
// locale so the output never depends on the machine's), durations, byte sizes, and the
// escaping of HTML and of Markdown. Pure functions over their arguments.
#pragma once

#include <string>
#include <string_view>

namespace stackcheck::report {

std::string count(double v);                     // 1234567 -> "1,234,567" (rounded to an integer)
std::string fixed(double v, int decimals);       // 12345.678, 1 -> "12,345.7"
std::string rate(double v);                      // precision by size: "52,310", "48.2", "0.75"
std::string percent(double part, double whole);  // "72.4%", "-" when whole is 0
std::string bytes(double v);                     // "512 B", "3.4 KiB", "12.0 MiB"
std::string duration(double seconds);            // "0.4 s", "45 s", "2 min 05 s", "1 h 02 min"
std::string compact(double v);                   // axis ticks: "0", "0.5", "250", "1.5k", "20M"

std::string html_escape(std::string_view text);  // & < > " ' -> entities
// Text for a Markdown paragraph or table cell: the characters that would start markup are
// backslash-escaped ('_' only at a word boundary, so fuzz_parse stays readable; '>' only
// quotes at the start of a line, which a paragraph or cell built here never has).
std::string md_escape(std::string_view text);
// A code span that survives any backticks in `text`; `in_table` also escapes '|', which GFM
// splits cells on even inside code spans.
std::string md_code(std::string_view text, bool in_table = false);

}  // namespace stackcheck::report
