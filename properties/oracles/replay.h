// Counterexample files and their replay (HARNESS.md §1, §3): the text form of a failing input
// headed by what found it, so `stackcheck replay FILE` reruns exactly that oracle.
//
//   # stackcheck <oracle>
//   # failed: <the verdict>
//   # replay: seed=S schedule=M step_c=0|1 W=N legal=1  (the oracle's parameters; legal=1:
//                                                        generated legal, a rejection fails)
//   # found by <Suite.Name> (<how to rerun the property>)
//   <.gir or .plan text>
//
// Header lines are comments of both text forms, so the file parses as it is. Oracles:
//   end-to-end (.gir)   the compiled program on the runtime == the interpreter
//   pipeline (.gir)     verify after every pass, no false rejection
//   semantics (.gir)    the interpreter before == after every pass
//   roundtrip (.gir)    parse(print(p)) == p
//   deps (.plan|.gir)   the dependency oracle on the shipped image
//   plan-model (.plan)  the device == the sequential plan model
//   bind-structure (.plan)  the shipped image's deltas, the copies, the bytes read, storage
//                       (a latched bind: it uploads nothing; with `code` it latches that code
//                       first, or a config-bound one, status_codes.h)
//   boundary (.gir)     node counts, hoisted creates, InOut writes, Step C (input_oracles.h)
//   rejection (.gir)    LegalizeGraphBoundary rejects the input with `code`
//   latch (.plan)       a latched bind uploads nothing and reports the first `code`
//   compaction (.plan)  the live prefix, and each (or the `precondition`) violated by `by`
//   corrupt-image (.plan)  the `mutate` lines' image rejected by attach or run safely
//   relative-ptr (.plan)   the offset API on the replay line's `field` and `target`
//   property            a check only the property's own run repeats: replay names its command
// No RapidCheck, nothing printed.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "properties/oracles/oracle.h"
#include "stack/runtime/device/scheduler.h"
#include "stack/runtime/plan/program.h"

namespace stackcheck::oracles {

// The parameters an input replays with: `# replay: KEY=VALUE ...` lines among the file's
// leading comment lines (every line after the first, up to the first that does not start
// with '#'; other comment lines there are ignored). The fuzz targets' text forms use the
// same lines (fuzz/fuzz_target.h).
struct ReplayParams {
  uint64_t seed = 0;
  runtime::ScheduleOptions schedule;
  bool step_c = true;
  std::vector<runtime::ConfigEntry> config;  // W
  // The input oracles' parameters (input_oracles.h): the expected code, the compaction
  // precondition and how far it is violated, the offset API's field and target.
  std::optional<uint64_t> code, precondition, field, target;
  uint64_t by = 1;
  bool legal = false;  // a program legal by construction: a rejection is a false rejection
  std::string expect;  // corrupt-image: the attach class the image must be rejected with ("" any outcome)
};
// Every KEY=VALUE item of those lines (a later item overrides an earlier one); an error when
// an item is not KEY=VALUE.
std::optional<std::string> read_replay_items(std::string_view file, std::map<std::string, std::string>& items);
// Sets the fields of `p` the items name (seed, schedule, step_c, W, legal, code, ...), leaving the others; an
// error on an unknown key or a malformed value.
std::optional<std::string> read_replay_params(const std::map<std::string, std::string>& items, ReplayParams& p);

struct Counterexample {
  std::string oracle;                         // one of replay_oracles()
  std::string text;                           // the input, .gir or .plan
  std::map<std::string, std::string> params;  // seed, schedule, step_c, W, code, precondition, by, field, target
  std::string failed;                         // the verdict's text (one line)
  std::string found_by;                       // who found it and how to rerun that
};

std::vector<std::string> replay_oracles();
bool is_plan_oracle(std::string_view oracle);  // the input is a .plan (deps takes both)

// The file's bytes: header lines, then the text.
std::string write_counterexample(const Counterexample& c);

struct ReplayResult {
  std::optional<std::string> error;  // the file cannot be replayed (header, text, params)
  Verdict verdict;                   // the oracle's answer
  std::string oracle;
};

// Parses the header of `file`, parses the text and runs the named oracle on it.
ReplayResult replay_counterexample(std::string_view file);

}  // namespace stackcheck::oracles
