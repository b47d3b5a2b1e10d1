"""The properties at scale after a campaign's fuzzing (scripts/campaign): every property suite
at max_success=--property-cases, the verdict of each property in properties.tsv.
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import fuzzlib  # noqa: E402
from campaign_run import log  # noqa: E402
from fuzzlib import ROOT, die_with_parent  # noqa: E402


class Properties:
    """A part of Campaign (campaign.py), which sets these."""

    a: argparse.Namespace
    out: Path
    bin: Path
    run_dir: Path
    stop_requested: int
    property_rows: list[dict]

    def run_properties(self) -> None:
        """Every property suite at max_success=--property-cases, --jobs at a time, each within
        its share of --property-seconds; a suite cut short reports the property it was in as
        `timeout` (not a failure) and the ones it finished."""
        suites = fuzzlib.property_suites(self.bin)
        if not suites:
            return
        per = max(30.0, self.a.property_seconds * self.a.jobs / len(suites))
        log(f"properties: {len(suites)} suites at max_success={self.a.property_cases}, seed={self.a.seed}, "
            f"{self.a.jobs} at a time, up to {per:.0f}s each")
        params = f"seed={self.a.seed} max_success={self.a.property_cases}"
        env = fuzzlib.property_env({"RC_PARAMS": params, "STACKCHECK_COUNTEREXAMPLES": str(self.out / "properties")})
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
                    "replay": f"RC_PARAMS=\"{params}\" build/{self.a.asan_preset}/bin/{binary.name} --gtest_filter='{name}'"}

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
