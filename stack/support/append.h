// Text built by appending to one std::string, as the IR and plan printers build theirs: put()
// formats onto the end (no temporary per name, statement or line), put_joined() prints a
// comma-separated run, and printed() runs one `x_to(out, x, ...)` printer into a fresh string
// for the public `print_x(x)` entry points.
#pragma once

#include <fmt/format.h>

#include <iterator>
#include <string>
#include <utility>

namespace stackcheck::support {

template <class... Args>
void put(std::string& out, fmt::format_string<Args...> f, Args&&... args) {
  fmt::format_to(std::back_inserter(out), f, std::forward<Args>(args)...);
}

// The items printed one after another by to(out, item), ", " between them.
template <class Printer, class First, class... Rest>
void put_joined(std::string& out, Printer&& to, const First& first, const Rest&... rest) {
  to(out, first);
  ((out += ", ", to(out, rest)), ...);
}

template <class Printer, class... Args>
std::string printed(Printer&& to, const Args&... args) {
  std::string out;
  to(out, args...);
  return out;
}

}  // namespace stackcheck::support
