// stackcheck-report RUN_DIR [--title TEXT]: writes RUN_DIR/report.md and RUN_DIR/index.html
// from the run's data files and prints the two paths on stdout. Exit 0 written, 2 usage or
// bad input (one line on stderr naming file and line). The output depends only on RUN_DIR's
// files and --title, both already on the caller's command line, so nothing is echoed.
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>

#include "reports/report.h"

namespace {

constexpr const char* kUsage = "usage: stackcheck-report RUN_DIR [--title TEXT]";

int usage_error(const std::string& message) {
  std::fprintf(stderr, "stackcheck-report: %s (%s)\n", message.c_str(), kUsage);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string dir;
  stackcheck::report::Options options;
  bool have_dir = false;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (arg == "-h" || arg == "--help") {
      std::printf("%s\nWrites RUN_DIR/report.md and RUN_DIR/index.html from the run's .tsv files.\n", kUsage);
      return 0;
    }
    if (arg == "--title") {
      if (i + 1 == argc) return usage_error("--title takes a value");
      options.title = argv[++i];
    } else if (arg.starts_with("--title=")) {
      options.title = std::string(arg.substr(8));
    } else if (arg.starts_with("-") && arg != "-") {
      return usage_error("unknown option '" + std::string(arg) + "'");
    } else if (have_dir) {
      return usage_error("one RUN_DIR only");
    } else {
      dir = std::string(arg);
      have_dir = true;
    }
  }
  if (!have_dir) return usage_error("no RUN_DIR");
  auto written = stackcheck::report::write_report(dir, options);
  if (auto* e = std::get_if<stackcheck::report::Error>(&written)) {
    std::fprintf(stderr, "stackcheck-report: %s\n", e->to_string().c_str());
    return 2;
  }
  const auto& w = std::get<stackcheck::report::Written>(written);
  std::printf("%s\n%s\n", w.markdown.c_str(), w.html.c_str());
  return 0;
}
