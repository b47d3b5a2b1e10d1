"""Peak resident set size of a process tree, as the kernel measures it (Linux).

A fuzzer under libFuzzer's -fork runs its inputs in child processes (through a shell), so
neither the parent's own status lines nor its own rusage say what the inputs used. Two
measurements cover the tree:
  - while it runs: VmHWM ("high water mark", the peak resident set of a live process so far)
    from /proc/<pid>/status, for the root and every descendant alive at the sample;
  - when the root is reaped: wait4's ru_maxrss, which covers the root and every descendant
    it (and theirs, in turn) waited for: on Linux the largest of them, in KiB.
The figure is the largest single process, the unit libFuzzer's -rss_limit_mb applies to.
No value a process reports about itself enters it.
"""

from __future__ import annotations

import os
from pathlib import Path

PROC = Path("/proc")


def children_map() -> dict[int, list[int]]:
    """Parent pid -> child pids, for every process visible in /proc at this moment."""
    kids: dict[int, list[int]] = {}
    for p in PROC.iterdir():
        if not p.name.isdigit():
            continue
        try:
            stat = (p / "stat").read_text()
        except OSError:
            continue  # ended while we looked
        # "pid (comm) state ppid ...": comm may hold spaces and parentheses, so cut at the last ')'.
        fields = stat[stat.rfind(")") + 2:].split()
        if len(fields) > 1:
            kids.setdefault(int(fields[1]), []).append(int(p.name))
    return kids


def tree(root: int, kids: dict[int, list[int]]) -> list[int]:
    """The root and all its descendants in kids."""
    out, seen, todo = [], set(), [root]
    while todo:
        pid = todo.pop()
        if pid not in seen:
            seen.add(pid)
            out.append(pid)
            todo += kids.get(pid, [])
    return out


def high_water_kib(pid: int) -> int:
    """VmHWM of a live process in KiB; 0 for one that has ended or is a zombie (no memory left)."""
    try:
        with open(PROC / str(pid) / "status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return 0


class PeakRss:
    """The highest resident set one process of a tree reached, over its samples and its reaping."""

    def __init__(self) -> None:
        self.kib = 0

    @property
    def mb(self) -> int:
        return self.kib // 1024

    def sample(self, root: int, kids: dict[int, list[int]] | None = None) -> int:
        """Takes the largest VmHWM in root's tree now (kids: a children_map() to share among
        several samples taken together). Returns the tree's figure at this sample."""
        now = max((high_water_kib(p) for p in tree(root, children_map() if kids is None else kids)), default=0)
        self.kib = max(self.kib, now)
        return now

    def wait(self, pid: int, block: bool = False) -> int | None:
        """wait4 on pid (a child of this process), taking its ru_maxrss. Returns the exit code
        as subprocess reports it (negative: killed by that signal), or None while it runs."""
        got, status, usage = os.wait4(pid, 0 if block else os.WNOHANG)
        if got == 0:
            return None
        self.kib = max(self.kib, usage.ru_maxrss)  # KiB on Linux
        return os.waitstatus_to_exitcode(status)
