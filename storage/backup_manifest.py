"""What a backup holds, file by file, and what a restore checks before it trusts any of it.

`backup.json` (version 2) lists every file of the backup with its size in bytes and its SHA-256:
the database, and each file under `files/` by its path there. A restore reads the backup folder
without following links and refuses it whole, before the data dir changes, if the folder holds
anything the manifest does not list, a symbolic link, a device, pipe or socket, a path that would
leave the folder, or an SQLite journal, WAL or shared-memory file (SQLite would replay a journal
into the restored database the first time it opens it; a backup's database is one self-contained
file, so a backup never holds one). It then copies exactly the listed files, hashing what it reads,
and refuses if a size or hash differs.

A checksum is not a signature. Whoever can write into the backup folder can also write a manifest
that matches what they put there: the checks catch damage, stray files and files that would do
more than be copied, but a backup is only as trustworthy as the place it is kept. Keep backups
where only their owner can write.

Version 1 manifests (written before files were hashed) list the other files by path only: they
still restore, with the database checked by its hash and the other files by name and kind.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

DATABASE = "romergo.db"
MANIFEST = "backup.json"
FILES = "files"
LOCK_FILE = "server.lock"
FORMAT = "romergo-backup"
VERSION = 2
# SQLite's sidecar files: whatever database they sit beside, SQLite may replay them into it.
SIDECAR_SUFFIXES = ("-journal", "-wal", "-shm")
# A backup of a data dir holds its database and a few hundred small files; these bound the work
# a crafted folder can ask of a restore before it is refused.
MAX_FILES = 100_000
MAX_MANIFEST_BYTES = 32 << 20
_BLOCK = 1 << 20


class BackupRefused(Exception):
    """Nothing was written or changed; the message says why, in words for the author."""


@dataclass(frozen=True)
class Listed:
    """One file of a backup as its manifest lists it; no hash or size when a version-1 manifest named it."""

    path: str
    sha256: str | None
    bytes: int | None


@dataclass(frozen=True)
class Manifest:
    schema_revision: str | None
    database: Listed
    files: tuple[Listed, ...]


def manifest_entry(path: str, source: Path) -> dict[str, Any]:
    """How a backup lists a file it wrote."""
    return {"path": path, "sha256": sha256_of(source), "bytes": source.stat().st_size}


def never_copied(relative: PurePosixPath) -> bool:
    """The data dir's own database, its sidecars, kept-aside databases and the lock: never plain files
    of a backup, and refused in one."""
    first = relative.parts[0]
    return (
        first in (DATABASE, LOCK_FILE)
        or first.startswith(f"{DATABASE}.")
        or relative.name.endswith(SIDECAR_SUFFIXES)
    )


def read_manifest(backup: Path) -> Manifest:
    path = backup / MANIFEST
    if not path.is_file() or path.is_symlink():
        raise BackupRefused(f"{backup} is not a Romergo backup (it has no {MANIFEST}).")
    if path.stat().st_size > MAX_MANIFEST_BYTES:
        raise BackupRefused(f"{path} is larger than a manifest can be ({MAX_MANIFEST_BYTES >> 20} MB).")
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, RecursionError) as error:
        raise BackupRefused(f"{path} cannot be read: {error}.") from None
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise BackupRefused(f"{path} does not describe a Romergo backup.")
    database = document.get("database")
    if not isinstance(database, dict) or not _is_hash(database.get("sha256")):
        raise BackupRefused(f"{path} names no database checksum.")
    files = document.get("files", [])
    if not isinstance(files, list) or len(files) > MAX_FILES:
        raise BackupRefused(f"{path} lists its files in a way no Romergo backup does (at most {MAX_FILES}).")
    revision = document.get("schema_revision")
    listed = tuple(_listed(entry, path) for entry in files)
    if len({entry.path for entry in listed}) != len(listed):
        raise BackupRefused(f"{path} lists a file twice: no Romergo backup does.")
    return Manifest(
        schema_revision=revision if isinstance(revision, str) else None,
        database=Listed(DATABASE, database["sha256"], _size(database.get("bytes"), path)),
        files=listed,
    )


def check_folder(backup: Path, manifest: Manifest) -> None:
    """Refuse the backup unless its folder holds exactly the manifest's files, each a plain file."""
    _check_top_level(backup)
    found = dict(_plain_files(backup / FILES)) if (backup / FILES).exists() else {}
    listed = {entry.path: entry for entry in manifest.files}
    if extra := sorted(found.keys() - listed.keys()):
        raise BackupRefused(
            f"{backup / FILES / extra[0]} is not listed in {MANIFEST}: a restore copies only what it lists."
        )
    if missing := sorted(listed.keys() - found.keys()):
        raise BackupRefused(f"{MANIFEST} lists {FILES}/{missing[0]}, which {backup} does not hold.")
    for relative, size in found.items():
        wanted = listed[relative].bytes
        if wanted is not None and wanted != size:
            raise BackupRefused(
                f"{backup / FILES / relative} is not the size {MANIFEST} gives: it was changed."
            )


def check_contents(backup: Path, manifest: Manifest) -> None:
    """Refuse the backup unless every listed file has the listed size and hash (before any copy)."""
    copy_checked(backup, manifest.database, None)
    for entry in manifest.files:
        copy_checked(backup / FILES, entry, None)


def copy_checked(source_dir: Path, entry: Listed, target: Path | None) -> None:
    """Copy the listed file from `source_dir` into `target` (new; None: only check it), reading it
    without following any link and hashing what was read: a copy is exactly the bytes checked."""
    handle = _open_beneath(source_dir, PurePosixPath(entry.path))
    digest = hashlib.sha256()
    written = 0
    limit = entry.bytes
    with handle, target.open("xb") if target else contextlib.nullcontext() as out:
        while block := handle.read(_BLOCK):
            written += len(block)
            if limit is not None and written > limit:
                break
            digest.update(block)
            if out is not None:
                out.write(block)
    if (limit is not None and written != limit) or (entry.sha256 and digest.hexdigest() != entry.sha256):
        raise BackupRefused(
            f"{source_dir / entry.path} does not match its checksum in {MANIFEST}: the backup is damaged "
            "or was changed."
        )


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(_BLOCK), b""):
            digest.update(block)
    return digest.hexdigest()


def _check_top_level(backup: Path) -> None:
    kinds = {MANIFEST: stat.S_ISREG, DATABASE: stat.S_ISREG, FILES: stat.S_ISDIR}
    for entry in os.scandir(backup):
        wanted = kinds.get(entry.name)
        if wanted is None:
            raise BackupRefused(
                f"{backup / entry.name} is not part of a Romergo backup: a restore copies only what "
                f"{MANIFEST} lists."
            )
        _refuse_links_and_special(Path(entry.path), entry.stat(follow_symlinks=False).st_mode, wanted)
    if not (backup / DATABASE).is_file():
        raise BackupRefused(f"{backup} has no {DATABASE}.")


def _plain_files(folder: Path) -> Iterator[tuple[str, int]]:
    """Every file under `folder` with its size, refusing links, special files and sidecars; never
    more than MAX_FILES entries."""
    seen = 0
    pending = [(folder, PurePosixPath())]
    while pending:
        directory, relative = pending.pop()
        for entry in os.scandir(directory):
            seen += 1
            if seen > MAX_FILES:
                raise BackupRefused(f"{folder} holds more than {MAX_FILES} entries: no Romergo backup does.")
            inside = relative / entry.name
            mode = entry.stat(follow_symlinks=False).st_mode
            if stat.S_ISDIR(mode):
                pending.append((Path(entry.path), inside))
                continue
            _refuse_links_and_special(Path(entry.path), mode, stat.S_ISREG)
            if never_copied(inside):
                raise BackupRefused(
                    f"{Path(entry.path)} is an SQLite journal or database file, which a backup never "
                    "holds (SQLite would replay it into the restored database)."
                )
            yield inside.as_posix(), entry.stat(follow_symlinks=False).st_size


def _refuse_links_and_special(path: Path, mode: int, wanted: Any) -> None:
    if stat.S_ISLNK(mode):
        raise BackupRefused(f"{path} is a symbolic link: a restore copies only plain files.")
    if not wanted(mode):
        raise BackupRefused(f"{path} is not a plain file or folder: a restore copies only plain files.")


def _open_beneath(folder: Path, relative: PurePosixPath) -> Any:
    """`folder/relative` opened for reading, refusing a link at any step (a folder swapped for a link
    after the check is refused here too)."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    directory = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0))
    try:
        for part in relative.parts[:-1]:
            inner = os.open(part, flags | getattr(os, "O_DIRECTORY", 0), dir_fd=directory)
            os.close(directory)
            directory = inner
        descriptor = os.open(relative.name, flags, dir_fd=directory)
    except OSError as error:
        raise BackupRefused(
            f"{folder / relative} cannot be read as a plain file: {error.strerror}."
        ) from None
    finally:
        os.close(directory)
    if not stat.S_ISREG(os.fstat(descriptor).st_mode):
        os.close(descriptor)
        raise BackupRefused(f"{folder / relative} is not a plain file: a restore copies only plain files.")
    return os.fdopen(descriptor, "rb")


def _listed(entry: object, manifest: Path) -> Listed:
    if isinstance(entry, str):  # version 1: a path, not hashed
        return Listed(_safe_path(entry, manifest), None, None)
    if not isinstance(entry, dict) or not _is_hash(entry.get("sha256")):
        raise BackupRefused(f"{manifest} lists a file without its checksum.")
    return Listed(
        _safe_path(entry.get("path"), manifest), entry["sha256"], _size(entry.get("bytes"), manifest)
    )


def _safe_path(value: object, manifest: Path) -> str:
    """A path inside `files/`, written the one way a backup writes it."""
    if not isinstance(value, str) or not value or "\\" in value or "\0" in value:
        raise BackupRefused(f"{manifest} lists a file by a path no backup writes: {value!r}.")
    path = PurePosixPath(value)
    if path.is_absolute() or path.as_posix() != value or any(part in ("..", ".") for part in path.parts):
        raise BackupRefused(f"{manifest} lists a path that leaves the backup's folder: {value!r}.")
    return value


def _size(value: object, manifest: Path) -> int | None:
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise BackupRefused(f"{manifest} gives a size that is not a number of bytes: {value!r}.")
    return value


def _is_hash(value: object) -> bool:
    return isinstance(value, str) and len(value) == 64 and all(c in "0123456789abcdef" for c in value)
