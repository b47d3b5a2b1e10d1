#!/usr/bin/env python3
"""Checks the tree's include graph against the layers of ARCHITECTURE.md ("Boundaries").

    scripts/check_layers.py [--root DIR] [--list]

Every C++ file of the tree belongs to one layer, found by the longest folder prefix (or the
file itself) in LAYERS below; each of its project includes (`#include "stack/..."`, "properties/...", ...) and each
third-party include the layers name (RapidCheck, GoogleTest, Google Benchmark) must point to a
layer its own may use. The rules, top down (ARCHITECTURE.md):

  cli/ over fuzz/ over properties/ (*_props over gen/ and judge/ over oracles/) over stack/,
  fuzz/ reaching the suites (properties/) only from fuzz_props.cpp;
  inside stack/: codegen/ over passes/ over verify/ over ir/, interp/ over ir/; runtime/ apart, never
  including ir/, passes/, verify/, interp/ or codegen/; the device side never sees the host;
  support/ at the bottom, defects/ just above it;
  stack/ never includes cli/, properties/, fuzz/, reports/ or RapidCheck;
  properties/oracles/ never includes RapidCheck; reports/ stands apart.

Unit tests of the stack (`*_test.cpp` beside the code and the fixtures they share: testing.h,
test_support.h, test_fixture.h, *_test_util.h) are not part of libstack: they may include any
stack/ layer and GoogleTest, never the harness. A folder of the tree with C++ in it that no
layer names is itself an error, so that the table stays complete.

One rule besides the arrows: a property suite's code (properties/*_props.cpp) runs on every
engine (RapidCheck, libFuzzer through fuzz_props, a replayed file), so it never dereferences a
RapidCheck generator (`*rc::gen::...`: RapidCheck throws "operator* is not allowed in this
context" under the other engines) except on a line that asks gen::rapidcheck_engine() first;
it draws through gen::choices() / gen::draw_value.

Prints one line per wrong arrow, `path:line: ...`, and exits 1 if there is any; 0 when the
graph holds; 2 on a usage error.
"""
import argparse
import os
import re
import subprocess
import sys

STACK = ["stack/support", "stack/defects", "stack/ir", "stack/verify", "stack/interp",
         "stack/passes", "stack/codegen", "stack/runtime/devmem", "stack/runtime/status",
         "stack/runtime/image", "stack/runtime/device", "stack/runtime/host",
         "stack/runtime/plan"]
RUNTIME_BASE = {"stack/support", "stack/defects"}

# layer -> the layers (or third-party names) its files may include, besides its own.
LAYERS = {
    "stack/support": set(),
    "stack/defects": {"stack/support"},
    "stack/ir": RUNTIME_BASE,
    "stack/verify": RUNTIME_BASE | {"stack/ir"},
    "stack/interp": RUNTIME_BASE | {"stack/ir"},
    "stack/passes": RUNTIME_BASE | {"stack/ir", "stack/verify"},
    # codegen emits the runtime's orchestration program (the seam, RUNTIME.md §17).
    "stack/codegen": RUNTIME_BASE | {"stack/ir", "stack/passes",
                                     "stack/runtime/plan", "stack/runtime/host"},
    "stack/runtime/devmem": RUNTIME_BASE,
    "stack/runtime/status": RUNTIME_BASE,
    "stack/runtime/image": RUNTIME_BASE | {"stack/runtime/devmem", "stack/runtime/status"},
    # the device side reads only device memory: no host layer above it.
    "stack/runtime/device": RUNTIME_BASE | {"stack/runtime/devmem", "stack/runtime/status",
                                            "stack/runtime/image"},
    # the host runs orchestration programs (plan/): their text, checks and config ranges.
    "stack/runtime/host": RUNTIME_BASE | {"stack/runtime/devmem", "stack/runtime/status",
                                          "stack/runtime/image", "stack/runtime/device",
                                          "stack/runtime/plan"},
    "stack/runtime/plan": RUNTIME_BASE | {"stack/runtime/devmem", "stack/runtime/status",
                                          "stack/runtime/image", "stack/runtime/device"},
    "properties/oracles": set(STACK),
    "properties/gen": set(STACK) | {"properties/oracles", "rapidcheck"},
    # the cases and the one oracle sequence per input kind, shared by fuzz targets and properties
    "properties/judge": set(STACK) | {"properties/oracles", "properties/gen"},
    "properties": set(STACK) | {"properties/oracles", "properties/gen", "properties/judge", "rapidcheck", "gtest"},
    "fuzz": set(STACK) | {"properties/oracles", "properties/gen", "properties/judge"},
    # fuzz_props runs the property suites themselves (their registry, property.h)
    "fuzz/fuzz_props.cpp": set(STACK) | {"fuzz", "properties", "properties/oracles", "properties/gen",
                                         "properties/judge"},
    "cli": set(STACK) | {"properties/oracles"},
    # the throughput benchmark times the fuzz targets' judges over a fixed corpus
    "bench": set(STACK) | {"properties/oracles", "properties/gen", "properties/judge", "fuzz", "benchmark"},
    "reports": set(),
}
PROJECT_ROOTS = ("stack/", "properties/", "fuzz/", "cli/", "reports/", "bench/")
THIRD_PARTY = (("rapidcheck", "rapidcheck"), ("gtest/", "gtest"), ("gmock/", "gtest"),
               ("benchmark/", "benchmark"))
SOURCE_ENDINGS = (".h", ".hpp", ".cpp", ".cc")
TEST_SUPPORT = re.compile(r"(_test\.cpp|_test_util\.h|/testing\.h|/test_support\.h|/test_fixture\.h)$")
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^">]+)[">]')
RC_DRAW = re.compile(r"\*\s*rc::(?:state::)?gen::")
PROPERTY_SUITE = re.compile(r"^properties/[a-z_]+_props\.cpp$")


def layer_of(path):
    best = None
    for name in LAYERS:
        if path == name or path.startswith(name + "/"):
            if best is None or len(name) > len(best):
                best = name
    return best


def included_layer(target):
    for prefix, name in THIRD_PARTY:
        if target.startswith(prefix):
            return name
    if target.startswith(PROJECT_ROOTS):
        return layer_of(target) or target.split("/")[0]
    return None  # the standard library, fmt, Boost: any layer may use them


def allowed(src_layer, dst_layer, is_test):
    if dst_layer == src_layer:
        return True
    if is_test and src_layer in STACK:
        return dst_layer in STACK or dst_layer == "gtest"
    if is_test and dst_layer == "gtest":
        return True
    return dst_layer in LAYERS[src_layer]


def source_files(root):
    try:
        out = subprocess.run(["git", "-C", root, "ls-files", "--cached", "--others",
                              "--exclude-standard"], capture_output=True, text=True, check=True)
        files = out.stdout.splitlines()
    except (OSError, subprocess.CalledProcessError):
        files = []
        for d, dirs, names in os.walk(root):
            dirs[:] = [x for x in dirs if x not in (".git", "build")]
            files += [os.path.relpath(os.path.join(d, n), root) for n in names]
    return sorted(f for f in files if f.endswith(SOURCE_ENDINGS) and f.startswith(PROJECT_ROOTS)
                  and os.path.isfile(os.path.join(root, f)))


def mutual_pairs(layers):
    """The pairs of layers that may include each other (a folder and its subfolders are one
    layer already): the table must have none (issue: no two folders include each other)."""
    return sorted((a, b) for a, deps in layers.items() for b in deps
                  if a < b and b in layers and a in layers[b])


def check(root, layers=None):
    """Returns (wrong arrows as printable lines, number of files, number of arrows)."""
    errors, arrows = [], 0
    for a, b in mutual_pairs(LAYERS if layers is None else layers):
        errors.append(f"scripts/check_layers.py:1: the layer table lets {a}/ and {b}/ include each other")
    files = source_files(root)
    for path in files:
        src = layer_of(path)
        if src is None:
            errors.append(f"{path}:1: in no layer of ARCHITECTURE.md's Boundaries "
                          f"(scripts/check_layers.py LAYERS names every folder)")
            continue
        is_test = bool(TEST_SUPPORT.search("/" + path))
        suite = bool(PROPERTY_SUITE.match(path))
        with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
            for lineno, line in enumerate(f, 1):
                if suite and RC_DRAW.search(line.split("//")[0]) and "rapidcheck_engine()" not in line:
                    errors.append(f"{path}:{lineno}: dereferences a RapidCheck generator in a property "
                                  f"suite (it throws under fuzz_props): draw through gen::choices()")
                m = INCLUDE.match(line)
                if not m:
                    continue
                dst = included_layer(m.group(2))
                if dst is None:
                    continue
                arrows += 1
                if dst not in LAYERS and dst not in ("rapidcheck", "gtest", "benchmark"):
                    errors.append(f'{path}:{lineno}: includes "{m.group(2)}", in no layer')
                elif not allowed(src, dst, is_test):
                    kind = "a test of " if is_test else ""
                    errors.append(f'{path}:{lineno}: includes "{m.group(2)}": {kind}{src}/ may '
                                  f"not depend on {dst}")
    return errors, len(files), arrows


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", default=os.path.join(os.path.dirname(__file__), ".."),
                    help="the tree to check (default: this checkout)")
    ap.add_argument("--list", action="store_true",
                    help="print the layer table and any two layers that may include each other, and exit")
    args = ap.parse_args(argv)
    if args.list:
        for name, deps in LAYERS.items():
            print(f"{name}: {' '.join(sorted(deps)) or '(nothing)'}")
        pairs = mutual_pairs(LAYERS)
        print("layers that include each other: " + (", ".join(f"{a} <-> {b}" for a, b in pairs) or "none"))
        return 1 if pairs else 0
    if not os.path.isdir(args.root):
        print(f"check_layers: --root {args.root}: not a folder", file=sys.stderr)
        return 2
    errors, nfiles, arrows = check(os.path.abspath(args.root))
    for e in errors:
        print(e)
    print(f"check_layers: {nfiles} files, {arrows} includes between layers, "
          f"{len(errors)} wrong", file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
