// The host/device wall as a build test (RUNTIME.md §1): nothing under device/ (tests
// excluded) may reach, directly or through the headers it includes, anything in
// runtime/host/ or runtime/plan/ (the device must not see the plan format), the compaction
// header, or the image test support.
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace {

namespace fs = std::filesystem;

const fs::path kRoot = fs::path(STACKCHECK_SOURCE_DIR);

std::vector<std::string> includes_of(const fs::path& file) {
  std::ifstream in(file);
  std::vector<std::string> out;
  static const std::regex re(R"(^\s*#\s*include\s*"([^"]+)\")");
  std::string line;
  std::smatch m;
  while (std::getline(in, line))
    if (std::regex_search(line, m, re)) out.push_back(m[1]);
  return out;
}

bool forbidden(const std::string& inc) {
  return inc.find("runtime/host/") != std::string::npos || inc.find("runtime/plan/") != std::string::npos ||
         inc == "stack/runtime/image/compact.h" || inc == "stack/runtime/image/test_support.h";
}

// Every project header reachable from `start`, with the chain that reached it.
void reach(const fs::path& file, const std::string& chain, std::set<std::string>& seen,
           std::vector<std::string>& violations) {
  for (const std::string& inc : includes_of(file)) {
    if (forbidden(inc)) violations.push_back(chain + " -> " + inc);
    fs::path p = kRoot / inc;
    if (!fs::exists(p)) p = file.parent_path() / inc;  // e.g. graph_def_validate.inl
    if (!fs::exists(p) || !seen.insert(p.lexically_normal().string()).second) continue;
    reach(p, chain + " -> " + inc, seen, violations);
  }
}

std::vector<std::string> wall_violations(const fs::path& dir) {
  std::vector<std::string> violations;
  std::set<std::string> seen;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (name.ends_with("_test.cpp")) continue;
    if (!name.ends_with(".h") && !name.ends_with(".cpp") && !name.ends_with(".inl")) continue;
    reach(e.path(), name, seen, violations);
  }
  return violations;
}

TEST(Wall, device_includes_no_host_or_compaction) {
  const fs::path dir = kRoot / "stack/runtime/device";
  ASSERT_TRUE(fs::exists(dir / "attach.h")) << kRoot;
  std::vector<std::string> v = wall_violations(dir);
  for (const auto& s : v) ADD_FAILURE() << "wall breach: " << s;
  EXPECT_TRUE(v.empty());
}

TEST(Wall, positive_control_detects_breach) {
  // The same scan over image/ must find compact.cpp including compact.h.
  std::vector<std::string> v = wall_violations(kRoot / "stack/runtime/image");
  EXPECT_FALSE(v.empty());
  // And over host/ it must find the plan format (runtime.cpp validates plans).
  bool plan_seen = false;
  for (const std::string& s : wall_violations(kRoot / "stack/runtime/host"))
    plan_seen = plan_seen || s.find("-> stack/runtime/plan/") != std::string::npos;
  EXPECT_TRUE(plan_seen);
}

}  // namespace
