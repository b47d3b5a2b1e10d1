"""Unit tests of scripts/mutate's schemata (ctest `scripts/schemata`, label unit): every site of
a small program with every operator and schema form (nested spans, an equal span of two forms,
a constexpr function, a literal in a template argument) written into one file behind switches.
Each mutant switched on at run time must print what the same mutant built alone prints; the
schema that cannot compile is blamed from the compiler's errors and taken out; the reach file
names exactly the switches of the code that ran. No build of the tree is needed."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

LIB = Path(__file__).resolve().parents[1] / "lib"
sys.path.insert(0, str(LIB))
import judge  # noqa: E402
import mutants  # noqa: E402
import schemata  # noqa: E402

PROG = """\
#include <array>
#include <cstdio>
namespace stackcheck::calc {
constexpr int g(int a, int b) { return a * 10 + b; }
constexpr int sq(int x) { return x * x + 1; }
constexpr int f(int a, int b);
static_assert(sq(2) == 5);
constexpr int f(int a, int b) {
  int s = 0;
  for (int i = 0; i < a; ++i) {
    if (i == 3) continue;
    if (i > 6) break;
    s += i * 2;
  }
  s = s +
      g(a, b);
  bool ok = a > 0 && b > 0;
  return ok ? s % 50 : sq(a);
}
int width() { std::array<int, 3> w{}; return static_cast<int>(w.size()); }
int never(int x) { return x - 4; }
}  // namespace stackcheck::calc
int main() {
  using namespace stackcheck::calc;
  for (int a = -1; a < 9; a += 3)
    for (int b = -2; b < 3; b += 2) std::printf("%d ", f(a, b));
  std::printf("| %d\\n", width());
  return 0;
}
"""


def run(exe: Path, env=None) -> str:
    """What the program prints and its exit code ("hangs" past 3 s: a mutant's endless loop)."""
    try:
        r = subprocess.run([str(exe)], capture_output=True, text=True, timeout=3, env={**os.environ, **(env or {})})
    except subprocess.TimeoutExpired:
        return "hangs"
    return r.stdout + f"exit {r.returncode}"


def compile_run(src: Path, exe: Path, extra=(), env=None) -> str | None:
    """The program's output, or None when it does not compile."""
    c = subprocess.run(["g++", "-std=c++20", "-O0", *extra, "-o", str(exe), str(src)], capture_output=True)
    if c.returncode != 0:
        return None
    return run(exe, env)


class SchemataTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        d = cls.root = Path(cls.tmp.name)
        (d / "stack").mkdir()
        (d / "build").mkdir()
        cls.src = d / "stack" / "prog.cpp"
        cls.src.write_text(PROG)
        cls.prelude = d / "prelude.h"
        cls.prelude.write_text(schemata.PRELUDE)
        cls.entry = {"directory": str(d / "build"), "file": str(cls.src),
                     "command": f"g++ -std=c++20 -O0 -include {cls.prelude} -o prog.o -c {cls.src}"}
        (d / "build" / "compile_commands.json").write_text(json.dumps([
            {**cls.entry, "command": f"g++ -std=c++20 -O0 -o prog.o -c {cls.src}"}]))
        cls.sites = mutants.find_sites(d, d / "build" / "compile_commands.json", d / "cache")
        cls.numbered = list(enumerate(cls.sites, 1))

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def schema(self) -> tuple[schemata.FileSchema, set[int]]:
        """The file's schemata after the compiler's errors took out what cannot compile."""
        ejected: set[int] = set()
        data = PROG.encode()
        for _ in range(6):
            fs = schemata.render("stack/prog.cpp", data, [(n, m) for n, m in self.numbered if n not in ejected])
            self.src.write_text(fs.text)
            ok, out = judge.syntax_check(self.entry)
            if ok:
                return fs, ejected
            ids, unblamed = schemata.blame([out], {"stack/prog.cpp": fs}, self.root, self.root / "build")
            self.assertEqual(unblamed, [])
            self.assertTrue(ids)
            ejected |= ids
        self.fail("the schemata never compiled")

    def test_every_mutant_behaves_as_it_does_alone(self):
        self.assertEqual({m.op for m in self.sites}, set(mutants.OPERATORS))
        try:
            fs, ejected = self.schema()
            exe = self.root / "schemata"
            base = compile_run(self.src, exe, ("-include", str(self.prelude)))
        finally:
            self.src.write_text(PROG)
        alone_dir = self.root / "alone"
        alone_dir.mkdir(exist_ok=True)
        plain = compile_run(self.src, alone_dir / "plain")
        self.assertEqual(base, plain)  # no mutant active: the committed program
        differ = 0
        for n, m in self.numbered:
            src = alone_dir / f"m{n}.cpp"
            src.write_bytes(m.apply(PROG.encode()))
            alone = compile_run(src, alone_dir / f"m{n}")
            if n in ejected:
                continue
            got = run(exe, {"STACKCHECK_MUTANT": str(n)})
            self.assertIsNotNone(alone, f"{m.id}: its schema compiles, the mutant alone does not")
            self.assertEqual(got, alone, f"{m.id}: {m.before} -> {m.after}")
            differ += got != plain
        # the check can fail: most mutants change what the program prints
        self.assertGreater(differ, len(self.numbered) // 2)
        # refused: the literal in the template argument, and every site of sq(), which the
        # compiler evaluates for the static_assert; f(), a constexpr function run only at run
        # time, keeps its schemata
        refused = {self.numbered[n - 1][1] for n in ejected}
        self.assertEqual({m.id for m in refused if ":20:" in m.id}, {f"stack/prog.cpp:20:31:lit:{v}" for v in (0, 2, 4)})
        self.assertEqual({m.function for m in refused if ":20:" not in m.id}, {"calc::sq"})
        self.assertTrue(any(m.function == "calc::f" and any(len(x) > 3 and x[3] for x in m.span)
                            for n, m in self.numbered if n not in ejected))

    def test_reach_names_the_switches_of_the_code_that_ran(self):
        try:
            fs, ejected = self.schema()
            exe = self.root / "reach"
            reach = self.root / "hits"
            reach.mkdir(exist_ok=True)
            out = compile_run(self.src, exe, ("-include", str(self.prelude)), {"STACKCHECK_MUTANT_REACH": str(reach)})
        finally:
            self.src.write_text(PROG)
        self.assertIsNotNone(out)
        hit = schemata.read_reach(reach)
        never = {n for n, m in self.numbered if m.function.endswith("never") and n not in ejected}
        ran = {n for n, m in self.numbered if m.function.endswith("calc::f") and n not in ejected}
        self.assertTrue(never and ran)
        self.assertEqual(hit & never, set())
        self.assertEqual(ran - hit, set())
        self.assertIsNone(schemata.read_reach(self.root / "no-such-folder"))

    def test_case_reach_gives_each_switch_the_cases_that_ran_it(self):
        # four cases as a property wrapper runs them: case k reaches switch 1 when k is even and
        # switch 2 when k == 3; case 1 is discarded. Only the cases of a plan's r run.
        src = self.root / "cases.cpp"
        src.write_text("""#include <cstdio>
int main() {
  namespace sw = ::stackcheck_schemata;
  for (unsigned long k = 0; k < 4; ++k) {
    if (sw::case_plan(k) != 'r') continue;
    std::printf("%lu ", k);
    sw::case_begin();
    if (k % 2 == 0) sw::on(1);
    if (k == 3) sw::on(2);
    sw::case_end(k, k == 1 ? 'd' : 'p');
  }
  return 0;
}
""")
        folder = self.root / "case-hits"
        folder.mkdir(exist_ok=True)
        exe = self.root / "cases"
        self.assertEqual(compile_run(src, exe, ("-include", str(self.prelude)), {"STACKCHECK_MUTANT_REACH": str(folder)}),
                         "0 1 2 3 exit 0")
        c = schemata.read_cases(folder)
        self.assertEqual(c.outcomes, "pdpp")
        self.assertEqual(c.masks, {1: 0b0101, 2: 0b1000})
        self.assertEqual(c.plan(1), "rdrp")
        self.assertEqual(c.plan(2), "pdpr")
        self.assertIsNone(c.plan(3))  # not reached in any case: the test runs whole
        self.assertEqual(schemata.CaseReach.from_json(c.to_json()), c)
        self.assertEqual(run(exe, {"STACKCHECK_CASE_PLAN": c.plan(2)}), "3 exit 0")
        self.assertEqual(run(exe, {"STACKCHECK_CASE_PLAN": "rd"}), "0 2 3 exit 0")  # past its end, a case runs
        (folder / "999.cases").write_text("0 p 1\n")
        self.assertIsNone(schemata.read_cases(folder))  # two processes wrote cases: no plan

    def test_spans_that_overlap_in_part_leave_the_schemata(self):
        m = mutants.Mutant
        a = m("x.cpp", 1, 1, "rel", "<=", ((2, 3, "<="),), span=((0, 5, "value"),))
        b = m("x.cpp", 1, 4, "rel", "<=", ((5, 6, "<="),), span=((3, 8, "value"),))
        fs = schemata.render("x.cpp", b"a < b < c;\n", [(1, a), (2, b)])
        self.assertEqual(fs.conflicts, [2])
        self.assertEqual(fs.text, f"({schemata.SWITCH}(1) ? (a <= b) : (a < b)) < c;\n")

    def test_failed_build_steps_name_their_sources(self):
        log = ("[3/9] Building CXX object stack/CMakeFiles/stack.dir/ir/lexer.cpp.o\n"
               "FAILED: stack/CMakeFiles/stack.dir/runtime/image/compact.cpp.o \nerror text\n"
               "FAILED: properties/CMakeFiles/stackcheck_oracles.dir/oracles/deps.cpp.o\n"
               "FAILED: stack/CMakeFiles/stack.dir/runtime/image/compact.cpp.o \n"  # twice: once
               "FAILED: CMakeFiles/top.dir/main.cpp.o\nFAILED: bin/stackcheck\n")  # a link step: no source
        self.assertEqual(schemata.failed_sources(log),
                         ["stack/runtime/image/compact.cpp", "properties/oracles/deps.cpp", "main.cpp"])


if __name__ == "__main__":
    if not shutil.which("g++"):
        print("test_schemata: needs g++", file=sys.stderr)
        sys.exit(1)
    unittest.main()
