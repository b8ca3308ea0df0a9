"""The benchmark's table (against the goals in docs/performance.md) and its plot of the loop's latencies."""

from __future__ import annotations

import statistics
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")  # no display: the plot is only written to a file
import matplotlib.pyplot as plt
from matplotlib import ticker

LOOP_GOALS = {
    "delivery": "p50 ≤ 2× echo (to 2.2× accepted), p99 ≤ 25 ms",
    "first delivery": "once per process (warm-up): not in the other rows",
    "read tool": "≤ 2× echo",
    "report": "≤ 2× echo",
    "reply": "≤ 2× echo (a report too)",
    "edit tool": "≤ 1.5 × (edit direct + echo)",
}
PAGE_GOAL_MS = 2000


def table(results: dict[str, Any]) -> str:
    rows = [f"Romergo benchmark, {results['date']}, {results['machine']}", ""]
    loop = results["loop_ms"]
    echo = statistics.median(loop["echo"])
    width = max(len("loop step"), *(len(name) for name in loop))
    rows.append(f"{'loop step':<{width}} {'p50 ms':>8} {'p99 ms':>8} {'× echo':>7}  goal")
    for name, samples in loop.items():
        p50 = statistics.median(samples)
        p99 = percentile(samples, 99)
        rows.append(f"{name:<{width}} {p50:8.1f} {p99:8.1f} {p50 / echo:6.1f}×  {LOOP_GOALS.get(name, '')}")
    if "delivery floor" in loop:
        took, floor = statistics.median(loop["delivery"]), statistics.median(loop["delivery floor"])
        rows.append(
            f"delivery: {took / floor:.1f}× the bare server's (delivery floor: a POST to it wakes its "
            "parked call; two HTTP exchanges, no database)"
        )
    if "read floor" in loop:
        read, floor = statistics.median(loop["read tool"]), statistics.median(loop["read floor"])
        rows.append(
            f"read tool: {read / floor:.1f}× its own answer sent by the bare server (read floor: "
            "the same result and output schema, no Romergo behind it)"
        )
    if "edit direct" in loop:
        tool, direct = statistics.median(loop["edit tool"]), statistics.median(loop["edit direct"])
        rows.append("edit tool goal: " + edit_goal(tool, direct, echo))
    rows += [
        "",
        f"{'waiters':>8} {'extra RSS':>10} {'idle CPU':>9} {'re-polls':>9} {'CPU each':>9}"
        f" {'fan-out':>8} {'p50':>8} {'max':>8}",
    ]
    for found in results["waiters"]:
        delivered = found["delivery_ms"]
        rows.append(
            f"{found['agents']:>8} {found['extra_mb']:8.0f} MB {_idle(found)}"
            f" {found['fan_out_seconds']:7.1f}s {statistics.median(delivered):6.0f}ms {max(delivered):6.0f}ms"
        )
    if "waiters_floor" in results:
        floor = results["waiters_floor"]
        rows.append(
            f"{floor['agents']:>8} {floor['extra_mb']:8.0f} MB {_idle(floor)}"
            "   on a bare MCP server whose wait only sleeps: the protocol's own cost"
        )
        rows.append(idle_goal(results["waiters"], floor))
    rows.append(
        "goal: 1,000 in ≤ 200 MB extra, idle CPU ≤ 1.5× the bare server's, each command delivered within 2 s"
    )
    rows.append("(idle CPU over one whole wait: each agent's wait times out once and it calls again;")
    rows.append(" re-polls: the waits that did so inside the window; CPU each: the window's CPU per re-poll)")
    rows += ["", "seen by the author in Chromium (p50 / max)"]
    for name, samples in results["views_ms"].items():
        rows.append(f"  {name:<27} {statistics.median(samples):8.0f} ms {max(samples):8.0f} ms")
    story = results["long_story"]
    rows += [
        "",
        f"a story of {story['scenes']} scenes, {story['lines']} lines (p50; first: the first after start-up)",
    ]
    for name, samples in story["tools_ms"].items():
        rows.append(f"  tool {name:<22} {statistics.median(samples):8.0f} ms  first {samples[0]:5.0f} ms")
    beside = story["beside_check_ms"]
    rows.append(
        f"  tool get_scene beside a check {statistics.median(beside):5.0f} ms, max {max(beside):.0f} ms"
        f" ({len(beside)} calls while another agent checked the story)"
    )
    for name, shown in story["pages"].items():
        rows.append(
            f"  {name:<27} {statistics.median(shown['ms']):8.0f} ms  first {shown['ms'][0]:5.0f} ms"
            f"  {shown['dom_elements']} DOM elements  (goal ≤ {PAGE_GOAL_MS} ms, the first as the rest)"
        )
    rows.append(f"  server RSS {story['server_rss_mb']:.0f} MB (goal ≤ 300 MB)")
    if "instances_ms" in results:
        rows += ["", "delivery, two instances on one PostgreSQL database (goal: across p50 ≤ 10 ms)"]
        for name, samples in results["instances_ms"].items():
            p50, p95 = statistics.median(samples), percentile(samples, 95)
            rows.append(f"  {name:<27} p50 {p50:6.1f} ms  p95 {p95:6.1f} ms")
    if "cpu_per_call" in results:
        rows += ["", "CPU per call, back to back (echo and replay: the bare server; the rest: Romergo)"]
        for found in results["cpu_per_call"]:
            rows.append(
                f"  {found['kind']:<8} server {found['server_ms']:5.2f} ms  agent {found['agent_ms']:5.2f} ms"
                f"  p50 {found['p50_ms']:5.2f} ms"
            )
    if "in_process_us" in results:
        rows += ["", "served in process, no sockets (p50 µs; Romergo's delivery by stage, indented)"]
        served = results["in_process_us"]
        rows += [f"  {name:<40} {value:7.0f} µs" for name, value in served.items()]
        if "direct: the same edit" in served:
            edit, echo_us = served["romergo: edit"], served["bare: echo"]
            rows.append(
                "  edit tool goal: " + edit_goal(edit, served["direct: the same edit"], echo_us, "µs")
            )
            if "direct: the same edit, amid echoes" in served:
                amid = edit_goal(edit, served["direct: the same edit, amid echoes"], echo_us, "µs")
                rows.append("  direct amid echoes: " + amid)
    if "hostile" in results:
        rows += ["", *hostile_rows(results["hostile"])]
    return "\n".join(rows)


def hostile_rows(result: dict[str, Any]) -> list[str]:
    """The table's rows: the reads side by side, then each kind of hostile call's outcomes."""
    quiet, beside, given = result["quiet_ms"], result["beside_ms"], result["inputs"]
    rows = [
        f"an ordinary read (romergo_get_scene, {given['reads_per_second']} a second) beside a hostile"
        " neighbour running the worst allowed search, import and check",
        _reads_row("quiet server", quiet),
        _reads_row("beside the hostile work", beside),
    ]
    if quiet and beside:
        rows.append(
            f"  ratio beside / quiet: p50 {statistics.median(beside) / statistics.median(quiet):.1f}×,"
            f" p99 {percentile(beside, 99) / percentile(quiet, 99):.1f}×"
        )
    rows += [
        f"  {failed['count']} reads failed {when}, the first: {failed['first']!r}"
        for when, failed in result["reads_failed"].items()
        if failed["count"]
    ]
    by_call: dict[str, list[dict[str, Any]]] = {}
    for call in result["hostile"]:
        by_call.setdefault(call["call"], []).append(call)
    rows += [_hostile_row(name, calls) for name, calls in by_call.items()]
    memory = result["server_rss"]
    rows.append(
        f"  server RSS {memory['before_mb']:.0f} MB before the hostile work,"
        f" {memory['after_mb']:.0f} MB after, peak {memory['peak_mb']:.0f} MB"
    )
    imported, checked = given["import_scenes"], given["check_scenes"]
    rows.append(
        f"  (searched: {given['long_lines']} lines of {given['line_chars']} characters; imported: {imported}"
        f" scenes, {imported * given['import_lines']} lines of {given['import_line_chars']} characters,"
        f" {given['archive_bytes'] / 1e6:.1f} MB zipped, story.json {given['story_json_bytes'] / 1e6:.1f} MB;"
        f" checked: {checked} scenes, {checked * given['check_lines']} lines)"
    )
    return rows


def _reads_row(name: str, samples: list[float]) -> str:
    if not samples:
        return f"  {name:<26} no read answered"
    return (
        f"  {name:<26} p50 {statistics.median(samples):8.1f} ms  p99 {percentile(samples, 99):8.1f} ms"
        f"  max {max(samples):8.1f} ms  ({len(samples)} reads)"
    )


def _hostile_row(name: str, calls: list[dict[str, Any]]) -> str:
    """How one kind of hostile call ended (answered, refused, failed: how many), its times, the
    slowest read started while one of them ran, and the first refusal's or failure's words."""
    outcomes = ", ".join(
        f"{sum(call['outcome'] == kind for call in calls)} {kind}"
        for kind in ("answered", "refused", "failed")
        if any(call["outcome"] == kind for call in calls)
    )
    times = [call["ms"] for call in calls]
    worst = max(call["worst_read_ms"] for call in calls)
    said = next((call["said"] for call in calls if call["said"]), "")
    return (
        f"  hostile {name:<20} {outcomes:<12} p50 {statistics.median(times):7.0f} ms"
        f"  max {max(times):7.0f} ms  slowest read meanwhile {worst:7.0f} ms"
        + (f"  {said[:70]!r}" if said else "")
    )


def _idle(found: dict[str, Any]) -> str:
    """The idle window's CPU, its re-polls and the server's CPU per re-poll (no re-poll in a
    window shorter than a wait, as in the quick run)."""
    cpu, repolls = found["idle_cpu_percent"], found.get("idle_repolls", 0)
    each = f"{_per_repoll(found):6.2f} ms" if repolls else f"{'—':>9}"
    return f"{cpu:8.1f}% {repolls:>9} {each}"


def _per_repoll(found: dict[str, Any]) -> float:
    """The server's CPU in ms per wait that timed out and was called again inside the window."""
    return float(found["idle_cpu_percent"] / 100 * found["idle_seconds"] / found["idle_repolls"] * 1000)


def plot(results: dict[str, Any], path: Path) -> None:
    loop = results["loop_ms"]
    figure, axes = plt.subplots(figsize=(9, 4.5))
    axes.boxplot(list(loop.values()), vert=False, showfliers=True)
    axes.set_yticks(range(1, len(loop) + 1), list(loop))
    axes.set_xscale("log")
    axes.xaxis.set_major_formatter(ticker.ScalarFormatter())
    axes.set_xlabel("milliseconds (log scale)")
    axes.set_title(f"Builder loop over HTTP, {results['date'][:10]} ({results['machine']})")
    axes.axvline(2 * statistics.median(loop["echo"]), color="tab:red", linestyle="--", label="2× echo p50")
    axes.legend(loc="lower right")
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)


def edit_goal(tool: float, direct: float, echo: float, unit: str = "ms") -> str:
    """The edit tool's goal: 1.5 × (the same change made directly + one echo round trip), the least
    any call making that change can take, with half of it again to spare."""
    goal = 1.5 * (direct + echo)
    digits = ".1f" if unit == "ms" else ".0f"
    return f"{goal:{digits}} {unit} as 1.5 × (edit direct + echo); edit tool {tool / goal:.2f}× it"


def idle_goal(waiters: list[dict[str, Any]], floor: dict[str, Any]) -> str:
    """Idle CPU at the floor's number of agents against the bare server's, whole and per re-poll."""
    same = next((found for found in waiters if found["agents"] == floor["agents"]), None)
    if same is None:
        return "idle CPU: no run beside the floor's to compare"
    if not floor["idle_cpu_percent"]:  # a window too short to measure, as in the quick run
        return f"idle CPU at {floor['agents']} agents: the bare server's too small to compare"
    ratio = same["idle_cpu_percent"] / floor["idle_cpu_percent"]
    each = ""
    if same.get("idle_repolls") and floor.get("idle_repolls"):
        each = f", {_per_repoll(same) / _per_repoll(floor):.2f}× per re-poll"
    return f"idle CPU at {floor['agents']} agents: {ratio:.2f}× the bare server's{each} (goal ≤ 1.5×)"


def percentile(samples: list[float], percent: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, max(0, round(percent / 100 * len(ordered)) - 1))]
