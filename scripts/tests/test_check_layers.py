#!/usr/bin/env python3
"""The layering check (scripts/check_layers.py) on this tree, and its positive controls: the
same tree with one include planted the wrong way must fail, naming the file and line."""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
CHECK = os.path.join(ROOT, "scripts", "check_layers.py")
SCRIPT = CHECK
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import check_layers  # noqa: E402
FOLDERS = ("stack", "properties", "fuzz", "cli", "reports", "bench")


def run_check(root):
    p = subprocess.run([sys.executable, CHECK, "--root", root], capture_output=True, text=True)
    return p.returncode, p.stdout


class Layers(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        # A copy of the tree's C++ (no .git: the check walks the folder).
        cls.tmp = tempfile.mkdtemp(prefix="layers-")
        for d in FOLDERS:
            src = os.path.join(ROOT, d)
            if os.path.isdir(src):
                shutil.copytree(src, os.path.join(cls.tmp, d),
                                ignore=shutil.ignore_patterns("testdata", "*.txt", "*.sh", "*.py"))

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp)

    def plant(self, path, line):
        """Appends `line` to `path` in the copy; returns its line number and an undo."""
        full = os.path.join(self.tmp, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        old = None
        if os.path.exists(full):
            with open(full) as f:
                old = f.read()
        text = (old or "") + ("" if not old or old.endswith("\n") else "\n") + line + "\n"
        with open(full, "w") as f:
            f.write(text)
        lineno = text.count("\n")

        def undo():
            if old is None:
                os.remove(full)
            else:
                with open(full, "w") as f:
                    f.write(old)
        self.addCleanup(undo)
        return lineno

    def test_the_tree_holds(self):
        rc, out = run_check(ROOT)
        self.assertEqual(rc, 0, out)

    def test_the_copy_holds(self):
        rc, out = run_check(self.tmp)
        self.assertEqual(rc, 0, out)

    # (file in the copy, the include planted at its end, what the error must say)
    CONTROLS = [
        ("stack/ir/ast.cpp", '"properties/oracles/oracle.h"',
         "stack/ir/ may not depend on properties/oracles"),
        ("stack/runtime/image/records.h", '"stack/ir/ast.h"',
         "stack/runtime/image/ may not depend on stack/ir"),
        ("stack/runtime/device/attach.cpp", '"stack/runtime/host/bind.h"',
         "stack/runtime/device/ may not depend on stack/runtime/host"),
        ("properties/oracles/oracle.cpp", "<rapidcheck.h>",
         "properties/oracles/ may not depend on rapidcheck"),
        ("stack/ir/parser_test.cpp", '"properties/gen/program_gen.h"',
         "a test of stack/ir/ may not depend on properties/gen"),
        ("stack/passes/simplify.cpp", '"cli/cli.h"', "stack/passes/ may not depend on cli"),
        ("stack/runtime/plan/check.cpp", '"stack/runtime/host/runtime_config.h"',
         "stack/runtime/plan/ may not depend on stack/runtime/host"),
    ]

    def test_controls_planted_includes_fail_at_their_line(self):
        for path, include, words in self.CONTROLS:
            with self.subTest(path=path, include=include):
                lineno = self.plant(path, f"#include {include}")
                rc, out = run_check(self.tmp)
                self.assertEqual(rc, 1, out)
                target = include.strip('<>"')
                self.assertIn(f'{path}:{lineno}: includes "{target}"', out)
                self.assertIn(words, out)
                self.doCleanups()

    def test_control_rapidcheck_draw_in_a_property_suite(self):
        lineno = self.plant("properties/ir_props.cpp", "const int k = *rc::gen::inRange<int>(0, 3);")
        rc, out = run_check(self.tmp)
        self.assertEqual(rc, 1, out)
        self.assertIn(f"properties/ir_props.cpp:{lineno}: dereferences a RapidCheck generator", out)
        self.doCleanups()
        # Guarded by the engine test, it is RapidCheck's own path and allowed.
        self.plant("properties/ir_props.cpp", "if (gen::rapidcheck_engine()) return *rc::gen::arbitrary<int>();")
        rc, out = run_check(self.tmp)
        self.assertEqual(rc, 0, out)

    def test_control_unlisted_folder(self):
        lineno = self.plant("stack/newthing/x.cpp", "int x;")
        rc, out = run_check(self.tmp)
        self.assertEqual(rc, 1, out)
        self.assertIn("stack/newthing/x.cpp:1: in no layer", out)
        del lineno

    def test_the_table_has_no_two_layers_including_each_other(self):
        self.assertEqual(check_layers.mutual_pairs(check_layers.LAYERS), [])
        out = subprocess.run([sys.executable, SCRIPT, "--list"], capture_output=True, text=True)
        self.assertEqual(out.returncode, 0, out.stdout)
        self.assertIn("layers that include each other: none", out.stdout)
        # Control: a table with one back-edge names the pair and fails the check.
        bad = dict(check_layers.LAYERS)
        bad["stack/runtime/plan"] = bad["stack/runtime/plan"] | {"stack/runtime/host"}
        self.assertEqual(check_layers.mutual_pairs(bad), [("stack/runtime/host", "stack/runtime/plan")])
        errors, _, _ = check_layers.check(ROOT, bad)
        self.assertIn("the layer table lets stack/runtime/host/ and stack/runtime/plan/ include each other",
                      "\n".join(errors))

    def test_bad_root_is_a_usage_error(self):
        rc, _ = run_check(os.path.join(self.tmp, "no-such-folder"))
        self.assertEqual(rc, 2)


if __name__ == "__main__":
    unittest.main()
