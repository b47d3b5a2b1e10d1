"""Unit tests of scripts/mutate (ctest `scripts/mutate`, label unit): the sites libclang finds in
a small C++ file (every operator, stable ids, what is not a site), the deterministic sample,
resume skipping done ids, trivial compiler equivalence, and bad flags exiting 2. A tiny
standalone file compiled with a fake compile_commands.json: no build of the tree is needed."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

LIB = Path(__file__).resolve().parents[1] / "lib"
sys.path.insert(0, str(LIB))
import judge  # noqa: E402
import mutant_control  # noqa: E402
import mutants  # noqa: E402
import mutate  # noqa: E402
import tce  # noqa: E402

CALC = """\
#include "stack/calc.h"
#define CHECK(x) do { if (!(x)) return -1; } while (0)
namespace stackcheck::defects { constexpr bool active(int) { return false; } }
namespace stackcheck::calc {
int g(int a, int b);
int f(int a, int b) {
  int s = 0;
  for (int i = 0; i < a; ++i) {
    if (i == 3) continue;
    s += i * 2;
  }
  CHECK(a < 10);
  if (defects::active(1)) s = s - 7;
  s = g(a, b);
  bool ok = a > 0 && b > 0;
  return ok ? s % 5 : 1;
}
bool h(const int* p) { return p != nullptr; }
int zero(int x) { return x + 0; }
int twice(int x) { return x * 2; }
template <class T> T tw(T x) { return x + 1; }
}  // namespace stackcheck::calc
"""
HEADER = "#pragma once\nnamespace stackcheck::calc {\ninline int inc(int x) { return x + 1; }\n}\n"
# Expected (line, operator, replacement) -> the mutated line.
EXPECTED = {
    (7, "lit", "1"): "int s = 1;",
    (8, "negate", "!"): "for (int i = 0; !(i < a); ++i) {",
    (8, "rel", "<="): "for (int i = 0; i <= a; ++i) {",
    (8, "rel", ">"): "for (int i = 0; i > a; ++i) {",
    (9, "rel", "!="): "if (i != 3) continue;",
    (9, "lit", "4"): "if (i == 4) continue;",
    (9, "delete", "deleted"): "if (i == 3) ;",
    (10, "arith", "-="): "s -= i * 2;",
    (10, "arith", "/"): "s += i / 2;",
    (10, "delete", "deleted"): ";",
    (14, "delete", "deleted"): ";",
    (14, "swap", "0<>1"): "s = g(b, a);",
    (15, "logic", "||"): "bool ok = a > 0 || b > 0;",
    (16, "ret", "0"): "return 0;",
    (16, "negate", "!"): "return !(ok) ? s % 5 : 1;",
    (16, "arith", "/"): "return ok ? s / 5 : 1;",
    (18, "ret", "false"): "bool h(const int* p) { return false; }",
    (18, "rel", "=="): "bool h(const int* p) { return p == nullptr; }",
}


def tree(d: Path, extra: str = "") -> Path:
    """A tiny tree: stack/calc.cpp (+ a second TU sharing stack/calc.h), a zoo and a test file."""
    (d / "stack" / "defects").mkdir(parents=True)
    (d / "stack" / "calc.cpp").write_text(CALC + extra)
    (d / "stack" / "calc.h").write_text(HEADER)
    (d / "stack" / "more.cpp").write_text('#include "stack/calc.h"\nint more(int x) { return stackcheck::calc::inc(x); }\n')
    (d / "stack" / "defects" / "zoo.cpp").write_text("int zoo(int x) { return x < 2; }\n")
    (d / "stack" / "calc_test.cpp").write_text("int t(int x) { return x < 2; }\n")
    entries = [{"directory": str(d / "build"), "file": str(d / "stack" / n),
                "command": f"g++ -std=c++20 -O1 -g -I{d} -o {n}.o -c {d / 'stack' / n}"}
               for n in ("calc.cpp", "more.cpp", "defects/zoo.cpp", "calc_test.cpp")]
    (d / "build").mkdir()
    (d / "build" / "compile_commands.json").write_text(json.dumps(entries))
    return d / "build" / "compile_commands.json"


class SitesTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.root = Path(cls.tmp.name)
        cc = tree(cls.root)
        cls.sites = mutants.find_sites(cls.root, cc, cls.root / "cache")
        cls.cc = cc

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_every_operator_gives_the_expected_mutants(self):
        got = {(m.line, m.op, m.repl): m.after for m in self.sites if m.file == "stack/calc.cpp"}
        for key, after in EXPECTED.items():
            self.assertIn(key, got)
            self.assertEqual(got[key], after, key)
        self.assertEqual({m.op for m in self.sites}, set(mutants.OPERATORS))

    def test_ids_are_stable_and_name_the_place(self):
        m = next(m for m in self.sites if (m.line, m.op, m.repl) == (8, "rel", "<="))
        self.assertEqual(m.id, "stack/calc.cpp:8:21:rel:<=")
        self.assertEqual(m.function, "calc::f")
        self.assertEqual(m.before, "for (int i = 0; i < a; ++i) {")
        again = mutants.find_sites(self.root, self.cc, self.root / "cache-2")  # parsed anew
        self.assertEqual([x.id for x in again], [x.id for x in self.sites])
        cached = mutants.find_sites(self.root, self.cc, self.root / "cache")
        self.assertEqual([x.id for x in cached], [x.id for x in self.sites])

    def test_cache_serves_every_clone_of_the_same_sources(self):
        with tempfile.TemporaryDirectory() as d:
            other = Path(d) / "clone"
            cc = tree(other)
            said = []
            sites = mutants.find_sites(other, cc, self.root / "cache", progress=said.append)
            self.assertEqual(said, [])  # nothing parsed: the entries of the first tree serve
            self.assertEqual([m.id for m in sites], [m.id for m in self.sites])
            (other / "stack" / "calc.h").write_text(HEADER.replace("x + 1", "x - 1"))
            mutants.find_sites(other, cc, self.root / "cache", progress=said.append)
            self.assertEqual(len(said), 1)  # a header changed: the TUs that include it are parsed again
            self.assertIn("parsing 2 of 2 TUs", said[0])

    def test_what_is_not_a_site(self):
        lines = {m.line for m in self.sites if m.file == "stack/calc.cpp"}
        self.assertNotIn(12, lines)  # inside CHECK(...): a macro expansion
        self.assertNotIn(13, lines)  # a defects::active switch
        self.assertFalse([m for m in self.sites if m.file.startswith("stack/defects/") or "_test" in m.file])
        tw = [m for m in self.sites if m.line == 21]
        self.assertEqual({m.op for m in tw}, {"lit"})  # x + 1 on a dependent T: no arith, no ret
        header = [m.id for m in self.sites if m.file == "stack/calc.h"]
        self.assertEqual(len(header), len(set(header)))  # two TUs include it: its sites once
        self.assertIn("stack/calc.h:3:34:arith:-", header)

    def test_inline_capacities_are_not_sites(self):
        def capacity(text: bytes, literal: bytes) -> bool:
            return mutants.inline_capacity(text, text.rindex(literal))
        self.assertTrue(capacity(b"boost::container::small_vector<std::span<const int64_t>, 3> dims;", b"3"))
        self.assertTrue(capacity(b"support::InlineArena<16384> arena_;", b"16384"))
        self.assertFalse(capacity(b"std::array<int, 4> a;", b"4"))
        self.assertFalse(capacity(b"if (a < 3) f(small_vector<int, 2>{});", b"3"))
        self.assertFalse(capacity(b"small_vector<int, 2> v; g(1);", b"1"))

    def test_apply_keeps_line_numbers(self):
        src = (self.root / "stack" / "calc.cpp").read_bytes()
        for m in self.sites:
            if m.file == "stack/calc.cpp":
                self.assertEqual(m.apply(src).count(b"\n"), src.count(b"\n"), m.id)

    def test_sample_is_deterministic(self):
        a = mutants.sample(self.sites, 5, 7)
        self.assertEqual([m.id for m in a], [m.id for m in mutants.sample(list(reversed(self.sites)), 5, 7)])
        self.assertNotEqual([m.id for m in a], [m.id for m in mutants.sample(self.sites, 5, 8)])
        self.assertEqual(len(mutants.sample(self.sites, 10 ** 6, 1)), len(self.sites))
        chosen = mutants.select(self.sites, ["stack/*.h"], ["arith"])
        self.assertTrue(chosen and all(m.file == "stack/calc.h" and m.op == "arith" for m in chosen))

    def test_tce_marks_x_plus_0_to_x_minus_0_equivalent(self):
        entry = json.loads(self.cc.read_text())[0]
        work = self.root / "build"
        self.assertTrue(judge.compile_object(entry))
        original = judge.stripped(judge.object_path(entry))
        src = self.root / "stack" / "calc.cpp"
        text = src.read_bytes()
        zero = next(m for m in self.sites if (m.line, m.op) == (19, "arith"))
        twice = next(m for m in self.sites if (m.line, m.op) == (20, "arith"))
        try:
            for m, same in ((zero, True), (twice, False)):
                src.write_bytes(m.apply(text))
                self.assertTrue(judge.compile_object(entry, out=work / "m.o"))
                self.assertEqual(judge.same_object(judge.stripped(work / "m.o"), original), same, m.id)
        finally:
            src.write_bytes(text)


    def test_tce_with_the_files_includes_precompiled_gives_the_same_verdicts(self):
        src = self.root / "stack" / "more.cpp"  # its first line includes stack/calc.h
        s = argparse.Namespace(path=self.root, entries={"stack/more.cpp": json.loads(self.cc.read_text())[1]})
        s.apply = lambda rel, data: (self.root / rel).write_bytes(data)
        s.revert = s.apply
        t = tce.Tce("test", self.root / "tce-cache")
        text = src.read_bytes()
        self.assertEqual(tce.include_block(text), '#include "stack/calc.h"\n')
        self.assertEqual(t.equivalent(s, "stack/more.cpp", text.replace(b"(x)", b"(x + 0)"), self.root / "w"), "yes")
        self.assertEqual(t.equivalent(s, "stack/more.cpp", text.replace(b"(x)", b"(x + 2)"), self.root / "w"), "no")
        self.assertEqual(src.read_bytes(), text)
        self.assertEqual(t.counts, {"with_pch": 2, "without": 0})
        self.assertTrue(list((self.root / "tce-cache").glob("pch-*/tce_pch.h.gch")))
        few = tce.Tce("test", self.root / "tce-cache", per_file={"stack/more.cpp": tce.PCH_MIN - 1})
        self.assertEqual(few.equivalent(s, "stack/more.cpp", text.replace(b"(x)", b"(x + 0)"), self.root / "w"), "yes")
        self.assertEqual(few.counts, {"with_pch": 0, "without": 1})  # too few mutants in the file to pay for it
        self.assertEqual(tce.include_block(b'#include "a.h"\n#ifdef X\n#include <v>\n#endif\nint x;\n'), "")
        self.assertEqual(tce.include_block(b"int x;\n#include <v>\n"), "")


class RunTest(unittest.TestCase):
    def test_a_failure_under_a_case_plan_kills_only_when_the_whole_test_fails_too(self):
        # "artifact" fails whenever a plan is set and passes whole (a check over all its cases);
        # "real" fails either way; "plain" has no per-case reach and passes.
        import threading
        import mutate_schemata
        import schemata
        sj = object.__new__(mutate_schemata.SchemataJudge)
        sj.a = argparse.Namespace(whole_tests=False)
        sj.lock, sj.plans = threading.Lock(), {"runs": 0, "cases": 0, "skipped": 0, "rerun": 0, "confirmed": 0}
        sj.env = dict
        reach = schemata.CaseReach("pp", {7: 0b01})
        sj.cases = {"artifact": reach, "real": reach}
        artifact = judge.Test("artifact", ["sh", "-c", 'test -z "$STACKCHECK_CASE_PLAN"'], "/")
        real = judge.Test("real", ["false"], "/")
        plain = judge.Test("plain", ["true"], "/")
        with tempfile.TemporaryDirectory() as d:
            v = sj.run_planned(7, [artifact, plain], Path(d) / "a", 60)
            self.assertFalse(v.failed)  # the plan's failure did not survive the whole run
            self.assertEqual((sj.plans["rerun"], sj.plans["confirmed"]), (1, 0))
            v = sj.run_planned(7, [plain, artifact, real], Path(d) / "b", 60)
            self.assertTrue(v.failed)
            self.assertEqual(v.test, "real")  # killed by the whole run of the test that fails either way
            self.assertEqual((sj.plans["rerun"], sj.plans["confirmed"]), (3, 1))
            self.assertEqual(sj.plans["runs"], 3)  # planned runs that ran; none queued behind a kill
            sj.run_planned(7, [real, artifact], Path(d) / "d", 60)
            self.assertEqual(sj.plans["runs"], 4)  # "artifact", behind the kill, never ran
            sj.a.whole_tests = True  # no plans: a test that fails only under one passes
            self.assertFalse(sj.run_planned(7, [artifact], Path(d) / "c", 60).failed)
            self.assertEqual(sj.plans["rerun"], 4)

    def test_resume_skips_done_ids(self):
        with tempfile.TemporaryDirectory() as d:
            run_dir = Path(d)
            planned = [mutants.Mutant("stack/a.cpp", n, 1, "lit", "0", ((0, 1, "0"),)) for n in (1, 2, 3)]
            (run_dir / "results.tsv").write_text("\t".join(mutate.COLUMNS) + "\n" + "\t".join(
                planned[1].id if c == "id" else "KILLED" if c == "outcome" else "1" for c in mutate.COLUMNS) + "\n")
            a = argparse.Namespace(run_dir=run_dir, equivalents=run_dir / "none.tsv", jobs=1)
            r = mutate.Run(a)
            self.assertEqual([m.id for m in r.pending(planned)], [planned[0].id, planned[2].id])
            self.assertEqual(r.score(), (1, 1))
            (run_dir / "eq.tsv").write_text(f"id\treason\n{planned[1].id}\targued\n")
            a.equivalents = run_dir / "eq.tsv"
            self.assertEqual(mutate.read_equivalents(a.equivalents), {planned[1].id: "argued"})

    def test_resume_judges_the_runs_own_commit(self):
        head = subprocess.run(["git", "rev-parse", "HEAD~1"], cwd=mutate.ROOT, capture_output=True, text=True)
        if head.returncode != 0:
            self.skipTest("no parent commit in this checkout")
        with tempfile.TemporaryDirectory(dir=mutate.ROOT / "build") as d:
            saved = {"all": True, "seed": 5, "files": [], "operators": [], "mutant": [], "mode": "schemata", "jobs": 1}
            (Path(d) / "args.json").write_text(json.dumps({**saved, "commit": head.stdout.strip()}))
            a = mutate.resolve(["--resume", d])
            self.assertEqual(a.commit, head.stdout.strip())  # not HEAD: the run began there
            (Path(d) / "args.json").write_text(json.dumps(saved))  # a folder from before
            self.assertNotEqual(mutate.resolve(["--resume", d]).commit, head.stdout.strip())

    def test_a_saved_run_resumes_on_a_bare_machine(self):
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=mutate.ROOT, capture_output=True, text=True)
        (mutate.ROOT / "build").mkdir(exist_ok=True)
        with tempfile.TemporaryDirectory(dir=mutate.ROOT / "build") as out, \
                tempfile.TemporaryDirectory(dir=mutate.ROOT, prefix=".test-saved-") as tree:
            run = Path(out) / "20260101T000000Z"
            run.mkdir()
            saved = {"all": True, "seed": 5, "files": [], "operators": [], "mutant": [], "mode": "schemata",
                     "jobs": 1, "stamp": "2026-01-01T00:00:00Z", "commit": head.stdout.strip()}
            (run / "args.json").write_text(json.dumps(saved))
            rows = "id\toutcome\nstack/a.cpp:1:1:lit:0\tKILLED\nstack/a.cpp:2:1:lit:0\tSURVIVED\n"
            (run / "results.tsv").write_text(rows)
            import mutate_checkpoint
            old = mutate_checkpoint.SAVED_RUNS
            mutate_checkpoint.SAVED_RUNS = Path(tree)
            try:
                self.assertEqual(mutate.main(["--save", str(run)]), 0)
            finally:
                mutate_checkpoint.SAVED_RUNS = old
            self.assertEqual((Path(tree) / run.name / "results.tsv").read_text(), rows)
            import shutil
            shutil.rmtree(run)  # a bare machine: only the checkpoint in the tree is left
            a = mutate.resolve(["--resume", str(Path(tree) / run.name), "--out", out])
            self.assertEqual(a.run_dir, run)
            self.assertEqual((run / "results.tsv").read_text(), rows)
            self.assertEqual((a.commit, a.seed, a.all), (head.stdout.strip(), 5, True))
            (run / "results.tsv").write_text(rows + "stack/a.cpp:3:1:lit:0\tKILLED\n")  # the folder went on
            mutate.resolve(["--resume", str(Path(tree) / run.name), "--out", out])
            self.assertEqual(len(mutate.read_tsv(run / "results.tsv")), 3)  # a longer folder is not overwritten
            with self.assertRaises(SystemExit):
                mutate.resolve(["--resume", tree, "--out", out])  # no checkpoint there

    def test_hunted_inputs_do_not_count_for_their_own_mutant(self):
        import hunted
        m = mutants.Mutant("stack/a.cpp", 7, 3, "rel", "<=", ((0, 1, "<="),), "f", "if (a < b)", "if (a <= b)")
        moved = mutants.Mutant("stack/a.cpp", 9, 3, "rel", "<=", ((0, 1, "<="),), "f", "if (a < b)", "if (a <= b)")
        other = mutants.Mutant("stack/a.cpp", 7, 3, "rel", ">", ((0, 1, ">"),), "f", "if (a < b)", "if (a > b)")
        self.assertEqual(hunted.mutant_key(m), hunted.mutant_key(moved))  # line numbers move, the key stays
        self.assertNotEqual(hunted.mutant_key(m), hunted.mutant_key(other))
        row = {"file": m.file, "function": "f", "operator": "rel", "replacement": "<=", "before": "if (a  <  b)",
               "after": "if (a <= b)"}
        self.assertEqual(hunted.mutant_key(row), hunted.mutant_key(m))  # a results.tsv row, its spaces folded
        with tempfile.TemporaryDirectory() as d:
            def corpus_file(name, lines):
                f = Path(d) / name
                f.write_text("# stackcheck fuzz_props\n# property: A.b\n" + "".join(l + "\n" for l in lines) + "00\n")
                return judge.Test(f"replay/fuzz_props/A.b/{name}", ["/bin/fuzz_props_replay", str(f)], d)
            by_id = corpus_file("by-id", [f"# hunted-for: {m.id}"])
            by_key = corpus_file("by-key", ["# hunted-for: stack/a.cpp:1:1:rel:<=", f"# hunted-key: {hunted.mutant_key(m)}"])
            others = corpus_file("others", [f"# hunted-for: {other.id}", f"# hunted-key: {hunted.mutant_key(other)}"])
            plain = corpus_file("plain", [])
            prop = judge.Test("A.b", ["/bin/a_props", "--gtest_filter=A.b"], d)
            tests = [by_id, by_key, others, plain, prop]
            self.assertEqual([t.name for t in hunted.for_mutant(tests, m)], [others.name, plain.name, prop.name])
            # the hunt writes both lines; a file with the id alone matches only that id
            self.assertEqual([t.name for t in hunted.for_mutant(tests, moved)],
                             [by_id.name, others.name, plain.name, prop.name])
            self.assertEqual([t.name for t in hunted.for_mutant(tests, other)],
                             [by_id.name, by_key.name, plain.name, prop.name])
            hunted.NONE_COUNT = True  # --no-hunted: no hunted input counts for anyone
            try:
                self.assertEqual([t.name for t in hunted.for_mutant(tests, other)], [plain.name, prop.name])
            finally:
                hunted.NONE_COUNT = False

    def test_schemata_chunks_keep_files_together_and_cut_big_ones(self):
        import mutate_schemata
        M = mutants.Mutant
        ms = [M(f"stack/{f}.cpp", n, 1, "lit", "0", ((0, 1, "0"),)) for f, k in (("a", 5), ("b", 9), ("c", 3))
              for n in range(1, k + 1)]
        self.assertEqual(mutate_schemata.chunks(ms, 20), [ms])  # all fit: one build
        got = mutate_schemata.chunks(ms, 6)
        self.assertEqual([[m.file[6] for m in c] for c in got], [list("aaaaa"), list("bbbbbb"), list("bbbccc")])
        self.assertEqual([m for c in got for m in c], ms)  # every mutant once, in plan order
        self.assertTrue(all(len(c) <= 6 for c in got))

    def test_a_resumed_chunk_keeps_the_times_of_files_written_again_the_same(self):
        import mutate_schemata
        with tempfile.TemporaryDirectory() as d:
            root = Path(d)
            (root / "same.cpp").write_text("schema A")
            (root / "changed.cpp").write_text("schema B")
            old = 1_000_000_000 * 10**9
            for f in ("same.cpp", "changed.cpp"):
                os.utime(root / f, ns=(old, old))
            kept = mutate_schemata.keep_times(root, ["same.cpp", "changed.cpp", "absent.cpp"])
            for f, text in (("same.cpp", "schema A"), ("changed.cpp", "schema C")):  # checkout, then write
                (root / f).write_text("original")
                (root / f).write_text(text)
            self.assertEqual(mutate_schemata.restore_times(root, kept), 1)
            self.assertEqual((root / "same.cpp").stat().st_mtime_ns, old)  # ninja sees nothing new
            self.assertGreater((root / "changed.cpp").stat().st_mtime_ns, old)  # rebuilt

    def test_corpus_folders_become_replay_tests(self):
        with tempfile.TemporaryDirectory() as d:
            corpus, build = Path(d) / "corpus", Path(d) / "build"
            for t, n in (("fuzz_parse", 2), ("fuzz_attach", 1), ("fuzz_program", 0), ("not_a_target", 1)):
                (corpus / t).mkdir(parents=True)
                for i in range(n):
                    (corpus / t / f"unit{i}").write_bytes(b"x")
            got = {t.name: t.command for t in judge.corpus_tests(build, corpus)}
            self.assertEqual(got, {"corpus/fuzz_attach": [str(build / "bin" / "fuzz_attach_replay"),
                                                          str(corpus / "fuzz_attach")],
                                   "corpus/fuzz_parse": [str(build / "bin" / "fuzz_parse_replay"),
                                                         str(corpus / "fuzz_parse")]})
            self.assertEqual([t.name for t in judge.corpus_tests(build, corpus / "fuzz_parse")], ["corpus/fuzz_parse"])

    def test_split_runners_stop_at_the_first_failure_and_run_everything_otherwise(self):
        with tempfile.TemporaryDirectory() as d:
            d = Path(d)
            ran = d / "ran"
            ran.mkdir()

            def t(name: str, code: int, sleep: float = 0.0) -> judge.Test:
                return judge.Test(name, ["sh", "-c", f"sleep {sleep}; touch {ran / name}; exit {code}"], str(d))

            passing = [t(f"p{i}", 0) for i in range(6)]
            v = judge.run_tests_split(passing, d / "w1", None, 2)
            self.assertFalse(v.failed)
            self.assertEqual(sorted(p.name for p in ran.iterdir()), sorted(x.name for x in passing))
            for p in ran.iterdir():
                p.unlink()
            # The failing test is runner 1's first; runner 0's slow first test ends, then it stops:
            # the tests after it never start.
            tests = [t("slow", 0, 0.5), t("bad", 1), t("after0", 0), t("after1", 0), t("after2", 0)]
            v = judge.run_tests_split(tests, d / "w2", None, 2)
            self.assertTrue(v.failed)
            self.assertEqual(v.test, "bad")
            self.assertEqual(sorted(p.name for p in ran.iterdir()), ["bad", "slow"])
            # One runner is run_tests itself, in order.
            self.assertEqual(judge.run_tests_split(tests[1:], d / "w3", None, 1).test, "bad")

    def test_bad_flags_exit_2_with_one_line(self):
        script = LIB / "mutate.py"
        root = LIB.parents[1]
        for flags in (["--sample", "0"], ["--sample", "x"], ["--jobs", "-1"], ["--operators", "rel,nope"],
                      ["--corpus", "/no/such/dir"], ["--timeout", "0"], ["--out", str(root / "stack")],
                      ["--resume", str(LIB)], ["--bogus"], ["--control", "delta_truncated", "--mutant", "x"]):
            p = subprocess.run([sys.executable, str(script), *flags], capture_output=True, text=True, timeout=60)
            self.assertEqual(p.returncode, 2, (flags, p.stderr))
            self.assertEqual(len(p.stderr.strip().splitlines()), 1, (flags, p.stderr))
            self.assertTrue(p.stderr.startswith("mutate: "), p.stderr)
        p = subprocess.run([sys.executable, str(script), "--help"], capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 0)
        for flag in ("--sample", "--seed", "--files", "--operators", "--mutant", "--jobs", "--timeout", "--corpus",
                     "--with-unit", "--no-tce", "--list", "--resume", "--out", "--scratch", "--equivalents",
                     "--control"):
            self.assertIn(flag, p.stdout)


class ControlTest(unittest.TestCase):
    """--control: a zoo defect's switches, each replaced by `true`, as one mutant."""

    def test_a_defect_in_one_file_becomes_one_mutant_over_all_its_switches(self):
        with tempfile.TemporaryDirectory() as d:
            root = Path(d)
            (root / "stack" / "defects").mkdir(parents=True)
            (root / "stack" / "a.cpp").write_text(
                "int f(int x) {\n"
                "  if (defects::active(defects::Defect::kStatusNegated)) x = -x;\n"
                "  return !defects::active(defects::Defect::kStatusNegated) ? x : 0;\n}\n")
            (root / "stack" / "b.h").write_text("bool g() { return defects::active(defects::Defect::kTwoPlaces); }\n")
            (root / "stack" / "b.cpp").write_text("bool h() { return defects::active(Defect::kTwoPlaces); }\n")
            (root / "stack" / "a_test.cpp").write_text("bool t() { return active(Defect::kOnlyInATest); }\n")
            (root / "stack" / "defects" / "defects.cpp").write_text("bool z() { return active(Defect::kZooOwn); }\n")
            self.assertEqual(sorted(mutant_control.zoo_switches(root)), ["status_negated", "two_places"])
            m = mutant_control.control_mutant(root, "status_negated")
            self.assertEqual(m.id, "stack/a.cpp:2:7:zoo:status_negated")
            self.assertEqual(m.apply((root / "stack" / "a.cpp").read_bytes()).decode(),
                             "int f(int x) {\n  if (true) x = -x;\n  return !true ? x : 0;\n}\n")
            with self.assertRaisesRegex(mutants.EngineError, r"2 files \(stack/b.cpp, stack/b.h\).*status_negated"):
                mutant_control.control_mutant(root, "two_places")
            with self.assertRaisesRegex(mutants.EngineError, r"no such zoo defect switch.*have: status_negated"):
                mutant_control.control_mutant(root, "zoo_own")

    def test_names_and_enumerators(self):
        self.assertEqual(mutant_control.defect_enum("war_edge_missing_on_reuse"), "kWarEdgeMissingOnReuse")
        self.assertEqual(mutant_control.defect_name("kWarEdgeMissingOnReuse"), "war_edge_missing_on_reuse")


if __name__ == "__main__":
    unittest.main()
