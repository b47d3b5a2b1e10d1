#!/usr/bin/env python3
"""Reduces a defect-zoo counterexample by deleting lines while it stays a reproducer.

  reduce_case.py --cli build/zoo/bin/stackcheck --defect NAME[,NAME] IN OUT
  reduce_case.py --driver build/zoo/bin/fuzz_program_replay --defect NAME IN OUT


A candidate is kept when `stackcheck replay` still FAILS (exit 1) with the defect selected
and still PASSES (exit 0) without it, exactly what the zoo's ctest asserts
(stack/defects/zoo_case.sh); with --driver, a fuzz target's text form through its replay
driver, which reports a finding by aborting (a signal), passes with exit 0 and refuses a
broken text form with exit 2. Deletions are tried greedily, largest first: a whole block (a
line ending in '{' through its matching '}'), then a block unwrapped (its opener and closer,
an if-else kept as one branch, a scope_begin/scope_end pair), then single lines, until none
is accepted.
Header comments are kept. RapidCheck's shrinking stays the first reducer: this only takes
out what its choice-level shrinking cannot (a statement a later one no longer needs).
"""
import argparse
import os
import subprocess
import sys
import tempfile


def replay(cmd: list[str], text: str, defect: str, suffix: str) -> int:
    with tempfile.NamedTemporaryFile("w", suffix=suffix, delete=False) as f:
        f.write(text)
        path = f.name
    try:
        env = dict(os.environ, STACKCHECK_DEFECT=defect)
        return subprocess.run([*cmd, path], env=env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, timeout=120).returncode
    except subprocess.TimeoutExpired:
        return -1
    finally:
        os.unlink(path)


def reproduces(cmd: list[str], fails: set[int], lines: list[str], defect: str, suffix: str) -> bool:
    text = "".join(lines)
    return replay(cmd, text, defect, suffix) in fails and replay(cmd, text, "", suffix) == 0


def blocks(lines: list[str]) -> list[tuple[int, int]]:
    """[start, end) of every '{' ... matching '}' line range, largest first."""
    out, stack = [], []
    for i, line in enumerate(lines):
        body = line.split("#", 1)[0].strip()
        if body.startswith("}") and stack:  # "} else {" closes one block and opens the next
            out.append((stack.pop(), i + 1))
        if body.endswith("{"):
            stack.append(i)
    return sorted(out, key=lambda r: r[0] - r[1])


def unwraps(lines: list[str]) -> list[set[int]]:
    """Line sets whose deletion keeps a body: a block's opener and closer (a loop, an if
    without else), an if-else kept as either branch, a scope_begin and its scope_end."""
    out: list[set[int]] = []
    code = [line.split("#", 1)[0].strip() for line in lines]
    spans = dict(blocks(lines))
    for s, e in spans.items():
        if code[s].startswith("}"):
            continue  # an else branch: handled with its if below
        if code[e - 1] == "}":
            out.append({s, e - 1})
        elif code[e - 1].startswith("}") and e - 1 in spans:  # if ... } else { ... }
            m, end = e - 1, spans[e - 1]
            out.append({s, *range(m, end)})  # keep the then branch
            out.append({*range(s, m + 1), end - 1})  # keep the else branch
    stack: list[int] = []
    for i, c in enumerate(code):
        if c == "scope_begin":
            stack.append(i)
        elif c == "scope_end" and stack:
            out.append({stack.pop(), i})
    return out


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    which = p.add_mutually_exclusive_group(required=True)
    which.add_argument("--cli", help="stackcheck, for a property counterexample (stackcheck replay FILE)")
    which.add_argument("--driver", help="a <target>_replay binary, for a fuzz target's text form")
    p.add_argument("--defect", required=True)
    p.add_argument("--seconds", type=float, default=0, help="stop after this long, keeping the best so far (0: no limit)")
    p.add_argument("input")
    p.add_argument("output")
    a = p.parse_args()
    suffix = os.path.splitext(a.input)[1]
    lines = open(a.input).read().splitlines(keepends=True)
    cmd = [a.cli, "replay"] if a.cli else [a.driver]
    fails = {1} if a.cli else {1, -6, 134}  # stackcheck replay: 1 = the oracle failed; a driver aborts (or a sanitizer exits 1)
    if not reproduces(cmd, fails, lines, a.defect, suffix):
        print(f"reduce_case: {a.input} is not a reproducer of {a.defect}", file=sys.stderr)
        return 1
    header = 0
    while header < len(lines) and lines[header].startswith("#"):
        header += 1
    import time
    deadline = time.time() + a.seconds if a.seconds > 0 else float("inf")
    changed = True
    while changed and time.time() < deadline:
        changed = False
        drops = ([set(range(a, b)) for a, b in blocks(lines) if a >= header] +
                 [d for d in unwraps(lines) if min(d) >= header] + [{i} for i in range(len(lines) - 1, header - 1, -1)])
        for drop in drops:
            if time.time() >= deadline:
                continue
            candidate = [line for i, line in enumerate(lines) if i not in drop]
            if reproduces(cmd, fails, candidate, a.defect, suffix):
                lines = candidate
                changed = True
                break
    open(a.output, "w").write("".join(lines))
    print(f"reduce_case: {a.output}: {len(lines) - header} lines after the header", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
