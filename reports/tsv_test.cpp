// Tab-separated tables and the loading of a run directory: good files, and every kind of bad
// input the tool must turn into an error naming file and line.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "reports/run_data.h"
#include "reports/tsv.h"

namespace stackcheck::report {
namespace {
namespace fs = std::filesystem;

Table parse_ok(std::string_view text) {
  auto r = parse_tsv(text, "t.tsv");
  if (auto* e = std::get_if<Error>(&r)) ADD_FAILURE() << e->to_string();
  return std::holds_alternative<Table>(r) ? std::get<Table>(r) : Table{};
}

Error parse_error(std::string_view text) {
  auto r = parse_tsv(text, "t.tsv");
  EXPECT_TRUE(std::holds_alternative<Error>(r)) << "parsed: " << text;
  return std::holds_alternative<Error>(r) ? std::get<Error>(r) : Error{};
}

TEST(Tsv, header_and_rows_with_their_lines) {
  Table t = parse_ok("a\tb\tc\n1\t2\t3\nx\t\tz\n");
  ASSERT_EQ(t.columns, (std::vector<std::string>{"a", "b", "c"}));
  ASSERT_EQ(t.rows.size(), 2u);
  EXPECT_EQ(t.rows[0].line, 2u);
  EXPECT_EQ(t.rows[1].fields, (std::vector<std::string>{"x", "", "z"}));
  EXPECT_EQ(t.column("c"), 2u);
  EXPECT_FALSE(t.column("d"));
}

TEST(Tsv, crlf_bom_blank_lines_and_final_newline) {
  Table crlf = parse_ok("\xEF\xBB\xBFk\tv\r\nseed\t7\r\n\r\nkind\tzoo");
  EXPECT_EQ(crlf.columns[0], "k");
  ASSERT_EQ(crlf.rows.size(), 2u);
  EXPECT_EQ(crlf.rows[0].fields[1], "7");  // no '\r' left on the last field
  EXPECT_EQ(crlf.rows[1].fields[1], "zoo");
  EXPECT_EQ(crlf.rows[1].line, 4u);
  EXPECT_EQ(parse_ok("k\tv\nseed\t7\n\n\n").rows.size(), 1u);
  Table empty = parse_ok("");
  EXPECT_TRUE(empty.columns.empty());
  EXPECT_TRUE(parse_ok("k\tv\n").rows.empty());
}

TEST(Tsv, wrong_field_count_names_the_line) {
  Error e = parse_error("a\tb\tc\n1\t2\t3\n1\t2\n");
  EXPECT_EQ(e.file, "t.tsv");
  EXPECT_EQ(e.line, 3u);
  EXPECT_EQ(e.to_string(), "t.tsv:3: expected 3 tab-separated fields as in the header, found 2");
  EXPECT_EQ(parse_error("a\tb\n1\t2\t3\n").line, 2u);  // too many is as bad as too few
}

TEST(Tsv, bad_headers_and_binary) {
  EXPECT_NE(parse_error("a\ta\n").message.find("twice"), std::string::npos);
  EXPECT_NE(parse_error("a\t\tb\n").message.find("empty column name"), std::string::npos);
  EXPECT_EQ(parse_error(std::string_view("a\tb\n1\0\t2\n", 9)).line, 2u);
}

TEST(Tsv, numbers) {
  EXPECT_EQ(std::get<double>(parse_number("42")), 42);
  EXPECT_EQ(std::get<double>(parse_number("1.5e3")), 1500);
  EXPECT_EQ(std::get<double>(parse_number("0.25")), 0.25);
  for (const char* bad : {"", "abc", "12abc", "-1", "inf", "nan", "1,000", " 1", "0x10", "+"})
    EXPECT_TRUE(std::holds_alternative<Error>(parse_number(bad))) << bad;
  EXPECT_FALSE(std::get<std::optional<double>>(parse_optional_number("-")));
  EXPECT_FALSE(std::get<std::optional<double>>(parse_optional_number("")));
  EXPECT_EQ(*std::get<std::optional<double>>(parse_optional_number("3")), 3);
  EXPECT_TRUE(std::holds_alternative<Error>(parse_optional_number("n/a")));
}

TEST(Tsv, reader_binds_columns_by_name_and_reports_the_first_bad_field) {
  Table t = parse_ok("extra\tname\tcount\nq\tx\t3\nq\ty\tmany\nq\tz\tfew\n");
  auto bound = Reader::bind(t, {"name", "count"});
  ASSERT_TRUE(std::holds_alternative<Reader>(bound));
  Reader r = std::get<Reader>(bound);
  EXPECT_EQ(r.text(t.rows[0], "name"), "x");  // the unknown column before it is ignored
  EXPECT_EQ(r.number(t.rows[0], "count"), 3);
  EXPECT_FALSE(r.error());
  r.number(t.rows[1], "count");
  r.number(t.rows[2], "count");
  ASSERT_TRUE(r.error());
  EXPECT_EQ(r.error()->to_string(), "t.tsv:3: column count: expected a non-negative number, found 'many'");

  auto missing = Reader::bind(t, {"name", "seconds"});
  ASSERT_TRUE(std::holds_alternative<Error>(missing));
  EXPECT_EQ(std::get<Error>(missing).to_string(), "t.tsv:1: the header lacks the column 'seconds'");

  auto optional = Reader::bind(t, {"name"}, {"rss_mb"});
  ASSERT_TRUE(std::holds_alternative<Reader>(optional));
  EXPECT_FALSE(std::get<Reader>(optional).has("rss_mb"));
}

TEST(Tsv, quoted_fields_stay_on_one_line) {
  EXPECT_EQ(quote_field("a\nb"), "'a\\x0ab'");
  EXPECT_EQ(quote_field(std::string(100, 'x')), "'" + std::string(40, 'x') + "...'");
}

// A scratch run directory under the test's temporary folder.
struct RunDir {
  fs::path path;
  explicit RunDir(const std::string& name) : path(fs::path(testing::TempDir()) / ("report_tsv_" + name)) {
    fs::remove_all(path);
    fs::create_directories(path);
    write("run.tsv", "key\tvalue\nkind\tcampaign\nseed\t5\n");
  }
  void write(const std::string& rel, const std::string& text) const {
    fs::create_directories((path / rel).parent_path());
    std::ofstream(path / rel, std::ios::binary) << text;
  }
  Error error() const {
    auto r = load_run_dir(path.string());
    EXPECT_TRUE(std::holds_alternative<Error>(r));
    return std::holds_alternative<Error>(r) ? std::get<Error>(r) : Error{};
  }
  // The load error, which must name file `rel` and say `part`.
  Error error_in(const std::string& rel, std::string_view part) const {
    Error e = error();
    EXPECT_EQ(e.file, (path / rel).string());
    EXPECT_NE(e.message.find(part), std::string::npos) << e.message;
    return e;
  }
  RunData data() const {
    auto r = load_run_dir(path.string());
    if (auto* e = std::get_if<Error>(&r)) ADD_FAILURE() << e->to_string();
    return std::holds_alternative<RunData>(r) ? std::get<RunData>(r) : RunData{};
  }
};

TEST(Load, only_run_tsv_is_required) {
  RunDir d("minimal");
  RunData data = d.data();
  EXPECT_EQ(data.value("seed"), "5");
  EXPECT_FALSE(data.has_targets || data.has_buckets || data.has_zoo || data.notes);
  fs::remove(d.path / "run.tsv");
  d.error_in("run.tsv", "missing");
}

TEST(Load, errors_name_file_and_line) {
  RunDir d("errors");
  d.write("run.tsv", "key\tvalue\nseed\t5\nseed\t6\n");
  EXPECT_EQ(d.error().line, 3u);  // a key given twice
  d.write("run.tsv", "key\tvalue\nseed\t5\n");
  d.write("classes.tsv", "target\tclass\nfuzz_a\tpass\n");
  EXPECT_EQ(d.error().to_string(), (d.path / "classes.tsv").string() + ":1: the header lacks the column 'count'");
  fs::remove(d.path / "classes.tsv");
  d.write("series/fuzz_parse.tsv", "t_s\texecs\texec_s\tcov\tft\tcorpus\n0\t0\t0\t1\t1\t1\n10\t5\t0.5\t2\t2\tlots\n");
  EXPECT_EQ(d.error_in("series/fuzz_parse.tsv", "column corpus").line, 3u);
  d.write("series/fuzz_parse.tsv", "t_s\texecs\texec_s\tcov\tft\tcorpus\n10\t0\t0\t1\t1\t1\n5\t5\t0.5\t2\t2\t2\n");
  EXPECT_NE(d.error().message.find("time order"), std::string::npos);
}

TEST(Load, an_unreadable_file_is_an_error) {
  RunDir d("unreadable");
  fs::create_directories(d.path / "targets.tsv");  // a directory where a file should be
  d.error_in("targets.tsv", "cannot read");
}

TEST(Load, optional_values_and_empty_files) {
  RunDir d("optional");
  d.write("buckets.tsv", "");
  d.write("zoo.tsv",
          "defect\tdetected\tseconds\toracle\trule\treproducer_size\treproducer\tfound_by\n"
          "a\tyes\t1.5\tbind\tone-copy\t200\tcorpus/zoo/a.plan\tproperty\n"
          "b\tno\t-\t-\t-\t-\t-\t-\n");
  RunData data = d.data();
  EXPECT_TRUE(data.has_buckets);
  EXPECT_TRUE(data.buckets.empty());
  ASSERT_EQ(data.zoo.size(), 2u);
  EXPECT_TRUE(data.zoo[0].detected);
  EXPECT_EQ(*data.zoo[0].seconds, 1.5);
  EXPECT_FALSE(data.zoo[1].seconds);
  d.write("zoo.tsv",
          "defect\tdetected\tseconds\toracle\trule\treproducer_size\treproducer\tfound_by\n"
          "a\tmaybe\t1\t-\t-\t-\t-\t-\n");
  EXPECT_NE(d.error().message.find("expected yes or no"), std::string::npos);
}

TEST(Load, target_order_follows_run_tsv_then_the_files) {
  RunDir d("order");
  d.write("run.tsv", "key\tvalue\ntargets\tfuzz_b fuzz_a\n");
  d.write("series/fuzz_a.tsv", "t_s\texecs\texec_s\tcov\tft\tcorpus\n0\t0\t0\t0\t0\t0\n");
  d.write("series/fuzz_b.tsv", "t_s\texecs\texec_s\tcov\tft\tcorpus\n0\t0\t0\t0\t0\t0\n");
  d.write("series/fuzz_c.tsv", "t_s\texecs\texec_s\tcov\tft\tcorpus\n");
  d.write("series/notes.txt", "not a series");
  RunData data = d.data();
  EXPECT_EQ(data.target_order(), (std::vector<std::string>{"fuzz_b", "fuzz_a", "fuzz_c"}));
  ASSERT_EQ(data.series.size(), 3u);
  EXPECT_EQ(data.series[0].target, "fuzz_b");
}

}  // namespace
}  // namespace stackcheck::report
