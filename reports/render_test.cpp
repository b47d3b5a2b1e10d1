// Full renders of the sample run directories in testdata/: a campaign over six targets (with
// buckets, classes, properties, coverage and notes), a defect zoo run and a mutation analysis. The outputs must
// carry every table and figure the report promises, in both files, with text escaped.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "reports/document.h"
#include "reports/report.h"
#include "reports/run_data.h"

namespace stackcheck::report {
namespace {
namespace fs = std::filesystem;

const std::string kTestdata = STACKCHECK_REPORT_TESTDATA;
const std::vector<std::string> kTargets = {"fuzz_parse",     "fuzz_pipeline", "fuzz_program",
                                           "fuzz_bind_plan", "fuzz_attach",   "fuzz_relative_ptr"};

RunData load(const std::string& dir) {
  auto r = load_run_dir(dir);
  if (auto* e = std::get_if<Error>(&r)) ADD_FAILURE() << e->to_string();
  return std::holds_alternative<RunData>(r) ? std::get<RunData>(r) : RunData{};
}

size_t occurrences(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

#define EXPECT_HAS(text, what) EXPECT_NE((text).find(what), std::string::npos) << "missing: " << (what)

struct Rendered {
  std::string md, html;
};

Rendered render(const std::string& dir, Options options = {}) {
  Document doc = build_document(load(dir), options);
  return {render_markdown(doc), render_html(doc)};
}

TEST(Render, campaign_markdown_has_every_table) {
  Rendered r = render(kTestdata + "/campaign");
  const std::string& md = r.md;
  EXPECT_TRUE(md.starts_with("# Nightly campaign, 30 minutes\n"));
  EXPECT_HAS(md, "seed `20260314`");
  EXPECT_HAS(md, "```sh\nscripts/campaign --minutes 30 --jobs 2 --seed 20260314 --coverage --out build/campaign\n```");
  for (const auto& t : kTargets) EXPECT_HAS(md, "| " + t + " | done |");
  EXPECT_HAS(md, "| 68,347,492 | 113,913 |");  // fuzz_relative_ptr: execs, exec/s
  EXPECT_HAS(md, "| **total** |   |   | **127,761,958** |");
  EXPECT_HAS(md, "---: |");  // numbers right-aligned
  EXPECT_HAS(md, "[index.html](index.html)");
  EXPECT_HAS(md, "are in index.html");  // where the plots went
  EXPECT_EQ(md.find("<svg"), std::string::npos);
  // Findings, with the replay command and the top frames in code spans.
  EXPECT_HAS(md, "**2 finding buckets**");
  EXPECT_HAS(md, "`build/fuzz/bin/fuzz_bind_plan_replay build/campaign/candidates/fuzz_bind_plan/b1-deps-order.plan`");
  EXPECT_HAS(md, "`Scheduler::ready < Orchestrator::submit < bind_plan`");
  EXPECT_EQ(md.find("No findings"), std::string::npos);
  // Classification per target, with shares.
  EXPECT_HAS(md, "**fuzz_pipeline**\n\n| class | inputs | share |");
  EXPECT_HAS(md, "| inconclusive:input-rejected | 233 | 19.3% |");
  EXPECT_HAS(md, "| **fail:compiler/hoist-inout** | **3** | **0.2%** |");
  // Properties: the failed one highlighted with its replay command.
  EXPECT_HAS(md, "12 properties, 114,127 cases");
  EXPECT_HAS(md, "| **DepsProps** | **generated_plans_order_every_conflict** | **fail** |");
  EXPECT_HAS(md,
             "```sh\nstackcheck replay build/counterexamples/DepsProps.generated_plans_order_every_conflict.plan\n```");
  // Coverage with percentages and a total.
  EXPECT_HAS(md, "| stack/runtime/host | 2,120 | 1,784 | 84.2% | 1,390 | 1,011 | 72.7% |");
  EXPECT_HAS(md, "| **total** | **13,970** | **12,234** | **87.6%** |");
  // Every run.tsv key, and the notes verbatim.
  for (const char* key : {"kind", "title", "started", "finished", "seed", "minutes", "jobs", "targets", "command",
                          "commit", "cores", "status"})
    EXPECT_HAS(md, std::string("| ") + key + " | ");
  EXPECT_HAS(md, "## Notes\n\nNotes from the campaign:\n\n- `fuzz_program` is slow");
  EXPECT_HAS(md, "- <b>HTML here must show as text</b> & stay escaped.\n");
}

TEST(Render, campaign_html_is_self_contained_with_charts) {
  Rendered r = render(kTestdata + "/campaign");
  const std::string& html = r.html;
  EXPECT_TRUE(html.starts_with("<!DOCTYPE html>"));
  EXPECT_HAS(html, "<style>");
  // Nothing to fetch and nothing to run.
  for (const char* bad : {"<script", "<link", "src=", "href=\"http", "url(", "@import"})
    EXPECT_EQ(html.find(bad), std::string::npos) << bad;
  EXPECT_EQ(occurrences(html, "http://"), occurrences(html, "xmlns=\"http://www.w3.org/2000/svg\""));
  // Header: title, kind, status, seed, the command.
  EXPECT_HAS(html, "<h1>Nightly campaign, 30 minutes</h1>");
  EXPECT_HAS(html, "<span class=\"label\">status</span> complete");
  EXPECT_HAS(html, "<span class=\"badge tone-key\"><span class=\"label\">seed</span> 20260314</span>");
  EXPECT_HAS(html, "<pre><code>scripts/campaign --minutes 30");
  // Four line charts with one line per target, plus the classes and coverage bar charts.
  EXPECT_EQ(occurrences(html, "<svg "), 6u);
  EXPECT_EQ(occurrences(html, "<polyline"), 4 * kTargets.size());
  for (const auto& t : kTargets) EXPECT_EQ(occurrences(html, "data-series=\"" + t + "\""), 4u) << t;
  EXPECT_HAS(html, "Executions per second<tspan class=\"scale-note\"");  // 53 vs 113,913 exec/s
  // Right-aligned numbers with separators, zebra-striped tables.
  EXPECT_HAS(html, "<td class=\"num\">23,918,900</td>");
  EXPECT_HAS(html, "tbody tr:nth-child(even)");
  EXPECT_HAS(html, "<tr class=\"tone-bad\"><td>DepsProps</td>");
  // Escaped text: frames with '<', the notes' markup.
  EXPECT_HAS(html, "Scheduler::ready &lt; Orchestrator::submit");
  EXPECT_HAS(html, "&lt;b&gt;HTML here must show as text&lt;/b&gt; &amp; stay escaped.");
  EXPECT_EQ(html.find("<b>HTML"), std::string::npos);
}

TEST(Render, zoo_reports_detection_times_and_the_control) {
  Rendered r = render(kTestdata + "/zoo");
  EXPECT_HAS(r.md, "Detected **22 of 24** injected defects. Time to detect: median **5.3 s**, maximum **2 min 20 s**.");
  EXPECT_HAS(r.md, "**no false positive**");
  EXPECT_HAS(r.md, "| **scalar_pool_not_line_rounded** | **no** | **> 5 min 00 s** |");
  // Sizes are statements or plan lines; the shrunk column is optional (- when absent).
  EXPECT_HAS(r.md,
             "| step_c_collected_not_hoisted | yes | 2.4 s | 5.0 s | compiler | hoist-depth | - | 749 statements |");
  EXPECT_HAS(r.html, "(shrunk by 5.0 s)</text>");  // the optional shrunk time, a second bar segment
  EXPECT_HAS(r.md, "| none (control) | no (control) |");
  EXPECT_EQ(r.md.find("## Fuzz targets"), std::string::npos);  // no targets.tsv in a zoo run
  EXPECT_HAS(r.html, "<td class=\"tone-good\">yes</td>");
  EXPECT_HAS(r.html, "<td class=\"tone-bad\">no</td>");
  EXPECT_HAS(r.html, "Time to detect per defect<tspan class=\"scale-note\"");
  EXPECT_HAS(r.html, ">not detected in 5 min 00 s</text>");
  EXPECT_EQ(occurrences(r.html, "<rect class=\"bar\""), 23u);
}

TEST(Render, mutate_reports_the_score_survivors_and_the_rest) {
  Rendered r = render(kTestdata + "/mutate");
  EXPECT_TRUE(r.md.starts_with("# stackcheck mutation analysis\n"));
  EXPECT_HAS(r.md, "seed `1`");
  EXPECT_HAS(r.md, "```sh\nscripts/mutate --sample 10 --seed 1 --jobs 2 --with-unit\n```");
  // The score: killed + timeout over killed + timeout + survived, argued and equivalent left out.
  EXPECT_HAS(r.md,
             "Mutation score **62.5%**: 5 of 8 scored mutants killed by the harness alone (1 of them by a "
             "timeout). Left out of the score: 1 equivalent (same object code), 1 argued equivalent, 1 build "
             "failure. 3 survivors: 1 caught by a unit test (a generator gap), 1 caught by nothing, 1 not put to "
             "the unit tests (--with-unit).");
  // Per folder and per file, with totals.
  EXPECT_HAS(r.md, "| stack/ir | 3 | 2 | 0 | **1** | 0 | 0 | 0 | 66.7% |");
  EXPECT_HAS(r.md, "| stack/runtime/host | 3 | 1 | 0 | **2** | 0 | 0 | 0 | 33.3% |");
  EXPECT_HAS(r.md, "| stack/passes/normalize_return_order.cpp | 3 | 1 | 0 | 0 | 0 | 1 | 1 | 100.0% |");
  EXPECT_HAS(r.md, "| **total** | **11** | **4** | **1** | **3** | **1** | **1** | **1** | **62.5%** |");
  // Survivors by file and function, with their diff and the unit tests' answer.
  EXPECT_HAS(r.md, "**stack/runtime/host/orchestrator.cpp**");
  EXPECT_HAS(r.md,
             "| runtime::Orchestrator::reset | 130 | delete | `marks_.clear();` → `;` | unit tests catch it: "
             "`runtime_host_test/Orchestrator.reset_clears` |");
  EXPECT_HAS(r.md,
             "| runtime::Orchestrator::submit | 98 | lit | `x = y << 1;` → `x = y << 0;` | **nothing catches it** |");
  EXPECT_LT(r.md.find("Orchestrator::reset | 130"), r.md.find("Orchestrator::submit | 98"));  // by function
  // The argued equivalent keeps its reason; the timeout is listed apart; killers are counted.
  EXPECT_HAS(r.md,
             "| `stack/passes/normalize_return_order.cpp:55:9:arith:-` | `n + 0` → `n - 0` | x + 0 and x - 0 "
             "are one value for every x |");
  EXPECT_HAS(r.md, "1 timeout (counted as killed):");
  EXPECT_HAS(r.md, "| RuntimeProps.compaction_reads_live_prefix |");
  EXPECT_HAS(r.md, "| replay/fuzz_parse/seed/a.gir | roundtrip / print-parse | 2 |");
  // index.html: two bar charts (folders, files), one bar per row, survivors' cells toned.
  EXPECT_EQ(occurrences(r.html, "<svg "), 2u);
  EXPECT_HAS(r.html, "Mutation score per folder");
  EXPECT_HAS(r.html, ">33.3% (1 of 3)</text>");  // stack/runtime/host: 1 killed, 2 survivors
  EXPECT_HAS(r.html, "<td class=\"tone-bad\">nothing catches it</td>");
  EXPECT_HAS(r.md, "| ir::print | 60 | negate | `if (wide)` → `if (!(wide))` | not run (--with-unit) |");
}

TEST(Render, mutate_rejects_an_unknown_outcome) {
  fs::path dir = fs::path(testing::TempDir()) / "report_render_mutate_bad";
  fs::remove_all(dir);
  fs::copy(kTestdata + "/mutate", dir, fs::copy_options::recursive);
  std::ofstream(dir / "mutants.tsv", std::ios::app) << "x\tstack/a.cpp\t1\trel\tf\tMAYBE\t-\t-\t-\t-\t1\ta\tb\t-\n";
  auto r = load_run_dir(dir.string());
  ASSERT_TRUE(std::holds_alternative<Error>(r));
  EXPECT_EQ(std::get<Error>(r).to_string(),
            (dir / "mutants.tsv").string() +
                ":13: column outcome: expected KILLED, SURVIVED, TIMEOUT, BUILD-FAIL or EQUIVALENT, found 'MAYBE'");
}

TEST(Render, title_option_and_defaults) {
  EXPECT_TRUE(render(kTestdata + "/zoo", Options{"Zoo <nightly>"}).html.find("<h1>Zoo &lt;nightly&gt;</h1>") !=
              std::string::npos);
  RunData bare;
  bare.run = {{"kind", "campaign"}, {"status", "running"}};
  Document doc = build_document(bare, {});
  EXPECT_EQ(doc.title, "stackcheck fuzzing campaign");
  std::string md = render_markdown(doc);
  EXPECT_HAS(md, "still going");
}

// A scratch copy of a testdata directory: the tool writes next to the data, never into the tree.
// The copy is named after the test as well as the data: ctest runs each test in its own process,
// in parallel, and two tests copying the same data to one place would remove each other's files.
fs::path scratch_copy(const std::string& name) {
  const auto* test = testing::UnitTest::GetInstance()->current_test_info();
  fs::path to = fs::path(testing::TempDir()) / ("report_render_" + name + "_" + test->name());
  fs::remove_all(to);
  fs::copy(kTestdata + "/" + name, to, fs::copy_options::recursive);
  return to;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(Render, write_report_writes_both_files_and_nothing_else) {
  fs::path dir = scratch_copy("campaign");
  auto written = write_report(dir.string(), {});
  ASSERT_TRUE(std::holds_alternative<Written>(written)) << std::get<Error>(written).to_string();
  const Written& w = std::get<Written>(written);
  EXPECT_EQ(w.markdown, (dir / "report.md").string());
  EXPECT_EQ(w.html, (dir / "index.html").string());
  EXPECT_HAS(slurp(w.markdown), "# Nightly campaign");
  EXPECT_HAS(slurp(w.html), "</html>\n");
  for (const auto& e : fs::directory_iterator(dir)) EXPECT_NE(e.path().extension(), ".tmp") << e.path();
}

TEST(Render, empty_or_absent_buckets_say_no_findings) {
  fs::path dir = scratch_copy("campaign");
  std::ofstream(dir / "buckets.tsv", std::ios::trunc).close();
  EXPECT_HAS(render(dir.string()).md, "**No findings**: buckets.tsv lists no bucket.");
  fs::remove(dir / "buckets.tsv");
  Rendered r = render(dir.string());
  EXPECT_HAS(r.md, "**No findings**: the run wrote no buckets.tsv.");
  EXPECT_HAS(r.html, "<p class=\"tone-good\"><strong>No findings</strong>");
}

TEST(Render, malformed_input_is_an_error_with_file_and_line) {
  fs::path dir = scratch_copy("malformed");
  auto r = write_report(dir.string(), {});
  ASSERT_TRUE(std::holds_alternative<Error>(r));
  EXPECT_EQ(std::get<Error>(r).to_string(),
            (dir / "targets.tsv").string() + ":3: column exec_s: expected a non-negative number, found 'fast'");
  EXPECT_FALSE(fs::exists(dir / "report.md"));
  EXPECT_FALSE(fs::exists(dir / "index.html"));
}

}  // namespace
}  // namespace stackcheck::report
