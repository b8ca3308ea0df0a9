"""A zip bomb whose `story.json` declares 1,000 bytes and inflates to 256 MiB is refused without the
server inflating it: memory stays flat and nothing is created."""

from __future__ import annotations

from tests.support.hostile_imports import (
    archive_of,
    imported,
    owner_api,
    project_ids,
    refusal,
    rss_kib,
    with_central_field,
)
from tests.support.server import RunningServer

SERVER_ENV = {"ROMERGO_RATE_LIMIT_PER_MINUTE": "1000000"}
INFLATED = 256 * 1024 * 1024
DECLARED = 1_000
FILE_SIZE_FIELD = 24
MIB_IN_KIB = 1024


def lying_bomb() -> bytes:
    """Zeros deflated (about 1,000:1), the archive's directory claiming 1,000 bytes unpacked."""
    story = bytearray(INFLATED)
    story[:2] = b"{}"
    bomb = archive_of(bytes(story))
    return with_central_field(bomb, FILE_SIZE_FIELD, "<I", DECLARED)


async def test_a_member_inflating_past_what_it_declares_is_refused_with_memory_flat(server: RunningServer):
    hostile = lying_bomb()
    assert len(hostile) < 2 * 1024 * 1024
    before = rss_kib(server)
    async with owner_api(server) as http:
        projects = await project_ids(http)
        message = refusal(await imported(http, "bomb.romergo.zip", hostile))
        assert "story.json" in message
        assert await project_ids(http) == projects
    assert rss_kib(server, "VmHWM") - before < 64 * MIB_IN_KIB
