"""scripts/zoo: the defect zoo, the harness's own benchmark (HARNESS.md §6).

For each injected defect (STACKCHECK_DEFECT=<name> in the `zoo` preset), the general machinery
hunts it: every property (one gtest filter each), every libFuzzer target and every property
fuzzed (`props:Suite.Name`, the property's body on libFuzzer's bytes), run in slices,
--jobs at a time, round-robin with fresh seeds, until the first failure or the budget. The
first failure names the detecting oracle and rule; its shrunk reproducer (the property's
counterexample file, or the fuzzer's minimized input in its text form) is measured in
statements or plan lines. A control run with no defect gives every hunter one slice and must
show no failure. Tables and the report go to build/zoo/<timestamp>/ (never the source tree).
Exit 1 when a defect goes undetected or the control fails; 2 on bad flags.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import fuzzlib  # noqa: E402
from fuzzlib import ROOT, UsageError, die_with_parent  # noqa: E402

PROG = "zoo"
PRESET = "zoo"
BIN = ROOT / "build" / PRESET / "bin"
# A property process's first failing case, before shrinking (properties/property.cpp).
FIRST_RE = re.compile(r"^stackcheck: first failing case at ([0-9.]+) s$", re.M)


def log(msg: str) -> None:
    print(f"{PROG}: {msg}", file=sys.stderr, flush=True)


def defect_names() -> list[tuple[str, str]]:
    """(name, where) per defect, from `stackcheck defects` (tab-separated: name, where, ...)."""
    p = subprocess.run([str(BIN / "stackcheck"), "defects"], capture_output=True, text=True)
    if p.returncode != 0:
        raise UsageError(f"stackcheck defects failed: {p.stderr.strip()}")
    out = []
    for line in p.stdout.splitlines():
        if not line or line[0].isspace():  # a description line under its defect
            continue
        cells = [c.strip() for c in re.split(r"\t+| {2,}", line.strip()) if c.strip()]
        if cells and re.fullmatch(r"[a-z0-9][a-z0-9_-]*", cells[0]) and cells[0] not in ("name", "defect"):
            out.append((cells[0], cells[1] if len(cells) > 1 else ""))
    if not out:
        raise UsageError("stackcheck defects listed no defect")
    return out


def statements(text: str) -> int:
    """Reproducer size, as the zoo's ctest counts it (stack/defects/zoo_case.sh): lines that are
    not blank, a comment, a lone closing brace or a function header."""
    return sum(1 for l in text.splitlines() if l.strip() and not l.lstrip().startswith("#") and l.strip() != "}"
               and not re.match(r"(kernel|graph|orchestration) ", l))


REDUCER = ROOT / "stack" / "defects" / "reduce_case.py"

# --engines: ten properties across the suites, each with a zoo defect it catches (the hunter
# that found it first in the zoo runs, or the suite's own target for the defect).
ENGINE_PAIRS = [
    ("step_c_not_hoisted", "Pipeline.illegal_views_rejected_with_211"),
    ("loop_create_hoisted", "Pipeline.passes_deterministic_idempotent"),
    ("graph_returns_swapped", "Pipeline.return_order_verifier_agrees_with_its_pass"),
    ("full_not_rejected", "Pipeline.graph_full_rejected_with_206"),
    ("claimed_slot_not_reset", "RuntimeProps.claims_reset_slots"),
    ("storage_stride_times_n", "RuntimeProps.graph_storage_span_exact"),
    ("war_edge_missing_on_reuse", "DepsProps.generated_plans_order_every_conflict"),
    ("alias_classes_ignored", "EndToEnd.generated_programs_match_interpreter"),
    ("attach_size_tautology", "RuntimeExec.graph_record_near_misses_rejected"),
    ("scalar_regions_unrounded", "Explorers.newest_and_oldest_give_their_orders"),
]


@dataclass
class Hunter:
    kind: str  # property | fuzz
    name: str  # Suite.Property or fuzz target
    binary: Path

    def command(self, seed: int, seconds: int, work: Path, cases: int) -> tuple[list[str], dict[str, str]]:
        if self.kind == "property":
            env = {"RC_PARAMS": f"seed={seed} max_success={cases}", "STACKCHECK_COUNTEREXAMPLES": str(work)}
            return [str(self.binary), f"--gtest_filter={self.name}"], env
        t = self.name
        cmd = [str(self.binary), str(work / "corpus"), *[str(d) for d in fuzzlib.seed_dirs(t)],
               *fuzzlib.libfuzzer_flags(t), f"-seed={seed}", f"-max_total_time={seconds}",
               f"-artifact_prefix={work}/", "-print_final_stats=1"]
        (work / "corpus").mkdir(parents=True, exist_ok=True)
        return cmd, {}


def hunters() -> list[Hunter]:
    out = []
    for b in fuzzlib.property_suites(BIN):
        p = subprocess.run([str(b), "--gtest_list_tests"], capture_output=True, text=True)
        suite = None
        for line in p.stdout.splitlines():
            if not line.startswith(" "):
                suite = line.strip().rstrip(".")
            elif suite:
                name = line.strip().split()[0]
                if not fuzzlib.is_positive_control(suite, name):
                    out.append(Hunter("property", f"{suite}.{name}", b))
    for t in fuzzlib.all_targets():
        if (BIN / t).exists():
            out.append(Hunter("fuzz", t, BIN / t))
    # Every property fuzzed too (HARNESS.md §9): the same body on libFuzzer's bytes.
    for name in fuzzlib.property_names():
        t = fuzzlib.PROP_PREFIX + name
        if (BIN / t).exists() and not fuzzlib.is_positive_control(*name.split(".", 1)):
            out.append(Hunter("fuzz", t, BIN / t))
    return out


class Zoo:
    def __init__(self, a: argparse.Namespace):
        self.a = a
        self.stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
        self.out = Path(a.out).resolve()
        self.run_dir = self.out / self.stamp
        self.stop = 0
        self.cost: dict[str, float] = {}  # hunter -> wall seconds of its control turn
        # Hunters with no random cases (a gtest over the fixed corpus prints no "verdicts:"
        # line in its control turn): the same run every round, so only the first round has them.
        self.fixed: set[str] = set()

    def order(self, defect: str, hs: list[Hunter]) -> list[Hunter]:
        """The hunters' order. `--order cost` (the default): cheapest first, by each hunter's
        wall time in this run's control (no defect), ties in an order drawn from the seed; with
        nothing known about where a defect is, running the cheap checks first finds a defect
        that any one check sees soonest on average (shortest job first), as a CI runs its
        fast tests first. `--order random`: a shuffle drawn from the run's seed and the
        defect's name. Either way nothing about the defect (where it lives, who found it last
        time) steers the hunt, so the time to detect measures the harness, not our knowledge."""
        import random
        rng = random.Random(f"{self.a.seed}:{defect}")
        out = list(hs)
        rng.shuffle(out)
        if self.a.order == "cost":
            out.sort(key=lambda h: self.cost.get(h.name, float("inf")))  # stable: ties keep the shuffle
        return out

    def start_slice(self, h: Hunter, slice_no: int, rnd: int, control: bool, budget_left: float, work_root: Path,
                    env_base: dict) -> tuple[Hunter, subprocess.Popen, float, Path, int]:
        """Starts one slice of a hunter in a work folder of its own: a property runs its cases (a
        normal property run, then 4x per round) within the property cap; a fuzz target runs one
        slice. Returns it as hunt() keeps it running: (hunter, process, started, work, seconds)."""
        seed = self.a.seed + slice_no
        work = work_root / f"{slice_no:04d}-{h.name.replace('/', '_')}"
        work.mkdir(parents=True, exist_ok=True)
        cap = self.a.property_cap if h.kind == "property" else self.a.slice
        secs = int(cap if control else max(1, min(cap, budget_left)))
        cases = self.a.control_cases if control else self.a.cases * 4 ** (rnd - 1)
        cmd, env = h.command(seed, secs, work, cases)
        lf = open(work / "log", "wb")
        proc = subprocess.Popen(cmd, stdout=lf, stderr=subprocess.STDOUT, cwd=work,
                                env={**env_base, **env}, preexec_fn=die_with_parent)
        lf.close()
        return h, proc, time.time(), work, secs

    @staticmethod
    def kill_all(running: list[tuple[Hunter, subprocess.Popen, float, Path, int]]) -> None:
        for other in running:
            os.killpg(other[1].pid, signal.SIGKILL)
            other[1].wait()

    def hunt(self, defect: str, hs: list[Hunter], control: bool) -> dict:
        """Runs the hunters round-robin, --jobs at a time, until the first failure or the
        budget (control: every hunter gets exactly one turn)."""
        work_root = self.run_dir / "hunts" / (defect or "none")
        env_base = fuzzlib.sanitizer_env({"STACKCHECK_DEFECT": defect} if defect else {})
        if not defect:
            env_base.pop("STACKCHECK_DEFECT", None)
        queue = list(self.order(defect, hs))
        rnd = 1
        t0 = time.time()
        running: list[tuple[Hunter, subprocess.Popen, float, Path, int]] = []
        slices = 0
        result = {"defect": defect or "none", "detected": "no", "seconds": "", "shrunk_seconds": "", "oracle": "",
                  "rule": "", "shrunk_size": "", "reproducer_size": "", "reproducer": "", "found_by": "", "message": ""}
        pending = list(queue)
        while not self.stop:
            now = time.time()
            budget_left = self.a.budget - (now - t0)
            if not control and budget_left <= 0:
                break
            while len(running) < self.a.jobs and (pending or not control) and (control or budget_left > 0):
                if not pending:
                    # next round: fresh seeds, four times the cases; a fixed test would only repeat
                    pending = [q for q in queue if q.name not in self.fixed]
                    rnd += 1
                    if not pending:
                        break
                slices += 1
                running.append(self.start_slice(pending.pop(0), slices, rnd, control, budget_left, work_root, env_base))
            if not running:
                break
            time.sleep(0.2)
            for item in list(running):
                h, proc, started, work, secs = item
                if proc.poll() is None:
                    if time.time() - started < secs + (5 if h.kind == "fuzz" else 0):
                        continue
                    os.killpg(proc.pid, signal.SIGKILL)
                    proc.wait()
                    running.remove(item)
                    if control:
                        self.cost[h.name] = time.time() - started
                    continue
                running.remove(item)
                if control:
                    self.cost[h.name] = time.time() - started
                    if h.kind == "property" and "verdicts:" not in (work / "log").read_text(errors="replace"):
                        self.fixed.add(h.name)
                if not self.failed(h, work, proc.returncode):
                    continue
                # Time to detect: to the first failing case (a property stamps it in its log;
                # a fuzz target stops at its first crash). Shrunk: until the hunter ended with
                # its shrunk failure, before the reproducer is minimized, put in its text form
                # and reduced.
                ended = time.time() - t0
                m = FIRST_RE.search((work / "log").read_text(errors="replace")) if h.kind == "property" else None
                detect = min(ended, started - t0 + float(m.group(1))) if m else ended
                self.kill_all(running)  # stop the rest: they would only slow that work down
                result.update(self.read_failure(h, work, proc.returncode))
                result["detected"] = "yes"
                result["seconds"] = f"{detect:.1f}"
                result["shrunk_seconds"] = f"{ended:.1f}"
                return result
        self.kill_all(running)
        if not control:
            result["seconds"] = f"{self.a.budget:.0f}"
        return result

    @staticmethod
    def artifacts(work: Path) -> list[Path]:
        return sorted(p for p in work.iterdir() if p.name.startswith(("crash-", "leak-", "timeout-", "oom-")))

    def failed(self, h: Hunter, work: Path, rc: int) -> bool:
        """Whether the hunter's run ended in a failure (a property's nonzero exit, a fuzzer's artifact)."""
        return rc != 0 if h.kind == "property" else bool(self.artifacts(work))

    def read_failure(self, h: Hunter, work: Path, rc: int) -> dict:
        if h.kind == "property":
            files = sorted(p for p in work.glob("*") if p.suffix in (".gir", ".plan"))
            text = files[0].read_text(errors="replace") if files else ""
            oracle, rule, message = fuzzlib.counterexample_verdict(text)
            if not files:  # a failure without a counterexample file: an assertion in the test itself
                log_text = (work / "log").read_text(errors="replace")
                msg = next((l for l in log_text.splitlines() if "Failure" in l or "Falsifiable" in l), "failed")
                return {"oracle": "property", "rule": h.name, "found_by": h.name, "message": msg[:200],
                        "reproducer": "", "reproducer_size": "", "shrunk_size": ""}
            found = {"oracle": oracle, "rule": rule, "message": message,
                     "found_by": h.name, "reproducer": str(files[0]), "reproducer_size": str(statements(text)),
                     "shrunk_size": str(statements(text))}
            target = fuzzlib.header_target(text.encode()) or ""
            if target.startswith("fuzz_"):  # a fuzz target's text form (AllTiers): its driver reruns it
                self.reduce(["--driver", str(BIN / f"{target}_replay")], files[0], work, found)
            elif oracle != "property":  # replayable by stackcheck replay: reduce it further
                self.reduce(["--cli", str(BIN / "stackcheck")], files[0], work, found)
            return found
        arts = self.artifacts(work)
        denv = {"STACKCHECK_DEFECT": self.current}
        finding, _ = fuzzlib.replay(BIN / f"{h.name}_replay", arts[0], timeout=60, env=denv)
        best = arts[0]
        tmp = work / "minimized"
        try:
            subprocess.run([str(h.binary), "-minimize_crash=1", f"-max_total_time={self.a.minimize_seconds}",
                            f"-exact_artifact_path={tmp}", str(arts[0])], cwd=work, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, env=fuzzlib.sanitizer_env({"STACKCHECK_DEFECT": self.current}),
                           timeout=self.a.minimize_seconds + 60)
        except subprocess.TimeoutExpired:
            # libFuzzer overran its own -max_total_time (run() has killed it): keep the crash
            # input as found, and whatever smaller one minimization wrote before the kill.
            log(f"{h.name}: crash minimization overran {self.a.minimize_seconds + 60} s; keeping the input as found")
        if tmp.exists():
            best = tmp
        if fuzzlib.is_property_target(h.name):
            return self.read_fuzzed_property(h, work, best, finding)
        text = fuzzlib.text_form(BIN / f"{h.name}_replay", best, env=denv)
        repro = work / f"reproducer{fuzzlib.TEXT_EXT.get(h.name, '.txt')}"
        if text:
            fuzzlib.atomic_write(repro, text)
        size = str(statements(text.decode(errors="replace"))) if text else ""
        found = {"oracle": finding.oracle or finding.kind, "rule": finding.rule, "message": finding.message[:200],
                 "found_by": h.name, "reproducer": str(repro) if text else str(best), "reproducer_size": size,
                 "shrunk_size": size}
        if text:
            self.reduce(["--driver", str(BIN / f"{h.name}_replay")], repro, work, found)
        return found

    def read_fuzzed_property(self, h: Hunter, work: Path, best: Path, finding) -> dict:
        """A fuzzed property's finding: its (minimized) input in the text form, replayed once more
        with the counterexample folder in `work`, so the property writes the counterexample it
        would write under RapidCheck; that file is the reproducer, measured and reduced as a
        property's."""
        denv = {"STACKCHECK_DEFECT": self.current}
        text = fuzzlib.text_form(BIN / f"{h.name}_replay", best, env=denv)
        if text:
            fuzzlib.atomic_write(work / "input.txt", text)
        cx = work / "counterexample"
        cx.mkdir(exist_ok=True)
        fuzzlib.replay(BIN / f"{h.name}_replay", best, timeout=60, env={**denv, "STACKCHECK_COUNTEREXAMPLES": str(cx)})
        files = sorted(p for p in cx.glob("*") if p.suffix in (".gir", ".plan"))
        found = {"oracle": finding.oracle or finding.kind, "rule": finding.rule, "message": finding.message[:200],
                 "found_by": f"{h.name} (libFuzzer)", "reproducer": str(work / "input.txt") if text else str(best),
                 "reproducer_size": "", "shrunk_size": ""}
        if files:
            size = str(statements(files[0].read_text(errors="replace")))
            found.update({"reproducer": str(files[0]), "reproducer_size": size, "shrunk_size": size})
            if found["oracle"] != "property":
                self.reduce(["--cli", str(BIN / "stackcheck")], files[0], work, found)
        return found

    def reduce(self, how: list[str], src: Path, work: Path, found: dict) -> None:
        """Deletes statements while the file still fails with the defect and passes without it
        (stack/defects/reduce_case.py, the zoo ctest's own test), within --reduce-seconds."""
        if self.a.reduce_seconds <= 0:
            return
        out = work / f"reduced{src.suffix}"
        try:
            subprocess.run([sys.executable, str(REDUCER), *how, "--defect", self.current, "--seconds",
                            str(self.a.reduce_seconds), str(src), str(out)], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, timeout=self.a.reduce_seconds + 150, env=fuzzlib.sanitizer_env())
        except subprocess.TimeoutExpired:
            return
        if out.exists():
            found["reproducer"] = str(out)
            found["reproducer_size"] = str(statements(out.read_text(errors="replace")))

    def matrix(self, chosen: list[str], hs: list[Hunter]) -> int:
        """--matrix: every hunter once against every defect (one turn each: --cases property cases,
        one fuzz slice), to see how many hunters see each defect and after how many cases. Writes
        matrix.tsv (defect, hunter, outcome, seconds, cases to the failure, shrinks)."""
        todo = [(d, h) for d in chosen for h in hs]
        rows: list[str] = []
        running: list[tuple[str, Hunter, subprocess.Popen, float, Path, int]] = []
        fals = re.compile(r"Falsifiable after (\d+) tests?(?: and (\d+) shrinks?)?")
        n = 0
        while (todo or running) and not self.stop:
            while todo and len(running) < self.a.jobs:
                d, h = todo.pop(0)
                n += 1
                work = self.run_dir / "matrix" / d / h.name.replace("/", "_")
                work.mkdir(parents=True, exist_ok=True)
                secs = int(self.a.property_cap if h.kind == "property" else self.a.slice)
                cmd, env = h.command(self.a.seed, secs, work, self.a.cases)
                lf = open(work / "log", "wb")
                proc = subprocess.Popen(cmd, stdout=lf, stderr=subprocess.STDOUT, cwd=work, preexec_fn=die_with_parent,
                                        env={**fuzzlib.sanitizer_env({"STACKCHECK_DEFECT": d}), **env})
                lf.close()
                running.append((d, h, proc, time.time(), work, secs))
            time.sleep(0.1)
            for item in list(running):
                d, h, proc, started, work, secs = item
                took = time.time() - started
                if proc.poll() is None:
                    if took < secs + (5 if h.kind == "fuzz" else 0):
                        continue
                    os.killpg(proc.pid, signal.SIGKILL)
                    proc.wait()
                    outcome = "cut"
                else:
                    outcome = "fail" if self.failed(h, work, proc.returncode) else "pass"
                running.remove(item)
                m = fals.search((work / "log").read_text(errors="replace"))
                rows.append("\t".join([d, h.name, outcome, f"{took:.1f}", m.group(1) if m else "-",
                                       (m.group(2) or "0") if m else "-"]))
                log(f"matrix {len(rows)}/{len(chosen) * len(hs)}: {d} {h.name} {outcome} {took:.1f}s")
        fuzzlib.atomic_write(self.run_dir / "matrix.tsv",
                             ("defect\thunter\toutcome\tseconds\tcases\tshrinks\n" + "\n".join(sorted(rows)) + "\n").encode())
        print(f"{'defect':<40} {'hunters failing':>15}  fastest")
        for d in chosen:
            mine = [r.split("\t") for r in rows if r.split("\t")[0] == d]
            fails = sorted((float(r[3]), r[1]) for r in mine if r[2] == "fail")
            print(f"{d:<40} {len(fails):>7} of {len(mine):<5}  "
                  + (", ".join(f"{h} {t:.1f}s" for t, h in fails[:3]) or "-"))
        print(f"matrix: {self.run_dir / 'matrix.tsv'}")
        return 0

    def engines(self) -> int:
        """--engines: one property on two engines (HARNESS.md §9). For each (defect, property)
        pair of ENGINE_PAIRS, the property's RapidCheck run (random draws, cases without end) and
        the same property fuzzed (`props:Suite.Name`, coverage-guided, from its committed seeds),
        side by side (one core each), --engine-runs seeds each, both capped at --budget: the time
        to the first failing case (RapidCheck's stamped line; libFuzzer's crash, start-up
        included on both sides). Writes engines.tsv and engines.md (the table, medians)."""
        pairs = [(d, p) for d, p in ENGINE_PAIRS if not self.a.defects or d in self.a.defects]
        bins = {h.name: h for h in hunters()}
        rows: list[list[str]] = []
        for d, prop in pairs:
            for k in range(self.a.engine_runs):
                seed = self.a.seed + k
                procs = []
                for engine, name in (("rapidcheck", prop), ("libfuzzer", fuzzlib.PROP_PREFIX + prop)):
                    h = bins.get(name)
                    if h is None:
                        raise UsageError(f"--engines: no hunter {name} in {BIN}")
                    work = self.run_dir / "engines" / d / f"{engine}-{seed}"
                    work.mkdir(parents=True, exist_ok=True)
                    cmd, env = h.command(seed, int(self.a.budget), work, 1_000_000)
                    lf = open(work / "log", "wb")
                    procs.append((engine, h, work, time.time(), subprocess.Popen(
                        cmd, stdout=lf, stderr=subprocess.STDOUT, cwd=work, preexec_fn=die_with_parent,
                        env={**fuzzlib.sanitizer_env({"STACKCHECK_DEFECT": d}), **env})))
                    lf.close()
                for engine, h, work, started, proc in procs:
                    try:
                        proc.wait(timeout=max(1.0, self.a.budget + 10 - (time.time() - started)))
                    except subprocess.TimeoutExpired:
                        os.killpg(proc.pid, signal.SIGKILL)
                        proc.wait()
                    took = time.time() - started
                    # RapidCheck: its first failing case stamped (a run cut at the budget exits
                    # nonzero too); libFuzzer: a crash artifact.
                    m = FIRST_RE.search((work / "log").read_text(errors="replace")) if engine == "rapidcheck" else None
                    failed = bool(m) if engine == "rapidcheck" else bool(self.artifacts(work))
                    failed = failed and (float(m.group(1)) if m else took) <= self.a.budget
                    secs = float(m.group(1)) if m else took
                    rows.append([d, prop, engine, str(seed), "fail" if failed else "none", f"{secs:.1f}"])
                    log(f"engines: {d} {prop} {engine} seed {seed}: "
                        + (f"first failure at {secs:.1f}s" if failed else f"nothing in {self.a.budget:g}s"))
        fuzzlib.atomic_write(self.run_dir / "engines.tsv", ("defect\tproperty\tengine\tseed\toutcome\tseconds\n" +
                                                            "".join("\t".join(r) + "\n" for r in rows)).encode())
        lines = ["| defect | property | RapidCheck: found, median s | libFuzzer (fuzz_props): found, median s |",
                 "|---|---|---:|---:|"]
        for d, prop in pairs:
            cell = []
            for engine in ("rapidcheck", "libfuzzer"):
                mine = [r for r in rows if r[0] == d and r[1] == prop and r[2] == engine]
                found = [float(r[5]) for r in mine if r[4] == "fail"]
                cell.append(f"{len(found)}/{len(mine)}, " + (f"{statistics.median(found):.1f}" if found else "-"))
            lines.append(f"| {d} | {prop} | {cell[0]} | {cell[1]} |")
        table = "\n".join(lines) + "\n"
        fuzzlib.atomic_write(self.run_dir / "engines.md", table.encode())
        print(table)
        print(f"engines: {self.run_dir / 'engines.tsv'}")
        return 0

    def run(self) -> int:
        if not self.a.no_build:
            names = ["stackcheck", "stackcheck-report"] + [p.stem for p in (ROOT / "properties").glob("*_props.cpp")]
            names += [n for t in fuzzlib.all_targets() for n in (t, f"{t}_replay")]
            names += [fuzzlib.PROPS, f"{fuzzlib.PROPS}_replay"]
            self.run_dir.mkdir(parents=True, exist_ok=True)
            log(f"building preset {PRESET} (log: {self.run_dir / 'build.log'})")
            fuzzlib.build(PRESET, names, log=self.run_dir / "build.log")
        self.run_dir.mkdir(parents=True, exist_ok=True)
        known = defect_names()
        where = dict(known)
        chosen = self.a.defects or [n for n, _ in known]
        for d in chosen:
            if d not in where:
                raise UsageError(f"unknown defect '{d}' (have: {' '.join(n for n, _ in known)})")
        hs = [h for h in hunters() if not self.a.hunters or re.search(self.a.hunters, h.name)]
        if not hs:
            raise UsageError(f"--hunters {self.a.hunters}: no hunter matches")
        log(f"seed={self.a.seed} budget={self.a.budget:g}s jobs={self.a.jobs} slice={self.a.slice:g}s "
            f"order={self.a.order}; "
            f"{len(chosen)} defects, {len(hs)} hunters; out {self.run_dir}")
        if self.a.matrix:
            return self.matrix(chosen, hs)
        if self.a.engines:
            return self.engines()
        rows = []
        self.current = ""
        log("control: no defect, every hunter one slice")
        control = self.hunt("", hs, control=True)
        rows.append(control)
        log(f"control: {'FAILED: ' + control['found_by'] + ' ' + control['rule'] if control['detected'] == 'yes' else 'no failure'}")
        for i, d in enumerate(chosen, 1):
            if self.stop:
                break
            self.current = d
            r = self.hunt(d, hs, control=False)
            rows.append(r)
            log(f"[{i}/{len(chosen)}] {d}: " + (f"detected in {r['seconds']}s by {r['found_by']} "
                                               f"({r['oracle']}/{r['rule']}, reproducer {r['reproducer_size'] or '?'})"
                                               if r["detected"] == "yes" else f"NOT detected in {self.a.budget:g}s"))
        self.report(rows)
        bad = [r for r in rows[1:] if r["detected"] != "yes"]
        return 1 if bad or control["detected"] == "yes" or self.stop else 0

    def report(self, rows: list[dict]) -> None:
        for r in rows:
            if r["reproducer"] and Path(r["reproducer"]).is_absolute():
                try:
                    r["reproducer"] = str(Path(r["reproducer"]).relative_to(self.run_dir))
                except ValueError:
                    pass
        keys = ["defect", "detected", "seconds", "shrunk_seconds", "oracle", "rule", "shrunk_size", "reproducer_size",
                "reproducer", "found_by"]
        body = "\t".join(keys) + "\n" + "".join(
            "\t".join(str(r[k]).replace("\t", " ") if r[k] != "" else "-" for k in keys) + "\n" for r in rows)
        fuzzlib.atomic_write(self.run_dir / "zoo.tsv", body.encode())
        # (reproducer paths are relative to the run folder, where zoo.tsv and the report are)
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                                text=True).stdout.strip()
        run = {"kind": "zoo", "title": "stackcheck defect zoo", "seed": str(self.a.seed),
               "started": self.stamp, "finished": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
               "jobs": str(self.a.jobs), "command": self.a.command, "commit": commit,
               "cores": str(os.cpu_count()), "status": "interrupted" if self.stop else "complete",
               "budget_s": f"{self.a.budget:g}", "order": self.a.order}
        fuzzlib.atomic_write(self.run_dir / "run.tsv",
                             ("key\tvalue\n" + "".join(f"{k}\t{v}\n" for k, v in run.items())).encode())
        tool = BIN / "stackcheck-report"
        if tool.exists():
            p = subprocess.run([str(tool), str(self.run_dir)], capture_output=True, text=True)
            if p.returncode != 0:
                log(f"report: {p.stderr.strip()}")
        det = [float(r["seconds"]) for r in rows[1:] if r["detected"] == "yes"]
        print(f"\n{'defect':<40} {'found':>5} {'seconds':>8} {'shrunk':>7}  {'oracle/rule':<40} {'size':>4}  found by")
        for r in rows:
            print(f"{r['defect']:<40} {r['detected']:>5} {r['seconds'] or '-':>8} {r['shrunk_seconds'] or '-':>7}  "
                  f"{(r['oracle'] + '/' + r['rule']) if r['oracle'] else '-':<40} {r['reproducer_size'] or '-':>4}  "
                  f"{r['found_by'] or '-'}")
        shrunk = [float(r["shrunk_seconds"]) for r in rows[1:] if r["detected"] == "yes" and r["shrunk_seconds"]]
        if det:
            print(f"\ndetected {len(det)} of {len(rows) - 1}; median {statistics.median(det):.1f}s, "
                  f"max {max(det):.1f}s (shrunk: median {statistics.median(shrunk or [0]):.1f}s, "
                  f"max {max(shrunk or [0]):.1f}s); "
                  f"control: {'FAILED' if rows[0]['detected'] == 'yes' else 'no failure'}")
        print(f"report: {self.run_dir / 'report.md'}\n        {self.run_dir / 'index.html'}")


def main(argv: list[str]) -> int:
    def positive(kind):
        return fuzzlib.number_arg(kind, positive=True)

    p = fuzzlib.ArgParser(prog="scripts/zoo",
                          description="Inject each defect and measure how fast the harness finds it.")
    p.add_argument("--budget", type=positive(float), default=120, help="seconds per defect (default 120)")
    p.add_argument("--defects", action="append", default=[], help="defects, comma separated (default: all)")
    p.add_argument("--jobs", type=positive(int), default=os.cpu_count() or 1, help="parallel hunters (default cores)")
    p.add_argument("--slice", type=positive(float), default=8, help="seconds per fuzz target turn (default 8)")
    p.add_argument("--cases", type=positive(int), default=100,
                   help="property cases in the first round, 4x more each round after (default 100; a quick "
                        "sweep of 25 missed prefix_submit_provenance_dropped for 120 s at seed 1204)")
    p.add_argument("--control-cases", type=positive(int), default=100,
                   help="property cases of the control run with no defect (default 100, a normal property run)")
    p.add_argument("--property-cap", type=positive(float), default=30,
                   help="seconds a property turn may take at most (default 30)")
    p.add_argument("--seed", type=int, default=None, help="base seed (default: the time)")
    p.add_argument("--minimize-seconds", type=positive(int), default=20)
    p.add_argument("--reduce-seconds", type=float, default=60,
                   help="seconds to reduce each reproducer by deleting statements (0: keep the shrunk one)")
    p.add_argument("--out", default=str(ROOT / "build" / "zoo"))
    p.add_argument("--no-build", action="store_true")
    p.add_argument("--order", choices=["cost", "random"], default="cost",
                   help="hunters cheapest first by their control turn (default), or shuffled by the seed")
    p.add_argument("--hunters", default="", help="only the hunters whose name matches this regex")
    p.add_argument("--matrix", action="store_true",
                   help="instead of hunting: run every hunter once against every defect, write matrix.tsv")
    p.add_argument("--engines", action="store_true",
                   help="instead of hunting: ten (defect, property) pairs on RapidCheck and on libFuzzer "
                        "(fuzz_props), --engine-runs seeds each, time to first failure within --budget; "
                        "writes engines.tsv and engines.md")
    p.add_argument("--engine-runs", type=positive(int), default=3, help="seeds per pair and engine (--engines; 3)")
    a = p.parse_args(argv)
    a.defects = [d for spec in a.defects for d in re.split(r"[,\s]+", spec) if d]
    try:
        re.compile(a.hunters)
    except re.error as e:
        p.error(f"--hunters {a.hunters!r} is not a regular expression: {e}")
    if a.seed is None:
        a.seed = int(time.time()) % 1_000_000_007
    a.command = "scripts/zoo " + " ".join(argv)
    out = Path(a.out).resolve()
    if ROOT in out.parents and ROOT / "build" not in [out, *out.parents]:
        p.error(f"--out {a.out}: the zoo never writes into the source tree (use build/...)")
    z = Zoo(a)

    def on_signal(sig, frame):
        z.stop += 1

    return fuzzlib.run_stoppable(PROG, z.run, on_signal)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
