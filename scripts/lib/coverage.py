"""scripts/coverage: harness-alone reach, measured (HARNESS.md §8).

Builds the coverage preset (clang source-based coverage) and runs two things apart, each
writing its own profile:
- the harness alone: the ctest cases of the `property` and `replay` labels without the
  positive controls (fuzzlib.is_positive_control: they plant failures), and with --corpus a
  campaign corpus replayed through the targets' replay drivers (--classify, so a finding in it
  does not cut the replay short);
- the unit tests: the `unit` label's test binaries (the cases run by a script, such as the
  report tool's CLI test, drive no stack/ code and are left out).
Both profiles are exported against the same binaries, restricted to the sources of stack/
without defects/ and the tests, so the two sides count the same lines and branches. Each line
and branch is then reached by the harness, only by the unit tests (a blind spot of the
harness), or by neither; a function's lines are those its own regions span (a lambda's lines
belong to the lambda). scripts/coverage_reasons.tsv gives reviewed reasons for what the
harness does not reach. Writes reach.tsv, functions.tsv and run.tsv and renders them with
stackcheck-report into build/reach/<timestamp>/{report.md,index.html} (reports/README.md has
the file contract). Exit 0 written, 1 a tool failed, 2 bad flags. Python standard library only.
"""

from __future__ import annotations

import json
import re
import os
import shlex
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import fuzzlib  # noqa: E402
import judge  # noqa: E402
from fuzzlib import ROOT, UsageError  # noqa: E402

PROG = "coverage"
PRESET = "coverage"
BUILD = ROOT / "build" / PRESET
REASONS = ROOT / "scripts" / "coverage_reasons.tsv"
DEFAULT_SEED = "20261129"  # scripts/test's pinned RapidCheck seed
TEST_TIMEOUT_S = 1800
# Headers of stack/ that only its unit tests include (fixtures, corpus readers): not measured.
TEST_ONLY = {"testing.h", "test_fixture.h", "test_support.h"}
LLVM = {t: f"llvm-{t}-14" for t in ("cov", "profdata", "cxxfilt")}


def log(msg: str) -> None:
    print(f"{PROG}: {msg}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------------------------
# Running the two sides


def run_side(name: str, tests: list[judge.Test], prof_dir: Path, rc_params: str, jobs: int, logf: Path) -> list[str]:
    """Runs each test's own command with its profile going to prof_dir; returns the failures
    (a failing test still counts for reach: what it reached before failing was reached)."""
    prof_dir.mkdir(parents=True, exist_ok=True)
    failed: list[str] = []
    done = 0
    t0 = time.time()

    def one(t: judge.Test) -> tuple[judge.Test, int]:
        env = dict(os.environ, **t.env)
        env["RC_PARAMS"] = rc_params
        env["STACKCHECK_COUNTEREXAMPLES"] = str(prof_dir.parent / "counterexamples")
        env["LLVM_PROFILE_FILE"] = str(prof_dir / f"{name}-%4m.profraw")
        with open(logf, "ab") as out:
            out.write(f"$ {' '.join(shlex.quote(c) for c in t.command)}\n".encode())
        rc = judge.run_logged(t.command, Path(t.cwd), logf, env=env, timeout=TEST_TIMEOUT_S)
        return t, rc

    with ThreadPoolExecutor(max_workers=jobs) as pool:
        for t, rc in pool.map(one, tests):
            done += 1
            if rc != 0:
                failed.append(f"{t.name} (exit {rc})")
            if done % 100 == 0 or done == len(tests):
                log(f"{name}: {done}/{len(tests)} run, {len(failed)} failed, {time.time() - t0:.0f} s")
    return failed


def merge(prof_dir: Path, out: Path) -> None:
    raws = sorted(str(p) for p in prof_dir.glob("*.profraw"))
    if not raws:
        raise UsageError(f"no profile was written under {prof_dir}")
    subprocess.run([LLVM["profdata"], "merge", "-sparse", *raws, "-o", str(out)], check=True)


# ---------------------------------------------------------------------------------------------
# Reading llvm-cov's exports


@dataclass
class FileCov:
    lines: dict[int, int] = field(default_factory=dict)  # line -> count
    # (line, column, end line, end column, outcome 0 true / 1 false) -> times taken
    branches: dict[tuple, int] = field(default_factory=dict)


def stack_path(name: str) -> str | None:
    """A covered file's path as stack/..., or None when it is not a measured source of stack/.
    The coverage mapping holds paths as the compiler saw them: relative to the build folder
    under ccache (CCACHE_BASEDIR), and possibly another clone's when ccache shared an object
    between clones, so the path is normalised and cut at its last stack/ folder."""
    norm = os.path.normpath(name)
    at = norm.rfind("/stack/")
    if at < 0:
        return None
    rel = norm[at + 1:]
    base = rel.rsplit("/", 1)[-1]
    if rel.startswith("stack/defects/") or base in TEST_ONLY or base.endswith(("_test.cpp", "_test_util.h")):
        return None
    return rel


def read_lcov(text: str) -> dict[str, FileCov]:
    """The lines of each measured stack/ source (keyed stack/...); branches come from the JSON
    export (read_branches)."""
    files: dict[str, FileCov] = {}
    cur: FileCov | None = None
    for line in text.splitlines():
        if line.startswith("SF:"):
            rel = stack_path(line[3:])
            cur = files.setdefault(rel, FileCov()) if rel else None
        elif cur is None:
            continue
        elif line.startswith("DA:"):
            ln, cnt = line[3:].split(",")[:2]
            cur.lines[int(ln)] = max(cur.lines.get(int(ln), 0), int(cnt))
        elif line == "end_of_record":
            cur = None
    return files


def read_branches(data: dict, files: dict[str, FileCov]) -> None:
    """The branches of each measured stack/ source from llvm-cov's JSON export, into `files`.
    A branch is a source location (start and end line and column) with two outcomes, taken
    when any template instantiation, in any binary, took it: counted once per source
    decision, as lines are. (llvm-cov 14's lcov export lists one BRDA block per instantiation,
    numbered per binary, so the same numbers could name different instantiations in two
    binaries; later llvm-cov unifies instantiations in its export by default.)"""
    for d in data.get("data", []):
        for f in d.get("files", []):
            rel = stack_path(f.get("filename", ""))
            if not rel:
                continue
            cur = files.setdefault(rel, FileCov())
            for b in f.get("branches", []):
                loc = tuple(b[0:4])
                for outcome, count in ((0, b[4]), (1, b[5])):
                    key = (*loc, outcome)
                    cur.branches[key] = max(cur.branches.get(key, 0), int(count))


def read_folded(show_text: str) -> dict[str, set[tuple[int, int]]]:
    """The folded branches of each measured stack/ source, from `llvm-cov show -show-branches`:
    a condition the compiler decided (an `if constexpr`, a call of a constexpr function such as
    the zoo's `defects::active` outside the zoo build) has a branch region whose two counters are
    the constant zero; llvm-cov prints it "[Folded - Ignored]" and leaves it out of its own
    branch summaries (llvm-cov report), and so does this script. A location is folded only when
    no instantiation shows it with counts. The JSON export has no such flag, hence the text."""
    folded: dict[str, set[tuple[int, int]]] = {}
    counted: dict[str, set[tuple[int, int]]] = {}
    cur: str | None = None
    for line in show_text.splitlines():
        if line and not line[0].isspace() and line.endswith(":"):
            cur = stack_path(line[:-1])
            continue
        if cur is None or "Branch (" not in line:
            continue
        m = re.search(r"Branch \((\d+):(\d+)\): \[(.*)\]", line)
        if m:
            (folded if m[3].startswith("Folded") else counted).setdefault(cur, set()).add((int(m[1]), int(m[2])))
    return {f: locs - counted.get(f, set()) for f, locs in folded.items()}


def drop_folded(files: dict[str, FileCov], folded: dict[str, set[tuple[int, int]]]) -> int:
    """Leaves the folded branches out of `files`; returns how many branch outcomes went."""
    gone = 0
    for f, cov in files.items():
        locs = folded.get(f)
        if not locs:
            continue
        for key in [k for k in cov.branches if (k[0], k[1]) in locs]:
            del cov.branches[key]
            gone += 1
    return gone


ZOO_CALL = "defects::active("


def zoo_hooks(text: str) -> tuple[set[int], dict[int, int]]:
    """The zoo's hooks in one source of stack/: (body lines, condition lines). A hook is code that
    re-creates a historical defect of the zoo (stack/defects, which the measurement leaves out)
    and runs only when that defect is switched on: `if (... defects::active(Defect::X) ...)` and
    its statement (outside the zoo build active() is a constexpr false). The lines of its
    statement below the condition are not measured (unless the condition is negated: `if
    (!(defects::active(X) && ..))` guards the ordinary path); neither are the branches from
    active() on (the operands after it are never evaluated outside the zoo; the conditions
    before it are ordinary). A one-line use of active() (a ternary, a flag, an if and its
    statement on one line) keeps its lines; only those branches go. The second result maps a
    line to the first column whose branches go."""
    lines = text.split("\n")
    body: set[int] = set()
    cond: dict[int, int] = {}
    for i, line in enumerate(lines):
        if ZOO_CALL not in line:
            continue
        call = line.find(ZOO_CALL)
        cond[i + 1] = min(cond.get(i + 1, call + 1), call + 1)  # llvm-cov columns count from 1
        at = line.find("if (")
        if at < 0 or call < at:
            continue
        # The condition: from `if (` to its balancing `)`, over as many lines as it takes.
        depth, j, col = 0, i, at + 3
        while j < len(lines):
            seg = lines[j][col:]
            for n, ch in enumerate(seg):
                depth += (ch == "(") - (ch == ")")
                if depth == 0:
                    col += n + 1
                    break
            if depth == 0:
                break
            j, col = j + 1, 0
        if j >= len(lines):
            continue
        for k in range(i + 2, j + 2):
            cond[k] = 1
        if "!" + ZOO_CALL in line or "!(" + ZOO_CALL in line:
            continue  # a negated hook: its statement is the ordinary path
        rest = lines[j][col:].strip()
        if rest.startswith("{"):  # a block: its lines up to the one that closes it (`}` or `} else {`)
            depth = rest.count("{") - rest.count("}")
            k = j + 1
            while k < len(lines) and depth > 0:
                for ch in lines[k]:
                    depth += (ch == "{") - (ch == "}")
                    if depth == 0:
                        break
                if depth > 0:
                    body.add(k + 1)
                k += 1
        elif not rest:  # one statement on the lines below, up to its `;`
            k = j + 1
            while k < len(lines):
                body.add(k + 1)
                if lines[k].rstrip().endswith(";"):
                    break
                k += 1
    return body, cond


def drop_zoo_hooks(files: dict[str, FileCov], root: Path) -> tuple[int, int]:
    """Leaves the zoo's hooks (zoo_hooks) out of `files`; returns (lines, branch outcomes) gone."""
    lines_gone = branches_gone = 0
    for rel, cov in files.items():
        src = root / rel
        if not src.is_file():
            continue
        text = src.read_text(errors="replace")
        if ZOO_CALL not in text:
            continue
        body, cond = zoo_hooks(text)
        for ln in [ln for ln in cov.lines if ln in body]:
            del cov.lines[ln]
            lines_gone += 1
        for key in [k for k in cov.branches if k[0] in body or (k[0] in cond and k[1] >= cond[k[0]])]:
            del cov.branches[key]
            branches_gone += 1
    return lines_gone, branches_gone


JUMP = re.compile(r"^(?:return\b.*|break|continue|throw\b.*);$")


def drop_dead_braces(harness: dict[str, FileCov], unit: dict[str, FileCov], root: Path) -> int:
    """Leaves out the closing brace that follows a jump (`return ...;`, `break;`, `continue;`,
    `throw ...;`) that ran: llvm-cov 14 gives the brace its own region after the jump, which no
    input can reach (a `case X: { ...; return; }` block's `}`). A brace is left out only when a
    side ran the jump before it and neither side ran the brace, so a block no input reached keeps
    its lines. Returns how many lines went."""
    gone = 0
    for rel in set(harness) | set(unit):
        src = root / rel
        if not src.is_file():
            continue
        h, u = harness.get(rel, FileCov()), unit.get(rel, FileCov())
        text = src.read_text(errors="replace").split("\n")
        prev = 0  # the last line with code before this one (1-based; 0: none)
        for n, line in enumerate(text, start=1):
            code = line.split("//", 1)[0].strip()
            if not code:
                continue
            if code in ("}", "};") and prev and JUMP.match(text[prev - 1].split("//", 1)[0].strip()):
                ran_jump = h.lines.get(prev, 0) > 0 or u.lines.get(prev, 0) > 0
                ran_brace = h.lines.get(n, 0) > 0 or u.lines.get(n, 0) > 0
                if ran_jump and not ran_brace and (n in h.lines or n in u.lines):
                    h.lines.pop(n, None)
                    u.lines.pop(n, None)
                    gone += 1
            prev = n
    return gone


@dataclass
class Function:
    file: str
    first: int
    last: int
    names: list[str]  # mangled, one per instantiation or binary


def read_functions(data: dict) -> list[Function]:
    """A function per source range (template instantiations and the copies in each binary
    folded into one), from the regions of its own file."""
    by_range: dict[tuple, Function] = {}
    for f in data["data"][0]["functions"]:
        fname = stack_path(f["filenames"][0]) if f.get("filenames") else None
        if fname is None:
            continue
        regs = [r for r in f["regions"] if r[5] == 0]
        if not regs:
            continue
        first, last = min(r[0] for r in regs), max(r[2] for r in regs)
        key = (fname, first, last)
        fn = by_range.setdefault(key, Function(fname, first, last, []))
        fn.names.append(f["name"])
    return list(by_range.values())


def demangle(names: list[str]) -> dict[str, str]:
    """Mangled -> readable, a file-local function's `file.cpp:` prefix dropped."""
    bare = [n.rsplit(":", 1)[-1] if ":" in n and not n.startswith("_Z") else n for n in names]
    p = subprocess.run([LLVM["cxxfilt"]], input="\n".join(bare) + "\n", capture_output=True, text=True, check=True)
    out = p.stdout.splitlines()
    return {n: (out[i] if i < len(out) else b) for i, (n, b) in enumerate(zip(names, bare))}


def short(name: str) -> str:
    """A readable function name: the demangled one without its parameter list's types when
    it is long, and without the (anonymous namespace) noise."""
    s = name.replace("(anonymous namespace)::", "")
    return s if len(s) <= 140 else s[:137] + "..."


def ranges(lines: list[int]) -> str:
    if not lines:
        return "-"
    out, start, prev = [], lines[0], lines[0]
    for n in lines[1:] + [None]:
        if n is not None and n == prev + 1:
            prev = n
            continue
        out.append(f"{start}" if start == prev else f"{start}-{prev}")
        if n is not None:
            start = prev = n
    return " ".join(out)


def read_reasons(path: Path) -> list[tuple[str, str, str]]:
    """scripts/coverage_reasons.tsv: file, a function name's substring (or * for any), reason."""
    out = []
    if not path.exists():
        return out
    for i, line in enumerate(path.read_text().splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        parts = line.split("\t")
        if len(parts) != 3:
            raise UsageError(f"{path}:{i}: expected 3 tab-separated fields (file, function, reason)")
        out.append((parts[0], parts[1], parts[2]))
    return out


# ---------------------------------------------------------------------------------------------
# The tables


def tally(h: FileCov, u: FileCov) -> list[int]:
    lk = set(h.lines) | set(u.lines)
    bk = set(h.branches) | set(u.branches)
    hl = {k for k in lk if h.lines.get(k, 0) > 0}
    ul = {k for k in lk if u.lines.get(k, 0) > 0}
    hb = {k for k in bk if h.branches.get(k, 0) > 0}
    ub = {k for k in bk if u.branches.get(k, 0) > 0}
    return [len(lk), len(hl), len(ul), len(hl | ul), len(bk), len(hb), len(ub), len(hb | ub)]


def build_tables(harness: dict[str, FileCov], unit: dict[str, FileCov], funcs: list[Function],
                 names: dict[str, str], reasons: list[tuple[str, str, str]]) -> tuple[list, list]:
    rel = {f: f for f in set(harness) | set(unit)}
    reach_rows: list[tuple] = []
    folders: dict[str, list[int]] = {}
    total = [0] * 8
    for f in sorted(rel, key=lambda x: rel[x]):
        t = tally(harness.get(f, FileCov()), unit.get(f, FileCov()))
        reach_rows.append(("file", rel[f], *t))
        folder = rel[f].rsplit("/", 1)[0]
        acc = folders.setdefault(folder, [0] * 8)
        for i, v in enumerate(t):
            acc[i] += v
            total[i] += v
    rows = [("total", "stack/", *total)] + [("folder", k, *v) for k, v in sorted(folders.items())] + reach_rows

    # Lines to functions: each line to the innermost function whose range holds it.
    func_rows = []
    per_file: dict[str, list[Function]] = {}
    for fn in funcs:
        per_file.setdefault(fn.file, []).append(fn)
    for f, fns in per_file.items():
        h, u = harness.get(f, FileCov()), unit.get(f, FileCov())
        owner: dict[int, Function] = {}
        for fn in sorted(fns, key=lambda x: -(x.last - x.first)):
            for ln in h.lines.keys() | u.lines.keys():
                if fn.first <= ln <= fn.last:
                    owner[ln] = fn
        mine: dict[int, list[int]] = {}
        for ln, fn in owner.items():
            mine.setdefault(id(fn), []).append(ln)
        for fn in fns:
            lines = sorted(mine.get(id(fn), []))
            if not lines:
                continue
            hl = [ln for ln in lines if h.lines.get(ln, 0) > 0]
            uo = [ln for ln in lines if h.lines.get(ln, 0) == 0 and u.lines.get(ln, 0) > 0]
            nn = [ln for ln in lines if h.lines.get(ln, 0) == 0 and u.lines.get(ln, 0) == 0]
            if not uo and not nn:
                continue
            ul = sum(1 for ln in lines if u.lines.get(ln, 0) > 0)
            readable = short(names.get(fn.names[0], fn.names[0]))
            why = next((r for rf, sel, r in reasons if rel[f].endswith(rf) and (sel == "*" or sel in readable)), "-")
            func_rows.append((rel[f], readable, fn.first, fn.last, len(lines), len(hl), ul, ranges(uo), ranges(nn), why))
    func_rows.sort(key=lambda r: (r[0], r[2]))
    return rows, func_rows


def pct(a: int, b: int) -> str:
    return f"{100 * a / b:.1f}%" if b else "-"


def print_summary(rows: list[tuple]) -> None:
    head = ("folder", "lines", "harness", "unit", "only unit", "branches", "harness", "unit")
    table = [head]
    for r in rows:
        if r[0] == "file":
            continue
        _, name, lines, hl, ul, un, br, hb, ub, bu = r
        table.append((name, str(lines), pct(hl, lines), pct(ul, lines), str(un - hl), str(br), pct(hb, br),
                      pct(ub, br)))
    widths = [max(len(row[i]) for row in table) for i in range(len(head))]
    for row in table:
        print("  ".join(c.ljust(widths[0]) if i == 0 else c.rjust(widths[i]) for i, c in enumerate(row)))


# ---------------------------------------------------------------------------------------------


def parse_args(argv: list[str]):
    p = fuzzlib.ArgParser(prog="scripts/coverage", description=__doc__.split("\n\n")[0])
    p.add_argument("--corpus", type=Path, help="a campaign corpus (DIR/<target>/, or a folder named after a target) "
                                               "replayed as part of the harness")
    p.add_argument("--seed", default=DEFAULT_SEED, help=f"RapidCheck seed of the property runs (default {DEFAULT_SEED})")
    p.add_argument("--jobs", type=fuzzlib.number_arg(int, positive=True), default=os.cpu_count() or 2)
    p.add_argument("--out", type=Path, help="run directory (default build/reach/<UTC timestamp>)")
    p.add_argument("--reasons", type=Path, default=REASONS, help="reviewed reasons (file, function, reason)")
    p.add_argument("--no-build", action="store_true", help="use build/coverage as it is")
    p.add_argument("--no-run", action="store_true", help="with --out DIR of an earlier run: report its profiles again "
                                                        "(after a change of the reasons, say) without running anything")
    a = p.parse_args(argv)
    if a.corpus is not None and not a.corpus.is_dir():
        p.error(f"--corpus {a.corpus}: not a directory")
    if a.no_run and (a.out is None or not (a.out / "profiles" / "harness.profdata").exists()):
        p.error("--no-run needs --out DIR of an earlier run (DIR/profiles/harness.profdata)")
    if not a.seed.isdigit():
        p.error(f"--seed {a.seed}: expected a non-negative integer")
    return a


def build_preset(out: Path) -> bool:
    """Configures and builds the coverage preset (ccache when there is one), logging to out/build.log;
    False (logged) when a step fails."""
    log("building the coverage preset (log: build.log)")
    env = dict(os.environ)
    launcher = []
    if subprocess.run(["sh", "-c", "command -v ccache"], capture_output=True).returncode == 0 and \
            not env.get("STACKCHECK_NO_CCACHE"):
        env.setdefault("CCACHE_BASEDIR", str(ROOT))
        env.setdefault("CCACHE_NOHASHDIR", "1")
        launcher = ["-DCMAKE_CXX_COMPILER_LAUNCHER=ccache"]
    with open(out / "build.log", "ab") as blog:
        for c in (["cmake", "--preset", PRESET, *launcher], ["cmake", "--build", "--preset", PRESET]):
            if subprocess.run(c, cwd=ROOT, stdout=blog, stderr=subprocess.STDOUT, env=env).returncode != 0:
                log(f"build failed: {' '.join(c)} (log: {out / 'build.log'})")
                return False
    return True


def export_reach(prof: Path, cov_args: list[str]) -> dict | None:
    """Each side's lines and branches as llvm-cov exports them, less what no input can reach (folded
    branches, the zoo's hooks, closing braces after a jump); None (logged) when llvm-cov fails."""
    exports = {}
    for side in ("harness", "unit"):
        pd = f"-instr-profile={prof / (side + '.profdata')}"
        lcov = subprocess.run([LLVM["cov"], "export", "-format=lcov", pd, *cov_args], capture_output=True, text=True)
        if lcov.returncode != 0:
            log(f"llvm-cov export failed: {lcov.stderr.strip()[:300]}")
            return None
        exports[side] = read_lcov(lcov.stdout)
        js = subprocess.run([LLVM["cov"], "export", "-format=text", "-skip-functions", pd, *cov_args],
                            capture_output=True, text=True)
        if js.returncode != 0:
            log(f"llvm-cov export failed: {js.stderr.strip()[:300]}")
            return None
        read_branches(json.loads(js.stdout), exports[side])
    show = subprocess.run([LLVM["cov"], "show", "-show-branches=count", "-show-instantiations=false",
                           f"-instr-profile={prof / 'harness.profdata'}", *cov_args], capture_output=True, text=True)
    if show.returncode != 0:
        log(f"llvm-cov show failed: {show.stderr.strip()[:300]}")
        return None
    folded = read_folded(show.stdout)
    gone = drop_folded(exports["harness"], folded)
    drop_folded(exports["unit"], folded)
    log(f"folded branches left out (llvm-cov's rule): {sum(len(v) for v in folded.values())} conditions, "
        f"{gone} outcomes")
    zoo_lines, zoo_branches = drop_zoo_hooks(exports["harness"], ROOT)
    drop_zoo_hooks(exports["unit"], ROOT)
    log(f"the zoo's hooks left out (code only a switched-on defect runs): {zoo_lines} lines, "
        f"{zoo_branches} branch outcomes")
    braces = drop_dead_braces(exports["harness"], exports["unit"], ROOT)
    log(f"closing braces after a jump that ran left out (no input can reach them): {braces} lines")
    return exports


def main(argv: list[str]) -> int:
    a = parse_args(argv)
    started = time.time()
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(started))
    out = (a.out or ROOT / "build" / "reach" / stamp).resolve()
    out.mkdir(parents=True, exist_ok=True)
    cmd = "scripts/coverage " + " ".join(shlex.quote(x) for x in argv)
    # The commit measured: HEAD when the build starts (a commit made while it runs is not in it).
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    rc_params = f"seed={a.seed}"
    log(f"seed {a.seed} (RC_PARAMS=\"{rc_params}\"); run directory {out}")
    log(f"replay this measurement: scripts/coverage --seed {a.seed}" + (f" --corpus {a.corpus}" if a.corpus else ""))
    if not a.no_build and not a.no_run and not build_preset(out):
        return 1

    harness = judge.judge_tests(judge.list_tests(BUILD, "property") + judge.list_tests(BUILD, "replay"))
    if a.corpus is not None:
        corpus = judge.corpus_tests(BUILD, a.corpus.resolve())
        for t in corpus:
            t.command.insert(1, "--classify")
        harness += corpus
    bin_dir = (BUILD / "bin").resolve()
    unit = [t for t in judge.list_tests(BUILD, "unit") if Path(t.command[0]).resolve().parent == bin_dir]
    if not harness or not unit:
        log(f"no tests listed in {BUILD} (harness {len(harness)}, unit {len(unit)})")
        return 1
    log(f"harness: {len(harness)} cases (positive controls left out); unit: {len(unit)} cases")
    prof = out / "profiles"
    failures: dict[str, list[str]] = {"harness": [], "unit": []}
    if not a.no_run:
        for side in ("harness", "unit"):
            for p in (prof / side).glob("*.profraw"):
                p.unlink()
        failures = {"harness": run_side("harness", harness, prof / "harness", rc_params, a.jobs, out / "harness.log"),
                    "unit": run_side("unit", unit, prof / "unit", rc_params, a.jobs, out / "unit.log")}
        for side, f in failures.items():
            for name in f:
                log(f"{side}: failed: {name} (still counted: log {out / (side + '.log')})")
        for side in ("harness", "unit"):
            merge(prof / side, prof / f"{side}.profdata")

    objects = sorted({str(bin_dir / n) for n in judge.targets_of(harness + unit, BUILD)})
    cov_args = [objects[0], *[x for o in objects[1:] for x in ("-object", o)]]
    exports = export_reach(prof, cov_args)
    if exports is None:
        return 1
    js = subprocess.run([LLVM["cov"], "export", "-format=text", "-skip-expansions",
                         f"-instr-profile={prof / 'harness.profdata'}", *cov_args], capture_output=True, text=True)
    if js.returncode != 0:
        log(f"llvm-cov export failed: {js.stderr.strip()[:300]}")
        return 1
    funcs = read_functions(json.loads(js.stdout))
    names = demangle(sorted({fn.names[0] for fn in funcs}))
    rows, func_rows = build_tables(exports["harness"], exports["unit"], funcs, names, read_reasons(a.reasons))

    from campaign_report import tsv  # the tables' writer (temp + rename), shared with the campaign
    tsv(out / "reach.tsv", ["scope", "name", "lines", "harness", "unit", "union", "branches", "b_harness", "b_unit",
                            "b_union"], rows)
    tsv(out / "functions.tsv", ["file", "function", "first_line", "last_line", "lines", "harness", "unit",
                                "unit_only_lines", "neither_lines", "reason"], func_rows)
    failed = sum(len(f) for f in failures.values())
    run = [("kind", "coverage"), ("title", "stackcheck reach (harness-alone coverage)"),
           ("started", time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(started))),
           ("finished", time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())), ("seed", a.seed), ("command", cmd),
           ("commit", commit.stdout.strip() or "?"), ("cores", str(os.cpu_count())),
           ("status", "complete"), ("harness cases", str(len(harness))), ("unit cases", str(len(unit))),
           ("failed cases", str(failed)), ("corpus", str(a.corpus) if a.corpus else "-")]
    tsv(out / "run.tsv", ["key", "value"], run)
    print_summary(rows)
    tool = BUILD / "bin" / "stackcheck-report"
    p = subprocess.run([str(tool), str(out)], capture_output=True, text=True)
    if p.returncode != 0:
        log(f"report: {p.stderr.strip()} (tables are in {out})")
        return 1
    log(f"report: {out / 'report.md'} and {out / 'index.html'} ({time.time() - started:.0f} s)")
    return 0


def interrupted() -> int:
    log("interrupted")
    return 1


if __name__ == "__main__":
    fuzzlib.run_script(PROG, main, interrupted)
