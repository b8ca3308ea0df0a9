"""What an agent that keeps listening costs in model requests, in each harness: Claude Code, Codex
CLI, Gemini CLI and opencode, unchanged from npm, each set up by its driver as the README says
(Gemini CLI with loop detection off, as its block says) and run headless against a real server,
its model the stand-in.

Not in the full run. Run: `python -m tests.bench harness-idle [--quick]`

Each harness joins a channel, takes the owner's waiting command from a wait that asks for more
than the longest (the note in the answer says the longest it is served: 540 s where it asks for
progress, 50 s otherwise), then makes `waits` waits of 1 s that time out on the quiet channel. The
stand-in counts the model requests after each: what one timed-out wait costs. An idle hour costs
that many per wait, 3,600 / (wait length) waits: at the length its agent is told to use (Romergo's
join instructions), at 50 s and at the tool's default 25 s.
"""

from __future__ import annotations

import json
import shutil
import statistics
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from tests.harnesses.checks import WAITED, assert_wait_clamped
from tests.harnesses.drivers import ALL
from tests.harnesses.drivers.common import Kind, Place
from tests.harnesses.model.loop import DONE, Answer, Loop, Step, ToolCall, field_value
from tests.harnesses.model.standin import Conversation, StandInModel
from tests.support.agents import OwnerApi
from tests.support.oauth import add_user, personal_token
from tests.support.server import RunningServer

WAITS, QUICK_WAITS = 4, 1
IDLE_WAIT = 1
"""The timed-out waits' timeout_seconds: the count per wait does not depend on it, the run's length does."""
HOUR = 3600
SHORT, DEFAULT = 50, 25
"""The longest wait without progress notifications, and the wait tool's default."""


REPLIED = WAITED + 1
"""The index of the reply's result: the timed-out waits' results follow it."""


@dataclass(frozen=True)
class IdleLoop(Loop):
    """Join, take the waiting command (asking for more than the longest wait), reply to it (a
    command not replied to is handed over again), then wait on the quiet channel `waits` times,
    and say it is done."""

    waits: int = WAITS

    def step(self, results: Sequence[str]) -> Step:
        if len(results) <= WAITED:
            return super().step(results)
        if len(results) == REPLIED:
            return ToolCall(
                "romergo_report_builder_event", _reply(field_value(results[WAITED], "command_id"))
            )
        if len(results) <= REPLIED + self.waits:
            arguments = {
                "channel_id": field_value(results[0], "channel_id"),
                "cursor": int(field_value(results[WAITED], "cursor")),
                "timeout_seconds": IDLE_WAIT,
            }
            return ToolCall("romergo_wait_for_builder_command", arguments)
        return Answer(DONE)


@dataclass(frozen=True)
class Idle:
    harness: str
    version: str
    requests_per_wait: list[int]
    """Model requests whose newest tool result is the Nth timed-out wait."""
    served_wait: int
    """The longest wait the harness is served (s)."""
    told_wait: int
    """The wait its agent is told to ask for (s)."""
    failure: str = ""

    def per_hour(self, wait_seconds: int) -> float:
        return statistics.mean(self.requests_per_wait) * HOUR / wait_seconds if self.requests_per_wait else 0


async def measure(waits: int, progress: Callable[[str], None]) -> list[Idle]:
    folder = Path(tempfile.mkdtemp(prefix="romergo-harness-idle-"))
    (folder / "data").mkdir()
    server = RunningServer(folder / "data").start()
    try:
        add_user(server, "ada")
        owner = OwnerApi(server.base_url, personal_token(server, "ada", "--scopes", "read,control"))
        place = Place(folder, f"{server.base_url}/mcp", personal_token(server, "ada", "--name", "Idle"), "")
        found = []
        for kind in ALL:
            progress(f"{kind.name}: {waits} timed-out waits")
            found.append(await _idle(kind, owner, place, waits))
            progress(str(found[-1].requests_per_wait or found[-1].failure[:300]))
        await owner.close()
        return found
    finally:
        server.stop()
        shutil.rmtree(folder, ignore_errors=True)


def table(rows: list[Idle]) -> str:
    lines = [
        f"{'harness':<12} {'version':<28} {'requests':>9} {'served':>7} {'told':>5}"
        f" {'per idle hour: told':>20} {'at 50 s':>8} {'at 25 s':>8}",
    ]
    for row in rows:
        per_wait = statistics.mean(row.requests_per_wait) if row.requests_per_wait else float("nan")
        lines.append(
            f"{row.harness:<12} {row.version[:28]:<28} {per_wait:9.2f}"
            f" {row.served_wait:6d}s {row.told_wait:4d}s"
            f" {row.per_hour(row.told_wait):20.1f} {row.per_hour(SHORT):8.1f} {row.per_hour(DEFAULT):8.1f}"
        )
        if row.failure:
            lines.append(f"  {row.harness} failed: {row.failure[:500]}")
    lines += [
        "(requests: model requests per timed-out wait; served: the longest wait Romergo serves it;",
        " told: the wait its agent is told to ask for; per idle hour: requests × 3,600 / the wait)",
    ]
    return "\n".join(lines)


def write(rows: list[Idle], out: Path) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    path = out / "harness-idle.json"
    path.write_text(json.dumps([asdict(row) for row in rows], indent=2))
    return path


async def _idle(kind: Kind, owner: OwnerApi, place: Place, waits: int) -> Idle:
    """One harness's idle figures from its own folder, stand-in and channel."""
    model = StandInModel(kind.routes).start()
    try:
        folder = place.folder / kind.name.replace(" ", "-").lower()
        harness = await kind.set_up(Place(folder, place.mcp_url, place.agent_token, model.base_url))
        project_id = (await owner("GET", "/projects"))["projects"][0]["id"]
        channel = await owner("POST", "/channels", {"project_id": project_id})
        await owner("POST", f"/channels/{channel['channel_id']}/commands", {"text": "Keep listening."})
        loop = IdleLoop(channel["code"], project_id, "", "", waits)
        with model.following(loop) as conversation:
            run = await harness.run(f"Join the Romergo channel with code {channel['code']}")
        version = await harness.version()
        try:
            per_wait = requests_per_wait(conversation, waits)
            served = assert_wait_clamped(conversation.results)
        except AssertionError as failed:
            return Idle(
                kind.name, version, [], 0, harness.told_wait, f"{failed}\n{run.transcript(conversation)}"
            )
        return Idle(kind.name, version, per_wait, served, harness.told_wait)
    finally:
        model.stop()


def requests_per_wait(conversation: Conversation, waits: int) -> list[int]:
    """For each timed-out wait, the model requests that carried it as their newest tool result."""
    results = conversation.results
    timed_out = results[REPLIED + 1 :]
    assert len(timed_out) == waits, f"{len(timed_out)} of {waits} waits reached the model"
    assert all("timeout" in wait for wait in timed_out), timed_out
    return [
        sum(1 for exchange in conversation.exchanges if len(exchange.results) == REPLIED + 1 + number)
        for number in range(1, waits + 1)
    ]


def _reply(command_id: str) -> dict[str, object]:
    summary = {"status": "success", "description": "Nothing to change.", "changed_entities": []}
    return {
        "command_id": command_id,
        "kind": "reply",
        "text": "Listening.",
        "summary": summary | {"checks": [], "links": []},
    }
