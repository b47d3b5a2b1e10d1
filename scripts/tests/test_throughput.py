"""Unit tests of scripts/lib/throughput.py (ctest `scripts/throughput`, label unit, every preset).

The tables and bars are rendered from synthetic figures; the benchmark's JSON, libFuzzer's final
stats and the property suites' case counts are read from fake binaries under a temporary ROOT
(a Google Benchmark stand-in that writes --benchmark_out, a libFuzzer stand-in that prints
stat:: lines), and a whole run (--no-build) writes its folder there. Positive controls: a bar
missed is `no`, a superlinear tier is flagged, a failed or erroring benchmark and a libFuzzer
run without its final stats are errors. Needs no build.
"""

from __future__ import annotations

import contextlib
import io
import json
import sys
import unittest
from pathlib import Path

sys.dont_write_bytecode = True
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "lib"))
sys.path.insert(0, str(HERE))
import fuzzlib  # noqa: E402
import throughput  # noqa: E402
from fakebin import Env, temp_dir, write_exe  # noqa: E402
from fuzzlib import UsageError  # noqa: E402

# Google Benchmark: the JSON of FAKE_BENCH_JSON (a file) to --benchmark_out, exit FAKE_BENCH_EXIT.
FAKE_BENCH = r'''
import os, sys
args = dict(a[2:].split("=", 1) for a in sys.argv[1:] if "=" in a)
src = os.environ["FAKE_BENCH_JSON_" + ("SCALING" if "scaling" in args["benchmark_filter"] else "MAIN")]
open(args["benchmark_out"], "w").write(open(src).read())
print("fake benchmark", args["benchmark_filter"])
sys.exit(int(os.environ.get("FAKE_BENCH_EXIT", "0")))
'''
# libFuzzer: its final stats (unless FAKE_NO_STATS), after checking the seed and run count.
FAKE_LIBFUZZER = r'''
import os, sys
assert "-seed=5" in sys.argv and "-runs=200" in sys.argv and "-print_final_stats=1" in sys.argv, sys.argv
if not os.environ.get("FAKE_NO_STATS"):
    print("stat::number_of_executed_units: 200\nstat::average_exec_per_sec:     1500\nstat::peak_rss_mb: 40")
'''
FAKE_SUITE = r'''
print("[ RUN      ] A.x\nverdicts: 300 cases, 3 inconclusive\n[       OK ] A.x (1 ms)")
print("[ RUN      ] A.y\nOK, passed 100 tests\n[       OK ] A.y (1 ms)")
print("[ RUN      ] A.z\nOK, passed 1 test\n[       OK ] A.z (1 ms)")
'''


def bench(name: str, ms: float, allocs: float, tiers: dict[str, tuple[float, float, float]]) -> dict:
    b = {"name": f"{name}/real_time", "inputs": 4.0, "real_time": ms * 4, "allocs": allocs, "alloc_bytes": 2048.0,
         "minflt": 1.5, "iterations": 10, "unbalanced": 0.25}
    for tier, (us, reach, al) in tiers.items():
        b.update({f"{tier}.us": us, f"{tier}.reach": reach, f"{tier}.allocs": al})
    return b


def data() -> dict:
    tiers = {"fuzz_program": {"parse": {"us": 10.0, "reach": 1.0, "allocs": 5}, "judge": {"us": 0.0}},
             "fuzz_attach": {}}
    dev = {"fuzz_program": {"ms": 1.0, "allocs": 900, "alloc_bytes": 4096, "minflt": 2.0, "unbalanced": 0.1,
                            "inputs": 40, "tiers": tiers["fuzz_program"]},
           "fuzz_attach": {"ms": 0.1, "allocs": 10, "alloc_bytes": 1024, "minflt": 1.0, "unbalanced": 0.0,
                           "inputs": 8, "tiers": {}}}
    fuzz = {"fuzz_program": {"ms": 2.5, "allocs": 950, "alloc_bytes": 4096, "minflt": 3.0, "unbalanced": 0.1,
                             "inputs": 40, "tiers": {"parse": {"us": 30.0, "reach": 0.5}, "lower": {"us": 4.0}}},
            "fuzz_attach": {"ms": 0.5, "allocs": 12, "alloc_bytes": 1024, "minflt": 1.0, "unbalanced": 0.0,
                            "inputs": 8, "tiers": {}}}
    return {"targets": ["fuzz_program", "fuzz_bind_plan", "fuzz_attach"], "bench": {"dev": dev, "fuzz": fuzz},
            "libfuzzer": {"fuzz_program": {"exec_s": 900, "exec_per_cpu_s": 1234.6},
                          "fuzz_attach": {"exec_s": 6000, "exec_per_cpu_s": 7000.0}},
            "scaling": [{"k": 1, "stmts": 10.0, "tiers": {"parse": 1.0, "judge": 2.0}},
                        {"k": 8, "stmts": 80.0, "tiers": {"parse": 1.5, "judge": 9.0}}],
            "properties": [{"suite": "a_props", "cases": 600, "cpu_s": 1.0, "exit": 0},
                           {"suite": "b_props", "cases": 0, "cpu_s": 1.0, "exit": 1}],
            "property_preset": "fuzz", "property_params": "seed=1 max_success=300"}


class TablesTest(unittest.TestCase):
    def setUp(self):
        self.text = throughput.tables(data())
        self.lines = self.text.splitlines()

    def row(self, start: str) -> str:
        hits = [l for l in self.lines if l.startswith(start)]
        self.assertEqual(len(hits), 1, (start, hits))
        return hits[0]

    def test_cost_per_input_dev_beside_fuzz(self):
        self.assertEqual(self.row("| fuzz_program | 40 |"),
                         "| fuzz_program | 40 | 1.000 | 2.500 | 2.5x | 900 | 950 | 4 | 2.0 / 3.0 | 10% | 900 | 1,235 |")
        self.assertTrue(self.row("| fuzz_attach | 8 |").endswith("| 6,000 | 7,000 |"))

    def test_a_target_without_both_benchmarks_has_no_rows(self):
        self.assertNotIn("fuzz_bind_plan", self.text)

    def test_tiers_of_both_builds_with_their_ratio(self):
        self.assertEqual(self.row("| parse |"), "| parse | 10.0 | 30.0 | 3.0x | 5 | 1.00 | 0.50 |")
        self.assertEqual(self.row("| judge |"), "| judge | 0.0 | 0.0 | - | 0 | 0.00 | 0.00 |")  # no dev time: no ratio
        self.assertEqual(self.row("| lower |"), "| lower | 0.0 | 4.0 | - | 0 | 0.00 | 0.00 |")

    def test_scaling_table(self):
        self.assertEqual(self.row("| k | statements |"), "| k | statements | parse | judge |")
        self.assertEqual(self.row("| 8 | 80.0 |"), "| 8 | 80.0 | 1.5 | 9.0 |")

    def test_properties_per_cpu_second(self):
        self.assertEqual(self.row("| a_props |"), "| a_props | 600 | 1.0 | 600 |")
        self.assertEqual(self.row("| b_props (exit 1) |"), "| b_props (exit 1) | 0 | 1.0 | 0 |")
        self.assertEqual(self.row("| **all** |"), "| **all** | 600 | 2.0 | 300 |")
        self.assertIn("## Properties (fuzz preset, seed=1 max_success=300)", self.text)

    def test_bars_met_and_missed(self):  # each bar's control is its other side
        self.assertEqual(self.row("| fuzz_program libFuzzer exec/s |"), "| fuzz_program libFuzzer exec/s | 900 | 1,000 | no |")
        self.assertEqual(self.row("| fuzz_attach libFuzzer exec/s |"), "| fuzz_attach libFuzzer exec/s | 6,000 | 5,000 | yes |")
        self.assertEqual(self.row("| fuzz_program fuzz/dev cost |"), "| fuzz_program fuzz/dev cost | 2.5x | 3x | yes |")
        self.assertEqual(self.row("| fuzz_attach fuzz/dev cost |"), "| fuzz_attach fuzz/dev cost | 5.0x | 3x | no |")
        self.assertEqual(self.row("| fuzz_program allocations per input |"),
                         "| fuzz_program allocations per input | 900 | 1,000 | yes |")
        self.assertEqual(self.row("| parse: µs per statement at"), "| parse: µs per statement at 80 vs 10 statements | 1.5x | 2x | yes |")
        self.assertEqual(self.row("| judge: µs per statement at"), "| judge: µs per statement at 80 vs 10 statements | 4.5x | 2x | no |")
        self.assertEqual(self.row("| property cases per CPU s |"), "| property cases per CPU s | 300 | 300 | yes |")

    def test_optional_parts_left_out(self):
        d = data()
        for k in ("libfuzzer", "scaling", "properties"):
            del d[k]
        text = throughput.tables(d)
        self.assertNotIn("## Properties", text)
        self.assertNotIn("statements as programs grow", text)
        self.assertIn("| fuzz_program | 40 | 1.000 | 2.500 | 2.5x | 900 | 950 | 4 | 2.0 / 3.0 | 10% | - | - |", text)
        self.assertNotIn("libFuzzer exec/s |", text.split("## Bars")[1])


class ArgsTest(unittest.TestCase):
    def test_defaults_and_a_subset(self):
        a = throughput.parse_args([])
        self.assertEqual((a.runs, a.seed, a.targets), (3000, 1, throughput.TARGETS))
        self.assertEqual(throughput.parse_args(["--targets", "fuzz_attach, fuzz_program"]).targets,
                         ["fuzz_attach", "fuzz_program"])

    def test_bad_flags(self):
        with self.assertRaisesRegex(UsageError, "unknown target 'fuzz_parse'"):
            throughput.parse_args(["--targets", "fuzz_parse"])
        for argv in (["--runs", "0"], ["--min-time", "-1"], ["--property-preset", "asan"], ["--runs", "x"]):
            with contextlib.redirect_stderr(io.StringIO()), self.assertRaises(SystemExit) as e:
                throughput.parse_args(argv)
            self.assertEqual(e.exception.code, 2, argv)


class RunsTest(unittest.TestCase):
    def setUp(self):
        self.tmp = temp_dir(self, "throughput-test-")
        self.root = self.tmp / "root"
        for preset in ("dev", "fuzz"):
            write_exe(self.root / "build" / preset / "bin" / "throughput_bench", FAKE_BENCH)
        for t in throughput.TARGETS:
            write_exe(self.root / "build" / "fuzz" / "bin" / t, FAKE_LIBFUZZER)
        self.suites = [p.stem for p in sorted((fuzzlib.ROOT / "properties").glob("*_props.cpp"))][:2]
        for s in self.suites:
            write_exe(self.root / "build" / "fuzz" / "bin" / s, FAKE_SUITE)
        self.main_json = self.json("main.json", [bench("fuzz_program", 0.5, 100, {"parse": (3.0, 1.0, 7)}),
                                                  bench("fuzz_attach", 0.1, 5, {})])
        self.scaling_json = self.json("scaling.json", [
            {"name": "scaling_fuzz_program/8", "stmts": 80.0, "parse.us_per_stmt": 1.2},
            {"name": "scaling_fuzz_program/1", "stmts": 10.0, "parse.us_per_stmt": 1.0}])
        saved = throughput.ROOT
        throughput.ROOT = self.root
        self.addCleanup(setattr, throughput, "ROOT", saved)
        self.run_dir = self.tmp / "run"
        self.run_dir.mkdir()
        env = Env(FAKE_BENCH_JSON_MAIN=str(self.main_json), FAKE_BENCH_JSON_SCALING=str(self.scaling_json))
        env.__enter__()
        self.addCleanup(env.__exit__)

    def json(self, name: str, benchmarks: list[dict]) -> Path:
        p = self.tmp / name
        p.write_text(json.dumps({"benchmarks": benchmarks}))
        return p

    def args(self, *argv: str):
        return throughput.parse_args(["--seed", "5", "--runs", "200", "--out", str(self.tmp / "out"), *argv])

    def quiet(self, f, *a):
        with contextlib.redirect_stderr(io.StringIO()):
            return f(*a)

    def test_benchmark_json_per_input_with_its_tiers(self):
        rows = self.quiet(throughput.run_bench, "dev", self.args(), self.run_dir)
        self.assertEqual(set(rows), {"fuzz_program", "fuzz_attach"})
        p = rows["fuzz_program"]
        self.assertAlmostEqual(p["ms"], 0.5)  # real_time over the corpus / inputs
        self.assertEqual((p["inputs"], p["allocs"], p["unbalanced"]), (4, 100, 0.25))
        self.assertEqual(p["tiers"], {"parse": {"us": 3.0, "reach": 1.0, "allocs": 7}})

    def test_benchmark_failures_are_errors(self):
        with Env(FAKE_BENCH_EXIT="1"), self.assertRaisesRegex(UsageError, "the dev benchmark failed \\(exit 1\\)"):
            self.quiet(throughput.run_bench, "dev", self.args(), self.run_dir)
        broken = self.json("err.json", [dict(bench("fuzz_attach", 1, 1, {}), error_occurred=True,
                                             error_message="corpus missing")])
        with Env(FAKE_BENCH_JSON_MAIN=str(broken)), self.assertRaisesRegex(UsageError, "fuzz_attach: corpus missing"):
            self.quiet(throughput.run_bench, "fuzz", self.args(), self.run_dir)
        (self.root / "build" / "fuzz" / "bin" / "throughput_bench").unlink()
        with self.assertRaisesRegex(UsageError, "is not built"):
            self.quiet(throughput.run_bench, "fuzz", self.args(), self.run_dir)

    def test_scaling_sorted_by_size(self):
        rows = self.quiet(throughput.run_scaling, self.args(), self.run_dir)
        self.assertEqual([(r["k"], r["stmts"], r["tiers"]) for r in rows],
                         [(1, 10.0, {"parse": 1.0}), (8, 80.0, {"parse": 1.2})])

    def test_libfuzzer_final_stats(self):
        r = self.quiet(throughput.run_libfuzzer, "fuzz_attach", self.args(), self.run_dir)
        self.assertEqual((r["exec_s"], r["execs"]), (1500, 200))
        self.assertGreater(r["wall_s"], 0)
        self.assertIn("-runs=200", r["command"])
        self.assertEqual([p.name for p in self.run_dir.iterdir()], ["libfuzzer-fuzz_attach.log"])  # scratch removed
        with Env(FAKE_NO_STATS="1"), self.assertRaisesRegex(UsageError, "libFuzzer fuzz_attach failed"):
            self.quiet(throughput.run_libfuzzer, "fuzz_attach", self.args(), self.run_dir)

    def test_property_cases_from_both_kinds_of_line(self):
        rows = self.quiet(throughput.run_properties, self.args(), self.run_dir)
        self.assertEqual([(r["suite"], r["cases"], r["exit"]) for r in rows], [(s, 401, 0) for s in self.suites])
        with self.assertRaisesRegex(UsageError, "no property suites"):
            self.quiet(throughput.run_properties, self.args("--property-preset", "dev"), self.run_dir)

    def test_a_whole_run_writes_its_folder(self):
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
            rc = throughput.main(["--no-build", "--seed", "5", "--runs", "200", "--out", str(self.tmp / "out"),
                                  "--targets", "fuzz_program,fuzz_attach"])
        self.assertEqual(rc, 0)
        (run,) = (self.tmp / "out").iterdir()
        got = json.loads((run / "throughput.json").read_text())
        self.assertEqual(set(got["libfuzzer"]), {"fuzz_program", "fuzz_attach"})
        self.assertEqual(len(got["scaling"]), 2)
        self.assertEqual(sum(r["cases"] for r in got["properties"]), 401 * len(self.suites))
        self.assertEqual((run / "notes.md").read_text(), out.getvalue().rstrip("\n") + "\n")
        meta = dict(l.split("\t", 1) for l in (run / "run.tsv").read_text().splitlines()[1:])
        self.assertEqual((meta["kind"], meta["seed"], meta["targets"]), ("throughput", "5", "fuzz_program fuzz_attach"))
        self.assertTrue(meta["command"].startswith("scripts/throughput --no-build"))


if __name__ == "__main__":
    unittest.main()
