"""scripts/mutate's positive control (--control DEFECT): a zoo defect planted as one mutant, its
`defects::active(...)` switches replaced by true. Python standard library only."""

from __future__ import annotations

import re
from pathlib import Path

from mutants import EngineError, Mutant, Source, is_site_file

ZOO_SWITCH = re.compile(rb"(?:defects::)?active\(\s*(?:defects::)?Defect::(k[A-Za-z0-9]+)\s*\)")


def defect_enum(name: str) -> str:
    """A STACKCHECK_DEFECT spelling to its enumerator: status_negated -> kStatusNegated."""
    return "k" + "".join(w[:1].upper() + w[1:] for w in name.split("_") if w)


def defect_name(enum: str) -> str:
    return re.sub(r"(?<!^)([A-Z])", r"_\1", enum[1:]).lower()


def zoo_switches(root: Path) -> dict[str, list[tuple[str, int, int]]]:
    """Every `defects::active(Defect::kX)` switch in stack/ outside the zoo's own folder:
    defect name -> [(file, start, end)]."""
    out: dict[str, list[tuple[str, int, int]]] = {}
    for p in sorted((root / "stack").rglob("*")):
        rel = str(p.relative_to(root))
        if not p.is_file() or not is_site_file(rel):
            continue
        data = p.read_bytes()
        for m in ZOO_SWITCH.finditer(data):
            out.setdefault(defect_name(m.group(1).decode()), []).append((rel, m.start(), m.end()))
    return out


def control_mutant(root: Path, name: str) -> Mutant:
    """The zoo defect `name` planted as one mutant: each of its switches (the call
    `defects::active(defects::Defect::kX)`, a constexpr false outside the zoo preset) replaced by
    `true`, so that the dev build runs the defect's historical behaviour. Its id is
    `file:line:col:zoo:<name>`. A defect whose switches lie in more than one file is refused:
    a mutant is an edit of one file."""
    switches = zoo_switches(root)
    if name not in switches:
        raise EngineError(f"--control {name}: no such zoo defect switch in stack/ (have: {' '.join(sorted(switches))})")
    files = sorted({f for f, _, _ in switches[name]})
    if len(files) > 1:
        one = sorted(n for n, s in switches.items() if len({f for f, _, _ in s}) == 1)
        raise EngineError(f"--control {name}: its switches lie in {len(files)} files ({', '.join(files)}); a mutant "
                          f"edits one file (defects with one: {' '.join(one)})")
    src = Source((root / files[0]).read_bytes())
    edits = tuple((s, e, "true") for _, s, e in switches[name])
    first = min(s for _, s, _ in switches[name])
    line, col = src.line_col(first)
    last = max(e for _, _, e in switches[name])
    return Mutant(files[0], line, col, "zoo", name, edits, function="(zoo switch)",
                  before=src.one_line(first, last), after=src.one_line(first, last, edits),
                  span=tuple((s, e, "value") for _, s, e in switches[name]))
