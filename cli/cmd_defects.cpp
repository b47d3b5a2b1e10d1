// defects: the defect zoo's table (stack/defects/defects.h), one defect per line: name,
// where its switch sits, what it restores. Outside the zoo build the switches are compiled
// out and the command says so.
#include <fmt/format.h>

#include <algorithm>
#include <string>

#include "cli/cli.h"
#include "stack/defects/defects.h"

namespace stackcheck::cli {

int cmd_defects(const Args&) {
#if STACKCHECK_ZOO
  size_t n = 0;
  const defects::DefectInfo* t = defects::table(&n);
  size_t width = 0;
  for (size_t i = 0; i < n; ++i) width = std::max(width, std::string(t[i].name).size());
  for (size_t i = 0; i < n; ++i) {
    fmt::print("{:<{}}  {}\n{:<{}}  {}{}\n", t[i].name, width, t[i].where, "", width, t[i].description,
               t[i].pair != nullptr ? fmt::format(" (shows together with {})", t[i].pair) : "");
  }
  const std::string selected = defects::active_names();
  fmt::print(stderr, "{} defects; {}={}\n", n, defects::kSelectionVariable, selected.empty() ? "(none)" : selected);
  return kOk;
#else
  fmt::print("defects: compiled out of this build (the zoo preset compiles the switches in)\n");
  return kOk;
#endif
}

}  // namespace stackcheck::cli
