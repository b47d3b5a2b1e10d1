// Text built by appending to one std::string, as the IR and plan printers build theirs: put()
// formats onto the end (no temporary per name, statement or line) with a format compiled at
// build time (put(out, FMT_COMPILE("{} = "), name): no format string parsed per call, the
// printers' largest cost when parsed at run time), put_joined() prints a
// comma-separated run, and printed() runs one `x_to(out, x, ...)` printer into a fresh string
// for the public `print_x(x)` entry points.
#pragma once

#include <fmt/compile.h>
#include <fmt/format.h>

#include <iterator>
#include <string>
#include <utility>

namespace stackcheck::support {

template <class Compiled, class... Args>
  requires fmt::detail::is_compiled_string<Compiled>::value
void put(std::string& out, const Compiled& f, Args&&... args) {
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
