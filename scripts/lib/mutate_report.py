"""scripts/mutate's tables: results.tsv and the lists beside it, the score with its 95% interval
per folder, file and operator, the survivors grouped by the observable they change (the rows of
docs/observables.md, through scripts/observables_map.tsv), the survivors with their diff and the
tests that reached them, and the agreement of two runs over the same mutants (--compare). Python
standard library only.
"""

from __future__ import annotations

import math
import sys
from fnmatch import fnmatchcase
from pathlib import Path

KILLED, SURVIVED, TIMEOUT, BUILD_FAIL, EQUIVALENT = "KILLED", "SURVIVED", "TIMEOUT", "BUILD-FAIL", "EQUIVALENT"
NOT_REACHED = "NOT REACHED"
COLUMNS = ["id", "file", "line", "col", "operator", "replacement", "function", "outcome", "killer", "oracle", "rule",
           "unit", "seconds", "tce_s", "build_s", "test_s", "before", "after", "message", "path", "reached", "switch"]
OUTCOMES = (KILLED, TIMEOUT, SURVIVED, NOT_REACHED, "ARGUED", EQUIVALENT, BUILD_FAIL)
OBSERVABLES = Path(__file__).resolve().parents[1] / "observables_map.tsv"
NO_ROW = "(no row)"


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


def read_observables(path: Path = OBSERVABLES) -> list[dict]:
    """The lines of scripts/observables_map.tsv in their order, each {section, row, files,
    functions, line}: files and functions are lists of globs, empty for '-'. A header line
    (`section ...`), '#' lines and blank lines are skipped; no file is an empty map."""
    out: list[dict] = []
    if not Path(path).exists():
        return out
    for n, line in enumerate(Path(path).read_text().splitlines(), 1):
        if not line.strip() or line.startswith("#") or line.startswith("section\t"):
            continue
        cells = [c.strip() for c in line.split("\t")]
        if len(cells) != 4 or not cells[0].isdigit() or not cells[1] or not cells[2] or not cells[3]:
            raise ValueError(f"{path}:{n}: expected 'section<TAB>row<TAB>files<TAB>functions'")
        files, functions = ([] if c == "-" else [g.strip() for g in c.split(",") if g.strip()] for c in cells[2:])
        out.append({"section": cells[0], "row": cells[1], "files": files, "functions": functions, "line": n})
    return out


def observable_line(r: dict, table: list[dict]) -> dict | None:
    """The first line of the map whose file globs match r's file and whose function globs match
    its function ('-' matches everything; a line with both '-' matches nothing)."""
    file, function = r.get("file", "") or "", r.get("function", "") or ""
    for t in table:
        if not t["files"] and not t["functions"]:
            continue
        if all(not globs or any(fnmatchcase(value, g) for g in globs)
               for value, globs in ((file, t["files"]), (function, t["functions"]))):
            return t
    return None


def observable_of(row: dict, table) -> str:
    """The observable a mutant changes: `§<section> <row text>` of docs/observables.md, or
    `(no row)` when no line of the map names its file and function."""
    t = observable_line(row, table)
    return NO_ROW if t is None else f"§{t['section']} {t['row']}"


def by_observable(surv: list[dict], table: list[dict], run_dir: Path) -> list[str]:
    """The survivors grouped by the row of docs/observables.md they change, in section order
    (then the map's order), `(no row)` last; the same groups go to survivors_by_observable.tsv
    in run_dir (section, row, id, file, function)."""
    first: dict[tuple[str, str], int] = {}
    for i, t in enumerate(table):
        first.setdefault((t["section"], t["row"]), i)
    groups: dict[tuple[str, str], list[dict]] = {}
    for r in surv:
        t = observable_line(r, table)
        groups.setdefault(("-", NO_ROW) if t is None else (t["section"], t["row"]), []).append(r)
    rest = groups.pop(("-", NO_ROW), [])
    ordered = sorted(groups.items(), key=lambda g: (int(g[0][0]), first[g[0]])) + [(("-", NO_ROW), rest)]
    out = ["\nsurvivors by observable (docs/observables.md):"]
    tsv = ["section\trow\tid\tfile\tfunction"]
    for (section, row), rs in ordered:
        out.append(f"  {NO_ROW}: {len(rs)}" if row == NO_ROW else f"  §{section} {row}: {len(rs)} survivor(s)")
        for r in rs:
            out.append(f"      {r['id']}" + (" [NOT REACHED]" if r.get("outcome") == NOT_REACHED else ""))
            tsv.append("\t".join(clean(v) for v in (section, row, r["id"], r.get("file"), r.get("function"))))
    (run_dir / "survivors_by_observable.tsv").write_text("\n".join(tsv) + "\n")
    return out


def summary(rows: list[dict], argued: dict[str, str], run_dir: Path, a, phase: dict | None = None,
            observables: list[dict] | None = None) -> None:
    """The end of a run on stdout: outcomes, the score with its interval per folder, file and
    operator, the survivors by observable (`observables`, by default scripts/observables_map.tsv),
    every survivor with the tests that reached it, where the time went."""
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
    if observables is None:
        try:
            observables = read_observables()
        except ValueError as e:
            print(f"\nobservables map: {e}")
            observables = []
    grouped = by_observable(surv, observables, run_dir)
    if surv:
        print("\n".join(grouped))
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


def compare_runs(runs: tuple[Path, Path], argued: dict[str, str]) -> int:
    """--compare RUN_A RUN_B: every mutant both runs judged, verdict against verdict."""
    x, y = runs
    n, diffs = compare(x, y, argued)
    if n == 0:
        print(f"mutate: --compare: {x} and {y} judged no mutant in common", file=sys.stderr)
        return 2
    print(f"{n} mutants judged by both runs; {n - len(diffs)} agree, {len(diffs)} differ")
    for d in diffs:
        print(f"  {d}")
    return 0 if not diffs else 1
