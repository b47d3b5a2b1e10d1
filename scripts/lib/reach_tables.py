"""The reach tables of HARNESS.md §8, read from what the properties print.

Runs every property suite of a build (build/<preset>/bin/*_props, the positive controls left out,
as scripts/coverage leaves them out: fuzzlib.is_positive_control) at a case count and seed, reads the tag table each property
prints after it runs (`tags over N cases:` then `  <tag> <share>%`) and the two production tables
of GenProps, and writes one Markdown file:

  - limits: every tag that names a limit met (`limit:`, `at-limit`, `nodes-at-limit`, `... k=64`,
    ...: LIMIT_RE), per property, with its share of the property's cases;
  - codes and paths: every `code-N` tag (a rule broken; `code-N, in <place>` where the breaker
    names the path or place), per property;
  - every other tag, per property (what each case reached);
  - the production tables as GenProps printed them.

The shares are measured, never stated: a tag is counted each time a generated case reaches it
(a property that judges several edits a case, such as the every-place ones, counts past 100).
"""
from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LIMIT_RE = re.compile(r"limit|one past|past the|int32|k=64|raised-at|below-min|exactly|\b(at-lo|at-hi|below-lo|past-hi)\b",
                      re.I)
CODE_RE = re.compile(r"^(code-\d+|codegen-\d+|refused-\d+|forged-|planted |precondition |saboteur|latch )")
TEST_RE = re.compile(r"^\[ RUN      \] (\S+)$")
TAGS_RE = re.compile(r"^tags over (\d+) cases:$")
ROW_RE = re.compile(r"^  (.+?)\s+(\d+(?:\.\d+)?)%$")


def parse(text: str) -> tuple[dict[str, tuple[int, list[tuple[str, float]]]], list[str]]:
    """Per test: (cases, [(tag, share)]) of its last tag table; and the production-table lines."""
    tests: dict[str, tuple[int, list[tuple[str, float]]]] = {}
    productions: list[str] = []
    test = None
    in_tags = False
    cases = 0
    rows: list[tuple[str, float]] = []
    in_prod = False
    for line in text.splitlines():
        m = TEST_RE.match(line)
        if m:
            test, in_tags, in_prod = m.group(1), False, False
            continue
        if test and test.startswith("GenProps.") and "reaches_every_production" in test:
            if line.startswith("seed ") or in_prod:
                in_prod = not line.startswith("[")
                if in_prod:
                    productions.append(line)
                continue
        m = TAGS_RE.match(line)
        if m and test:
            in_tags, cases, rows = True, int(m.group(1)), []
            tests[test] = (cases, rows)
            continue
        if in_tags:
            r = ROW_RE.match(line)
            if r:
                rows.append((r.group(1).strip(), float(r.group(2))))
            else:
                in_tags = False
    return tests, productions


def table(title: str, tests, keep) -> list[str]:
    out = [f"## {title}", "", "| property | cases | tag | hits per 100 cases |", "|---|---:|---|---:|"]
    n = 0
    for name in sorted(tests):
        cases, rows = tests[name]
        for tag, share in rows:
            if keep(tag):
                out.append(f"| `{name}` | {cases} | {tag.replace('|', '/')} | {share:.1f}% |")
                n += 1
    if n == 0:
        out.append("| - | - | (none) | - |")
    return out + [""]


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="scripts/reach_tables",
                                description="Runs the property suites and writes their limit, code and "
                                            "production tables (HARNESS.md §8) as Markdown.")
    p.add_argument("--preset", default="dev")
    p.add_argument("--cases", type=int, default=300, help="RapidCheck max_success per property (default 300)")
    p.add_argument("--seed", type=int, default=20261129)
    p.add_argument("--out", type=Path, help="the Markdown file (default build/reach/tables-<seed>.md)")
    p.add_argument("--suites", help="comma-separated suite binaries (default every *_props)")
    a = p.parse_args(argv)
    if a.cases < 1:
        p.error("--cases must be at least 1")
    bindir = ROOT / "build" / a.preset / "bin"
    suites = sorted(bindir.glob("*_props")) if not a.suites else [bindir / s for s in a.suites.split(",")]
    missing = [s for s in suites if not s.is_file()]
    if not suites or missing:
        p.error(f"no property binaries under {bindir} (build it: cmake --build --preset {a.preset})"
                if not suites else f"not built: {', '.join(map(str, missing))}")
    env = dict(os.environ, RC_PARAMS=f"max_success={a.cases} seed={a.seed}")
    text = []
    for s in suites:
        print(f"reach_tables: {s.name} (max_success={a.cases} seed={a.seed})", file=sys.stderr, flush=True)
        r = subprocess.run([str(s), "--gtest_filter=-*Control.*:*Contract.*:*Oracles.*:*control*"], env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if r.returncode != 0:
            print(f"reach_tables: {s.name} failed (exit {r.returncode}); its tables are still read", file=sys.stderr)
        text.append(r.stdout)
    tests, productions = parse("\n".join(text))
    out = [f"# Reach tables (seed {a.seed}, {a.cases} cases a property, preset {a.preset})", "",
           f"Replay: `scripts/reach_tables --preset {a.preset} --cases {a.cases} --seed {a.seed}`", ""]
    out += table("Limits met (and one past)", tests, lambda t: bool(LIMIT_RE.search(t)))
    out += table("Codes broken, by place or path", tests, lambda t: bool(CODE_RE.match(t)) and not LIMIT_RE.search(t))
    out += table("Every other tag", tests, lambda t: not LIMIT_RE.search(t) and not CODE_RE.match(t))
    out += ["## Production tables (GenProps)", "", "```"] + productions + ["```", ""]
    dest = a.out or ROOT / "build" / "reach" / f"tables-{a.seed}.md"
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_text("\n".join(out))
    print(f"reach_tables: {len(tests)} properties with tags; written to {dest}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
