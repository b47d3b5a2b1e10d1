"""Kill-and-resume test of scripts/campaign (ctest `campaign/kill-and-resume`, fuzz preset).

Runs a short campaign, kills it with SIGKILL at several moments (while fuzzing, and later,
when it merges, buckets and reports), resumes it each time, then stops the last run with
SIGINT. After every kill and at the end it checks:
  - no fuzzer outlives the campaign that started it;
  - every visible file of the persistent corpus is a complete unit (its name is its SHA-1);
  - no corpus unit seen before a kill is lost (it is in corpus/ or, after a merge, pruned/);
  - after a resume, no temporary file is left anywhere under corpus/ or candidates/;
  - the SIGINT-stopped run still ends with a report (status interrupted) and exit 0.
Positive control: the same checks applied to a folder with a planted partial file and a
planted lost unit must fail.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def units(folder: Path) -> set[str]:
    return {f.name for f in folder.iterdir() if not f.name.startswith(".")} if folder.is_dir() else set()


def problems(out: Path, targets: list[str], before: dict[str, set[str]], after_resume: bool) -> list[str]:
    bad = []
    for t in targets:
        corpus = out / "corpus" / t
        for f in corpus.iterdir() if corpus.is_dir() else []:
            if f.name.startswith("."):
                if after_resume:
                    bad.append(f"temporary file left after a resume: {f}")
                continue
            if hashlib.sha1(f.read_bytes()).hexdigest() != f.name:
                bad.append(f"partial or foreign file in the corpus: {f}")
        have = units(corpus) | units(out / "pruned" / t)
        lost = before.get(t, set()) - have
        if lost:
            bad.append(f"{t}: {len(lost)} unit(s) lost, e.g. {sorted(lost)[0]}")
    if after_resume:
        for f in (out / "candidates").rglob(".*") if (out / "candidates").is_dir() else []:
            bad.append(f"temporary candidate file left: {f}")
    return bad


def fuzzers_alive(out: Path, parents_only: bool = False) -> list[int]:
    pids = []
    for p in Path("/proc").iterdir():
        if not p.name.isdigit():
            continue
        try:
            cmd = (p / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if str(out) in cmd and "/bin/fuzz_" in cmd and (not parents_only or "-fork=1" in cmd):
            pids.append(int(p.name))
    return pids


def snapshot(out: Path, targets: list[str]) -> dict[str, set[str]]:
    return {t: units(out / "corpus" / t) | units(out / "pruned" / t) for t in targets}


def campaign(out: Path, targets: list[str], minutes: float, seed: int) -> subprocess.Popen:
    cmd = [sys.executable, str(ROOT / "scripts" / "lib" / "campaign.py"), "--no-build", "--no-properties", "--plain",
           "--minutes", str(minutes), "--jobs", "2", "--targets", ",".join(targets), "--out", str(out), "--seed",
           str(seed), "--minimize-seconds", "5", "--sample-every", "1", "--progress-every", "5"]
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def positive_control(targets: list[str]) -> None:
    with tempfile.TemporaryDirectory() as d:
        out = Path(d)
        c = out / "corpus" / targets[0]
        c.mkdir(parents=True)
        good = b"seed unit"
        (c / hashlib.sha1(good).hexdigest()).write_bytes(good)
        (c / hashlib.sha1(b"whole").hexdigest()).write_bytes(b"who")  # cut short
        before = {targets[0]: units(c) | {"0" * 40}}  # a unit that vanished
        found = problems(out, targets[:1], before, after_resume=False)
        assert any("partial" in p for p in found), found
        assert any("lost" in p for p in found), found
    print("positive control: a partial file and a lost unit are reported")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--targets", default="fuzz_parse,fuzz_relative_ptr")
    ap.add_argument("--kills", type=int, default=4)
    ap.add_argument("--seed", type=int, default=int(time.time()))
    a = ap.parse_args()
    targets = a.targets.split(",")
    rng = random.Random(a.seed)
    print(f"kill-and-resume: seed={a.seed} (rerun: python3 {Path(__file__).relative_to(ROOT)} --seed {a.seed})")
    positive_control(targets)
    out = Path(tempfile.mkdtemp(prefix="campaign-kill-", dir=ROOT / "build"))
    try:
        seen = snapshot(out, targets)
        minutes = 0.25
        for i in range(a.kills):
            # Early kills land in the fuzzing, late ones in merge / findings / report.
            delay = rng.uniform(3, 14) if i % 2 == 0 else rng.uniform(15, 30)
            p = campaign(out, targets, minutes, a.seed + i)
            time.sleep(delay)
            if p.poll() is None:
                p.kill()  # SIGKILL: no handler runs
            p.communicate()
            # The fuzzers die with the campaign (PDEATHSIG); jobs they had spawned are ended by
            # the next start, and none may be left at the very end.
            for _ in range(20):
                alive = fuzzers_alive(out, parents_only=True)
                if not alive:
                    break
                time.sleep(0.25)
            assert not alive, f"fuzzers outlived a killed campaign: {alive}"
            bad = problems(out, targets, seen, after_resume=False)
            assert not bad, f"after SIGKILL at {delay:.1f}s: " + "; ".join(bad)
            seen = {t: seen[t] | s for t, s in snapshot(out, targets).items()}
            print(f"kill {i + 1}: SIGKILL at {delay:.1f}s ok; corpus " +
                  ", ".join(f"{t}={len(units(out / 'corpus' / t))}" for t in targets))
        # Resume once more and stop with SIGINT: the run must end with a report.
        p = campaign(out, targets, 1, a.seed + 99)
        time.sleep(12)
        p.send_signal(signal.SIGINT)
        text, _ = p.communicate(timeout=300)
        assert p.returncode == 0, f"SIGINT-stopped campaign exited {p.returncode}:\n{text[-3000:]}"
        assert "report:" in text, f"no report line:\n{text[-3000:]}"
        runs = sorted(d for d in out.iterdir() if (d / "run.tsv").exists())
        assert runs and "status\tinterrupted" in (runs[-1] / "run.tsv").read_text(), "last run not marked interrupted"
        assert "resumed:" in text or all(not (out / "sessions" / t).exists() or not any((out / "sessions" / t).iterdir())
                                         for t in targets), "no resume happened"
        bad = problems(out, targets, seen, after_resume=True)
        assert not bad, "after resume + SIGINT: " + "; ".join(bad)
        assert not fuzzers_alive(out), f"fuzzers left at the end: {fuzzers_alive(out)}"
        print("SIGINT: exit 0, report written, no unit lost, no temporary file")
    finally:
        shutil.rmtree(out, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
