// corpus/bench reader (bench_corpus.h).
#include "bench/bench_corpus.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <system_error>

namespace stackcheck::bench {

std::string corpus_root() {
  if (const char* e = std::getenv("STACKCHECK_BENCH_CORPUS"); e && *e) return e;
  return STACKCHECK_SOURCE_DIR "/corpus/bench";
}

std::vector<Input> load(const std::string& target, std::string* error) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(corpus_root()) / target;
  std::vector<Input> in;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (!e.is_regular_file()) continue;
    std::ifstream f(e.path(), std::ios::binary);
    Input i{e.path().filename().string(), {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()}};
    if (!f.good() && !f.eof()) {
      *error = "cannot read " + e.path().string();
      return {};
    }
    in.push_back(std::move(i));
  }
  if (ec)
    *error = "cannot list " + dir.string() + ": " + ec.message();
  else if (in.empty())
    *error = "no inputs in " + dir.string();
  std::sort(in.begin(), in.end(), [](const Input& a, const Input& b) { return a.name < b.name; });
  return in;
}

}  // namespace stackcheck::bench
