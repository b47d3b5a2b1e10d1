#include "reports/report.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "reports/run_data.h"

namespace stackcheck::report {
namespace {
namespace fs = std::filesystem;

std::optional<Error> write_aside_then_rename(const fs::path& path, const std::string& text) {
  fs::path tmp = path;
  tmp += ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return Error{tmp.string(), 0, fmt::format("cannot write: {}", std::strerror(errno))};
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    out.close();
    if (!out) return Error{tmp.string(), 0, "cannot write: I/O error"};
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) {
    fs::remove(tmp, ec);
    return Error{path.string(), 0, fmt::format("cannot write: {}", ec.message())};
  }
  return std::nullopt;
}

}  // namespace

Result<Written> write_report(const std::string& run_dir, const Options& options) {
  auto loaded = load_run_dir(run_dir);
  if (auto* e = std::get_if<Error>(&loaded)) return *e;
  Document doc = build_document(std::get<RunData>(loaded), options);
  fs::path dir(run_dir);
  Written w{(dir / "report.md").string(), (dir / "index.html").string()};
  if (auto e = write_aside_then_rename(w.markdown, render_markdown(doc) + "\n")) return *e;
  if (auto e = write_aside_then_rename(w.html, render_html(doc))) return *e;
  return w;
}

}  // namespace stackcheck::report
