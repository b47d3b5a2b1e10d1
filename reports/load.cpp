// Reading a run directory: one loader per file of the contract, each binding its columns by
// name and stopping at the first bad field (the shared machinery is in load_internal.h, the
// files of scripts/coverage in load_coverage.cpp).
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <variant>

#include "reports/load_internal.h"
#include "reports/run_data.h"

namespace stackcheck::report {
namespace fs = std::filesystem;

std::string RunData::value(std::string_view key) const {
  for (const auto& [k, v] : run)
    if (k == key) return v;
  return {};
}

std::vector<std::string> RunData::target_order() const {
  std::vector<std::string> order;
  std::set<std::string> seen;
  auto add = [&](const std::string& t) {
    if (!t.empty() && seen.insert(t).second) order.push_back(t);
  };
  std::string listed = value("targets");
  for (size_t i = 0; i < listed.size();) {
    size_t j = listed.find(' ', i);
    if (j == std::string::npos) j = listed.size();
    add(listed.substr(i, j - i));
    i = j + 1;
  }
  for (const auto& t : targets) add(t.target);
  for (const auto& s : series) add(s.target);
  for (const auto& c : classes) add(c.target);
  return order;
}

namespace loader {

// An optional file: nullopt when absent, else its table or the error reading it.
std::optional<Result<Table>> load_table(const fs::path& path) {
  std::error_code ec;
  if (fs::symlink_status(path, ec).type() == fs::file_type::not_found) return std::nullopt;
  auto text = read_file(path.string());
  if (auto* e = std::get_if<Error>(&text)) return Result<Table>{*e};
  return parse_tsv(std::get<std::string>(text), path.string());
}

}  // namespace loader

namespace {
using namespace loader;

MaybeError load_run(const fs::path& dir, RunData& data) {
  fs::path path = dir / "run.tsv";
  std::error_code ec;
  if (!fs::exists(path, ec)) return Error{path.string(), 0, "missing: every run directory has a run.tsv"};
  bool present = false;
  std::set<std::string> keys;
  MaybeError err = for_rows(path, {"key", "value"}, {}, &present, [&](Reader& r, const Row& row) -> MaybeError {
    std::string key = r.text(row, "key");
    if (key.empty()) return Error{path.string(), row.line, "empty key"};
    if (!keys.insert(key).second) return Error{path.string(), row.line, fmt::format("key '{}' given twice", key)};
    data.run.emplace_back(key, r.text(row, "value"));
    return std::nullopt;
  });
  if (err) return err;
  if (keys.empty()) return Error{path.string(), 0, "no keys: a run.tsv has at least its kind and seed"};
  return std::nullopt;
}

MaybeError load_targets(const fs::path& dir, RunData& data) {
  using T = TargetFinal;
  return load_records<T>(dir / "targets.tsv",
                         {col("target", &T::target), col("execs", &T::execs), col("exec_s", &T::exec_s),
                          col("cov", &T::cov), col("ft", &T::ft), col("corpus", &T::corpus),
                          col("corpus_bytes", &T::corpus_bytes), col("findings", &T::findings),
                          col("buckets", &T::buckets), col("seconds", &T::seconds), col("status", &T::status)},
                         &data.has_targets, data.targets);
}

MaybeError load_series(const fs::path& dir, RunData& data) {
  fs::path sdir = dir / "series";
  std::error_code ec;
  if (!fs::exists(sdir, ec)) return std::nullopt;
  if (!fs::is_directory(sdir, ec)) return Error{sdir.string(), 0, "not a directory"};
  std::vector<fs::path> files;
  for (fs::directory_iterator it(sdir, ec), end; !ec && it != end; it.increment(ec))
    if (it->path().extension() == ".tsv") files.push_back(it->path());
  if (ec) return Error{sdir.string(), 0, fmt::format("cannot list: {}", ec.message())};
  std::sort(files.begin(), files.end());
  using S = Sample;
  const std::vector<Column<S>> columns = {
      col("t_s", &S::t_s), col("execs", &S::execs),   col("exec_s", &S::exec_s),         col("cov", &S::cov),
      col("ft", &S::ft),   col("corpus", &S::corpus), optional_col("rss_mb", &S::rss_mb)};
  for (const auto& file : files) {
    TargetSeries s;
    s.target = file.stem().string();
    MaybeError err =
        load_records(file, columns, nullptr, s.samples, [&](const S& x, const Reader& r, const Row& row) -> MaybeError {
          if (s.samples.empty() || x.t_s >= s.samples.back().t_s) return std::nullopt;
          return Error{file.string(), row.line,
                       fmt::format("column t_s: {} comes after {}: samples must be in time order", r.text(row, "t_s"),
                                   s.samples.back().t_s)};
        });
    if (err) return err;
    data.series.push_back(std::move(s));
  }
  return std::nullopt;
}

MaybeError load_buckets(const fs::path& dir, RunData& data) {
  using B = Bucket;
  return load_records<B>(
      dir / "buckets.tsv",
      {col("bucket", &B::bucket), col("target", &B::target), col("oracle", &B::oracle), col("rule", &B::rule),
       col("frames", &B::frames), col("count", &B::count), col("candidate", &B::candidate), col("replay", &B::replay),
       col("first_seen_s", &B::first_seen_s)},
      &data.has_buckets, data.buckets);
}

MaybeError load_classes(const fs::path& dir, RunData& data) {
  using C = ClassCount;
  return load_records<C>(dir / "classes.tsv",
                         {col("target", &C::target), col("class", &C::klass), col("count", &C::count)},
                         &data.has_classes, data.classes);
}

MaybeError load_properties(const fs::path& dir, RunData& data) {
  using P = PropertyRun;
  return load_records<P>(
      dir / "properties.tsv",
      {col("suite", &P::suite), col("property", &P::property), col("cases", &P::cases), col("discarded", &P::discarded),
       col("result", &P::result), col("seconds", &P::seconds), col("seed", &P::seed), col("replay", &P::replay)},
      &data.has_properties, data.properties);
}

MaybeError load_coverage(const fs::path& dir, RunData& data) {
  using F = FolderCoverage;
  const fs::path path = dir / "coverage.tsv";
  return load_records<F>(path,
                         {col("folder", &F::folder), col("lines", &F::lines), col("lines_covered", &F::lines_covered),
                          col("branches", &F::branches), col("branches_covered", &F::branches_covered)},
                         &data.has_coverage, data.coverage,
                         [&](const F& c, const Reader&, const Row& row) -> MaybeError {
                           if (c.lines_covered <= c.lines && c.branches_covered <= c.branches) return std::nullopt;
                           return Error{path.string(), row.line, "more lines or branches covered than there are"};
                         });
}

MaybeError load_zoo(const fs::path& dir, RunData& data) {
  using Z = ZooDefect;
  return load_records<Z>(
      dir / "zoo.tsv",
      {col("defect", &Z::defect), col("detected", &Z::detected), col("seconds", &Z::seconds), col("oracle", &Z::oracle),
       col("rule", &Z::rule), col("reproducer_size", &Z::reproducer_size), optional_col("shrunk_size", &Z::shrunk_size),
       optional_col("shrunk_seconds", &Z::shrunk_seconds), col("reproducer", &Z::reproducer),
       col("found_by", &Z::found_by)},
      &data.has_zoo, data.zoo);
}

MaybeError load_mutants(const fs::path& dir, RunData& data) {
  static const std::set<std::string> kOutcomes = {"KILLED",      "SURVIVED",   "TIMEOUT",
                                                  "NOT REACHED", "BUILD-FAIL", "EQUIVALENT"};
  const fs::path path = dir / "mutants.tsv";
  std::map<std::string, std::string> reached;  // id -> tests, from a schemata run's reached_by.tsv
  bool has_reached = false;
  if (auto e = for_rows(dir / "reached_by.tsv", {"id", "tests"}, {}, &has_reached,
                        [&](Reader& r, const Row& row) -> MaybeError {
                          const std::string tests = r.text(row, "tests");
                          reached[r.text(row, "id")] = tests == "-" ? "" : tests;
                          return std::nullopt;
                        }))
    return e;
  auto err = for_rows(
      path,
      {"id", "file", "line", "operator", "function", "outcome", "killer", "oracle", "rule", "unit", "before", "after"},
      {"seconds", "argued", "path", "observable"}, &data.has_mutants, [&](Reader& r, const Row& row) -> MaybeError {
        MutantResult m;
        using Text = std::string MutantResult::*;
        static const std::pair<const char*, Text> kTexts[] = {
            {"id", &MutantResult::id},           {"file", &MutantResult::file},
            {"operator", &MutantResult::op},     {"function", &MutantResult::function},
            {"outcome", &MutantResult::outcome}, {"killer", &MutantResult::killer},
            {"oracle", &MutantResult::oracle},   {"rule", &MutantResult::rule},
            {"unit", &MutantResult::unit},       {"before", &MutantResult::before},
            {"after", &MutantResult::after},     {"argued", &MutantResult::argued}};
        for (const auto& [column, field] : kTexts) m.*field = r.text(row, column);
        m.line = r.number(row, "line");
        if (!kOutcomes.count(m.outcome))
          return Error{path.string(), row.line,
                       fmt::format("column outcome: expected KILLED, SURVIVED, TIMEOUT, NOT REACHED, BUILD-FAIL or "
                                   "EQUIVALENT, found {}",
                                   quote_field(m.outcome))};
        if (r.has("seconds")) m.seconds = r.optional_number(row, "seconds");
        if (r.has("path")) m.path = r.text(row, "path");
        if (r.has("observable") && r.text(row, "observable") != "-") m.observable = r.text(row, "observable");
        if (m.argued == "-") m.argued.clear();
        if (auto it = reached.find(m.id); it != reached.end()) m.reached_by = it->second;
        data.mutants.push_back(std::move(m));
        return std::nullopt;
      });
  return err;
}

MaybeError load_notes(const fs::path& dir, RunData& data) {
  fs::path path = dir / "notes.md";
  std::error_code ec;
  if (fs::symlink_status(path, ec).type() == fs::file_type::not_found) return std::nullopt;
  auto text = read_file(path.string());
  if (auto* e = std::get_if<Error>(&text)) return *e;
  data.notes = std::move(std::get<std::string>(text));
  return std::nullopt;
}

// Series follow the target order of the rest of the run, so a target keeps its colour.
void order_series(RunData& data) {
  auto order = data.target_order();
  auto rank = [&](const std::string& t) { return std::find(order.begin(), order.end(), t) - order.begin(); };
  std::stable_sort(data.series.begin(), data.series.end(),
                   [&](const TargetSeries& a, const TargetSeries& b) { return rank(a.target) < rank(b.target); });
}

}  // namespace

Result<RunData> load_run_dir(const std::string& dir) {
  RunData data;
  data.dir = dir;
  std::error_code ec;
  if (!fs::exists(dir, ec)) return Error{dir, 0, "no such run directory"};
  if (!fs::is_directory(dir, ec)) return Error{dir, 0, "not a directory"};
  fs::path root(dir);
  for (auto load : {load_run, load_targets, load_series, load_buckets, load_classes, load_properties, load_coverage,
                    load_zoo, load_mutants, load_reach, load_functions, load_notes})
    if (auto e = load(root, data)) return *e;
  order_series(data);
  return data;
}

}  // namespace stackcheck::report
