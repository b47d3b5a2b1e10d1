"""scripts/mutate's schemata judge: one build for every mutant of a run, a reach map, and each
mutant judged by the tests that run its site (HARNESS.md §10, "At scale").

1. Build. Every planned mutant is written into one scratch clone (build/mutate/scratch/schemata)
   behind its switch (schemata.py); the clone builds once with the switch's prelude included
   into every TU. A schema the compiler refuses is taken out by its error locations and the
   build goes again (ninja -k 0, at most EJECT_ROUNDS rounds); its mutants, and those whose spans
   overlap another's in part, are judged one at a time afterwards (mutate.py's path).
2. Baseline and reach. Every judging test runs once with no mutant active: it must pass (else
   the run stops), its time orders the judge, and the switches it reached (STACKCHECK_MUTANT_REACH)
   make the reach map (reach.json: test -> switch ids; a test whose processes wrote nothing is
   taken to reach every site).
3. Judge. A mutant runs, with STACKCHECK_MUTANT=<its switch>, only the tests that reached its
   site, cheapest first, stopping at the first failure; the time limits are the one-at-a-time
   mode's (a test 10x its baseline time, 5 s at least; the mutant 60 s + 3x its tests'). No test
   reached it: NOT REACHED, not run. A survivor (or a mutant not reached) of a TU's own file is
   compiled alone in a plain clone and compared with the unmutated object (trivial compiler
   equivalence), as in the one-at-a-time mode. RapidCheck does not shrink here (noshrink=1): a
   failure is a kill either way.
"""

from __future__ import annotations

import collections
import dataclasses
import json
import os
import shutil
import threading
import time
from pathlib import Path

import fuzzlib
import judge
import mutants
import hunted
import schemata
import tce
from fuzzlib import UsageError
from mutate_report import NOT_REACHED

EJECT_ROUNDS = 6
SYNTAX_ROUNDS = 8
CONVERGE_ROUNDS = 40
UNIT_BUDGET = 900.0  # --with-unit: the unit label's time limit per mutant (its tests have no baseline here)


class SchemataError(Exception):
    """The schemata build cannot be made (an error no schema explains) or its baseline fails."""


# Mutants a schemata build holds at most: with every site of stack/ switched, the harness ran 4x
# slower (98 s of test time against 22-28 s with 1,000 switches: the switches cost the optimizer
# more than their own loads), so --all judges in builds of this size, a group of files each.
CHUNK = 1200


def chunks(planned: list[mutants.Mutant], size: int | None = None) -> list[list[mutants.Mutant]]:
    """The planned mutants in groups of at most `size` (CHUNK), whole files together where they
    fit (a file with more is cut into groups of its own), in plan order; one group when all fit."""
    size = size or CHUNK
    if len(planned) <= size:
        return [planned]
    by_file: dict[str, list[mutants.Mutant]] = {}
    for m in planned:
        by_file.setdefault(m.file, []).append(m)
    out: list[list[mutants.Mutant]] = [[]]
    for ms in by_file.values():
        for at in range(0, len(ms), size):
            piece = ms[at:at + size]
            if out[-1] and len(out[-1]) + len(piece) > size:
                out.append([])
            out[-1].extend(piece)
    return out


class SchemataJudge:
    def __init__(self, run, folder: Path | None = None):
        self.r = run
        self.a = run.a
        self.dir: Path = folder or run.dir  # a chunk's own folder when the run has several
        self.dir.mkdir(parents=True, exist_ok=True)
        cores = os.cpu_count() or 2
        self.prelude = self.a.scratch_root / "prelude" / schemata.PRELUDE_NAME
        self.s = judge.Scratch(run.root, self.a.scratch_root / "schemata", run.preset, cores,
                               self.dir / "scratch-schemata.log",
                               # (an empty CMAKE_CXX_FLAGS: a clone configured before may hold the prelude there)
                               cmake_args=(f"-DSTACKCHECK_PRELUDE={self.prelude}", "-DSTACKCHECK_PCH=ON",
                                           "-DCMAKE_CXX_FLAGS="),
                               # ccache serves compiles that use a precompiled header only with these
                               build_env={"CCACHE_SLOPPINESS": "pch_defines,time_macros,include_file_mtime,"
                                                               "include_file_ctime"})
        self.tests: list[judge.Test] = []
        self.planned: list[mutants.Mutant] = []  # the run's mutants, numbered from 1 (self.nums)
        self.ejected: dict[int, str] = {}  # switches the schemata build could not hold
        self.reach: dict[str, list[int] | None] = {}
        self.cases: dict[str, schemata.CaseReach] = {}  # property tests' per-case reach
        self.plans = {"runs": 0, "cases": 0, "skipped": 0, "rerun": 0, "confirmed": 0}
        self.nums: dict[str, int] = {}
        self.plain: list[judge.Scratch] = []
        self.lock = threading.Lock()
        self.tce = tce.Tce(self.a.commit, self.a.scratch_root / "tce")

    def log(self, msg: str) -> None:
        self.r.log(msg)

    # -- 1. the build ------------------------------------------------------------------------

    def ejected_file(self) -> Path:
        return self.dir / "schemata.tsv"

    def load_ejected(self) -> dict[int, str]:
        out = {}
        for row in self.r.read_tsv(self.ejected_file()):
            out[int(row["switch"])] = row["why"]
        return out

    def save_ejected(self, ejected: dict[int, str], by_num: dict[int, mutants.Mutant]) -> None:
        body = "switch\tid\twhy\n" + "".join(f"{n}\t{by_num[n].id}\t{w}\n" for n, w in sorted(ejected.items()))
        fuzzlib.atomic_write(self.ejected_file(), body.encode())

    def write(self, numbered, originals, ejected) -> dict[str, schemata.FileSchema]:
        """Writes the schemata of every mutant not taken out; a conflict is taken out here."""
        by_file: dict[str, list] = {}
        for n, m in numbered:
            if n not in ejected:
                by_file.setdefault(m.file, []).append((n, m))
        schemas = {}
        for rel, items in sorted(by_file.items()):
            fs = schemata.render(rel, originals[rel], items)
            for n in fs.conflicts:
                ejected[n] = "no schema: its span overlaps another's in part"
            path = self.s.path / rel
            if path.read_text(errors="replace") != fs.text:
                path.write_text(fs.text)
            schemas[rel] = fs
        for rel in set(originals) - set(by_file):  # every mutant of the file taken out
            if (self.s.path / rel).read_bytes() != originals[rel]:
                (self.s.path / rel).write_bytes(originals[rel])
        return schemas

    def syntax_rounds(self, numbered, originals, ejected) -> None:
        """Cheap rounds before the build: gcc -fsyntax-only over the stack/ TUs, schemata that do
        not compile taken out, again over the TUs that failed (taking a schema out never makes
        a TU fail), until none fails or no schema is to blame."""
        from concurrent.futures import ThreadPoolExecutor
        tus = sorted(rel for rel in self.s.entries if mutants.is_site_file(rel))
        reads = mutants.tu_reads(self.s.path, self.r.root / "build" / "mutate" / "sites", tus)
        written = set(originals)
        # only the TUs that read a file with schemata (every TU the site cache does not know)
        tus = [rel for rel in tus if rel not in reads or reads[rel] & written]
        for round_ in range(1, SYNTAX_ROUNDS + 1):
            schemas = self.write(numbered, originals, ejected)
            t0 = time.time()
            with ThreadPoolExecutor(os.cpu_count() or 2) as pool:
                results = list(pool.map(lambda rel: (rel, *judge.syntax_check(self.s.entries[rel])), tus))
            failed = [(rel, out) for rel, ok, out in results if not ok]
            ids, _ = schemata.blame([out for _, out in failed], schemas, self.s.path, self.s.build_dir)
            ids -= set(ejected)
            self.log(f"schemata: syntax check of {len(tus)} TUs in {time.time() - t0:.0f} s (round {round_}): "
                     f"{len(failed)} fail, {len(ids)} schemata to blame")
            for n in ids:
                ejected[n] = "its schema does not compile"
            if not failed or not ids:
                return
            tus = [rel for rel, _ in failed]
            # Blame takes one error a TU per round; a TU with many bad schemata (every `return
            # {}` of a function whose type has no default) would need as many rounds: each
            # failed TU converges alone first, at a second or two a check.
            for rel in tus:
                self.converge(rel, numbered, originals, ejected)

    def converge(self, rel: str, numbered, originals, ejected) -> None:
        """One failing TU alone, checked and its blamed schemata taken out until it compiles: a
        constant evaluation stops at the first switch it reaches, so each round of every failed
        TU would find one more site of the same header (a second's check here, not a round)."""
        t0, rounds, out = time.time(), 0, []
        for rounds in range(1, CONVERGE_ROUNDS + 1):
            schemas = self.write(numbered, originals, ejected)
            ok, text = judge.syntax_check(self.s.entries[rel])
            ids, _ = schemata.blame([text], schemas, self.s.path, self.s.build_dir) if not ok else (set(), [])
            ids -= set(ejected)
            for n in ids:
                ejected[n] = "its schema does not compile"
            out += ids
            if ok or not ids:
                break
        self.log(f"schemata: {rel} checked alone {rounds} time(s) in {time.time() - t0:.0f} s: "
                 f"{len(out)} more schemata to blame")

    def build(self, numbered: list[tuple[int, mutants.Mutant]]) -> dict[int, str]:
        """Builds the schemata clone with every mutant it can hold; returns the switch ids taken
        out, each with why (a conflict, or the compiler's error)."""
        self.prelude.parent.mkdir(parents=True, exist_ok=True)
        if not self.prelude.exists() or self.prelude.read_bytes() != schemata.PRELUDE.encode():
            fuzzlib.atomic_write(self.prelude, schemata.PRELUDE.encode())  # every TU includes it: kept if equal
        kept = keep_times(self.s.path, sorted({m.file for _, m in numbered}))
        self.s.setup(self.a.commit)
        originals = {m.file: (self.s.path / m.file).read_bytes() for _, m in numbered}
        by_num = dict(numbered)
        ejected = self.load_ejected()
        t0 = time.time()
        if not ejected:
            self.syntax_rounds(numbered, originals, ejected)
            self.save_ejected(ejected, by_num)
        targets = self.r.targets_for(self.s)
        for round_ in range(1, EJECT_ROUNDS + 1):
            schemas = self.write(numbered, originals, ejected)
            if round_ == 1:
                restore_times(self.s.path, kept)
            blog = self.dir / f"schemata-build-{round_}.log"
            blog.write_bytes(b"")
            self.log(f"schemata: building {sum(n not in ejected for n, _ in numbered)} mutants in {len(schemas)} "
                     f"files, {len(targets or [])} targets (round {round_}; log {blog})")
            if self.s.build(targets, blog, keep_going=True):
                self.save_ejected(ejected, by_num)
                self.originals, self.targets = originals, targets
                self.built = {rel: (self.s.path / rel).read_bytes() for rel in originals}
                self.log(f"schemata: built in {time.time() - t0:.0f} s; {len(ejected)} mutants left to the "
                         f"one-at-a-time build")
                return ejected
            log_text = blog.read_text(errors="replace")
            ids, unblamed = schemata.blame(schemata.tu_outputs(log_text), schemas, self.s.path, self.s.build_dir)
            ids -= set(ejected)
            if not ids:
                where = ", ".join(unblamed[:3]) or judge.tail(blog)
                raise SchemataError(f"the schemata build fails where no schema is ({where}; log {blog})")
            for n in ids:
                ejected[n] = "its schema does not compile"
            self.log(f"schemata: {len(ids)} schemata do not compile; taken out ({len(ejected)} in all)")
            for rel in schemata.failed_sources(log_text):  # each failed TU converges alone (as in syntax_rounds)
                if rel in self.s.entries:
                    self.converge(rel, numbered, originals, ejected)
            self.save_ejected(ejected, by_num)
        raise SchemataError(f"the schemata build still fails after {EJECT_ROUNDS} rounds (logs in {self.dir})")

    # -- 2. baseline and reach ---------------------------------------------------------------

    def list_tests(self) -> list[judge.Test]:
        bd = self.s.build_dir
        tests = judge.judge_tests(judge.list_tests(bd, "property") + judge.list_tests(bd, "replay"))
        if self.a.corpus:
            tests += judge.corpus_input_tests(bd, self.a.corpus)
        if not tests:
            raise UsageError(f"ctest in {bd} lists no property or replay test")
        return tests

    def baseline(self) -> None:
        saved, reach_file = self.dir / "schemata-baseline.tsv", self.dir / "reach.json"
        cases_file = self.dir / "reach_cases.json"
        self.tests = self.list_tests()
        times = {r["test"]: float(r["seconds"]) for r in self.r.read_tsv(saved) if r.get("result") == "pass"}
        if times and reach_file.exists() and all(t.name in times for t in self.tests):
            self.reach = json.loads(reach_file.read_text())
            if cases_file.exists():
                self.cases = {k: schemata.CaseReach.from_json(v) for k, v in json.loads(cases_file.read_text()).items()}
            self.log(f"schemata baseline: {len(self.tests)} tests passed before, reach map from {reach_file}")
        else:
            self.log(f"schemata baseline: running {len(self.tests)} tests with no mutant active, recording reach")
            t0 = time.time()
            work = self.dir / "schemata-baseline"
            rows, queue = [], list(enumerate(self.tests))
            failed: list[str] = []

            def worker() -> None:
                while True:
                    with self.lock:
                        if not queue:
                            return
                        i, t = queue.pop(0)
                    rdir = work / f"reach-{i:05d}"
                    shutil.rmtree(rdir, ignore_errors=True)  # an earlier baseline's files are not this one's reach
                    rdir.mkdir(parents=True, exist_ok=True)
                    v = judge.run_tests([t], work / f"t-{i:05d}", None, extra_env={
                        "STACKCHECK_MUTANT_REACH": str(rdir), **self.env()})
                    hit = schemata.read_reach(rdir)
                    cases = schemata.read_cases(rdir) if hit is not None else None
                    with self.lock:
                        rows.append((t.name, v.seconds, "fail" if v.failed else "pass"))
                        self.reach[t.name] = sorted(hit) if hit is not None else None
                        if cases is not None:
                            self.cases[t.name] = cases
                        if v.failed:
                            failed.append(f"{t.name}: {v.message}")

            threads = [threading.Thread(target=worker, daemon=True) for _ in range(self.a.jobs)]
            for th in threads:
                th.start()
            for th in threads:
                th.join()
            fuzzlib.atomic_write(saved, ("test\tseconds\tresult\n" + "".join(
                f"{n}\t{s:.3f}\t{r}\n" for n, s, r in sorted(rows))).encode())
            if failed:
                raise SchemataError(f"with no mutant active the schemata build fails {len(failed)} test(s) "
                                    f"({'; '.join(failed[:3])}): a mutant can only be judged against a passing "
                                    f"baseline (logs: {work})")
            fuzzlib.atomic_write(cases_file, json.dumps({k: c.to_json() for k, c in self.cases.items()}).encode())
            fuzzlib.atomic_write(reach_file, json.dumps(self.reach).encode())
            times = {n: s for n, s, _ in rows}
            blind = sum(v is None for v in self.reach.values())
            self.log(f"schemata baseline: {len(rows)} tests pass in {time.time() - t0:.1f} s "
                     f"({sum(times.values()):.0f} s of test time; per-case reach of {len(self.cases)} properties)"
                     + (f"; {blind} wrote no reach (taken to reach every site)" if blind else ""))
        for t in self.tests:
            t.seconds = times.get(t.name, 0.0)
        self.tests.sort(key=lambda t: (round(t.seconds, 1), t.name))

    def env(self) -> dict:
        seed = os.environ.get("RC_PARAMS", judge.RC_SEED)
        return {"RC_PARAMS": f"{seed} noshrink=1", **self.r.unit_env()}

    def reaching(self, n: int) -> list[judge.Test]:
        return [t for t in self.tests if self.reach.get(t.name) is None or n in self.reach_sets[t.name]]

    # -- 3. the judge ------------------------------------------------------------------------

    def plain_scratch(self, k: int) -> judge.Scratch:
        """A configured, unbuilt clone at the commit for trivial compiler equivalence (job<k>)."""
        s = self.r.scratch(k)
        s.setup(self.a.commit)
        return s

    def equivalent(self, s: judge.Scratch, m: mutants.Mutant, work: Path) -> str:
        """"yes" when the mutant's TU compiles to the unmutated object code, "no" when it differs,
        "-" for a header site or with --no-tce (tce.py)."""
        if self.a.no_tce or m.file not in s.entries:
            return "-"
        return self.tce.equivalent(s, m.file, m.apply((s.path / m.file).read_bytes()), work)

    def judge_one(self, n: int, m: mutants.Mutant, plain: judge.Scratch) -> dict:
        tests = hunted.for_mutant(self.reaching(n), m)  # not the inputs hunted for m itself
        row = {"path": "schemata", "reached": str(len(tests)), "tce_s": "-", "build_s": "0", "test_s": "0",
               "unit": "-"}
        work = self.dir / "work" / f"m{n:05d}"
        if tests:
            budget = self.a.timeout or (60 + 3 * sum(t.seconds for t in tests))
            t1 = time.time()
            v = self.run_planned(n, tests, work, budget)
            row["test_s"] = f"{time.time() - t1:.1f}"
            if v.failed:
                return {**row, "outcome": judge_timeout(v), "killer": v.test,
                        "oracle": v.oracle if not v.timed_out else "timeout", "rule": v.rule, "message": v.message}
        t1 = time.time()
        same = self.equivalent(plain, m, work / "tce")
        row["tce_s"] = f"{time.time() - t1:.1f}" if same != "-" else "-"
        if same == "yes":
            return {**row, "outcome": "EQUIVALENT", "message": "same object code (debug info stripped)"}
        if self.a.with_unit:  # does a unit test catch what the harness does not?
            u = judge.run_tests(self.r.unit_tests, work / "unit", UNIT_BUDGET,
                                extra_env={**self.r.unit_env(), "STACKCHECK_MUTANT": str(n)})
            row["unit"] = "no" if not u.failed else f"{u.test} (timeout)" if u.timed_out else u.test
        if not tests:
            return {**row, "outcome": NOT_REACHED, "message": "no judging test runs its site"}
        return {**row, "outcome": "SURVIVED", "message": "no judge test failed"}

    def with_plan(self, n: int, t: judge.Test) -> judge.Test:
        """t with the case plan of switch n in its environment (only the cases that reached n
        run), or t itself when every case runs (no per-case reach, or --whole-tests)."""
        c = self.cases.get(t.name)
        plan = c.plan(n) if c is not None and not self.a.whole_tests else None
        if plan is None:
            return t
        return dataclasses.replace(t, env={**t.env, "STACKCHECK_CASE_PLAN": plan})

    def ran(self, t: judge.Test, seconds: float, failed: bool) -> None:
        """Counts the cases a planned test that ran (not one queued behind a kill) skipped."""
        plan = t.env.get("STACKCHECK_CASE_PLAN")
        if plan is not None:
            with self.lock:
                self.plans["runs"] += 1
                self.plans["cases"] += len(plan)
                self.plans["skipped"] += len(plan) - plan.count("r")

    def run_planned(self, n: int, tests: list[judge.Test], work: Path, budget: float) -> judge.Verdict:
        """The mutant's tests, cheapest first, each property with its case plan, to the first
        failure. A test that fails (or outlives its limit) under a plan runs again whole, and only
        a whole run's failure is the verdict: a skipped case can change what a property checks
        after its cases (its tally, its feature shares), never a kill."""
        env = {**self.env(), "STACKCHECK_MUTANT": str(n)}
        t0, i = time.time(), 0
        while i < len(tests):
            batch = [self.with_plan(n, t) for t in tests[i:]]
            v = judge.run_tests(batch, work / f"from-{i:04d}", budget - (time.time() - t0), extra_env=env,
                                on_result=self.ran)
            if not v.failed:
                return judge.Verdict(False, seconds=time.time() - t0)
            k = next((j for j, t in enumerate(batch) if t.name == v.test), None)
            if k is None or batch[k] is tests[i + k]:
                v.seconds = time.time() - t0
                return v
            with self.lock:
                self.plans["rerun"] += 1
            whole = judge.run_tests([tests[i + k]], work / f"whole-{i + k:04d}", budget - (time.time() - t0),
                                    extra_env=env)
            if whole.failed:
                with self.lock:
                    self.plans["confirmed"] += 1
                whole.seconds = time.time() - t0
                return whole
            i += k + 1
        return judge.Verdict(False, seconds=time.time() - t0)

    def worker(self, queue: list, plain: judge.Scratch, errors: list) -> None:
        while not self.r.stop:
            with self.lock:
                if not queue:
                    return
                n, m = queue.pop(0)
            try:
                t0 = time.time()
                row = self.judge_one(n, m, plain)
                row["seconds"] = f"{time.time() - t0:.1f}"
                row["switch"] = str(n)
                self.r.record(m, row)
            except Exception as e:  # noqa: BLE001 -- one line for the user, the run stops
                errors.append(f"{m.id}: {type(e).__name__}: {e}")
                self.log(f"schemata: stopping the run: {errors[-1]}")
                self.r.stop += 1
                return

    def run(self, planned: list[mutants.Mutant], todo: list[mutants.Mutant]) -> list[mutants.Mutant]:
        """Judges what the schemata build holds; returns the mutants left to the one-at-a-time
        build (their schema did not compile, or overlaps another's)."""
        self.nums = {m.id: i for i, m in enumerate(planned, 1)}
        self.planned = planned
        self.tce.per_file = collections.Counter(m.file for m in planned)
        if len(planned) >= schemata.MAX_SITES:
            raise UsageError(f"a schemata run holds at most {schemata.MAX_SITES - 1} mutants")
        numbered = [(self.nums[m.id], m) for m in planned]
        t0 = time.time()
        ejected = self.build(numbered)
        self.add_phase("schemata build", t0)
        t0 = time.time()
        self.baseline()
        self.add_phase("schemata baseline", t0)
        self.reach_sets = {k: set(v) for k, v in self.reach.items() if v is not None}
        fuzzlib.atomic_write(self.dir / "reached_by.tsv", ("switch\tid\ttests\n" + "".join(
            f"{self.nums[m.id]}\t{m.id}\t{' '.join(t.name for t in self.reaching(self.nums[m.id])) or '-'}\n"
            for m in planned if self.nums[m.id] not in ejected)).encode())
        self.ejected = ejected
        mine = [(self.nums[m.id], m) for m in todo if self.nums[m.id] not in ejected]
        left = [m for m in todo if self.nums[m.id] in ejected]
        if self.a.with_unit:
            self.r.unit_tests = self.r.list_unit_tests(self.s.build_dir)
        self.log(f"schemata: judging {len(mine)} mutants with {self.a.jobs} job(s); {len(left)} left to the "
                 f"one-at-a-time build")
        t0 = time.time()
        # most-reached first: the long ones start early and the queue's end is short
        mine.sort(key=lambda x: -sum(t.seconds for t in self.reaching(x[0])))
        plains = [self.plain_scratch(k) for k in range(1, self.a.jobs + 1)]
        errors = judge.in_threads(self.worker, [(mine, p) for p in plains])
        self.add_phase("schemata judge", t0)
        pl = self.plans
        if sum(self.tce.counts.values()):
            self.log(f"schemata: trivial compiler equivalence: {self.tce.counts['with_pch']} mutants compiled with "
                     f"their file's includes precompiled, {self.tce.counts['without']} without")
        if pl["runs"]:
            self.log(f"schemata: per-case plans: {pl['runs']} property runs skipped {pl['skipped']} of {pl['cases']} "
                     f"cases that did not reach the mutant; {pl['rerun']} failed under a plan and ran again whole, "
                     f"{pl['confirmed']} of them failing whole too")
        if errors:
            self.log(f"stopped: {errors[0]}")
        rest = [m for m in left if m.id not in self.r.done]
        if rest and not self.r.stop:
            t0 = time.time()
            self.log(f"one at a time: {len(rest)} mutants, each built alone in the schemata clone and judged by "
                     f"every test")
            for m in rest:
                if self.r.stop:
                    break
                t1 = time.time()
                row = self.judge_alone(m, plains[0])
                row["seconds"] = f"{time.time() - t1:.1f}"
                row["switch"] = str(self.nums[m.id])
                self.r.record(m, row)
            self.add_phase("one at a time", t0)
        return [m for m in rest if m.id not in self.r.done]

    def add_phase(self, name: str, t0: float) -> None:
        """Adds the time since t0 to the run's phase (summed over the chunks)."""
        self.r.phase[name] = self.r.phase.get(name, 0.0) + time.time() - t0

    def alone_stages(self, m: mutants.Mutant) -> list[list[judge.Test]]:
        """Every test (no reach is known for a site without a switch) in two stages: first those
        that reached a switch of the same function and run a binary of their own (the likely
        killers, built first: a kill there spares building the rest), then all the others;
        each stage cheapest first."""
        near = {self.nums[o.id] for o in self.planned
                if o.file == m.file and o.function == m.function and self.nums[o.id] not in self.ejected}
        first = [t for t in self.tests if (self.reach.get(t.name) is None or self.reach_sets.get(t.name, set()) & near)
                 and judge.targets_of([t], self.s.build_dir)]
        rest = [t for t in self.tests if t not in first]
        return [hunted.for_mutant(first, m), hunted.for_mutant(rest, m)]

    def judge_alone(self, m: mutants.Mutant, plain: judge.Scratch) -> dict:
        """One mutant the schemata build could not hold: its file written with this mutant alone
        (no schema), built incrementally in the schemata clone and judged by every test on
        --jobs runners at once, in the stages of alone_stages: the first stage's binaries are
        built and run before the rest are built, the first failure ends it; then the file's
        schemata are put back (the next build rebuilds what this one rebuilt)."""
        row = {"path": "one at a time", "reached": "-", "tce_s": "-", "build_s": "-", "test_s": "-", "unit": "-"}
        work = self.dir / "work" / f"alone-{self.nums[m.id]:05d}"
        t1 = time.time()
        same = self.equivalent(plain, m, work / "tce")
        if same != "-":
            row["tce_s"] = f"{time.time() - t1:.1f}"
        if same == "yes":
            return {**row, "outcome": "EQUIVALENT", "message": "same object code (debug info stripped)"}
        path = self.s.path / m.file
        work.mkdir(parents=True, exist_ok=True)
        budget = self.a.timeout or (60 + 3 * sum(t.seconds for t in self.tests))
        build_s = test_s = 0.0
        v = judge.Verdict(False)
        try:
            path.write_bytes(m.apply(self.originals[m.file]))
            for k, tests in enumerate(self.alone_stages(m)):
                if not tests:
                    continue
                blog = work / f"build-{k + 1}.log"
                t1 = time.time()
                ok = self.s.build(judge.targets_of(tests, self.s.build_dir) if k == 0 else self.targets, blog)
                build_s += time.time() - t1
                if not ok:
                    return {**row, "build_s": f"{build_s:.1f}", "outcome": "BUILD-FAIL",
                            "message": judge.tail(blog, r"error: ")}
                t1 = time.time()
                v = judge.run_tests_split(tests, work / f"tests-{k + 1}", budget - test_s, self.a.jobs,
                                          extra_env=self.env())
                test_s += time.time() - t1
                if v.failed:
                    break
        finally:
            path.write_bytes(self.built[m.file])
        row["build_s"], row["test_s"] = f"{build_s:.1f}", f"{test_s:.1f}"
        if v.failed:
            return {**row, "outcome": judge_timeout(v), "killer": v.test,
                    "oracle": v.oracle if not v.timed_out else "timeout", "rule": v.rule, "message": v.message}
        if self.a.with_unit:
            u = judge.run_tests(self.r.unit_tests, work / "unit", UNIT_BUDGET, extra_env=self.r.unit_env())
            row["unit"] = "no" if not u.failed else f"{u.test} (timeout)" if u.timed_out else u.test
        return {**row, "outcome": "SURVIVED", "message": "no judge test failed"}


def keep_times(root: Path, rels: list[str]) -> dict[str, tuple[bytes, int]]:
    """Each file's text and modification time before the clone is checked out again."""
    out = {}
    for rel in rels:
        p = root / rel
        if p.is_file():
            out[rel] = (p.read_bytes(), p.stat().st_mtime_ns)
    return out


def restore_times(root: Path, kept: dict[str, tuple[bytes, int]]) -> int:
    """Gives a file back its earlier modification time where the checkout and the schemata wrote
    it again with the same text: a resumed chunk then rebuilds only what changed (ninja compares
    times), not every object of the chunk's files and their dependents. Returns how many."""
    n = 0
    for rel, (text, mtime) in kept.items():
        p = root / rel
        if p.is_file() and p.read_bytes() == text:
            os.utime(p, ns=(p.stat().st_atime_ns, mtime))
            n += 1
    return n


def judge_timeout(v: judge.Verdict) -> str:
    return "TIMEOUT" if v.timed_out else "KILLED"
