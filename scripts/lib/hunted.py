"""The scoring rule of hunted inputs (scripts/mutate --hunt, mutate_hunt.py): an input the hunt
promoted names the mutant it was hunted for (`# hunted-for: <id>`, `# hunted-key: <key>`), and
when a run judges that mutant, the replay of that input does not count toward its kill; inputs
hunted for other mutants do. Python standard library only (imported by every judging path).
"""

from __future__ import annotations

import hashlib
import threading
from pathlib import Path

FOR_KEY, KEY_KEY = "# hunted-for", "# hunted-key"
NONE_COUNT = False  # scripts/mutate --no-hunted: no hunted input counts toward any kill (the score without them)


def _clean(v) -> str:
    return " ".join(str(v).split()) if v not in (None, "") else "-"


def mutant_key(m) -> str:
    """A mutant's identity that survives a change of line numbers: its file, function, operator,
    replacement and the mutated line before and after (a Mutant or a results.tsv row)."""
    get = (lambda k: m[k]) if isinstance(m, dict) else (lambda k: getattr(m, {"operator": "op",
                                                                                 "replacement": "repl"}.get(k, k)))
    parts = [get("file"), get("function"), get("operator"), get("replacement"), get("before"), get("after")]
    return hashlib.sha1("\0".join(_clean(p) for p in parts).encode()).hexdigest()[:16]


_HEADERS: dict[str, tuple[str, str] | None] = {}
_HEADERS_LOCK = threading.Lock()


def hunted_for(path: str) -> tuple[str, str] | None:
    """(mutant id, key) from a corpus file's `# hunted-for` / `# hunted-key` lines, or None."""
    with _HEADERS_LOCK:
        if path in _HEADERS:
            return _HEADERS[path]
    found: dict[str, str] = {}
    try:
        with open(path, "rb") as f:
            for raw in f.read(4096).split(b"\n")[:12]:
                line = raw.decode(errors="replace").strip()
                for k in (FOR_KEY, KEY_KEY):
                    if line.startswith(k + ":"):
                        found[k] = line[len(k) + 1:].strip()
    except OSError:
        pass
    out = (found.get(FOR_KEY, ""), found.get(KEY_KEY, "")) if found else None
    with _HEADERS_LOCK:
        _HEADERS[path] = out
    return out


def for_mutant(tests: list[object], m) -> list[object]:
    """The tests that may count toward mutant m's kill: not the replay of an input hunted for m
    (its id, or its key); with NONE_COUNT, not the replay of any hunted input."""
    mid, key = m.id, mutant_key(m)

    def own(t: object) -> bool:
        if not t.name.startswith("replay/"):
            return False
        h = next((hunted_for(x) for x in t.command[1:] if x.startswith("/") and Path(x).is_file()), None)
        return h is not None and (NONE_COUNT or h[0] == mid or (h[1] != "" and h[1] == key))

    return [t for t in tests if not own(t)]
