"""scripts/mutate's judge: scratch clones, incremental builds, the harness's tests, and trivial
compiler equivalence.

A Scratch is a `git clone --shared` of the tree's HEAD under build/mutate/scratch/jobN with
its own dev preset build (libstack shared and not relinked into its users:
STACKCHECK_STACK_SHARED; ccache as the compiler launcher when ccache is installed). A mutant
is written into the scratch, never into the work tree, and reverted after its verdict. The
judge runs the ctest cases of the `property` and `replay` labels (positive controls left out:
fuzzlib.is_positive_control), each test's own command as ctest would, cheapest first by a
baseline run's times, and stops at the first failure. Python standard library only.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import fuzzlib

RC_SEED = "seed=20261129"  # scripts/test's pinned RapidCheck seed: the baseline and every mutant alike
PER_TEST_FACTOR, PER_TEST_FLOOR = 10, 5.0  # a test's time limit: 10x its baseline time, 5 s at least
GTEST_FAIL_RE = re.compile(r"^(.*(?:Failure|Falsifiable|error:|Expected|Which is).*)$", re.M)


@dataclass
class Test:
    name: str
    command: list[str]
    cwd: str
    env: dict[str, str] = field(default_factory=dict)
    label: str = ""
    seconds: float = 0.0  # from the baseline

    @property
    def suite_name(self) -> tuple[str, str]:
        suite, _, name = self.name.partition(".")
        return (suite, name) if name else ("", self.name)


@dataclass
class Verdict:
    failed: bool
    timed_out: bool = False
    test: str = ""
    oracle: str = ""
    rule: str = ""
    message: str = ""
    seconds: float = 0.0


RUNNING: set[int] = set()  # the process groups run_logged started and still waits for


def run_logged(cmd: list[str], cwd: Path, log: Path, env: dict | None = None, timeout: float | None = None) -> int:
    """Runs cmd with its output appended to log; -9 when it outlived `timeout`."""
    with open(log, "ab") as out:
        out.write(f"$ {' '.join(shlex.quote(c) for c in cmd)}\n".encode())
        out.flush()
        p = subprocess.Popen(cmd, cwd=cwd, stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True)
        RUNNING.add(p.pid)
        try:
            return p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
            return -9
        finally:
            RUNNING.discard(p.pid)


def in_threads(work, args: list[tuple]) -> list[str]:
    """Runs work(*a, errors) in one thread per entry of args and waits for them all (polling,
    so that a signal handler still runs); returns what they appended to errors."""
    errors: list[str] = []
    threads = [threading.Thread(target=work, args=(*a, errors), daemon=True) for a in args]
    for t in threads:
        t.start()
    for t in threads:
        while t.is_alive():
            t.join(0.5)
    return errors


def kill_running() -> None:
    """Ends every process group run_logged is waiting for (a second Ctrl-C: stop now)."""
    for pid in list(RUNNING):
        try:
            os.killpg(pid, signal.SIGKILL)
        except OSError:
            pass


def tail(path: Path, pattern: str = r"^FAILED: |error: |^ninja: build stopped", lines: int = 1) -> str:
    try:
        text = path.read_text(errors="replace").splitlines()
    except OSError:
        return ""
    hits = [l.strip() for l in text if re.search(pattern, l)]
    return " | ".join((hits or text[-1:])[:lines])[:300]


# ---------------------------------------------------------------------------------------------
# Tests: listed from ctest, run one by one


def list_tests(build_dir: Path, label: str) -> list[Test]:
    """The ctest cases of one label with their commands (ctest --show-only=json-v1)."""
    p = subprocess.run(["ctest", "--test-dir", str(build_dir), "-L", f"^{label}$", "--show-only=json-v1"],
                       capture_output=True, text=True)
    if p.returncode != 0:
        raise fuzzlib.UsageError(f"ctest --show-only in {build_dir} failed: {p.stderr.strip()[:200]}")
    out = []
    for t in json.loads(p.stdout).get("tests", []):
        if not t.get("command"):
            continue
        props = {x["name"]: x["value"] for x in t.get("properties", [])}
        env = dict(e.split("=", 1) for e in props.get("ENVIRONMENT", []) if "=" in e)
        out.append(Test(t["name"], list(t["command"]), props.get("WORKING_DIRECTORY", str(build_dir)), env, label))
    return out


def rebased(tests: list[Test], old: Path, new: Path) -> list[Test]:
    """The same tests run from another scratch clone: paths under `old` moved to `new`."""
    o, n = str(old), str(new)

    def move(x: str) -> str:
        return n + x[len(o):] if x == o or x.startswith(o + "/") else x
    return [Test(t.name, [move(c) for c in t.command], move(t.cwd), {k: move(v) for k, v in t.env.items()}, t.label,
                 t.seconds) for t in tests]


def judge_tests(tests: list[Test]) -> list[Test]:
    """The tests that judge: every one but the positive controls."""
    return [t for t in tests if not fuzzlib.is_positive_control(*t.suite_name)]


def corpus_tests(build_dir: Path, corpus: Path) -> list[Test]:
    """--corpus DIR: each target folder of a campaign corpus (DIR/<target>/, or DIR itself when
    it is named after a target) replayed through the target's replay driver."""
    targets = fuzzlib.all_targets()
    dirs = [corpus] if corpus.name in targets else [corpus / t for t in targets if (corpus / t).is_dir()]
    return [Test(f"corpus/{d.name}", [str(build_dir / "bin" / f"{d.name}_replay"), str(d)], str(build_dir),
                 label="corpus") for d in dirs if any(d.iterdir())]


def corpus_input_tests(build_dir: Path, corpus: Path) -> list[Test]:
    """--corpus DIR for the schemata judge: one test per input file (`corpus/<target>/<file>`),
    so that the reach map tells which inputs run a site."""
    out = []
    for d in corpus_tests(build_dir, corpus):
        folder = Path(d.command[1])
        for f in sorted(p for p in folder.rglob("*") if p.is_file() and not p.name.startswith(".")):
            out.append(Test(f"{d.name}/{f.relative_to(folder)}", [d.command[0], str(f)], d.cwd, label="corpus"))
    return out


def targets_of(tests: list[Test], build_dir: Path) -> list[str]:
    """The CMake targets that build the tests' binaries (the binaries under the build's bin/;
    a test run by a script, with its binaries elsewhere on its command line, names none)."""
    names = set()
    bin_dir = (build_dir / "bin").resolve()
    for t in tests:
        for c in t.command[:2]:
            p = Path(c)
            if p.is_absolute() and p.resolve().parent == bin_dir:
                names.add(p.name)
                break
    return sorted(names)


def failure_of(t: Test, rc: int, log: Path, cx_dir: Path) -> Verdict:
    """What a failing test says: the property's counterexample (oracle, rule), the replay
    driver's finding lines, a sanitizer or a signal, else the first failure line."""
    files = sorted(p for p in cx_dir.glob("*") if p.suffix in (".gir", ".plan")) if cx_dir.is_dir() else []
    if files:
        oracle, rule, msg = fuzzlib.counterexample_verdict(files[0].read_text(errors="replace"))
        return Verdict(True, test=t.name, oracle=oracle, rule=rule, message=msg)
    text = log.read_text(errors="replace") if log.exists() else ""
    f = fuzzlib.parse_finding(rc, text)
    if f.kind in ("oracle", "sanitizer", "crash"):
        return Verdict(True, test=t.name, oracle=f.oracle or f.kind, rule=f.rule, message=f.message[:200])
    m = GTEST_FAIL_RE.search(text)
    return Verdict(True, test=t.name, oracle="(test assertion)", rule="-",
                   message=(m.group(1).strip() if m else f"exit {rc}")[:200])


def run_tests(tests: list[Test], work: Path, budget: float | None, stop_at_first: bool = True,
              extra_env: dict | None = None, on_result=None, stop: threading.Event | None = None) -> Verdict:
    """Runs the tests in order until the first failure (or all of them); a test still running
    when the budget is spent is a timeout. on_result(test, seconds, failed) sees each one. Once
    `stop` is set (another runner failed), no further test starts."""
    work.mkdir(parents=True, exist_ok=True)
    t0 = time.time()
    first: Verdict | None = None
    for i, t in enumerate(tests):
        if stop is not None and stop.is_set():
            break
        left = None if budget is None else budget - (time.time() - t0)
        if left is not None and left <= 0:
            return Verdict(True, timed_out=True, test=t.name, message="time limit reached before this test",
                           seconds=time.time() - t0)
        log = work / f"test-{i:04d}.log"
        cx = work / f"cx-{i:04d}"
        env = {**os.environ, "RC_PARAMS": os.environ.get("RC_PARAMS", RC_SEED), "STACKCHECK_COUNTEREXAMPLES": str(cx),
               **t.env, **(extra_env or {})}
        # a hang costs a test's own share, not the whole budget: PER_TEST_FACTOR x its baseline time
        limit = left if not t.seconds else min(left or 1e9, max(PER_TEST_FLOOR, PER_TEST_FACTOR * t.seconds))
        started = time.time()
        rc = run_logged(t.command, Path(t.cwd), log, env=env, timeout=limit)
        took = time.time() - started
        if rc == -9:
            return Verdict(True, timed_out=True, test=t.name, message=f"still running after {took:.0f} s "
                           f"(baseline {t.seconds:.1f} s)",
                           seconds=time.time() - t0)
        if on_result:
            on_result(t, took, rc != 0)
        if rc != 0:
            v = failure_of(t, rc, log, cx)
            v.seconds = time.time() - t0
            if stop_at_first:
                return v
            first = first or v
        else:
            log.unlink(missing_ok=True)
            shutil.rmtree(cx, ignore_errors=True)
    if first:
        return first
    return Verdict(False, seconds=time.time() - t0)


# ---------------------------------------------------------------------------------------------
# Trivial compiler equivalence


def run_tests_split(tests: list[Test], work: Path, budget: float | None, jobs: int,
                    extra_env: dict | None = None) -> Verdict:
    """run_tests over `jobs` runners at once, test i going to runner i % jobs (so each runner
    keeps the order, cheapest first); the first failure stops every runner before its next test
    and is the verdict (of two at once, the runner listed first). Every test runs when none fails."""
    jobs = max(1, min(jobs, len(tests)))
    if jobs == 1:
        return run_tests(tests, work, budget, extra_env=extra_env)
    stop = threading.Event()
    verdicts: list[Verdict | None] = [None] * jobs

    def runner(k: int, errors: list[str]) -> None:
        try:
            v = run_tests(tests[k::jobs], work / f"runner-{k}", budget, extra_env=extra_env, stop=stop)
        except Exception as e:  # noqa: BLE001 (reported as the runner's error, not lost in a thread)
            errors.append(f"runner {k}: {e}")
            stop.set()
            return
        verdicts[k] = v
        if v.failed:
            stop.set()

    errors = in_threads(runner, [(k,) for k in range(jobs)])
    if errors:
        raise RuntimeError(errors[0])
    failed = [v for v in verdicts if v is not None and v.failed]
    if failed:
        return failed[0]
    return Verdict(False, seconds=max(v.seconds for v in verdicts if v is not None))


def argv_of(entry: dict) -> list[str]:
    """A compile_commands.json entry's command as a list."""
    return list(entry.get("arguments") or shlex.split(entry["command"]))


def bare_flags(entry: dict) -> list[str]:
    """The entry's command without -c, -o and the dependency-file flags (the source stays)."""
    out, skip = [], False
    for a in argv_of(entry):
        if skip:
            skip = False
        elif a in ("-o", "-MF", "-MT", "-MQ"):
            skip = True
        elif a not in ("-c", "-MD", "-MMD"):
            out.append(a)
    return out


def compile_object(entry: dict, out: Path | None = None, log: Path | None = None) -> bool:
    """Compiles one TU with its compile command (a compile_commands.json entry, or the build's
    own command for the object: Scratch.compile_entry), to `out` instead of its own -o when
    given (a dependency file too goes beside `out`). True when it compiled."""
    argv = argv_of(entry)
    if out is not None:
        i = argv.index("-o")
        argv[i + 1] = str(out)
        if "-MF" in argv:
            argv[argv.index("-MF") + 1] = str(out) + ".d"
    p = subprocess.run(argv, cwd=entry["directory"], capture_output=True)
    if log is not None:
        with open(log, "ab") as f:
            f.write(p.stdout + p.stderr)
    return p.returncode == 0


def syntax_check(entry: dict) -> tuple[bool, str]:
    """Compiles one TU with -fsyntax-only (its compile command without -c, -o and the dependency
    flags): (passed, the compiler's output)."""
    argv = bare_flags(entry)
    # columns in bytes, as the schemata's spans count them (gcc counts display columns by default; clang bytes)
    columns = [] if "clang" in Path(argv[0]).name else ["-fdiagnostics-column-unit=byte"]
    p = subprocess.run([*argv, "-fsyntax-only", *columns], cwd=entry["directory"], capture_output=True, text=True,
                       errors="replace")
    return p.returncode == 0, p.stdout + p.stderr


def object_path(entry: dict) -> Path:
    argv = argv_of(entry)
    return Path(entry["directory"], argv[argv.index("-o") + 1])


def stripped(obj: Path) -> bytes:
    """An object's bytes without its debug information (objcopy --strip-debug)."""
    tmp = obj.with_name(obj.name + f".strip-{os.getpid()}-{threading.get_ident()}")
    try:
        subprocess.run(["objcopy", "--strip-debug", str(obj), str(tmp)], check=True, capture_output=True)
        return tmp.read_bytes()
    finally:
        tmp.unlink(missing_ok=True)


def same_object(a: bytes, b: bytes) -> bool:
    return hashlib.sha256(a).digest() == hashlib.sha256(b).digest()


# ---------------------------------------------------------------------------------------------
# A scratch clone with its own build


class Scratch:
    MARKER = ".stackcheck-mutant"

    def __init__(self, root: Path, path: Path, preset: str, jobs: int, log: Path, cmake_args: tuple = (),
                 build_env: dict | None = None):
        self.root, self.path, self.preset, self.jobs, self.log = root, path, preset, jobs, log
        self.cmake_args = list(cmake_args)  # more -D flags for the configure step (the schemata build's)
        self.build_env = build_env or {}  # more environment for its builds
        self.build_dir = path / "build" / preset
        self.backups = path / "build" / "mutate-objects"
        self.entries: dict[str, dict] = {}

    def git(self, *args: str) -> int:
        return run_logged(["git", "-C", str(self.path), *args], self.path.parent, self.log)

    def setup(self, commit: str) -> None:
        """Clones (or brings an earlier clone to) `commit`, undoes a mutant a killed run left
        applied, and configures the preset."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if not (self.path / ".git").exists():
            shutil.rmtree(self.path, ignore_errors=True)
            if run_logged(["git", "clone", "--quiet", "--shared", "--no-checkout", str(self.root), str(self.path)],
                          self.path.parent, self.log) != 0:
                raise fuzzlib.UsageError(f"git clone into {self.path} failed (log: {self.log})")
        marker = self.path / self.MARKER
        if marker.exists():  # a mutant was applied when the last run was killed
            left = json.loads(marker.read_text())
            run_logged(["git", "-C", str(self.path), "checkout", "-f", "--", left["file"]], self.path, self.log)
            (self.path / left["file"]).touch()
            marker.unlink()
        shutil.rmtree(self.backups, ignore_errors=True)  # the next build makes every object anew
        if self.git("fetch", "--quiet", str(self.root), commit) != 0 or \
                self.git("checkout", "--quiet", "-f", "--detach", commit) != 0:
            raise fuzzlib.UsageError(f"cannot check {commit} out in {self.path} (log: {self.log})")
        # libstack shared, and not relinked into its users: a mutant in a stack/ .cpp costs one
        # compile and one link of libstack.so (CMakeLists.txt: STACKCHECK_STACK_SHARED)
        cfg = ["cmake", "--preset", self.preset, "-DSTACKCHECK_STACK_SHARED=ON", *self.cmake_args]
        if shutil.which("ccache"):
            cfg.append("-DCMAKE_CXX_COMPILER_LAUNCHER=ccache")
        if run_logged(cfg, self.path, self.log) != 0:
            raise fuzzlib.UsageError(f"configuring preset {self.preset} in {self.path} failed (log: {self.log})")
        cc = json.loads((self.build_dir / "compile_commands.json").read_text())
        for e in cc:
            p = os.path.normpath(str(Path(e["directory"], e["file"])))
            self.entries.setdefault(os.path.relpath(p, self.path), e)

    def build(self, targets: list[str] | None, log: Path, keep_going: bool = False) -> bool:
        cmd = ["cmake", "--build", "--preset", self.preset, "-j", str(self.jobs)]
        if targets:
            cmd += ["--target", "stack", *targets]  # the binaries no longer relink when libstack.so changes
        if keep_going:
            cmd += ["--", "-k", "0"]  # every error of the build in one log (the schemata's ejection)
        return run_logged(cmd, self.path, log, env={**os.environ, **self.build_env}) == 0

    # -- one mutant --------------------------------------------------------------------------

    def original_object(self, rel: str) -> bytes:
        """The TU's unmutated object, debug info stripped: saved the first time the TU is
        mutated after setup's build (before any mutant of it), from the build's own object."""
        self.backups.mkdir(parents=True, exist_ok=True)
        saved = self.backups / (hashlib.sha1(rel.encode()).hexdigest() + ".o.stripped")
        if not saved.exists():
            fuzzlib.atomic_write(saved, stripped(object_path(self.entries[rel])))
        return saved.read_bytes()

    def compile_entry(self, rel: str) -> dict:
        """The build's own command for the TU's object (ninja's, with the ccache launcher and
        its dependency flags), so that compiling a mutant for the object-code comparison leaves
        a ccache entry the build then hits instead of compiling it again."""
        obj = os.path.relpath(object_path(self.entries[rel]), self.build_dir)
        p = subprocess.run(["ninja", "-C", str(self.build_dir), "-t", "commands", "-s", obj], capture_output=True,
                           text=True)
        lines = [l for l in p.stdout.splitlines() if " -o " in l]
        if p.returncode != 0 or not lines:
            return self.entries[rel]
        return {"directory": str(self.build_dir), "command": lines[-1], "file": self.entries[rel]["file"]}

    def apply(self, file: str, data: bytes) -> None:
        (self.path / self.MARKER).write_text(json.dumps({"file": file}))
        (self.path / file).write_bytes(data)

    def revert(self, file: str, original: bytes) -> None:
        """The file's own bytes back (newer than its objects: the next build compiles it again,
        a ccache hit)."""
        (self.path / file).write_bytes(original)
        (self.path / self.MARKER).unlink(missing_ok=True)
