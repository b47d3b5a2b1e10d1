// Number formatting and escaping: what a reader sees and what a browser or a Markdown viewer
// must not mistake for markup.
#include <gtest/gtest.h>

#include "reports/text.h"

namespace stackcheck::report {
namespace {

TEST(Text, counts_and_fixed_have_thousands_separators) {
  EXPECT_EQ(count(0), "0");
  EXPECT_EQ(count(999), "999");
  EXPECT_EQ(count(1234567), "1,234,567");
  EXPECT_EQ(count(68347492.4), "68,347,492");
  EXPECT_EQ(fixed(12345.678, 1), "12,345.7");
  EXPECT_EQ(fixed(-0.01, 1), "0.0");
}

TEST(Text, rates_keep_sensible_precision) {
  EXPECT_EQ(rate(113912.5), "113,913");
  EXPECT_EQ(rate(395.4), "395");
  EXPECT_EQ(rate(53.14), "53.1");
  EXPECT_EQ(rate(0.75), "0.75");
  EXPECT_EQ(rate(0), "0");
}

TEST(Text, percent_never_rounds_to_all_or_nothing) {
  EXPECT_EQ(percent(1, 4), "25.0%");
  EXPECT_EQ(percent(4, 4), "100.0%");
  EXPECT_EQ(percent(0, 4), "0.0%");
  EXPECT_EQ(percent(9999, 10000), ">99.9%");
  EXPECT_EQ(percent(1, 100000), "<0.1%");
  EXPECT_EQ(percent(1, 0), "-");
}

TEST(Text, bytes_and_durations) {
  EXPECT_EQ(bytes(512), "512 B");
  EXPECT_EQ(bytes(3482), "3.4 KiB");
  EXPECT_EQ(bytes(1023500), "1.0 MiB");
  EXPECT_EQ(bytes(12.5 * 1024 * 1024), "12.5 MiB");
  EXPECT_EQ(duration(0.42), "0.4 s");
  EXPECT_EQ(duration(45), "45 s");
  EXPECT_EQ(duration(125), "2 min 05 s");
  EXPECT_EQ(duration(3725), "1 h 02 min");
  EXPECT_EQ(duration(90000), "1 d 01 h");
}

TEST(Text, compact_tick_labels) {
  EXPECT_EQ(compact(0), "0");
  EXPECT_EQ(compact(0.5), "0.5");
  EXPECT_EQ(compact(250), "250");
  EXPECT_EQ(compact(1500), "1.5k");
  EXPECT_EQ(compact(100000), "100k");
  EXPECT_EQ(compact(20e6), "20M");
  EXPECT_EQ(compact(1e9), "1G");
}

TEST(Text, html_escape_every_special_character) {
  EXPECT_EQ(html_escape("<script>alert('x') & \"y\"</script>"),
            "&lt;script&gt;alert(&#39;x&#39;) &amp; &quot;y&quot;&lt;/script&gt;");
  EXPECT_EQ(html_escape("plain text"), "plain text");
}

TEST(Text, markdown_escape_leaves_identifiers_readable) {
  EXPECT_EQ(md_escape("fuzz_relative_ptr"), "fuzz_relative_ptr");
  EXPECT_EQ(md_escape("_leading and trailing_"), "\\_leading and trailing\\_");
  EXPECT_EQ(md_escape("a|b *c* <d> [e]"), "a\\|b \\*c\\* \\<d> \\[e\\]");
  EXPECT_EQ(md_escape("two\nlines"), "two lines");
}

TEST(Text, markdown_code_spans_survive_backticks_and_pipes) {
  EXPECT_EQ(md_code("ls -l"), "`ls -l`");
  EXPECT_EQ(md_code("a `b` c"), "``a `b` c``");
  EXPECT_EQ(md_code("`x`"), "`` `x` ``");
  EXPECT_EQ(md_code("a | b", true), "`a \\| b`");
  EXPECT_EQ(md_code("a | b", false), "`a | b`");
  EXPECT_EQ(md_code(""), "");
}

}  // namespace
}  // namespace stackcheck::report
