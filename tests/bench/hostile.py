"""Benchmark: an ordinary read beside a hostile neighbour, and the same read on a quiet server.

    .venv/bin/python -m tests.bench.hostile [--quick]

One server, one data directory holding a big story (for the check and the reads) and a small story
of long lines (for the search). One agent reads a scene of the big story with `romergo_get_scene`,
first on the quiet server, then while a neighbour runs, round after round, the worst work the
server allows: a catastrophic regular-expression search over the long lines and the story check of
the big story (an agent with the read scope only), and the import of the largest allowed archive
(the owner's control token over the JSON API: there is no import tool). The reads are started on a
fixed schedule, so a stall delays every read due while it lasts, as it would the server's other
users. Their p50 and p99 are given side by side with the ratio, then each hostile call's own outcome
(answered, refused or failed, and its time) and the server's memory.

The hostile inputs are the module constants below: each is meant to sit just under the limit that
bounds it, so move them with the limits (the sizes of the quick run are for the test suite only).
Not part of the test suite's assertions: figures on a shared machine are noisy; they are for comparison.
"""

from __future__ import annotations

import argparse
import asyncio
import io
import tempfile
import time
import zipfile
from collections.abc import Awaitable, Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import update

from romergo.access.agents.scopes import CONTROL, READ
from romergo.common.actors import user_actor
from romergo.common.config import Limits, Settings
from romergo.interchange.archive import STORY_FILE, write_archive
from romergo.interchange.document import ChapterDoc, ChoiceDoc, LineDoc, SceneDoc, StoryDocument
from romergo.services import build_services
from storage.migrate import upgrade
from storage.tables import DialogueLine
from tests.bench.process import peak_rss_mb, rss_mb
from tests.bench.report import hostile_rows
from tests.support.agents import Agent, ToolRefused, agent
from tests.support.big_story import big_story
from tests.support.server import RunningServer

# The hostile inputs, each just under what bounds it (Limits.max_line_chars: 2,000 characters).
SEARCH_PATTERNS = ("(a+)+$", r"(\w+\s?)+$", "(?:(?:a{20}){20}){24}$")
"""Nested repeats that backtrack on a long run of letters ending in something else; the last one
also as large to compile as a pattern may be (9,600 written out, of 10,000)."""
LONG_LINE_CHARS = Limits().max_line_chars
"""Each searched line: letters, then one character the patterns' `$` cannot follow."""
LONG_LINES = 4
"""How many such lines the searched story holds (one per scene)."""
IMPORT_SCENES = 10_000
IMPORT_LINES_PER_SCENE = 20
"""The imported archive: scenes and dialogue lines per scene (200,000 lines in all)."""
IMPORT_LINE_CHARS = 180
"""Each imported line's length: the archive's `story.json` comes to 63.9 MB (61 MiB), just under the
64 MiB the archive reader takes."""
CHECK_SCENES = 10_000
CHECK_LINES_PER_SCENE = 20
"""The checked story, as large as an import may make one."""
LINE_TEXT = "The harbour lights flicker while the tide turns again, and somebody waits on the quay. "

READS_PER_SECOND = 10
"""The ordinary reader's pace, on the quiet server and beside the hostile work alike."""

ENV = {
    "ROMERGO_RATE_LIMIT_PER_MINUTE": "100000",
    # The reader, the neighbour and the owner all connect from this machine's one address.
    "ROMERGO_CONNECTIONS_PER_ADDRESS": "1000",
}


@dataclass(frozen=True)
class Sizes:
    quiet_reads: int
    rounds: int
    """Hostile rounds: each runs every search pattern, one import and one check, in turn."""
    line_chars: int
    import_scenes: int
    import_lines: int
    import_line_chars: int
    check_scenes: int
    check_lines: int


FULL = Sizes(
    quiet_reads=200,
    rounds=2,
    line_chars=LONG_LINE_CHARS,
    import_scenes=IMPORT_SCENES,
    import_lines=IMPORT_LINES_PER_SCENE,
    import_line_chars=IMPORT_LINE_CHARS,
    check_scenes=CHECK_SCENES,
    check_lines=CHECK_LINES_PER_SCENE,
)
QUICK = Sizes(
    quiet_reads=10,
    rounds=1,
    line_chars=200,
    import_scenes=100,
    import_lines=2,
    import_line_chars=IMPORT_LINE_CHARS,
    check_scenes=120,
    check_lines=2,
)


@dataclass(frozen=True)
class Prepared:
    token: str
    """ada's personal token with the read scope only: both agents'."""
    control: str
    """ada's token for the JSON API (the import)."""
    check_project: str
    read_scene: str
    search_project: str


@dataclass(frozen=True)
class HostileCall:
    call: str
    started: float
    """`time.perf_counter()` when it was sent, in seconds."""
    ms: float
    outcome: str
    """"answered", "refused" or "failed"."""
    said: str
    """The refusal's or the failure's first words; empty when answered."""


async def measure(sizes: Sizes, progress: Callable[[str], None] = lambda _: None) -> dict[str, Any]:
    """{"quiet_ms": [...], "beside_ms": [...], "hostile": [HostileCall as dict, ...],
    "server_rss": {"before_mb", "after_mb", "peak_mb"}, "inputs": {...}}: read times in milliseconds."""
    with tempfile.TemporaryDirectory() as folder:
        progress(
            f"writing a story of {sizes.check_scenes} scenes, {sizes.check_scenes * sizes.check_lines} "
            f"lines, and {LONG_LINES} lines of {sizes.line_chars} characters"
        )
        prepared = await _prepare(Path(folder), sizes)
        archive = await asyncio.to_thread(_archive, sizes)
        server = RunningServer(Path(folder), env=ENV).start()
        try:
            result = await _measure_on(server, prepared, archive, sizes, progress)
        finally:
            server.stop()
    result["inputs"] = {
        **asdict(sizes),
        "patterns": list(SEARCH_PATTERNS),
        "long_lines": LONG_LINES,
        "reads_per_second": READS_PER_SECOND,
        "archive_bytes": len(archive),
        "story_json_bytes": _story_json_bytes(archive),
    }
    return result


async def _measure_on(
    server: RunningServer, prepared: Prepared, archive: bytes, sizes: Sizes, progress: Callable[[str], None]
) -> dict[str, Any]:
    async with (
        agent(server.base_url, prepared.token) as reader,
        agent(server.base_url, prepared.token) as neighbour,
        httpx.AsyncClient(
            base_url=f"{server.base_url}/api/v1",
            headers={"Authorization": f"Bearer {prepared.control}"},
            timeout=600,
        ) as owner,
    ):
        await reader.call("romergo_get_scene", scene_id=prepared.read_scene)  # warm-up, left out
        await neighbour.call("romergo_get_project_outline", project_id=prepared.search_project)
        progress(f"{sizes.quiet_reads} reads on the quiet server, {READS_PER_SECOND} a second")
        quiet = await _paced_reads(reader, prepared.read_scene, sizes.quiet_reads, lambda: True)
        progress(f"reads beside {sizes.rounds} rounds of hostile work, {READS_PER_SECOND} a second")
        assert server.process is not None
        before = rss_mb(server.process.pid)
        hostile = asyncio.ensure_future(_hostile_rounds(neighbour, owner, prepared, archive, sizes, progress))
        beside = await _paced_reads(reader, prepared.read_scene, 1, hostile.done)
        calls = [_with_reads(call, beside) for call in await hostile]
        memory = {
            "before_mb": before,
            "after_mb": rss_mb(server.process.pid),
            "peak_mb": peak_rss_mb(server.process.pid),
        }
    return {
        "quiet_ms": [ms for _, ms, failed in quiet if not failed],
        "beside_ms": [ms for _, ms, failed in beside if not failed],
        "reads_failed": {"quiet": _failures(quiet), "beside": _failures(beside)},
        "hostile": calls,
        "server_rss": memory,
    }


Read = tuple[float, float, str]
"""When a read started (`time.perf_counter()`, seconds), how long it took (milliseconds) and how it
failed (empty when it answered)."""


async def _paced_reads(reader: Agent, scene_id: str, at_least: int, until: Callable[[], bool]) -> list[Read]:
    """Reads started on a fixed schedule, each without waiting for the one before: a read stalled
    for seconds leaves the reads due meanwhile stalled too, as a server's other users would be (one
    read after another would count a stall once, and the p99 would hide it)."""
    started = time.perf_counter()
    reads: list[asyncio.Future[Read]] = []
    while len(reads) < at_least or not until():
        reads.append(asyncio.ensure_future(_read(reader, scene_id)))
        await asyncio.sleep(max(0.0, started + len(reads) / READS_PER_SECOND - time.perf_counter()))
    return list(await asyncio.gather(*reads))


async def _read(reader: Agent, scene_id: str) -> Read:
    started = time.perf_counter()
    try:
        await reader.call("romergo_get_scene", scene_id=scene_id)
    except Exception as error:  # a read the neighbour made fail is a finding, not the benchmark's end
        return started, (time.perf_counter() - started) * 1000, f"{type(error).__name__}: {error}"[:160]
    return started, (time.perf_counter() - started) * 1000, ""


def _failures(reads: list[Read]) -> dict[str, Any]:
    failed = [said for _, _, said in reads if said]
    return {"count": len(failed), "first": failed[0] if failed else ""}


def _with_reads(call: HostileCall, reads: list[Read]) -> dict[str, Any]:
    """The call, with the slowest of the reads started while it ran: what it cost its neighbours."""
    during = [ms for started, ms, _ in reads if call.started <= started <= call.started + call.ms / 1000]
    return {**asdict(call), "reads_during": len(during), "worst_read_ms": round(max(during, default=0), 1)}


async def _hostile_rounds(
    neighbour: Agent,
    owner: httpx.AsyncClient,
    prepared: Prepared,
    archive: bytes,
    sizes: Sizes,
    progress: Callable[[str], None],
) -> list[HostileCall]:
    calls: list[HostileCall] = []
    for round_number in range(sizes.rounds):
        for pattern in SEARCH_PATTERNS:
            search = neighbour.call(
                "romergo_search_story", project_id=prepared.search_project, query=pattern, regex=True
            )
            calls.append(await _timed(f"search {pattern}", _tool(search)))
        imported = owner.post("/projects/import", params={"filename": "hostile.romergo.zip"}, content=archive)
        calls.append(await _timed("import", _api(imported)))
        check = neighbour.call("romergo_check_story", project_id=prepared.check_project)
        calls.append(await _timed("check", _tool(check)))
        progress(f"hostile round {round_number + 1}/{sizes.rounds}")
    return calls


async def _timed(name: str, outcome: Awaitable[tuple[str, str]]) -> HostileCall:
    started = time.perf_counter()
    kind, said = await outcome
    return HostileCall(name, started, round((time.perf_counter() - started) * 1000, 1), kind, said)


async def _tool(call: Awaitable[dict[str, Any]]) -> tuple[str, str]:
    try:
        await call
    except ToolRefused as refusal:
        return "refused", refusal.text[:160]
    except Exception as error:  # a hostile call may fail any way; the benchmark reports how
        return "failed", f"{type(error).__name__}: {error}"[:160]
    return "answered", ""


async def _api(request: Awaitable[httpx.Response]) -> tuple[str, str]:
    try:
        answer = await request
    except httpx.HTTPError as error:
        return "failed", f"{type(error).__name__}: {error}"[:160]
    if answer.status_code == 201:
        return "answered", ""
    if answer.status_code == 400:
        return "refused", str(answer.json()["error"]["message"])[:160]
    return "failed", f"HTTP {answer.status_code}: {answer.text}"[:160]


async def _prepare(folder: Path, sizes: Sizes) -> Prepared:
    """The big story and the story of long lines, written straight into a fresh database."""
    if sizes.check_scenes == LONG_LINES:
        raise ValueError("big_story names a story by its scene count: the two stories need different ones")
    await upgrade(f"sqlite+aiosqlite:///{folder / 'romergo.db'}")
    services = build_services(Settings(data_dir=folder))
    try:
        user = await services.accounts.create_user("ada", "a long bench password 42")
        author = user_actor(user.id, user.username)
        story = await big_story(
            services, author, sizes.check_scenes, sizes.check_lines, max(1, sizes.check_scenes // 50)
        )
        searched = await big_story(services, author, LONG_LINES, 1, 1)
        long_line = "a" * (sizes.line_chars - 1) + "!"
        async with services.db.write() as session:
            await session.exec(
                update(DialogueLine)
                .where(DialogueLine.project_id == searched.project_id)
                .values(text=long_line)
            )
        token, _ = await services.agents.personal.create("ada", name="Agents", scopes=[READ])
        control, _ = await services.agents.personal.create("ada", name="Owner", scopes=[CONTROL])
        middle = story.scene_ids[len(story.scene_ids) // 2]
        return Prepared(token, control, story.project_id, middle, searched.project_id)
    finally:
        await services.close()


def _archive(sizes: Sizes) -> bytes:
    """A `.romergo.zip` of the sizes' scenes (fifty to a chapter), each leading on to the next."""
    scenes, lines_per_scene = sizes.import_scenes, sizes.import_lines
    text = (LINE_TEXT * (sizes.import_line_chars // len(LINE_TEXT) + 1))[: sizes.import_line_chars - 8]
    chapters = []
    for first in range(0, scenes, 50):
        chapter_scenes = [
            SceneDoc(
                key=f"s{n}",
                title=f"Scene {n + 1}",
                lines=[LineDoc(f"{text} ({m + 1:>4})") for m in range(lines_per_scene)],
                choices=[ChoiceDoc("Go on", f"s{n + 1}")] if n + 1 < scenes else [],
                is_start=n == 0,
                is_ending=n + 1 == scenes,
            )
            for n in range(first, min(first + 50, scenes))
        ]
        chapters.append(ChapterDoc(f"Chapter {first // 50 + 1}", chapter_scenes))
    return write_archive(StoryDocument("The Hostile Import", chapters))


def _story_json_bytes(archive: bytes) -> int:
    with zipfile.ZipFile(io.BytesIO(archive)) as unpacked:
        return unpacked.getinfo(STORY_FILE).file_size


def main(argv: list[str] | None = None) -> None:
    about = __doc__.split("\n\n")[0]
    parser = argparse.ArgumentParser(prog="python -m tests.bench.hostile", description=about)
    parser.add_argument("--quick", action="store_true", help="small sizes: checks the command works")
    arguments = parser.parse_args(argv)
    result = asyncio.run(measure(QUICK if arguments.quick else FULL, lambda message: print(f"  {message}")))
    print("\n".join(hostile_rows(result)))


if __name__ == "__main__":
    main()
