#include "stack/ir/diagnostic.h"

#include <fmt/format.h>

namespace stackcheck::ir {

std::string Diagnostic::render(const std::string& file) const {
  std::string where = fmt::format("{}:{}", location.line, location.column);
  if (!file.empty()) where = file + ":" + where;
  return fmt::format("{}: error[{}]: {}", where, code, message);
}

}  // namespace stackcheck::ir
