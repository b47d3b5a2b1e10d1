// Replay driver: runs a fuzz target's LLVMFuzzerTestOneInput on files (or every file of a
// directory) without libFuzzer, so every build (gcc included) replays the corpus. A
// finding aborts the process, exactly as under libFuzzer.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

bool run_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "replay: cannot read %s\n", p.c_str());
    return false;
  }
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::fprintf(stderr, "replay: %s (%zu bytes)\n", p.c_str(), bytes.size());
  // Copy into an exact-size heap buffer so ASan catches reads past the input.
  std::vector<uint8_t> exact(bytes.begin(), bytes.end());
  LLVMFuzzerTestOneInput(exact.empty() ? nullptr : exact.data(), exact.size());
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s FILE|DIR...\nRuns the fuzz target once per file.\n", argv[0]);
    return 2;
  }
  size_t n = 0;
  bool ok = true;
  for (int i = 1; i < argc; ++i) {
    std::filesystem::path p(argv[i]);
    std::error_code ec;
    if (std::filesystem::is_directory(p, ec)) {
      std::vector<std::filesystem::path> files;
      for (const auto& e : std::filesystem::directory_iterator(p, ec))
        if (e.is_regular_file()) files.push_back(e.path());
      std::sort(files.begin(), files.end());
      for (const auto& f : files) {
        ok = run_file(f) && ok;
        ++n;
      }
    } else {
      ok = run_file(p) && ok;
      ++n;
    }
  }
  std::fprintf(stderr, "replay: %zu file(s) %s\n", n, ok ? "ran without a finding" : "with read errors");
  return ok ? 0 : 2;
}
