"""Peak RSS test of scripts/campaign (ctest `campaign/peak-rss`, fuzz preset).

Runs a short campaign under libFuzzer's -fork (the campaign's default, where the inputs run in
child processes and the fuzzer's own status lines carry no rss) and checks that every target
run has a measured peak RSS above 0 MB in all three places it appears: targets.tsv
(peak_rss_mb), its series/<target>.tsv (rss_mb, which the report's column is drawn from) and
the report.md targets table (the peak RSS column).
Positive control: the same checks applied to a planted run folder whose figures are 0 (and one
with a target missing from the report) must fail.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def rows(path: Path) -> list[dict[str, str]]:
    lines = path.read_text().splitlines()
    head = lines[0].split("\t")
    return [dict(zip(head, l.split("\t"))) for l in lines[1:] if l]


def report_column(report: Path, column: str) -> dict[str, str]:
    """target -> its cell in `column` of report.md's table that has a target and that column."""
    lines = report.read_text().splitlines()
    for i, line in enumerate(lines):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and cells[0] == "target" and column in cells:
            col = cells.index(column)
            out = {}
            for row in lines[i + 2:]:
                if not row.startswith("|"):
                    break
                r = [c.strip().replace("\\", "").strip("*") for c in row.strip().strip("|").split("|")]
                out[r[0]] = r[col]
            return out
    return {}


def problems(run: Path, targets: list[str]) -> list[str]:
    bad = []
    table = {r["target"]: r for r in rows(run / "targets.tsv")} if (run / "targets.tsv").exists() else {}
    report = report_column(run / "report.md", "peak RSS") if (run / "report.md").exists() else {}
    for t in targets:
        if t not in table:
            bad.append(f"{t}: no row in targets.tsv")
        elif not int(table[t].get("peak_rss_mb") or 0) > 0:
            bad.append(f"{t}: targets.tsv peak_rss_mb is {table[t].get('peak_rss_mb')!r}")
        series = run / "series" / f"{t}.tsv"
        # "-": no measurement yet at that sample.
        peak = max((int(r["rss_mb"]) for r in rows(series) if r["rss_mb"] != "-"), default=0) \
            if series.exists() else 0
        if not peak > 0:
            bad.append(f"{t}: series rss_mb peaks at {peak}")
        m = re.fullmatch(r"([\d,]+) MB", report.get(t, ""))
        if not m or not int(m.group(1).replace(",", "")) > 0:
            bad.append(f"{t}: report.md peak RSS is {report.get(t)!r}")
    return bad


def plant(d: Path, targets: list[str], mb: int, in_report: list[str]) -> Path:
    (d / "series").mkdir(parents=True)
    (d / "targets.tsv").write_text("target\tpeak_rss_mb\n" + "".join(f"{t}\t{mb}\n" for t in targets))
    for t in targets:
        (d / "series" / f"{t}.tsv").write_text(f"t_s\trss_mb\n0.0\t-\n1.0\t{mb}\n")
    (d / "report.md").write_text("| target | status | peak RSS |\n|---|---|---:|\n"
                                 + "".join(f"| {t.replace('_', chr(92) + '_')} | done | {mb} MB |\n"
                                           for t in in_report) + "\n")
    return d


def positive_control(targets: list[str]) -> None:
    with tempfile.TemporaryDirectory() as d:
        zero = problems(plant(Path(d) / "zero", targets, 0, targets), targets)
        for t in targets:
            for where in ("targets.tsv", "series", "report.md"):
                assert any(p.startswith(f"{t}: {where}") for p in zero), (t, where, zero)
        missing = problems(plant(Path(d) / "missing", targets, 40, targets[1:]), targets)
        assert missing == [f"{targets[0]}: report.md peak RSS is None"], missing
        assert problems(plant(Path(d) / "good", targets, 40, targets), targets) == []
    print("positive control: 0 MB figures and a target missing from the report are reported")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--targets", default="fuzz_parse,fuzz_relative_ptr")
    ap.add_argument("--minutes", default="0.3")
    a = ap.parse_args()
    targets = a.targets.split(",")
    positive_control(targets)
    out = Path(tempfile.mkdtemp(prefix="campaign-rss-", dir=ROOT / "build"))
    try:
        cmd = [sys.executable, str(ROOT / "scripts" / "lib" / "campaign.py"), "--no-build", "--no-properties",
               "--plain", "--minutes", a.minutes, "--jobs", "2", "--targets", ",".join(targets), "--out", str(out),
               "--seed", "1", "--minimize-seconds", "0", "--sample-every", "1"]
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=600)
        assert p.returncode == 0, f"campaign exited {p.returncode}:\n{p.stdout[-3000:]}"
        runs = sorted(d for d in out.iterdir() if (d / "run.tsv").exists())
        assert len(runs) == 1, f"expected one run folder in {out}: {runs}"
        logs = sorted((runs[0] / "logs").glob("fuzz_*.0.log"))
        assert logs and all("-fork=1" in f.read_text(errors="replace").splitlines()[0] for f in logs), \
            "the runs were not under -fork"
        bad = problems(runs[0], targets)
        assert not bad, "; ".join(bad)
        figures = {r["target"]: r["peak_rss_mb"] for r in rows(runs[0] / "targets.tsv")}
        print("peak RSS under -fork: " + ", ".join(f"{t} {mb} MB" for t, mb in figures.items()))
    finally:
        shutil.rmtree(out, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
