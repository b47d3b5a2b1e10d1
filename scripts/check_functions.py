#!/usr/bin/env python3
"""Checks the length of every function of the tree (STYLE.md: under 150 lines; over 80 only
with a reason).

    scripts/check_functions.py [--root DIR] [--list]

Reads the C++ (.cpp, .h, .hpp, .cc) and Python (.py, and the scripts under scripts/ without an
ending) files git tracks. A function is counted from the first line of its signature to its
closing line:
- C++: a definition that starts at column 0 (a function, a member function defined outside its
  class, a TEST or STACKCHECK_PROP body) and ends at the next line that is `}` alone at column 0,
  which is how the tree is formatted; a definition whose body closes on its own last line
  (`int f() { return 1; }`) is skipped. Lambdas count in the function that holds them; a member
  function defined inside its class is not seen (keep those short).
- Python: a `def` at any depth, to the last line indented deeper than it.

The rules:
- Over REASON (80) lines needs a reason, always: a comment that starts with `long:` on one of the
  three lines above its signature (`// long: one table of every rule code`), saying why it is one
  function. Being on the list below excuses nothing.
- Over MAX (150) lines is an error, reason or not, unless the function is on the list (LONG).
- A function on the list may shrink but not grow past its listed length, under MAX or over it.
  The list holds the long functions whose reason was reviewed at that length (all of them under
  MAX today): one that grows needs its reason read again and its entry raised in the same change,
  or a split.

Prints one line per rule a function breaks (`path:line: name: N lines ...`) and exits 1 if there
is any; 0 when every function holds; 2 on a usage error. --list prints every function over
REASON lines, longest first, with whether it has its reason and its listed length.
"""
import argparse
import os
import re
import sys

import check_sizes  # the same files: git's, or every file below --root outside a checkout

MAX = 150
REASON = 80
# (path, function name) -> its length when its reason was last reviewed; each may only shrink.
LONG = {
    ("properties/gen/mutation_gen.cpp", "resolve_mutations"): 119,
    ("properties/gen/orchestrator_calls.cpp", "provoke_kind"): 119,
    ("stack/ir/lexer.cpp", "lex"): 117,
    ("properties/oracles/orchestrator_model_graph.cpp", "OrchestratorModel::record_graph"): 115,
    ("stack/runtime/image/compact.cpp", "compact_live_image"): 113,
    ("properties/gen/orchestrator_calls.cpp", "generate_model_setup"): 106,
    ("properties/gen/program_gen.cpp", "Builder::make_view"): 100,
    ("stack/runtime/device/scheduler_graph.cpp", "SchedulerRun::start_graph"): 98,
    ("properties/oracles/capacity.cpp", "check_capacity_at_need"): 93,
    ("stack/runtime/device/kernels.cpp", "run_kernel"): 83,
    ("properties/gen/program_gen.cpp", "Builder::launch"): 81,
    ("stack/runtime/plan/parser.cpp", "Parser::stmt"): 96,
    ("stack/runtime/plan/parser.cpp", "Lexer::next"): 90,
    ("properties/oracles/plan_model.cpp", "PlanModel::record_block"): 83,
}
CPP = (".cpp", ".h", ".hpp", ".cc")
NOT_A_FUNCTION = re.compile(r'^(namespace\b|class\b|struct\b|enum\b|union\b|extern "C"|#|//|/\*|\*|\}|using\b|'
                            r'typedef\b|template\s*<[^>]*>\s*$)')
CPP_NAME = re.compile(r"([A-Za-z_][\w:]*(?:operator\S+)?)\s*\(")
MACRO_BODY = re.compile(r"^(?:TEST|TEST_F|TEST_P|STACKCHECK_PROP|RC_GTEST_PROP)\(\s*(\w+)\s*,\s*(\w+)")
PY_DEF = re.compile(r"^(\s*)(?:async\s+)?def\s+(\w+)")


def cpp_name(signature: str) -> str:
    m = MACRO_BODY.match(signature)
    if m:
        return f"{m.group(1)}.{m.group(2)}"
    head = signature.split("(")[0] + "("
    names = CPP_NAME.findall(head)
    return names[-1] if names else signature.split()[0]


CONTROL = re.compile(r"^(if|for|while|switch|else|do|return|catch|try|case|default|throw)\b")
# A member definition's last signature line: `) {`, `) const {`, `) const override {`, `) -> T {`.
MEMBER_BODY = re.compile(r"\)\s*(const\s*)?(noexcept\s*)?(override\s*)?(final\s*)?(->\s*[\w:<>, ]+)?\{$")


CLASS_HEAD = re.compile(r"^(\s*)(?:class|struct)\s+(\w+)")


def owner(lines: list[str], at: int, indent: int) -> str:
    """`Name::` of the class or struct whose body holds line `at` (indented `indent`), else ""."""
    for k in range(at - 1, -1, -1):
        m = CLASS_HEAD.match(lines[k])
        if m and len(m.group(1)) < indent and not lines[k].rstrip().endswith(";"):
            return m.group(2) + "::"
    return ""


def member_functions(lines: list[str]):
    """Yields (first line index, last line index, name) of each indented definition with a return
    type: a member function defined in its class body, whose closing brace is the first line at
    its own indentation that starts with `}`."""
    i = 0
    while i < len(lines):
        line = lines[i]
        body = line.lstrip()
        d = len(line) - len(body)
        if d == 0 or not body or NOT_A_FUNCTION.match(body) or CONTROL.match(body) or "(" not in body \
                or body.startswith(("[", "{", ":", "(")):
            i += 1
            continue
        j = i
        while j < len(lines) and j < i + 12 and not lines[j].rstrip().endswith(("{", ";", "}")):
            j += 1
        before_paren = body.split("(")[0]
        if j >= len(lines) or not MEMBER_BODY.search(lines[j].rstrip()) or "=" in before_paren \
                or "[" in before_paren or len(before_paren.split()) < 2:
            i += 1
            continue
        k = j + 1
        while k < len(lines):
            s = lines[k]
            if s.strip() and len(s) - len(s.lstrip()) < d:
                break  # left the body's indentation without its brace: not a definition
            if len(s) - len(s.lstrip()) == d and s.lstrip().startswith("}"):
                yield i, k, owner(lines, i, d) + cpp_name(" ".join(x.strip() for x in lines[i:j + 1]))
                break
            k += 1
        i = j + 1


def cpp_functions(lines: list[str]):
    """Yields (first line index, last line index, name) of each column-0 definition, then each
    member function defined in its class body (member_functions)."""
    yield from column0_functions(lines)
    yield from member_functions(lines)


def column0_functions(lines: list[str]):
    """Yields (first line index, last line index, name) of each column-0 definition."""
    i = 0
    while i < len(lines):
        line = lines[i]
        if line and not line[0].isspace() and not NOT_A_FUNCTION.match(line) and "(" in line:
            j = i
            while j < len(lines) and j < i + 12 and not lines[j].rstrip().endswith(("{", ";", "}")):
                j += 1
            if j < len(lines) and lines[j].rstrip().endswith("}"):  # a one-line body: `f(...) { return x; }`
                i = j + 1
                continue
            before_paren = line.split("(")[0]
            if j < len(lines) and lines[j].rstrip().endswith("{") and "=" not in before_paren:
                k = j + 1
                while k < len(lines) and not lines[k].startswith("}"):
                    k += 1
                if k < len(lines) and lines[k].rstrip() == "}":
                    yield i, k, cpp_name(" ".join(x.strip() for x in lines[i:j + 1]))
                    i = k + 1
                    continue
        i += 1


def py_functions(lines: list[str]):
    for i, line in enumerate(lines):
        m = PY_DEF.match(line)
        if not m:
            continue
        indent, last = len(m.group(1)), i
        for k in range(i + 1, len(lines)):
            s = lines[k]
            if not s.strip():
                continue
            if len(s) - len(s.lstrip()) <= indent:
                break
            last = k
        yield i, last, m.group(2)


def has_reason(lines: list[str], first: int) -> bool:
    for k in range(max(0, first - 3), first):
        text = lines[k].strip().lstrip("/#").strip()
        if text.startswith("long:") and len(text) > len("long:") + 3:
            return True
    return False


def functions(root: str):
    """Yields (path, line, name, length, has a reason) for every function the check sees."""
    for rel in check_sizes.files(root):
        path = os.path.join(root, rel)
        if not os.path.isfile(path):
            continue
        with open(path, encoding="utf-8", errors="replace") as f:
            lines = f.read().split("\n")
        found = cpp_functions(lines) if rel.endswith(CPP) else py_functions(lines)
        for first, last, name in found:
            yield rel, first + 1, name, last - first + 1, has_reason(lines, first)


def check(root: str) -> list[str]:
    bad = []
    for rel, line, name, n, reason in functions(root):
        was = LONG.get((rel, name))
        if n > MAX and was is None:  # no reason helps
            bad.append(f"{rel}:{line}: {name}: {n} lines (limit {MAX}): split it")
            continue
        if was is not None and n > was:
            bad.append(f"{rel}:{line}: {name}: {n} lines (listed at {was}): split it, or read its reason again and "
                       f"raise its entry in LONG")
        if n > REASON and not reason:
            bad.append(f"{rel}:{line}: {name}: {n} lines (over {REASON}): split it, or give the "
                       f"reason in a `long:` comment above it")
    return bad


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="scripts/check_functions.py", description=__doc__.split("\n\n")[0])
    p.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    p.add_argument("--list", action="store_true", help=f"print every function over {REASON} lines and exit")
    try:
        a = p.parse_args(argv)
    except SystemExit as e:
        return 2 if e.code else 0
    if not os.path.isdir(a.root):
        print(f"check_functions: no such folder: {a.root}", file=sys.stderr)
        return 2
    if a.list:
        long = sorted((f for f in functions(a.root) if f[3] > REASON), key=lambda f: -f[3])
        for rel, line, name, n, reason in long:
            why = "a long: reason" if reason else "NO REASON"
            if (rel, name) in LONG:
                why += f", listed at {LONG[(rel, name)]}"
            print(f"{n:5d}  {rel}:{line}: {name} ({why})")
        print(f"{len(long)} functions over {REASON} lines, {sum(1 for f in long if f[3] > MAX)} over {MAX}")
        return 0
    bad = check(a.root)
    for b in bad:
        print(b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
