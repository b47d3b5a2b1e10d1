"""What follows a campaign's fuzzing (scripts/campaign): each corpus merged and minimized, every
raw finding bucketed, the first of each bucket minimized and written as a candidate, and the
corpus classified by the replay drivers.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Callable

sys.path.insert(0, str(Path(__file__).resolve().parent))
import fuzzlib  # noqa: E402
from campaign_run import ARTIFACT_PREFIXES, log  # noqa: E402
from campaign_store import Store  # noqa: E402
from fuzzlib import ROOT, die_with_parent  # noqa: E402


class AfterFuzzing:
    """A part of Campaign (campaign.py), which sets these."""

    a: argparse.Namespace
    out: Path
    store: Store
    bin: Path
    run_dir: Path
    stamp: str
    t0: float
    stop_requested: int
    buckets: dict[str, dict]
    lane_bin: Callable[[str], Path]  # the build a target fuzzes in

    def findings_count(self, t: str) -> int:
        d = self.store.crashes(t)
        return sum(1 for f in d.iterdir() if f.name.startswith(ARTIFACT_PREFIXES)) if d.is_dir() else 0

    def merge_all(self) -> None:
        for t in self.a.targets:
            if self.stop_requested > 1:
                return
            self.merge(t)

    def merge(self, t: str) -> None:
        """libFuzzer's -merge=1 picks a minimal subset with the same features; the rest moves to
        pruned/ (rename, atomic), so a kill at any point loses no unit."""
        corpus = self.store.corpus(t)
        n_before, _ = self.store.size(t)
        if n_before < 2:
            return
        work = self.out / "merge" / t
        shutil.rmtree(work, ignore_errors=True)
        (work / "new").mkdir(parents=True)
        opts = [f for f in fuzzlib.libfuzzer_flags(t) if not f.startswith(("-max_len", "-dict"))]
        cmd = [str(self.lane_bin(t) / t), "-merge=1", f"-merge_control_file={work / 'control'}", *opts,
               str(work / "new"), str(corpus)]
        with open(self.run_dir / "logs" / f"{t}.merge.log", "wb") as lf:
            r = subprocess.run(cmd, stdout=lf, stderr=subprocess.STDOUT, cwd=work, env=fuzzlib.sanitizer_env(),
                               preexec_fn=die_with_parent)
        if r.returncode != 0:
            log(f"[{t}] merge failed (exit {r.returncode}); corpus left as it was")
            return
        keep = {f.name for f in (work / "new").iterdir()}
        if not keep:
            return
        pruned = self.store.pruned(t)
        pruned.mkdir(parents=True, exist_ok=True)
        moved = 0
        for f in corpus.iterdir():
            if f.name not in keep and not f.name.startswith("."):
                os.replace(f, pruned / f.name)
                moved += 1
        shutil.rmtree(work, ignore_errors=True)
        log(f"[{t}] merge: {n_before} units -> {n_before - moved} ({moved} redundant moved to {pruned})")

    def process_findings(self) -> None:
        """Buckets every raw finding (target + oracle + rule/pass + top frames), minimizes the
        first of each bucket, writes its text form as a candidate with its header."""
        index_path = self.out / "findings" / "index.tsv"
        index: dict[str, str] = {}
        if index_path.exists():
            for line in index_path.read_text().splitlines():
                if "\t" in line:
                    k, v = line.split("\t", 1)
                    index[k] = v
        self.load_buckets()
        for t in self.a.targets:
            d = self.store.crashes(t)
            if not d.is_dir():
                continue
            for f in sorted(d.iterdir(), key=lambda p: p.stat().st_mtime):
                if not f.name.startswith(ARTIFACT_PREFIXES) or f"{t}/{f.name}" in index:
                    continue
                if self.stop_requested > 1:
                    return
                bucket = self.classify_artifact(t, f)
                index[f"{t}/{f.name}"] = bucket
                fuzzlib.atomic_write(index_path, "".join(f"{k}\t{v}\n" for k, v in index.items()).encode())

    def load_buckets(self) -> None:
        root = self.out / "findings"
        if not root.is_dir():
            return
        for b in root.iterdir():
            meta = b / "meta.tsv"
            if meta.exists():
                row = dict(l.split("\t", 1) for l in meta.read_text().splitlines() if "\t" in l)
                self.buckets[b.name] = row

    def classify_artifact(self, t: str, f: Path) -> str:
        replay_bin = self.bin / f"{t}_replay"
        finding, stderr = fuzzlib.replay(replay_bin, f, timeout=self.a.replay_timeout)
        if not finding.found:
            # Flaky, or only reproducible under libFuzzer's own state: keep it, bucket it apart.
            finding = fuzzlib.Finding(kind="unreproduced", message="the replay build shows no finding",
                                      rule=f.name.split("-", 1)[0])
        bucket = finding.bucket(t)
        if bucket in self.buckets:
            row = self.buckets[bucket]
            row["count"] = str(int(row.get("count", "1")) + 1)
            self.write_bucket(bucket, row)
            return bucket
        log(f"[{t}] new finding {bucket}: {finding.label()} — minimizing {f.name}")
        bdir = self.out / "findings" / bucket
        bdir.mkdir(parents=True, exist_ok=True)
        (bdir / "replay.log").write_text(stderr)
        best = self.minimize(t, f, bdir, finding)
        text = fuzzlib.text_form(replay_bin, best)
        ext = fuzzlib.TEXT_EXT.get(t, ".txt")
        cand = self.out / "candidates" / t / f"{bucket}{ext}"
        reproduces = "no"
        if text is not None:
            header = [f"# oracle: {finding.oracle or finding.kind}", f"# rule: {finding.rule}",
                      f"# seed: {self.a.seed}", f"# found-by: scripts/campaign {self.stamp} ({f.name})",
                      f"# description: {finding.message[:200]}"]
            fuzzlib.atomic_write(cand, fuzzlib.with_header(text, header))
            again, _ = fuzzlib.replay(replay_bin, cand, timeout=self.a.replay_timeout)
            reproduces = "yes" if again.bucket(t) == bucket else ("other" if again.found else "no")
        else:
            cand = self.out / "candidates" / t / f"{bucket}.bin"  # no text form: the bytes
            fuzzlib.atomic_write(cand, best.read_bytes())
            reproduces = "bytes"
        row = {"bucket": bucket, "target": t, "kind": finding.kind, "oracle": finding.oracle or finding.kind,
               "rule": finding.rule, "frames": " < ".join(finding.frames), "count": "1",
               "candidate": str(cand), "replay": f"scripts/replay {self.rel(cand)}",
               "first_seen_s": f"{max(0.0, f.stat().st_mtime - self.t0):.0f}", "message": finding.message[:300],
               "reproduces": reproduces, "raw": str(f), "minimized": str(best)}
        self.write_bucket(bucket, row)
        return bucket

    def write_bucket(self, bucket: str, row: dict) -> None:
        self.buckets[bucket] = row
        body = "".join(f"{k}\t{str(v).replace(chr(9), ' ').replace(chr(10), ' ')}\n" for k, v in row.items())
        fuzzlib.atomic_write(self.out / "findings" / bucket / "meta.tsv", body.encode())

    def minimize(self, t: str, f: Path, bdir: Path, finding: fuzzlib.Finding) -> Path:
        out = bdir / "minimized"
        if self.a.minimize_seconds <= 0 or finding.kind == "timeout":
            return f
        tmp = bdir / ".minimized.tmp"
        cmd = [str(self.bin / t), "-minimize_crash=1", f"-max_total_time={self.a.minimize_seconds}",
               f"-exact_artifact_path={tmp}", *[o for o in fuzzlib.libfuzzer_flags(t) if o.startswith("-timeout")],
               str(f)]
        with open(bdir / "minimize.log", "wb") as lf:
            subprocess.run(cmd, stdout=lf, stderr=subprocess.STDOUT, cwd=bdir, env=fuzzlib.sanitizer_env(),
                           preexec_fn=die_with_parent, timeout=self.a.minimize_seconds + 60)
        if tmp.exists() and tmp.stat().st_size <= f.stat().st_size:
            again, _ = fuzzlib.replay(self.bin / f"{t}_replay", tmp, timeout=self.a.replay_timeout)
            if again.bucket(t) == finding.bucket(t):
                os.replace(tmp, out)
                return out
        tmp.unlink(missing_ok=True)
        return f

    def rel(self, p: Path) -> str:
        try:
            return str(p.relative_to(ROOT))
        except ValueError:
            return str(p)

    def classify_corpus(self) -> list[tuple[str, str, int]]:
        rows = []
        for t in self.a.targets:
            dirs = [self.store.corpus(t)] if self.store.size(t)[0] else []
            if not dirs:
                continue
            try:
                p = subprocess.run([str(self.lane_bin(t) / f"{t}_replay"), "--classify", *map(str, dirs)],
                                   capture_output=True, text=True, errors="replace", timeout=600,
                                   env=fuzzlib.sanitizer_env())
            except subprocess.TimeoutExpired:
                log(f"[{t}] classify timed out")
                continue
            counts: dict[str, int] = {}
            for line in p.stdout.splitlines():
                cls = line.split("\t", 1)[0].strip()
                if cls:
                    counts[cls] = counts.get(cls, 0) + 1
            if p.returncode != 0 and not counts:
                log(f"[{t}] classify failed: {p.stderr.strip().splitlines()[-1:] or ['?']}")
            rows += [(t, c, n) for c, n in sorted(counts.items())]
        return rows
