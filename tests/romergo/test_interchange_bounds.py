"""The limits of one import, exactly at their edges: what is at a limit is read, one more is
refused naming it, and a zip's own fields are never what a refusal relies on."""

from __future__ import annotations

import io
import json
import zipfile

import pytest

from romergo.common.errors import RomergoError
from romergo.interchange import json_shape, zipped
from romergo.interchange.bounds import MAX_SCENES, MAX_TEXT_LINES, Tally, check_text_lines


def nested(depth: int) -> bytes:
    return b'{"a":' * (depth - 1) + b"{}" + b"}" * (depth - 1)


def test_json_as_deep_as_the_limit_is_read_and_one_level_more_is_refused():
    assert json_shape.loaded(nested(json_shape.MAX_JSON_DEPTH), "x") is not None
    with pytest.raises(RomergoError, match="more than 32 deep"):
        json_shape.loaded(nested(json_shape.MAX_JSON_DEPTH + 1), "x")
    with pytest.raises(RomergoError, match="more than 32 deep"):
        json_shape.loaded(b'{"a":' + b"[" * 40 + b"]" * 40 + b"}", "x")


def test_scenes_are_counted_while_the_json_is_scanned():
    def story(scenes: int) -> bytes:
        return json.dumps({"chapters": [{"scenes": [{}] * scenes}]}).encode()

    assert len(json_shape.loaded(story(MAX_SCENES), "x")["chapters"][0]["scenes"]) == MAX_SCENES
    with pytest.raises(RomergoError, match="at most 10,000 scenes"):
        json_shape.loaded(story(MAX_SCENES + 1), "x")


@pytest.mark.parametrize(
    ("raw", "words"), [(b"[1]", "not a JSON object"), (b"{", "not JSON"), (b"\xff", "not JSON")]
)
def test_what_is_not_a_json_object_is_refused(raw, words):
    with pytest.raises(RomergoError, match=words):
        json_shape.loaded(raw, "x")


def test_a_tally_refuses_the_first_one_past_its_limit():
    tally = Tally()
    tally.add("scenes", MAX_SCENES)
    with pytest.raises(RomergoError, match="at most 10,000 scenes"):
        tally.add("scenes")


def test_text_files_are_refused_past_their_number_of_lines():
    check_text_lines("\n" * (MAX_TEXT_LINES - 1))
    with pytest.raises(RomergoError, match="at most 1,000,000"):
        check_text_lines("\n" * MAX_TEXT_LINES)


def test_a_member_is_cut_at_its_cap_whatever_it_declares():
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("story.json", b"x" * 100_000)
    with zipped.opened(out.getvalue()) as archive:
        info = archive.getinfo("story.json")
        assert zipped.member(archive, info, 100_000) == b"x" * 100_000
        with pytest.raises(RomergoError, match="unpacks to more than 99,999 bytes"):
            zipped.member(archive, info, 99_999)
        info.file_size = 10  # what a lying directory says: read no further than it, and the checksum fails
        with pytest.raises(RomergoError, match="is damaged"):
            zipped.member(archive, info, 99_999)


def test_an_archive_of_too_many_files_is_refused_before_its_directory_is_read():
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        for n in range(zipped.MAX_MEMBERS + 1):
            archive.writestr(f"media/{n}", b"")
    with pytest.raises(RomergoError, match="more than 2,000 files"):
        zipped.opened(out.getvalue())
