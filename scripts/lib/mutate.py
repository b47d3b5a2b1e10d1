"""scripts/mutate: mutation analysis, the harness grading itself (HARNESS.md §10).

Plants one generic fault at a time in stack/ (mutants.py: sites from libclang's syntax tree),
each in a scratch clone of HEAD (judge.py), builds incrementally and judges it by the harness
alone: the `property` and `replay` ctest labels without the positive controls, cheapest first,
stopping at the first failure (and, with --corpus, a campaign corpus replayed). Outcomes:
KILLED (by which test, oracle and rule), SURVIVED, TIMEOUT (counted as killed), BUILD-FAIL and
EQUIVALENT (the TU's object code unchanged, debug info stripped) left out of the score, and
argued equivalents (scripts/mutate_equivalents.tsv: id and reason) left out with their reason.
Results are appended to results.tsv per mutant (a restart with --resume skips what is done);
the report goes to build/mutate/<timestamp>/{report.md,index.html}. Exit 0 done, 1 the
baseline (the unmutated tree) fails or the run was interrupted, 2 bad flags.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import fuzzlib  # noqa: E402
import judge  # noqa: E402
import mutant_control  # noqa: E402
import mutants  # noqa: E402
import hunted  # noqa: E402
import mutate_checkpoint  # noqa: E402
import mutate_hunt  # noqa: E402
import mutate_report  # noqa: E402
import mutate_schemata  # noqa: E402
from fuzzlib import ROOT, UsageError  # noqa: E402
from mutate_report import (BUILD_FAIL, COLUMNS, EQUIVALENT, KILLED, NOT_REACHED, SURVIVED, TIMEOUT,  # noqa: E402
                           clean, duration, read_tsv)

PROG = "mutate"
PRESET = "dev"
EQUIVALENTS = ROOT / "scripts" / "mutate_equivalents.tsv"
MODES = ("schemata", "one-at-a-time")


def log(msg: str) -> None:
    print(f"{PROG}: {msg}", file=sys.stderr, flush=True)


def read_equivalents(path: Path) -> dict[str, str]:
    return mutate_report.read_equivalents(path, UsageError)


class Run:
    def __init__(self, a: argparse.Namespace):
        self.a = a
        self.dir: Path = a.run_dir
        self.results = self.dir / "results.tsv"
        self.lock = threading.Lock()
        self.stop = 0
        self.done: dict[str, dict] = {r["id"]: r for r in read_tsv(self.results)}
        self.started = time.time()
        self.finished_now = 0
        self.spent = 0.0
        self.total = 0
        self.tests: list[judge.Test] = []
        self.unit_tests: list[judge.Test] = []
        self.targets: list[str] = []
        self.unit_timeout = 0.0
        self.phase: dict[str, float] = {}  # wall time per phase of this invocation
        self.preset = PRESET
        self.root = ROOT
        self.log = log
        self.read_tsv = read_tsv

    # -- results -----------------------------------------------------------------------------

    def record(self, m: mutants.Mutant, row: dict) -> None:
        row = {"id": m.id, "file": m.file, "line": m.line, "col": m.col, "operator": m.op, "replacement": m.repl,
               "function": m.function, "before": m.before, "after": m.after, **row}
        with self.lock:
            new = not self.results.exists() or self.results.stat().st_size == 0
            with open(self.results, "a") as f:
                if new:
                    f.write("\t".join(COLUMNS) + "\n")
                f.write("\t".join(clean(row.get(k, "")) for k in COLUMNS) + "\n")
                f.flush()
                os.fsync(f.fileno())
            self.done[m.id] = {k: clean(row.get(k, "")) for k in COLUMNS}
            self.finished_now += 1
            self.spent += float(row.get("seconds") or 0)
            self.progress(m, self.done[m.id])

    def score(self) -> tuple[int, int]:
        argued = read_equivalents(self.a.equivalents)
        rows = [r for r in self.done.values() if r["id"] not in argued]
        killed = sum(r["outcome"] in (KILLED, TIMEOUT) for r in rows)
        return killed, killed + sum(r["outcome"] in (SURVIVED, NOT_REACHED) for r in rows)

    def progress(self, m: mutants.Mutant, r: dict) -> None:
        k, n = self.score()
        left = self.total - len(self.done)
        per = self.spent / max(1, self.finished_now)  # one mutant's own time (setup and baseline not in it)
        eta = per * left / self.a.jobs
        who = f" by {r['killer']} ({r['oracle']}/{r['rule']})" if r["outcome"] == KILLED else ""
        if r["outcome"] == TIMEOUT:
            who = f" ({r['killer']}: {r['message']})"
        if r["outcome"] == SURVIVED and r["unit"] not in ("-", ""):
            who = f" (unit: {r['unit']})"
        log(f"[{len(self.done)}/{self.total}] {r['outcome']} {m.id}{who} in {float(r['seconds']):.1f} s "
            f"(tce {r['tce_s']} s, build {r['build_s']} s, tests {r['test_s']} s); score {k}/{n}"
            f"{f' = {100 * k / n:.1f}%' if n else ''}; {per:.1f} s/mutant; ETA {duration(eta)}")

    # -- the job -----------------------------------------------------------------------------

    def scratch(self, n: int) -> judge.Scratch:
        cores = os.cpu_count() or 2
        return judge.Scratch(ROOT, self.a.scratch_root / f"job{n}", PRESET, max(1, cores // self.a.jobs),
                             self.dir / f"scratch-job{n}.log")

    def plan(self, first: judge.Scratch) -> list[mutants.Mutant]:
        """The run's mutants: from plan.jsonl when resuming, else sites found and sampled."""
        plan_file = self.dir / "plan.jsonl"
        if plan_file.exists():
            return [mutants.Mutant.from_json(json.loads(l)) for l in plan_file.read_text().splitlines() if l]
        if self.a.control:
            m = mutant_control.control_mutant(first.path, self.a.control)
            log(f"positive control: zoo defect {self.a.control} planted as {m.id}: {m.before}  ->  {m.after}")
            fuzzlib.atomic_write(plan_file, (json.dumps(m.to_json()) + "\n").encode())
            return [m]
        t0 = time.time()
        sites = mutants.find_sites(first.path, first.build_dir / "compile_commands.json",
                                   ROOT / "build" / "mutate" / "sites", jobs=os.cpu_count() or 1, progress=log)
        chosen = mutants.select(sites, self.a.files, self.a.operators)
        if self.a.mutant:
            ids = {m.id: m for m in sites}
            missing = [i for i in self.a.mutant if i not in ids]
            if missing:
                raise UsageError(f"--mutant {missing[0]}: no such site (scripts/mutate --list shows them)")
            chosen = [ids[i] for i in dict.fromkeys(self.a.mutant)]  # each once, in the order given
        elif not chosen:
            raise UsageError("no site matches --files/--operators")
        by_op = {}
        for m in sites:
            by_op[m.op] = by_op.get(m.op, 0) + 1
        log(f"{len(sites)} sites in {len({m.file for m in sites})} files ({time.time() - t0:.0f} s): "
            + " ".join(f"{k}={v}" for k, v in sorted(by_op.items())) + f"; {len(chosen)} selected")
        if self.a.diff:
            lines = changed_lines(self.a.diff, self.a.commit)
            chosen = [m for m in chosen if touches(m, lines.get(m.file, set()), first.path)]
            log(f"--diff {self.a.diff}: {sum(len(v) for v in lines.values())} changed lines in {len(lines)} files of "
                f"stack/; {len(chosen)} mutants on them")
            if not chosen:
                raise UsageError(f"--diff {self.a.diff}: no mutant on the lines of stack/ changed since it")
        whole = self.a.mutant or self.a.all or self.a.diff
        picked = chosen if self.a.mutant else mutants.sample(chosen, None if whole else self.a.sample, self.a.seed)
        fuzzlib.atomic_write(plan_file, "".join(json.dumps(m.to_json()) + "\n" for m in picked).encode())
        return picked

    def baseline(self, s: judge.Scratch) -> None:
        """All tests once on the unmutated tree: they must pass; their times order the judge."""
        work = self.dir / "baseline"
        saved = self.dir / "baseline.tsv"
        times = {r["test"]: float(r["seconds"]) for r in read_tsv(saved) if r.get("result") == "pass"}
        todo = self.tests + (self.unit_tests if self.a.with_unit else [])
        if times and all(t.name in times for t in todo):
            log(f"baseline: {len(todo)} tests passed before (baseline.tsv)")
        else:
            log(f"baseline: running {len(todo)} tests on the unmutated tree")
            rows, t0 = [], time.time()

            def seen(t, took, failed):
                rows.append((t.name, took, "fail" if failed else "pass"))

            v = judge.run_tests(todo, work, None, stop_at_first=False, extra_env=self.unit_env(),
                                on_result=seen)
            fuzzlib.atomic_write(saved, ("test\tseconds\tresult\n" + "".join(
                f"{n}\t{t:.3f}\t{r}\n" for n, t, r in rows)).encode())
            bad = [n for n, _, r in rows if r == "fail"]
            if v.failed or bad:
                hint = (" (CCACHE_BASEDIR is set: gcc's __FILE__ is then a relative path, and a test that "
                        "finds files from __FILE__ fails; unset it for this run)"
                        if os.environ.get("CCACHE_BASEDIR") else "")
                raise BaselineError(f"the unmutated tree fails {len(bad) or 1} test(s) of the judge "
                                    f"({', '.join(bad[:5]) or v.test}: {v.message}); fix them first: a mutant "
                                    f"can only be judged against a passing baseline{hint} (logs: {work})")
            times = {n: t for n, t, _ in rows}
            log(f"baseline: {len(rows)} tests pass in {time.time() - t0:.1f} s")
        for t in self.tests + self.unit_tests:
            t.seconds = times.get(t.name, 0.0)
        # cheapest first; times to a tenth of a second, ties by name, so that timing noise
        # between runs seldom changes which test is the first to fail
        self.tests.sort(key=lambda t: (round(t.seconds, 1), t.name))
        self.unit_tests.sort(key=lambda t: (round(t.seconds, 1), t.name))
        if self.a.timeout is None:
            self.a.timeout = 60 + 3 * sum(t.seconds for t in self.tests)
        self.unit_timeout = 60 + 3 * sum(t.seconds for t in self.unit_tests)
        log(f"judge: {len(self.tests)} tests (property, replay{', corpus' if self.a.corpus else ''}; positive "
            f"controls left out), {sum(t.seconds for t in self.tests):.1f} s when all pass; time limit "
            f"{self.a.timeout:.0f} s per mutant")

    def unit_env(self) -> dict:
        return {"STACKCHECK_STRESS_REPEATS": os.environ.get("STACKCHECK_STRESS_REPEATS", "2")}

    def prepare(self, s: judge.Scratch, first: bool) -> None:
        s.setup(self.a.commit)
        blog = self.dir / f"build-{s.path.name}.log"
        log(f"{s.path.name}: building preset {PRESET} in {s.path} (log: {blog})")
        t0 = time.time()
        if not s.build(None if first or self.a.with_unit else self.targets or None, blog):
            raise UsageError(f"the unmutated tree does not build in {s.path} ({judge.tail(blog)}; log: {blog})")
        log(f"{s.path.name}: built in {time.time() - t0:.0f} s")
        if first:
            self.tests = judge.judge_tests(judge.list_tests(s.build_dir, "property") +
                                           judge.list_tests(s.build_dir, "replay"))
            if self.a.corpus:
                self.tests += judge.corpus_tests(s.build_dir, self.a.corpus)
            if not self.tests:
                raise UsageError(f"ctest in {s.build_dir} lists no property or replay test")
            self.targets = judge.targets_of(self.tests, s.build_dir)
            bin_dir = (s.build_dir / "bin").resolve()
            if any(Path(t.command[0]).resolve().parent != bin_dir for t in self.tests):
                self.targets = []  # a script among them: its binaries are unknown, build them all
            if self.a.with_unit:
                self.unit_tests = self.list_unit_tests(s.build_dir)

    def list_unit_tests(self, build_dir: Path) -> list[judge.Test]:
        """The unit label's tests that run stack/ code (not the scripts' and the report tool's)."""
        return [t for t in judge.list_tests(build_dir, "unit")
                if not t.name.startswith(("scripts/", "report", "Render.", "Tsv.", "Svg.", "Text."))
                and "report_test" not in t.command[0]]

    def targets_for(self, s: judge.Scratch) -> list[str] | None:
        """What the schemata build builds: the binaries of the judging tests, the property suites
        (`*_props`) and the replay drivers (`*_replay`), read from the configured build's targets;
        everything when --with-unit asks for the unit label too, or when the build names none."""
        if self.a.with_unit:
            return None
        p = subprocess.run(["ninja", "-C", str(s.build_dir), "-t", "targets", "all"], capture_output=True, text=True)
        names = sorted({m.group(1) for m in re.finditer(r"^(\w+_(?:props|replay)): phony$", p.stdout, re.M)
                        if not m.group(1).startswith("cmake_")})
        return names or None

    def tests_in(self, s: judge.Scratch, tests: list[judge.Test]) -> list[judge.Test]:
        """The tests (listed in job1's clone) as they run in scratch s: its own binaries."""
        first = self.a.scratch_root / "job1"
        return tests if s.path == first else judge.rebased(tests, first, s.path)

    def judge_one(self, s: judge.Scratch, m: mutants.Mutant) -> dict:
        work = s.path / "build" / "mutate-work"
        src = s.path / m.file
        original = src.read_bytes()
        mutated = m.apply(original)
        tu = m.file in s.entries and not self.a.no_tce  # a header site: no object-code comparison
        original_obj = s.original_object(m.file) if tu else b""
        row = {"tce_s": "-", "build_s": "-", "test_s": "-", "unit": "-"}
        blog = work / "build.log"
        work.mkdir(parents=True, exist_ok=True)
        blog.write_bytes(b"")
        try:
            s.apply(m.file, mutated)
            if tu:
                t1 = time.time()
                ok = judge.compile_object(s.compile_entry(m.file), out=work / "tce.o", log=blog)
                row["tce_s"] = f"{time.time() - t1:.1f}"
                if not ok:
                    return {**row, "outcome": BUILD_FAIL, "message": judge.tail(blog, r"error: ")}
                if judge.same_object(judge.stripped(work / "tce.o"), original_obj):
                    return {**row, "outcome": EQUIVALENT, "message": "same object code (debug info stripped)"}
            t1 = time.time()
            ok = s.build(self.targets or None, blog)
            row["build_s"] = f"{time.time() - t1:.1f}"
            if not ok:
                return {**row, "outcome": BUILD_FAIL, "message": judge.tail(blog, r"error: ")}
            t1 = time.time()
            mine = hunted.for_mutant(self.tests, m)  # not the inputs hunted for m itself
            v = judge.run_tests(self.tests_in(s, mine), work / "tests", self.a.timeout)
            row["test_s"] = f"{time.time() - t1:.1f}"
            if v.failed:
                out = {**row, "outcome": TIMEOUT if v.timed_out else KILLED, "killer": v.test,
                       "oracle": v.oracle if not v.timed_out else "timeout", "rule": v.rule, "message": v.message}
                return out
            if self.a.with_unit:
                # every target: some unit tests are scripts running binaries they name by folder
                if not s.build(None, blog):
                    row["unit"] = "unit build failed"
                else:
                    u = judge.run_tests(self.tests_in(s, self.unit_tests), work / "unit", self.unit_timeout,
                                        extra_env=self.unit_env())
                    row["unit"] = "no" if not u.failed else f"{u.test} (timeout)" if u.timed_out else u.test
            return {**row, "outcome": SURVIVED, "message": "no judge test failed"}
        finally:
            s.revert(m.file, original)

    def worker(self, s: judge.Scratch, queue: list[mutants.Mutant], errors: list) -> None:
        while not self.stop:
            with self.lock:
                if not queue:
                    return
                m = queue.pop(0)
            try:
                t0 = time.time()
                r = self.judge_one(s, m)
                r["seconds"] = f"{time.time() - t0:.1f}"
                self.record(m, r)
            except Exception as e:  # noqa: BLE001 -- one line for the user, the run stops
                errors.append(f"{m.id}: {type(e).__name__}: {e}")
                log(f"{s.path.name}: stopping the run: {errors[-1]}")
                self.stop += 1
                return

    def run(self) -> int:
        self.dir.mkdir(parents=True, exist_ok=True)
        log(f"run folder {self.dir}; seed {self.a.seed}; commit {self.a.commit[:12]}")
        log(f"repeat: {self.a.command}")
        first = self.scratch(1)
        first.setup(self.a.commit)
        planned = self.plan(first)
        self.total = len(planned)
        todo = self.pending(planned)
        if len(todo) < len(planned):
            log(f"resuming: {len(planned) - len(todo)} of {len(planned)} mutants done before")
        self.write_run("running")
        if todo and self.a.mode == "schemata":
            todo = self.run_schemata(planned, todo)
            if todo and not self.stop:
                log(f"one at a time: {len(todo)} mutants the schemata build could not hold")
        if todo and not self.stop:
            t0 = time.time()
            self.prepare(first, True)
            self.baseline(first)
            scratches = [first]
            for n in range(2, min(self.a.jobs, len(todo)) + 1):
                s = self.scratch(n)
                self.prepare(s, False)
                scratches.append(s)
            errors = judge.in_threads(self.worker, [(s, todo) for s in scratches])
            if errors:
                log(f"stopped: {errors[0]}")
            self.phase["one at a time"] = time.time() - t0
        status = "complete" if len(self.done) >= self.total and not self.stop else "interrupted"
        self.finish(planned, status)
        if status != "complete":
            log(f"interrupted: {len(self.done)} of {self.total} done; resume with: scripts/mutate --resume {self.dir}")
            return 1
        if self.a.control:
            r = self.done.get(planned[0].id, {})
            if r.get("outcome") not in (KILLED, TIMEOUT):
                log(f"positive control FAILED: zoo defect {self.a.control} planted in the dev build came out "
                    f"{r.get('outcome', 'unjudged')} ({r.get('message', '-')}): the judge cannot see a fault the harness "
                    f"is known to catch")
                return 1
            log(f"positive control holds: zoo defect {self.a.control} KILLED by {r['killer']} ({r['oracle']}/{r['rule']})")
        return 0

    def run_schemata(self, planned: list[mutants.Mutant], todo: list[mutants.Mutant]) -> list[mutants.Mutant]:
        """Judges through schemata builds (one, or one per chunk of files when the run is large,
        each in its own folder chunk-NN/); returns what no build could hold."""
        groups = mutate_schemata.chunks(planned)
        waiting = {m.id for m in todo}
        left: list[mutants.Mutant] = []
        for k, group in enumerate(groups, 1):
            mine = [m for m in group if m.id in waiting]
            if not mine or self.stop:
                continue
            folder = self.dir / f"chunk-{k:02d}" if len(groups) > 1 else self.dir
            if len(groups) > 1:
                log(f"schemata chunk {k} of {len(groups)}: {len(mine)} of its {len(group)} mutants to judge, "
                    f"{len({m.file for m in group})} files ({folder})")
            try:
                left += mutate_schemata.SchemataJudge(self, folder).run(group, mine)
            except mutate_schemata.SchemataError as e:
                raise BaselineError(str(e))
        return left

    def pending(self, planned: list[mutants.Mutant]) -> list[mutants.Mutant]:
        """The planned mutants results.tsv does not hold yet (a resumed run skips the rest)."""
        return [m for m in planned if m.id not in self.done]

    # -- the end: tables, report, summary ----------------------------------------------------

    def write_run(self, status: str) -> None:
        commit = self.a.commit
        run = {"kind": "mutate", "title": "stackcheck mutation analysis", "seed": str(self.a.seed),
               "started": self.a.stamp, "finished": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
               "jobs": str(self.a.jobs), "command": self.a.command, "commit": commit, "cores": str(os.cpu_count()),
               "status": status, "sample": (f"{len(self.a.mutant)} named (--mutant)" if self.a.mutant else "all" if self.a.all
                          else f"the lines changed since {self.a.diff}" if self.a.diff else str(self.a.sample)), "files": " ".join(self.a.files) or "stack/",
               "operators": " ".join(self.a.operators) or " ".join(mutants.OPERATORS),
               "time_limit_s": f"{self.a.timeout:.0f}" if self.a.timeout else "auto",
               "rc_params": os.environ.get("RC_PARAMS", judge.RC_SEED)}
        if self.a.corpus:
            run["corpus"] = str(self.a.corpus)
        fuzzlib.atomic_write(self.dir / "run.tsv",
                             ("key\tvalue\n" + "".join(f"{k}\t{clean(v)}\n" for k, v in run.items())).encode())

    def finish(self, planned: list[mutants.Mutant], status: str) -> None:
        argued = read_equivalents(self.a.equivalents)
        order = {m.id: i for i, m in enumerate(planned)}
        rows = sorted(self.done.values(), key=lambda r: order.get(r["id"], 1 << 30))
        cols = COLUMNS + ["argued", "observable"]
        try:
            table = mutate_report.read_observables()
        except ValueError as e:
            log(f"observables map: {e}")
            table = []
        body = "\t".join(cols) + "\n" + "".join(
            "\t".join([*(r[k] for k in COLUMNS), clean(argued.get(r["id"], "-") if r["outcome"] == SURVIVED else "-"),
                        clean(mutate_report.observable_of(r, table) if r["outcome"] in (SURVIVED, NOT_REACHED) else "-")])
            + "\n" for r in rows)
        fuzzlib.atomic_write(self.dir / "mutants.tsv", body.encode())
        self.write_run(status)
        tool = next((p for p in (self.a.scratch_root / "job1" / "build" / PRESET / "bin" / "stackcheck-report",
                                 ROOT / "build" / PRESET / "bin" / "stackcheck-report") if p.exists()), None)
        if tool:
            p = subprocess.run([str(tool), str(self.dir)], capture_output=True, text=True)
            if p.returncode != 0:
                log(f"report: {p.stderr.strip()}")
        else:
            log("report: no stackcheck-report built; the tables are in the run folder")
        mutate_report.summary(rows, argued, self.dir, self.a, self.phase)


class BaselineError(Exception):
    pass


def changed_lines(base: str, commit: str) -> dict[str, set[int]]:
    """The lines of stack/ files added or changed between `base` and `commit` (their numbers
    in `commit`'s files), from git diff -U0."""
    p = subprocess.run(["git", "diff", "-U0", "--no-color", "--no-ext-diff", base, commit, "--", "stack"], cwd=ROOT,
                       capture_output=True, text=True)
    if p.returncode != 0:
        raise UsageError(f"--diff {base}: git diff failed: {p.stderr.strip()[:200]}")
    out: dict[str, set[int]] = {}
    cur = None
    for line in p.stdout.splitlines():
        if line.startswith("+++ "):
            cur = line[6:] if line.startswith("+++ b/") else None
        elif line.startswith("@@") and cur:
            m = re.match(r"@@ -\S+ \+(\d+)(?:,(\d+))? @@", line)
            if m:
                start, n = int(m.group(1)), int(m.group(2) if m.group(2) is not None else 1)
                out.setdefault(cur, set()).update(range(start, start + n))
    return {f: v for f, v in out.items() if v}


def touches(m: mutants.Mutant, lines: set[int], root: Path) -> bool:
    """Whether any line a mutant edits is among `lines`."""
    if not lines:
        return False
    src = mutants.Source((root / m.file).read_bytes())
    return any(ln in lines for s, e, _ in m.edits
               for ln in range(src.line_col(s)[0], src.line_col(max(s, e - 1))[0] + 1))


# ---------------------------------------------------------------------------------------------
# The command line


def positive(kind):
    return fuzzlib.number_arg(kind, positive=True)


def operator_list(s: str) -> list[str]:
    ops = [o for o in re.split(r"[,\s]+", s) if o]
    for o in ops:
        if o not in mutants.OPERATORS:
            raise argparse.ArgumentTypeError(f"unknown operator '{o}' (have: {' '.join(mutants.OPERATORS)})")
    return ops


def folder(s: str) -> Path:
    p = Path(s).resolve()
    if not p.is_dir():
        raise argparse.ArgumentTypeError(f"no such folder: {s}")
    return p


def parser() -> argparse.ArgumentParser:
    p = fuzzlib.ArgParser(prog="scripts/mutate", description="Mutation analysis of stack/: plant one fault at a "
                            "time in a scratch clone of HEAD and judge it by the harness alone (property + replay "
                            "tests).")
    p.add_argument("--sample", type=positive(int), default=1000, help="mutants to draw from the selected sites "
                   "(default 1000: a score to about +-2.5 points; a sample as large as the sites takes every one)")
    p.add_argument("--all", action="store_true", help="judge every selected site (resumable with --resume)")
    p.add_argument("--diff", default=None, metavar="BASE",
                   help="judge every mutant on the lines of stack/ changed since the git revision BASE (a change's "
                        "own check before it lands)")
    p.add_argument("--mode", choices=MODES, default="schemata",
                   help="schemata (default): every mutant in one build behind a run-time switch, judged by the "
                        "tests that reach its site; one-at-a-time: a build per mutant, every test")
    p.add_argument("--compare", nargs=2, type=folder, default=None, metavar=("RUN_A", "RUN_B"),
                   help="compare the verdicts of two finished runs over the same mutants and exit (0 when every "
                        "verdict agrees, 1 otherwise)")
    p.add_argument("--seed", type=int, default=None, help="seed of the sample (default: the time; printed)")
    p.add_argument("--files", action="append", default=[], metavar="GLOB",
                   help="only sites in files matching a glob over repository paths, e.g. 'stack/runtime/*' "
                        "(repeatable or comma separated)")
    p.add_argument("--operators", type=operator_list, default=[], metavar="LIST",
                   help=f"only these operators, comma separated ({', '.join(mutants.OPERATORS)})")
    p.add_argument("--mutant", action="append", default=[], metavar="ID",
                   help="judge exactly this mutant id (file:line:col:operator:replacement; repeatable)")
    p.add_argument("--control", default=None, metavar="DEFECT",
                   help="the positive control: plant the zoo defect DEFECT (a STACKCHECK_DEFECT name whose switches "
                        "lie in one file, e.g. status_negated) as a mutant, its `defects::active(...)` switches "
                        "replaced by true, and judge it like any other; exit 1 unless it comes out KILLED")
    p.add_argument("--jobs", type=positive(int), default=None, help="mutants at a time, one scratch clone each "
                   "(default 1)")
    p.add_argument("--timeout", type=positive(float), default=None, metavar="SECONDS",
                   help="time limit of one mutant's tests (default 60 + 3x the baseline's; one test may take "
                        "10x its baseline time, 5 s at least): past it, TIMEOUT")
    p.add_argument("--corpus", type=folder, default=None, metavar="DIR",
                   help="also replay a campaign corpus (DIR/<target>/...) through each target's replay driver")
    p.add_argument("--with-unit", action="store_true",
                   help="run the unit label on survivors: does a unit test catch what the harness does not?")
    p.add_argument("--no-tce", action="store_true", help="skip trivial compiler equivalence (object compare)")
    p.add_argument("--whole-tests", action="store_true",
                   help="schemata mode: run every case of a reached property, not only the cases that reached the "
                        "mutant's site (the check of the per-case plans)")
    p.add_argument("--list", action="store_true", help="print the selected sites (id, function, diff) and exit")
    p.add_argument("--resume", type=folder, default=None, metavar="DIR",
                   help="continue an earlier run in its folder (its sample; done mutants are skipped), or from a "
                        "checkpoint --save wrote into the tree (copied to <out>/<its timestamp> first)")
    p.add_argument("--save", type=folder, default=None, metavar="RUN_DIR",
                   help="checkpoint a run into the tree (scripts/mutate_runs/<its timestamp>: args.json "
                        "and results.tsv, to commit) so a later machine continues it with --resume, and exit")
    p.add_argument("--hunt", type=folder, default=None, metavar="RUN_DIR",
                   help="hunt the survivors of a run with libFuzzer: each one's switch on in a fuzz-fast schemata "
                        "build, a short fuzz_props campaign per survivor; a confirmed kill's input is promoted to "
                        "corpus/fuzz_props/ naming the mutant (it never counts toward that mutant's own kill)")
    p.add_argument("--no-hunted", action="store_true",
                   help="leave every hunted input (corpus files with a `# hunted-for` line) out of the judge: the "
                        "score of the harness without what --hunt added")
    p.add_argument("--hunt-seconds", type=positive(float), default=30.0, metavar="S",
                   help="--hunt: libFuzzer time per survivor (default 30), split over its properties")
    p.add_argument("--hunt-props", type=positive(int), default=2, metavar="N",
                   help="--hunt: at most N of the properties that reach a survivor (default 2)")
    p.add_argument("--hunt-max", type=positive(int), default=None, metavar="N",
                   help="--hunt: at most N survivors, drawn with --seed (default every one)")
    p.add_argument("--out", default=str(ROOT / "build" / "mutate"),
                   help="parent of the run folders (default build/mutate; a run is <out>/<timestamp>)")
    p.add_argument("--scratch", default=str(ROOT / "build" / "mutate" / "scratch"),
                   help="where the scratch clones live (default build/mutate/scratch/jobN)")
    p.add_argument("--equivalents", type=Path, default=EQUIVALENTS,
                   help="the argued equivalents, id<TAB>reason (default scripts/mutate_equivalents.tsv)")
    return p


SAVED = ("sample", "seed", "files", "operators", "mutant", "control", "corpus", "with_unit", "no_tce", "timeout", "jobs",
         "all", "diff", "mode", "whole_tests", "no_hunted")


def resolve(argv: list[str]) -> argparse.Namespace:
    p = parser()
    a = p.parse_args(argv)
    a.files = [g for spec in a.files for g in spec.split(",") if g]
    for d, what in ((a.out, "--out"), (a.scratch, "--scratch")):
        out = Path(d).resolve()
        if ROOT in out.parents and ROOT / "build" not in [out, *out.parents]:
            p.error(f"{what} {d}: the mutation job never writes into the source tree (use build/...)")
    a.scratch_root = Path(a.scratch).resolve()
    if a.save:
        return a
    if a.hunt:
        if not (a.hunt / "args.json").exists() or not (a.hunt / "results.tsv").exists():
            p.error(f"--hunt {a.hunt}: not a mutate run folder (no args.json or results.tsv)")
        a.seed = a.seed if a.seed is not None else int(time.time()) % 1_000_000_007
        a.jobs = a.jobs or os.cpu_count() or 1
        a.equivalents = a.equivalents.resolve()
        return a
    if a.resume and ROOT in a.resume.parents and ROOT / "build" not in a.resume.parents:
        a.resume = mutate_checkpoint.restore(p, a.resume, Path(a.out).resolve())
    if a.resume:
        saved = a.resume / "args.json"
        if not saved.exists():
            p.error(f"--resume {a.resume}: not a mutate run folder (no args.json)")
        old = json.loads(saved.read_text())
        given = {k for k in SAVED if any(x == f"--{k.replace('_', '-')}" or x.startswith(f"--{k.replace('_', '-')}=")
                                         for x in argv)}
        for k in SAVED:
            if k in given and k not in ("jobs", "timeout"):
                p.error(f"--resume takes the run's own --{k.replace('_', '-')}; only --jobs and --timeout may change")
            if k not in given:
                setattr(a, k, old.get(k))
        a.corpus = Path(a.corpus) if a.corpus else None
        a.run_dir = a.resume
        a.stamp = old.get("stamp", "")
        a.saved_commit = old.get("commit")
    else:
        if a.seed is None:
            a.seed = int(time.time()) % 1_000_000_007
        a.stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        a.run_dir = Path(a.out).resolve() / time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    a.mode = a.mode or "one-at-a-time"  # a run folder from before the schemata mode
    a.jobs = a.jobs or (os.cpu_count() or 1 if a.mode == "schemata" else 1)
    a.equivalents = a.equivalents.resolve()
    if sum(bool(x) for x in (a.all, a.diff, a.mutant, a.control)) > 1:
        p.error("--all, --diff, --mutant and --control each choose the mutants: give one of them")
    if a.control and (a.mutant or a.list):
        p.error("--control judges the planted zoo defect alone: not with --mutant or --list")
    whole = a.mutant or a.control or a.all or a.diff
    cmd = ["scripts/mutate", *([] if whole else ["--sample", str(a.sample)]), "--seed", str(a.seed),
           "--jobs", str(a.jobs)]
    cmd += ["--all"] if a.all else []
    cmd += ["--diff", a.diff] if a.diff else []
    cmd += ["--mode", a.mode] if a.mode != "schemata" else []
    cmd += ["--control", a.control] if a.control else []
    cmd += [x for g in a.files for x in ("--files", g)]
    cmd += ["--operators", ",".join(a.operators)] if a.operators else []
    cmd += [x for i in a.mutant for x in ("--mutant", i)]
    cmd += ["--corpus", str(a.corpus)] if a.corpus else []
    cmd += ["--with-unit"] if a.with_unit else []
    cmd += ["--no-tce"] if a.no_tce else []
    cmd += ["--whole-tests"] if a.whole_tests else []
    cmd += ["--no-hunted"] if a.no_hunted else []
    cmd += ["--timeout", f"{a.timeout:g}"] if a.timeout else []
    a.command = " ".join(f"'{c}'" if any(ch in c for ch in "*?[ ") else c for c in cmd)
    p2 = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    if p2.returncode != 0:
        p.error(f"{ROOT} is not a git checkout: the scratch clones are made from its HEAD")
    a.commit = p2.stdout.strip()
    if a.resume and getattr(a, "saved_commit", None):
        a.commit = a.saved_commit  # a resumed run judges the commit it began on, wherever HEAD is now
    if a.diff and subprocess.run(["git", "rev-parse", "--verify", "--quiet", f"{a.diff}^{{commit}}"], cwd=ROOT,
                                 capture_output=True).returncode != 0:
        p.error(f"--diff {a.diff}: no such commit in {ROOT}")
    return a


def hunt(a: argparse.Namespace) -> int:
    return mutate_hunt.main(a, log, read_equivalents(a.equivalents))


def list_sites(a: argparse.Namespace) -> int:
    # a clone of its own (configured, not built), so a run going on in job1 is left alone
    s = judge.Scratch(ROOT, a.scratch_root / "list", PRESET, os.cpu_count() or 1, Path(os.devnull))
    s.setup(a.commit)
    sites = mutants.find_sites(s.path, s.build_dir / "compile_commands.json", ROOT / "build" / "mutate" / "sites",
                               jobs=os.cpu_count() or 1, progress=log)
    chosen = mutants.select(sites, a.files, a.operators)
    for m in chosen:
        print(f"{m.id}\t{m.function or '-'}\t{m.before}\t{m.after}")
    log(f"{len(chosen)} of {len(sites)} sites")
    return 0


def main(argv: list[str]) -> int:
    a = resolve(argv)
    try:
        if a.compare:
            return mutate_report.compare_runs(a.compare, read_equivalents(a.equivalents))
        if a.save:
            return mutate_checkpoint.save_run(a)
        if a.hunt:
            return hunt(a)
        if a.list:
            return list_sites(a)
        a.run_dir.mkdir(parents=True, exist_ok=True)
        if not (a.run_dir / "args.json").exists():
            saved = {k: getattr(a, k) for k in SAVED}
            saved["corpus"] = str(a.corpus) if a.corpus else None
            saved["stamp"] = a.stamp
            saved["commit"] = a.commit
            fuzzlib.atomic_write(a.run_dir / "args.json", json.dumps(saved, indent=1).encode())
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no", "stack"], cwd=ROOT,
                               capture_output=True, text=True).stdout.strip()
        if dirty:
            log("note: stack/ has uncommitted changes; the scratch clones are of HEAD, without them")
        hunted.NONE_COUNT = bool(a.no_hunted)
        r = Run(a)

        def on_signal(sig, frame):
            r.stop += 1
            if r.stop == 1:
                log("stopping after the running mutants (again to stop now; --resume continues)")
            else:
                judge.kill_running()  # the builds and tests it started run in sessions of their own
                os._exit(1)

        signal.signal(signal.SIGINT, on_signal)
        signal.signal(signal.SIGTERM, on_signal)
        return r.run()
    except (UsageError, mutants.EngineError) as e:
        log(str(e))
        return 2
    except BaselineError as e:
        log(f"baseline: {e}")
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
