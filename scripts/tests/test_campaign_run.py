"""Whole runs of scripts/campaign on fake libFuzzer binaries (ctest `scripts/campaign-run`, label
unit, every preset; the real binaries are the fuzz preset's `campaign/*` tests).

Two targets are fakes (fakebin.py): each run prints libFuzzer's status and final-stats lines,
leaves one complete unit and one partial file in its session folder, and one of them writes a
crash artifact. Two property suites are fakes too (one property passes, one fails), and so is
stackcheck-report. A short campaign (--no-fork, --no-build) on a working folder where a killed
run left a session, a partial corpus file and a unit the merge finds redundant must: resume
(recover the unit, drop the partial files), run both targets within the budget with the flags
and OSS-Fuzz's limits, read their figures and peak RSS, harvest complete units only, merge,
bucket the crash into a candidate that reproduces, run the properties, write every table and
render the report, and exit 1 under --fail-on-finding. A second run on the same folder resumes
the buckets without counting an artifact twice; a continuous run stopped as Ctrl-C stops it
ends `interrupted` with its report.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import signal
import sys
import threading
import unittest
from pathlib import Path

sys.dont_write_bytecode = True
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "lib"))
sys.path.insert(0, str(HERE))
import campaign  # noqa: E402
import campaign_lanes  # noqa: E402
import fuzzlib  # noqa: E402
from campaign_cli import parse_args  # noqa: E402
from fakebin import Env, fuzzer, temp_dir, write_exe  # noqa: E402

TARGETS = fuzzlib.all_targets()
CRASHER = "fuzz_program" if "fuzz_program" in TARGETS else TARGETS[0]
CLEAN = next(t for t in TARGETS if t != CRASHER)
SUITES = [p.stem for p in sorted((fuzzlib.ROOT / "properties").glob("*_props.cpp"))][:2]

FAKE_SUITE = r'''
import os
print(f"params {os.environ['RC_PARAMS']}")
print("[ RUN      ] Fake.passes\nverdicts: 300 cases, 1 inconclusive\n[       OK ] Fake.passes (30 ms)")
if os.environ.get("FAKE_PROPERTY_FAILS"):
    print("[ RUN      ] Fake.fails\n[  FAILED  ] Fake.fails (4 ms)")
'''
# stackcheck-report: report.md names the tables it found.
FAKE_REPORT = r'''
import sys
from pathlib import Path
d = Path(sys.argv[1])
(d / "report.md").write_text(" ".join(sorted(p.name for p in d.glob("*.tsv"))) + "\n")
(d / "index.html").write_text("<html></html>\n")
'''


def sha1(data: bytes) -> str:
    return hashlib.sha1(data).hexdigest()


def table(path: Path) -> list[dict]:
    lines = path.read_text().splitlines()
    head = lines[0].split("\t")
    return [dict(zip(head, l.split("\t"))) for l in lines[1:]]


class CampaignRunTest(unittest.TestCase):
    def setUp(self):
        self.tmp = temp_dir(self, "campaign-run-test-")
        self.bin = self.tmp / "bin"  # the sanitized build's
        self.fast = self.tmp / "fast"  # the fast lane's
        for t in (CRASHER, CLEAN):
            fuzzer(self.bin, t, sanitized=True)
            fuzzer(self.fast, t)
        for s in SUITES:
            write_exe(self.bin / s, FAKE_SUITE)
        write_exe(self.bin / "stackcheck-report", FAKE_REPORT)
        self.out = self.tmp / "out"
        self.argv_log = self.tmp / "argv.log"
        env = Env(FAKE_CRASH=f"{CRASHER}=BUG-A", FAKE_ARGV_LOG=str(self.argv_log), FAKE_FUZZ_SECONDS="0.3",
                  FAKE_CRASH_DEFECT=None, FAKE_PROPERTY_FAILS="1", FAKE_UNIT_TEXT=None, FAKE_UNIT_DEFECT=None)
        env.__enter__()
        self.addCleanup(env.__exit__)

    def campaign(self, *argv: str) -> campaign.Campaign:
        c = campaign.Campaign(parse_args(["--out", str(self.out), "--no-build", "--no-fork", "--plain", "--jobs", "2",
                                          "--targets", f"{CRASHER},{CLEAN}", "--seed", "42", "--minimize-seconds", "5",
                                          *argv]))
        c.bin, c.fast_bin = self.bin, self.fast
        return c

    def run_campaign(self, c: campaign.Campaign) -> tuple[int, str, str]:
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            rc = c.run()
        c.lock_file.close()
        return rc, out.getvalue(), err.getvalue()

    def plant_leftovers(self) -> dict[str, str]:
        """What a killed run leaves: a session with a unit, a partial corpus file; plus a unit the
        merge finds redundant."""
        names = {}
        corpus = self.out / "corpus" / CRASHER
        corpus.mkdir(parents=True)
        for key, data in (("kept", b"kept from an earlier run"), ("redundant", b"redundant: the merge drops it")):
            names[key] = sha1(data)
            (corpus / names[key]).write_bytes(data)
        (corpus / ("e" * 40)).write_bytes(b"a partial unit")
        session = self.out / "sessions" / CRASHER / "20200101T000000Z-0"
        session.mkdir(parents=True)
        data = b"found by the killed run"
        names["recovered"] = sha1(data)
        (session / names["recovered"]).write_bytes(data)
        (session / ".pgid").write_text("2147483000")
        return names

    def test_a_short_campaign_from_leftovers_to_report(self):
        names = self.plant_leftovers()
        c = self.campaign("--minutes", "0.2", "--fail-on-finding")  # 12 s: each run ~1 s, then restarts
        rc, out, err = self.run_campaign(c)
        self.assertEqual(rc, 1, err)  # a finding bucket under --fail-on-finding
        self.assertIn(f"[{CRASHER}] resumed: 1 unit(s) recovered from interrupted runs, 1 partial file(s) dropped", err)
        run = c.run_dir

        crashes = self.check_figures(run, self.check_fuzzer_runs())
        self.check_corpus(names)
        b = self.check_bucket(run, crashes)
        self.check_properties_and_report(run, out)

        # Resumed on the same folder: no artifact counted twice, the bucket carried over.
        with Env(FAKE_CRASH=None, FAKE_PROPERTY_FAILS=None):
            again = self.campaign("--minutes", "0.1", "--no-properties")
            rc, _, err = self.run_campaign(again)
        self.assertEqual(rc, 0, err)  # without --fail-on-finding
        (b2,) = table(again.run_dir / "buckets.tsv")
        self.assertEqual((b2["bucket"], b2["count"]), (b["bucket"], b["count"]))
        self.assertFalse((again.run_dir / "properties.tsv").exists())
        self.assertTrue(names["kept"] in {f.name for f in (self.out / "corpus" / CRASHER).iterdir()})

    def check_fuzzer_runs(self) -> dict[str, int]:
        """Every fuzzer run: its flags, the seed moved on by each restart, OSS-Fuzz's limits; returns
        each target's number of runs."""
        runs = [l.split("\t") for l in self.argv_log.read_text().splitlines()]
        fuzzing = [r for r in runs if not any(a.startswith(("-merge", "-minimize", "--")) for a in r[1:])
                   and not r[0].endswith("_replay")]
        self.assertEqual({r[0] for r in fuzzing}, {CRASHER, CLEAN})
        runs_of = {}
        for t, seed0 in ((CRASHER, 42), (CLEAN, 43)):
            mine = [r for r in fuzzing if r[0] == t]
            self.assertGreaterEqual(len(mine), 2)  # restarted after its run ended, with more of its share left
            runs_of[t] = len(mine)
            self.assertEqual([a for r in mine for a in r if a.startswith("-seed=")],
                             [f"-seed={seed0 + 1000 * k}" for k in range(len(mine))])
            first = mine[0]
            self.assertEqual(first[2], str(self.out / "corpus" / t))  # session, then the persistent corpus
            self.assertIn(f"-artifact_prefix={self.out / 'crashes' / t}/", first)
            self.assertIn("-print_final_stats=1", first)
            self.assertTrue(any(a.startswith("-max_total_time=") for a in first))
            self.assertNotIn("-fork=1", first)
            own = fuzzlib.read_options(t)
            if "timeout" not in own:
                self.assertIn("-timeout=25", first)
            if "rss_limit_mb" not in own:
                self.assertIn("-rss_limit_mb=2560", first)
        return runs_of

    def check_figures(self, run: Path, runs_of: dict[str, int]) -> list[Path]:
        """The figures read from the logs, the peak RSS the OS measured, the budget kept; returns the
        crash artifacts."""
        rows = {r["target"]: r for r in table(run / "targets.tsv")}
        self.assertEqual(set(rows), {CRASHER, CLEAN})
        for t, r in rows.items():
            self.assertEqual(int(r["execs"]), 600 * runs_of[t])  # 600 per run (its final stats), over restarts
            self.assertEqual((r["cov"], r["ft"], r["slowest_s"], r["status"]), ("15", "30", "2", "done"))
            self.assertGreater(int(r["peak_rss_mb"]), 0)
            self.assertLessEqual(float(r["seconds"]), 12 + 3)
        crashes = [p for p in (self.out / "crashes" / CRASHER).iterdir() if p.name.startswith("crash-")]
        self.assertEqual(rows[CRASHER]["findings"], str(len(crashes)))
        self.assertEqual((rows[CRASHER]["buckets"], rows[CLEAN]["findings"], rows[CLEAN]["buckets"]), ("1", "0", "0"))
        series = (run / "series" / f"{CLEAN}.tsv").read_text().splitlines()
        self.assertEqual(series[0], "t_s\texecs\texec_s\tcov\tft\tcorpus\trss_mb")
        return crashes

    def check_corpus(self, names: dict[str, str]):
        """The corpus: complete units only, the recovered one kept, the redundant one pruned."""
        for t in (CRASHER, CLEAN):
            corpus = self.out / "corpus" / t
            for f in corpus.iterdir():
                self.assertEqual(sha1(f.read_bytes()), f.name, f)
            self.assertIn(sha1(f"unit {t} {42 if t == CRASHER else 43}\n".encode()), {f.name for f in corpus.iterdir()})
        corpus = {f.name for f in (self.out / "corpus" / CRASHER).iterdir()}
        self.assertTrue({names["kept"], names["recovered"]} <= corpus)
        self.assertNotIn(names["redundant"], corpus)
        self.assertTrue((self.out / "pruned" / CRASHER / names["redundant"]).exists())
        self.assertFalse((self.out / "sessions" / CRASHER).exists() and any((self.out / "sessions" / CRASHER).iterdir()))

    def check_bucket(self, run: Path, crashes: list[Path]) -> dict:
        """The crashes: one bucket, minimized, a candidate that reproduces."""
        (b,) = table(run / "buckets.tsv")
        self.assertEqual((b["target"], b["oracle"], b["rule"], b["count"], b["reproduces"]),
                         (CRASHER, "end-to-end", "rule-A", str(len(crashes)), "yes"))
        cand = Path(b["candidate"]).read_text()
        self.assertIn("# seed: 42\n", cand)
        self.assertTrue(cand.endswith("\nBUG-A"), cand)
        return b

    def check_properties_and_report(self, run: Path, out: str):
        """The properties, the classes, the report."""
        props = {(r["suite"], r["property"], r["result"]) for r in table(run / "properties.tsv")}
        self.assertEqual(props, {("Fake", "passes", "pass"), ("Fake", "fails", "fail")})
        self.assertIn("RC_PARAMS=\"seed=42 max_success=300\"", (run / "properties.tsv").read_text())
        self.assertEqual(len(list((run / "logs").glob("*_props.log"))), len(SUITES))
        classes = table(run / "classes.tsv")
        self.assertTrue(all(r["class"] == "valid" for r in classes) and {r["target"] for r in classes} == {CRASHER, CLEAN})
        tables = ["buckets.tsv", "classes.tsv", "properties.tsv", "run.tsv", "targets.tsv"]
        if any(t in campaign_lanes.FAST_TARGETS for t in (CRASHER, CLEAN)):
            tables = sorted(tables + ["sanitized.tsv"])  # a fast-lane target's new units were checked
        self.assertEqual((run / "report.md").read_text().split(), tables)
        self.assertEqual(table(run / "run.tsv")[-2], {"key": "status", "value": "complete"})
        self.assertIn(f"report: {run / 'report.md'}\n        {run / 'index.html'}", out)
        self.assertIn("rerun: scripts/campaign --seed 42 --minutes 0.2", out)
        self.assertIn("1 finding bucket(s):", out)

    def test_without_findings_or_failures_fail_on_finding_passes(self):
        with Env(FAKE_CRASH=None, FAKE_PROPERTY_FAILS=None):
            rc, _, err = self.run_campaign(self.campaign("--minutes", "0.1", "--fail-on-finding"))
        self.assertEqual(rc, 0, err)
        with Env(FAKE_CRASH=None):  # positive control: a failing property alone fails the run
            rc, out, _ = self.run_campaign(self.campaign("--minutes", "0.1", "--fail-on-finding"))
        self.assertEqual(rc, 1)
        n = len(SUITES)  # each fake suite: one property passes, one fails
        self.assertIn(f"properties: {n} of {2 * n} passed at max_success=300, {n} failed", out)

    def test_the_lanes_an_asan_only_read_is_found_by_the_check_of_new_inputs_only(self):
        """The lane split's control on fakes: every unit the fuzzers write holds an OVERREAD that
        only a sanitized build sees (the real control is campaign/lane-control)."""
        deep = CRASHER in campaign_lanes.FAST_TARGETS
        if not deep:
            self.skipTest(f"{CRASHER} is not a deep target")

        def run(mode: str, *more: str) -> tuple[campaign.Campaign, list[dict]]:
            with Env(FAKE_CRASH=None, FAKE_PROPERTY_FAILS=None, FAKE_UNIT_TEXT="OVERREAD"):
                c = self.campaign("--minutes", "0.05", "--no-properties", "--sanitize", mode, *more)
                rc, _, err = self.run_campaign(c)
            self.assertEqual(rc, 0, err)
            found = [b for b in table(c.run_dir / "buckets.tsv") if b["target"] == CRASHER]
            return c, found

        c, found = run("none")  # the fast lane alone: nothing sees it
        self.assertEqual(found, [])
        self.assertFalse((c.run_dir / "sanitized.tsv").exists())
        first = (c.run_dir / "logs" / f"{CRASHER}.0.log").read_text().splitlines()[0]
        self.assertTrue(first.startswith(f"$ {self.fast / CRASHER} "), first)  # fuzzed in the fast lane
        self.assertEqual({r["lane"] for r in table(c.run_dir / "targets.tsv") if r["target"] == CRASHER}, {"fast"})

        c, found = run("new")  # the default: its new units replayed under the sanitized build
        self.assertEqual([(b["oracle"], b["rule"]) for b in found], [("AddressSanitizer", "heap-buffer-overflow")])
        self.assertIn("Orchestrator::publish", found[0]["frames"])
        checks = {r["target"]: r for r in table(c.run_dir / "sanitized.tsv")}
        self.assertGreaterEqual(int(checks[CRASHER]["checked"]), 1)
        self.assertGreaterEqual(int(checks[CRASHER]["findings"]), 1)
        self.assertEqual(checks[CRASHER]["waiting"], "0")  # every new unit checked within the round
        ledger = (self.out / "sanitized" / f"{CRASHER}.tsv").read_text().splitlines()
        corpus = {f.name for f in (self.out / "corpus" / CRASHER).iterdir()}
        self.assertTrue({l.split("\t")[0] for l in ledger} >= corpus)  # every corpus unit has its verdict
        notes = (c.run_dir / "notes.md").read_text()
        self.assertIn("## Lanes (--sanitize new, --asan-jobs 0)", notes)
        self.assertRegex(notes, r"\| fast \| .*" + CRASHER)

        c, found = run("all")  # fuzzed sanitized: the fuzzer itself sees it
        first = (c.run_dir / "logs" / f"{CRASHER}.0.log").read_text().splitlines()[0]
        self.assertTrue(first.startswith(f"$ {self.bin / CRASHER} "), first)
        self.assertFalse((c.run_dir / "sanitized.tsv").exists())

        c, _ = run("new", "--asan-jobs", "1")  # a sanitized twin on one job, the same corpus
        rows = {r["target"]: r for r in table(c.run_dir / "targets.tsv")}
        self.assertEqual((rows[CRASHER]["lane"], rows[f"{CRASHER}.asan"]["lane"]), ("fast", "asan"))
        self.assertGreater(int(rows[f"{CRASHER}.asan"]["execs"]), 0)
        twin = (c.run_dir / "logs" / f"{CRASHER}.asan.0.log").read_text().splitlines()[0]
        self.assertTrue(twin.startswith(f"$ {self.bin / CRASHER} {self.out / 'sessions' / CRASHER}/"), twin)
        self.assertIn(f" {self.out / 'corpus' / CRASHER} ", twin)

    def test_a_sanitizer_check_stops_on_a_unit_and_goes_on_after_it(self):
        corpus = self.out / "corpus" / CRASHER
        corpus.mkdir(parents=True)
        names = []
        for data in (b"a clean one", b"an OVERREAD one", b"an ERROR one", b"another clean one"):
            names.append(sha1(data))
            (corpus / names[-1]).write_bytes(data)
        store = campaign.Store(self.out)
        check = campaign.SanitizerCheck(store, self.bin, [CRASHER], timeout=30)
        check.scan()
        check.poll()  # the first batch starts; a scan while it runs queues none of it again
        check.scan()
        self.assertEqual(check.pending(), len(names))
        check.drain()
        ledger = (self.out / "sanitized" / f"{CRASHER}.tsv").read_text().splitlines()
        self.assertEqual(len(ledger), len(names))  # each unit checked once
        verdicts = dict(l.split("\t") for l in ledger)
        ov = names[1]
        bucket = verdicts[ov].split(":")[1]
        self.assertEqual({n: verdicts[n] for n in names},
                         {names[0]: "clean", ov: f"finding:{bucket}:crash-{ov}", names[2]: "error", names[3]: "clean"})
        self.assertEqual((self.out / "crashes" / CRASHER / f"crash-{ov}").read_bytes(), b"an OVERREAD one")
        again = campaign.SanitizerCheck(store, self.bin, [CRASHER], timeout=30)  # a resumed campaign
        again.scan()
        self.assertEqual(again.pending(), 0)
        data = b"one more OVERREAD"  # the same bucket again: counted, no second artifact
        (corpus / sha1(data)).write_bytes(data)
        check.drain()
        self.assertEqual(check.state[CRASHER].findings, 2)
        self.assertEqual(dict(l.split("\t") for l in (self.out / "sanitized" / f"{CRASHER}.tsv").read_text()
                              .splitlines())[sha1(data)], f"finding:{bucket}")
        self.assertEqual(len(list((self.out / "crashes" / CRASHER).iterdir())), 1)

    def test_a_continuous_campaign_stopped_as_ctrl_c_stops_it(self):
        c = self.campaign("--minutes", "0", "--round", "1")

        def ctrl_c():  # what main's signal handler does on the first Ctrl-C
            c.stop_requested += 1
            c.stop_children(signal.SIGINT)

        with Env(FAKE_FUZZ_SECONDS="30"):
            timer = threading.Timer(3.0, ctrl_c)
            timer.start()
            rc, out, err = self.run_campaign(c)
            timer.join()
        self.assertEqual(rc, 0, err)
        meta = {r["key"]: r["value"] for r in table(c.run_dir / "run.tsv")}
        self.assertEqual(meta["status"], "interrupted")
        rows = table(c.run_dir / "targets.tsv")
        self.assertEqual({r["status"] for r in rows}, {"done"})
        self.assertTrue(all(float(r["seconds"]) < 20 for r in rows))  # stopped, not run to the slice's end
        self.assertFalse((c.run_dir / "properties.tsv").exists())  # a stopped run skips the properties
        self.assertFalse((c.run_dir / "classes.tsv").exists())
        self.assertTrue((c.run_dir / "report.md").exists())
        self.assertIn("until interrupted", err)


if __name__ == "__main__":
    unittest.main()
