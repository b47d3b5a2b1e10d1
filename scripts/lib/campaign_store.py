"""The campaign's persistent corpus, kept kill-safe (scripts/campaign; layout in campaign.py).

A unit enters corpus/<target>/ only complete (named by the SHA-1 of its bytes, written to a
temporary file and renamed); what a killed run left is recovered on the next start.
"""

from __future__ import annotations

import os
import shutil
import signal
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import fuzzlib  # noqa: E402


class Store:
    def __init__(self, out: Path):
        self.out = out

    def corpus(self, t: str) -> Path:
        return self.out / "corpus" / t

    def sessions(self, t: str) -> Path:
        return self.out / "sessions" / t

    def pruned(self, t: str) -> Path:
        return self.out / "pruned" / t

    def crashes(self, t: str) -> Path:
        return self.out / "crashes" / t

    def harvest(self, t: str, session: Path) -> int:
        """Copies every complete unit of a session folder into the corpus (temp + rename)."""
        dest = self.corpus(t)
        dest.mkdir(parents=True, exist_ok=True)
        n = 0
        if not session.is_dir():
            return 0
        for f in session.iterdir():
            if f.name.startswith(".") or (dest / f.name).exists() or (self.pruned(t) / f.name).exists():
                continue
            try:
                data = f.read_bytes()
            except OSError:
                continue
            if fuzzlib.sha1_hex(data) != f.name:
                continue  # being written, or cut short by a kill: not a unit yet
            fuzzlib.atomic_write(dest / f.name, data)
            n += 1
        return n

    def recover(self, t: str) -> tuple[int, int]:
        """On start: harvest what killed runs left in sessions/, then drop those folders and any
        temporary file a killed writer left. Returns (units recovered, temps removed)."""
        got = 0
        for s in sorted(self.sessions(t).glob("*")) if self.sessions(t).is_dir() else []:
            self.end_group(s / ".pgid")
            got += self.harvest(t, s)
            shutil.rmtree(s, ignore_errors=True)
        shutil.rmtree(self.out / "tmp" / t, ignore_errors=True)
        temps = fuzzlib.remove_stale_temps(self.corpus(t)) + fuzzlib.remove_stale_temps(self.out / "candidates")
        # A unit whose bytes are not its name cannot come from harvest; drop it rather than
        # feed the fuzzer a file that is not what its name says.
        if self.corpus(t).is_dir():
            for f in self.corpus(t).iterdir():
                if not f.name.startswith(".") and not fuzzlib.is_complete_unit(f):
                    f.unlink(missing_ok=True)
                    temps += 1
        return got, temps

    def end_group(self, pgid_file: Path) -> None:
        """SIGKILLs a killed run's leftover process group, if it is still ours."""
        try:
            pgid = int(pgid_file.read_text())
        except (OSError, ValueError):
            return
        for proc in Path("/proc").iterdir():
            if not proc.name.isdigit():
                continue
            try:
                if os.getpgid(int(proc.name)) != pgid:
                    continue
                cmd = (proc / "cmdline").read_bytes()
            except (OSError, ProcessLookupError):
                continue
            if str(self.out).encode() in cmd:
                try:
                    os.killpg(pgid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                return

    def size(self, t: str) -> tuple[int, int]:
        d = self.corpus(t)
        if not d.is_dir():
            return 0, 0
        files = [f for f in d.iterdir() if not f.name.startswith(".")]
        return len(files), sum(f.stat().st_size for f in files)

