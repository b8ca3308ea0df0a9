"""`python -m tests.bench --quick` works end to end: a smoke run, correctness only (no timings).

The full benchmark is run by hand (docs/performance.md); this keeps the command from rotting: real
server processes, the echo baseline, parked agents, a story in Chromium, the JSON and the plot.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_the_benchmark_command_runs_and_writes_its_results(tmp_path):
    run = subprocess.run(
        [sys.executable, "-m", "tests.bench", "--quick", "--out", str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert "[5/5]" in run.stdout and "× echo" in run.stdout

    results = json.loads((tmp_path / "bench.json").read_text())
    assert list(results["loop_ms"]) == [
        "echo",
        "delivery",
        "end",
        "remove",
        "read tool",
        "report",
        "edit tool",
        "edit direct",
    ]
    assert all(samples and min(samples) > 0 for samples in results["loop_ms"].values())
    (waiters,) = results["waiters"]
    assert waiters["agents"] == 5 and len(waiters["delivery_ms"]) == 5
    assert waiters["rss_parked_mb"] > 0
    floor = results["waiters_floor"]
    assert floor["agents"] == 5 and floor["idle_cpu_percent"] >= 0
    views = results["views_ms"]
    assert set(views) == {"report → panel", "tool edit → editor"}
    assert all(len(samples) == 2 and min(samples) > 0 for samples in views.values())
    story = results["long_story"]
    assert set(story["tools_ms"]) == {"outline", "check", "get_scene"}
    assert all(page["dom_elements"] > 0 for page in story["pages"].values())
    across = results["instances_ms"]
    assert set(across) == {"same instance", "across instances"}
    assert all(len(samples) == 3 and min(samples) > 0 for samples in across.values())
    assert (tmp_path / "latency.png").read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
