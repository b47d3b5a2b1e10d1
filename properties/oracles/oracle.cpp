#include "properties/oracles/oracle.h"
#include "stack/support/enum_names.h"

#include <fmt/format.h>

#include <cctype>
#include <cstdint>

namespace stackcheck::oracles {

const char* inconclusive_name(Inconclusive r) {
  static constexpr auto kNames = support::names_through<Inconclusive::kRuntimeRefused>({
      "none", "input-rejected", "interpreter-error", "interpreter-budget", "resource-latch",
      "unsupported", "runtime-refused"});
  return support::enum_name(kNames, r);
}

std::string Verdict::reason_key() const {
  if (reason == Inconclusive::kResourceLatch || reason == Inconclusive::kRuntimeRefused)
    return fmt::format("{}:{}", inconclusive_name(reason), code);
  return inconclusive_name(reason);
}

std::string Verdict::to_string() const {
  switch (kind) {
    case VerdictKind::Pass: return "pass";
    case VerdictKind::Fail: return fmt::format("fail [{}]: {}", rule, message);
    case VerdictKind::Inconclusive: return fmt::format("inconclusive [{}]: {}", reason_key(), message);
  }
  return "?";
}

bool states_in_order(const std::string& text, const std::vector<int64_t>& want) {
  size_t k = 0;
  for (size_t i = 0; i < text.size() && k < want.size();) {
    const bool neg = text[i] == '-' && i + 1 < text.size() && std::isdigit(static_cast<unsigned char>(text[i + 1]));
    if (!neg && !std::isdigit(static_cast<unsigned char>(text[i]))) {
      ++i;
      continue;
    }
    size_t j = i + (neg ? 1 : 0);
    uint64_t v = 0;
    bool big = false;
    for (; j < text.size() && std::isdigit(static_cast<unsigned char>(text[j])); ++j) {
      big |= v > (UINT64_MAX - 9) / 10;
      v = v * 10 + static_cast<uint64_t>(text[j] - '0');
    }
    if (!big && v <= static_cast<uint64_t>(INT64_MAX) && (neg ? -static_cast<int64_t>(v) : static_cast<int64_t>(v)) == want[k])
      ++k;
    i = j;
  }
  return k == want.size();
}

}  // namespace stackcheck::oracles
