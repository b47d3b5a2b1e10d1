"""scripts/mutate --save / --resume of a checkpoint: a run longer than one machine's life.

`--save RUN_DIR` copies the run's args.json and results.tsv into the tree
(scripts/mutate_runs/<timestamp>/, to commit); `--resume scripts/mutate_runs/<timestamp>` on any
later machine restores them under build/mutate/<timestamp>/ and the run goes on there, on the
commit it began on (from the repository's history).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

import fuzzlib
from fuzzlib import ROOT, UsageError
from mutate_report import read_tsv

SAVED_RUNS = ROOT / "scripts" / "mutate_runs"  # checkpoints of long runs, committed so a bare machine resumes them
CHECKPOINT = ("args.json", "results.tsv")


def log(msg: str) -> None:
    print(f"mutate: {msg}", file=sys.stderr, flush=True)


def rows_in(path: Path) -> int:
    return len(read_tsv(path)) if path.exists() else 0


def restore(p: argparse.ArgumentParser, saved: Path, out: Path) -> Path:
    """A checkpoint in the tree (--save) becomes a run folder under out/, unless that folder
    already holds as many results (then the run goes on there)."""
    missing = [f for f in CHECKPOINT if not (saved / f).exists()]
    if missing:
        p.error(f"--resume {saved}: not a saved mutate run (no {', '.join(missing)})")
    stamp = json.loads((saved / "args.json").read_text()).get("stamp", "") or saved.name
    target = out / re.sub(r"[^0-9A-Za-z]", "", stamp)
    if rows_in(target / "results.tsv") < rows_in(saved / "results.tsv"):
        target.mkdir(parents=True, exist_ok=True)
        for f in CHECKPOINT:
            fuzzlib.atomic_write(target / f, (saved / f).read_bytes())
        log(f"restored {rows_in(saved / 'results.tsv')} results from {saved} into {target}")
    return target


def save_run(a: argparse.Namespace) -> int:
    """--save RUN_DIR: the run's args.json and results.tsv into the tree, to commit."""
    missing = [f for f in CHECKPOINT if not (a.save / f).exists()]
    if missing:
        raise UsageError(f"--save {a.save}: not a mutate run folder (no {', '.join(missing)})")
    dest = SAVED_RUNS / a.save.name
    dest.mkdir(parents=True, exist_ok=True)
    for f in CHECKPOINT:
        fuzzlib.atomic_write(dest / f, (a.save / f).read_bytes())
    n = rows_in(dest / "results.tsv")
    log(f"saved {n} results to {dest.relative_to(ROOT)}; commit it, and continue on any machine with: "
        f"scripts/mutate --resume {dest.relative_to(ROOT)}")
    return 0
