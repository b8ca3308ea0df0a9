"""The benchmark suite: `python -m tests.bench [--quick] [--out DIR]`.

`python -m tests.bench harness-idle [--quick]` runs instead the step that is not in the full run:
what an idle agent costs in model requests in each real harness (tests/bench/harness_idle.py).

Runs against real server processes (and Debian's Chromium for the pages and the panel), prints its
progress and a table, and writes `bench.json` and `latency.png` (the loop's latency distributions) to `--out`.
Every latency is also given as a ratio of a bare MCP echo round trip measured in the same run.
`--quick` runs each part small (the test suite runs it so that the command keeps working); its
figures mean nothing. The full run takes a few minutes on 2 cores.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import sys
import time
from dataclasses import asdict
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from tests.bench import (
    call_cpu,
    harness_idle,
    hostile,
    in_process,
    instances,
    live_views,
    long_story,
    loop_latency,
    waiters,
)
from tests.bench.report import plot, table

STEPS = 8
FULL = {
    "rounds": 30,
    "waiters": (100, 500, 1000),
    "idle": 55.0,  # longer than one whole wait: see tests/bench/waiters.py
    "scenes": 2000,
    "lines": 25,
    "pages": 3,
    "views": 20,
    "instances": 50,
    "cpu_calls": 500,
    "in_process": 300,
    "hostile": hostile.FULL,
}
QUICK = {
    "rounds": 3,
    "waiters": (5,),
    "idle": 1.0,
    "scenes": 60,
    "lines": 2,
    "pages": 1,
    "views": 2,
    "instances": 3,
    "cpu_calls": 3,
    "in_process": 3,
    "hostile": hostile.QUICK,
}


async def run(quick: bool, out: Path) -> dict[str, Any]:
    sizes: dict[str, Any] = QUICK if quick else FULL
    results: dict[str, Any] = {
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": f"{platform.machine()}, {_cores()} cores, Python {platform.python_version()}",
        "quick": quick,
    }
    started = time.perf_counter()
    _step(1, "the loop over HTTP, beside a bare MCP echo")
    results["loop_ms"] = await loop_latency.measure(sizes["rounds"], _progress)
    results["waiters"] = []
    for count in sizes["waiters"]:
        _step(2, f"{count} agents long-polling one process")
        found = await waiters.measure(count, sizes["idle"], _progress)
        results["waiters"].append(found.as_json())
    most = max(sizes["waiters"])
    _step(2, f"the same {most} agents on a bare MCP server whose wait only sleeps (the floor)")
    results["waiters_floor"] = (await waiters.measure_floor(most, sizes["idle"], _progress)).as_json()
    _step(3, "what the author sees of the agent's work, in Chromium")
    results["views_ms"] = await live_views.measure(sizes["views"], _progress)
    _step(4, f"a story of {sizes['scenes']} scenes")
    results["long_story"] = await long_story.measure(
        sizes["scenes"], sizes["lines"], sizes["pages"], _progress
    )
    _step(5, "delivery across two instances on one PostgreSQL database")
    results["instances_ms"] = await instances.measure(sizes["instances"], _progress)
    _step(6, "CPU per call on the server's side and the agent's, beside the bare server")
    results["cpu_per_call"] = [asdict(row) for row in await call_cpu.measure(sizes["cpu_calls"])]
    _step(7, "a delivery and a read served in process (no sockets), beside the bare server")
    results["in_process_us"] = await asyncio.to_thread(in_process.measure, sizes["in_process"])
    _step(8, "an ordinary read beside a hostile neighbour (the worst allowed search, import and check)")
    results["hostile"] = await hostile.measure(sizes["hostile"], _progress)
    results["seconds"] = round(time.perf_counter() - started, 1)
    _write(results, out)
    return results


async def run_harness_idle(quick: bool, out: Path) -> None:
    waits = harness_idle.QUICK_WAITS if quick else harness_idle.WAITS
    print(f"an agent listening on a quiet channel in each harness, {waits} timed-out waits", flush=True)
    rows = await harness_idle.measure(waits, _progress)
    print(harness_idle.table(rows))
    print(f"\nwrote {harness_idle.write(rows, out)}")


def _write(results: dict[str, Any], out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    (out / "bench.json").write_text(json.dumps(results, indent=2))
    plot(results, out / "latency.png")
    print(table(results))
    print(f"\nwrote {out / 'bench.json'} and {out / 'latency.png'} in {results['seconds']} s")


def _step(number: int, what: str) -> None:
    print(f"[{number}/{STEPS}] {what}", flush=True)


def _progress(message: str) -> None:
    print(f"      {message}", flush=True)


def _cores() -> int:
    return len(os.sched_getaffinity(0))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m tests.bench", description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "step", nargs="?", choices=["harness-idle"], help="run only this step, which the full run leaves out"
    )
    parser.add_argument("--quick", action="store_true", help="small sizes: checks the command works")
    parser.add_argument("--out", type=Path, default=Path("bench-results"), help="where to write the files")
    arguments = parser.parse_args(argv)
    if arguments.step == "harness-idle":
        asyncio.run(run_harness_idle(arguments.quick, arguments.out))
    else:
        asyncio.run(run(arguments.quick, arguments.out))


if __name__ == "__main__":
    main(sys.argv[1:])
