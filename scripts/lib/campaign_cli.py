"""scripts/campaign's command line: its flags, their checks (a bad one is one line and exit 2)
and the defaults that depend on others.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import fuzzlib  # noqa: E402
from campaign_lanes import FAST_TARGETS, MODES  # noqa: E402
from fuzzlib import ROOT, UsageError, number_arg  # noqa: E402


def parse_args(argv: list[str]) -> argparse.Namespace:
    p = fuzzlib.ArgParser(prog="scripts/campaign", description="Fuzzing campaign over the stackcheck fuzz targets: "
                          "live progress, a persistent kill-safe corpus, bucketed and minimized findings, "
                          "and a report.")
    p.add_argument("--minutes", type=number_arg(float), default=10, help="budget (default 10; 0: until interrupted)")
    p.add_argument("--jobs", type=number_arg(int), default=os.cpu_count() or 1,
                   help="parallel fuzzers (default: cores)")
    p.add_argument("--targets", action="append", default=[], help="targets, comma or space separated "
                   "(default: every fuzz/fuzz_*.cpp)")
    p.add_argument("--out", default=str(ROOT / "build" / "campaign"),
                   help="working folder (default build/campaign; not inside the source tree except build/)")
    p.add_argument("--seed", type=number_arg(int), default=None, help="base seed (default: the time)")
    p.add_argument("--coverage", action="store_true", help="also line/branch coverage per stack/ folder (llvm-cov)")
    p.add_argument("--no-properties", dest="properties", action="store_false",
                   help="skip the properties at scale")
    p.add_argument("--property-cases", type=number_arg(int), default=300,
                   help="max_success per property (300; ctest runs 100)")
    p.add_argument("--property-seconds", type=number_arg(float), default=None,
                   help="wall time for all property suites after the fuzzing (default: a fifth of "
                   "the budget, at least 60 s; 300 s per round in continuous mode)")
    p.add_argument("--round", type=number_arg(float), default=5, help="continuous mode: minutes per round (5)")
    p.add_argument("--refresh", type=number_arg(float), default=5, help="continuous mode: report every N minutes (5)")
    p.add_argument("--minimize-seconds", type=number_arg(int), default=30, help="per new bucket (30; 0: off)")
    p.add_argument("--replay-timeout", type=number_arg(float), default=60, help="seconds per replay of a finding")
    p.add_argument("--no-fork", dest="fork", action="store_false",
                   help="one plain libFuzzer process per target (restarted after a finding) instead of -fork=1")
    p.add_argument("--no-build", action="store_true", help="use the binaries already built (both lanes' presets)")
    p.add_argument("--sanitize", choices=MODES, default="new",
                   help="new (default): the deep and text targets fuzz in the fast lane (no ASan/UBSan) and every input it "
                   "adds to a corpus is replayed under ASan+UBSan; all: every target fuzzes sanitized; none: the fast "
                   "lane, nothing checked")
    p.add_argument("--asan-jobs", type=number_arg(int), default=0,
                   help="jobs kept for a sanitized twin of each fast-lane target, fuzzing the same corpus (default 0)")
    p.add_argument("--fast-preset", default="fuzz-fast", help="the fast lane's preset (default fuzz-fast)")
    p.add_argument("--asan-preset", default="fuzz",
                   help="the sanitized preset: the other targets, the replays, the properties (default fuzz; the "
                   "lane control uses zoo-fast and zoo)")
    p.add_argument("--plain", action="store_true", help="plain progress lines even on a terminal")
    p.add_argument("--progress-every", type=number_arg(float), default=30, help="seconds between plain progress lines")
    p.add_argument("--sample-every", type=number_arg(float), default=5, help="seconds between time-series samples")
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
    deep = [t for t in a.targets if t in FAST_TARGETS]
    if a.asan_jobs and a.sanitize != "new":
        p.error(f"--asan-jobs keeps sanitized jobs beside the fast lane: only with --sanitize new, not {a.sanitize}")
    if a.asan_jobs and not deep:
        p.error(f"--asan-jobs: no fast-lane target ({', '.join(FAST_TARGETS)}) among the targets")
    if a.asan_jobs and a.asan_jobs >= a.jobs:
        p.error(f"--asan-jobs {a.asan_jobs} leaves the fast lane no job (--jobs {a.jobs})")
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

