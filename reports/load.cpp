// Reading a run directory: one loader per file of the contract, each binding its columns by
// name and stopping at the first bad field.
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <set>

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

namespace {

// An optional file: nullopt when absent, else its table or the error reading it.
std::optional<Result<Table>> load_table(const fs::path& path) {
  std::error_code ec;
  if (fs::symlink_status(path, ec).type() == fs::file_type::not_found) return std::nullopt;
  auto text = read_file(path.string());
  if (auto* e = std::get_if<Error>(&text)) return Result<Table>{*e};
  return parse_tsv(std::get<std::string>(text), path.string());
}

// Runs `each(reader, row)` over the rows of an optional table (nothing when it is absent or
// empty); `present` says whether the file exists. Stops at the first error.
template <class Each>
std::optional<Error> for_rows(const fs::path& path, std::vector<std::string_view> required,
                              std::vector<std::string_view> optional, bool* present, Each each) {
  auto loaded = load_table(path);
  if (present) *present = loaded.has_value();
  if (!loaded) return std::nullopt;
  if (auto* e = std::get_if<Error>(&*loaded)) return *e;
  const Table& table = std::get<Table>(*loaded);
  if (table.columns.empty()) return std::nullopt;  // an empty file: nothing recorded yet
  auto bound = Reader::bind(table, std::move(required), std::move(optional));
  if (auto* e = std::get_if<Error>(&bound)) return *e;
  Reader& r = std::get<Reader>(bound);
  for (const Row& row : table.rows) {
    if (auto e = each(r, row)) return e;
    if (r.error()) return r.error();
  }
  return std::nullopt;
}

using MaybeError = std::optional<Error>;

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
  return for_rows(
      dir / "targets.tsv",
      {"target", "execs", "exec_s", "cov", "ft", "corpus", "corpus_bytes", "findings", "buckets", "seconds", "status"},
      {}, &data.has_targets, [&](Reader& r, const Row& row) -> MaybeError {
        TargetFinal t;
        t.target = r.text(row, "target");
        t.execs = r.number(row, "execs");
        t.exec_s = r.number(row, "exec_s");
        t.cov = r.number(row, "cov");
        t.ft = r.number(row, "ft");
        t.corpus = r.number(row, "corpus");
        t.corpus_bytes = r.number(row, "corpus_bytes");
        t.findings = r.number(row, "findings");
        t.buckets = r.number(row, "buckets");
        t.seconds = r.number(row, "seconds");
        t.status = r.text(row, "status");
        data.targets.push_back(std::move(t));
        return std::nullopt;
      });
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
  for (const auto& file : files) {
    TargetSeries s;
    s.target = file.stem().string();
    double last_t = 0;
    MaybeError err = for_rows(file, {"t_s", "execs", "exec_s", "cov", "ft", "corpus"}, {"rss_mb"}, nullptr,
                              [&](Reader& r, const Row& row) -> MaybeError {
                                Sample x;
                                x.t_s = r.number(row, "t_s");
                                x.execs = r.number(row, "execs");
                                x.exec_s = r.number(row, "exec_s");
                                x.cov = r.number(row, "cov");
                                x.ft = r.number(row, "ft");
                                x.corpus = r.number(row, "corpus");
                                x.rss_mb = r.optional_number(row, "rss_mb");
                                if (!r.error() && !s.samples.empty() && x.t_s < last_t)
                                  return Error{file.string(), row.line,
                                               fmt::format("column t_s: {} comes after {}: samples must be in time "
                                                           "order",
                                                           r.text(row, "t_s"), last_t)};
                                last_t = x.t_s;
                                s.samples.push_back(x);
                                return std::nullopt;
                              });
    if (err) return err;
    data.series.push_back(std::move(s));
  }
  return std::nullopt;
}

MaybeError load_buckets(const fs::path& dir, RunData& data) {
  return for_rows(dir / "buckets.tsv",
                  {"bucket", "target", "oracle", "rule", "frames", "count", "candidate", "replay", "first_seen_s"}, {},
                  &data.has_buckets, [&](Reader& r, const Row& row) -> MaybeError {
                    Bucket b;
                    b.bucket = r.text(row, "bucket");
                    b.target = r.text(row, "target");
                    b.oracle = r.text(row, "oracle");
                    b.rule = r.text(row, "rule");
                    b.frames = r.text(row, "frames");
                    b.count = r.number(row, "count");
                    b.candidate = r.text(row, "candidate");
                    b.replay = r.text(row, "replay");
                    b.first_seen_s = r.optional_number(row, "first_seen_s");
                    data.buckets.push_back(std::move(b));
                    return std::nullopt;
                  });
}

MaybeError load_classes(const fs::path& dir, RunData& data) {
  return for_rows(dir / "classes.tsv", {"target", "class", "count"}, {}, &data.has_classes,
                  [&](Reader& r, const Row& row) -> MaybeError {
                    data.classes.push_back({r.text(row, "target"), r.text(row, "class"), r.number(row, "count")});
                    return std::nullopt;
                  });
}

MaybeError load_properties(const fs::path& dir, RunData& data) {
  return for_rows(dir / "properties.tsv",
                  {"suite", "property", "cases", "discarded", "result", "seconds", "seed", "replay"}, {},
                  &data.has_properties, [&](Reader& r, const Row& row) -> MaybeError {
                    PropertyRun p;
                    p.suite = r.text(row, "suite");
                    p.property = r.text(row, "property");
                    p.cases = r.number(row, "cases");
                    p.discarded = r.number(row, "discarded");
                    p.result = r.text(row, "result");
                    p.seconds = r.number(row, "seconds");
                    p.seed = r.text(row, "seed");
                    p.replay = r.text(row, "replay");
                    data.properties.push_back(std::move(p));
                    return std::nullopt;
                  });
}

MaybeError load_coverage(const fs::path& dir, RunData& data) {
  return for_rows(
      dir / "coverage.tsv", {"folder", "lines", "lines_covered", "branches", "branches_covered"}, {},
      &data.has_coverage, [&](Reader& r, const Row& row) -> MaybeError {
        FolderCoverage c;
        c.folder = r.text(row, "folder");
        c.lines = r.number(row, "lines");
        c.lines_covered = r.number(row, "lines_covered");
        c.branches = r.number(row, "branches");
        c.branches_covered = r.number(row, "branches_covered");
        if (r.error()) return std::nullopt;
        if (c.lines_covered > c.lines || c.branches_covered > c.branches)
          return Error{(dir / "coverage.tsv").string(), row.line, "more lines or branches covered than there are"};
        data.coverage.push_back(std::move(c));
        return std::nullopt;
      });
}

MaybeError load_zoo(const fs::path& dir, RunData& data) {
  return for_rows(dir / "zoo.tsv",
                  {"defect", "detected", "seconds", "oracle", "rule", "reproducer_size", "reproducer", "found_by"},
                  {"shrunk_size", "shrunk_seconds"}, &data.has_zoo, [&](Reader& r, const Row& row) -> MaybeError {
                    ZooDefect z;
                    z.defect = r.text(row, "defect");
                    z.detected = r.yes_no(row, "detected");
                    z.seconds = r.optional_number(row, "seconds");
                    z.oracle = r.text(row, "oracle");
                    z.rule = r.text(row, "rule");
                    z.reproducer_size = r.optional_number(row, "reproducer_size");
                    if (r.has("shrunk_size")) z.shrunk_size = r.optional_number(row, "shrunk_size");
                    if (r.has("shrunk_seconds")) z.shrunk_seconds = r.optional_number(row, "shrunk_seconds");
                    z.reproducer = r.text(row, "reproducer");
                    z.found_by = r.text(row, "found_by");
                    data.zoo.push_back(std::move(z));
                    return std::nullopt;
                  });
}

MaybeError load_mutants(const fs::path& dir, RunData& data) {
  static const std::set<std::string> kOutcomes = {"KILLED", "SURVIVED", "TIMEOUT", "BUILD-FAIL", "EQUIVALENT"};
  const fs::path path = dir / "mutants.tsv";
  return for_rows(
      path,
      {"id", "file", "line", "operator", "function", "outcome", "killer", "oracle", "rule", "unit", "before", "after"},
      {"seconds", "argued"}, &data.has_mutants, [&](Reader& r, const Row& row) -> MaybeError {
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
          return Error{
              path.string(), row.line,
              fmt::format("column outcome: expected KILLED, SURVIVED, TIMEOUT, BUILD-FAIL or EQUIVALENT, found {}",
                          quote_field(m.outcome))};
        if (r.has("seconds")) m.seconds = r.optional_number(row, "seconds");
        if (m.argued == "-") m.argued.clear();
        data.mutants.push_back(std::move(m));
        return std::nullopt;
      });
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
                    load_zoo, load_mutants, load_notes})
    if (auto e = load(root, data)) return *e;
  order_series(data);
  return data;
}

}  // namespace stackcheck::report
