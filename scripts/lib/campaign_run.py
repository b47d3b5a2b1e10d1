"""One libFuzzer run of one target in a campaign (scripts/campaign): its share of the time, the
figures read from its log and its reaping; and what the campaign's modules
share (the program name, the preset, the log line).
"""

from __future__ import annotations

import re
import subprocess
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path

PROG = "campaign"
PRESET = "fuzz"

STATUS_RE = re.compile(r"^#(\d+):?\s.*?cov: (\d+) ft: (\d+) corp: (\d+)(?:/(\d+)(b|Kb|Mb))?.*?exec/s:? (\d+)")
RSS_RE = re.compile(r"rss: (\d+)Mb")
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
                r = RSS_RE.search(line)
                if r:
                    s.rss_mb = int(r.group(1))
                    self.peak_rss_mb = max(self.peak_rss_mb, s.rss_mb)
                continue
            m = SLOWEST_RE.search(line)
            if m:
                self.slowest_s = max(self.slowest_s, int(m.group(1)))
                continue
            m = FINAL_STAT_RE.search(line)
            if m and m.group(1) == "number_of_executed_units":
                self.stats.execs = max(self.stats.execs, int(m.group(2)))
            elif m and m.group(1) == "peak_rss_mb":
                self.stats.rss_mb = int(m.group(2))
                self.peak_rss_mb = max(self.peak_rss_mb, self.stats.rss_mb)

    def reap(self) -> bool:
        """True when the run's process ended. Reaped with wait4, whose peak RSS covers the
        process and every descendant it waited for: under -fork the inputs run in child
        processes, and the parent's own status lines carry no rss."""
        if self.proc.returncode is not None:
            return True
        try:
            pid, status, usage = os.wait4(self.proc.pid, os.WNOHANG)
        except ChildProcessError:
            return self.proc.poll() is not None
        if pid == 0:
            return False
        self.proc.returncode = os.waitstatus_to_exitcode(status)
        self.peak_rss_mb = max(self.peak_rss_mb, usage.ru_maxrss // 1024)  # KiB on Linux
        return True
