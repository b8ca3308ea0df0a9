"""What a server process uses, read from /proc: its CPU time and its resident memory."""

from __future__ import annotations

import os
from pathlib import Path


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def run_seconds(pid: int) -> float:
    """CPU time the process's live threads have run, in seconds, to the nanosecond (schedstat's
    first field), where `/proc/<pid>/stat` counts whole clock ticks (10 ms: longer than a call).
    A thread that ended takes its time with it: the servers measured keep theirs (the loop's, the
    database's and the pools')."""
    total = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            total += int((task / "schedstat").read_text().split()[0])
        except (FileNotFoundError, ProcessLookupError):
            continue  # a thread that ended meanwhile
    return total / 1e9


def rss_mb(pid: int) -> float:
    return _status_mb(pid, "VmRSS")


def peak_rss_mb(pid: int) -> float:
    """The most resident memory the process has had since it started (the kernel's high-water mark)."""
    return _status_mb(pid, "VmHWM")


def _status_mb(pid: int, field: str) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no {field}")
