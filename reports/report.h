// stackcheck-report's library: read a run directory written by scripts/campaign or
// scripts/zoo and write its report.md and index.html next to the data. The only entry point
// the tool needs; the pieces (tsv.h, run_data.h, document.h, svg.h, text.h) are public for
// the tests. Returns an Error naming file and line for any bad input; never prints or exits,
// and never leaves a half-written report (each file is written aside, then renamed).
#pragma once

#include <string>

#include "reports/document.h"
#include "reports/tsv.h"

namespace stackcheck::report {

struct Written {
  std::string markdown, html;  // the paths written
};

Result<Written> write_report(const std::string& run_dir, const Options& options);

}  // namespace stackcheck::report
