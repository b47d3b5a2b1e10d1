"""scripts/mutate --hunt RUN_DIR: the survivors of a run hunted by the fuzzer (HARNESS.md §10;
mutation-guided fuzzing).

1. Build. The run's survivors (SURVIVED and NOT REACHED, argued equivalents left out) are written
   into a scratch clone of the run's commit behind their switches (schemata.py), and the clone
   builds `fuzz_props` and `fuzz_props_replay` under the `fuzz-fast` preset (libFuzzer, no
   sanitizer): one build for every survivor.
2. Reach. Every property runs a few seconds under libFuzzer with no mutant active, seeded with
   its committed corpus; the switches each one reached (STACKCHECK_MUTANT_REACH) say which
   properties can hunt which survivor.
3. Hunt. Each survivor gets a short libFuzzer campaign (`--hunt-seconds`, split over at most
   `--hunt-props` of the properties that reach it: first those that killed most of the run's
   mutants in its function, then in its file, the rest drawn with --seed) with its switch on
   (STACKCHECK_MUTANT). Any
   finding (a failing property, a crash, a hang) is a kill, if it holds up: replayed with the
   mutant on it must fail, and with no mutant active (the unmutated stack) it must pass. Then
   its text form, with `# hunted-for: <mutant id>` and `# hunted-key: <key>` lines, is promoted
   to corpus/fuzz_props/<Suite.Name>/hunt-<key>: the `replay` label runs it from then on.
4. Report: hunt/hunt.tsv and hunt/hunt.md in the run folder: what was killed (by which property,
   oracle and rule, with the promoted input), what was not, what no property reaches, the time.

The scoring rule (for_mutant): when a later run judges a mutant, the replay cases of inputs
hunted for that same mutant are left out of its tests (matched by id, or by the key, which
survives a change of line numbers); inputs hunted for other mutants count. So hunting every
survivor cannot raise the score of a fresh sample by itself.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import threading
import time
from pathlib import Path

import fuzzlib
import judge
import mutants
import mutate_schemata
from fuzzlib import ROOT, UsageError
from hunted import FOR_KEY, KEY_KEY, mutant_key
from mutate_report import NOT_REACHED, SURVIVED, clean, read_tsv

PRESET = "fuzz-fast"
TARGETS = ["fuzz_props", "fuzz_props_replay"]
REACH_SECONDS = 3  # each property's reach run
INPUT_TIMEOUT = 10  # libFuzzer's -timeout: an input slower than this is a hang (a finding)
COLUMNS = ["id", "switch", "outcome", "property", "oracle", "rule", "input", "properties", "seconds", "message"]


class _RunView:
    """What SchemataJudge needs of a run, for the hunt's own build."""

    def __init__(self, a, folder: Path, log):
        self.a, self.dir, self.log, self.root, self.preset = a, folder, log, ROOT, PRESET
        self.read_tsv = read_tsv

    def targets_for(self, s) -> list[str]:
        return list(TARGETS)


class HuntBuild(mutate_schemata.SchemataJudge):
    """The schemata build of the survivors, in its own clone (scratch/hunt), preset fuzz-fast."""

    def __init__(self, view: _RunView, folder: Path):
        super().__init__(view, folder)
        # no precompiled header: under clang one PCH cannot serve the targets fuzz-fast builds with
        # and without -fsanitize=fuzzer-no-link (the fuzz_props glue is not instrumented)
        args = tuple(a for a in self.s.cmake_args if not a.startswith("-DSTACKCHECK_PCH=")) + ("-DSTACKCHECK_PCH=OFF",)
        self.s = judge.Scratch(ROOT, view.a.scratch_root / "hunt", PRESET, os.cpu_count() or 2,
                               folder / "scratch-hunt.log", cmake_args=args, build_env=self.s.build_env)


class Hunt:
    def __init__(self, a, log):
        self.a, self.log = a, log
        self.run_dir: Path = a.hunt
        saved = json.loads((self.run_dir / "args.json").read_text())
        a.commit = saved["commit"]
        self.dir = self.run_dir / "hunt"
        self.dir.mkdir(parents=True, exist_ok=True)
        self.rng = random.Random(a.seed if a.seed is not None else 1)
        self.rows: list[dict] = []
        self.lock = threading.Lock()
        self.stop = 0
        self.corpus = ROOT / "corpus" / "fuzz_props"

    # -- what to hunt ----------------------------------------------------------------------

    def survivors(self, argued: dict[str, str]) -> list[dict]:
        rows = read_tsv(self.run_dir / "results.tsv")
        out = [r for r in rows if r["outcome"] in (SURVIVED, NOT_REACHED) and r["id"] not in argued]
        self.rng.shuffle(out)
        return out[:self.a.hunt_max] if self.a.hunt_max else out

    def mutants_of(self, s: judge.Scratch, ids: list[str]) -> dict[str, mutants.Mutant]:
        sites = mutants.find_sites(s.path, s.build_dir / "compile_commands.json", ROOT / "build" / "mutate" / "sites",
                                   jobs=os.cpu_count() or 1, progress=self.log)
        want = set(ids)
        return {m.id: m for m in sites if m.id in want}

    def killers(self, rows: list[dict], props: set[str]) -> None:
        """Which property killed which of the run's mutants, by function and by file: the
        properties whose oracles watch a survivor's code hunt it first. A replay of a committed
        input counts for its property (replay/fuzz_props/<P>/...) or, for a fuzz target's input,
        for the property that runs that target's cases on every tier (AllTiers.<target>_cases...)."""
        self.by_function: dict[tuple[str, str], dict[str, int]] = {}
        self.by_file: dict[str, dict[str, int]] = {}
        tiers = {p.split(".", 1)[1].removesuffix("_cases_pass_every_tier"): p for p in props
                 if p.startswith("AllTiers.")}
        for r in rows:
            if r.get("outcome") != "KILLED":
                continue
            k = r.get("killer", "")
            parts = k.split("/")
            prop = (parts[2] if k.startswith("replay/fuzz_props/") and len(parts) > 2 else
                    tiers.get(parts[1], "") if k.startswith("replay/") and len(parts) > 1 else k)
            if prop not in props:
                continue
            for table, key in ((self.by_function, (r["file"], r["function"])), (self.by_file, r["file"])):
                counts = table.setdefault(key, {})
                counts[prop] = counts.get(prop, 0) + 1

    def ranked(self, props: list[str], m: mutants.Mutant) -> list[str]:
        """The properties that reach m, those that killed most of its function's mutants first,
        then of its file's, the rest in an order drawn from the seed."""
        fn = getattr(self, "by_function", {}).get((m.file, m.function), {})
        fl = getattr(self, "by_file", {}).get(m.file, {})
        rng = random.Random(f"{self.a.seed}-{m.id}")
        tie = {p: rng.random() for p in sorted(props)}
        return sorted(props, key=lambda p: (-fn.get(p, 0), -fl.get(p, 0), tie[p]))

    # -- 2. reach --------------------------------------------------------------------------

    def fuzz_cmd(self, binary: Path, prop: str, seconds: float, seed: int, work: Path, corpus: Path) -> list[str]:
        return [str(binary), f"--property={prop}", f"-max_total_time={max(1, int(seconds))}", f"-seed={seed}",
                f"-timeout={INPUT_TIMEOUT}", "-rss_limit_mb=4096", f"-artifact_prefix={work}/", "-print_final_stats=1",
                # a survivor often differs from the original only at one value of a comparison
                # (`<` against `<=`): comparison operands that come closer count as progress
                "-use_value_profile=1", str(corpus)]

    def seeded_corpus(self, prop: str, work: Path) -> Path:
        """A copy of the property's committed corpus (libFuzzer adds to it): the run's own."""
        c = work / "corpus"
        shutil.rmtree(c, ignore_errors=True)
        c.mkdir(parents=True)
        src = self.corpus / prop
        if src.is_dir():
            for f in src.iterdir():
                if f.is_file():
                    shutil.copy(f, c / f.name)
        return c

    def reach(self, bin_dir: Path, props: list[str]) -> dict[str, set[int]]:
        """property -> the switches it reaches in a short run with no mutant active."""
        out: dict[str, set[int]] = {}

        def one(prop: str) -> None:
            work = self.dir / "reach" / prop
            hits = work / "hits"
            shutil.rmtree(work, ignore_errors=True)
            hits.mkdir(parents=True)
            cmd = self.fuzz_cmd(bin_dir / "fuzz_props", prop, REACH_SECONDS, 1, work, self.seeded_corpus(prop, work))
            env = {**os.environ, "STACKCHECK_MUTANT_REACH": str(hits)}
            env.pop("STACKCHECK_MUTANT", None)
            judge.run_logged(cmd, work, work / "fuzz.log", env=env, timeout=REACH_SECONDS * 10 + 60)
            seen: set[int] = set()
            for f in hits.glob("*.hits"):
                seen |= {int(x) for x in f.read_text().split() if x.isdigit()}
            with self.lock:
                out[prop] = seen

        queue = list(props)
        judge.in_threads(lambda q, errors: self.drain(q, one), [(queue,) for _ in range(self.a.jobs)])
        return out

    def drain(self, queue: list, work) -> None:
        while not self.stop:
            with self.lock:
                if not queue:
                    return
                item = queue.pop(0)
            work(item)

    # -- 3. the hunt -----------------------------------------------------------------------

    def classify(self, replay_bin: Path, prop: str, path: Path, switch: int | None) -> str:
        env = {k: v for k, v in os.environ.items() if k not in ("STACKCHECK_MUTANT", "STACKCHECK_MUTANT_REACH")}
        if switch is not None:
            env["STACKCHECK_MUTANT"] = str(switch)
        try:
            p = subprocess.run([str(replay_bin), f"--property={prop}", "--classify", str(path)], capture_output=True,
                               text=True, errors="replace", env=env, timeout=INPUT_TIMEOUT * 6 + 30)
        except subprocess.TimeoutExpired:
            return "fail:crash/timeout"
        return (p.stdout.strip().split("\t")[0] if p.stdout.strip() else f"error:exit-{p.returncode}")

    def hunt_one(self, bin_dir: Path, n: int, m: mutants.Mutant, props: list[str]) -> dict:
        row = {"id": m.id, "switch": str(n), "properties": " ".join(props) or "-", "property": "-", "oracle": "-",
               "rule": "-", "input": "-"}
        if not props:
            return {**row, "outcome": "NOT REACHED", "message": "no property reaches its site under fuzz_props"}
        per = max(1.0, self.a.hunt_seconds / len(props))
        rejected = ""
        for prop in props:
            work = self.dir / "work" / f"m{n:05d}" / prop
            shutil.rmtree(work, ignore_errors=True)
            work.mkdir(parents=True)
            cmd = self.fuzz_cmd(bin_dir / "fuzz_props", prop, per, self.rng.randrange(1, 1 << 31), work,
                                self.seeded_corpus(prop, work))
            env = {k: v for k, v in os.environ.items() if k != "STACKCHECK_MUTANT_REACH"}
            env["STACKCHECK_MUTANT"] = str(n)
            judge.run_logged(cmd, work, work / "fuzz.log", env=env, timeout=per * 4 + 120)
            for art in sorted(p for p in work.iterdir() if p.is_file() and p.name.split("-")[0] in
                              ("crash", "timeout", "oom", "slow")):
                verdict = self.confirm(bin_dir / "fuzz_props_replay", prop, art, n)
                if verdict.startswith("kept "):
                    path = self.promote(bin_dir / "fuzz_props_replay", prop, art, m, n)
                    if path is None:
                        rejected = "its text form does not replay as the finding"
                        continue
                    cls = verdict[len("kept "):]
                    oracle, _, rule = cls.partition(":")[2].partition("/")
                    return {**row, "outcome": "KILLED", "property": prop, "oracle": oracle or "-", "rule": rule or "-",
                            "input": os.path.relpath(path, ROOT), "message": f"{art.name.split('-')[0]}: {cls}"}
                rejected = verdict
        if rejected:
            return {**row, "outcome": "REJECTED", "message": rejected}
        return {**row, "outcome": "SURVIVED", "message": f"no finding in {per * len(props):.0f} s"}

    def confirm(self, replay_bin: Path, prop: str, art: Path, n: int) -> str:
        """'kept <class>' when the input fails with the mutant on and passes with it off."""
        on = self.classify(replay_bin, prop, art, n)
        if not on.startswith("fail:"):
            return f"{art.name} does not fail again with the mutant on ({on})"
        off = self.classify(replay_bin, prop, art, None)
        if off != "pass":
            kept = self.dir / "findings" / f"{prop}-{art.name}"
            kept.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(art, kept)
            return (f"{art.name} fails on the unmutated stack too ({off}): a finding of its own, not the mutant's; "
                    f"kept as {os.path.relpath(kept, ROOT)} (replay: build/dev/bin/fuzz_props_replay "
                    f"--property={prop} {os.path.relpath(kept, ROOT)})")
        return f"kept {on}"

    def promote(self, replay_bin: Path, prop: str, art: Path, m: mutants.Mutant, n: int) -> Path | None:
        """The input's text form, naming the mutant, into corpus/fuzz_props/<prop>/; None unless
        the text form also fails with the mutant on and passes with it off."""
        p = subprocess.run([str(replay_bin), f"--property={prop}", "--text", str(art)], capture_output=True,
                           timeout=120, env={k: v for k, v in os.environ.items() if k != "STACKCHECK_MUTANT"})
        if p.returncode != 0 or not p.stdout.startswith(b"# stackcheck "):
            return None
        text = fuzzlib.with_header(p.stdout, [f"{FOR_KEY}: {m.id}", f"{KEY_KEY}: {mutant_key(m)}"])
        dest = self.corpus / prop / f"hunt-{mutant_key(m)}"
        staged = art.parent / "text-form"
        staged.write_bytes(text)
        if not self.confirm(replay_bin, prop, staged, n).startswith("kept "):
            return None
        dest.parent.mkdir(parents=True, exist_ok=True)
        fuzzlib.atomic_write(dest, text)
        return dest

    def worker(self, bin_dir: Path, queue: list, reach: dict[str, set[int]], errors: list) -> None:
        while not self.stop:
            with self.lock:
                if not queue:
                    return
                n, m = queue.pop(0)
            t0 = time.time()
            props = self.ranked([p for p, seen in reach.items() if n in seen], m)
            row = self.hunt_one(bin_dir, n, m, props[:self.a.hunt_props])
            row["seconds"] = f"{time.time() - t0:.1f}"
            with self.lock:
                self.rows.append(row)
                k = sum(r["outcome"] == "KILLED" for r in self.rows)
                self.log(f"hunt [{len(self.rows)}/{self.total}] {row['outcome']} {m.id}"
                         f"{' by ' + row['property'] if row['outcome'] == 'KILLED' else ''} in {row['seconds']} s "
                         f"({k} killed so far)")

    # -- the job ---------------------------------------------------------------------------

    def run(self, argued: dict[str, str]) -> int:
        t_start = time.time()
        todo = self.survivors(argued)
        props = [p for p in fuzzlib.property_names() if not fuzzlib.is_positive_control(*p.split(".", 1))]
        self.killers(read_tsv(self.run_dir / "results.tsv"), set(props))
        if not todo:
            raise UsageError(f"--hunt {self.run_dir}: the run has no survivors to hunt")
        self.log(f"hunt: {len(todo)} survivors of {self.run_dir} (commit {self.a.commit[:12]}), "
                 f"{self.a.hunt_seconds:g} s each over at most {self.a.hunt_props} properties; seed {self.a.seed}")
        b = HuntBuild(_RunView(self.a, self.dir, self.log), self.dir)
        b.s.setup(self.a.commit)
        found = self.mutants_of(b.s, [r["id"] for r in todo])
        missing = [r["id"] for r in todo if r["id"] not in found]
        numbered = [(i, found[r["id"]]) for i, r in enumerate((r for r in todo if r["id"] in found), 1)]
        t0 = time.time()
        ejected = b.build(numbered)
        t_build = time.time() - t0
        bin_dir = b.s.build_dir / "bin"
        t0 = time.time()
        reach = self.reach(bin_dir, props)
        t_reach = time.time() - t0
        self.rows = [{"id": i, "switch": "-", "outcome": "NOT HUNTED", "message": "not among the hunt build's sites"}
                     for i in missing]
        self.rows += [{"id": m.id, "switch": str(n), "outcome": "NOT HUNTED", "message": ejected[n]}
                      for n, m in numbered if n in ejected]
        queue = [(n, m) for n, m in numbered if n not in ejected]
        self.total = len(self.rows) + len(queue)
        t0 = time.time()
        judge.in_threads(self.worker, [(bin_dir, queue, reach) for _ in range(self.a.jobs)])
        t_hunt = time.time() - t0
        self.report({"build": t_build, "reach": t_reach, "hunt": t_hunt, "all": time.time() - t_start})
        return 0 if not self.stop else 1

    def report(self, phase: dict[str, float]) -> None:
        body = "\t".join(COLUMNS) + "\n" + "".join("\t".join(clean(r.get(k, "-")) for k in COLUMNS) + "\n"
                                                   for r in self.rows)
        fuzzlib.atomic_write(self.dir / "hunt.tsv", body.encode())
        counts: dict[str, int] = {}
        for r in self.rows:
            counts[r["outcome"]] = counts.get(r["outcome"], 0) + 1
        killed = [r for r in self.rows if r["outcome"] == "KILLED"]
        hunted = sum(counts.get(o, 0) for o in ("KILLED", "SURVIVED", "REJECTED"))
        lines = [f"# Hunt of {self.run_dir.name}", "",
                 f"- command: `scripts/mutate --hunt {self.run_dir} --seed {self.a.seed} --hunt-seconds "
                 f"{self.a.hunt_seconds:g} --hunt-props {self.a.hunt_props}"
                 f"{f' --hunt-max {self.a.hunt_max}' if self.a.hunt_max else ''}`",
                 f"- commit {self.a.commit[:12]}; {len(self.rows)} survivors; time: "
                 + ", ".join(f"{k} {fuzzlib_duration(v)}" for k, v in phase.items()),
                 f"- killed {len(killed)} of {hunted} hunted"
                 f"{f' ({100 * len(killed) / hunted:.1f}%)' if hunted else ''}; "
                 + ", ".join(f"{o} {c}" for o, c in sorted(counts.items())), "",
                 "| outcome | mutant | properties hunting it | killed by | oracle/rule | input | seconds | message |",
                 "|---|---|---|---|---|---|---|---|"]
        order = {"KILLED": 0, "REJECTED": 1, "SURVIVED": 2, "NOT REACHED": 3, "NOT HUNTED": 4}
        for r in sorted(self.rows, key=lambda r: (order.get(r["outcome"], 9), r["id"])):
            lines.append(f"| {r['outcome']} | `{r['id']}` | {r.get('properties', '-')} | {r.get('property', '-')} | "
                         f"{r.get('oracle', '-')}/"
                         f"{r.get('rule', '-')} | {r.get('input', '-')} | {r.get('seconds', '-')} | "
                         f"{clean(r.get('message', '-')).replace('|', '/')} |")
        own = sorted((self.dir / "findings").glob("*")) if (self.dir / "findings").is_dir() else []
        if own:
            lines += ["", f"## Findings of the unmutated stack ({len(own)})", "",
                      "Inputs a hunt found that fail with no mutant active: defects of the stack or of an oracle, "
                      "to triage like any campaign finding.", ""]
            lines += [f"- `{os.path.relpath(f, ROOT)}`" for f in own]
        fuzzlib.atomic_write(self.dir / "hunt.md", ("\n".join(lines) + "\n").encode())
        for line in lines[2:5]:
            print(line[2:])
        if killed:
            print(f"promoted {len(killed)} inputs (commit them): " + " ".join(r["input"] for r in killed))
        if own:
            print(f"{len(own)} findings of the unmutated stack (triage them): {os.path.relpath(own[0].parent, ROOT)}")
        print(f"report: {self.dir / 'hunt.md'}")


def fuzzlib_duration(s: float) -> str:
    return f"{s / 60:.1f} min" if s >= 90 else f"{s:.0f} s"


def main(a, log, argued: dict[str, str]) -> int:
    """scripts/mutate --hunt: the hunt, a first Ctrl-C stopping after the running campaigns."""
    h = Hunt(a, log)

    def on_signal(sig, frame):
        h.stop += 1
        if h.stop == 1:
            log("hunt: stopping after the running campaigns (again to stop now)")
        else:
            judge.kill_running()
            os._exit(1)

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    return h.run(argued)
