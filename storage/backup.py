"""Backups of a data directory, taken while the server runs, and putting one back.

A backup is a directory `romergo-backup-<UTC time>/` holding:
- `romergo.db`: the database copied with SQLite's online backup API in one step, so it is one
  consistent snapshot even while the server writes (in WAL mode the copy is a reader and never
  holds the server up); media live in the database (`asset_blobs`), so they are in it too. The
  copy is one self-contained file: no journal or WAL belongs beside it;
- `files/`: the rest of the data directory as it was (NiceGUI's per-browser storage, demo agent
  tokens and logs), copied file by file (plain files only: no links, no SQLite sidecars);
- `backup.json`: what it is, when, which schema, and every file with its size and SHA-256
  (`storage.backup_manifest`, which also says what a restore refuses and why a checksum is not a
  signature).

It is written under a temporary name and renamed at the end: a directory with the final name is
always a whole backup. Restoring checks the whole folder first, then copies exactly the listed
files into the data dir under temporary names, hashing what it reads, and only when every file and
SQLite's integrity check agree puts them in place: a refused restore leaves the data dir as it was.
It refuses while a server runs on the target data directory (every `romergo serve` holds a shared
lock on `server.lock` there; a restore needs it exclusively), and never overwrites a database
unless told to, keeping the one it replaces beside it.

PostgreSQL installs are backed up by PostgreSQL's own tools (pg_dump): refused here with that advice.
"""

from __future__ import annotations

import contextlib
import json
import shutil
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path, PurePosixPath
from typing import IO

from storage.backup_manifest import (
    DATABASE,
    FILES,
    FORMAT,
    LOCK_FILE,
    MANIFEST,
    SIDECAR_SUFFIXES,
    VERSION,
    BackupRefused,
    Manifest,
    check_contents,
    check_folder,
    copy_checked,
    manifest_entry,
    never_copied,
    read_manifest,
)

try:
    import fcntl
except ImportError:  # pragma: no cover - not a POSIX system: no lock, restore trusts the author
    fcntl = None  # type: ignore[assignment]

__all__ = ["Backup", "BackupRefused", "backup_data_dir", "backups_in", "read_manifest", "restore_data_dir"]

PREFIX = "romergo-backup-"
# Where a restore puts what it copies until every file is checked (names a backup never copies).
STAGED_DATABASE = f"{DATABASE}.restoring"
STAGED_FILES = f"{DATABASE}.restoring-files"
_BUSY_MS = 15_000


@dataclass(frozen=True)
class Backup:
    path: Path
    created_at: str
    schema_revision: str | None
    database_bytes: int
    files: int


def backup_data_dir(data_dir: Path, to: Path, *, now: datetime, keep: int | None = None) -> Backup:
    """Write a backup of `data_dir` into `to` (created if needed); with `keep`, delete all but
    the newest `keep` backups there afterwards."""
    database = data_dir / DATABASE
    if not database.is_file():
        raise BackupRefused(f"{data_dir} holds no Romergo database ({DATABASE}): nothing to back up.")
    if keep is not None and keep < 1:
        raise BackupRefused("--keep must be at least 1.")
    to.mkdir(parents=True, exist_ok=True)
    name = f"{PREFIX}{now.strftime('%Y%m%d-%H%M%S')}"
    final = to / name
    if final.exists():
        raise BackupRefused(f"{final} exists already: wait a second and try again.")
    partial = to / f".{name}.partial"
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir()
    try:
        revision = _copy_database(database, partial / DATABASE)
        files = _copy_files(data_dir, partial / FILES, skip=to.resolve())
        database_entry = manifest_entry(DATABASE, partial / DATABASE)
        manifest = {
            "format": FORMAT,
            "version": VERSION,
            "created_at": now.isoformat(),
            "schema_revision": revision,
            "database": {"file": DATABASE, **database_entry},
            "files": [manifest_entry(path, partial / FILES / path) for path in files],
        }
        (partial / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
        partial.rename(final)
    except BaseException:
        shutil.rmtree(partial, ignore_errors=True)
        raise
    if keep is not None:
        for old in backups_in(to)[:-keep]:
            shutil.rmtree(old)
    return Backup(final, now.isoformat(), revision, database_entry["bytes"], len(files))


def restore_data_dir(backup: Path, data_dir: Path, *, replace: bool, now: datetime) -> Path | None:
    """Put `backup` back as `data_dir`'s database and files, after checking all of it.

    Returns where the database it replaced was kept (None if there was none). The caller migrates
    the restored database to the current schema (a backup may come from an earlier Romergo).
    """
    try:
        return _restore(backup, data_dir, replace=replace, now=now)
    except OSError as error:  # a file that cannot be read or written: a refusal, not a traceback
        raise BackupRefused(f"The restore stopped at a file it could not read or write: {error}.") from None


def backups_in(folder: Path) -> list[Path]:
    """The whole backups in `folder`, oldest first (their names sort by time)."""
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.iterdir() if p.name.startswith(PREFIX) and (p / MANIFEST).is_file())


@contextlib.contextmanager
def server_lock(data_dir: Path) -> Iterator[None]:
    """Held (shared) by a running server for as long as it runs, so no restore swaps its database
    away under it; several servers (or CLI commands) may hold it at once."""
    data_dir.mkdir(parents=True, exist_ok=True)
    with _locked(data_dir, shared=True, refusal="A restore is under way on this data directory."):
        yield


def _copy_database(source: Path, target: Path) -> str | None:
    """One-step online backup: the whole copy is read in one read transaction."""
    with contextlib.closing(sqlite3.connect(source, timeout=_BUSY_MS / 1000)) as live:
        with contextlib.closing(sqlite3.connect(target)) as copy:
            live.backup(copy)
            # The copy is one self-contained file: no WAL beside it to lose when it is moved.
            copy.execute("PRAGMA journal_mode=DELETE")
            _check_integrity_on(copy, target)
            return _schema_revision(copy)


def _restore(backup: Path, data_dir: Path, *, replace: bool, now: datetime) -> Path | None:
    manifest = read_manifest(backup)
    check_folder(backup, manifest)
    check_contents(backup, manifest)  # checked again while copying: the folder may change meanwhile
    data_dir.mkdir(parents=True, exist_ok=True)
    target = data_dir / DATABASE
    with _exclusive(data_dir):
        if target.exists() and not replace:
            raise BackupRefused(
                f"{data_dir} already holds a database. Pass --replace to restore over it "
                "(the current one is kept beside it)."
            )
        try:
            _stage(backup, manifest, data_dir)
            kept = _put_in_place(manifest, data_dir, now)
        finally:
            _clear_staging(data_dir)
    return kept


def _stage(backup: Path, manifest: Manifest, data_dir: Path) -> None:
    """Copy every listed file into the data dir under names nothing opens, checking each."""
    _clear_staging(data_dir)
    copy_checked(backup, manifest.database, data_dir / STAGED_DATABASE)
    _check_integrity(data_dir / STAGED_DATABASE, shown=backup / DATABASE)
    for entry in manifest.files:
        staged = data_dir / STAGED_FILES / entry.path
        staged.parent.mkdir(parents=True, exist_ok=True)
        copy_checked(backup / FILES, entry, staged)


def _put_in_place(manifest: Manifest, data_dir: Path, now: datetime) -> Path | None:
    target = data_dir / DATABASE
    kept = None
    if target.exists():
        _fold_wal(target)
        kept = data_dir / f"{DATABASE}.before-restore-{now.strftime('%Y%m%d-%H%M%S')}"
        target.rename(kept)
    # A journal or WAL left under the old name would be replayed into the restored database.
    _remove_sidecars(target)
    (data_dir / STAGED_DATABASE).replace(target)
    for entry in manifest.files:
        placed = data_dir / entry.path
        placed.parent.mkdir(parents=True, exist_ok=True)
        (data_dir / STAGED_FILES / entry.path).replace(placed)
    return kept


def _clear_staging(data_dir: Path) -> None:
    shutil.rmtree(data_dir / STAGED_FILES, ignore_errors=True)
    (data_dir / STAGED_DATABASE).unlink(missing_ok=True)
    _remove_sidecars(data_dir / STAGED_DATABASE)


def _remove_sidecars(database: Path) -> None:
    for suffix in SIDECAR_SUFFIXES:
        database.with_name(database.name + suffix).unlink(missing_ok=True)


def _check_integrity(path: Path, *, shown: Path) -> None:
    """Check the copy at `path` (named `shown` to the author): read-only, with no journal beside it."""
    try:
        with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as connection:
            _check_integrity_on(connection, shown)
    except sqlite3.DatabaseError as error:
        raise BackupRefused(f"{shown} is not a readable database: {error}.") from None


def _check_integrity_on(connection: sqlite3.Connection, path: Path) -> None:
    result = connection.execute("PRAGMA integrity_check").fetchone()
    if not result or result[0] != "ok":
        raise BackupRefused(f"{path} failed SQLite's integrity check: {result and result[0]}.")
    if _schema_revision(connection) is None:
        raise BackupRefused(f"{path} is not a Romergo database (it has no schema revision).")


def _schema_revision(connection: sqlite3.Connection) -> str | None:
    try:
        row = connection.execute("SELECT version_num FROM alembic_version").fetchone()
    except sqlite3.DatabaseError:
        return None
    return str(row[0]) if row else None


def _fold_wal(database: Path) -> None:
    """Write the database's WAL into it, so the file kept aside holds every committed change."""
    with contextlib.closing(sqlite3.connect(database, timeout=_BUSY_MS / 1000)) as connection:
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        connection.execute("PRAGMA journal_mode=DELETE")


def _copy_files(data_dir: Path, target: Path, *, skip: Path) -> list[str]:
    copied: list[str] = []
    for path in sorted(data_dir.rglob("*")):
        relative = PurePosixPath(path.relative_to(data_dir).as_posix())
        if (
            not path.is_file()
            or path.is_symlink()
            or never_copied(relative)
            or path.resolve().is_relative_to(skip)
        ):
            continue
        (target / relative).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, target / relative)
        copied.append(relative.as_posix())
    return copied


@contextlib.contextmanager
def _exclusive(data_dir: Path) -> Iterator[None]:
    refusal = "A Romergo server is running on this data directory: stop it, then restore."
    with _locked(data_dir, shared=False, refusal=refusal):
        yield


@contextlib.contextmanager
def _locked(data_dir: Path, *, shared: bool, refusal: str) -> Iterator[None]:
    if fcntl is None:  # pragma: no cover
        yield
        return
    handle: IO[bytes] = (data_dir / LOCK_FILE).open("ab")
    try:
        try:
            fcntl.flock(handle, (fcntl.LOCK_SH if shared else fcntl.LOCK_EX) | fcntl.LOCK_NB)
        except BlockingIOError:
            raise BackupRefused(refusal) from None
        yield
    finally:
        handle.close()
