"""One libFuzzer run of one target in a campaign (scripts/campaign): its share of the time, the
figures read from its log, its peak RSS as the OS measured it; and what the campaign's modules
share (the program name, the preset, the log line).
"""

from __future__ import annotations

import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import rss  # noqa: E402

PROG = "campaign"
PRESET = "fuzz"

STATUS_RE = re.compile(r"^#(\d+):?\s.*?cov: (\d+) ft: (\d+) corp: (\d+)(?:/(\d+)(b|Kb|Mb))?.*?exec/s:? (\d+)")
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


@dataclass
class Stats:
    execs: int = 0
    exec_s: int = 0
    cov: int = 0
    ft: int = 0
    corpus: int = 0


@dataclass
class Task:
    target: str
    seconds: float  # wall-clock share
    slice: float  # longest single run
    seed: int
    lane: str = "asan"  # fast: the fast lane's build; asan: the sanitized build (campaign_lanes.py)
    twin: bool = False  # a sanitized twin of a fast-lane target (--asan-jobs): its own jobs, the same corpus
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
    # The largest process of its runs (over restarts): sampled from /proc while they run and
    # taken from wait4 when they end. Under -fork the inputs run in child processes and the
    # parent's status lines carry no rss, so nothing of what libFuzzer prints enters it.
    peak_rss: rss.PeakRss = field(default_factory=rss.PeakRss)
    log_pos: int = 0

    @property
    def name(self) -> str:
        """The task's row in the tables: the target, or `<target>.asan` for a sanitized twin."""
        return f"{self.target}.asan" if self.twin else self.target

    @property
    def total_execs(self) -> int:
        return self.base_execs + self.stats.execs

    @property
    def peak_rss_mb(self) -> int:
        return self.peak_rss.mb

    def remaining(self, now: float) -> float:
        run = (now - self.started) if self.proc else 0.0
        return max(0.0, self.seconds - self.used - run)

    def read_log(self) -> None:
        """Takes the figures of the whole lines libFuzzer has written since the last call."""
        if not self.log_path or not self.log_path.exists():
            return
        with open(self.log_path, "rb") as f:
            f.seek(self.log_pos)
            chunk = f.read()
        # Only whole lines: a line being written is read next time.
        cut = chunk.rfind(b"\n")
        if cut < 0:
            return
        self.log_pos += cut + 1
        for line in chunk[:cut].decode(errors="replace").splitlines():
            m = STATUS_RE.match(line)
            if m:
                s = self.stats
                s.execs, s.cov, s.ft, s.corpus = int(m.group(1)), int(m.group(2)), int(m.group(3)), int(m.group(4))
                s.exec_s = int(m.group(7))
                continue
            m = SLOWEST_RE.search(line)
            if m:
                self.slowest_s = max(self.slowest_s, int(m.group(1)))
                continue
            m = FINAL_STAT_RE.search(line)
            if m and m.group(1) == "number_of_executed_units":
                self.stats.execs = max(self.stats.execs, int(m.group(2)))

    def sample_rss(self, kids: dict[int, list[int]]) -> None:
        """The peak RSS of the run's process tree now (kids: rss.children_map())."""
        if self.proc and self.proc.returncode is None:
            self.peak_rss.sample(self.proc.pid, kids)

    def reap(self) -> bool:
        """True when the run's process ended. Reaped here with wait4 (never by Popen, whose
        reaping would lose the figure): its ru_maxrss covers the fuzzer and every descendant
        it waited for, the -fork jobs included."""
        if self.proc.returncode is not None:
            return True
        try:
            code = self.peak_rss.wait(self.proc.pid)
        except ChildProcessError:
            return self.proc.poll() is not None
        if code is None:
            return False
        self.proc.returncode = code
        return True
