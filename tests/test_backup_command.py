"""`romergo backup` and `romergo restore`, as an author runs them: a backup taken while a
real server takes an agent's edits, restored into a fresh data dir, where the project opens with
every revision up to the moment of the backup and nothing half-written. A data dir or a backup
that a test only starts from is made in this process (`romergo_here`: quicker)."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.agents import agent
from tests.support.cli import romergo, romergo_here
from tests.support.oauth import add_user, personal_token
from tests.support.server import ROOT, RunningServer, clean_env

pytestmark = pytest.mark.long


async def test_a_backup_taken_while_the_server_writes_restores_every_revision(tmp_path):
    (tmp_path / "data").mkdir()
    # The agent edits as fast as it can: past the default per-minute limit on a quick machine.
    server = RunningServer(tmp_path / "data", env={"ROMERGO_RATE_LIMIT_PER_MINUTE": "100000"}).start()
    try:
        add_user(server, "ada")
        async with agent(server.base_url, personal_token(server, "ada")) as me:
            project = (await me.call("romergo_list_projects"))["untrusted_content"]["data"]["projects"][0]
            outline = await me.call("romergo_get_project_outline", project_id=project["id"])
            scene_id = outline["untrusted_content"]["data"]["chapters"][0]["scenes"][0]["id"]
            scene = await me.call("romergo_get_scene", scene_id=scene_id)
            line_id = scene["untrusted_content"]["data"]["lines"][0]["id"]
            done: list[int] = []
            stop = asyncio.Event()
            landed = asyncio.Condition()

            async def edits() -> None:
                try:
                    while not stop.is_set():
                        await me.call(
                            "romergo_update_dialogue_line", line_id=line_id, text=f"Take {len(done)}"
                        )
                        async with landed:
                            done.append(len(done))
                            landed.notify_all()
                finally:  # a failed edit wakes the test, which then raises it instead of waiting forever
                    async with landed:
                        landed.notify_all()

            async def edits_landed(count: int) -> None:
                async with landed:
                    await landed.wait_for(lambda: len(done) >= count or writing.done())
                if len(done) < count:
                    writing.result()  # the edit that failed, as the test's error
                    raise AssertionError("the edits stopped")

            writing = asyncio.create_task(edits())
            await edits_landed(5)
            before = len(done)
            backup = await _romergo_async(
                "backup", "--to", str(tmp_path / "backups"), data_dir=server.data_dir
            )
            after = len(done)
            await edits_landed(after + 3)  # the server keeps writing after the backup, unhindered
            stop.set()
            await writing
    finally:
        server.stop()
    assert backup.returncode == 0, backup.stderr
    assert after > before  # the backup ran while edits were landing
    (folder,) = (tmp_path / "backups").iterdir()
    assert f"backup written: {folder}" in backup.stdout

    restored = romergo("restore", str(folder), data_dir=tmp_path / "restored")
    assert restored.returncode == 0, restored.stderr

    texts = _revised_texts(tmp_path / "restored" / "romergo.db", line_id)
    taken = len(texts)
    assert before <= taken <= after, (before, taken, after)
    assert texts == [f"Take {n}" for n in range(taken)]  # every revision, in order, none torn

    again = RunningServer(tmp_path / "restored").start()
    try:
        async with agent(again.base_url, personal_token(again, "ada")) as me:
            scene = await me.call("romergo_get_scene", scene_id=scene_id)
    finally:
        again.stop()
    assert scene["untrusted_content"]["data"]["lines"][0]["text"] == f"Take {taken - 1}"


def test_restore_refuses_while_a_server_runs_on_the_data_dir(tmp_path):
    assert romergo_here("db", "upgrade", data_dir=tmp_path / "data").returncode == 0
    made = romergo_here("backup", "--to", str(tmp_path / "backups"), data_dir=tmp_path / "data")
    assert made.returncode == 0, made.stderr
    (folder,) = (tmp_path / "backups").iterdir()
    server = RunningServer(tmp_path / "data").start()
    try:
        refused = romergo("restore", str(folder), "--replace", data_dir=tmp_path / "data")
    finally:
        server.stop()
    assert refused.returncode == 1
    assert "A Romergo server is running on this data directory" in refused.stderr
    assert sorted(p.name for p in (tmp_path / "data").glob("romergo.db*")) == ["romergo.db"]


def test_backup_and_restore_refuse_what_they_cannot_do_with_clear_messages(tmp_path):
    nothing = romergo("backup", "--to", str(tmp_path / "backups"), data_dir=tmp_path / "empty")
    assert nothing.returncode == 1 and "holds no Romergo database" in nothing.stderr
    on_postgres = romergo(
        "backup", data_dir=tmp_path, env={"ROMERGO_DATABASE_URL": "postgresql+asyncpg://localhost/x"}
    )
    assert on_postgres.returncode == 1 and "pg_dump" in on_postgres.stderr

    assert romergo_here("db", "upgrade", data_dir=tmp_path / "data").returncode == 0
    assert (
        romergo_here("backup", "--to", str(tmp_path / "backups"), data_dir=tmp_path / "data").returncode == 0
    )
    (folder,) = (tmp_path / "backups").iterdir()
    manifest = json.loads((folder / "backup.json").read_text())
    manifest["schema_revision"] = "9999"
    (folder / "backup.json").write_text(json.dumps(manifest))
    newer = romergo("restore", str(folder), data_dir=tmp_path / "target")
    assert newer.returncode == 1 and "made by a newer Romergo" in newer.stderr
    assert not (tmp_path / "target" / "romergo.db").exists()

    not_a_backup = romergo("restore", str(tmp_path), data_dir=tmp_path / "target")
    assert not_a_backup.returncode == 1 and "is not a Romergo backup" in not_a_backup.stderr


def _revised_texts(database: Path, line_id: str) -> list[str]:
    with sqlite3.connect(database) as connection:
        rows = connection.execute(
            "SELECT json_extract(after, '$.text') FROM revisions WHERE entity_id = ? AND action = 'updated'"
            " ORDER BY id",
            (line_id,),
        ).fetchall()
    return [text for (text,) in rows]


async def _romergo_async(*args: str, data_dir: Path) -> subprocess.CompletedProcess[str]:
    """The CLI run beside the test's own event loop, which keeps the agent's edits going meanwhile."""
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        str(ROOT / "app.py"),
        *args,
        "--data-dir",
        str(data_dir),
        env=clean_env(None),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await process.communicate()
    return subprocess.CompletedProcess(args, process.returncode or 0, out.decode(), err.decode())
