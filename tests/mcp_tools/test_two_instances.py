"""Two server processes on one PostgreSQL database: what the owner does through one
instance reaches an agent long-polling the other, woken by LISTEN/NOTIFY, not by its timeout.

Each agent waits with a 30 s timeout and each test allows far less, so a wake-up that did not
cross between the processes fails the test instead of arriving late.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from functools import partial
from typing import Any

import asyncpg
import pytest

from storage.wakeups import APPLICATION_NAME, asyncpg_args
from tests.support.agents import Agent, OwnerApi, agent
from tests.support.databases import PostgresDatabases
from tests.support.oauth import add_user, personal_token
from tests.support.server import RunningServer, two_instances_on_postgres
from tests.support.waiting import until

pytestmark = pytest.mark.long

LONG_WAIT = 30
ENV = {"ROMERGO_RATE_LIMIT_PER_MINUTE": "5000"}


@pytest.fixture(scope="module")
def instances(
    tmp_path_factory: pytest.TempPathFactory, postgres: PostgresDatabases
) -> Iterator[tuple[RunningServer, RunningServer]]:
    with two_instances_on_postgres(tmp_path_factory, postgres, ENV) as (a, b):
        add_user(a, "ada")
        yield a, b


@pytest.fixture(scope="module")
def tokens(instances) -> dict[str, str]:
    a, _ = instances
    return {
        "control": personal_token(a, "ada", "--scopes", "read,control", "--name", "ada's script"),
        "on_a": personal_token(a, "ada", "--name", "Agent on A"),
        "on_b": personal_token(a, "ada", "--name", "Agent on B"),
    }


@pytest.fixture
async def owners(instances, tokens) -> AsyncIterator[tuple[OwnerApi, OwnerApi]]:
    a, b = instances
    on_a, on_b = OwnerApi(a.base_url, tokens["control"]), OwnerApi(b.base_url, tokens["control"])
    yield on_a, on_b
    await on_a.close()
    await on_b.close()


@pytest.fixture
async def channel(owners) -> dict[str, Any]:
    on_a, _ = owners
    project = (await on_a("GET", "/projects"))["projects"][0]
    return await on_a("POST", "/channels", {"project_id": project["id"]})


async def test_a_command_posted_through_a_reaches_the_agent_waiting_on_b(instances, tokens, owners, channel):
    _, b = instances
    on_a, _ = owners
    got = await posted_through_a_to_b(b, tokens["on_b"], on_a, channel, "Hello from A")
    assert got["status"] == "command"
    assert got["command"]["text"] == "Hello from A"


async def test_200_commands_through_both_reach_agents_on_both_each_exactly_once(
    instances, tokens, owners, channel
):
    a, b = instances
    channel_id = channel["channel_id"]
    seen: dict[str, list[str]] = {"on_a": [], "on_b": []}
    sent: list[str] = []
    done = asyncio.Event()

    async def work(name: str, server: RunningServer) -> None:
        async with agent(server.base_url, tokens[name]) as me:
            cursor = (await me.call("romergo_join_builder_channel", code=channel["code"]))["cursor"]
            while not done.is_set():
                got = await wait_once(me, channel_id, cursor)
                if got["status"] != "command":
                    continue
                cursor = got["cursor"]
                seen[name].append(got["command"]["command_id"])
                await me.reply_done(got["command"]["command_id"])
                if len(seen["on_a"]) + len(seen["on_b"]) >= 200:
                    done.set()

    async def post_all() -> None:
        await until_listening(owners[0], channel_id, count=2)
        for n in range(200):
            owner = owners[n % 2]  # through A, then B, then A...
            sent.append(
                (await owner("POST", f"/channels/{channel_id}/commands", {"text": f"job {n}"}))["command_id"]
            )

    workers = [asyncio.create_task(work("on_a", a)), asyncio.create_task(work("on_b", b))]
    await asyncio.wait_for(post_all(), timeout=120)
    await asyncio.wait_for(done.wait(), timeout=60)
    for worker in workers:
        worker.cancel()
    await asyncio.gather(*workers, return_exceptions=True)
    everything = seen["on_a"] + seen["on_b"]
    assert sorted(everything) == sorted(sent)
    assert seen["on_a"] and seen["on_b"]


async def test_after_the_listening_connections_are_killed_the_next_command_still_arrives(
    instances, tokens, owners, channel
):
    a, b = instances
    on_a, _ = owners
    killed = await kill_listeners(a.database_url)
    assert killed == 2  # one listening connection per instance
    await until(partial(listeners, a.database_url), what="both instances listening again")
    got = await posted_through_a_to_b(b, tokens["on_b"], on_a, channel, "After the cut")
    assert got["command"]["text"] == "After the cut"


async def test_after_every_connection_is_cut_as_a_restart_does_both_instances_carry_on(
    instances, tokens, owners, channel
):
    """Pooled connections are not pinged before use: the listener's reconnect drops the pool, so
    the calls after a database restart meet fresh connections, not dead ones."""
    a, b = instances
    on_a, on_b = owners
    await on_a("GET", "/projects")
    await on_b("GET", "/projects")  # both pools hold connections now
    assert await cut_every_connection(a.database_url) >= 4
    await until(partial(listeners, a.database_url), what="both instances listening again")
    got = await posted_through_a_to_b(b, tokens["on_b"], on_a, channel, "After the restart")
    assert got["command"]["text"] == "After the restart"


async def test_allow_once_decided_through_a_releases_the_call_waiting_on_b(instances, tokens, owners):
    _, b = instances
    on_a, _ = owners
    project = (await on_a("GET", "/projects"))["projects"][0]
    room = await on_a("POST", "/channels", {"project_id": project["id"], "confirmation_mode": "every_change"})
    channel_id = room["channel_id"]
    async with agent(b.base_url, tokens["on_b"]) as me:
        cursor = (await me.call("romergo_join_builder_channel", code=room["code"]))["cursor"]
        await on_a("POST", f"/channels/{channel_id}/commands", {"text": "Retitle the first scene"})
        got = await wait_once(me, channel_id, cursor)
        outline = await me.call("romergo_get_project_outline", project_id=project["id"])
        scene_id = outline["untrusted_content"]["data"]["chapters"][0]["scenes"][0]["id"]
        edit = asyncio.create_task(
            me.call(
                "romergo_update_scene",
                scene_id=scene_id,
                title="Decided on A",
                command_id=got["command"]["command_id"],
            )
        )
        requested: str = await until(partial(confirmation_of, on_a, channel_id), what="the confirmation")
        await on_a("POST", f"/confirmations/{requested}", {"decision": "allow_once"})
        changed = await asyncio.wait_for(edit, timeout=10)  # the call parks for up to 50 s
    assert changed["untrusted_content"]["data"]["title"] == "Decided on A"


async def confirmation_of(owner: OwnerApi, channel_id: str) -> str | None:
    events = (await owner("GET", f"/channels/{channel_id}/events", after=0))["events"]
    asked = [event for event in events if event["kind"] == "confirmation_requested"]
    return asked[-1]["data"]["confirmation_id"] if asked else None


async def test_an_agent_whose_instance_dies_mid_command_continues_on_the_other(
    instances, tokens, owners, channel
):
    a, b = instances
    on_a, _ = owners
    channel_id = channel["channel_id"]
    async with agent(b.base_url, tokens["on_b"]) as me:
        cursor = (await me.call("romergo_join_builder_channel", code=channel["code"]))["cursor"]
        await on_a("POST", f"/channels/{channel_id}/commands", {"text": "Survive the crash"})
        got = await wait_once(me, channel_id, cursor)
        held = got["command"]["command_id"]
        await me.call("romergo_report_builder_event", command_id=held, kind="status", text="on it")
    assert b.process is not None
    b.process.kill()  # instance B dies while its agent holds the command
    b.process.wait()
    try:
        async with agent(a.base_url, tokens["on_b"]) as again:
            # The same agent on the surviving instance, from the cursor it had before the command.
            back = await again.wait(channel_id, cursor, timeout_seconds=5)
            assert back["status"] == "command"
            assert back["command"]["command_id"] == held and back["command"]["redelivered"] is True
            await again.reply_done(held)
            after = await again.wait(channel_id, back["cursor"], timeout_seconds=1)
    finally:
        b.start()
    assert after["status"] == "timeout"  # nothing else was queued: nothing duplicated
    events = (await on_a("GET", f"/channels/{channel_id}/events", after=0))["events"]
    mine = [event["kind"] for event in events if event.get("command_id") == held]
    assert mine.count("claimed") == 2 and mine.count("reply") == 1
    assert (await on_a("GET", f"/commands/{held}"))["state"] == "done"


async def posted_through_a_to_b(
    b: RunningServer, token: str, on_a: OwnerApi, channel: dict[str, Any], text: str
) -> dict[str, Any]:
    """An agent on B joins and parks its wait; the owner posts `text` through A; what B delivered."""
    async with agent(b.base_url, token) as me:
        cursor = (await me.call("romergo_join_builder_channel", code=channel["code"]))["cursor"]
        waiting = asyncio.create_task(wait_once(me, channel["channel_id"], cursor))
        await until_listening(on_a, channel["channel_id"])
        await on_a("POST", f"/channels/{channel['channel_id']}/commands", {"text": text})
        return await asyncio.wait_for(waiting, timeout=10)


async def wait_once(me: Agent, channel_id: str, cursor: int) -> dict[str, Any]:
    return await me.wait(channel_id, cursor, timeout_seconds=LONG_WAIT)


async def until_listening(owner: OwnerApi, channel_id: str, count: int = 1) -> None:
    """Until `count` members of the channel say they are listening (their wait is parked)."""

    async def listening() -> bool:
        members = (await owner("GET", f"/channels/{channel_id}"))["members"]
        return sum(member["polling"] for member in members) >= count

    await until(listening, what=f"{count} agents listening")


async def kill_listeners(url: str) -> int:
    return await _count(url, "count(pg_terminate_backend(pid))")


async def cut_every_connection(url: str) -> int:
    """What a database restart does to the instances: every connection of theirs ends."""
    admin = await asyncpg.connect(**asyncpg_args(url))
    try:
        return int(
            await admin.fetchval(
                "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                "WHERE datname = current_database() AND pid <> pg_backend_pid()"
            )
        )
    finally:
        await admin.close()


async def listeners(url: str) -> bool:
    """Both instances' listening connections are up."""
    return await _count(url, "count(*)") == 2


async def _count(url: str, what: str) -> int:
    admin = await asyncpg.connect(**asyncpg_args(url))
    try:
        found = await admin.fetchval(
            f"SELECT {what} FROM pg_stat_activity "
            "WHERE datname = current_database() AND application_name = $1",
            APPLICATION_NAME,
        )
        return int(found)
    finally:
        await admin.close()
