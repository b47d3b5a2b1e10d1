// What a run directory holds, read into plain structs (the file contract of the campaign, the
// defect zoo, scripts/mutate and scripts/coverage; the list of files and columns is in README.md of this
// folder). Only run.tsv is required; an absent optional file leaves its part empty. Loading
// validates everything a renderer relies on (field counts, numbers, required columns, time
// order of the samples), so rendering never meets bad input.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "reports/tsv.h"

namespace stackcheck::report {

struct TargetFinal {  // targets.tsv
  std::string target;
  double execs = 0, exec_s = 0, cov = 0, ft = 0, corpus = 0, corpus_bytes = 0;
  double findings = 0, buckets = 0, seconds = 0;
  std::string status;
};

struct Sample {  // series/<target>.tsv
  double t_s = 0, execs = 0, exec_s = 0, cov = 0, ft = 0, corpus = 0;
  std::optional<double> rss_mb;
};

struct TargetSeries {
  std::string target;  // the file name without .tsv
  std::vector<Sample> samples;
};

struct Bucket {  // buckets.tsv
  std::string bucket, target, oracle, rule, frames;
  double count = 0;
  std::string candidate, replay;
  std::optional<double> first_seen_s;
};

struct ClassCount {  // classes.tsv
  std::string target, klass;
  double count = 0;
};

struct PropertyRun {  // properties.tsv
  std::string suite, property;
  double cases = 0, discarded = 0;
  std::string result;
  double seconds = 0;
  std::string seed, replay;
  // "timeout": the run's time share ended before the property did (not a failure).
  bool failed() const { return result != "pass" && result != "timeout"; }
  bool cut() const { return result == "timeout"; }
};

struct FolderCoverage {  // coverage.tsv
  std::string folder;
  double lines = 0, lines_covered = 0, branches = 0, branches_covered = 0;
};

struct ZooDefect {  // zoo.tsv
  std::string defect;
  bool detected = false;
  std::optional<double> seconds;         // to the first failing case
  std::optional<double> shrunk_seconds;  // to the hunter's end, its input shrunk (optional column)
  std::string oracle, rule;
  std::optional<double> reproducer_size;  // statements or plan lines, after reduction
  std::optional<double> shrunk_size;      // as the property or libFuzzer shrank it (optional column)
  std::string reproducer, found_by;
  // The row run with no defect active: a detection there is a false positive.
  bool is_control() const { return defect == "none"; }
};

struct MutantResult {  // mutants.tsv (scripts/mutate)
  std::string id, file;
  double line = 0;
  std::string op, function, outcome;  // KILLED SURVIVED TIMEOUT NOT REACHED BUILD-FAIL EQUIVALENT
  std::string killer, oracle, rule;
  std::string unit;  // survivors: "-" not run, "no" nothing catches it, else the unit test that does
  std::optional<double> seconds;
  std::string before, after;
  std::string argued;      // a survivor on the reviewed list of equivalents: its reason ("" otherwise)
  std::string path;        // "schemata" or "-" (one at a time)
  std::string reached_by;  // the judging tests that ran its site (schemata runs: reached_by.tsv), space separated
  std::string observable;  // the row of docs/observables.md its code computes ("§1 <row>", "(no row)"; "" unknown)
  // A survivor or a mutant no test reached: the harness lets it through.
  bool missed() const { return outcome == "SURVIVED" || outcome == "NOT REACHED"; }
  bool scored() const { return argued.empty() && (outcome == "KILLED" || outcome == "TIMEOUT" || missed()); }
  bool killed() const { return outcome == "KILLED" || outcome == "TIMEOUT"; }
  std::string folder() const {
    auto at = file.rfind('/');
    return at == std::string::npos ? "." : file.substr(0, at);
  }
};

struct ReachRow {     // reach.tsv (scripts/coverage): what the harness and the unit tests reach
  std::string scope;  // total, folder, file
  std::string name;   // "stack/", a folder, a file
  double lines = 0, harness = 0, unit = 0, either = 0;  // either: the union column
  double branches = 0, b_harness = 0, b_unit = 0, b_either = 0;
  // Reached by the unit tests but not by the harness (its blind spots), and by neither.
  double unit_only() const { return either - harness; }
  double neither() const { return lines - either; }
  double b_unit_only() const { return b_either - b_harness; }
  double b_neither() const { return branches - b_either; }
};

struct FunctionReach {  // functions.tsv (scripts/coverage): a function with lines the harness misses
  std::string file, function;
  double first_line = 0, last_line = 0;
  double lines = 0, harness = 0, unit = 0;     // instrumented lines, and how many each side reaches
  std::string unit_only_lines, neither_lines;  // "12-15 20 31-33", or "-" for none
  std::string reason;                          // reviewed reason ("" for none)
  double unit_only = 0, neither = 0;           // the lines in the two lists, counted when loaded
  // A whole function only the unit tests enter (a generator gap), one the harness enters but
  // misses lines of, or one no test enters.
  bool unit_only_function() const { return harness == 0 && unit > 0; }
  bool harness_partial() const { return harness > 0; }
  bool unreached() const { return harness == 0 && unit == 0; }
};

struct RunData {
  std::string dir;
  std::vector<std::pair<std::string, std::string>> run;  // run.tsv in file order
  std::vector<TargetFinal> targets;
  std::vector<TargetSeries> series;  // in target order (see target_order)
  std::vector<Bucket> buckets;
  std::vector<ClassCount> classes;
  std::vector<PropertyRun> properties;
  std::vector<FolderCoverage> coverage;
  std::vector<ZooDefect> zoo;
  std::vector<MutantResult> mutants;
  std::vector<ReachRow> reach;
  std::vector<FunctionReach> functions;
  bool has_mutants = false, has_reach = false, has_functions = false;
  bool has_buckets = false, has_classes = false, has_properties = false, has_coverage = false, has_zoo = false,
       has_targets = false;
  std::optional<std::string> notes;  // notes.md verbatim

  // The value of a run.tsv key, "" when absent.
  std::string value(std::string_view key) const;
  // Every target named anywhere, in one stable order: run.tsv `targets`, then targets.tsv,
  // then series files, then classes.tsv. A target's colour is its index here.
  std::vector<std::string> target_order() const;
};

Result<RunData> load_run_dir(const std::string& dir);

}  // namespace stackcheck::report
