"""scripts/mutate's tables: results.tsv and the lists beside it, the score with its 95% interval
per folder, file and operator, the survivors with their diff and the tests that reached them,
and the agreement of two runs over the same mutants (--compare). Python standard library only.
"""

from __future__ import annotations

import math
from pathlib import Path

KILLED, SURVIVED, TIMEOUT, BUILD_FAIL, EQUIVALENT = "KILLED", "SURVIVED", "TIMEOUT", "BUILD-FAIL", "EQUIVALENT"
NOT_REACHED = "NOT REACHED"
COLUMNS = ["id", "file", "line", "col", "operator", "replacement", "function", "outcome", "killer", "oracle", "rule",
           "unit", "seconds", "tce_s", "build_s", "test_s", "before", "after", "message", "path", "reached", "switch"]
OUTCOMES = (KILLED, TIMEOUT, SURVIVED, NOT_REACHED, "ARGUED", EQUIVALENT, BUILD_FAIL)


def clean(v) -> str:
    s = " ".join(str(v).split()) if v not in (None, "") else "-"
    return s.replace("\t", " ")


def read_tsv(path: Path) -> list[dict]:
    if not path.exists():
        return []
    lines = [l for l in path.read_text(errors="replace").splitlines() if l.strip()]
    if not lines:
        return []
    head = lines[0].split("\t")
    return [dict(zip(head, l.split("\t"))) for l in lines[1:] if len(l.split("\t")) == len(head)]


def read_equivalents(path: Path, error=ValueError) -> dict[str, str]:
    """id -> reason, from the reviewed list (a header row `id reason`; '#' lines are comments)."""
    out = {}
    if not path.exists():
        return out
    for n, line in enumerate(path.read_text().splitlines(), 1):
        if not line.strip() or line.startswith("#") or line.startswith("id\t"):
            continue
        cells = line.split("\t")
        if len(cells) < 2 or not cells[1].strip():
            raise error(f"{path}:{n}: expected 'id<TAB>reason'")
        out[cells[0].strip()] = cells[1].strip()
    return out


def duration(s: float) -> str:
    s = max(0, s)
    if s < 90:
        return f"{s:.1f} s"
    if s < 5400:
        return f"{int(s // 60)} min {int(s % 60):02d} s"
    return f"{int(s // 3600)} h {int(s % 3600 // 60):02d} min"


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a proportion k/n (0..1 each end)."""
    if n == 0:
        return 0.0, 1.0
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return max(0.0, c - h), min(1.0, c + h)


def outcome_of(r: dict, argued: dict[str, str]) -> str:
    """The outcome a row counts as: a survivor (or a mutant not reached) on the argued list is ARGUED."""
    return "ARGUED" if r["outcome"] in (SURVIVED, NOT_REACHED) and r["id"] in argued else r["outcome"]


def is_kill(o: str) -> bool:
    return o in (KILLED, TIMEOUT)


def is_scored(o: str) -> bool:
    return o in (KILLED, TIMEOUT, SURVIVED, NOT_REACHED)


def score_line(k: int, n: int) -> str:
    if not n:
        return "0/0"
    lo, hi = wilson(k, n)
    return f"{k}/{n} = {100 * k / n:.1f}% (95% interval {100 * lo:.1f}-{100 * hi:.1f}%)"


def group_table(rows: list[dict], argued: dict[str, str], key, title: str) -> list[str]:
    groups: dict[str, list[int]] = {}
    for r in rows:
        o = outcome_of(r, argued)
        if is_scored(o):
            g = groups.setdefault(key(r), [0, 0, 0])
            g[0] += is_kill(o)
            g[1] += 1
            g[2] += o == NOT_REACHED
    if not groups:
        return []
    out = [f"\n{title:<52} {'killed':>6} {'scored':>6} {'unreached':>9} {'score':>7} {'95% interval':>13}"]
    for name, (k, n, u) in sorted(groups.items()):
        lo, hi = wilson(k, n)
        out.append(f"{name:<52} {k:>6} {n:>6} {u:>9} {100 * k / n:>6.1f}% {100 * lo:>5.1f}-{100 * hi:.1f}%")
    return out


def reached_by(run_dir: Path) -> dict[str, str]:
    """Mutant id -> the tests that reached its switch, from the run's schemata build or each of
    its chunks' (chunk-NN/)."""
    out: dict[str, str] = {}
    for f in [run_dir / "reached_by.tsv", *sorted(run_dir.glob("chunk-*/reached_by.tsv"))]:
        out.update({r["id"]: r["tests"] for r in read_tsv(f)})
    return out


def summary(rows: list[dict], argued: dict[str, str], run_dir: Path, a, phase: dict | None = None) -> None:
    """The end of a run on stdout: outcomes, the score with its interval per folder, file and
    operator, every survivor with the tests that reached it, where the time went."""
    counts: dict[str, int] = {}
    for r in rows:
        o = outcome_of(r, argued)
        counts[o] = counts.get(o, 0) + 1
    k = counts.get(KILLED, 0) + counts.get(TIMEOUT, 0)
    n = k + counts.get(SURVIVED, 0) + counts.get(NOT_REACHED, 0)
    paths: dict[str, int] = {}
    for r in rows:
        paths[r.get("path", "-") or "-"] = paths.get(r.get("path", "-") or "-", 0) + 1
    print(f"\n{'outcome':<12} {'mutants':>7}")
    for o in OUTCOMES:
        print(f"{o:<12} {counts.get(o, 0):>7}")
    print("judged by: " + ", ".join(f"{p if p != '-' else 'one-at-a-time'} {c}" for p, c in sorted(paths.items())))
    print(f"\nmutation score: {score_line(k, n)} (killed + timeout over killed + timeout + survived + not "
          f"reached; equivalent, argued and build failures left out)")
    for line in group_table(rows, argued, lambda r: str(Path(r["file"]).parent), "folder"):
        print(line)
    for line in group_table(rows, argued, lambda r: r["operator"], "operator"):
        print(line)
    if getattr(a, "files_table", True):
        for line in group_table(rows, argued, lambda r: r["file"], "file"):
            print(line)
    reach = reached_by(run_dir)
    surv = [r for r in rows if outcome_of(r, argued) in (SURVIVED, NOT_REACHED)]
    if surv:
        print("\nsurvivors (and mutants no judging test reaches):")
        for r in surv:
            unit = "" if r["unit"] in ("-", "") else ("; nothing catches it" if r["unit"] == "no"
                                                      else f"; unit tests catch it ({r['unit']})")
            tests = reach.get(r["id"], "")
            by = "" if not tests else f"\n      reached by: {shorten(tests)}"
            tag = " [NOT REACHED]" if r["outcome"] == NOT_REACHED else ""
            print(f"  {r['id']}{tag}  [{r['function']}]  {r['before']}  ->  {r['after']}{unit}{by}")
    times = [float(r["seconds"]) for r in rows if r["seconds"] not in ("-", "")]
    if times and sum(times) > 0:
        print(f"\n{len(times)} mutants in {duration(sum(times))} of mutant time ({sum(times) / len(times):.1f} s each)")
    if phase:
        print("wall time: " + ", ".join(f"{k} {duration(v)}" for k, v in phase.items()))
    print(f"seed {a.seed}; repeat: {a.command}")
    print(f"report: {run_dir / 'report.md'}\n        {run_dir / 'index.html'}")


def shorten(tests: str, most: int = 6) -> str:
    names = tests.split()
    return " ".join(names[:most]) + (f" (+{len(names) - most} more)" if len(names) > most else "")


def compare(a_dir: Path, b_dir: Path, argued: dict[str, str]) -> tuple[int, list[str]]:
    """The verdicts of two runs over the same mutants (say schemata and one-at-a-time): killed
    (KILLED, TIMEOUT), not killed (SURVIVED, NOT REACHED), equivalent, build failure. Returns
    the number compared and one line per mutant whose verdicts differ, with both outcomes and
    messages."""
    def verdict(r: dict) -> str:
        o = outcome_of(r, argued)
        return "killed" if is_kill(o) else "not killed" if o in (SURVIVED, NOT_REACHED) else o.lower()

    a = {r["id"]: r for r in read_tsv(a_dir / "mutants.tsv") or read_tsv(a_dir / "results.tsv")}
    b = {r["id"]: r for r in read_tsv(b_dir / "mutants.tsv") or read_tsv(b_dir / "results.tsv")}
    both = [i for i in a if i in b]
    diffs = []
    for i in both:
        va, vb = verdict(a[i]), verdict(b[i])
        if va != vb:
            diffs.append(f"{i}: {a_dir.name} {a[i]['outcome']} ({a[i]['killer']}: {a[i]['message']}) but "
                         f"{b_dir.name} {b[i]['outcome']} ({b[i]['killer']}: {b[i]['message']})")
    return len(both), diffs
