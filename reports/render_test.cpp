// Full renders of the sample run directories in testdata/: a campaign over six targets (with
// buckets, classes, properties, coverage and notes), a defect zoo run, a mutation analysis and a
// harness-alone reach measurement (scripts/coverage). The outputs must
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
             "Mutation score **62.5%** (95% interval 30.6-86.3%): 5 of 8 scored mutants killed by the harness "
             "alone (1 of them by a "
             "timeout). Left out of the score: 1 equivalent (same object code), 1 argued equivalent, 1 build "
             "failure. 3 survivors: 1 caught by a unit test (a generator gap), 1 caught by nothing, 1 not put to "
             "the unit tests (--with-unit).");
  // Per folder and per file, with totals.
  EXPECT_HAS(r.md, "| stack/ir | 3 | 2 | 0 | **1** | 0 | 0 | 0 | 0 | 66.7% | 20.8-93.9% |");
  EXPECT_HAS(r.md, "| stack/runtime/host | 3 | 1 | 0 | **2** | 0 | 0 | 0 | 0 | 33.3% | 6.1-79.2% |");
  EXPECT_HAS(r.md,
             "| stack/passes/normalize_return_order.cpp | 3 | 1 | 0 | 0 | 0 | 0 | 1 | 1 | 100.0% | 20.7-100.0% |");
  EXPECT_HAS(
      r.md,
      "| **total** | **11** | **4** | **1** | **3** | **0** | **1** | **1** | **1** | **62.5%** | **30.6-86.3%** |");
  // Per operator.
  EXPECT_HAS(r.md, "| lit | 2 | 1 | 0 | **1** | 0 | 0 | 0 | 0 | 50.0% |");
  // Survivors by file and function, with their diff and the unit tests' answer.
  EXPECT_HAS(r.md, "**stack/runtime/host/orchestrator.cpp**");
  EXPECT_HAS(r.md,
             "| runtime::Orchestrator::reset | 130 | delete | `marks_.clear();` → `;` | every test (one at a time) | "
             "unit tests catch it: "
             "`runtime_host_test/Orchestrator.reset_clears` |");
  EXPECT_HAS(
      r.md,
      "| runtime::Orchestrator::submit | 98 | lit | `x = y << 1;` → `x = y << 0;` | every test (one at a time) | "
      "**nothing catches it** |");
  EXPECT_LT(r.md.find("Orchestrator::reset | 130"), r.md.find("Orchestrator::submit | 98"));  // by function
  // Survivors by the observable their code computes (docs/observables.md), the largest group first.
  EXPECT_HAS(r.md, "| §1 \\`Orchestrator::error()\\` through the API | 2 | `stack/runtime/host/orchestrator.cpp:130:5:"
                   "delete:deleted stack/runtime/host/orchestrator.cpp:98:9:lit:0` |");
  EXPECT_LT(r.md.find("| §1 \\`Orchestrator::error()"), r.md.find("| (no row) | 1 |"));
  // The argued equivalent keeps its reason; the timeout is listed apart; killers are counted.
  EXPECT_HAS(r.md,
             "| `stack/passes/normalize_return_order.cpp:55:9:arith:-` | `n + 0` → `n - 0` | x + 0 and x - 0 "
             "are one value for every x |");
  EXPECT_HAS(r.md, "1 timeout (counted as killed):");
  EXPECT_HAS(r.md, "| RuntimeProps.compaction_reads_live_prefix |");
  EXPECT_HAS(r.md, "| replay/fuzz_parse/seed/a.gir | roundtrip / print-parse | 2 |");
  // index.html: three bar charts (folders, operators, files), one bar per row, survivors' cells toned.
  EXPECT_EQ(occurrences(r.html, "<svg "), 3u);
  EXPECT_HAS(r.html, "Mutation score per folder");
  EXPECT_HAS(r.html, ">33.3% (1 of 3)</text>");  // stack/runtime/host: 1 killed, 2 survivors
  EXPECT_HAS(r.html, "<td class=\"tone-bad\">nothing catches it</td>");
  EXPECT_HAS(r.md,
             "| ir::print | 60 | negate | `if (wide)` → `if (!(wide))` | every test (one at a time) | not run "
             "(--with-unit) |");
}

// A schemata run: a mutant no judging test reached counts as missed, the survivors name the
// tests that ran their site, and the headline says which path judged how many.
TEST(Render, mutate_schemata_run_shows_reach_and_not_reached) {
  Rendered r = render(kTestdata + "/mutate_schemata");
  EXPECT_HAS(r.md,
             "Mutation score **55.6%** (95% interval 26.7-81.1%): 5 of 9 scored mutants killed by the harness "
             "alone (1 not reached by any judging test, counted as missed)");
  EXPECT_HAS(r.md, "Judged in the schemata build: 11 of 12; one at a time: 1.");
  EXPECT_HAS(r.md, "| stack/runtime/host | 4 | 1 | 0 | **2** | **1** | 0 | 0 | 0 | 25.0% | 4.6-69.9% |");
  EXPECT_HAS(r.md, "| runtime::Orchestrator::drain | 140 | rel | `if (k < n)` → `if (k > n)` | **no judging test** |");
  EXPECT_HAS(r.md,
             "| runtime::Orchestrator::submit | 98 | lit | `x = y << 1;` → `x = y << 0;` | RuntimeProps.a, "
             "RuntimeProps.b, replay/fuzz_attach/seed/x | **nothing catches it** |");
}

TEST(Render, mutate_rejects_an_unknown_outcome) {
  fs::path dir = fs::path(testing::TempDir()) / "report_render_mutate_bad";
  fs::remove_all(dir);
  fs::copy(kTestdata + "/mutate", dir, fs::copy_options::recursive);
  std::ofstream(dir / "mutants.tsv", std::ios::app) << "x\tstack/a.cpp\t1\trel\tf\tMAYBE\t-\t-\t-\t-\t1\ta\tb\t-\t-\n";
  auto r = load_run_dir(dir.string());
  ASSERT_TRUE(std::holds_alternative<Error>(r));
  EXPECT_EQ(std::get<Error>(r).to_string(),
            (dir / "mutants.tsv").string() +
                ":13: column outcome: expected KILLED, SURVIVED, TIMEOUT, NOT REACHED, BUILD-FAIL or EQUIVALENT, found "
                "'MAYBE'");
}

TEST(Render, coverage_reports_reach_per_folder_file_and_function) {
  Rendered r = render(kTestdata + "/coverage");
  const std::string& md = r.md;
  EXPECT_TRUE(md.starts_with("# stackcheck reach (harness-alone coverage)\n"));  // run.tsv has no title
  EXPECT_HAS(md, "seed `20261129`");
  // The headline from the total row: the harness alone, the unit tests alone, both.
  EXPECT_HAS(md,
             "The harness alone reaches **96.2%** of the lines and **88.3%** of the branches of stack/ (the unit "
             "tests alone: 95.3% and 88.0%; together: 98.8% and 92.8%). Only the unit tests reach 50 lines and 53 "
             "branches: the harness's blind spots; neither reaches 22 lines and 85 branches.");
  EXPECT_HAS(md, "Below a target: stack/runtime/host (lines 94.5%, branches 86.7%). Per folder:");
  // Per folder and per file: lines, harness %, unit %, only unit, neither, then the same for branches.
  EXPECT_HAS(md,
             "| folder | lines | harness | unit | only unit | neither | branches | harness | unit | only unit | "
             "neither |");
  EXPECT_HAS(md, "| stack/ir | 840 | 98.3% | 95.4% | 8 | 6 | 520 | 90.4% | 87.5% | 11 | 39 |");
  EXPECT_HAS(md, "| stack/runtime/host | 1,060 | 94.5% | 95.3% | 42 | 16 | 662 | 86.7% | 88.4% | 42 | 46 |");
  EXPECT_HAS(md, "| stack/runtime/host/bind.cpp | 610 | 92.0% | 96.7% | 37 | 12 | 402 | 84.8% | 92.3% | 39 | 22 |");
  EXPECT_EQ(occurrences(md,
                        "| **total** | **1,900** | **96.2%** | **95.3%** | **50** | **22** | **1,182** | **88.3%** | "
                        "**88.0%** | **53** | **85** |"),
            2u);  // folders and files
  EXPECT_HAS(md, "The bar chart of the lines reached per folder is in index.html.");
  EXPECT_EQ(md.find("<svg"), std::string::npos);
  // The functions behind the gaps, one table per class, each under its count line.
  EXPECT_HAS(md,
             "## Functions only the unit tests reach\n\n**1 function, 14 lines**: whole functions the harness never "
             "enters and the unit tests do, a gap of the generators.\n\n| file | function | lines | unit-only lines "
             "| reason |");
  EXPECT_HAS(md,
             "| stack/runtime/host/bind.cpp | `runtime::describe_conflict<runtime::TensorArg, 2ul>(runtime::TensorArg "
             "const&, runtime::TensorArg const&)` | 212–229 | `212-220 223-227` | - |");
  EXPECT_HAS(md,
             "## Lines only the unit tests reach, in functions the harness reaches\n\n**2 functions, 4 lines**: lines "
             "only the unit tests reach inside functions the harness enters, and 4 lines there neither reaches.");
  EXPECT_HAS(md, "| stack/ir/parser.cpp | `ir::Parser::parse_dims()` | - | `447-448` | - |");
  EXPECT_HAS(md,
             "| stack/runtime/host/orchestrator.cpp | `runtime::Orchestrator::submit(runtime::Task const&, "
             "std::span<runtime::TensorArg const, 18446744073709551615ul>)` | `98-100 131` | `117-118` | - |");
  EXPECT_LT(md.find("ir::Parser::parse_dims"), md.find("Orchestrator::submit"));  // by file, then first line
  EXPECT_HAS(md,
             "## Reached by neither\n\n**1 function, 6 lines**: functions no test enters. 1 has a reviewed reason.");
  EXPECT_HAS(md,
             "| stack/ir/parser.cpp | `ir::Parser::expect_eof()` | 301–309 | `302-307` | defensive: parse() stops at "
             "\\<eof> first, so \\`expect_eof\\` never sees a token left |");
  EXPECT_HAS(md, "| harness cases | 1184 |");

  const std::string& html = r.html;
  EXPECT_HAS(html, "<h1>stackcheck reach (harness-alone coverage)</h1>");
  EXPECT_HAS(html,
             "The harness alone reaches <strong>96.2%</strong> of the lines and <strong>88.3%</strong> of the "
             "branches of stack/");
  for (const char* id : {"reach", "reach-unit-only", "reach-partial", "reach-neither"})
    EXPECT_HAS(html, std::string("<section id=\"") + id + "\">");
  // Harness shares below the targets (96% of the lines, 88% of the branches) are highlighted, the rest not.
  EXPECT_HAS(html, "<td>stack/runtime/host</td><td class=\"num\">1,060</td><td class=\"num tone-warn\">94.5%</td>");
  EXPECT_HAS(html, "<td class=\"num tone-warn\">86.7%</td>");
  EXPECT_HAS(html, "<td>stack/ir</td><td class=\"num\">840</td><td class=\"num\">98.3%</td>");
  EXPECT_EQ(occurrences(html, "<td class=\"num tone-warn\">"), 4u);  // host and bind.cpp, lines and branches
  EXPECT_HAS(html, "<p class=\"tone-warn\">Below a target: stack/runtime/host");
  EXPECT_HAS(html, "<p class=\"tone-good\">The harness alone reaches");  // the total meets both targets
  // One stacked bar chart: the harness's share, then the unit tests' own share, per folder.
  EXPECT_EQ(occurrences(html, "<svg "), 1u);
  EXPECT_HAS(html, "Lines reached per folder");
  EXPECT_HAS(html, ">98.3% + 1.0%</text>");
  EXPECT_HAS(html, ">94.5% + 4.0%</text>");
  EXPECT_HAS(html, "stack/runtime/host: 42 lines only the unit tests reach");
  // Function names and line lists as code, text escaped.
  EXPECT_HAS(html,
             "<td class=\"code\"><code>runtime::describe_conflict&lt;runtime::TensorArg, "
             "2ul&gt;(runtime::TensorArg const&amp;, runtime::TensorArg const&amp;)</code></td>");
  EXPECT_HAS(html, "<td class=\"code\"><code>98-100 131</code></td>");
  EXPECT_HAS(html, "<td class=\"num\">301–309</td>");
  EXPECT_HAS(html, "defensive: parse() stops at &lt;eof&gt; first, so `expect_eof` never sees a token left");
}

TEST(Render, coverage_without_a_total_row_sums_the_folders) {
  fs::path dir = fs::path(testing::TempDir()) / "report_render_coverage_no_total";
  fs::remove_all(dir);
  fs::copy(kTestdata + "/coverage", dir, fs::copy_options::recursive);
  std::ofstream(dir / "reach.tsv", std::ios::trunc)
      << "scope\tname\tlines\tharness\tunit\tunion\tbranches\tb_harness\tb_unit\tb_union\n"
         "folder\tstack/runtime/host\t1060\t1002\t1010\t1044\t662\t574\t585\t616\n"
         "folder\tstack/ir\t840\t826\t801\t834\t520\t470\t455\t481\n";
  std::ofstream(dir / "functions.tsv", std::ios::trunc) << "";
  Rendered r = render(dir.string());
  EXPECT_HAS(r.md,
             "The harness alone reaches **96.2%** of the lines and **88.3%** of the branches of stack/ (the unit "
             "tests alone: 95.3% and 88.0%; together: 98.8% and 92.8%).");
  EXPECT_HAS(r.md, "| **total** | **1,900** | **96.2%** |");
  EXPECT_LT(r.md.find("| stack/ir |"), r.md.find("| stack/runtime/host |"));  // by name
  EXPECT_EQ(r.md.find("Per file:"), std::string::npos);                       // no file rows, no file table
  // An empty functions.tsv: every section says there is nothing to list.
  EXPECT_HAS(r.md, "No function is reached only by the unit tests.");
  EXPECT_HAS(r.md, "The harness reaches every line of the functions it enters.");
  EXPECT_HAS(r.md, "Every function of stack/ is entered by the harness or by the unit tests.");
  fs::remove(dir / "functions.tsv");
  EXPECT_EQ(render(dir.string()).md.find("## Reached by neither"), std::string::npos);  // absent: no sections
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
