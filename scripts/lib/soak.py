"""scripts/soak: every fuzz target for a long time under OSS-Fuzz's limits, then a table.

A soak is the continuous campaign underneath (scripts/campaign with plain libFuzzer processes,
restarted after a finding, so each reports its slow units): per input a 25 s timeout and a
2,560 MB RSS limit, slow units reported from 1 s. The table (per target: inputs executed,
findings, finding buckets, slowest input, peak RSS as the OS measured the fuzzer) goes to the
terminal and to DIR/<timestamp>/soak.md next to the campaign's report.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from fuzzlib import ROOT  # noqa: E402


def main(argv: list[str]) -> int:
    class Parser(argparse.ArgumentParser):
        def error(self, message):
            print(f"soak: {message}", file=sys.stderr)
            sys.exit(2)

    def hours(s: str) -> float:
        try:
            v = float(s)
        except ValueError:
            raise argparse.ArgumentTypeError(f"'{s}' is not a number")
        if v <= 0:
            raise argparse.ArgumentTypeError("must be more than 0")
        return v

    p = Parser(prog="scripts/soak", description="Soak every fuzz target under OSS-Fuzz's limits.")
    p.add_argument("--hours", type=hours, default=0.5, help="duration (default 0.5)")
    p.add_argument("--jobs", default=str(os.cpu_count() or 1), help="parallel fuzzers (default: cores)")
    p.add_argument("--out", default=str(ROOT / "build" / "soak"), help="working folder (default build/soak)")
    p.add_argument("--targets", action="append", default=[], help="targets (default: all)")
    p.add_argument("--seed", default=None)
    p.add_argument("--no-build", action="store_true")
    a = p.parse_args(argv)
    out = Path(a.out).resolve()
    cmd = [sys.executable, str(ROOT / "scripts" / "lib" / "campaign.py"), "--minutes", f"{a.hours * 60:g}",
           "--jobs", a.jobs, "--out", str(out), "--no-fork", "--no-properties", "--plain",
           "--libfuzzer=-report_slow_units=1", "--progress-every", "300", "--sample-every", "30"]
    cmd += [f"--targets={t}" for t in a.targets]
    if a.seed:
        cmd += ["--seed", a.seed]
    if a.no_build:
        cmd.append("--no-build")
    before = {d.name for d in out.iterdir()} if out.is_dir() else set()
    rc = subprocess.call(cmd)
    runs = sorted(d for d in out.iterdir() if d.name not in before and (d / "targets.tsv").exists()) \
        if out.is_dir() else []
    if not runs:
        print("soak: the campaign wrote no table", file=sys.stderr)
        return rc or 2
    run = runs[-1]
    lines = (run / "targets.tsv").read_text().splitlines()
    head = lines[0].split("\t")
    rows = [dict(zip(head, l.split("\t"))) for l in lines[1:] if l]
    meta = dict(l.split("\t", 1) for l in (run / "run.tsv").read_text().splitlines()[1:] if "\t" in l)
    table = ["| target | inputs executed | exec/s | findings | buckets | slowest input | peak RSS |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        slow = f"≥ {r['slowest_s']} s" if int(r.get("slowest_s", "0") or 0) > 0 else "< 1 s"
        table.append(f"| {r['target']} | {int(r['execs']):,} | {int(r['exec_s']):,} | {r['findings']} | "
                     f"{r['buckets']} | {slow} | {r['peak_rss_mb']} MB |")
    text = (f"# Soak {meta.get('started', '?')}: {a.hours:g} h, {a.jobs} jobs, seed {meta.get('seed', '?')}, "
            f"commit {meta.get('commit', '?')}\n\nLimits per input: timeout 25 s, RSS 2,560 MB (OSS-Fuzz's); "
            f"slow units reported from 1 s.\n\n" + "\n".join(table) + f"\n\nCampaign report: {run / 'index.html'}\n")
    (run / "soak.md").write_text(text)
    print("\n" + text)
    print(f"soak: table in {run / 'soak.md'}")
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
