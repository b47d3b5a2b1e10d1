"""scripts/campaign: the main job. See `scripts/campaign --help` and README.md.

Layout of the working folder DIR (default build/campaign):
  corpus/<target>/        the persistent corpus: every file is named by the SHA-1 of its bytes
                          and arrives by temp file + rename, so a kill never leaves a partial one
  sessions/<target>/<id>/ libFuzzer's writable corpus of one run; harvested into corpus/ while
                          the run goes and again on the next start (only complete units)
  pruned/<target>/        units a completed merge found redundant (moved, never deleted)
  crashes/<target>/       raw finding bytes as libFuzzer wrote them
  findings/<bucket>/      per bucket: the minimized bytes and what the replay showed
  candidates/<target>/    one text-form file per bucket, with its header: review, then
                          `scripts/promote FILE`
  <timestamp>/            one run's logs, time series, tables, report.md and index.html
"""

from __future__ import annotations

import argparse
import ctypes
import fcntl
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import fuzzlib  # noqa: E402
from fuzzlib import ROOT, UsageError  # noqa: E402

PROG = "campaign"
PRESET = "fuzz"

STATUS_RE = re.compile(r"^#(\d+):?\s.*?cov: (\d+) ft: (\d+) corp: (\d+)(?:/(\d+)(b|Kb|Mb))?.*?exec/s:? (\d+)")
RSS_RE = re.compile(r"rss: (\d+)Mb")
FORK_CRASH_RE = re.compile(r"oom/timeout/crash: (\d+)/(\d+)/(\d+)")
FINAL_STAT_RE = re.compile(r"stat::(\w+):\s+(\d+)")
SLOWEST_RE = re.compile(r"Slowest unit: (\d+) s")
# OSS-Fuzz's limits per input (a target's .options may set its own).
OSS_FUZZ_LIMITS = {"timeout": "25", "rss_limit_mb": "2560"}
ARTIFACT_PREFIXES = ("crash-", "leak-", "timeout-", "oom-", "slow-unit-")


def log(msg: str) -> None:
    print(f"{PROG}: {msg}", file=sys.stderr, flush=True)


def fmt_int(n: int) -> str:
    return f"{n:,}"


def fmt_secs(s: float) -> str:
    s = max(0, int(s))
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}" if s >= 3600 else f"{s // 60}:{s % 60:02d}"


def die_with_parent() -> None:
    """Child setup: its own process group (the campaign decides how it stops) and SIGKILL
    when the campaign dies, so a killed campaign leaves no fuzzer running."""
    os.setsid()
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except OSError:
        pass


# ---------------------------------------------------------------------------------------------
# Corpus bookkeeping (kill-safe)


class Store:
    def __init__(self, out: Path):
        self.out = out

    def corpus(self, t: str) -> Path:
        return self.out / "corpus" / t

    def sessions(self, t: str) -> Path:
        return self.out / "sessions" / t

    def pruned(self, t: str) -> Path:
        return self.out / "pruned" / t

    def crashes(self, t: str) -> Path:
        return self.out / "crashes" / t

    def harvest(self, t: str, session: Path) -> int:
        """Copies every complete unit of a session folder into the corpus (temp + rename)."""
        dest = self.corpus(t)
        dest.mkdir(parents=True, exist_ok=True)
        n = 0
        if not session.is_dir():
            return 0
        for f in session.iterdir():
            if f.name.startswith(".") or (dest / f.name).exists() or (self.pruned(t) / f.name).exists():
                continue
            try:
                data = f.read_bytes()
            except OSError:
                continue
            if fuzzlib.sha1_hex(data) != f.name:
                continue  # being written, or cut short by a kill: not a unit yet
            fuzzlib.atomic_write(dest / f.name, data)
            n += 1
        return n

    def recover(self, t: str) -> tuple[int, int]:
        """On start: harvest what killed runs left in sessions/, then drop those folders and any
        temporary file a killed writer left. Returns (units recovered, temps removed)."""
        got = 0
        for s in sorted(self.sessions(t).glob("*")) if self.sessions(t).is_dir() else []:
            self.end_group(s / ".pgid")
            got += self.harvest(t, s)
            shutil.rmtree(s, ignore_errors=True)
        shutil.rmtree(self.out / "tmp" / t, ignore_errors=True)
        temps = fuzzlib.remove_stale_temps(self.corpus(t)) + fuzzlib.remove_stale_temps(self.out / "candidates")
        # A unit whose bytes are not its name cannot come from harvest; drop it rather than
        # feed the fuzzer a file that is not what its name says.
        if self.corpus(t).is_dir():
            for f in self.corpus(t).iterdir():
                if not f.name.startswith(".") and not fuzzlib.is_complete_unit(f):
                    f.unlink(missing_ok=True)
                    temps += 1
        return got, temps

    def end_group(self, pgid_file: Path) -> None:
        """SIGKILLs a killed run's leftover process group, if it is still ours."""
        try:
            pgid = int(pgid_file.read_text())
        except (OSError, ValueError):
            return
        for proc in Path("/proc").iterdir():
            if not proc.name.isdigit():
                continue
            try:
                if os.getpgid(int(proc.name)) != pgid:
                    continue
                cmd = (proc / "cmdline").read_bytes()
            except (OSError, ProcessLookupError):
                continue
            if str(self.out).encode() in cmd:
                try:
                    os.killpg(pgid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                return

    def size(self, t: str) -> tuple[int, int]:
        d = self.corpus(t)
        if not d.is_dir():
            return 0, 0
        files = [f for f in d.iterdir() if not f.name.startswith(".")]
        return len(files), sum(f.stat().st_size for f in files)


# ---------------------------------------------------------------------------------------------
# One libFuzzer run of one target


@dataclass
class Stats:
    execs: int = 0
    exec_s: int = 0
    cov: int = 0
    ft: int = 0
    corpus: int = 0
    rss_mb: int = 0


@dataclass
class Task:
    target: str
    seconds: float  # wall-clock share
    slice: float  # longest single run
    seed: int
    used: float = 0.0  # seconds run so far (over restarts)
    proc: subprocess.Popen | None = None
    session: Path | None = None
    log_path: Path | None = None
    started: float = 0.0
    restarts: int = 0
    base_execs: int = 0  # executions of earlier runs of this task
    stats: Stats = field(default_factory=Stats)
    done: bool = False
    status: str = "queued"
    slowest_s: int = 0  # libFuzzer's "Slowest unit" (reported from -report_slow_units seconds)
    peak_rss_mb: int = 0
    log_pos: int = 0

    @property
    def total_execs(self) -> int:
        return self.base_execs + self.stats.execs

    def remaining(self, now: float) -> float:
        run = (now - self.started) if self.proc else 0.0
        return max(0.0, self.seconds - self.used - run)


class Campaign:
    def __init__(self, args: argparse.Namespace):
        self.a = args
        self.out = Path(args.out).resolve()
        if self.out == ROOT or ROOT / "build" not in [self.out, *self.out.parents] and ROOT in self.out.parents:
            raise UsageError(f"--out {args.out}: the campaign never writes into the source tree (use build/...)")
        self.store = Store(self.out)
        self.bin = ROOT / "build" / PRESET / "bin"
        self.stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
        self.run_dir = self.out / self.stamp
        self.started = time.time()  # the run (build included)
        self.t0 = self.started  # fuzzing: reset when the fuzzing starts, so the build never eats the budget
        self.stop_requested = 0
        self.tasks: list[Task] = []
        self.totals: dict[str, Stats] = {}
        self.execs_total: dict[str, int] = {}
        self.seconds_total: dict[str, float] = {}
        self.tty = sys.stderr.isatty() and not args.plain
        self.status_lines = 0
        self.last_plain = 0.0
        self.last_refresh = time.time()
        self.last_sample = 0.0
        self.last_harvest = time.time()
        self.buckets: dict[str, dict] = {}
        self.property_rows: list[dict] = []

    # -- setup ------------------------------------------------------------------------------
    def lock(self) -> None:
        self.out.mkdir(parents=True, exist_ok=True)
        self.lock_file = open(self.out / ".lock", "w")
        try:
            fcntl.flock(self.lock_file, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            raise UsageError(f"another campaign is running on {self.out}")

    def build(self) -> None:
        if self.a.no_build:
            for t in self.a.targets:
                for b in (t, f"{t}_replay"):
                    if not (self.bin / b).exists():
                        raise UsageError(f"--no-build but {self.bin / b} does not exist")
            return
        names = [n for t in self.a.targets for n in (t, f"{t}_replay")] + ["stackcheck-report"]
        if self.a.properties:
            names += [p.stem for p in sorted((ROOT / "properties").glob("*_props.cpp"))]
        log(f"building preset {PRESET}: {len(names)} targets (log: {self.run_dir / 'build.log'})")
        fuzzlib.build(PRESET, names, log=self.run_dir / "build.log")

    # -- scheduling -------------------------------------------------------------------------
    def plan(self, round_seconds: float) -> list[Task]:
        """Every target gets an equal share of the slots: with J slots and T > J targets, each
        runs J slices of round / T seconds, so the round ends on time with every slot busy
        (T <= J: each runs the whole round)."""
        t = len(self.a.targets)
        j = self.a.jobs
        share = round_seconds if t <= j else round_seconds * j / t
        piece = round_seconds if t <= j else round_seconds / t
        base = self.a.seed
        return [Task(target=name, seconds=share, slice=piece, seed=base + i) for i, name in enumerate(self.a.targets)]

    def next_task(self) -> Task | None:
        """The waiting task with the most time left (so shares even out, round-robin)."""
        waiting = [t for t in self.tasks if not t.proc and not t.done]
        return max(waiting, key=lambda t: (t.seconds - t.used, -self.tasks.index(t)), default=None)

    def start(self, task: Task, now: float) -> None:
        t = task.target
        task.session = self.store.sessions(t) / f"{self.stamp}-{task.restarts}"
        task.session.mkdir(parents=True, exist_ok=True)
        self.store.crashes(t).mkdir(parents=True, exist_ok=True)
        self.store.corpus(t).mkdir(parents=True, exist_ok=True)
        task.log_path = self.run_dir / "logs" / f"{t}.{task.restarts}.log"
        task.log_path.parent.mkdir(parents=True, exist_ok=True)
        secs = max(5, int(min(task.slice, task.remaining(now))))
        cmd = [str(self.bin / t), str(task.session), str(self.store.corpus(t)),
               *[str(d) for d in fuzzlib.seed_dirs(t)], *self.limits(t), *fuzzlib.libfuzzer_flags(t), *self.a.extra,
               f"-seed={task.seed + 1000 * task.restarts}", f"-max_total_time={secs}", "-print_final_stats=1",
               f"-artifact_prefix={self.store.crashes(t)}/", "-reload=30"]
        if self.a.fork:
            cmd += ["-fork=1", "-ignore_crashes=1", "-ignore_timeouts=1", "-ignore_ooms=1"]
        # -fork keeps its job folders under TMPDIR: inside DIR, so a killed run's are found and
        # removed on the next start.
        tmp = self.out / "tmp" / t
        tmp.mkdir(parents=True, exist_ok=True)
        env = fuzzlib.sanitizer_env({"ASAN_OPTIONS": "symbolize=1:detect_leaks=1:abort_on_error=0",
                                     "TMPDIR": str(tmp)})
        with open(task.log_path, "wb") as lf:
            lf.write(("$ " + " ".join(cmd) + "\n").encode())
            lf.flush()
            task.proc = subprocess.Popen(cmd, stdout=lf, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                         cwd=self.store.crashes(t), env=env, preexec_fn=die_with_parent)
        # Its process group, so the next start can end fork-mode jobs a SIGKILLed campaign
        # left behind (PR_SET_PDEATHSIG reaches the fuzzer itself, not the jobs it spawned).
        (task.session / ".pgid").write_text(str(task.proc.pid))
        task.started = now
        task.log_pos = 0
        task.status = "running"

    def limits(self, t: str) -> list[str]:
        own = fuzzlib.read_options(t)
        return [f"-{k}={v}" for k, v in OSS_FUZZ_LIMITS.items() if k not in own]

    def read_log(self, task: Task) -> None:
        if not task.log_path or not task.log_path.exists():
            return
        with open(task.log_path, "rb") as f:
            f.seek(task.log_pos)
            chunk = f.read()
        # Only whole lines: a line being written is read next time.
        cut = chunk.rfind(b"\n")
        if cut < 0:
            return
        task.log_pos += cut + 1
        for line in chunk[:cut].decode(errors="replace").splitlines():
            m = STATUS_RE.match(line)
            if m:
                s = task.stats
                s.execs, s.cov, s.ft, s.corpus = int(m.group(1)), int(m.group(2)), int(m.group(3)), int(m.group(4))
                s.exec_s = int(m.group(7))
                r = RSS_RE.search(line)
                if r:
                    s.rss_mb = int(r.group(1))
                    task.peak_rss_mb = max(task.peak_rss_mb, s.rss_mb)
                continue
            m = SLOWEST_RE.search(line)
            if m:
                task.slowest_s = max(task.slowest_s, int(m.group(1)))
                continue
            m = FINAL_STAT_RE.search(line)
            if m and m.group(1) == "number_of_executed_units":
                task.stats.execs = max(task.stats.execs, int(m.group(2)))
            elif m and m.group(1) == "peak_rss_mb":
                task.stats.rss_mb = int(m.group(2))
                task.peak_rss_mb = max(task.peak_rss_mb, task.stats.rss_mb)

    def reap(self, task: Task) -> bool:
        """True when the task's process ended. Reaped with wait4, whose peak RSS covers the
        process and every descendant it waited for: under -fork the inputs run in child
        processes, and the parent's own status lines carry no rss."""
        if task.proc.returncode is not None:
            return True
        try:
            pid, status, usage = os.wait4(task.proc.pid, os.WNOHANG)
        except ChildProcessError:
            return task.proc.poll() is not None
        if pid == 0:
            return False
        task.proc.returncode = os.waitstatus_to_exitcode(status)
        task.peak_rss_mb = max(task.peak_rss_mb, usage.ru_maxrss // 1024)  # KiB on Linux
        return True

    def finish(self, task: Task, now: float) -> None:
        """A run ended (its time, a finding without -fork, or a stop): bank its figures."""
        self.read_log(task)
        task.used += now - task.started
        task.base_execs += task.stats.execs
        task.stats.execs = 0
        self.store.harvest(task.target, task.session)
        shutil.rmtree(task.session, ignore_errors=True)
        task.proc = None
        if self.stop_requested or task.remaining(now) < 5:
            task.done = True
            task.status = "done"
        else:
            task.restarts += 1  # its slice ended, or a finding stopped it: more of its share later
            task.status = "waiting"

    def stop_children(self, sig: int) -> None:
        for task in self.tasks:
            if task.proc and task.proc.poll() is None:
                try:
                    os.killpg(task.proc.pid, sig)
                except ProcessLookupError:
                    pass

    # -- progress ---------------------------------------------------------------------------
    def findings_count(self, t: str) -> int:
        d = self.store.crashes(t)
        return sum(1 for f in d.iterdir() if f.name.startswith(ARTIFACT_PREFIXES)) if d.is_dir() else 0

    def progress_rows(self, now: float) -> list[str]:
        rows = [f"{'target':<18} {'execs':>12} {'exec/s':>8} {'cov':>6} {'ft':>7} {'corpus':>7} {'finds':>5} "
                f"{'left':>7}  state"]
        for task in self.tasks:
            s = task.stats
            corpus_n, _ = self.store.size(task.target)
            rows.append(f"{task.target:<18} {fmt_int(task.total_execs):>12} {fmt_int(s.exec_s):>8} "
                        f"{s.cov:>6} {s.ft:>7} {corpus_n:>7} {self.findings_count(task.target):>5} "
                        f"{fmt_secs(task.remaining(now)):>7}  {task.status}")
        left = "until interrupted" if self.a.minutes == 0 else f"{fmt_secs(self.deadline - now)} left"
        rows.append(f"elapsed {fmt_secs(now - self.t0)}, {left}; seed {self.a.seed}; Ctrl-C stops and reports")
        return rows

    def show(self, now: float, force: bool = False) -> None:
        rows = self.progress_rows(now)
        if self.tty:
            if self.status_lines:
                sys.stderr.write(f"\x1b[{self.status_lines}F")
            for r in rows:
                sys.stderr.write("\x1b[2K" + r + "\n")
            sys.stderr.flush()
            self.status_lines = len(rows)
        elif force or now - self.last_plain >= self.a.progress_every:
            self.last_plain = now
            for task in self.tasks:
                if task.status == "running" or force:
                    s = task.stats
                    log(f"[{task.target}] execs={task.total_execs} exec/s={s.exec_s} cov={s.cov} "
                        f"corpus={self.store.size(task.target)[0]} findings={self.findings_count(task.target)} "
                        f"left={fmt_secs(task.remaining(now))} {task.status}")

    def sample(self, now: float) -> None:
        for task in self.tasks:
            if task.status != "running":
                continue
            s = task.stats
            p = self.run_dir / "series" / f"{task.target}.tsv"
            new = not p.exists()
            with open(p, "a") as f:
                if new:
                    f.write("t_s\texecs\texec_s\tcov\tft\tcorpus\trss_mb\n")
                f.write(f"{now - self.t0:.1f}\t{task.total_execs}\t{s.exec_s}\t{s.cov}\t{s.ft}\t"
                        f"{self.store.size(task.target)[0]}\t{s.rss_mb}\n")

    # -- the fuzzing loop -------------------------------------------------------------------
    def fuzz(self) -> None:
        continuous = self.a.minutes == 0
        round_s = self.a.round * 60 if continuous else self.a.minutes * 60
        self.t0 = time.time()
        self.deadline = self.t0 + (10**9 if continuous else round_s)
        self.tasks = self.plan(round_s)
        rnd = 0
        while True:
            self.run_round()
            rnd += 1
            if self.stop_requested or not continuous:
                break
            self.merge_all()
            self.refresh_report("running")
            self.tasks = self.plan(round_s)  # next round: same shares, new seeds
            for i, t in enumerate(self.tasks):
                t.seed = self.a.seed + 7919 * rnd + i
        self.show(time.time(), force=True)

    def run_round(self) -> None:
        while not all(t.done for t in self.tasks):
            now = time.time()
            running = [t for t in self.tasks if t.proc]
            for task in running:
                self.read_log(task)
                if self.reap(task):
                    self.finish(task, now)
            if self.stop_requested:
                for task in self.tasks:
                    if not task.proc:
                        task.done = True
                        task.status = "stopped" if task.status == "queued" else task.status
                if not any(t.proc for t in self.tasks):
                    break
            else:
                free = self.a.jobs - sum(1 for t in self.tasks if t.proc)
                while free > 0:
                    task = self.next_task()
                    if task is None:
                        break
                    self.start(task, now)
                    free -= 1
            if now - self.last_sample >= self.a.sample_every:
                self.last_sample = now
                self.sample(now)
            if now - self.last_harvest >= 10:
                self.last_harvest = now
                for task in self.tasks:
                    if task.proc:
                        self.store.harvest(task.target, task.session)
            if self.a.minutes == 0 and now - self.last_refresh >= self.a.refresh * 60:
                self.refresh_report("running")
            self.show(now)
            time.sleep(1)

    # -- after fuzzing ----------------------------------------------------------------------
    def merge_all(self) -> None:
        for t in self.a.targets:
            if self.stop_requested > 1:
                return
            self.merge(t)

    def merge(self, t: str) -> None:
        """libFuzzer's -merge=1 picks a minimal subset with the same features; the rest moves to
        pruned/ (rename, atomic), so a kill at any point loses no unit."""
        corpus = self.store.corpus(t)
        n_before, _ = self.store.size(t)
        if n_before < 2:
            return
        work = self.out / "merge" / t
        shutil.rmtree(work, ignore_errors=True)
        (work / "new").mkdir(parents=True)
        opts = [f for f in fuzzlib.libfuzzer_flags(t) if not f.startswith(("-max_len", "-dict"))]
        cmd = [str(self.bin / t), "-merge=1", f"-merge_control_file={work / 'control'}", *opts,
               str(work / "new"), str(corpus)]
        with open(self.run_dir / "logs" / f"{t}.merge.log", "wb") as lf:
            r = subprocess.run(cmd, stdout=lf, stderr=subprocess.STDOUT, cwd=work, env=fuzzlib.sanitizer_env(),
                               preexec_fn=die_with_parent)
        if r.returncode != 0:
            log(f"[{t}] merge failed (exit {r.returncode}); corpus left as it was")
            return
        keep = {f.name for f in (work / "new").iterdir()}
        if not keep:
            return
        pruned = self.store.pruned(t)
        pruned.mkdir(parents=True, exist_ok=True)
        moved = 0
        for f in corpus.iterdir():
            if f.name not in keep and not f.name.startswith("."):
                os.replace(f, pruned / f.name)
                moved += 1
        shutil.rmtree(work, ignore_errors=True)
        log(f"[{t}] merge: {n_before} units -> {n_before - moved} ({moved} redundant moved to {pruned})")

    def process_findings(self) -> None:
        """Buckets every raw finding (target + oracle + rule/pass + top frames), minimizes the
        first of each bucket, writes its text form as a candidate with its header."""
        index_path = self.out / "findings" / "index.tsv"
        index: dict[str, str] = {}
        if index_path.exists():
            for line in index_path.read_text().splitlines():
                if "\t" in line:
                    k, v = line.split("\t", 1)
                    index[k] = v
        self.load_buckets()
        for t in self.a.targets:
            d = self.store.crashes(t)
            if not d.is_dir():
                continue
            for f in sorted(d.iterdir(), key=lambda p: p.stat().st_mtime):
                if not f.name.startswith(ARTIFACT_PREFIXES) or f"{t}/{f.name}" in index:
                    continue
                if self.stop_requested > 1:
                    return
                bucket = self.classify_artifact(t, f)
                index[f"{t}/{f.name}"] = bucket
                fuzzlib.atomic_write(index_path, "".join(f"{k}\t{v}\n" for k, v in index.items()).encode())

    def load_buckets(self) -> None:
        root = self.out / "findings"
        if not root.is_dir():
            return
        for b in root.iterdir():
            meta = b / "meta.tsv"
            if meta.exists():
                row = dict(l.split("\t", 1) for l in meta.read_text().splitlines() if "\t" in l)
                self.buckets[b.name] = row

    def classify_artifact(self, t: str, f: Path) -> str:
        replay_bin = self.bin / f"{t}_replay"
        finding, stderr = fuzzlib.replay(replay_bin, f, timeout=self.a.replay_timeout)
        if not finding.found:
            # Flaky, or only reproducible under libFuzzer's own state: keep it, bucket it apart.
            finding = fuzzlib.Finding(kind="unreproduced", message="the replay build shows no finding",
                                      rule=f.name.split("-", 1)[0])
        bucket = finding.bucket(t)
        if bucket in self.buckets:
            row = self.buckets[bucket]
            row["count"] = str(int(row.get("count", "1")) + 1)
            self.write_bucket(bucket, row)
            return bucket
        log(f"[{t}] new finding {bucket}: {finding.label()} — minimizing {f.name}")
        bdir = self.out / "findings" / bucket
        bdir.mkdir(parents=True, exist_ok=True)
        (bdir / "replay.log").write_text(stderr)
        best = self.minimize(t, f, bdir, finding)
        text = fuzzlib.text_form(replay_bin, best)
        ext = fuzzlib.TEXT_EXT.get(t, ".txt")
        cand = self.out / "candidates" / t / f"{bucket}{ext}"
        reproduces = "no"
        if text is not None:
            header = [f"# oracle: {finding.oracle or finding.kind}", f"# rule: {finding.rule}",
                      f"# seed: {self.a.seed}", f"# found-by: scripts/campaign {self.stamp} ({f.name})",
                      f"# description: {finding.message[:200]}"]
            fuzzlib.atomic_write(cand, fuzzlib.with_header(text, header))
            again, _ = fuzzlib.replay(replay_bin, cand, timeout=self.a.replay_timeout)
            reproduces = "yes" if again.bucket(t) == bucket else ("other" if again.found else "no")
        else:
            cand = self.out / "candidates" / t / f"{bucket}.bin"  # no text form: the bytes
            fuzzlib.atomic_write(cand, best.read_bytes())
            reproduces = "bytes"
        row = {"bucket": bucket, "target": t, "kind": finding.kind, "oracle": finding.oracle or finding.kind,
               "rule": finding.rule, "frames": " < ".join(finding.frames), "count": "1",
               "candidate": str(cand), "replay": f"scripts/replay {self.rel(cand)}",
               "first_seen_s": f"{max(0.0, f.stat().st_mtime - self.t0):.0f}", "message": finding.message[:300],
               "reproduces": reproduces, "raw": str(f), "minimized": str(best)}
        self.write_bucket(bucket, row)
        return bucket

    def write_bucket(self, bucket: str, row: dict) -> None:
        self.buckets[bucket] = row
        body = "".join(f"{k}\t{str(v).replace(chr(9), ' ').replace(chr(10), ' ')}\n" for k, v in row.items())
        fuzzlib.atomic_write(self.out / "findings" / bucket / "meta.tsv", body.encode())

    def minimize(self, t: str, f: Path, bdir: Path, finding: fuzzlib.Finding) -> Path:
        out = bdir / "minimized"
        if self.a.minimize_seconds <= 0 or finding.kind == "timeout":
            return f
        tmp = bdir / ".minimized.tmp"
        cmd = [str(self.bin / t), "-minimize_crash=1", f"-max_total_time={self.a.minimize_seconds}",
               f"-exact_artifact_path={tmp}", *[o for o in fuzzlib.libfuzzer_flags(t) if o.startswith("-timeout")],
               str(f)]
        with open(bdir / "minimize.log", "wb") as lf:
            subprocess.run(cmd, stdout=lf, stderr=subprocess.STDOUT, cwd=bdir, env=fuzzlib.sanitizer_env(),
                           preexec_fn=die_with_parent, timeout=self.a.minimize_seconds + 60)
        if tmp.exists() and tmp.stat().st_size <= f.stat().st_size:
            again, _ = fuzzlib.replay(self.bin / f"{t}_replay", tmp, timeout=self.a.replay_timeout)
            if again.bucket(t) == finding.bucket(t):
                os.replace(tmp, out)
                return out
        tmp.unlink(missing_ok=True)
        return f

    def rel(self, p: Path) -> str:
        try:
            return str(p.relative_to(ROOT))
        except ValueError:
            return str(p)

    def classify_corpus(self) -> list[tuple[str, str, int]]:
        rows = []
        for t in self.a.targets:
            dirs = [self.store.corpus(t)] if self.store.size(t)[0] else []
            if not dirs:
                continue
            try:
                p = subprocess.run([str(self.bin / f"{t}_replay"), "--classify", *map(str, dirs)],
                                   capture_output=True, text=True, errors="replace", timeout=600,
                                   env=fuzzlib.sanitizer_env())
            except subprocess.TimeoutExpired:
                log(f"[{t}] classify timed out")
                continue
            counts: dict[str, int] = {}
            for line in p.stdout.splitlines():
                cls = line.split("\t", 1)[0].strip()
                if cls:
                    counts[cls] = counts.get(cls, 0) + 1
            if p.returncode != 0 and not counts:
                log(f"[{t}] classify failed: {p.stderr.strip().splitlines()[-1:] or ['?']}")
            rows += [(t, c, n) for c, n in sorted(counts.items())]
        return rows

    # -- properties at scale ----------------------------------------------------------------
    def run_properties(self) -> None:
        """Every property suite at max_success=--property-cases, --jobs at a time, each within
        its share of --property-seconds; a suite cut short reports the property it was in as
        `timeout` (not a failure) and the ones it finished."""
        suites = sorted(self.bin.glob("*_props"))
        if not suites:
            return
        per = max(30.0, self.a.property_seconds * self.a.jobs / len(suites))
        log(f"properties: {len(suites)} suites at max_success={self.a.property_cases}, seed={self.a.seed}, "
            f"{self.a.jobs} at a time, up to {per:.0f}s each")
        params = f"seed={self.a.seed} max_success={self.a.property_cases}"
        env = fuzzlib.sanitizer_env({"RC_PARAMS": params, "STACKCHECK_COUNTEREXAMPLES": str(self.out / "properties")})
        queue = list(suites)
        running: list[tuple[Path, subprocess.Popen, float, Path]] = []
        while queue or running:
            while queue and len(running) < self.a.jobs and not self.stop_requested:
                b = queue.pop(0)
                out = self.run_dir / "logs" / f"{b.name}.log"
                with open(out, "wb") as lf:
                    proc = subprocess.Popen([str(b)], stdout=lf, stderr=subprocess.STDOUT, env=env, cwd=ROOT,
                                            preexec_fn=die_with_parent)
                running.append((b, proc, time.time(), out))
            if self.stop_requested and not running:
                break
            time.sleep(0.5)
            for item in list(running):
                b, proc, t0, out = item
                timed_out = False
                if proc.poll() is None:
                    if time.time() - t0 < per and self.stop_requested < 2:
                        continue
                    os.killpg(proc.pid, signal.SIGKILL)
                    proc.wait()
                    timed_out = True
                running.remove(item)
                self.parse_suite(b, out.read_text(errors="replace"), params, timed_out, time.time() - t0)
                done = sum(1 for r in self.property_rows if r["result"] == "pass")
                log(f"properties: {b.name} {'cut at ' + str(int(per)) + 's' if timed_out else 'done'} "
                    f"({done} properties passed so far)")

    def parse_suite(self, binary: Path, out: str, params: str, timed_out: bool, seconds: float) -> None:
        current = None
        cases = discarded = 0

        def row(name: str, result: str, secs: str) -> dict:
            suite, _, prop = name.partition(".")
            return {"suite": suite, "property": prop, "cases": cases, "discarded": discarded, "result": result,
                    "seconds": secs, "seed": self.a.seed,
                    "replay": f"RC_PARAMS=\"{params}\" build/{PRESET}/bin/{binary.name} --gtest_filter='{name}'"}

        for line in out.splitlines():
            if line.startswith("[ RUN      ] "):
                current, cases, discarded = line[13:].strip(), 0, 0
            m = re.match(r"verdicts: (\d+) cases, (\d+) inconclusive", line)
            if m and current:
                cases, discarded = int(m.group(1)), int(m.group(2))
            m = re.match(r"OK, passed (\d+) tests?(?:; (\d+) discarded)?", line)
            if m and current:
                cases, discarded = int(m.group(1)), int(m.group(2) or 0)
            m = re.match(r"\[ +(OK|FAILED) +\] (\S+) \((\d+) ms\)", line)
            if m and current:
                self.property_rows.append(row(m.group(2), "pass" if m.group(1) == "OK" else "fail",
                                              f"{int(m.group(3)) / 1000:.1f}"))
                current = None
        if timed_out and current:
            self.property_rows.append(row(current, "timeout", f"{seconds:.0f}"))

    # -- coverage ---------------------------------------------------------------------------
    def coverage(self) -> list[tuple[str, int, int, int, int]]:
        log("coverage: building the coverage preset's replay drivers")
        fuzzlib.build("coverage", [f"{t}_replay" for t in self.a.targets], log=self.run_dir / "coverage-build.log")
        cov_dir = self.run_dir / "coverage"
        shutil.rmtree(cov_dir, ignore_errors=True)
        cov_dir.mkdir(parents=True)
        cbin = ROOT / "build" / "coverage" / "bin"
        objects = []
        for t in self.a.targets:
            dirs = [str(self.store.corpus(t))] + [str(d) for d in fuzzlib.seed_dirs(t)]
            env = dict(os.environ, LLVM_PROFILE_FILE=str(cov_dir / f"{t}-%p.profraw"))
            # --classify never aborts, so a finding in the corpus does not cut the replay short.
            subprocess.run([str(cbin / f"{t}_replay"), "--classify", *dirs], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, env=env, timeout=1800)
            objects.append(str(cbin / f"{t}_replay"))
        raws = [str(p) for p in cov_dir.glob("*.profraw")]
        if not raws:
            log("coverage: no profile written")
            return []
        prof = cov_dir / "merged.profdata"
        subprocess.run(["llvm-profdata-14", "merge", "-sparse", *raws, "-o", str(prof)], check=True)
        args = ["llvm-cov-14", "export", "-summary-only", f"-instr-profile={prof}", objects[0]]
        for o in objects[1:]:
            args += ["-object", o]
        p = subprocess.run(args, capture_output=True, text=True, check=True)
        import json
        data = json.loads(p.stdout)
        folders: dict[str, list[int]] = {}
        stack = str(ROOT / "stack") + "/"
        for f in data["data"][0]["files"]:
            name = f["filename"]
            if not name.startswith(stack) or name.endswith("_test.cpp"):
                continue
            folder = "stack/" + str(Path(name[len(stack):]).parent)
            s = f["summary"]
            acc = folders.setdefault(folder, [0, 0, 0, 0])
            acc[0] += s["lines"]["count"]
            acc[1] += s["lines"]["covered"]
            acc[2] += s["branches"]["count"]
            acc[3] += s["branches"]["covered"]
        return [(k, *v) for k, v in sorted(folders.items())]

    # -- report -----------------------------------------------------------------------------
    def write_tables(self, status: str) -> None:
        rd = self.run_dir
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                                text=True).stdout.strip()
        run = {"kind": "campaign", "title": "stackcheck fuzzing campaign",
               "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(self.started)),
               "finished": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "seed": str(self.a.seed),
               "minutes": str(self.a.minutes), "jobs": str(self.a.jobs), "targets": " ".join(self.a.targets),
               "command": self.a.command, "commit": commit or "?", "cores": str(os.cpu_count()), "status": status,
               "out": str(self.out)}
        tsv(rd / "run.tsv", ["key", "value"], list(run.items()))
        rows = []
        for task in self.tasks:
            t = task.target
            n, b = self.store.size(t)
            buckets = sum(1 for r in self.buckets.values() if r.get("target") == t)
            secs = task.used + ((time.time() - task.started) if task.proc else 0)
            eps = int(task.total_execs / secs) if secs > 0 else 0
            rows.append((t, task.total_execs, eps, task.stats.cov, task.stats.ft, n, b, self.findings_count(t),
                         buckets, f"{secs:.0f}", task.status, task.slowest_s, task.peak_rss_mb))
        tsv(rd / "targets.tsv", ["target", "execs", "exec_s", "cov", "ft", "corpus", "corpus_bytes", "findings",
                                 "buckets", "seconds", "status", "slowest_s", "peak_rss_mb"], rows)
        tsv(rd / "buckets.tsv", ["bucket", "target", "oracle", "rule", "frames", "count", "candidate", "replay",
                                 "first_seen_s", "reproduces", "message"],
            [tuple(r.get(k, "") for k in ("bucket", "target", "oracle", "rule", "frames", "count", "candidate",
                                          "replay", "first_seen_s", "reproduces", "message"))
             for r in sorted(self.buckets.values(), key=lambda r: (r.get("target", ""), r.get("bucket", "")))])
        if self.property_rows:
            keys = ["suite", "property", "cases", "discarded", "result", "seconds", "seed", "replay"]
            tsv(rd / "properties.tsv", keys, [tuple(r[k] for k in keys) for r in self.property_rows])

    def refresh_report(self, status: str) -> None:
        self.last_refresh = time.time()
        self.process_findings()
        self.write_tables(status)
        self.render()

    def render(self) -> Path | None:
        tool = self.bin / "stackcheck-report"
        if not tool.exists():
            log(f"no report tool at {tool}; tables are in {self.run_dir}")
            return None
        p = subprocess.run([str(tool), str(self.run_dir)], capture_output=True, text=True)
        if p.returncode != 0:
            log(f"report: {p.stderr.strip()}")
            return None
        return self.run_dir / "index.html"

    def summary(self) -> None:
        rows = [("target", "execs", "exec/s", "cov", "corpus", "findings", "buckets")]
        for task in self.tasks:
            t = task.target
            secs = task.used
            rows.append((t, fmt_int(task.total_execs), fmt_int(int(task.total_execs / secs) if secs else 0),
                         str(task.stats.cov), str(self.store.size(t)[0]), str(self.findings_count(t)),
                         str(sum(1 for r in self.buckets.values() if r.get("target") == t))))
        widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
        print()
        for i, r in enumerate(rows):
            print("  ".join(c.ljust(w) if j == 0 else c.rjust(w) for j, (c, w) in enumerate(zip(r, widths))))
            if i == 0:
                print("  ".join("-" * w for w in widths))
        if self.buckets:
            print(f"\n{len(self.buckets)} finding bucket(s):")
            for r in sorted(self.buckets.values(), key=lambda r: r.get("target", "")):
                print(f"  {r['bucket']} {r['target']}: {r['oracle']}/{r['rule']} x{r['count']} -> {r['replay']}")
        else:
            print("\nno findings")
        if self.property_rows:
            bad = [r for r in self.property_rows if r["result"] not in ("pass", "timeout")]
            cut = [r for r in self.property_rows if r["result"] == "timeout"]
            print(f"properties: {len(self.property_rows) - len(bad) - len(cut)} of {len(self.property_rows)} passed "
                  f"at max_success={self.a.property_cases}, {len(bad)} failed"
                  + (f", {len(cut)} cut by the time share (rerun with --property-seconds)" if cut else ""))
            for r in bad + cut:
                print(f"  {r['result']}: {r['suite']}.{r['property']} -> {r['replay']}")

    # -- main -------------------------------------------------------------------------------
    def run(self) -> int:
        self.lock()
        self.run_dir.mkdir(parents=True, exist_ok=True)
        (self.run_dir / "series").mkdir(exist_ok=True)
        self.build()
        for t in self.a.targets:
            got, temps = self.store.recover(t)
            if got or temps:
                log(f"[{t}] resumed: {got} unit(s) recovered from interrupted runs, {temps} partial file(s) dropped")
        log(f"seed={self.a.seed} minutes={self.a.minutes or 'until interrupted'} jobs={self.a.jobs} "
            f"targets: {' '.join(self.a.targets)}")
        log(f"working corpus under {self.out}, this run in {self.run_dir}")
        self.fuzz()
        status = "interrupted" if self.stop_requested else "complete"
        if self.stop_requested < 2:
            log("merging and minimizing each corpus (-merge=1)")
            self.merge_all()
        log("bucketing and minimizing findings")
        self.process_findings()
        if self.a.properties and not self.stop_requested:
            self.run_properties()
        if not self.stop_requested:
            rows = self.classify_corpus()
            tsv(self.run_dir / "classes.tsv", ["target", "class", "count"], rows)
        if self.a.coverage and not self.stop_requested:
            rows = self.coverage()
            tsv(self.run_dir / "coverage.tsv", ["folder", "lines", "lines_covered", "branches", "branches_covered"],
                rows)
        self.write_tables(status)
        page = self.render()
        self.summary()
        print(f"\nreport: {self.run_dir / 'report.md'}" + (f"\n        {page}" if page else ""))
        print(f"seed: {self.a.seed}   rerun: scripts/campaign --seed {self.a.seed} --minutes {self.a.minutes} "
              f"--targets {','.join(self.a.targets)} --out {self.a.out}")
        failed_props = any(r["result"] == "fail" for r in self.property_rows)
        if self.a.fail_on_finding and (self.buckets or failed_props):
            return 1
        return 0


def tsv(path: Path, header: list[str], rows: list[tuple]) -> None:
    def cell(v) -> str:
        return str(v).replace("\t", " ").replace("\n", " ")

    body = "\t".join(header) + "\n" + "".join("\t".join(cell(v) for v in r) + "\n" for r in rows)
    fuzzlib.atomic_write(path, body.encode())


def parse_args(argv: list[str]) -> argparse.Namespace:
    def nonneg(kind):
        return fuzzlib.number(kind, zero_ok=True)

    p = fuzzlib.flag_parser(PROG, "scripts/campaign", description="Fuzzing campaign over the stackcheck fuzz "
                            "targets: live progress, a persistent kill-safe corpus, bucketed and minimized findings, "
                            "and a report.")
    p.add_argument("--minutes", type=nonneg(float), default=10, help="budget (default 10; 0: until interrupted)")
    p.add_argument("--jobs", type=nonneg(int), default=os.cpu_count() or 1, help="parallel fuzzers (default: cores)")
    p.add_argument("--targets", action="append", default=[], help="targets, comma or space separated "
                   "(default: every fuzz/fuzz_*.cpp)")
    p.add_argument("--out", default=str(ROOT / "build" / "campaign"),
                   help="working folder (default build/campaign; not inside the source tree except build/)")
    p.add_argument("--seed", type=nonneg(int), default=None, help="base seed (default: the time)")
    p.add_argument("--coverage", action="store_true", help="also line/branch coverage per stack/ folder (llvm-cov)")
    p.add_argument("--no-properties", dest="properties", action="store_false",
                   help="skip the properties at scale")
    p.add_argument("--property-cases", type=nonneg(int), default=300,
                   help="max_success per property (300; ctest runs 100)")
    p.add_argument("--property-seconds", type=nonneg(float), default=None,
                   help="wall time for all property suites after the fuzzing (default: a fifth of "
                   "the budget, at least 60 s; 300 s per round in continuous mode)")
    p.add_argument("--round", type=nonneg(float), default=5, help="continuous mode: minutes per round (5)")
    p.add_argument("--refresh", type=nonneg(float), default=5, help="continuous mode: report every N minutes (5)")
    p.add_argument("--minimize-seconds", type=nonneg(int), default=30, help="per new bucket (30; 0: off)")
    p.add_argument("--replay-timeout", type=nonneg(float), default=60, help="seconds per replay of a finding")
    p.add_argument("--no-fork", dest="fork", action="store_false",
                   help="one plain libFuzzer process per target (restarted after a finding) instead of -fork=1")
    p.add_argument("--no-build", action="store_true", help="use the binaries already in build/fuzz")
    p.add_argument("--plain", action="store_true", help="plain progress lines even on a terminal")
    p.add_argument("--progress-every", type=nonneg(float), default=30, help="seconds between plain progress lines")
    p.add_argument("--sample-every", type=nonneg(float), default=5, help="seconds between time-series samples")
    p.add_argument("--fail-on-finding", action="store_true", help="exit 1 when there is a finding bucket")
    p.add_argument("--libfuzzer", dest="extra", action="append", default=[], metavar="-FLAG=V",
                   help="an extra libFuzzer flag for every run (repeatable), e.g. --libfuzzer=-report_slow_units=1")
    a = p.parse_args(argv)
    names = [n for spec in a.targets for n in re.split(r"[,\s]+", spec) if n]
    try:
        a.targets = fuzzlib.check_targets(names) if names else fuzzlib.all_targets()
    except UsageError as e:
        p.error(str(e))
    if a.jobs == 0:
        p.error("--jobs must be at least 1")
    if a.round == 0:
        p.error("--round must be more than 0")
    if a.seed is None:
        a.seed = int(time.time()) % 1_000_000_007
    if a.property_seconds is None:
        a.property_seconds = max(60.0, a.minutes * 12) if a.minutes else 300.0
    for f in a.extra:
        if not re.fullmatch(r"-\w+=\S*", f):
            p.error(f"--libfuzzer takes '-flag=value', not '{f}'")
    a.command = "scripts/campaign " + " ".join(argv)
    return a


def main(argv: list[str]) -> int:
    a = parse_args(argv)  # a relative --out is relative to the directory the campaign starts in
    os.chdir(ROOT)
    try:
        c = Campaign(a)
    except UsageError as e:
        log(str(e))
        return 2

    def on_signal(sig, frame):
        c.stop_requested += 1
        if c.stop_requested == 1:
            log("stopping: the fuzzers finish, then merge, findings and the report (Ctrl-C again: report only)")
            c.stop_children(signal.SIGINT)
        else:
            c.stop_children(signal.SIGKILL)

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    try:
        return c.run()
    except UsageError as e:
        log(str(e))
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
