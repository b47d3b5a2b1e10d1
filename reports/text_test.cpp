// Number formatting and escaping: what a reader sees and what a browser or a Markdown viewer
// must not mistake for markup.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "reports/text.h"

namespace stackcheck::report {
namespace {

// What the formatters gave, next to what a reader should see, case by case.
using Texts = std::vector<std::string>;

TEST(Text, counts_and_fixed_have_thousands_separators) {
  EXPECT_EQ((Texts{count(0), count(999), count(1234567), count(68347492.4), fixed(12345.678, 1), fixed(-0.01, 1)}),
            (Texts{"0", "999", "1,234,567", "68,347,492", "12,345.7", "0.0"}));
}

TEST(Text, rates_keep_sensible_precision) {
  EXPECT_EQ((Texts{rate(113912.5), rate(395.4), rate(53.14), rate(0.75), rate(0)}),
            (Texts{"113,913", "395", "53.1", "0.75", "0"}));
}

TEST(Text, percent_never_rounds_to_all_or_nothing) {
  EXPECT_EQ(
      (Texts{percent(1, 4), percent(4, 4), percent(0, 4), percent(9999, 10000), percent(1, 100000), percent(1, 0)}),
      (Texts{"25.0%", "100.0%", "0.0%", ">99.9%", "<0.1%", "-"}));
}

TEST(Text, bytes_and_durations) {
  EXPECT_EQ((Texts{bytes(512), bytes(3482), bytes(1023500), bytes(12.5 * 1024 * 1024)}),
            (Texts{"512 B", "3.4 KiB", "1.0 MiB", "12.5 MiB"}));
  EXPECT_EQ((Texts{duration(0.42), duration(45), duration(125), duration(3725), duration(90000)}),
            (Texts{"0.4 s", "45 s", "2 min 05 s", "1 h 02 min", "1 d 01 h"}));
}

TEST(Text, compact_tick_labels) {
  EXPECT_EQ(
      (Texts{compact(0), compact(0.5), compact(250), compact(1500), compact(100000), compact(20e6), compact(1e9)}),
      (Texts{"0", "0.5", "250", "1.5k", "100k", "20M", "1G"}));
}

TEST(Text, html_escape_every_special_character) {
  EXPECT_EQ(html_escape("<script>alert('x') & \"y\"</script>"),
            "&lt;script&gt;alert(&#39;x&#39;) &amp; &quot;y&quot;&lt;/script&gt;");
  EXPECT_EQ(html_escape("plain text"), "plain text");
}

TEST(Text, markdown_escape_leaves_identifiers_readable) {
  EXPECT_EQ((Texts{md_escape("fuzz_relative_ptr"), md_escape("_leading and trailing_"), md_escape("a|b *c* <d> [e]"),
                   md_escape("two\nlines")}),
            (Texts{"fuzz_relative_ptr", "\\_leading and trailing\\_", "a\\|b \\*c\\* \\<d> \\[e\\]", "two lines"}));
}

TEST(Text, markdown_code_spans_survive_backticks_and_pipes) {
  EXPECT_EQ((Texts{md_code("ls -l"), md_code("a `b` c"), md_code("`x`"), md_code("a | b", true),
                   md_code("a | b", false), md_code("")}),
            (Texts{"`ls -l`", "``a `b` c``", "`` `x` ``", "`a \\| b`", "`a | b`", ""}));
}

}  // namespace
}  // namespace stackcheck::report
