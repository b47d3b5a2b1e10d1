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
        old = open(full).read() if os.path.exists(full) else None
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

    def assert_caught(self, path, include, words):
        lineno = self.plant(path, f"#include {include}")
        rc, out = run_check(self.tmp)
        self.assertEqual(rc, 1, out)
        self.assertIn(f"{path}:{lineno}: includes ", out)
        for w in words:
            self.assertIn(w, out)

    def test_control_stack_includes_the_judge(self):
        self.assert_caught("stack/ir/ast.cpp", '"properties/oracles/oracle.h"',
                           ["stack/ir/ may not depend on properties/oracles"])

    def test_control_runtime_includes_the_compiler(self):
        self.assert_caught("stack/runtime/image/records.h", '"stack/ir/ast.h"',
                           ["stack/runtime/image/ may not depend on stack/ir"])

    def test_control_device_sees_the_host(self):
        self.assert_caught("stack/runtime/device/attach.cpp", '"stack/runtime/host/bind.h"',
                           ["stack/runtime/device/ may not depend on stack/runtime/host"])

    def test_control_oracles_include_rapidcheck(self):
        self.assert_caught("properties/oracles/oracle.cpp", "<rapidcheck.h>",
                           ["properties/oracles/ may not depend on rapidcheck"])

    def test_control_a_stack_test_includes_the_harness(self):
        self.assert_caught("stack/ir/parser_test.cpp", '"properties/gen/program_gen.h"',
                           ["a test of stack/ir/ may not depend on properties/gen"])

    def test_control_cli_below_the_stack(self):
        self.assert_caught("stack/passes/simplify.cpp", '"cli/cli.h"',
                           ["stack/passes/ may not depend on cli"])

    def test_control_unlisted_folder(self):
        lineno = self.plant("stack/newthing/x.cpp", "int x;")
        rc, out = run_check(self.tmp)
        self.assertEqual(rc, 1, out)
        self.assertIn("stack/newthing/x.cpp:1: in no layer", out)
        del lineno

    def test_bad_root_is_a_usage_error(self):
        rc, _ = run_check(os.path.join(self.tmp, "no-such-folder"))
        self.assertEqual(rc, 2)


if __name__ == "__main__":
    unittest.main()
