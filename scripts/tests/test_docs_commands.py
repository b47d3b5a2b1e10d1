#!/usr/bin/env python3
"""Every command of README.md and docs/*.md runs as written (STYLE.md 18).

    test_docs_commands.py BUILD_DIR        (ctest passes ${CMAKE_BINARY_DIR}: build/dev, build/asan, ...)

Where the commands are, and how a page marks them:
- Commands live in fenced blocks tagged ```sh or ```console. In a sh block every line is a
  command; in a console block only the lines that start with "$ " are, and the other lines are
  output shown to the reader (not compared). A line ending in a backslash goes on on the next
  one. Blank lines and lines that start with "#" are skipped. Blocks tagged anything else
  (```text, ```cpp, ...) are not commands.
- A trailing comment "# exit N" (optionally followed by ":" and prose) says the command ends
  with status N; without it the status must be 0. Any other trailing comment is prose.
- Short commands run, from the root of the tree, with "build/dev/" read as BUILD_DIR (so the
  check works in every preset's build); each must end within TIMEOUT seconds with its status.
- Long commands are not run. A command is long when its program (after VAR=value words) is
    * scripts/<name> with no ".py" (the entry points bootstrap, build and run for minutes),
    * one of LONG_PROGRAMS (ctest, cmake, .ci/run),
    * build/<preset>/bin/<name> for a preset other than dev (a build this one is not),
    * or any command naming this test (it would run itself),
  except that a long command run only for its usage (its arguments are just --help or -h, or
  its expected status is 2, a usage error, which every entry point reports before any work)
  is short. For a long command the check is that its program exists (a file of the tree, a
  tool on PATH, or for build/<preset>/bin/<name> a preset of CMakePresets.json and a binary
  the tree builds), that every flag it passes appears in that program's --help output
  (scripts/test hands unknown flags to ctest, so they are looked up in ctest's; `cmake --build`
  prints its own options) and that a `--preset` it names is in CMakePresets.json.
- Relative links of the pages ([text](path)) must name files that exist.

The positive control (control_planted_faults) plants pages with a script that does not exist,
a flag a script does not take, a short command that fails, a wrong expected status, a binary
no preset builds, an unknown preset and a dead link: each must be reported, and a clean
planted page must pass with the expected count of commands run and checked.
"""
from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT = 60
LONG_PROGRAMS = {"ctest", "cmake", ".ci/run"}
SELF = "test_docs_commands.py"
SEPARATORS = {"|", "||", "&&", ";"}
SKIP = 77  # ctest's SKIP_RETURN_CODE


@dataclass
class Command:
    page: Path
    line: int
    text: str           # the command without its trailing comment
    status: int = 0     # the expected exit status


@dataclass
class Outcome:
    ran: int = 0
    checked: int = 0
    problems: list[str] = field(default_factory=list)


def split_comment(line: str) -> tuple[str, str]:
    """The command and its trailing comment (a '#' after blank space, outside quotes)."""
    quote = ""
    for i, ch in enumerate(line):
        if quote:
            if ch == quote:
                quote = ""
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and (i == 0 or line[i - 1] in " \t"):
            return line[:i].rstrip(), line[i + 1:].strip()
    return line.rstrip(), ""


def extract(page: Path) -> list[Command]:
    """The commands of the ```sh and ```console blocks of one Markdown page."""
    commands: list[Command] = []
    lang = None  # None: outside a block; else the block's tag
    pending, start = "", 0
    for n, raw in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
        stripped = raw.strip()
        if stripped.startswith("```"):
            lang = stripped[3:].strip().lower() if lang is None else None
            pending = ""
            continue
        if lang not in ("sh", "console"):
            continue
        if pending:
            line = pending + " " + stripped
        elif lang == "console":
            if not stripped.startswith("$ "):
                continue
            line, start = stripped[2:], n
        else:
            if not stripped or stripped.startswith("#"):
                continue
            line, start = stripped, n
        if line.endswith("\\"):
            pending = line[:-1].rstrip()
            continue
        pending = ""
        text, comment = split_comment(line)
        m = re.match(r"exit (\d+)\b", comment)
        commands.append(Command(page, start, text, int(m.group(1)) if m else 0))
    return commands


def segments(text: str) -> list[list[str]]:
    """The simple commands of a line (split at pipes, ;, && and ||), redirections left out."""
    out: list[list[str]] = [[]]
    skip = False
    for tok in shlex.split(text):
        if skip:
            skip = False
        elif tok in SEPARATORS:
            out.append([])
        elif re.match(r"^\d?[<>]", tok):
            skip = re.fullmatch(r"\d?(>>|>|<)", tok) is not None  # "> FILE": the file is next
        else:
            out[-1].append(tok)
    return [s for s in out if s]


def program_and_args(words: list[str]) -> tuple[str, list[str]]:
    k = 0
    while k < len(words) and re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", words[k]):
        k += 1
    return (words[k], words[k + 1:]) if k < len(words) else ("", [])


def presets() -> set[str]:
    data = json.loads((ROOT / "CMakePresets.json").read_text())
    return {p["name"] for p in data.get("configurePresets", []) if not p.get("hidden")}


def is_long(cmd: Command) -> bool:
    if SELF in cmd.text:
        return True
    segs = segments(cmd.text)
    if not segs:
        return False
    prog, args = program_and_args(segs[0])
    usage_only = cmd.status == 2 or (args and all(a in ("--help", "-h") for a in args))
    if prog.startswith("scripts/") and not prog.endswith(".py"):
        return not usage_only
    if prog in LONG_PROGRAMS:
        return not usage_only
    m = re.match(r"^build/([^/]+)/bin/", prog)
    return bool(m) and m.group(1) != "dev"


class Helps:
    """Each program's --help output, asked once."""

    def __init__(self, build: Path):
        self.build, self.cache = build, {}

    def text(self, *argv: str) -> str:
        """The output of `argv` (default: `argv[0] --help`), whatever its exit status."""
        key = argv if len(argv) > 1 else (argv[0], "--help")
        if key not in self.cache:
            try:
                r = subprocess.run(list(key), cwd=ROOT, capture_output=True, text=True,
                                   timeout=TIMEOUT, stdin=subprocess.DEVNULL)
                self.cache[key] = r.stdout + r.stderr
            except (OSError, subprocess.TimeoutExpired) as e:
                self.cache[key] = f"<no help: {e}>"
        return self.cache[key]


def flags_of(args: list[str]) -> list[str]:
    out = []
    for a in args:
        if a.startswith("-") and a != "-" and not re.fullmatch(r"-\d+(\.\d+)?", a):
            out.append(a.split("=", 1)[0])
    return out


def in_help(flag: str, help_text: str) -> bool:
    return re.search(r"(?<![\w-])" + re.escape(flag) + r"(?![\w-])", help_text) is not None


def binary_known(name: str, build: Path) -> bool:
    """A binary some preset builds: one of this build's, a fuzz target, or a props: link."""
    if (build / "bin" / name).exists() or name.startswith("props:"):
        return True
    return (ROOT / "fuzz" / f"{name}.cpp").exists()


def check_long(cmd: Command, build: Path, helps: Helps) -> list[str]:
    where = f"{cmd.page.name}:{cmd.line}: {cmd.text}"
    problems = []
    for words in segments(cmd.text):
        prog, args = program_and_args(words)
        if not prog:
            continue
        flags = flags_of(args)
        m = re.match(r"^build/([^/]+)/bin/(.+)$", prog)
        if m:
            preset, name = m.groups()
            if preset not in presets():
                problems.append(f"{where}: no preset '{preset}' in CMakePresets.json")
            elif not binary_known(name, build):
                problems.append(f"{where}: no binary '{name}' is built by the tree")
            elif (build / "bin" / name).exists() and not name.startswith("props:"):
                help_text = helps.text(str(build / "bin" / name))
                problems += [f"{where}: {name} --help does not name {f}" for f in flags
                             if f.startswith("--") and not in_help(f, help_text)]
            continue  # a libFuzzer binary's flags are libFuzzer's
        if "/" in prog:
            path = ROOT / prog
            if not path.is_file():
                problems.append(f"{where}: {prog} does not exist")
                continue
            if not os.access(path, os.X_OK):
                problems.append(f"{where}: {prog} is not executable")
                continue
            argv0 = str(path)
        else:
            found = shutil.which(prog)
            if not found:
                problems.append(f"{where}: {prog} is not on PATH")
                continue
            argv0 = found
        for k, a in enumerate(args):  # a preset named must exist
            value = a.split("=", 1)[1] if a.startswith("--preset=") else \
                args[k + 1] if a == "--preset" and k + 1 < len(args) else None
            if value is not None and value not in presets():
                problems.append(f"{where}: no preset '{value}' in CMakePresets.json")
        if SELF in prog or not flags:
            continue
        help_text = helps.text(argv0)
        if prog == "cmake" and "--build" in args:  # `cmake --build` prints its own options
            help_text += helps.text(argv0, "--build")
        for f in flags:
            if in_help(f, help_text):
                continue
            if prog == "scripts/test" and shutil.which("ctest") and in_help(f, helps.text(shutil.which("ctest"))):
                continue
            problems.append(f"{where}: {prog} --help does not name {f}")
    return problems


def run_short(cmd: Command, build: Path) -> list[str]:
    where = f"{cmd.page.name}:{cmd.line}: {cmd.text}"
    line = re.sub(r"(?<![\w/.-])build/dev/", str(build) + "/", cmd.text)
    try:
        r = subprocess.run(["bash", "-c", "set -o pipefail; " + line], cwd=ROOT, capture_output=True,
                           text=True, errors="replace", timeout=TIMEOUT, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return [f"{where}: still running after {TIMEOUT} s (a long command? see the convention)"]
    status = r.returncode if r.returncode >= 0 else 128 - r.returncode
    if status != cmd.status:
        tail = (r.stderr.strip() or r.stdout.strip()).splitlines()[-3:]
        return [f"{where}: exit {status}, expected {cmd.status}" + "".join(f"\n    {t}" for t in tail)]
    return []


def check_links(page: Path) -> list[str]:
    problems = []
    text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.S)
    for m in re.finditer(r"\]\(([^)\s]+)\)", text):
        target = m.group(1).split("#", 1)[0]
        if not target or re.match(r"^[a-z]+:", target):
            continue
        if not (page.parent / target).exists():
            problems.append(f"{page.name}: link to {target}, which does not exist")
    return problems


def check_pages(pages: list[Path], build: Path, log=None) -> Outcome:
    out, helps = Outcome(), Helps(build)
    for page in pages:
        before = (out.ran, out.checked)
        out.problems += check_links(page)
        for cmd in extract(page):
            if not cmd.text:
                continue
            try:
                long = is_long(cmd)
            except ValueError as e:  # shlex: an unbalanced quote
                out.problems.append(f"{page.name}:{cmd.line}: {cmd.text}: {e}")
                continue
            if long:
                out.checked += 1
                out.problems += check_long(cmd, build, helps)
            else:
                out.ran += 1
                out.problems += run_short(cmd, build)
        if log:
            log(f"{page.relative_to(ROOT)}: {out.ran - before[0]} run, {out.checked - before[1]} checked")
    return out


PLANTED_FAULTS = {
    "a script that does not exist": "scripts/no_such_script --minutes 1",
    "a flag the script does not take": "scripts/campaign --minutes 1 --no-such-flag",
    "a flag ctest does not take either": "scripts/test --no-such-ctest-flag",
    "a short command that fails": "build/dev/bin/stackcheck parse corpus/programs/no_such_file.gir",
    "a wrong expected status": "build/dev/bin/stackcheck parse corpus/programs/example.gir  # exit 1",
    "a program missing from the tree": "scripts/no_such_checker.py --list",
    "a binary no preset builds": "build/fuzz/bin/fuzz_nothing -max_total_time=5",
    "a preset that does not exist": "scripts/test --preset nosuch -L unit",
}
PLANTED_CLEAN = """```sh
scripts/campaign --minutes 1 --seed 3   # a long command with known flags
scripts/test --preset asan -L unit -R layers
build/dev/bin/stackcheck parse corpus/programs/example.gir
build/dev/bin/stackcheck verify corpus/programs/example.gir --rule GraphBoundaryLegalized   # exit 1
scripts/zoo --order sideways   # exit 2: a usage error, run
```
[a link](../README.md)
"""


def control_planted_faults(build: Path) -> list[str]:
    """Each planted fault must be reported; the clean page must not be."""
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        docs = Path(tmp) / "docs"
        docs.mkdir()
        for what, line in PLANTED_FAULTS.items():
            page = docs / "planted.md"
            page.write_text(f"# planted\n\n```sh\n{line}\n```\n", encoding="utf-8")
            got = check_pages([page], build)
            if not got.problems:
                failures.append(f"control: {what} ({line}) was not reported")
        page = docs / "dead_link.md"
        page.write_text("See [nothing](no_such_page.md).\n", encoding="utf-8")
        if not check_pages([page], build).problems:
            failures.append("control: a dead link was not reported")
        clean = Path(tmp) / "docs" / "clean.md"
        clean.write_text(PLANTED_CLEAN.replace("../README.md", str(ROOT / "README.md")), encoding="utf-8")
        got = check_pages([clean], build)
        failures += [f"control: the clean page was reported: {p}" for p in got.problems]
        if (got.ran, got.checked) != (3, 2):
            failures.append(f"control: the clean page ran {got.ran} and checked {got.checked} commands, "
                            "expected 3 and 2")
    return failures


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(f"usage: {argv[0]} BUILD_DIR", file=sys.stderr)
        return 2
    build = Path(argv[1]).resolve()
    if not (build / "bin").is_dir():
        print(f"test_docs_commands: {build}/bin does not exist (build a preset first)", file=sys.stderr)
        return 2
    if not (build / "bin" / "stackcheck").exists():  # a partial build, such as the tsan gate's
        print(f"test_docs_commands: skipped: {build}/bin has no stackcheck (a partial build)")
        return SKIP
    failures = control_planted_faults(build)
    pages = [ROOT / "README.md"] + sorted((ROOT / "docs").glob("*.md"))
    got = check_pages(pages, build, log=print)
    for p in failures + got.problems:
        print(p)
    n = len(failures) + len(got.problems)
    print(f"docs commands: {len(pages)} pages, {got.ran} run, {got.checked} long ones checked, "
          f"{n} problem(s); the planted faults {'were' if not failures else 'were NOT all'} caught")
    return 1 if n else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
