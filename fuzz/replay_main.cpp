// Replay driver: runs a fuzz target's LLVMFuzzerTestOneInput without libFuzzer, so every
// build (gcc included) replays the corpus, and gives the campaign the target's text forms and
// classifications (fuzz_target.h). Modes:
//   <t>_replay FILE|DIR...            runs each file once (a directory: its files, sorted); a
//                                     finding aborts with its four lines, as under libFuzzer;
//                                     else the last line counts the inputs that passed, were
//                                     inconclusive and were rejected (run_files)
//   <t>_replay --text FILE            the canonical text form of FILE on stdout
//   <t>_replay --classify FILE|DIR... one line `<class>\t<path>` per file on stdout, each
//                                     file run in a child process (a crash or a hang cannot
//                                     stop the others): pass, inconclusive:<reason_key>,
//                                     rejected, fail:<oracle>/<rule>; a child that dies is
//                                     fail:crash/<SIGNAME|exit-N|timeout>
//   <t>_replay --check-text N [--seed S] [--max-len L] [--cases A:B]
//                                     N random byte strings: each one's class equals its
//                                     text form's class, the text form is a fixed point, and
//                                     (positive control) the text form with a line no parser
//                                     accepts is rejected, which no raw input is; --cases
//                                     checks only cases A to B-1 of the same N (the others are
//                                     drawn and passed over), so parts of a check run apart
// Exit codes: 0 done (no finding: a finding aborts); 1 --check-text found a mismatch; 2 usage,
// or a file that is no input (unreadable, empty, oversize) or, named on the command line, no
// corpus file of this target (another target's header, a text form it rejects).
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "fuzz/fuzz_target.h"
#include "stack/support/splitmix.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv);  // init.cpp

namespace stackcheck::fuzz {

namespace {

// The driver's own record of the running input (never read by a target).
struct Finding {
  std::string oracle;
  oracles::Verdict verdict;
};
bool g_classifying = false;
std::optional<Outcome> g_noted;

}  // namespace

void replay_note_outcome(const Outcome& o) { g_noted = o; }

void replay_report_finding(const char* target, std::string_view oracle, const oracles::Verdict& v) {
  if (g_classifying) throw Finding{std::string(oracle), v};
  const std::string text = finding_text(target, oracle, v);
  std::fputs(text.c_str(), stderr);
  std::fflush(stderr);
  std::abort();
}

namespace {

constexpr unsigned kClassifyTimeoutSeconds = 300;

// A corpus file past this size is refused before it is read (the largest libFuzzer input of
// any target is 64 KiB; a text form a few times that).
constexpr uintmax_t kMaxInputBytes = 16u << 20;

// Why `p` cannot be read as one input, or nullopt (`bytes` then holds it).
std::optional<std::string> read_input(const std::filesystem::path& p, std::vector<uint8_t>& bytes) {
  std::error_code ec;
  if (std::filesystem::is_directory(p, ec)) return "is a directory";
  const uintmax_t size = std::filesystem::file_size(p, ec);
  if (ec) return "cannot read: " + ec.message();
  if (size > kMaxInputBytes)
    return fmt::format("{} bytes, larger than any input ({} MiB at most): not a corpus file", size,
                       kMaxInputBytes >> 20);
  std::ifstream in(p, std::ios::binary);
  if (!in) return "cannot open";
  bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  if (in.bad()) return "read error";
  return std::nullopt;
}

// Why the bytes of a file are no input at all, or nullopt: empty (no corpus file holds the
// empty input: libFuzzer tries it on its own and never writes it).
std::optional<std::string> not_an_input(std::span<const uint8_t> bytes) {
  if (bytes.empty()) return "empty file (a corpus file holds one input; the empty input is not one)";
  return std::nullopt;
}

// Why a corpus file given by name (ctest, scripts/replay) is broken, or nullopt: no input, or a
// text form whose header names another target (not `shared`).
std::optional<std::string> broken_file(std::span<const uint8_t> bytes) {
  if (auto why = not_an_input(bytes)) return why;
  const std::string_view text = as_text(bytes.data(), bytes.size());
  if (!is_text_form(text)) return std::nullopt;
  std::string_view name = text.substr(std::string_view("# stackcheck").size());
  name = name.substr(0, name.find('\n'));
  while (!name.empty() && (name.front() == ' ' || name.front() == '\t')) name.remove_prefix(1);
  while (!name.empty() && (name.back() == ' ' || name.back() == '\r')) name.remove_suffix(1);
  // `shared`: corpus/programs and corpus/plans, a text form every target of their kind reads.
  if (name != target_name() && name != "shared")
    return fmt::format("its header names '{}', not {} (scripts/replay picks the driver from the header)",
                       std::string(name).substr(0, 80), target_name());
  return std::nullopt;
}

// Runs the target once on an exact-size heap copy (ASan sees reads past the input; never a
// null pointer, as under libFuzzer).
void run_once(std::span<const uint8_t> bytes) {
  std::unique_ptr<uint8_t[]> exact(new uint8_t[bytes.size()]);
  if (!bytes.empty()) std::memcpy(exact.get(), bytes.data(), bytes.size());
  LLVMFuzzerTestOneInput(exact.get(), bytes.size());
}

// The class of one input and the digest of what its run observed (fuzz_target.h), in this
// process: a finding unwinds to here.
struct Ran {
  std::string cls;
  uint64_t digest = 0;
  bool operator==(const Ran&) const = default;
};
Ran run_here(std::span<const uint8_t> bytes) {
  g_classifying = true;
  g_noted.reset();
  Ran out;
  try {
    run_once(bytes);
    out.cls = g_noted ? g_noted->class_name() : "pass";
    out.digest = g_noted ? g_noted->digest : 0;
  } catch (const Finding& f) {
    out.cls = "fail:" + f.oracle + "/" + f.verdict.rule;
    out.digest = oracles::digest_text(oracles::digest_text(support::kFnvOffset, out.cls), f.verdict.message);
  }
  g_classifying = false;
  return out;
}
std::string classify_here(std::span<const uint8_t> bytes) { return run_here(bytes).cls; }

std::string signal_name(int sig) {
  switch (sig) {
    case SIGABRT: return "SIGABRT";
    case SIGSEGV: return "SIGSEGV";
    case SIGBUS: return "SIGBUS";
    case SIGFPE: return "SIGFPE";
    case SIGILL: return "SIGILL";
    case SIGKILL: return "SIGKILL";
    case SIGTRAP: return "SIGTRAP";
    default: return "signal-" + std::to_string(sig);
  }
}

// The class of one input, run in a child process.
std::string classify_isolated(std::span<const uint8_t> bytes) {
  int fds[2];
  if (pipe(fds) != 0) return classify_here(bytes);
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    return classify_here(bytes);
  }
  if (pid == 0) {
    close(fds[0]);
    alarm(kClassifyTimeoutSeconds);
    const std::string c = classify_here(bytes) + "\n";
    ssize_t at = 0;
    while (at < static_cast<ssize_t>(c.size())) {
      const ssize_t n = write(fds[1], c.data() + at, c.size() - static_cast<size_t>(at));
      if (n <= 0) break;
      at += n;
    }
    close(fds[1]);
    _exit(0);  // no leak check or atexit work of the parent's state in the child
  }
  close(fds[1]);
  std::string got;
  char buf[256];
  for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) != 0;) {
    if (n < 0) {
      if (errno == EINTR) continue;
      break;
    }
    got.append(buf, static_cast<size_t>(n));
  }
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!got.empty() && got.back() == '\n' && WIFEXITED(status) && WEXITSTATUS(status) == 0) {
    got.pop_back();
    return got;
  }
  if (WIFSIGNALED(status))
    return "fail:crash/" + (WTERMSIG(status) == SIGALRM ? std::string("timeout") : signal_name(WTERMSIG(status)));
  return "fail:crash/exit-" + std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

// A file to run: named on the command line, or found in a directory named there.
struct Listed {
  std::filesystem::path path;
  bool named = false;
};

// Files named by the arguments: a directory's regular files, sorted.
std::vector<Listed> expand(const std::vector<std::string>& args, bool& ok) {
  std::vector<Listed> out;
  for (const std::string& a : args) {
    std::filesystem::path p(a);
    std::error_code ec;
    if (std::filesystem::is_directory(p, ec)) {
      std::vector<std::filesystem::path> files;
      for (const auto& e : std::filesystem::directory_iterator(p, ec))
        if (e.is_regular_file()) files.push_back(e.path());
      if (ec) {
        std::fprintf(stderr, "replay: cannot list %s: %s\n", p.c_str(), ec.message().c_str());
        ok = false;
      }
      std::sort(files.begin(), files.end());
      for (auto& f : files) out.push_back({std::move(f), false});
    } else {
      out.push_back({p, true});
    }
  }
  return out;
}

int usage(const char* argv0) {
  std::fprintf(stderr,
               "usage: %s FILE|DIR...              run the target once per file (a finding aborts)\n"
               "       %s --text FILE              print FILE's canonical text form\n"
               "       %s --classify FILE|DIR...   print `<class>\\t<path>` per file\n"
               "       %s --hash FILE|DIR...       run each file twice, print `<digest>\\t<class>\\t<path>`;\n"
               "                                   exit 1 when the two runs differ\n"
               "       %s --check-text N [--seed S] [--max-len L] [--cases A:B]\n"
               "                                   raw bytes and their text form classify alike\n"
               "                                   (--cases: only cases A to B-1 of the N)\n",
               argv0, argv0, argv0, argv0, argv0);
  return 2;
}

// A file named on the command line is a corpus file its caller vouches for (ctest's replay
// cases, scripts/replay): whatever keeps it from being one of this target's is an error (exit
// 2): no input, another target's header (broken_file), a text form the target rejects. A file
// found in a directory is an input as libFuzzer ran it (a campaign's corpus keeps the mutants
// of text forms that its target rejects, and whatever their headers became): it runs, and its
// outcome is counted; only a file that is no input at all (unreadable, empty, oversize) or a
// directory that cannot be listed is an error. The last line counts the outcomes.
int run_files(const std::vector<std::string>& args) {
  bool listed = true;
  const std::vector<Listed> files = expand(args, listed);
  size_t errors = listed ? 0 : 1, n = 0;
  std::map<Outcome::Kind, size_t> outcomes;
  for (const Listed& f : files) {
    std::vector<uint8_t> bytes;
    std::optional<std::string> why = read_input(f.path, bytes);
    if (!why) why = f.named ? broken_file(bytes) : not_an_input(bytes);
    if (why) {
      std::fprintf(stderr, "%s: %s: %s\n", target_name(), f.path.c_str(), why->c_str());
      ++errors;
      continue;
    }
    std::fprintf(stderr, "replay: %s (%zu bytes)\n", f.path.c_str(), bytes.size());
    g_noted.reset();
    run_once(bytes);
    ++n;
    const Outcome::Kind kind = g_noted ? g_noted->kind : Outcome::Kind::kPass;
    ++outcomes[kind];
    if (kind != Outcome::Kind::kRejected) continue;
    std::string reason = g_noted->why.substr(0, 200);
    std::replace(reason.begin(), reason.end(), '\n', ' ');
    // A text form this target parses and then rejects (truncated, binary, bad parameters),
    // given by name: a broken corpus file.
    if (f.named && parses_text_form() && is_text_form(as_text(bytes.data(), bytes.size()))) {
      std::fprintf(stderr, "%s: %s: a text form %s rejects: %s\n", target_name(), f.path.c_str(), target_name(),
                   reason.c_str());
      ++errors;
    } else {
      std::fprintf(stderr, "replay: %s: rejected: %s\n", f.path.c_str(), reason.c_str());
    }
  }
  std::string last = fmt::format("replay: {} input(s) ran without a finding: {} passed, {} inconclusive, {} rejected",
                                 n, outcomes[Outcome::Kind::kPass], outcomes[Outcome::Kind::kInconclusive],
                                 outcomes[Outcome::Kind::kRejected]);
  if (errors != 0) last += fmt::format("; {} error(s) above", errors);
  std::fprintf(stderr, "%s\n", last.c_str());
  return errors == 0 ? 0 : 2;
}

int print_text(const std::string& file) {
  std::vector<uint8_t> bytes;
  if (auto why = read_input(file, bytes)) {
    std::fprintf(stderr, "%s: %s: %s\n", target_name(), file.c_str(), why->c_str());
    return 2;
  }
  const std::string text = text_form(bytes);
  std::fwrite(text.data(), 1, text.size(), stdout);
  return std::fflush(stdout) == 0 ? 0 : 2;
}

// `f(path, bytes)` for each file of FILE|DIR arguments that reads (read_input); the others
// are said on stderr (`<target>: <file>: <why>`) and clear `ok`.
template <class F>
void each_input(const std::vector<std::string>& args, bool& ok, F&& f) {
  for (const Listed& l : expand(args, ok)) {
    std::vector<uint8_t> bytes;
    if (const std::optional<std::string> why = read_input(l.path, bytes)) {
      std::fprintf(stderr, "%s: %s: %s\n", target_name(), l.path.c_str(), why->c_str());
      ok = false;
      continue;
    }
    f(l.path, bytes);
    std::fflush(stdout);
  }
}

int classify_files(const std::vector<std::string>& args) {
  bool ok = true;
  each_input(args, ok, [](const std::filesystem::path& f, const std::vector<uint8_t>& bytes) {
    std::printf("%s\t%s\n", classify_isolated(bytes).c_str(), f.c_str());
  });
  return ok ? 0 : 2;
}

// Determinism: each input twice in this process; the digests (and classes) must agree. The
// digest printed is compared across processes by the ctest (fuzz/determinism_test.sh).
int hash_files(const std::vector<std::string>& args) {
  bool ok = true, same = true;
  each_input(args, ok, [&same](const std::filesystem::path& f, const std::vector<uint8_t>& bytes) {
    const Ran a = run_here(bytes), b = run_here(bytes);
    if (!(a == b)) {
      same = false;
      std::fprintf(stderr, "%s: nondeterministic: %s gave %016llx %s, then %016llx %s\n", target_name(), f.c_str(),
                   static_cast<unsigned long long>(a.digest), a.cls.c_str(), static_cast<unsigned long long>(b.digest),
                   b.cls.c_str());
    }
    std::printf("%016llx\t%s\t%s\n", static_cast<unsigned long long>(a.digest), a.cls.c_str(), f.c_str());
  });
  return !same ? 1 : ok ? 0 : 2;
}

// The text form with a line no .gir or .plan parser accepts after its leading comments.
std::string spoiled(const std::string& text) {
  size_t at = 0;
  while (at < text.size() && text[at] == '#') {
    const size_t nl = text.find('\n', at);
    at = nl == std::string::npos ? text.size() : nl + 1;
  }
  return text.substr(0, at) + "@ not a statement\n" + text.substr(at);
}

int check_text(uint64_t n, uint64_t seed, uint64_t max_len, uint64_t from, uint64_t to) {
  support::SplitMix64 rng(seed);
  const std::string head = std::string("# stackcheck ") + target_name() + "\n";
  uint64_t mismatches = 0;
  std::map<std::string, uint64_t> classes;
  auto bad = [&](uint64_t k, const std::string& what, const std::vector<uint8_t>& bytes) {
    ++mismatches;
    std::string hex;
    for (size_t i = 0; i < bytes.size() && i < 64; ++i) hex += fmt::format("{:02x}", bytes[i]);
    std::fprintf(stderr, "check-text: case %llu: %s (input %zu bytes: %s%s)\n", static_cast<unsigned long long>(k),
                 what.c_str(), bytes.size(), hex.c_str(), bytes.size() > 64 ? "..." : "");
  };
  for (uint64_t k = 0; k < n; ++k) {
    std::vector<uint8_t> bytes(max_len == 0 ? 0 : rng.next() % (max_len + 1));
    for (uint8_t& b : bytes) b = static_cast<uint8_t>(rng.next());
    if (k < from || k >= to) continue;  // another part's case: drawn, so that case k is the same in every part
    if (is_text_form(as_text(bytes.data(), bytes.size()))) continue;  // (a 1 in 2^96 chance)
#ifdef STACKCHECK_SCHEMATA
    // scripts/mutate's per-case reach (schemata.py's prelude): a case the plan skips is not run.
    if (stackcheck_schemata::case_plan(k - from) != 'r') continue;
    stackcheck_schemata::case_begin();
#endif
    const std::string raw = classify_here(bytes);
    ++classes[raw];
    const std::string text = text_form(bytes);
    const std::vector<uint8_t> text_bytes(text.begin(), text.end());
    if (text.rfind(head, 0) != 0)
      bad(k, "the text form does not start with `" + head.substr(0, head.size() - 1) + "`", bytes);
    if (text_form(text_bytes) != text) bad(k, "the text form is not a fixed point of --text", bytes);
    const std::string from_text = classify_here(text_bytes);
    if (from_text != raw) bad(k, "raw bytes give " + raw + ", their text form " + from_text, bytes);
    // Positive control: the text is parsed, not decoded (a raw input is never rejected).
    const std::string s = spoiled(text);
    const std::string control = classify_here(std::vector<uint8_t>(s.begin(), s.end()));
    if (raw == "rejected") bad(k, "raw bytes are rejected: every byte string must decode", bytes);
    if (control != "rejected") bad(k, "the spoiled text form gives " + control + ", not rejected", bytes);
#ifdef STACKCHECK_SCHEMATA
    stackcheck_schemata::case_end(k - from, 'p');
#endif
  }
  std::string summary;
  for (const auto& [c, count] : classes) summary += fmt::format(" {}={}", c, count);
  std::fprintf(stderr, "check-text: %s: cases %llu-%llu of %llu, %llu mismatches; raw classes:%s\n", target_name(),
               static_cast<unsigned long long>(std::min(from, n)), static_cast<unsigned long long>(std::min(to, n)),
               static_cast<unsigned long long>(n), static_cast<unsigned long long>(mismatches), summary.c_str());
  return mismatches == 0 ? 0 : 1;
}

bool parse_u64(const char* s, uint64_t& out) {
  if (s == nullptr || *s == '\0') return false;
  char* end = nullptr;
  errno = 0;
  const unsigned long long v = std::strtoull(s, &end, 10);
  if (errno != 0 || *end != '\0' || s[0] == '-') return false;
  out = v;
  return true;
}

// "A:B" with A < B: cases A to B-1.
bool parse_range(const std::string& s, uint64_t& from, uint64_t& to) {
  const size_t colon = s.find(':');
  if (colon == std::string::npos) return false;
  const std::string a = s.substr(0, colon), b = s.substr(colon + 1);
  uint64_t x = 0, y = 0;
  if (!parse_u64(a.c_str(), x) || !parse_u64(b.c_str(), y) || x >= y) return false;
  from = x;
  to = y;
  return true;
}

}  // namespace
}  // namespace stackcheck::fuzz

int main(int argc, char** argv) {
  using namespace stackcheck::fuzz;
  LLVMFuzzerInitialize(&argc, &argv);  // refuses a defect selection this build cannot honour
  if (argc < 2) return usage(argv[0]);
  const std::string mode = argv[1];
  std::vector<std::string> rest(argv + 2, argv + argc);
  if (mode == "--text") {
    if (rest.size() != 1) return usage(argv[0]);
    return print_text(rest[0]);
  }
  if (mode == "--classify") {
    if (rest.empty()) return usage(argv[0]);
    return classify_files(rest);
  }
  if (mode == "--hash") {
    if (rest.empty()) return usage(argv[0]);
    return hash_files(rest);
  }
  if (mode == "--check-text") {
    uint64_t n = 0, seed = 1, max_len = 2048, from = 0, to = UINT64_MAX;
    if (rest.empty() || !parse_u64(rest[0].c_str(), n)) return usage(argv[0]);
    for (size_t i = 1; i < rest.size(); i += 2) {
      if (i + 1 >= rest.size()) return usage(argv[0]);
      if (rest[i] == "--seed" && parse_u64(rest[i + 1].c_str(), seed)) continue;
      if (rest[i] == "--max-len" && parse_u64(rest[i + 1].c_str(), max_len)) continue;
      if (rest[i] == "--cases" && parse_range(rest[i + 1], from, to)) continue;
      return usage(argv[0]);
    }
    return check_text(n, seed, max_len, from, to);
  }
  if (mode.rfind("--", 0) == 0 || mode == "-h") return usage(argv[0]);
  return run_files(std::vector<std::string>(argv + 1, argv + argc));
}
