// dot: the dependency oracle (properties/oracles/deps.h) on a `.plan` or a `.gir` (compiled,
// then bound), printing the task DAG decoded from the shipped image as Graphviz on stdout.
// Exit 0 when the oracle passes, 1 when it fails (the dot, with the unordered pairs as red
// dashed edges, is still printed; the verdict goes to stderr) or the input has errors, 3 when
// it is inconclusive (the bind did not complete).
#include <fmt/format.h>

#include "cli/cli.h"
#include "properties/oracles/deps.h"
#include "properties/oracles/image_mutation.h"
#include "stack/ir/parser.h"
#include "stack/runtime/plan/parser.h"

namespace stackcheck::cli {
namespace {

bool ends_with(const std::string& s, const char* suffix) {
  const std::string t(suffix);
  return s.size() >= t.size() && s.compare(s.size() - t.size(), t.size(), t) == 0;
}

// A .gir is told apart by its extension; stdin (or another name) by its `orchestration`
// function, which every program has and no plan can.
bool is_program(const std::string& path, const std::string& text) {
  if (ends_with(path, ".gir")) return true;
  if (ends_with(path, ".plan")) return false;
  return text.rfind("orchestration ", 0) == 0 || text.find("\norchestration ") != std::string::npos;
}

int report(const oracles::DepsRun& run, const std::string& file) {
  if (run.graph) fmt::print("{}", oracles::dependency_dot(*run.graph, run.check, run.provenance));
  const oracles::Verdict& v = run.verdict;
  switch (v.kind) {
    case oracles::VerdictKind::Pass:
      fmt::print(stderr,
                 "dot: pass: {} conflicting access pair(s) adjacent on their bytes, each ordered (and so every pair)\n",
                 run.check.conflicting_pairs);
      return kOk;
    case oracles::VerdictKind::Fail: fmt::print(stderr, "dot: fail [{}]: {}\n", v.rule, v.message); return kFail;
    case oracles::VerdictKind::Inconclusive: break;
  }
  if (v.reason == oracles::Inconclusive::kInputRejected) {  // the compiler's diagnostics: exit 1
    fmt::print(stderr, "{}: {}\n", file, v.message);
    return kFail;
  }
  fmt::print(stderr, "dot: inconclusive [{}]: {}\n", v.reason_key(), v.message);
  return kInconclusive;
}

}  // namespace

int cmd_dot(const Args& a) {
  runtime::BindOptions opts;
  std::string sched_text;
  if (!runtime_flags(a, opts, sched_text)) return kUsage;
  fmt::print(stderr, "dot: seed={} schedule={}\n", opts.seed, sched_text);
  const std::string& path = a.positional[0];
  const std::string file = display_name(path);
  std::string text, error;
  if (!read_input(path, text, error)) {
    fmt::print(stderr, "stackcheck: {}\n", error);
    return kUsage;
  }
  if (is_program(path, text)) {
    ir::ParseResult parsed = ir::parse_program(text);
    if (!parsed.ok()) {
      fmt::print(stderr, "{}:{}:{}: error[parse]: {}\n", file, parsed.error().line, parsed.error().column,
                 parsed.error().message);
      return kFail;
    }
    return report(oracles::check_program_dependencies(parsed.program(), opts), file);
  }
  runtime::PlanParseResult parsed = runtime::parse_plan(text);
  if (!parsed.ok()) {
    fmt::print(stderr, "{}:{}:{}: error[parse]: {}\n", file, parsed.error().line, parsed.error().column,
               parsed.error().message);
    return kFail;
  }
  if (!parsed.program().mutations.empty()) {  // as `bind` applies them
    fmt::print(stderr, "dot: applying {} mutate line(s) before the upload\n", parsed.program().mutations.size());
    opts.before_upload = oracles::mutation_hook(parsed.program().mutations);
  }
  return report(oracles::check_plan_dependencies(parsed.program(), opts), file);
}

}  // namespace stackcheck::cli
