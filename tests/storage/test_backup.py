"""Backups of a data directory (`storage.backup`) on real SQLite files: what is copied, what is
checked before a restore changes anything, and what a restore keeps."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from contextlib import closing
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from storage.backup import BackupRefused, backup_data_dir, backups_in, restore_data_dir, server_lock
from storage.migrate import upgrade

NOW = datetime(2026, 12, 4, 12, 0, tzinfo=UTC)


@pytest.fixture
async def data_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "data"
    await upgrade(f"sqlite+aiosqlite:///{folder / 'romergo.db'}")
    _say(folder, "first words")
    (folder / "nicegui").mkdir()
    (folder / "nicegui" / "storage-user-1.json").write_text('{"tab": 1}')
    return folder


def test_a_backup_holds_the_database_and_the_other_files_but_not_itself(data_dir, tmp_path):
    inside = data_dir / "backups"
    made = backup_data_dir(data_dir, inside, now=NOW)
    assert made.path == inside / "romergo-backup-20261204-120000"
    assert made.schema_revision is not None
    assert (made.path / "files" / "nicegui" / "storage-user-1.json").read_text() == '{"tab": 1}'
    assert _said(made.path / "romergo.db") == "first words"
    again = backup_data_dir(data_dir, inside, now=NOW + timedelta(seconds=1))
    assert not (again.path / "files" / "backups").exists()
    with closing(sqlite3.connect(made.path / "romergo.db")) as copy:
        assert copy.execute("PRAGMA journal_mode").fetchone()[0] == "delete"


def test_the_manifest_lists_every_file_with_its_hash_and_no_sqlite_sidecar(data_dir, tmp_path):
    (data_dir / "nicegui" / "notes.db-journal").write_bytes(b"a journal of some other database")
    made = backup_data_dir(data_dir, tmp_path / "b", now=NOW)
    manifest = json.loads((made.path / "backup.json").read_text())
    assert manifest["version"] == 2
    assert manifest["database"]["bytes"] == (made.path / "romergo.db").stat().st_size
    listed = {entry["path"]: entry for entry in manifest["files"]}
    on_disk = {
        p.relative_to(made.path / "files").as_posix() for p in (made.path / "files").rglob("*") if p.is_file()
    }
    assert set(listed) == on_disk == {"nicegui/storage-user-1.json"}
    assert listed["nicegui/storage-user-1.json"] == {
        "path": "nicegui/storage-user-1.json",
        "sha256": hashlib.sha256(b'{"tab": 1}').hexdigest(),
        "bytes": 10,
    }


def test_keep_leaves_the_newest_backups(data_dir, tmp_path):
    for seconds in range(4):
        backup_data_dir(data_dir, tmp_path / "b", now=NOW + timedelta(seconds=seconds), keep=2)
    assert [p.name for p in backups_in(tmp_path / "b")] == [
        "romergo-backup-20261204-120002",
        "romergo-backup-20261204-120003",
    ]
    with pytest.raises(BackupRefused, match="at least 1"):
        backup_data_dir(data_dir, tmp_path / "b", now=NOW + timedelta(minutes=1), keep=0)


def test_restore_over_a_database_keeps_it_with_every_change_it_had(data_dir, tmp_path):
    made = backup_data_dir(data_dir, tmp_path / "b", now=NOW)
    _say(data_dir, "later words")  # committed, possibly still only in the WAL
    with pytest.raises(BackupRefused, match="--replace"):
        restore_data_dir(made.path, data_dir, replace=False, now=NOW)
    assert _said(data_dir / "romergo.db") == "later words"

    kept = restore_data_dir(made.path, data_dir, replace=True, now=NOW)
    assert kept == data_dir / "romergo.db.before-restore-20261204-120000"
    assert _said(kept) == "later words"
    assert _said(data_dir / "romergo.db") == "first words"


def test_a_damaged_backup_changes_nothing(data_dir, tmp_path):
    made = backup_data_dir(data_dir, tmp_path / "b", now=NOW)
    with (made.path / "romergo.db").open("r+b") as database:
        database.seek(5000)
        database.write(b"\xff" * 16)
    target = tmp_path / "target"
    with pytest.raises(BackupRefused, match="does not match its checksum"):
        restore_data_dir(made.path, target, replace=True, now=NOW)
    assert not target.exists()


def test_a_restore_waits_for_no_server_and_a_server_for_no_restore(data_dir, tmp_path):
    made = backup_data_dir(data_dir, tmp_path / "b", now=NOW)
    with server_lock(data_dir), server_lock(data_dir):  # several servers and CLI commands at once
        with pytest.raises(BackupRefused, match="server is running"):
            restore_data_dir(made.path, data_dir, replace=True, now=NOW)
    assert not list(data_dir.glob("romergo.db.before-restore-*"))


def _say(folder: Path, words: str) -> None:
    with closing(sqlite3.connect(folder / "romergo.db")) as connection, connection:
        connection.execute("PRAGMA journal_mode=WAL")
        connection.execute("CREATE TABLE IF NOT EXISTS said (words TEXT)")
        connection.execute("DELETE FROM said")
        connection.execute("INSERT INTO said VALUES (?)", (words,))


def _said(database: Path) -> str:
    with closing(sqlite3.connect(database)) as connection:
        return str(connection.execute("SELECT words FROM said").fetchone()[0])
