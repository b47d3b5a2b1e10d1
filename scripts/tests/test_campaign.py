"""Unit tests of scripts/campaign's modules (scripts/lib/campaign*.py; ctest `scripts/campaign`,
label unit, every preset): its flags, the time shares, libFuzzer's lines read from a growing log,
the kill-safe corpus, the merge, the findings bucketed and resumed, the property verdicts read
from gtest output, and the tables. The binaries are fakes (fakebin.py) in a temporary folder
(Campaign.bin), so nothing is built; the whole loop is in test_campaign_run.py.
Positive controls: a unit whose name is not its SHA-1 never enters the corpus and is dropped on
resume, a failed merge leaves the corpus as it was, bad flags are refused.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import os
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

sys.dont_write_bytecode = True
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "lib"))
sys.path.insert(0, str(HERE))
import campaign  # noqa: E402
import fuzzlib  # noqa: E402
from campaign_cli import parse_args  # noqa: E402
from campaign_report import tsv  # noqa: E402
from campaign_run import Stats, Task, fmt_int, fmt_secs  # noqa: E402
from campaign_store import Store  # noqa: E402
from fakebin import fuzzer, temp_dir, write_exe  # noqa: E402
from fuzzlib import UsageError  # noqa: E402

TARGETS = fuzzlib.all_targets()
T = "fuzz_program" if "fuzz_program" in TARGETS else TARGETS[0]


def unit(data: bytes) -> tuple[str, bytes]:
    return hashlib.sha1(data).hexdigest(), data


def quiet(f, *a):
    with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):
        return f(*a)


class CliTest(unittest.TestCase):
    def refused(self, *argv: str) -> str:
        err = io.StringIO()
        with contextlib.redirect_stderr(err), self.assertRaises(SystemExit) as e:
            parse_args(list(argv))
        self.assertEqual(e.exception.code, 2, argv)
        self.assertEqual(len(err.getvalue().strip().splitlines()), 1)
        self.assertTrue(err.getvalue().endswith("(see scripts/campaign --help)\n"), err.getvalue())
        return err.getvalue()

    def test_bad_flags(self):
        self.assertIn("--jobs must be at least 1", self.refused("--jobs", "0"))
        self.assertIn("--round must be more than 0", self.refused("--round", "0"))
        self.assertIn("argument --minutes: '-1' is negative", self.refused("--minutes", "-1"))
        self.assertIn("argument --seed: 'x' is not a number", self.refused("--seed", "x"))
        self.assertIn("--libfuzzer takes '-flag=value', not 'max_len=5'", self.refused("--libfuzzer=max_len=5"))
        self.assertIn("unknown target 'fuzz_nonesuch'", self.refused("--targets", f"{T},fuzz_nonesuch"))
        self.assertIn("unknown property 'No.such'", self.refused("--targets", "props:No.such"))
        self.assertIn("argument --sanitize: invalid choice: 'some'", self.refused("--sanitize", "some"))
        self.assertIn("only with --sanitize new, not none", self.refused("--sanitize", "none", "--asan-jobs", "1"))
        self.assertIn("--asan-jobs 2 leaves the fast lane no job (--jobs 2)",
                      self.refused("--jobs", "2", "--asan-jobs", "2"))
        self.assertIn("--asan-jobs: no fast-lane target", self.refused("--targets", "fuzz_relative_ptr", "--asan-jobs",
                                                                       "1", "--jobs", "2"))

    def test_targets_split_deduplicated_and_expanded(self):
        a = parse_args(["--targets", f"{T}, {TARGETS[-1]}", "--targets", T])
        self.assertEqual(a.targets, list(dict.fromkeys([T, TARGETS[-1]])))
        self.assertEqual(parse_args([]).targets, TARGETS)
        props = parse_args(["--targets", "props:*"]).targets
        self.assertEqual(props, [fuzzlib.PROP_PREFIX + p for p in fuzzlib.property_names()])

    def test_defaults_that_follow_other_flags(self):
        a = parse_args(["--minutes", "20", "--seed", "5", "--libfuzzer=-max_len=9"])
        self.assertEqual((a.seed, a.property_seconds, a.extra), (5, 240.0, ["-max_len=9"]))
        self.assertEqual(parse_args(["--minutes", "1"]).property_seconds, 60.0)  # at least a minute
        self.assertEqual(parse_args(["--minutes", "0"]).property_seconds, 300.0)  # continuous: per round
        self.assertEqual(a.command, "scripts/campaign --minutes 20 --seed 5 --libfuzzer=-max_len=9")
        self.assertIsInstance(parse_args([]).seed, int)

    def test_out_inside_the_source_tree_is_refused(self):
        for out in (fuzzlib.ROOT, fuzzlib.ROOT / "docs" / "camp"):
            with self.assertRaisesRegex(UsageError, "never writes into the source tree"):
                campaign.Campaign(parse_args(["--out", str(out)]))
        campaign.Campaign(parse_args(["--out", str(fuzzlib.ROOT / "build" / "campaign-test-unused")]))  # no write
        self.assertFalse((fuzzlib.ROOT / "build" / "campaign-test-unused").exists())
        p = subprocess.run([sys.executable, str(HERE.parent / "lib" / "campaign.py"), "--no-build", "--out",
                            str(fuzzlib.ROOT / "docs" / "camp")], capture_output=True, text=True, timeout=60,
                           env=dict(os.environ, PYTHONDONTWRITEBYTECODE="1"))
        self.assertEqual(p.returncode, 2)
        self.assertIn("campaign: --out", p.stderr)
        self.assertFalse((fuzzlib.ROOT / "docs" / "camp").exists())

    def test_time_formats(self):
        self.assertEqual([fmt_secs(s) for s in (-3, 59.9, 61, 3600, 3725)], ["0:00", "0:59", "1:01", "1:00:00", "1:02:05"])
        self.assertEqual(fmt_int(1234567), "1,234,567")


class Fixture(unittest.TestCase):
    def setUp(self):
        self.tmp = temp_dir(self, "campaign-test-")
        self.bin = self.tmp / "bin"
        fuzzer(self.bin, T)

    def campaign(self, *argv: str) -> campaign.Campaign:
        c = campaign.Campaign(parse_args(["--out", str(self.tmp / "out"), "--no-build", "--targets", T, "--seed", "7",
                                          *argv]))
        c.bin = c.fast_bin = self.bin
        (c.run_dir / "logs").mkdir(parents=True, exist_ok=True)
        return c


class ScheduleTest(Fixture):
    def test_every_target_gets_an_equal_share_of_the_slots(self):
        c = self.campaign("--jobs", "2", "--seed", "100")
        c.a.targets = ["a", "b", "c", "d", "e"]
        tasks = c.plan(600)
        self.assertEqual([(t.target, t.seconds, t.slice, t.seed) for t in tasks],
                         [(n, 240.0, 120.0, 100 + i) for i, n in enumerate("abcde")])
        c.a.jobs = 8  # as many slots as targets or more: each runs the whole round
        self.assertEqual({(t.seconds, t.slice) for t in c.plan(600)}, {(600, 600)})

    def test_the_waiting_task_with_the_most_time_left_runs_next(self):
        c = self.campaign()
        c.tasks = [Task("a", 100, 10, 1, used=50), Task("b", 100, 10, 2, used=20), Task("c", 100, 10, 3, used=20),
                   Task("d", 100, 10, 4, done=True)]
        self.assertEqual(c.next_task().target, "b")  # a tie goes to the earlier task
        c.tasks[1].proc = object()  # running
        self.assertEqual(c.next_task().target, "c")
        for t in c.tasks[:3]:
            t.done = True
        self.assertIsNone(c.next_task())

    def test_remaining_counts_the_run_in_progress(self):
        t = Task("a", 100, 10, 1, used=30)
        self.assertEqual(t.remaining(1000), 70)
        t.proc, t.started = object(), 990
        self.assertEqual(t.remaining(1000), 60)
        self.assertEqual(t.remaining(10**6), 0)

    def test_limits_are_oss_fuzz_s_unless_the_options_set_their_own(self):
        own = fuzzlib.read_options(T)
        got = dict(f[1:].split("=", 1) for f in self.campaign().limits(T))
        self.assertEqual(got, {k: v for k, v in {"timeout": "25", "rss_limit_mb": "2560"}.items() if k not in own})


class ReadLogTest(unittest.TestCase):
    def test_whole_lines_only_and_the_largest_figures(self):
        with tempfile.TemporaryDirectory() as d:
            log = Path(d) / "x.log"
            t = Task("a", 10, 10, 1, log_path=log)
            log.write_bytes(b"$ cmd\nINFO: Seed: 1\n#2\tINITED cov: 10 ft: 20 corp: 3/30b exec/s: 0 rss: 25Mb\n"
                            b"#4096\tpulse  cov: 12 ft: 25 corp: 4/1Kb lim: 4 exec/s: 2048 rss: 26Mb\n#8192\tNEW  cov: 99")
            t.read_log()
            self.assertEqual(t.stats, Stats(execs=4096, exec_s=2048, cov=12, ft=25, corpus=4))
            with open(log, "ab") as f:  # the cut line completes
                f.write(b" ft: 30 corp: 5/2Kb lim: 4 exec/s: 1900 rss: 26Mb\nSlowest unit: 3 s:\nSlowest unit: 1 s:\n"
                        b"stat::number_of_executed_units: 9000\nstat::average_exec_per_sec: 1800\n")
            t.read_log()
            self.assertEqual(t.stats, Stats(execs=9000, exec_s=1900, cov=99, ft=30, corpus=5))
            self.assertEqual(t.slowest_s, 3)
            t.base_execs = 100
            self.assertEqual(t.total_execs, 9100)
            t.read_log()  # nothing new: nothing changes
            self.assertEqual(t.stats.execs, 9000)


class StoreTest(Fixture):
    def test_harvest_takes_complete_units_only(self):
        s = Store(self.tmp / "out")
        session = self.tmp / "session"
        session.mkdir()
        good, data = unit(b"a unit")
        (session / good).write_bytes(data)
        (session / ("0" * 40)).write_bytes(b"cut short")  # positive control: not its hash
        (session / ".hidden").write_bytes(b"x")
        pruned, pdata = unit(b"pruned once")
        (session / pruned).write_bytes(pdata)
        s.pruned(T).mkdir(parents=True)
        (s.pruned(T) / pruned).write_bytes(pdata)
        self.assertEqual(s.harvest(T, session), 1)
        self.assertEqual(sorted(p.name for p in s.corpus(T).iterdir()), [good])
        self.assertEqual(s.harvest(T, session), 0)  # already there
        self.assertEqual(s.size(T), (1, len(data)))
        self.assertEqual(s.harvest(T, self.tmp / "absent"), 0)

    def test_recover_harvests_killed_sessions_and_drops_partial_files(self):
        s = Store(self.tmp / "out")
        killed = s.sessions(T) / "20300101T000000Z-0"
        killed.mkdir(parents=True)
        got, data = unit(b"left by a killed run")
        (killed / got).write_bytes(data)
        (killed / ".pgid").write_text("999999999")  # no such group: nothing to end
        s.corpus(T).mkdir(parents=True)
        (s.corpus(T) / ("f" * 40)).write_bytes(b"not what its name says")  # positive control
        (s.corpus(T) / ".x.tmp-1-2").write_bytes(b"half")
        (self.tmp / "out" / "candidates" / T).mkdir(parents=True)
        (self.tmp / "out" / "candidates" / T / ".c.gir.tmp-3-4").write_bytes(b"half")
        (self.tmp / "out" / "tmp" / T / "fork-job").mkdir(parents=True)
        self.assertEqual(s.recover(T), (1, 3))
        self.assertEqual([p.name for p in s.corpus(T).iterdir()], [got])
        self.assertEqual(list(s.sessions(T).iterdir()), [])
        self.assertFalse((self.tmp / "out" / "tmp" / T).exists())
        self.assertEqual(list((self.tmp / "out" / "candidates" / T).iterdir()), [])
        self.assertEqual(s.recover(T), (0, 0))

    def test_a_second_campaign_on_the_same_folder_is_refused(self):
        a, b = self.campaign(), self.campaign()
        a.lock()
        self.addCleanup(a.lock_file.close)
        with self.assertRaisesRegex(UsageError, "another campaign is running on"):
            b.lock()
        b.lock_file.close()


class MergeTest(Fixture):
    def test_redundant_units_move_to_pruned(self):
        c = self.campaign()
        keep, kdata = unit(b"keeps a feature")
        drop, ddata = unit(b"redundant unit")
        c.store.corpus(T).mkdir(parents=True)
        (c.store.corpus(T) / keep).write_bytes(kdata)
        (c.store.corpus(T) / drop).write_bytes(ddata)
        quiet(c.merge, T)
        self.assertEqual([p.name for p in c.store.corpus(T).iterdir()], [keep])
        self.assertEqual((c.store.pruned(T) / drop).read_bytes(), ddata)
        self.assertFalse((c.out / "merge" / T).exists())  # its work folder removed

    def test_a_failed_merge_leaves_the_corpus(self):  # positive control
        c = self.campaign()
        write_exe(self.bin / T, "import sys\nsys.exit(3)\n")
        names = {unit(b"redundant a")[0], unit(b"redundant b")[0]}
        c.store.corpus(T).mkdir(parents=True)
        for n, d in (unit(b"redundant a"), unit(b"redundant b")):
            (c.store.corpus(T) / n).write_bytes(d)
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            c.merge(T)
        self.assertIn(f"[{T}] merge failed (exit 3); corpus left as it was", err.getvalue())
        self.assertEqual({p.name for p in c.store.corpus(T).iterdir()}, names)


class FindingsTest(Fixture):
    def plant(self, c: campaign.Campaign, name: str, data: bytes) -> None:
        c.store.crashes(T).mkdir(parents=True, exist_ok=True)
        (c.store.crashes(T) / name).write_bytes(data)

    def buckets(self, c: campaign.Campaign) -> dict[str, dict]:
        return {r["rule"]: r for r in c.buckets.values()}

    def test_bucketed_minimized_written_as_candidates_and_resumed(self):
        c = self.campaign("--minimize-seconds", "5")
        self.plant(c, "crash-1", b"xx BUG-A one")
        self.plant(c, "crash-2", b"yy BUG-A two")
        self.plant(c, "leak-3", b"BUG-B")
        self.plant(c, "oom-4", b"nothing to see")
        self.plant(c, "README", b"BUG-C: not an artifact")
        quiet(c.process_findings)
        b = self.buckets(c)
        self.assertEqual(sorted(b), ["oom", "rule-A", "rule-B"])  # unreproduced: bucketed by its kind
        a = b["rule-A"]
        self.assertEqual((a["count"], a["target"], a["oracle"], a["reproduces"]), ("2", T, "end-to-end", "yes"))
        self.assertEqual(Path(a["minimized"]).read_bytes(), b"BUG-A")
        cand = Path(a["candidate"]).read_text()
        self.assertTrue(cand.startswith(f"# stackcheck {T}\n# oracle: end-to-end\n# rule: rule-A\n# seed: 7\n"), cand)
        self.assertIn("# description: planted bug A\nBUG-A", cand)
        self.assertEqual(a["replay"], f"scripts/replay {a['candidate']}")  # outside the tree: absolute
        u = b["oom"]
        self.assertEqual((u["oracle"], u["reproduces"], u["count"]), ("unreproduced", "no", "1"))
        self.assertEqual(len((c.out / "findings" / "index.tsv").read_text().splitlines()), 4)
        # A resumed campaign reads the buckets back and buckets only the new artifacts.
        again = self.campaign()
        self.plant(again, "crash-5", b"BUG-A three")
        quiet(again.process_findings)
        self.assertEqual({k: r["count"] for k, r in self.buckets(again).items()},
                         {"rule-A": "3", "rule-B": "1", "oom": "1"})
        self.assertEqual(again.findings_count(T), 5)

    def test_without_minimizing_or_text_form_the_bytes_are_the_candidate(self):
        c = self.campaign("--minimize-seconds", "0")
        self.plant(c, "crash-9", b"BUG-C NOTEXT")
        quiet(c.process_findings)
        (r,) = c.buckets.values()
        self.assertEqual((r["reproduces"], Path(r["candidate"]).suffix), ("bytes", ".bin"))
        self.assertEqual(Path(r["candidate"]).read_bytes(), b"BUG-C NOTEXT")
        self.assertEqual(r["minimized"], r["raw"])

    def test_classes_of_the_corpus(self):
        c = self.campaign()
        c.store.corpus(T).mkdir(parents=True)
        for d in (b"one", b"two", b"bad three"):
            n, _ = unit(d)
            (c.store.corpus(T) / n).write_bytes(d)
        self.assertEqual(c.classify_corpus(), [(T, "rejected", 1), (T, "valid", 2)])


GTEST = """[ RUN      ] S.passes
verdicts: 300 cases, 12 inconclusive
[       OK ] S.passes (1500 ms)
[ RUN      ] S.plain
OK, passed 100 tests; 4 discarded
[       OK ] S.plain (20 ms)
[ RUN      ] S.fails
Falsifiable after 3 tests
[  FAILED  ] S.fails (7 ms)
[ RUN      ] S.cut
verdicts: 40 cases, 0 inconclusive
"""


class TablesTest(Fixture):
    def test_property_verdicts_from_the_suite_output(self):
        c = self.campaign()
        c.parse_suite(Path("/b/x_props"), GTEST, "seed=7 max_success=300", True, 12.3)
        got = [(r["suite"], r["property"], r["cases"], r["discarded"], r["result"], r["seconds"]) for r in c.property_rows]
        self.assertEqual(got, [("S", "passes", 300, 12, "pass", "1.5"), ("S", "plain", 100, 4, "pass", "0.0"),
                               ("S", "fails", 0, 0, "fail", "0.0"), ("S", "cut", 40, 0, "timeout", "12")])
        self.assertEqual(c.property_rows[2]["replay"],
                         "RC_PARAMS=\"seed=7 max_success=300\" build/fuzz/bin/x_props --gtest_filter='S.fails'")
        c.property_rows.clear()
        c.parse_suite(Path("/b/x_props"), GTEST, "p", False, 1)
        self.assertNotIn("timeout", {r["result"] for r in c.property_rows})  # finished: nothing was cut

    def test_tsv_cells_keep_one_row_per_line(self):
        p = self.tmp / "t.tsv"
        tsv(p, ["a", "b"], [("x\ty", "line\nbreak"), (1, 2)])
        self.assertEqual(p.read_text(), "a\tb\nx y\tline break\n1\t2\n")

    def test_tables_and_summary(self):
        c = self.campaign()
        task = Task(T, 60, 60, 7, used=10, stats=Stats(execs=500, exec_s=40, cov=12, ft=30), base_execs=1500,
                    status="done", slowest_s=2)
        c.tasks = [task]
        c.buckets = {"b2": {"bucket": "b2", "target": T, "oracle": "o", "rule": "r2", "count": "1", "replay": "r"},
                     "b1": {"bucket": "b1", "target": T, "oracle": "o", "rule": "r1", "count": "4", "replay": "q",
                            "message": "tab\there"}}
        c.property_rows = [{"suite": "S", "property": "p", "cases": 3, "discarded": 0, "result": "fail",
                            "seconds": "1.0", "seed": 7, "replay": "cmd"}]
        c.write_tables("complete")
        rows = [l.split("\t") for l in (c.run_dir / "targets.tsv").read_text().splitlines()]
        got = dict(zip(rows[0], rows[1]))
        self.assertEqual({k: got[k] for k in ("target", "execs", "exec_s", "cov", "buckets", "seconds", "status",
                                              "slowest_s", "peak_rss_mb")},
                         {"target": T, "execs": "2000", "exec_s": "200", "cov": "12", "buckets": "2", "seconds": "10",
                          "status": "done", "slowest_s": "2", "peak_rss_mb": "0"})
        buckets = (c.run_dir / "buckets.tsv").read_text().splitlines()
        self.assertEqual([l.split("\t")[0] for l in buckets], ["bucket", "b1", "b2"])
        self.assertTrue(buckets[1].endswith("tab here"))
        meta = dict(l.split("\t", 1) for l in (c.run_dir / "run.tsv").read_text().splitlines()[1:])
        self.assertEqual((meta["kind"], meta["seed"], meta["status"], meta["targets"]), ("campaign", "7", "complete", T))
        self.assertEqual((c.run_dir / "properties.tsv").read_text().splitlines()[1], "S\tp\t3\t0\tfail\t1.0\t7\tcmd")
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            c.summary()
        text = out.getvalue()
        self.assertRegex(text, rf"{T}\s+asan\s+2,000\s+200\s+12\s+0\s+0\s+2")
        self.assertIn(f"2 finding bucket(s):\n  b2 {T}: o/r2 x1 -> r\n  b1 {T}: o/r1 x4 -> q", text)
        self.assertIn("properties: 0 of 1 passed at max_success=300, 1 failed\n  fail: S.p -> cmd", text)


if __name__ == "__main__":
    unittest.main()
