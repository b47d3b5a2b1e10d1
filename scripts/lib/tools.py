"""scripts/replay, scripts/minimize and scripts/promote (one module, three entry points).

  scripts/replay [--preset P] FILE...   replays each file through its target (from the
      `# stackcheck <target>` header or the folder), symbolized, in the asan preset by default;
      exit 0: no finding, 1: a finding reproduced, 2: bad input or build failure.
  scripts/minimize [--seconds N] [--out DIR] FILE   shrinks a finding with libFuzzer's
      -minimize_crash (fuzz preset), keeps the result only if it shows the same finding, and
      writes its text form with the original header under build/minimize/<target>/.
  scripts/promote [--name NAME] FILE   copies a reviewed finding into
      corpus/<target>/regression/ in its text form, refusing a file that does not reproduce.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import fuzzlib  # noqa: E402
from fuzzlib import CLI, ROOT, UsageError  # noqa: E402


class Parser(argparse.ArgumentParser):
    def error(self, message):
        print(f"{self.prog}: {message}", file=sys.stderr)
        sys.exit(2)


def existing_file(s: str) -> Path:
    p = Path(s)
    if not p.is_file():
        raise argparse.ArgumentTypeError(f"no such file: {s}")
    return p.resolve()


def replay_binary(preset: str, route: str) -> Path:
    return ROOT / "build" / preset / "bin" / (CLI if route == CLI else f"{route}_replay")


def ensure_built(preset: str, routes: set[str], prog: str) -> None:
    names = sorted(CLI if r == CLI else f"{r}_replay" for r in routes)
    print(f"{prog}: building {' '.join(names)} (preset {preset})", file=sys.stderr)
    log = ROOT / "build" / f"{prog}-{preset}.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    fuzzlib.build(preset, names, log=log)


def run_one(preset: str, route: str, path: Path, timeout: float) -> tuple[fuzzlib.Finding, str]:
    if route == CLI:
        try:
            p = subprocess.run([str(replay_binary(preset, CLI)), "replay", str(path)], capture_output=True,
                               text=True, errors="replace", timeout=timeout, env=fuzzlib.sanitizer_env())
        except subprocess.TimeoutExpired:
            return fuzzlib.Finding(kind="timeout"), ""
        if p.returncode == 0:
            return fuzzlib.Finding(), p.stdout + p.stderr
        f = fuzzlib.parse_finding(p.returncode, p.stderr)
        if f.kind == "error" and p.returncode == 1:  # stackcheck replay: 1 = the failure reproduced
            first = (p.stdout + p.stderr).strip().splitlines()
            f = fuzzlib.Finding(kind="oracle", oracle="property", message=first[0] if first else "reproduced")
        return f, p.stdout + p.stderr
    return fuzzlib.replay(replay_binary(preset, route), path, timeout=timeout)


# ---------------------------------------------------------------------------------------------


def main_replay(argv: list[str]) -> int:
    p = Parser(prog="replay", description="Replay files through their fuzz target (symbolized).")
    p.add_argument("--preset", default="asan", help="build preset of the replay drivers (default asan)")
    p.add_argument("--timeout", type=float, default=120, help="seconds per file (default 120)")
    p.add_argument("--no-build", action="store_true", help="use the binaries already built")
    p.add_argument("-q", "--quiet", action="store_true", help="summary lines only, not the replay's output")
    p.add_argument("files", nargs="+", type=existing_file)
    a = p.parse_args(argv)
    try:
        plan = [(f, fuzzlib.targets_for_file(f)) for f in a.files]
        if not a.no_build:
            ensure_built(a.preset, {r for _, rs in plan for r in rs}, "replay")
    except UsageError as e:
        print(f"replay: {e}", file=sys.stderr)
        return 2
    found = errors = 0
    for f, routes in plan:
        for route in routes:
            b = replay_binary(a.preset, route)
            if not b.exists():
                print(f"replay: {b} does not exist (build preset {a.preset})", file=sys.stderr)
                return 2
            finding, out = run_one(a.preset, route, f, a.timeout)
            if finding.found and not a.quiet:
                sys.stderr.write(out)
            where = f" at {' < '.join(finding.frames)}" if finding.frames else ""
            if finding.kind == "error":
                errors += 1
                print(f"{f}: {route}: error: {finding.message}")
            elif finding.found:
                found += 1
                print(f"{f}: {route}: REPRODUCES {finding.label()}{where}: {finding.message}")
            else:
                print(f"{f}: {route}: no finding")
    return 2 if errors else (1 if found else 0)


def main_minimize(argv: list[str]) -> int:
    p = Parser(prog="minimize", description="Shrink a finding with libFuzzer -minimize_crash.")
    p.add_argument("--seconds", type=int, default=60, help="libFuzzer's time for minimizing (default 60)")
    p.add_argument("--out", default=str(ROOT / "build" / "minimize"), help="output folder (default build/minimize)")
    p.add_argument("--no-build", action="store_true")
    p.add_argument("file", type=existing_file)
    a = p.parse_args(argv)
    if a.seconds <= 0:
        p.error("--seconds must be positive")
    try:
        routes = fuzzlib.targets_for_file(a.file)
        if routes == [CLI]:
            raise UsageError(f"{a.file} is a property counterexample (already shrunk by RapidCheck); "
                             "replay it with scripts/replay")
        t = routes[0]
        if not a.no_build:
            fuzzlib.build("fuzz", [t, f"{t}_replay"], log=ROOT / "build" / "minimize-fuzz.log")
    except UsageError as e:
        print(f"minimize: {e}", file=sys.stderr)
        return 2
    bin_dir = ROOT / "build" / "fuzz" / "bin"
    before, _ = fuzzlib.replay(bin_dir / f"{t}_replay", a.file)
    if not before.found:
        print(f"minimize: {a.file} shows no finding through {t}: nothing to minimize", file=sys.stderr)
        return 1
    out_dir = Path(a.out) / t
    out_dir.mkdir(parents=True, exist_ok=True)
    tmp = out_dir / f".{a.file.name}.min.tmp"
    cmd = [str(bin_dir / t), "-minimize_crash=1", f"-max_total_time={a.seconds}", f"-exact_artifact_path={tmp}",
           str(a.file)]
    print(f"minimize: {t}: {before.label()}; running libFuzzer for {a.seconds}s", file=sys.stderr)
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=out_dir, env=fuzzlib.sanitizer_env(),
                   timeout=a.seconds + 120)
    best = a.file
    if tmp.exists():
        after, _ = fuzzlib.replay(bin_dir / f"{t}_replay", tmp)
        if after.bucket(t) == before.bucket(t) and tmp.stat().st_size <= a.file.stat().st_size:
            best = tmp
    text = fuzzlib.text_form(bin_dir / f"{t}_replay", best)
    if text is None:
        print(f"minimize: {t}_replay --text failed on {best}", file=sys.stderr)
        return 2
    head = [l.decode(errors="replace") for l in a.file.read_bytes().split(b"\n")[1:12]
            if l.startswith(b"# ") and b":" in l]
    if not head:
        head = [f"# oracle: {before.oracle or before.kind}", f"# rule: {before.rule}",
                f"# description: {before.message[:200]}"]
    result = out_dir / (a.file.stem + fuzzlib.TEXT_EXT.get(t, ".txt"))
    fuzzlib.atomic_write(result, fuzzlib.with_header(text, head))
    tmp.unlink(missing_ok=True)
    again, _ = fuzzlib.replay(bin_dir / f"{t}_replay", result)
    same = again.bucket(t) == before.bucket(t)
    print(f"minimize: {a.file.stat().st_size} -> {result.stat().st_size} bytes "
          f"({'same finding' if same else 'DIFFERENT finding: ' + again.label()})")
    print(result)
    return 0 if same else 1


def main_promote(argv: list[str]) -> int:
    p = Parser(prog="promote", description="Copy a reproducing finding into corpus/<target>/regression/.")
    p.add_argument("--name", help="file name in the regression folder (default: the file's own name)")
    p.add_argument("--preset", default="asan", help="preset the reproduction is checked in (default asan)")
    p.add_argument("--no-build", action="store_true")
    p.add_argument("file", type=existing_file)
    a = p.parse_args(argv)
    try:
        routes = fuzzlib.targets_for_file(a.file)
        if routes == [CLI] or len(routes) != 1:
            raise UsageError(f"{a.file}: promote takes a fuzz target's finding (header '# stackcheck fuzz_<name>')")
        t = routes[0]
        if not a.no_build:
            ensure_built(a.preset, {t}, "promote")
    except UsageError as e:
        print(f"promote: {e}", file=sys.stderr)
        return 2
    b = replay_binary(a.preset, t)
    data = a.file.read_bytes()
    if fuzzlib.header_target(data) != t:  # raw bytes: regression files are always the text form
        text = fuzzlib.text_form(b, a.file)
        if text is None:
            print(f"promote: {a.file} has no text form ({t}_replay --text failed)", file=sys.stderr)
            return 2
        data = text
    finding, _ = fuzzlib.replay(b, a.file)
    if not finding.found:
        print(f"promote: refused: {a.file} does not reproduce a finding through {t} (preset {a.preset})",
              file=sys.stderr)
        return 1
    name = a.name or (a.file.stem + fuzzlib.TEXT_EXT.get(t, ".txt"))
    if "/" in name or name.startswith("."):
        print(f"promote: bad --name '{name}'", file=sys.stderr)
        return 2
    dest = ROOT / "corpus" / t / "regression" / name
    if dest.exists() and dest.read_bytes() != data:
        print(f"promote: refused: {dest.relative_to(ROOT)} exists with other content (choose --name)",
              file=sys.stderr)
        return 1
    fuzzlib.atomic_write(dest, data)
    check, _ = fuzzlib.replay(b, dest)
    if check.bucket(t) != finding.bucket(t):
        dest.unlink()
        print(f"promote: refused: the text form does not reproduce the same finding "
              f"({check.label()} instead of {finding.label()})", file=sys.stderr)
        return 1
    print(f"promote: {dest.relative_to(ROOT)} ({finding.label()}); ctest -L replay fails on it until the "
          f"bug is fixed; commit it with the fix")
    return 0


if __name__ == "__main__":
    which = os.path.basename(sys.argv[1]) if len(sys.argv) > 1 else ""
    entry = {"replay": main_replay, "minimize": main_minimize, "promote": main_promote}.get(which)
    if entry is None:
        print("usage: tools.py replay|minimize|promote ARGS", file=sys.stderr)
        sys.exit(2)
    sys.exit(entry(sys.argv[2:]))
