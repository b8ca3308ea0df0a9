"""`romergo db upgrade` and `romergo db copy`, as an author moving to PostgreSQL would run
them: a demo install on SQLite, copied, then a server on the copy doing the loop's work."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from tests.support.agents import OwnerApi, agent
from tests.support.cli import romergo, romergo_here
from tests.support.databases import PostgresDatabases
from tests.support.oauth import PASSWORD, personal_token
from tests.support.server import RunningServer


@pytest.fixture
async def empty_postgres(postgres: PostgresDatabases) -> AsyncIterator[str]:
    async with postgres.empty() as url:
        yield url


def test_db_upgrade_brings_a_new_data_dir_to_the_current_schema(tmp_path):
    upgraded = romergo("db", "upgrade", data_dir=tmp_path)
    assert upgraded.returncode == 0, upgraded.stderr
    assert upgraded.stdout.startswith("at revision 0")
    assert (tmp_path / "romergo.db").exists()


async def test_a_demo_install_copied_to_postgresql_runs_the_loop_there(tmp_path, empty_postgres):
    # The install to copy, made in this process (quicker); the commands under test run as processes.
    assert romergo_here("user", "add", "ada", data_dir=tmp_path, stdin=PASSWORD + "\n").returncode == 0
    assert romergo_here("seed-demo", "--user", "ada", data_dir=tmp_path).returncode == 0

    copied = romergo("db", "copy", "--to", empty_postgres, data_dir=tmp_path)
    assert copied.returncode == 0, copied.stderr
    assert "every count verified" in copied.stdout
    again = romergo("db", "copy", "--to", empty_postgres, data_dir=tmp_path)
    assert again.returncode == 1 and "not empty" in again.stderr

    (tmp_path / "on-postgres").mkdir()
    server = RunningServer(tmp_path / "on-postgres", env={"ROMERGO_DATABASE_URL": empty_postgres}).start()
    try:
        owner = OwnerApi(server.base_url, personal_token(server, "ada", "--scopes", "read,control"))
        project = (await owner("GET", "/projects"))["projects"][0]
        assert project["title"] == "The Lighthouse Keeper's Secret"
        channel = await owner("POST", "/channels", {"project_id": project["id"]})
        async with agent(server.base_url, personal_token(server, "ada")) as me:
            cursor = (await me.call("romergo_join_builder_channel", code=channel["code"]))["cursor"]
            await owner("POST", f"/channels/{channel['channel_id']}/commands", {"text": "Polish the opening"})
            got = await me.wait(channel["channel_id"], cursor, timeout_seconds=10)
            outline = await me.call("romergo_get_project_outline", project_id=project["id"])
            scene_id = outline["untrusted_content"]["data"]["chapters"][0]["scenes"][0]["id"]
            scene = await me.call("romergo_get_scene", scene_id=scene_id)
            line_id = scene["untrusted_content"]["data"]["lines"][0]["id"]
            command_id = got["command"]["command_id"]
            await me.call(
                "romergo_update_dialogue_line", line_id=line_id, text="Polished.", command_id=command_id
            )
            await me.reply_done(command_id, "Polished the first line.")
            after = await me.call("romergo_get_scene", scene_id=scene_id)
        events = (await owner("GET", f"/channels/{channel['channel_id']}/events", after=0))["events"]
        await owner.close()
    finally:
        server.stop()
    assert after["untrusted_content"]["data"]["lines"][0]["text"] == "Polished."
    (recorded,) = [event["data"] for event in events if event["kind"] == "changes_recorded"]
    assert [change["entity_id"] for change in recorded["changes"]] == [line_id]


def test_db_copy_refuses_a_bad_target_with_a_clear_message(tmp_path):
    refused = romergo("db", "copy", "--to", "mysql://root@localhost/romergo", data_dir=tmp_path)
    assert refused.returncode == 1
    assert "SQLite or PostgreSQL" in refused.stderr
