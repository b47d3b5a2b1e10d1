// bind: the runtime alone, on an orchestration program in `.plan` text.
#include "stack/cli/cli.h"

#include "stack/runtime/host/bind.h"
#include "stack/runtime/host/plan_parser.h"

#include <fmt/format.h>

namespace stackcheck::cli {

int cmd_bind(const Args& a) {
  runtime::BindOptions opts;
  if (a.has("--seed") && !parse_u64(a.get("--seed"), opts.seed)) {
    fmt::print(stderr, "stackcheck: --seed takes an unsigned 64-bit integer, got '{}'\n", a.get("--seed"));
    return kUsage;
  }
  if (a.has("--fill")) {
    uint64_t fill = 0;
    if (!parse_u64(a.get("--fill"), fill) || fill > 255) {
      fmt::print(stderr, "stackcheck: --fill takes a byte value 0..255, got '{}'\n", a.get("--fill"));
      return kUsage;
    }
    opts.fill_byte = static_cast<uint8_t>(fill);
    fmt::print(stderr, "bind: fill=0x{:02x}\n", fill);
  }
  fmt::print(stderr, "bind: seed={}\n", opts.seed);
  std::string text, error;
  if (!read_input(a.positional[0], text, error)) {
    fmt::print(stderr, "stackcheck: {}\n", error);
    return kUsage;
  }
  runtime::PlanParseResult parsed = runtime::parse_plan(text);
  if (!parsed.ok()) {
    fmt::print(stderr, "{}:{}:{}: error[parse]: {}\n", display_name(a.positional[0]), parsed.error().line,
               parsed.error().column, parsed.error().message);
    return kFail;
  }
  const runtime::BindResult r = runtime::bind_plan(parsed.program(), opts);
  fmt::print("{}\n{}\n", r.stats.to_line(), runtime::status_line(r));
  return r.status == 0 ? kOk : kFail;
}

}  // namespace stackcheck::cli
