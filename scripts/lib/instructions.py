"""scripts/instructions: the instructions one input of each deep fuzz target costs (HARNESS.md §7).

Runs bench/throughput_bench under Valgrind's callgrind, counting only inside the target's judge
(judge_program, judge_plan, judge_attach: the stack and every oracle tier, not the decoder), on
the bench corpus decoded as scripts/throughput decodes it (STACKCHECK_NO_SWARM=1), and divides
by the number of inputs judged. A count, not a time: the same binary gives the same
figure on an idle or a shared machine, so two builds compare to a fraction of a percent where
wall-clock figures swing by tens of percent (docs/throughput.md). Writes
build/instructions/<timestamp>/instructions.json and the callgrind files, which
callgrind_annotate reads (`--inclusive=yes` for the cost of each function). Python standard
library only.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import fuzzlib  # noqa: E402
from fuzzlib import ROOT, UsageError  # noqa: E402

PROG = "instructions"
# Each target's judge, by its whole signature: an overload of the same name must not toggle the
# count off, and fuzz_attach's is the overload its entry point tail-calls.
JUDGES = {
    "fuzz_program": "stackcheck::judge::judge_program(stackcheck::judge::Judgement&, stackcheck::judge::ProgramCase const&)",
    "fuzz_bind_plan": "stackcheck::judge::judge_plan(stackcheck::judge::Judgement&, stackcheck::judge::PlanCase const&)",
    "fuzz_attach": "stackcheck::judge::judge_attach(stackcheck::judge::Judgement&, stackcheck::judge::PlanCase const&, "
                   "std::vector<stackcheck::gen::MutationDraw, std::allocator<stackcheck::gen::MutationDraw> > const*, "
                   "std::vector<stackcheck::runtime::Mutation, std::allocator<stackcheck::runtime::Mutation> >*)",
}


def log(msg: str) -> None:
    print(f"{PROG}: {msg}", file=sys.stderr, flush=True)


def parse_args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog=f"scripts/{PROG}", description=__doc__.split("\n\n")[0])
    p.add_argument("--preset", default="dev", help="the build whose benchmark is counted (dev)")
    p.add_argument("--targets", default=",".join(JUDGES), help="comma-separated subset of " + ",".join(JUDGES))
    p.add_argument("--no-build", action="store_true", help="use the benchmark as built")
    p.add_argument("--out", type=Path, default=ROOT / "build" / PROG, help="output folder (build/instructions)")
    a = p.parse_args(argv)
    a.targets = [t for t in a.targets.split(",") if t]
    for t in a.targets:
        if t not in JUDGES:
            raise UsageError(f"unknown target '{t}' (one of {', '.join(JUDGES)})")
    if not a.targets:
        raise UsageError("--targets names no target")
    return a


def judged(callgrind_out: Path, judge: str) -> tuple[int, int]:
    """(instructions counted, calls of the judge) from a callgrind output file."""
    names: dict[str, str] = {}
    total, calls = None, 0
    lines = callgrind_out.read_text(errors="replace").split("\n")
    for i, line in enumerate(lines):
        m = re.match(r"^c?fn=\((\d+)\)(?: (.*))?$", line)
        if m and m.group(2):
            names[m.group(1)] = m.group(2)
        if line.startswith("cfn=") and m:
            name = m.group(2) or names.get(m.group(1), "")
            if name == judge and i + 1 < len(lines) and lines[i + 1].startswith("calls="):
                calls += int(lines[i + 1].split("=")[1].split()[0])
        if line.startswith(("summary:", "totals:")):
            total = int(line.split()[1])
    if total is None:
        raise UsageError(f"{callgrind_out}: no instruction total (did callgrind run to the end?)")
    return total, calls


def count(binary: Path, target: str, run_dir: Path) -> dict:
    judge = JUDGES[target]
    out = run_dir / f"callgrind-{target}.out"
    cmd = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
           f"--toggle-collect={judge}", str(binary),
           f"--benchmark_filter=^{target}/", "--benchmark_min_time=0.001"]
    log(f"{target}: {' '.join(cmd)}")
    with open(run_dir / f"callgrind-{target}.log", "wb") as f:
        code = subprocess.call(cmd, stdout=f, stderr=subprocess.STDOUT, cwd=ROOT,
                               preexec_fn=fuzzlib.die_with_parent)
    if code != 0 or not out.exists():
        raise UsageError(f"callgrind of {target} failed (exit {code}): see {run_dir / f'callgrind-{target}.log'}")
    total, calls = judged(out, judge)
    if calls == 0:
        raise UsageError(f"{out}: no call of {judge} counted")
    return {"instructions": total, "inputs": calls, "per_input": total / calls}


def main(argv: list[str]) -> int:
    try:
        a = parse_args(argv)
        if subprocess.call(["sh", "-c", "command -v valgrind >/dev/null"]) != 0:
            raise UsageError("valgrind is not installed (scripts/bootstrap installs it)")
        if not a.no_build:
            fuzzlib.build(a.preset, ["throughput_bench"], quiet=True)
        binary = ROOT / "build" / a.preset / "bin" / "throughput_bench"
        if not binary.exists():
            raise UsageError(f"{binary} is not built (drop --no-build)")
        # The committed bench corpus decodes as it did before swarm generation, as under
        # scripts/throughput, so the counts compare with its figures and across commits.
        os.environ["STACKCHECK_NO_SWARM"] = "1"
        run_dir = a.out / datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
        run_dir.mkdir(parents=True, exist_ok=True)
        rows = {t: count(binary, t, run_dir) for t in a.targets}
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                                text=True).stdout.strip()
        (run_dir / "instructions.json").write_text(json.dumps(
            {"commit": commit, "preset": a.preset, "targets": rows}, indent=2) + "\n")
        print(f"instructions per input judged ({a.preset} build, commit {commit or '?'}; {run_dir}):")
        print("| target | inputs | instructions per input |")
        print("|---|---:|---:|")
        for t, r in rows.items():
            print(f"| {t} | {r['inputs']} | {r['per_input'] / 1e6:.3f} M |")
        return 0
    except UsageError as e:
        log(f"error: {e}")
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
