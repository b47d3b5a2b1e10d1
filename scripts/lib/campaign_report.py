"""A campaign's tables, report and summary (scripts/campaign): run.tsv, targets.tsv,
buckets.tsv, properties.tsv and the optional coverage per stack/ folder, rendered by
stackcheck-report into report.md and index.html (reports/README.md has the file contract).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import fuzzlib  # noqa: E402
from campaign_lanes import SanitizerCheck, lane_notes  # noqa: E402
from campaign_run import Task, fmt_int, log  # noqa: E402
from campaign_store import Store  # noqa: E402
from fuzzlib import ROOT  # noqa: E402


def tsv(path: Path, header: list[str], rows: list[tuple]) -> None:
    def cell(v) -> str:
        return str(v).replace("\t", " ").replace("\n", " ")

    body = "\t".join(header) + "\n" + "".join("\t".join(cell(v) for v in r) + "\n" for r in rows)
    fuzzlib.atomic_write(path, body.encode())


class Reporting:
    """A part of Campaign (campaign.py), which sets these and findings_count, process_findings."""

    a: argparse.Namespace
    out: Path
    store: Store
    bin: Path
    run_dir: Path
    started: float
    last_refresh: float
    stop_requested: int
    tasks: list[Task]
    buckets: dict[str, dict]
    property_rows: list[dict]
    sanitizer: SanitizerCheck | None

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

    def write_tables(self, status: str) -> None:
        rd = self.run_dir
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                                text=True).stdout.strip()
        run = {"kind": "campaign", "title": "stackcheck fuzzing campaign",
               "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(self.started)),
               "finished": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "seed": str(self.a.seed),
               "minutes": str(self.a.minutes), "jobs": str(self.a.jobs), "sanitize": self.a.sanitize,
               "asan_jobs": str(self.a.asan_jobs), "targets": " ".join(self.a.targets),
               "command": self.a.command, "commit": commit or "?", "cores": str(os.cpu_count()), "status": status,
               "out": str(self.out)}
        tsv(rd / "run.tsv", ["key", "value"], list(run.items()))
        rows = []
        lanes: dict[str, list] = {}
        for task in self.tasks:
            t = task.target
            n, b = self.store.size(t)
            # A twin shares its target's corpus and crashes: the findings are counted on the target's row.
            buckets = 0 if task.twin else sum(1 for r in self.buckets.values() if r.get("target") == t)
            secs = task.used + ((time.time() - task.started) if task.proc else 0)
            eps = int(task.total_execs / secs) if secs > 0 else 0
            rows.append((task.name, task.total_execs, eps, task.stats.cov, task.stats.ft, n, b,
                         0 if task.twin else self.findings_count(t), buckets, f"{secs:.0f}", task.status,
                         task.slowest_s, task.peak_rss_mb, task.lane))
            lane = lanes.setdefault(task.lane, [[], 0, 0.0])
            lane[0].append(task.name)
            lane[1] += task.total_execs
            lane[2] += secs
        tsv(rd / "targets.tsv", ["target", "execs", "exec_s", "cov", "ft", "corpus", "corpus_bytes", "findings",
                                 "buckets", "seconds", "status", "slowest_s", "peak_rss_mb", "lane"], rows)
        checks = self.sanitizer.rows() if self.sanitizer else []
        if checks:
            tsv(rd / "sanitized.tsv", ["target", "checked", "seconds", "findings", "checked_all_runs", "waiting"],
                checks)
        fuzzlib.atomic_write(rd / "notes.md", lane_notes([(k, *v) for k, v in sorted(lanes.items())], checks,
                                                         self.a.sanitize, self.a.asan_jobs).encode())
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
        rows = [("target", "lane", "execs", "exec/s", "cov", "corpus", "findings", "buckets")]
        for task in self.tasks:
            t = task.target
            secs = task.used
            rows.append((task.name, task.lane, fmt_int(task.total_execs),
                         fmt_int(int(task.total_execs / secs) if secs else 0), str(task.stats.cov),
                         str(self.store.size(t)[0]), "-" if task.twin else str(self.findings_count(t)),
                         "-" if task.twin else str(sum(1 for r in self.buckets.values() if r.get("target") == t))))
        widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
        print()
        for i, r in enumerate(rows):
            print("  ".join(c.ljust(w) if j == 0 else c.rjust(w) for j, (c, w) in enumerate(zip(r, widths))))
            if i == 0:
                print("  ".join("-" * w for w in widths))
        if self.sanitizer:
            st = self.sanitizer.state.values()
            print(f"\nsanitizers: {sum(s.inputs for s in st):,} new input(s) of the fast lane replayed under "
                  f"ASan+UBSan in {sum(s.seconds for s in st):.0f} s, {sum(s.findings for s in st)} finding(s), "
                  f"{self.sanitizer.pending():,} left unchecked")
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
