"""Where the suite's time goes, by test file: each file's setup, call and teardown time summed over
its tests, the slowest printed at the end of every run (beside pytest's slowest single tests).

A module's shared server starts in its first test's setup, so a file's total is what it costs the
run, which the slowest-tests list alone hides when a file has many quick tests."""

from __future__ import annotations

from collections import defaultdict

import pytest

SHOWN = 25

_seconds: defaultdict[str, float] = defaultdict(float)


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    _seconds[report.nodeid.split("::", 1)[0]] += report.duration


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if not _seconds:
        return
    total = sum(_seconds.values())
    terminalreporter.write_sep("=", f"slowest {SHOWN} test files (all files: {total:.0f} s of test time)")
    for path, seconds in sorted(_seconds.items(), key=lambda item: -item[1])[:SHOWN]:
        terminalreporter.write_line(f"{seconds:8.1f}s {100 * seconds / total:5.1f}%  {path}")
