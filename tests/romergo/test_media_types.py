"""Asset kinds come from the bytes: images are backgrounds, audio is music, the rest is refused."""

from __future__ import annotations

from romergo.story.media_types import guess_kind
from tests.support.story import TINY_PNG, TINY_WAV


def test_guess_kind_reads_the_content_not_the_name():
    assert guess_kind(TINY_PNG) == "background"
    assert guess_kind(TINY_WAV) == "music"
    assert guess_kind(b"OggS" + bytes(40)) == "music"
    assert guess_kind(b"<svg xmlns='http://www.w3.org/2000/svg'/>") is None
    assert guess_kind(b"") is None
