"""Shared plumbing of the fuzzing scripts (campaign, replay, minimize, promote, zoo).

Everything here is specific to stackcheck's layout: which fuzz targets exist, which corpus
folders feed each, how a finding is printed by a target (fuzz/fuzz_target.h), how a file's
target is found (its `# stackcheck <target>` header or its folder), and how files are written
so that a killed process never leaves a partial one (temporary file + rename).
Python standard library only.
"""

from __future__ import annotations

import argparse
import ctypes
import hashlib
import os
import re
import signal
import subprocess
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# Text-form file extension per target (what its `--text` prints).
TEXT_EXT = {
    "fuzz_parse": ".gir",
    "fuzz_pipeline": ".gir",
    "fuzz_program": ".gir",
    "fuzz_bind_plan": ".plan",
    "fuzz_attach": ".plan",
    "fuzz_relative_ptr": ".txt",
}

# Shared corpus folders and the targets that replay them (HARNESS.md §4).
SHARED_CORPUS = {
    "programs": ["fuzz_parse", "fuzz_pipeline", "fuzz_program"],
    "plans": ["fuzz_bind_plan", "fuzz_attach"],
}


class UsageError(Exception):
    """A bad flag or argument: the scripts print it on one line and exit 2."""


def die(prog: str, message: str, code: int = 2) -> None:
    print(f"{prog}: {message}", file=sys.stderr)
    sys.exit(code)


def run_script(prog: str, main: Callable[[list[str]], int], interrupted: Callable[[], int]) -> None:
    """Runs a script's main on its arguments and exits with its code: a UsageError is one line
    and exit 2; Ctrl-C exits with what `interrupted` returns (after it logs what it must)."""
    try:
        code = main(sys.argv[1:])
    except UsageError as e:
        die(prog, str(e))
    except KeyboardInterrupt:
        code = interrupted()
    sys.exit(code)


class ArgParser(argparse.ArgumentParser):
    """A bad flag is one line, `NAME: message (see PROG --help)`, and exit 2 (prog: scripts/NAME)."""

    def error(self, message):
        print(f"{Path(self.prog).name}: {message} (see {self.prog} --help)", file=sys.stderr)
        sys.exit(2)


def number_arg(kind: type, positive: bool = False) -> Callable[[str], int | float]:
    """An argparse type: a kind() number, at least 0 (positive: more than 0)."""
    def parse(s: str) -> int | float:
        try:
            v = kind(s)
        except ValueError:
            raise argparse.ArgumentTypeError(f"'{s}' is not a number")
        if positive and v <= 0:
            raise argparse.ArgumentTypeError(f"'{s}' must be more than 0")
        if v < 0:
            raise argparse.ArgumentTypeError(f"'{s}' is negative")
        return v
    return parse


def die_with_parent() -> None:
    """Child setup (a Popen preexec_fn): its own process group, so the script decides how it
    stops, and SIGKILL when the script dies, so a killed script leaves no child running."""
    os.setsid()
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except OSError:
        pass


def run_stoppable(prog: str, run: Callable[[], int], on_signal: Callable[[int, object], None]) -> int:
    """A script's run: SIGINT and SIGTERM go to on_signal (which asks the run to stop), and a
    UsageError out of run() is one line on stderr and exit 2."""
    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    try:
        return run()
    except UsageError as e:
        print(f"{prog}: {e}", file=sys.stderr, flush=True)
        return 2


# Every property is a target too (HARNESS.md §9): `props:Suite.Name`, the binary fuzz_props
# (fuzz/fuzz_props.cpp) called through a link of that name, with fuzz_props.options and the
# committed inputs of corpus/fuzz_props/<Suite.Name>/.
PROPS = "fuzz_props"
PROP_PREFIX = "props:"
PROP_RE = re.compile(r"^STACKCHECK_PROP\(([A-Za-z0-9_]+), ([A-Za-z0-9_]+),", re.M)


def property_names() -> list[str]:
    """Suite.Name of every STACKCHECK_PROP in properties/*_props.cpp (as the build reads them)."""
    names = []
    for f in sorted((ROOT / "properties").glob("*_props.cpp")):
        names += [f"{m.group(1)}.{m.group(2)}" for m in PROP_RE.finditer(f.read_text())]
    return names


def property_suites(bin_dir: Path) -> list[Path]:
    """The property suite binaries in bin_dir (one per properties/*_props.cpp; not fuzz_props)."""
    names = {f.stem for f in (ROOT / "properties").glob("*_props.cpp")}
    return sorted(b for b in bin_dir.glob("*_props") if b.name in names)


def is_property_target(target: str) -> bool:
    return target.startswith(PROP_PREFIX)


def all_targets() -> list[str]:
    """The six fuzz targets (fuzz_props runs only as `props:Suite.Name`)."""
    return sorted(p.stem for p in (ROOT / "fuzz").glob("fuzz_*.cpp") if p.stem != PROPS)


def check_targets(names: list[str]) -> list[str]:
    """The targets named: fuzz targets, `props:Suite.Name`, or `props:*` (every property)."""
    known = all_targets()
    props = property_names()
    out: list[str] = []
    for n in names:
        if n == PROP_PREFIX + "*":
            out += [PROP_PREFIX + p for p in props]
        elif is_property_target(n):
            if n[len(PROP_PREFIX):] not in props:
                raise UsageError(f"unknown property '{n[len(PROP_PREFIX):]}' (`{PROP_PREFIX}Suite.Name`; "
                                 f"have: {' '.join(props)})")
            out.append(n)
        elif n not in known:
            raise UsageError(f"unknown target '{n}' (have: {' '.join(known)}, {PROP_PREFIX}Suite.Name, "
                             f"{PROP_PREFIX}*)")
        else:
            out.append(n)
    return list(dict.fromkeys(out))


def cmake_target(name: str) -> str:
    """The CMake target that builds a binary: `props:X` is fuzz_props, `props:X_replay` fuzz_props_replay."""
    if is_property_target(name):
        return PROPS + "_replay" if name.endswith("_replay") else PROPS
    return name


def seed_dirs(target: str) -> list[Path]:
    """The source-tree corpus folders a target starts from (read-only for the fuzzer)."""
    if is_property_target(target):
        d = ROOT / "corpus" / PROPS / target[len(PROP_PREFIX):]
        return [d] if d.is_dir() and any(d.iterdir()) else []
    dirs = [ROOT / "corpus" / target / "seed", ROOT / "corpus" / target / "regression"]
    for shared, users in SHARED_CORPUS.items():
        if target in users:
            dirs.append(ROOT / "corpus" / shared)
    return [d for d in dirs if d.is_dir() and any(d.iterdir())]


def read_options(target: str) -> dict[str, str]:
    """fuzz/<target>.options ([libfuzzer] key = value); a malformed file is an error."""
    path = ROOT / "fuzz" / f"{PROPS if is_property_target(target) else target}.options"
    opts: dict[str, str] = {}
    if not path.exists():
        return opts
    section = None
    for n, line in enumerate(path.read_text().splitlines(), 1):
        line = line.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("["):
            section = line.strip("[]").strip()
            continue
        if "=" not in line:
            raise UsageError(f"{path}:{n}: expected 'key = value'")
        k, v = (s.strip() for s in line.split("=", 1))
        if section == "libfuzzer":
            opts[k] = v
    return opts


def libfuzzer_flags(target: str) -> list[str]:
    """-key=value flags from the target's .options; a dict path is made absolute."""
    flags = []
    for k, v in read_options(target).items():
        if k == "dict":
            v = str(ROOT / "fuzz" / v)
        flags.append(f"-{k}={v}")
    return flags


def sha1_hex(data: bytes) -> str:
    return hashlib.sha1(data).hexdigest()


def atomic_write(path: Path, data: bytes) -> None:
    """Writes `data` to `path` so that a reader (or a killed writer) never sees a partial file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}-{threading.get_ident()}")  # threads of one process too
    with open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def remove_stale_temps(folder: Path) -> int:
    """Deletes temporary files a killed writer left behind; returns how many."""
    n = 0
    if folder.is_dir():
        for p in folder.rglob(".*.tmp-*"):
            p.unlink(missing_ok=True)
            n += 1
    return n


def is_complete_unit(path: Path) -> bool:
    """libFuzzer names corpus units by the SHA-1 of their bytes: a file whose name is not its
    hash is one being written (or cut short by a kill)."""
    try:
        return sha1_hex(path.read_bytes()) == path.name
    except OSError:
        return False


# ---------------------------------------------------------------------------------------------
# Files and their targets

HEADER_RE = re.compile(rb"^# stackcheck ([A-Za-z0-9_.-]+)")


def header_target(data: bytes) -> str | None:
    m = HEADER_RE.match(data)
    return m.group(1).decode() if m else None


# Oracles whose counterexample files (written by the properties) `stackcheck replay` reruns.
CLI_ORACLES = ("end-to-end", "pipeline", "semantics", "roundtrip", "deps", "plan-model", "bind-structure",
               "property")
CLI = "stackcheck"


MAX_INPUT_BYTES = 16 << 20  # the replay drivers' limit too (fuzz/replay_main.cpp)


def targets_for_file(path: Path) -> list[str]:
    """What a file replays through: the fuzz target its header names (`# stackcheck <target>`),
    `stackcheck replay` (CLI) when the header names a property oracle, otherwise its folder
    (corpus/<target>/..., candidates/<target>/..., crashes/<target>/..., corpus/programs,
    corpus/plans)."""
    try:
        size = path.stat().st_size
        with open(path, "rb") as f:
            head = f.read(256)
    except OSError as e:
        raise UsageError(f"cannot read {path}: {e.strerror}")
    if size == 0:
        raise UsageError(f"{path}: empty file (a corpus file holds one input; the empty input is not one)")
    if size > MAX_INPUT_BYTES:
        raise UsageError(f"{path}: {size} bytes, larger than any input ({MAX_INPUT_BYTES >> 20} MiB at most): "
                         "not a corpus file")
    known = all_targets() + [PROPS]
    t = header_target(head)
    if t is not None:
        if t in known:
            return [t]
        if t in CLI_ORACLES:
            return [CLI]
        raise UsageError(f"{path}: header names unknown target '{t}' (have: {' '.join(known)}, "
                         f"or a property oracle: {' '.join(CLI_ORACLES)})")
    for part in reversed(path.resolve().parts[:-1]):
        if part in known or (is_property_target(part) and part[len(PROP_PREFIX):] in property_names()):
            return [part]
        if part in property_names() and path.resolve().parent.parent.name == PROPS:
            return [PROP_PREFIX + part]  # corpus/fuzz_props/<Suite.Name>/
        if part in SHARED_CORPUS:
            return list(SHARED_CORPUS[part])
    raise UsageError(f"{path}: no '# stackcheck <target>' header and no target folder in its path")


# ---------------------------------------------------------------------------------------------
# Findings as the targets and the sanitizers print them

FRAME_RE = re.compile(r"^\s*#(\d+) 0x[0-9a-f]+ in (.+?) (/\S+|\(\S+\))")
SANITIZER_RE = re.compile(r"SUMMARY: (\w+Sanitizer): (\S+)")
UBSAN_RE = re.compile(r"runtime error: (.*)")
SKIP_FRAMES = ("report_finding", "abort", "raise", "__sanitizer", "__asan", "__ubsan", "fuzzer::", "__libc",
               "LLVMFuzzerTestOneInput", "std::__", "__gnu_cxx", "operator new", "operator delete", "malloc",
               "free", "_start", "main", "__interceptor")


@dataclass
class Finding:
    """What one replay of one file showed."""

    kind: str = "none"  # none | oracle | sanitizer | timeout | crash | error
    oracle: str = ""
    rule: str = ""
    message: str = ""
    frames: list[str] = field(default_factory=list)

    @property
    def found(self) -> bool:
        return self.kind not in ("none", "error")

    def key(self, target: str) -> str:
        return "|".join([target, self.kind, self.oracle, self.rule, " < ".join(self.frames)])

    def bucket(self, target: str) -> str:
        return sha1_hex(self.key(target).encode())[:10]

    def label(self) -> str:
        if self.kind == "oracle":
            return f"{self.oracle}/{self.rule}"
        if self.kind == "sanitizer":
            return f"{self.oracle}: {self.rule}"
        return self.kind


def short_function(name: str) -> str:
    """`ns::f(int, char const*) const` -> `ns::f`: frames compare without their signatures."""
    depth = 0
    out = []
    for ch in name:
        if ch in "(<":
            if ch == "(" and depth == 0:
                break
            depth += 1
        elif ch in ")>":
            depth -= 1
            continue
        if depth == 0:
            out.append(ch)
    return "".join(out).strip() or name


def top_frames(stderr: str, n: int = 3) -> list[str]:
    """The first n frames of the first stack trace that are the project's own code."""
    frames = []
    started = False
    for line in stderr.splitlines():
        m = FRAME_RE.match(line)
        if not m:
            if started and frames:
                break
            continue
        started = True
        func, where = m.group(2), m.group(3)
        if any(s in func for s in SKIP_FRAMES):
            continue
        if str(ROOT) not in where and "/stack/" not in where and "/properties/" not in where:
            continue
        f = short_function(func)
        if not frames or frames[-1] != f:
            frames.append(f)
        if len(frames) == n:
            break
    return frames


def parse_finding(returncode: int, stderr: str, timed_out: bool = False) -> Finding:
    if timed_out:
        return Finding(kind="timeout", message="no result within the time limit", frames=top_frames(stderr))
    lines = stderr.splitlines()
    fields = {}
    for line in lines:
        for key in ("oracle", "rule", "message"):
            if line.startswith(f"# {key}: ") and key not in fields:
                fields[key] = line[len(key) + 4:].strip()
    if "oracle" in fields:
        return Finding(kind="oracle", oracle=fields["oracle"], rule=fields.get("rule", ""),
                       message=fields.get("message", ""), frames=top_frames(stderr))
    m = SANITIZER_RE.search(stderr)
    if m:
        ub = UBSAN_RE.search(stderr)
        msg = ub.group(1) if ub else next((l for l in lines if "ERROR: " in l), m.group(0))
        return Finding(kind="sanitizer", oracle=m.group(1), rule=m.group(2), message=msg.strip()[:300],
                       frames=top_frames(stderr))
    if returncode == 2:  # the driver's own error (a broken file, bad arguments): its first error line
        why = [l for l in lines if not l.startswith("replay: ") or l.startswith("replay: cannot")]
        return Finding(kind="error", message=(why[0] if why else lines[-1] if lines else "replay error")[:300])
    if returncode < 0 or returncode >= 128:
        return Finding(kind="crash", rule=f"signal {-returncode if returncode < 0 else returncode - 128}",
                       message="the process died without a report", frames=top_frames(stderr))
    if returncode != 0:
        return Finding(kind="error", message=(lines[-1] if lines else f"exit {returncode}"))
    return Finding()


# A property's counterexample file: `# stackcheck <oracle>` first, then `# failed: fail [rule]: message`.
FAILED_RE = re.compile(r"^# failed: (?:fail )?\[([^\]]*)\]:? ?(.*)$", re.M)


def counterexample_verdict(text: str) -> tuple[str, str, str]:
    """(oracle, rule, message) of a counterexample file a property wrote (properties/property.cpp)."""
    first = text.splitlines()[0] if text else ""
    oracle = first.replace("# stackcheck ", "") if first.startswith("# stackcheck ") else "property"
    m = FAILED_RE.search(text)
    message = m.group(2) if m else ""
    # A fuzz target's text form (the AllTiers properties): the oracle is named in the message.
    named = re.match(r"([a-z][a-z-]*): (.*)", message) if oracle.startswith("fuzz_") else None
    if named:
        oracle, message = named.group(1), named.group(2)
    return oracle, m.group(1) if m else "?", message[:200]


def is_positive_control(suite: str, name: str) -> bool:
    """Positive controls -- *Control, *Contract and *Oracles suites, tests named *control* --
    plant failures to test the oracles themselves: one failing under a defect or a mutant says
    the plant changed, not that an oracle caught it (the zoo's hunters and the mutation judge
    leave them out)."""
    return suite.endswith(("Control", "Contract", "Oracles")) or "control" in name


def sanitizer_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = dict(os.environ)
    sym = "/usr/bin/llvm-symbolizer-14" if Path("/usr/bin/llvm-symbolizer-14").exists() else "llvm-symbolizer"
    env.setdefault("ASAN_SYMBOLIZER_PATH", sym)
    env.setdefault("ASAN_OPTIONS", "symbolize=1:abort_on_error=0:detect_leaks=1")
    env.setdefault("UBSAN_OPTIONS", "print_stacktrace=1:halt_on_error=1:symbolize=1")
    if extra:
        env.update(extra)
    return env


def property_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """sanitizer_env for the property suites run at scale (the campaign's property phase,
    scripts/throughput): ASan keeps no allocation and free stacks, as in the libFuzzer binaries
    (fuzz/init.cpp). Recording them was a sixth of a fuzz-preset suite's time
    (docs/throughput.md); every error is still caught and reported with its own stack, and the
    replay command a failure prints runs without this, so it shows them. An ASAN_OPTIONS that
    names malloc_context_size itself is left alone."""
    env = sanitizer_env(extra)
    if "malloc_context_size" not in env["ASAN_OPTIONS"]:
        env["ASAN_OPTIONS"] += ":malloc_context_size=0"
    return env


def replay(binary: Path, path: Path, timeout: float = 60, env: dict[str, str] | None = None) -> tuple[Finding, str]:
    """Runs `<target>_replay FILE` (with `env` added to the environment) and reads what it reported."""
    try:
        p = subprocess.run([str(binary), str(path)], capture_output=True, text=True, errors="replace",
                           timeout=timeout, env=sanitizer_env(env))
    except subprocess.TimeoutExpired as e:
        err = e.stderr.decode(errors="replace") if isinstance(e.stderr, bytes) else (e.stderr or "")
        return parse_finding(0, err, timed_out=True), err
    return parse_finding(p.returncode, p.stderr), p.stderr


def text_form(binary: Path, path: Path, timeout: float = 60, env: dict[str, str] | None = None) -> bytes | None:
    """`<target>_replay --text FILE`: the canonical text form (first line `# stackcheck <t>`)."""
    try:
        p = subprocess.run([str(binary), "--text", str(path)], capture_output=True, timeout=timeout,
                           env=sanitizer_env(env))
    except subprocess.TimeoutExpired:
        return None
    if p.returncode != 0 or not p.stdout.startswith(b"# stackcheck "):
        return None
    return p.stdout


def with_header(text: bytes, lines: list[str]) -> bytes:
    """Inserts `# key: value` lines after the first (`# stackcheck <target>`) line, replacing
    any earlier lines with the same keys."""
    first, _, rest = text.partition(b"\n")
    keys = {l.split(":", 1)[0] for l in lines}
    kept = [l for l in rest.split(b"\n") if not any(l.startswith(k.encode() + b":") for k in keys)]
    head = "".join(f"{l}\n" for l in lines).encode()
    return first + b"\n" + head + b"\n".join(kept)


def build(preset: str, targets: list[str], log: Path | None = None, quiet: bool = False) -> None:
    """Configures and builds the named CMake targets of a preset (only those)."""
    targets = list(dict.fromkeys(cmake_target(t) for t in targets))
    cmds = [["cmake", "--preset", preset], ["cmake", "--build", "--preset", preset, "-j", str(os.cpu_count() or 2),
                                             "--target", *targets]]
    out = open(log, "a") if log else None
    try:
        for c in cmds:
            r = subprocess.run(c, cwd=ROOT, stdout=out or (subprocess.DEVNULL if quiet else None),
                               stderr=subprocess.STDOUT if out else None)
            if r.returncode != 0:
                where = f" (log: {log})" if log else ""
                raise UsageError(f"build failed: {' '.join(c)}{where}")
    finally:
        if out:
            out.close()


def run_bootstrap() -> None:
    r = subprocess.run([str(ROOT / "scripts" / "bootstrap")])
    if r.returncode != 0:
        raise UsageError("scripts/bootstrap failed")
