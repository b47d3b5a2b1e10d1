"""scripts/check_functions.py (ctest `functions`, label unit): the tree holds the function
limits and its list names only long functions it has, and the check can fail: a planted 151-line
function, an 81-line one with no reason, a listed one with no reason (the list excuses none), a
listed one that grew (under 150 and over it), in C++ and in Python, a member function defined
in its class body; and bad flags."""

from __future__ import annotations

import subprocess
import sys
import tempfile
import unittest
from pathlib import Path
from unittest import mock

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
import check_functions  # noqa: E402


def cpp_fn(name: str, length: int, above: str = "") -> str:
    return above + f"int {name}(int a) {{\n" + "  a += 1;\n" * (length - 2) + "}\n"


def py_fn(name: str, length: int) -> str:
    return f"def {name}(a):\n" + "    a += 1\n" * (length - 2) + "    return a\n"


class Functions(unittest.TestCase):
    def run_on(self, files: dict[str, str]) -> list[str]:
        with tempfile.TemporaryDirectory() as d:
            for rel, text in files.items():
                (Path(d) / rel).parent.mkdir(parents=True, exist_ok=True)
                (Path(d) / rel).write_text(text)
            return check_functions.check(d)

    def test_the_tree_holds(self):
        self.assertEqual(check_functions.check(str(ROOT)), [])

    def test_lengths_and_names_are_read(self):
        text = ("namespace x {\nstruct S {\n  int f() { return 1; }\n};\n"
                + cpp_fn("Runtime::ship", 20)
                + "TEST(Suite, case_one) {\n  int a = 0;\n}\n}  // namespace x\n")
        got = [(name, n) for _, _, name, n, _ in self.functions({"stack/a.cpp": text})]
        self.assertEqual(got, [("Runtime::ship", 20), ("Suite.case_one", 3)])
        # A one-line definition is skipped, not run on into the next function (it named that one).
        text = "int one(int a) { return a; }\n" + cpp_fn("next_one", 5)
        got = [(name, n) for _, _, name, n, _ in self.functions({"stack/a.cpp": text})]
        self.assertEqual(got, [("next_one", 5)])
        got = [(name, n) for _, _, name, n, _ in self.functions({"scripts/lib/a.py": py_fn("go", 7)})]
        self.assertEqual(got, [("go", 7)])

    def test_member_functions_defined_in_their_class_are_read(self):
        # A member defined in its class body is measured too (its brace at its own indentation);
        # a control statement, a lambda and a one-line member are not definitions.
        body = "    a += 1;\n" * 149
        text = ("class Model {\n public:\n  int judge(int a) const {\n" + body + "  }\n"
                "  int small() { return 1; }\n"
                "  void run() {\n    if (x) {\n      y();\n    }\n    auto f = [&](int a) {\n      return a;\n    };\n  }\n"
                "};\n")
        got = [(name, n) for _, _, name, n, _ in self.functions({"stack/a.cpp": text})]
        self.assertEqual(got, [("Model::judge", 151), ("Model::run", 8)])
        self.assertEqual(len(self.run_on({"stack/a.cpp": text})), 1)  # 151 lines: the positive control

    def functions(self, files: dict[str, str]) -> list[tuple]:
        with tempfile.TemporaryDirectory() as d:
            for rel, text in files.items():
                (Path(d) / rel).parent.mkdir(parents=True, exist_ok=True)
                (Path(d) / rel).write_text(text)
            return list(check_functions.functions(d))

    def test_controls_over_150_fail_even_with_a_reason(self):
        self.assertEqual(self.run_on({"stack/a.cpp": cpp_fn("ok", 150, "// long: a table\n") + cpp_fn("big", 151, "// long: a table\n")}),
                         ["stack/a.cpp:153: big: 151 lines (limit 150): split it"])
        self.assertEqual(len(self.run_on({"scripts/lib/a.py": py_fn("big", 151)})), 1)

    def test_controls_over_80_need_a_reason(self):
        bad = self.run_on({"properties/a.cpp": cpp_fn("long_one", 81)})
        self.assertEqual(len(bad), 1)
        self.assertIn("properties/a.cpp:1: long_one: 81 lines (over 80)", bad[0])
        reason = "// long: one case of every rule code, in the order of the spec\n"
        self.assertEqual(self.run_on({"properties/a.cpp": cpp_fn("long_one", 81, reason)}), [])
        self.assertEqual(self.run_on({"properties/a.cpp": cpp_fn("short_one", 80)}), [])
        self.assertEqual(len(self.run_on({"scripts/lib/a.py": py_fn("long_one", 81)})), 1)

    def test_a_listed_function_needs_its_reason_all_the_same(self):
        # The control: every listed function, at its listed length with no reason, fails.
        for (rel, name), was in check_functions.LONG.items():
            bad = self.run_on({rel: cpp_fn(name, was)})
            self.assertEqual(len(bad), 1, (rel, name))
            self.assertIn(f"{name}: {was} lines (over 80): split it, or give the reason", bad[0])
            self.assertEqual(self.run_on({rel: cpp_fn(name, was, "// long: one dispatch, a line a case\n")}), [])

    def test_a_listed_function_may_not_grow(self):
        reason = "// long: one dispatch, a line a case\n"
        (rel, name), was = next(iter(check_functions.LONG.items()))
        self.assertEqual(self.run_on({rel: cpp_fn(name, was, reason)}), [])
        self.assertEqual(self.run_on({rel: cpp_fn(name, was + 1, reason)}),
                         [f"{rel}:2: {name}: {was + 1} lines (listed at {was}): split it, or read its reason again "
                          f"and raise its entry in LONG"])
        self.assertEqual(len(self.run_on({rel: cpp_fn(name, was + 1)})), 2)  # grew, and no reason
        # Over 150: only a listed function, with its reason, at or under its length.
        with mock.patch.dict(check_functions.LONG, {("stack/a.cpp", "big"): 160}, clear=True):
            self.assertEqual(self.run_on({"stack/a.cpp": cpp_fn("big", 160, reason)}), [])
            self.assertEqual(len(self.run_on({"stack/a.cpp": cpp_fn("big", 161, reason)})), 1)
            self.assertEqual(len(self.run_on({"stack/a.cpp": cpp_fn("big", 160)})), 1)
            self.assertEqual(len(self.run_on({"stack/a.cpp": cpp_fn("other", 151, reason)})), 1)

    def test_the_list_names_long_functions_of_the_tree(self):
        # An entry outlives its function's split or rename only by mistake: each is in the tree, over 80.
        found = {(rel, name): n for rel, _, name, n, _ in check_functions.functions(str(ROOT))}
        for key in check_functions.LONG:
            self.assertIn(key, found)
            self.assertGreater(found[key], check_functions.REASON, key)

    def test_the_script_exits_1_on_a_break_and_2_on_bad_flags(self):
        with tempfile.TemporaryDirectory() as d:
            (Path(d) / "stack").mkdir()
            (Path(d) / "stack" / "a.cpp").write_text(cpp_fn("big", 151))
            r = subprocess.run([sys.executable, str(ROOT / "scripts" / "check_functions.py"), "--root", d],
                               capture_output=True, text=True)
            self.assertEqual((r.returncode, r.stdout.strip()), (1, "stack/a.cpp:1: big: 151 lines (limit 150): split it"))
        self.assertEqual(check_functions.main(["--root", "/no/such/folder"]), 2)
        self.assertEqual(check_functions.main(["--bogus"]), 2)


if __name__ == "__main__":
    unittest.main()
