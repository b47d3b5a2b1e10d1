// fuzz_props (HARNESS.md §9): any property of the suites run on raw bytes, coverage-guided.
//   fuzz_props --property=Suite.Name [libFuzzer flags] [corpus dirs]
//   fuzz_props [libFuzzer flags] [corpus dirs]      every property: the first byte picks one
//   fuzz_props_replay [--property=Suite.Name] FILE|DIR...   (and every mode of replay_main.cpp)
// The property (STACKCHECK_PROP, properties/property.h) draws every choice from
// gen::choices(); here that is ByteChoices over the input, so libFuzzer steers the same
// generators, mutations, seeds and schedules RapidCheck draws at random, and the property's
// own oracles judge the case. The property comes from the binary's name when it is called as
// `props:Suite.Name[_replay]` (links the build makes), else from STACKCHECK_PROPERTY, else from
// `--property=` (which wins); libFuzzer ignores flags that start with `--` and hands them on to
// -fork/-jobs children.
//
// Outcome: the property's report() decides. A failure is a finding (fuzz_target.h) whose
// oracle is the counterexample's (or "property"; "(test assertion)" for RC_ASSERT, "exception"
// for an escaped exception), its rule the verdict's, its message "Suite.Name: <message>"; an
// inconclusive verdict (or RC_PRE, RC_DISCARD) is inconclusive; else a pass. Before the finding
// lines, stderr gets the values the case drew and the counterexample the property wrote, as
// RapidCheck would print them.
//
// Text form:
//   # stackcheck fuzz_props
//   # property: Suite.Name
//   # drawn <type>: ...      (what the case drew, as comment lines; ignored when read)
//   0a1b2c...              (the input's bytes in hex, 32 to a line)
// A text form names its own property; raw bytes are the given property's, or without one, the
// first byte picks the property (every_property()) and the text form holds the rest. A run given a property takes
// only text forms of that property. Every other comment line is ignored; any other line that
// is not hex rejects the input.
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "fuzz/fuzz_target.h"
#include "properties/gen/choice.h"
#include "properties/property.h"

namespace stackcheck::fuzz {

namespace {

const props::Property*& selected() {
  static const props::Property* p = nullptr;
  return p;
}

struct TextInput {
  const props::Property* property = nullptr;
  std::vector<uint8_t> bytes;
};

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

std::variant<TextInput, std::string> parse_text(std::string_view text) {
  TextInput in;
  std::string name;
  size_t line_no = 0;
  int high = -1;
  for (size_t at = 0; at < text.size();) {
    const size_t nl = text.find('\n', at);
    const std::string_view line = text.substr(at, nl == std::string_view::npos ? std::string_view::npos : nl - at);
    at = nl == std::string_view::npos ? text.size() : nl + 1;
    ++line_no;
    if (line_no == 1) continue;  // `# stackcheck ...` (the replay driver checks the name)
    if (!line.empty() && line.front() == '#') {
      constexpr std::string_view kKey = "# property:";
      if (line.rfind(kKey, 0) == 0) name = std::string(trimmed(line.substr(kKey.size())));
      continue;
    }
    for (char ch : line) {
      if (ch == ' ' || ch == '\t' || ch == '\r') continue;
      const int d = hex_digit(ch);
      if (d < 0) {
        const auto u = static_cast<unsigned char>(ch);
        const std::string shown = u >= 0x20 && u < 0x7f ? fmt::format("'{}'", ch) : fmt::format("byte {:#04x}", u);
        return fmt::format("line {}: {} is not a hex digit (the input's bytes are hex)", line_no, shown);
      }
      if (high < 0) {
        high = d;
      } else {
        in.bytes.push_back(static_cast<uint8_t>(high << 4 | d));
        high = -1;
      }
    }
  }
  if (high >= 0) return std::string("an odd number of hex digits");
  if (name.empty()) return std::string("no `# property: Suite.Name` line");
  in.property = props::find_property(name);
  if (!in.property) return fmt::format("no property '{}' (fuzz_props --list names them)", name.substr(0, 120));
  return in;
}

// The values the case drew, as the byte engine recorded them (gen::drawn_values()), each line
// a comment. Run in a child process: a body that crashes (a finding under ASan) must not take
// the text form with it; then the form has no drawn lines.
std::string drawn_comments(const props::Property& p, std::span<const uint8_t> bytes) {
  int fds[2];
  if (pipe(fds) != 0) return "";
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    return "";
  }
  if (pid == 0) {
    close(fds[0]);
    if (FILE* devnull = std::freopen("/dev/null", "w", stderr)) (void)devnull;
    gen::ByteChoices c(bytes);
    const props::BytesOutcome o = props::run_on_bytes(p, c);
    std::string out;
    for (const std::string& v : o.drawn) {
      std::string_view rest = v;
      out += "# drawn ";
      while (true) {
        const size_t nl = rest.find('\n');
        out += std::string(rest.substr(0, nl)) + "\n";
        if (nl == std::string_view::npos) break;
        rest.remove_prefix(nl + 1);
        out += "#   ";
      }
    }
    for (size_t done = 0; done < out.size();) {
      const ssize_t n = write(fds[1], out.data() + done, out.size() - done);
      if (n <= 0) break;
      done += static_cast<size_t>(n);
    }
    _exit(0);
  }
  close(fds[1]);
  std::string out;
  char buf[4096];
  for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) > 0;) out.append(buf, static_cast<size_t>(n));
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? out : "";
}

// Without a property (ClusterFuzzLite's one fuzz_props target): every property but the
// positive controls, by name; the input's first byte picks one (ByteChoices, modulo their
// count), the rest is that property's input.
const std::vector<const props::Property*>& every_property() {
  static const std::vector<const props::Property*> all = [] {
    std::vector<const props::Property*> v;
    for (const props::Property& p : props::properties()) {
      const std::string_view n = p.name, suite = n.substr(0, n.find('.'));
      const bool control = suite.ends_with("Control") || suite.ends_with("Contract") || suite.ends_with("Oracles") ||
                           n.find("control") != std::string_view::npos;
      if (!control) v.push_back(&p);
    }
    std::sort(v.begin(), v.end(), [](const auto* a, const auto* b) { return a->name < b->name; });
    return v;
  }();
  return all;
}

// The property an input runs and the bytes it reads: a text form's own property and hex bytes
// (or the parse error), raw bytes the run's property's (or, without one, the first byte picks it).
std::variant<TextInput, std::string> read_input(std::span<const uint8_t> in) {
  const std::string_view text = as_text(in.data(), in.size());
  if (is_text_form(text)) return parse_text(text);
  TextInput out;
  std::span<const uint8_t> rest = in;
  out.property = selected();
  if (!out.property && !every_property().empty()) {
    const auto& all = every_property();
    gen::ByteChoices pick(in);
    out.property = all[static_cast<size_t>(pick.integer(0, static_cast<int64_t>(all.size()) - 1))];
    rest = in.subspan(std::min(pick.consumed(), in.size()));
  }
  if (!out.property) return std::string("no property is registered");
  out.bytes.assign(rest.begin(), rest.end());
  return out;
}

}  // namespace

const char* target_name() { return "fuzz_props"; }
bool parses_text_form() { return true; }

std::string text_form(std::span<const uint8_t> input) {
  auto read = read_input(input);
  if (std::holds_alternative<std::string>(read))  // a text form that does not parse: as it is
    return with_header(target_name(), as_text(input.data(), input.size()));
  const props::Property* p = std::get<TextInput>(read).property;
  const std::vector<uint8_t>& bytes = std::get<TextInput>(read).bytes;
  std::string out = fmt::format("# stackcheck {}\n# property: {}\n", target_name(), p->name);
  out += drawn_comments(*p, bytes);
  for (size_t i = 0; i < bytes.size(); ++i)
    out += fmt::format("{:02x}{}", bytes[i], i + 1 == bytes.size() || i % 32 == 31 ? "\n" : "");
  return out;
}

}  // namespace stackcheck::fuzz

// Called by init.cpp's LLVMFuzzerInitialize: takes --property=Suite.Name (or STACKCHECK_PROPERTY);
// `--list` prints the properties and exits. The replay build removes the flag from argv (its
// driver reads the rest); libFuzzer ignores it.
extern "C" int stackcheck_target_initialize(int* argc, char*** argv) {
  using namespace stackcheck;
  std::string name;
  if (const char* e = std::getenv("STACKCHECK_PROPERTY")) name = e;
  const char* prog = *argc > 0 ? (*argv)[0] : "fuzz_props";
  // Called as `props:Suite.Name` or `props:Suite.Name_replay` (the per-property links the build
  // makes, so the campaign, the zoo and ClusterFuzzLite run a property as a target of its own).
  std::string_view base = prog;
  if (const size_t slash = base.rfind('/'); slash != std::string_view::npos) base.remove_prefix(slash + 1);
  if (base.rfind("props:", 0) == 0) {
    base.remove_prefix(std::strlen("props:"));
    if (base.size() > 7 && base.substr(base.size() - 7) == "_replay") base.remove_suffix(7);
    name = std::string(base);
  }
  int kept = 1;
  for (int i = 1; i < *argc; ++i) {
    const std::string_view a = (*argv)[i];
    if (a.rfind("--property=", 0) == 0) {
      name = std::string(a.substr(std::strlen("--property=")));
#if defined(STACKCHECK_FUZZ_REPLAY)
      continue;
#endif
    } else if (a == "--list") {
      for (const props::Property& p : props::properties()) std::printf("%s\n", p.name.c_str());
      std::exit(0);
    }
    (*argv)[kept++] = (*argv)[i];
  }
  *argc = kept;
  (*argv)[kept] = nullptr;
  if (!name.empty()) {
    fuzz::selected() = props::find_property(name);
    if (!fuzz::selected()) {
      std::fprintf(stderr, "%s: no property '%s'; `%s --list` names them\n", prog, name.c_str(), prog);
      std::exit(2);
    }
    std::fprintf(stderr, "%s: property %s\n", prog, name.c_str());
  }
  if (!fuzz::selected())
    std::fprintf(stderr, "%s: every property (%zu; --property=Suite.Name picks one): an input's first byte picks it\n",
                 prog, fuzz::every_property().size());
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace stackcheck;
  fuzz::Judge j(fuzz::target_name());
  auto read = fuzz::read_input(std::span<const uint8_t>(data, size));
  if (auto* why = std::get_if<std::string>(&read)) return j.reject(*why);
  const props::Property* p = std::get<fuzz::TextInput>(read).property;
  // A run of one property (the flag, the link's name) takes only that property's inputs:
  // a libFuzzer mutant naming another would fuzz every property at once.
  if (fuzz::selected() && p != fuzz::selected())
    return j.reject(fmt::format("a text form of {}, not of {} (this run's property)", p->name,
                                fuzz::selected()->name));
  const std::span<const uint8_t> in = std::get<fuzz::TextInput>(read).bytes;
  gen::ByteChoices c(in);
  const props::BytesOutcome o = props::run_on_bytes(*p, c);
  j.observe([&] { return oracles::digest_text(support::kFnvOffset, o.oracle + o.verdict.to_string()); });
  switch (o.kind) {
    case props::BytesOutcome::Kind::kPass: return j.done();
    case props::BytesOutcome::Kind::kInconclusive:
      j.check(o.oracle, o.verdict);
      return j.done();
    case props::BytesOutcome::Kind::kFail: break;
  }
  std::string context;
  for (const std::string& v : o.drawn) context += "drawn " + v + "\n";
  if (!o.text.empty()) context += "counterexample:\n" + o.text + (o.text.back() == '\n' ? "" : "\n");
  if (!context.empty()) {
    std::fputs(context.c_str(), stderr);
    std::fflush(stderr);
  }
  oracles::Verdict v = o.verdict;
  v.message = p->name + ": " + v.message;
  j.fail(o.oracle, v);
}
