"""Every way an archive can be broken is a refusal in words (HTTP 400, one line from
`romergo import`), never a 500 or a traceback, and nothing is created."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest

from tests.support.cli import romergo, romergo_here
from tests.support.hostile_imports import (
    archive_of,
    imported,
    owner_api,
    project_ids,
    refusal,
    with_central_field,
)
from tests.support.oauth import PASSWORD
from tests.support.server import RunningServer

CRC_FIELD, METHOD_FIELD, FLAGS_FIELD, FILE_SIZE_FIELD = 16, 10, 8, 24
STORY = b'{"title": "Broken", "chapters": [{"title": "One", "scenes": [{"key": "a", "title": "A"}]}]}'


def _corrupt_deflate() -> bytes:
    good = archive_of(STORY * 20)
    data_at = good.index(b"story.json") + len("story.json")
    return good[:data_at] + b"\xff" * 40 + good[data_at + 40 :]


def _stored(story: bytes) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as archive:
        archive.writestr("story.json", story)
    return out.getvalue()


MALFORMED = {
    "bad CRC": (with_central_field(archive_of(STORY), CRC_FIELD, "<I", 0xDEADBEEF), "damaged"),
    "corrupt deflate": (_corrupt_deflate(), "damaged"),
    "encrypted flag": (with_central_field(archive_of(STORY), FLAGS_FIELD, "<H", 0x1), "encrypted"),
    "compression method 99": (with_central_field(archive_of(STORY), METHOD_FIELD, "<H", 99), "method 99"),
    "JSON nested 200k deep": (archive_of(b"[" * 200_000 + b"]" * 200_000), "more than 32 deep"),
    "objects nested 200k deep": (archive_of(b'{"a":' * 200_000 + b"1" + b"}" * 200_000), "deep"),
    "lying size": (with_central_field(archive_of(STORY), FILE_SIZE_FIELD, "<I", 10), "damaged"),
    "truncated member": (_stored(STORY)[:60], "not a zip file"),
    "not a zip": (b"PK\x03\x04" + b"\x00" * 100, "not a zip file"),
}


@pytest.mark.parametrize("kind", MALFORMED)
async def test_a_malformed_archive_is_a_400_in_words_and_creates_nothing(server: RunningServer, kind: str):
    data, words = MALFORMED[kind]
    async with owner_api(server) as http:
        projects = await project_ids(http)
        message = refusal(await imported(http, "broken.romergo.zip", data))
        assert await project_ids(http) == projects
    assert words in message


def test_romergo_import_prints_one_line_for_each_malformed_archive(tmp_path: Path):
    added = romergo_here("user", "add", "ada", data_dir=tmp_path / "data", stdin=PASSWORD + "\n")
    assert added.returncode == 0, added.stderr
    for kind, (data, words) in MALFORMED.items():
        file = tmp_path / "broken.romergo.zip"
        file.write_bytes(data)
        result = romergo("import", str(file), data_dir=tmp_path / "data")
        assert result.returncode == 1, (kind, result.stdout)
        assert result.stderr.count("\n") == 1 and words in result.stderr, (kind, result.stderr)
        assert result.stderr.startswith("romergo: "), (kind, result.stderr)
