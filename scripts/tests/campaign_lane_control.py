"""The lane split's positive control (ctest `campaign/lane-control`, zoo preset; HARNESS.md §5).

The zoo defect fanin_checksum_overread reads one entry past a heap copy of a wide fan-in list
and throws the sum away: no oracle can see it, only ASan. With it selected, two campaigns of
fuzz_bind_plan from an empty working folder, at one seed, on the zoo-fast (fast lane) and zoo
(sanitized) builds:
  - the default mode (--sanitize new) must report it as an AddressSanitizer finding in
    Orchestrator::publish, and the sanitizer check of a new input must be what found it (the
    unit's verdict in sanitized/fuzz_bind_plan.tsv);
  - the fast lane alone (--sanitize none) must not report it, although it ran the bad read:
    its own corpus, replayed afterwards under ASan, shows the read (so the second campaign is
    no vacuous pass: the fast lane went there and could not see it).
Builds what it needs first (fuzz_bind_plan and its replay driver in both presets).
  python3 scripts/tests/campaign_lane_control.py [--seed S] [--minutes M] [--no-build]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts" / "lib"))
import fuzzlib  # noqa: E402

DEFECT = "fanin_checksum_overread"
TARGET = "fuzz_bind_plan"
FAST, ASAN = "zoo-fast", "zoo"


def table(path: Path) -> list[dict]:
    if not path.exists():
        return []
    lines = path.read_text().splitlines()
    head = lines[0].split("\t")
    return [dict(zip(head, l.split("\t"))) for l in lines[1:]]


def campaign(out: Path, mode: str, a: argparse.Namespace) -> tuple[Path, list[dict]]:
    shutil.rmtree(out, ignore_errors=True)
    cmd = [sys.executable, str(ROOT / "scripts" / "lib" / "campaign.py"), "--no-build", "--no-properties", "--plain",
           "--minutes", str(a.minutes), "--jobs", "1", "--targets", TARGET, "--out", str(out), "--seed", str(a.seed),
           "--sanitize", mode, "--fast-preset", FAST, "--asan-preset", ASAN, "--minimize-seconds", "10"]
    t0 = time.time()
    p = subprocess.run(cmd, capture_output=True, text=True, env=dict(os.environ, STACKCHECK_DEFECT=DEFECT))
    print(f"--sanitize {mode}: exit {p.returncode} in {time.time() - t0:.0f} s", flush=True)
    if p.returncode != 0:
        print(p.stderr[-3000:])
        raise SystemExit(f"FAIL: the campaign (--sanitize {mode}) exited {p.returncode}")
    run = max((d for d in out.iterdir() if d.is_dir() and d.name[:8].isdigit()), key=lambda d: d.name)
    asan = [b for b in table(run / "buckets.tsv") if b["oracle"] == "AddressSanitizer"]
    return run, asan


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=20261206)
    ap.add_argument("--minutes", type=float, default=1.5)
    ap.add_argument("--no-build", action="store_true")
    a = ap.parse_args()
    print(f"lane-control: seed={a.seed} (rerun: python3 scripts/tests/campaign_lane_control.py --seed {a.seed})",
          flush=True)
    if not a.no_build:
        for preset in (FAST, ASAN):
            fuzzlib.build(preset, [TARGET, f"{TARGET}_replay"], quiet=True)
    bad = []
    work = ROOT / "build" / "lane-control"

    run, asan = campaign(work / "new", "new", a)
    ledger = (work / "new" / "sanitized" / f"{TARGET}.tsv")
    checked = [l.split("\t") for l in ledger.read_text().splitlines()] if ledger.exists() else []
    by_check = [v for _, v in checked if v.startswith("finding:")]  # finding:<bucket>[:<artifact>]
    if not asan:
        bad.append(f"--sanitize new: no AddressSanitizer bucket (report: {run / 'report.md'})")
    elif not any("Orchestrator::publish" in b["frames"] for b in asan):
        bad.append(f"--sanitize new: the ASan bucket is not in Orchestrator::publish: {asan[0]['frames']}")
    if not by_check:
        bad.append(f"--sanitize new: no sanitizer check of a new input found it ({len(checked)} checked)")
    print(f"  new: {len(checked)} new inputs checked, {len(by_check)} finding(s); buckets: "
          + "; ".join(f"{b['oracle']}/{b['rule']} < {b['frames']}" for b in asan), flush=True)

    run, asan = campaign(work / "none", "none", a)
    if asan:
        bad.append(f"--sanitize none: reported an AddressSanitizer finding: {asan[0]['frames']}")
    replay = ROOT / "build" / ASAN / "bin" / f"{TARGET}_replay"
    units = sorted(p for p in (work / "none" / "corpus" / TARGET).iterdir() if not p.name.startswith("."))
    hit = None
    for u in units:
        finding, _ = fuzzlib.replay(replay, u, env={"STACKCHECK_DEFECT": DEFECT})
        if finding.oracle == "AddressSanitizer":
            hit = u
            break
    if hit is None:
        bad.append(f"--sanitize none: none of its {len(units)} corpus units reaches the read: the control is vacuous")
    print(f"  none: no ASan bucket; its corpus replayed under ASan: {'the read is in ' + hit.name if hit else 'no read'}")
    for b in bad:
        print(f"FAIL: {b}")
    print("lane-control: " + ("FAIL" if bad else "ok: found with --sanitize new, not with --sanitize none"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
