"""`romergo restore` copies exactly the files its manifest lists and hashes, nothing else.

Whoever can write into a backup folder can add files there (and a matching manifest: a checksum is
not a signature). A restore still refuses, in one line and before the data dir changes, a rollback
journal beside the database (SQLite would replay it into the restored database), a symbolic link
(it would copy whatever it points at), a file the manifest does not list, and a file whose content
is not the one the manifest names. An untouched backup, and one made before files were hashed,
still restore.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sqlite3
import subprocess
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import pytest

from tests.support.cli import romergo, romergo_here
from tests.support.oauth import PASSWORD

INJECTED = "INJECTED BY JOURNAL"


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A backup of a data dir with the demo story and one browser's storage, written by the CLI."""
    data = tmp_path_factory.mktemp("original")
    added = romergo_here("user", "add", "ada", data_dir=data, stdin=PASSWORD + "\n")
    assert added.returncode == 0, added.stderr
    assert romergo_here("seed-demo", "--user", "ada", data_dir=data).returncode == 0
    (data / "nicegui").mkdir(exist_ok=True)
    (data / "nicegui" / "storage-user-1.json").write_text('{"tab": 1}')
    backups = tmp_path_factory.mktemp("backups")
    written = romergo("backup", "--to", str(backups), data_dir=data)
    assert written.returncode == 0, written.stderr
    (folder,) = backups.iterdir()
    yield folder


@pytest.fixture
def backup(made: Path, tmp_path: Path) -> Path:
    """A copy of the backup for one test to tamper with."""
    return Path(shutil.copytree(made, tmp_path / made.name, symlinks=True))


@pytest.fixture
def target(tmp_path: Path) -> Path:
    """A data dir with a database of its own, which a refused restore must leave as it was."""
    data = tmp_path / "target"
    assert romergo_here("db", "upgrade", data_dir=data).returncode == 0
    return data


def test_a_journal_beside_the_database_is_refused_and_never_replayed(backup: Path, target: Path):
    journal = _journal_that_retitles(backup / "romergo.db", backup.parent / "forged", INJECTED)
    (backup / "files" / "romergo.db-journal").write_bytes(journal)
    _list_in_manifest(backup, "romergo.db-journal")
    before = _contents(target)

    refused = romergo("restore", str(backup), "--replace", data_dir=target)

    _assert_refused_in_one_line(refused, "romergo.db-journal")
    assert _contents(target) == before
    assert INJECTED not in _titles(target / "romergo.db")


def test_a_journal_in_the_backup_folder_itself_is_refused(backup: Path, target: Path):
    journal = _journal_that_retitles(backup / "romergo.db", backup.parent / "forged", INJECTED)
    (backup / "romergo.db-journal").write_bytes(journal)
    before = _contents(target)

    refused = romergo("restore", str(backup), "--replace", data_dir=target)

    _assert_refused_in_one_line(refused, "romergo.db-journal")
    assert _contents(target) == before


def test_a_symbolic_link_is_refused_even_when_the_manifest_lists_it(
    backup: Path, target: Path, tmp_path: Path
):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("not the backup's to give")
    (backup / "files" / "x").symlink_to(outside / "secret.txt")
    _list_in_manifest(backup, "x")
    (backup / "files" / "elsewhere").symlink_to(outside, target_is_directory=True)
    before = _contents(target)

    refused = romergo("restore", str(backup), "--replace", data_dir=target)

    _assert_refused_in_one_line(refused, "symbolic link")
    assert _contents(target) == before


def test_a_file_the_manifest_does_not_list_is_refused(backup: Path, target: Path):
    (backup / "files" / "nicegui" / "storage-user-2.json").write_text('{"planted": true}')
    before = _contents(target)

    refused = romergo("restore", str(backup), "--replace", data_dir=target)

    _assert_refused_in_one_line(refused, "storage-user-2.json")
    assert "not listed" in refused.stderr
    assert _contents(target) == before


def test_a_file_whose_content_is_not_the_listed_one_is_refused(backup: Path, target: Path):
    (backup / "files" / "nicegui" / "storage-user-1.json").write_text('{"tab": 9}')  # the same size
    before = _contents(target)

    refused = romergo("restore", str(backup), "--replace", data_dir=target)

    _assert_refused_in_one_line(refused, "storage-user-1.json")
    assert "checksum" in refused.stderr
    assert _contents(target) == before


def test_a_listed_path_that_leaves_the_backup_folder_is_refused(backup: Path, target: Path):
    (backup / "outside.txt").write_text("beside the files")
    _list_in_manifest(backup, "../outside.txt")
    before = _contents(target)

    refused = romergo("restore", str(backup), "--replace", data_dir=target)

    _assert_refused_in_one_line(refused, "leaves the backup's folder")
    assert _contents(target) == before


def test_an_untouched_backup_restores_its_database_and_files(backup: Path, tmp_path: Path):
    manifest = json.loads((backup / "backup.json").read_text())
    listed = {entry["path"] for entry in manifest["files"]}
    assert "nicegui/storage-user-1.json" in listed
    assert all(len(entry["sha256"]) == 64 and entry["bytes"] >= 0 for entry in manifest["files"])
    assert manifest["database"]["bytes"] == (backup / "romergo.db").stat().st_size

    restored = romergo("restore", str(backup), data_dir=tmp_path / "restored")

    assert restored.returncode == 0, restored.stderr
    assert (tmp_path / "restored" / "nicegui" / "storage-user-1.json").read_text() == '{"tab": 1}'
    assert _titles(tmp_path / "restored" / "romergo.db") == _titles(backup / "romergo.db")
    assert not list((tmp_path / "restored").glob("romergo.db-*"))


def test_a_backup_made_before_files_were_hashed_still_restores(backup: Path, tmp_path: Path):
    manifest = json.loads((backup / "backup.json").read_text())
    manifest["version"] = 1
    manifest["database"] = {"file": "romergo.db", "sha256": manifest["database"]["sha256"]}
    manifest["files"] = [entry["path"] for entry in manifest["files"]]
    (backup / "backup.json").write_text(json.dumps(manifest, indent=2))

    restored = romergo("restore", str(backup), data_dir=tmp_path / "restored")

    assert restored.returncode == 0, restored.stderr
    assert (tmp_path / "restored" / "nicegui" / "storage-user-1.json").read_text() == '{"tab": 1}'


def _journal_that_retitles(database: Path, workspace: Path, title: str) -> bytes:
    """A hot rollback journal whose saved pages, played back onto `database`, retitle every project:
    taken from a copy that has the new titles, in the middle of a transaction that changes them."""
    workspace.mkdir(exist_ok=True)
    forged = workspace / "romergo.db"
    shutil.copyfile(database, forged)
    with closing(sqlite3.connect(forged, isolation_level=None)) as connection:
        connection.execute("UPDATE projects SET title = ?", (title,))
        connection.execute("PRAGMA journal_mode=DELETE")
        connection.execute("PRAGMA synchronous=OFF")  # the journal's header then says: replay it all
        connection.execute("BEGIN IMMEDIATE")
        connection.execute("UPDATE projects SET title = 'anything'")
        journal = (workspace / "romergo.db-journal").read_bytes()
        connection.execute("ROLLBACK")
    return journal


def _list_in_manifest(backup: Path, relative: str) -> None:
    """What an attacker who can write the folder also does: list the planted file with its hash."""
    manifest_path = backup / "backup.json"
    manifest = json.loads(manifest_path.read_text())
    path = backup / "files" / relative
    data = path.read_bytes()
    manifest["files"].append(
        {"path": relative, "sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data)}
    )
    manifest_path.write_text(json.dumps(manifest, indent=2))


def _assert_refused_in_one_line(refused: subprocess.CompletedProcess[str], naming: str) -> None:
    assert refused.returncode == 1, refused.stdout
    assert len(refused.stderr.strip().splitlines()) == 1, refused.stderr
    assert naming in refused.stderr, refused.stderr


def _contents(folder: Path) -> dict[str, str]:
    """Every file in the data dir with a hash of its content (the lock a restore takes aside)."""
    return {
        path.relative_to(folder).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(folder.rglob("*"))
        if path.is_file() and path.name != "server.lock"
    }


def _titles(database: Path) -> list[str]:
    with closing(sqlite3.connect(f"file:{database}?mode=ro", uri=True)) as connection:
        return sorted(str(title) for (title,) in connection.execute("SELECT title FROM projects"))
