// Tab-separated tables and the loading of a run directory: good files, and every kind of bad
// input the tool must turn into an error naming file and line.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <utility>

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

constexpr const char* kReachHeader = "scope\tname\tlines\tharness\tunit\tunion\tbranches\tb_harness\tb_unit\tb_union\n";

TEST(Load, reach_rows_are_checked_against_each_other) {
  RunDir d("reach");
  d.write("reach.tsv", std::string(kReachHeader) +
                           "total\tstack/\t100\t90\t80\t95\t50\t40\t30\t45\n"
                           "file\tstack/ir/parser.cpp\t100\t90\t80\t95\t50\t40\t30\t45\n");
  RunData data = d.data();
  ASSERT_EQ(data.reach.size(), 2u);
  EXPECT_EQ(data.reach[0].unit_only(), 5);
  EXPECT_EQ(data.reach[0].neither(), 5);
  EXPECT_EQ(data.reach[0].b_unit_only(), 5);
  EXPECT_EQ(data.reach[0].b_neither(), 5);
  const std::string file = (d.path / "reach.tsv").string();
  auto error_with = [&](const std::string& row) {
    d.write("reach.tsv", std::string(kReachHeader) + "total\tstack/\t100\t90\t80\t95\t50\t40\t30\t45\n" + row + "\n");
    return d.error().to_string();
  };
  // Each row after the total, and what the load says of it after the file's name.
  const std::pair<const char*, const char*> bad_rows[] = {
      {"folder\tstack/ir\t100\t96\t80\t95\t50\t40\t30\t45", ":3: stack/ir: column harness: 96 is above union (95)"},
      {"folder\tstack/ir\t100\t90\t96\t95\t50\t40\t30\t45", ":3: stack/ir: column unit: 96 is above union (95)"},
      {"folder\tstack/ir\t90\t90\t80\t95\t50\t40\t30\t45", ":3: stack/ir: column union: 95 is above lines (90)"},
      {"folder\tstack/ir\t100\t50\t40\t95\t50\t40\t30\t45",
       ":3: stack/ir: column union: 95 is above harness + unit (90)"},
      {"folder\tstack/ir\t100\t90\t80\t95\t50\t46\t30\t45", ":3: stack/ir: column b_harness: 46 is above b_union (45)"},
      {"folder\tstack/ir\t100\t90\t80\t95\t44\t40\t30\t45", ":3: stack/ir: column b_union: 45 is above branches (44)"},
      {"folder\tstack/ir\t100\t90\t80\t95\t50\t20\t20\t45",
       ":3: stack/ir: column b_union: 45 is above b_harness + b_unit (40)"},
      {"dir\tstack/ir\t100\t90\t80\t95\t50\t40\t30\t45",
       ":3: column scope: expected total, folder or file, found 'dir'"},
      {"folder\tstack/ir\t100\t90\tmost\t95\t50\t40\t30\t45",
       ":3: column unit: expected a non-negative number, found 'most'"},
      {"folder\tstack/ir\t100\t90\t80\t95\t50\t40\t-3\t45",
       ":3: column b_unit: expected a non-negative number, found '-3'"},
      {"total\tstack/\t100\t90\t80\t95\t50\t40\t30\t45", ":3: a second total row"},
  };
  for (const auto& [row, error] : bad_rows) EXPECT_EQ(error_with(row), file + error) << row;
  d.write("reach.tsv", "scope\tname\tlines\tharness\tunit\tbranches\tb_harness\tb_unit\tb_union\n");
  EXPECT_EQ(d.error().to_string(), file + ":1: the header lacks the column 'union'");
}

constexpr const char* kFunctionsHeader =
    "file\tfunction\tfirst_line\tlast_line\tlines\tharness\tunit\tunit_only_lines\tneither_lines";

TEST(Load, function_line_lists_are_counted_and_checked) {
  RunDir d("functions");
  // No reason column: it is optional.
  d.write("functions.tsv", std::string(kFunctionsHeader) +
                               "\nstack/ir/parser.cpp\tir::Parser::parse(std::string_view, int)\t10\t40\t12\t5\t9\t"
                               "12-14 20\t30 38-39\n");
  RunData data = d.data();
  ASSERT_EQ(data.functions.size(), 1u);
  EXPECT_EQ(data.functions[0].function, "ir::Parser::parse(std::string_view, int)");
  EXPECT_EQ(data.functions[0].unit_only, 4);
  EXPECT_EQ(data.functions[0].neither, 3);
  EXPECT_EQ(data.functions[0].reason, "");
  const std::string file = (d.path / "functions.tsv").string();
  auto error_with = [&](const std::string& row) {
    d.write("functions.tsv", std::string(kFunctionsHeader) + "\treason\n" + row + "\n");
    return d.error().to_string();
  };
  d.write("functions.tsv", std::string(kFunctionsHeader) + "\treason\nstack/a.cpp\tf()\t1\t9\t3\t0\t0\t-\t2-4\t-\n");
  EXPECT_EQ(d.data().functions[0].reason, "");  // "-" is no reason
  const std::string expected_lists = "expected ascending line numbers and ranges within 10-40 like '12-15 20', or '-'";
  EXPECT_EQ(error_with("stack/a.cpp\tf()\t10\t40\t12\t5\t9\t12-x\t30 38-39\t-"),
            file + ":2: column unit_only_lines: " + expected_lists + ", found '12-x'");
  EXPECT_EQ(error_with("stack/a.cpp\tf()\t10\t40\t12\t5\t9\t20 12-14\t30 38-39\t-"),  // not ascending
            file + ":2: column unit_only_lines: " + expected_lists + ", found '20 12-14'");
  EXPECT_EQ(error_with("stack/a.cpp\tf()\t10\t40\t12\t5\t9\t12-14 20\t30 38-41\t-"),  // past last_line
            file + ":2: column neither_lines: " + expected_lists + ", found '30 38-41'");
  EXPECT_EQ(error_with("stack/a.cpp\tf()\t10\t40\t12\t5\t9\t12-14 20\t30 38\t-"),
            file + ":2: 'f()': unit_only_lines and neither_lines list 6 lines, lines - harness is 7");
  EXPECT_EQ(error_with("stack/a.cpp\tf()\t10\t40\t12\t5\t3\t12-14 20\t30 38-39\t-"),
            file + ":2: column unit_only_lines: 4 lines, more than unit (3)");
  EXPECT_EQ(error_with("stack/a.cpp\tf()\t10\t40\t12\t13\t9\t-\t-\t-"),
            file + ":2: column harness: 13 is above lines (12)");
  EXPECT_EQ(error_with("stack/a.cpp\tf()\t40\t10\t12\t5\t9\t12-14 20\t30 38-39\t-"),
            file + ":2: column last_line: 10 is before first_line (40)");
  EXPECT_EQ(error_with("stack/a.cpp\tf()\t10\t40\tmany\t5\t9\t-\t-\t-"),
            file + ":2: column lines: expected a non-negative number, found 'many'");
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
