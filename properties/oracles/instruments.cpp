// The pass manager's instruments against the full run (instruments.h).
#include "properties/oracles/instruments.h"

#include <fmt/format.h>

#include <string>
#include <vector>

#include "stack/ir/equal.h"
#include "stack/ir/printer.h"

namespace stackcheck::oracles {

passes::PassManager default_manager(passes::PassManagerOptions options) {
  return passes::default_pipeline({}, std::move(options));
}

Verdict check_instruments(const ir::Program& p, const ManagerFactory& make) {
  const std::span<const passes::PipelineStage> stages = passes::pipeline_stages();
  // The full run, each stage's output kept (print-after-all is what records them here).
  std::vector<std::string> printed;
  passes::PassManagerOptions with_print;
  with_print.print_after_all = true;
  with_print.sink = [&printed](std::string_view block) { printed.emplace_back(block); };
  passes::PassManager full_pm = make(std::move(with_print));
  const passes::PipelineResult full = full_pm.run(p);
  if (!full.ok()) return Verdict::inconclusive(Inconclusive::kInputRejected, full.message);

  // The stage list.
  std::string names;
  for (const passes::PipelineStage& s : stages) {
    if (passes::find_stage(s.name) != &s)
      return Verdict::fail("stage-list", fmt::format("find_stage(\"{}\") does not find its stage", s.name));
    names += (names.empty() ? "" : ", ") + std::string(s.name);
  }
  if (passes::find_stage("NoSuchPass") != nullptr || passes::find_stage("") != nullptr)
    return Verdict::fail("stage-list", "find_stage finds a stage by a name no stage has");
  if (passes::pipeline_stage_names() != names)
    return Verdict::fail("stage-list",
                         fmt::format("pipeline_stage_names() is \"{}\", the stages are \"{}\"",
                                     passes::pipeline_stage_names(), names));

  // print-after-all: one block per stage, in order; each stage's output is then the program of
  // the stop-after run below, printed.
  if (printed.size() != stages.size())
    return Verdict::fail("print-after-all", fmt::format("{} blocks for {} stages", printed.size(), stages.size()));
  std::vector<std::string> passes_before;
  for (size_t k = 0; k < stages.size(); ++k) {
    const std::string name(stages[k].name);
    passes::PassManagerOptions o;
    o.stop_after = name;
    passes::PassManager pm = make(std::move(o));
    const passes::PipelineResult r = pm.run(p);
    passes_before.push_back(name);
    if (!r.ok())
      return Verdict::fail("stop-after", fmt::format("stopped after {}: {} where the full run passed", name, r.message));
    if (r.stopped_after != name || r.passes_run != passes_before)
      return Verdict::fail("stop-after", fmt::format("stopped after {}: the run reports stopped_after \"{}\" and ran {} "
                                                     "passes",
                                                     name, r.stopped_after, r.passes_run.size()));
    const std::string want = fmt::format("# after {}\n{}", name, ir::print_program(r.program));
    if (printed[k] != want)
      return Verdict::fail("print-after-all",
                           fmt::format("the block after {} is not its output (stop-after's): {} bytes vs {}", name,
                                       printed[k].size(), want.size()));
    if (k + 1 == stages.size() && !ir::equal(r.program, full.program))
      return Verdict::fail("stop-after", "stopped after the last stage, the program differs from the full run's");
  }

  // Without the verify instrument the passes give the same program.
  passes::PassManagerOptions unverified;
  unverified.verify = false;
  passes::PassManager pm = make(std::move(unverified));
  const passes::PipelineResult r = pm.run(p);
  if (!r.ok() || !ir::equal(r.program, full.program))
    return Verdict::fail("verify-off", "without the verify instrument the pipeline gives another program (" +
                                           (r.ok() ? std::string("ok") : r.message) + ")");
  return Verdict::pass();
}

}  // namespace stackcheck::oracles
