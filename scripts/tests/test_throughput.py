"""Unit tests of scripts/lib/throughput.py (ctest `scripts/throughput`, label unit, every preset).

The tables and bars are rendered from synthetic figures of the four presets (dev, clang-o1,
fuzz-fast, fuzz); the benchmark's JSON, libFuzzer's final stats (both lanes) and the property
suites' case counts are read from fake binaries under a temporary ROOT (a Google Benchmark
stand-in that writes --benchmark_out, a libFuzzer stand-in that prints stat:: lines), and a
whole run (--no-build, with and without the fast lane) writes its folder there; the build step
is checked against a stand-in for fuzzlib.build. Positive controls: every bar is rendered on
both sides of its edge (met at the bar, `no` just past it), a superlinear tier is flagged, a
failed or erroring benchmark and a libFuzzer run without its final stats are errors. Needs no
build.
"""

from __future__ import annotations

import contextlib
import io
import json
import shutil
import sys
import unittest
from pathlib import Path
from unittest import mock

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
# libFuzzer: its final stats (unless FAKE_NO_STATS), after checking the seed and run count; the
# fast lane's binary (build/fuzz-fast/) reports 4500 exec/s, the sanitized lane's 1500.
FAKE_LIBFUZZER = r'''
import os, sys
assert "-seed=5" in sys.argv and "-runs=200" in sys.argv and "-print_final_stats=1" in sys.argv, sys.argv
execs = 4500 if "/fuzz-fast/" in sys.argv[0] else 1500
if not os.environ.get("FAKE_NO_STATS"):
    print(f"stat::number_of_executed_units: 200\nstat::average_exec_per_sec:     {execs}\nstat::peak_rss_mb: 40")
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


def figures(ms: float, allocs: float = 0, inputs: int = 40, tiers: dict | None = None) -> dict:
    """One preset's benchmark row of a target (page faults and the rest fixed)."""
    return {"ms": ms, "allocs": allocs, "alloc_bytes": 1024, "minflt": 1.0, "unbalanced": 0.0, "inputs": inputs,
            "tiers": tiers or {}}


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
    clang = {"fuzz_program": figures(1.0), "fuzz_attach": figures(0.1, inputs=8)}
    fast = {"fuzz_program": figures(1.5, tiers={"parse": {"us": 12.0}, "codegen": {"us": 2.0}}),
            "fuzz_attach": figures(0.2, inputs=8)}
    return {"targets": ["fuzz_program", "fuzz_bind_plan", "fuzz_attach"],
            "bench": {"dev": dev, "clang-o1": clang, "fuzz-fast": fast, "fuzz": fuzz},
            "libfuzzer": {"fuzz-fast": {"fuzz_program": {"exec_s": 900, "exec_per_cpu_s": 1234.6},
                                        "fuzz_attach": {"exec_s": 3000, "exec_per_cpu_s": 3500.0}},
                          "fuzz": {"fuzz_program": {"exec_s": 300, "exec_per_cpu_s": 310.4},
                                   "fuzz_attach": {"exec_s": 2000, "exec_per_cpu_s": 2100.0}}},
            "scaling": [{"k": 1, "stmts": 10.0, "tiers": {"parse": 1.0, "judge": 2.0}},
                        {"k": 8, "stmts": 80.0, "tiers": {"parse": 1.5, "judge": 9.0}}],
            "properties": [{"suite": "a_props", "cases": 600, "cpu_s": 1.0, "exit": 0},
                           {"suite": "b_props", "cases": 0, "cpu_s": 1.0, "exit": 1}],
            "property_preset": "fuzz", "property_params": "seed=1 max_success=300"}


# The fast-lane issue's exec/s bars, written out here (not read from the module), so a changed
# bar fails the edge test.
ISSUE_EXEC_BAR = {"fuzz_program": 800, "fuzz_bind_plan": 2000, "fuzz_attach": 4000}


def edge(t: str, execs: float | None = None, fast_ms: float = 1.6, dev_ms: float = 0.6, allocs: float = 1000,
         cases: int = 300, growth: float = 2.0) -> dict:
    """Figures of one target with every bar exactly met (clang-o1 takes 1 ms); one argument
    moves one figure past its bar."""
    bench = {"dev": {t: figures(dev_ms, allocs)}, "clang-o1": {t: figures(1.0)}, "fuzz-fast": {t: figures(fast_ms)},
             "fuzz": {t: figures(9.0)}}
    execs = ISSUE_EXEC_BAR[t] if execs is None else execs
    return {"targets": [t], "bench": bench, "libfuzzer": {"fuzz-fast": {t: {"exec_s": execs, "exec_per_cpu_s": 1.0}}},
            "scaling": [{"k": 1, "stmts": 10.0, "tiers": {"parse": 1.0}}, {"k": 2, "stmts": 20.0, "tiers": {"parse": growth}}],
            "properties": [{"suite": "a_props", "cases": cases, "cpu_s": 1.0, "exit": 0}],
            "property_preset": "fuzz", "property_params": "-"}


def bars_met(d: dict) -> dict[str, str]:
    """The Bars section of the tables of `d`: figure -> yes | no."""
    rows = throughput.tables(d).split("## Bars")[1].splitlines()[4:]
    return {cells[1].strip(): cells[4].strip() for cells in (r.split("|") for r in rows if r)}


class TablesTest(unittest.TestCase):
    def setUp(self):
        self.text = throughput.tables(data())
        self.lines = self.text.splitlines()

    def row(self, start: str) -> str:
        hits = [l for l in self.lines if l.startswith(start)]
        self.assertEqual(len(hits), 1, (start, hits))
        return hits[0]

    def test_cost_per_input_of_both_lanes(self):
        self.assertEqual(self.row("| fuzz_program | 40 |"),
                         "| fuzz_program | 40 | 1.000 | 2.500 | 2.5x | 1.000 | 1.500 | 1.50x | 900 | 950 | 4 | "
                         "2.0 / 3.0 | 10% | 900 | 300 | 1,235 | 310 |")
        self.assertTrue(self.row("| fuzz_attach | 8 |").endswith("| 0.100 | 0.200 | 2.00x | 10 | 12 | 1 | 1.0 / 1.0 | 0% "
                                                                  "| 3,000 | 2,000 | 3,500 | 2,100 |"))
        header = self.row("| target |")  # 17 columns in the header, its rule and every row
        rule = self.lines[self.lines.index(header) + 1]
        self.assertEqual({header.count("|"), rule.count("|"), self.row("| fuzz_attach | 8 |").count("|")}, {18})

    def test_a_target_without_both_benchmarks_has_no_rows(self):
        self.assertNotIn("fuzz_bind_plan", self.text)

    def test_tiers_of_both_builds_with_their_ratio_and_the_fast_lane(self):
        self.assertEqual(self.row("| parse |"), "| parse | 10.0 | 30.0 | 3.0x | 12.0 | 5 | 1.00 | 0.50 |")
        self.assertEqual(self.row("| judge |"), "| judge | 0.0 | 0.0 | - | 0.0 | 0 | 0.00 | 0.00 |")  # no dev time: no ratio
        self.assertEqual(self.row("| lower |"), "| lower | 0.0 | 4.0 | - | 0.0 | 0 | 0.00 | 0.00 |")
        self.assertEqual(self.row("| codegen |"), "| codegen | 0.0 | 0.0 | - | 2.0 | 0 | 0.00 | 0.00 |")

    def test_scaling_table(self):
        self.assertEqual(self.row("| k | statements |"), "| k | statements | parse | judge |")
        self.assertEqual(self.row("| 8 | 80.0 |"), "| 8 | 80.0 | 1.5 | 9.0 |")

    def test_properties_per_cpu_second(self):
        self.assertEqual(self.row("| a_props |"), "| a_props | 600 | 1.0 | 600 |")
        self.assertEqual(self.row("| b_props (exit 1) |"), "| b_props (exit 1) | 0 | 1.0 | 0 |")
        self.assertEqual(self.row("| **all** |"), "| **all** | 600 | 2.0 | 300 |")
        self.assertIn("## Properties (fuzz preset, seed=1 max_success=300)", self.text)

    def test_bars_met_and_missed(self):
        self.assertEqual(self.row("| fuzz_program fast-lane libFuzzer exec/s |"),
                         "| fuzz_program fast-lane libFuzzer exec/s | 900 | 800 | yes |")
        self.assertEqual(self.row("| fuzz_attach fast-lane libFuzzer exec/s |"),
                         "| fuzz_attach fast-lane libFuzzer exec/s | 3,000 | 4,000 | no |")
        self.assertEqual(self.row("| fuzz_program fast/clang-o1 cost |"), "| fuzz_program fast/clang-o1 cost | 1.50x | 1.6x | yes |")
        self.assertEqual(self.row("| fuzz_attach fast/clang-o1 cost |"), "| fuzz_attach fast/clang-o1 cost | 2.00x | 1.6x | no |")
        self.assertEqual(self.row("| fuzz_program dev ms per input |"), "| fuzz_program dev ms per input | 1.000 | 0.6 | no |")
        self.assertEqual(self.row("| fuzz_program allocations per input |"),
                         "| fuzz_program allocations per input | 900 | 1,000 | yes |")
        self.assertEqual(self.row("| parse: µs per statement at"), "| parse: µs per statement at 80 vs 10 statements | 1.5x | 2x | yes |")
        self.assertEqual(self.row("| judge: µs per statement at"), "| judge: µs per statement at 80 vs 10 statements | 4.5x | 2x | no |")
        self.assertEqual(self.row("| property cases per CPU s |"), "| property cases per CPU s | 300 | 300 | yes |")

    def test_the_sanitized_lane_has_figures_but_no_bars(self):  # its exec/s and fuzz/dev: the cost table only
        self.assertEqual(set(bars_met(data())), {
            "fuzz_program fast-lane libFuzzer exec/s", "fuzz_attach fast-lane libFuzzer exec/s",
            "fuzz_program fast/clang-o1 cost", "fuzz_attach fast/clang-o1 cost", "fuzz_program dev ms per input",
            "fuzz_program allocations per input", "parse: µs per statement at 80 vs 10 statements",
            "judge: µs per statement at 80 vs 10 statements", "property cases per CPU s"})

    def test_every_bar_on_both_sides_of_its_edge(self):  # each bar's positive control is its other side
        for t in throughput.TARGETS:
            figure = {"execs": f"{t} fast-lane libFuzzer exec/s", "fast_ms": f"{t} fast/clang-o1 cost",
                      "dev_ms": f"{t} dev ms per input", "allocs": f"{t} allocations per input",
                      "cases": "property cases per CPU s", "growth": "parse: µs per statement at 20 vs 10 statements"}
            past = {"execs": ISSUE_EXEC_BAR[t] - 1, "fast_ms": 1.61, "dev_ms": 0.601, "allocs": 1001,
                    "cases": 299, "growth": 2.1}
            if t != "fuzz_program":  # the dev ms and allocation bars are fuzz_program's alone
                del figure["dev_ms"], past["dev_ms"], figure["allocs"], past["allocs"]
            met = bars_met(edge(t))
            self.assertEqual(met, {f: "yes" for f in figure.values()}, t)
            for key, value in past.items():
                self.assertEqual(bars_met(edge(t, **{key: value})), dict(met, **{figure[key]: "no"}), (t, key))

    def test_a_figure_not_measured_is_a_dash(self):
        d = data()
        del d["bench"]["clang-o1"]["fuzz_attach"], d["libfuzzer"]["fuzz-fast"]["fuzz_attach"]
        text = throughput.tables(d)
        self.assertIn("| fuzz_attach | 8 | 0.100 | 0.500 | 5.0x | - | 0.200 | - | 10 | 12 | 1 | 1.0 / 1.0 | 0% "
                      "| - | 2,000 | - | 2,100 |", text)
        self.assertNotIn("fuzz_attach fast", text.split("## Bars")[1])

    def test_optional_parts_left_out(self):
        d = data()
        for k in ("libfuzzer", "scaling", "properties"):
            del d[k]
        for preset in ("clang-o1", "fuzz-fast"):  # --no-fast-lane
            del d["bench"][preset]
        text = throughput.tables(d)
        self.assertNotIn("## Properties", text)
        self.assertNotIn("statements as programs grow", text)
        self.assertIn("| fuzz_program | 40 | 1.000 | 2.500 | 2.5x | - | - | - | 900 | 950 | 4 | 2.0 / 3.0 | 10% "
                      "| - | - | - | - |", text)
        self.assertIn("| parse | 10.0 | 30.0 | 3.0x | - | 5 | 1.00 | 0.50 |", text)
        self.assertEqual(set(bars_met(d)), {"fuzz_program dev ms per input", "fuzz_program allocations per input"})


class ArgsTest(unittest.TestCase):
    def test_defaults_and_a_subset(self):
        a = throughput.parse_args([])
        self.assertEqual((a.runs, a.seed, a.targets, a.no_fast_lane), (3000, 1, throughput.TARGETS, False))
        self.assertEqual(throughput.parse_args(["--targets", "fuzz_attach, fuzz_program"]).targets,
                         ["fuzz_attach", "fuzz_program"])

    def test_the_presets_of_each_lane(self):
        def presets(*argv):
            a = throughput.parse_args(list(argv))
            return throughput.bench_presets(a), throughput.libfuzzer_presets(a)

        self.assertEqual(presets(), (["dev", "clang-o1", "fuzz-fast", "fuzz"], ["fuzz-fast", "fuzz"]))
        self.assertEqual(presets("--no-fast-lane"), (["dev", "fuzz"], ["fuzz"]))
        self.assertEqual(presets("--no-libfuzzer"), (["dev", "clang-o1", "fuzz-fast", "fuzz"], []))
        self.assertEqual(presets("--no-libfuzzer", "--no-fast-lane"), (["dev", "fuzz"], []))

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
        for preset in ("dev", "clang-o1", "fuzz-fast", "fuzz"):
            write_exe(self.root / "build" / preset / "bin" / "throughput_bench", FAKE_BENCH)
        for preset in ("fuzz-fast", "fuzz"):
            for t in throughput.TARGETS:
                write_exe(self.root / "build" / preset / "bin" / t, FAKE_LIBFUZZER)
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

    def test_libfuzzer_final_stats_of_both_lanes(self):
        r = self.quiet(throughput.run_libfuzzer, "fuzz-fast", "fuzz_attach", self.args(), self.run_dir)
        self.assertEqual((r["exec_s"], r["execs"]), (4500, 200))
        self.assertGreater(r["wall_s"], 0)
        self.assertIn("-runs=200", r["command"])
        self.assertIn("/build/fuzz-fast/bin/fuzz_attach ", r["command"])
        self.assertEqual(self.quiet(throughput.run_libfuzzer, "fuzz", "fuzz_attach", self.args(), self.run_dir)["exec_s"],
                         1500)
        self.assertEqual(sorted(p.name for p in self.run_dir.iterdir()),  # scratch folders removed
                         ["libfuzzer-fuzz-fast-fuzz_attach.log", "libfuzzer-fuzz-fuzz_attach.log"])
        with Env(FAKE_NO_STATS="1"), self.assertRaisesRegex(UsageError, "libFuzzer fuzz-fast fuzz_attach failed"):
            self.quiet(throughput.run_libfuzzer, "fuzz-fast", "fuzz_attach", self.args(), self.run_dir)
        (self.root / "build" / "fuzz-fast" / "bin" / "fuzz_program").unlink()
        with self.assertRaisesRegex(UsageError, "fuzz-fast/bin/fuzz_program is not built"):
            self.quiet(throughput.run_libfuzzer, "fuzz-fast", "fuzz_program", self.args(), self.run_dir)

    def test_property_cases_from_both_kinds_of_line(self):
        rows = self.quiet(throughput.run_properties, self.args(), self.run_dir)
        self.assertEqual([(r["suite"], r["cases"], r["exit"]) for r in rows], [(s, 401, 0) for s in self.suites])
        with self.assertRaisesRegex(UsageError, "no property suites"):
            self.quiet(throughput.run_properties, self.args("--property-preset", "dev"), self.run_dir)

    def whole_run(self, *argv: str) -> tuple[Path, dict, str]:
        """main() with --no-build: its folder, its throughput.json and what it printed."""
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
            rc = throughput.main(["--no-build", "--seed", "5", "--runs", "200", "--out", str(self.tmp / "out"),
                                  "--targets", "fuzz_program,fuzz_attach", *argv])
        self.assertEqual(rc, 0)
        (run,) = (self.tmp / "out").iterdir()
        return run, json.loads((run / "throughput.json").read_text()), out.getvalue()

    def test_a_whole_run_writes_its_folder(self):
        run, got, printed = self.whole_run()
        self.assertEqual(list(got["bench"]), ["dev", "clang-o1", "fuzz-fast", "fuzz"])
        self.assertEqual({p: {t: r["exec_s"] for t, r in runs.items()} for p, runs in got["libfuzzer"].items()},
                         {"fuzz-fast": {"fuzz_program": 4500, "fuzz_attach": 4500},
                          "fuzz": {"fuzz_program": 1500, "fuzz_attach": 1500}})
        self.assertEqual(len(got["scaling"]), 2)
        self.assertEqual(sum(r["cases"] for r in got["properties"]), 401 * len(self.suites))
        self.assertEqual((run / "notes.md").read_text(), printed.rstrip("\n") + "\n")
        self.assertIn("| fuzz_program fast-lane libFuzzer exec/s | 4,500 | 800 | yes |", printed)
        self.assertIn("| fuzz_program fast/clang-o1 cost | 1.00x | 1.6x | yes |", printed)  # one fake JSON for all
        meta = dict(l.split("\t", 1) for l in (run / "run.tsv").read_text().splitlines()[1:])
        self.assertEqual((meta["kind"], meta["seed"], meta["targets"]), ("throughput", "5", "fuzz_program fuzz_attach"))
        self.assertTrue(meta["command"].startswith("scripts/throughput --no-build"))

    def test_a_run_without_the_fast_lane_needs_none_of_its_binaries(self):
        for preset in ("clang-o1", "fuzz-fast"):
            shutil.rmtree(self.root / "build" / preset)
        _, got, printed = self.whole_run("--no-fast-lane", "--no-properties")
        self.assertEqual((list(got["bench"]), list(got["libfuzzer"])), (["dev", "fuzz"], ["fuzz"]))
        self.assertIn("| fuzz_program | 4 | 0.500 | 0.500 | 1.0x | - | - | - | 100 |", printed)
        self.assertNotIn("fast-lane", printed)

    def test_the_build_step_builds_each_preset_what_it_runs(self):
        (self.root / "properties").mkdir()
        (self.root / "properties" / "a_props.cpp").touch()
        targets = ["fuzz_program", "fuzz_attach"]

        def built(*argv: str) -> list[tuple[str, list[str]]]:
            with mock.patch.object(fuzzlib, "build") as build:
                throughput.build_step(self.args("--targets", ",".join(targets), *argv), self.run_dir)
            return [(c.args[0], c.args[1]) for c in build.call_args_list]

        self.assertEqual(built(), [("dev", ["throughput_bench", "stackcheck-report"]), ("clang-o1", ["throughput_bench"]),
                                   ("fuzz-fast", ["throughput_bench", *targets]), ("fuzz", ["throughput_bench", *targets]),
                                   ("fuzz", ["a_props"])])
        self.assertEqual(built("--no-fast-lane", "--no-libfuzzer", "--no-properties", "--property-preset", "dev"),
                         [("dev", ["throughput_bench", "stackcheck-report"]), ("fuzz", ["throughput_bench"])])

if __name__ == "__main__":
    unittest.main()
