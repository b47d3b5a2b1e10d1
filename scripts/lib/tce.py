"""scripts/mutate's trivial compiler equivalence in the schemata mode: a mutant whose TU
compiles to the unmutated object code (debug information stripped) is EQUIVALENT.

Each comparison compiles the mutant's TU once, in a plain clone with its own compile command
(the unmutated object is compiled once per file and commit, and kept under the scratch root).
A stack TU spends much of its compile time parsing what it includes, and a mutant of a TU's own
file never touches its includes: the TU's leading block of #include lines is precompiled once
per file and included first with -include; the file's own #include lines then include nothing
more (their guards), so the compiler sees the same tokens in the same order as without it. The
unmutated TU and each mutant are compiled alike, with it (or both without it, for a TU whose
leading block does not precompile). Building it costs about two compiles of the TU, once per
file and clone, and saves about a third of each later one: it is used only for a file with at
least PCH_MIN mutants in the run (every file of an --all run, few of a 1,000-mutant sample,
where a file's survivors are two or three). Python standard library only.
"""

from __future__ import annotations

import hashlib
import threading
from pathlib import Path

import fuzzlib
import judge

PCH_MIN = 40  # a file's mutants in the run from which its includes are precompiled


def with_include(entry: dict, header: Path) -> dict:
    argv = judge.argv_of(entry)
    return {**entry, "arguments": [argv[0], "-include", str(header), *argv[1:]], "command": None}


def include_block(source: bytes) -> str:
    """The TU's leading lines up to its first line of code: #include lines, blank lines and
    comments ('' when it has no #include there, or a conditional or macro among them)."""
    out, includes = [], 0
    for raw in source.decode(errors="replace").splitlines():
        line = raw.strip()
        if line.startswith("#include"):
            includes += 1
        elif line.startswith("#") and not line.startswith("#pragma once"):
            return ""
        elif line and not line.startswith("//"):
            break
        out.append(raw)
    return "\n".join(out) + "\n" if includes else ""


class Tce:
    def __init__(self, commit: str, cache: Path, per_file: dict[str, int] | None = None):
        self.commit, self.cache = commit, cache
        self.per_file = per_file  # the run's mutants per file (None: precompile every file's includes)
        self.lock = threading.Lock()
        self.originals: dict[tuple[str, str], tuple[bytes, Path | None]] = {}  # object, the header it used
        self.pchs: dict[str, Path | None] = {}
        self.counts = {"with_pch": 0, "without": 0}  # mutants compiled with and without one

    def pch(self, entry: dict, source: bytes, log: Path) -> Path | None:
        """The precompiled leading #include block of the TU (built once per command and block;
        None when the TU has no such block or it does not compile alone)."""
        block = include_block(source)
        if not block:
            return None
        name = Path(entry["file"]).name
        compiler, *rest = judge.bare_flags(entry)
        flags = [a for a in rest if not a.endswith(name)]  # without the source
        key = hashlib.sha1("\0".join([self.commit, compiler, *flags, block]).encode()).hexdigest()[:16]
        with self.lock:
            if key in self.pchs:
                return self.pchs[key]
            folder = self.cache / f"pch-{key}"
            header = folder / "tce_pch.h"
            if not (folder / "tce_pch.h.gch").exists():
                folder.mkdir(parents=True, exist_ok=True)
                header.write_text(block)
                tmp = folder / f"tce_pch.h.gch.{threading.get_ident()}"
                ok = judge.run_logged([compiler, *flags, "-x", "c++-header", str(header), "-o", str(tmp)],
                                      Path(entry["directory"]), log) == 0
                if ok:
                    tmp.replace(folder / "tce_pch.h.gch")
            self.pchs[key] = header if (folder / "tce_pch.h.gch").exists() else None
            return self.pchs[key]

    def cached_object(self, entry: dict, name: str, clone: Path, out: Path, log: Path) -> bytes | None:
        """The stripped object of an unmutated TU, kept across runs at the same commit."""
        cmd = " ".join(judge.argv_of(entry)).replace(str(clone), "<clone>")
        h = hashlib.sha1(f"{self.commit}\0{name}\0{cmd}".encode()).hexdigest()  # headers differ by commit
        cached = self.cache / f"{h}.o.stripped"
        if not cached.exists():
            if not judge.compile_object(entry, out=out, log=log):
                return None
            cached.parent.mkdir(parents=True, exist_ok=True)
            fuzzlib.atomic_write(cached, judge.stripped(out))
        return cached.read_bytes()

    def original(self, s: judge.Scratch, rel: str, work: Path) -> tuple[bytes, Path | None] | None:
        """The unmutated TU's stripped object and the precompiled header it was compiled with."""
        key = (str(s.path), rel)
        if key not in self.originals:
            e = s.entries[rel]
            many = self.per_file is None or self.per_file.get(rel, 0) >= PCH_MIN
            header = self.pch(e, (s.path / rel).read_bytes(), work / "tce.log") if many else None
            entry = e if header is None else with_include(e, header)
            obj = self.cached_object(entry, rel, s.path, work / "orig.o", work / "tce.log")
            if obj is None:
                return None
            self.originals[key] = (obj, header)
        return self.originals[key]

    def equivalent(self, s: judge.Scratch, rel: str, mutated: bytes, work: Path) -> str:
        """"yes" when the TU with `mutated` as its file compiles to the unmutated object code, "no"
        when it differs, "-" when a compile fails."""
        work.mkdir(parents=True, exist_ok=True)
        orig = self.original(s, rel, work)
        if orig is None:
            return "-"
        obj, header = orig
        entry = s.entries[rel] if header is None else with_include(s.entries[rel], header)
        with self.lock:
            self.counts["with_pch" if header else "without"] += 1
        src = s.path / rel
        original = src.read_bytes()
        try:
            s.apply(rel, mutated)
            ok = judge.compile_object(entry, out=work / "tce.o", log=work / "tce.log")
        finally:
            s.revert(rel, original)
        if not ok:
            return "-"
        return "yes" if judge.same_object(judge.stripped(work / "tce.o"), obj) else "no"
