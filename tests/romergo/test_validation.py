"""Text checks every write shares (romergo/story/validation.py)."""

from __future__ import annotations

import sys
import unicodedata

from romergo.story.validation import CONTROL


def test_control_characters_are_exactly_unicodes_but_tab_and_newline():
    # Every code point: the regular expression must agree with Unicode's own category, which it
    # replaced because an import checks every character of a long story.
    disagree = [
        hex(code)
        for code in range(sys.maxunicode + 1)
        if (CONTROL.search(chr(code)) is not None)
        != (unicodedata.category(chr(code)) == "Cc" and chr(code) not in "\n\t")
    ]
    assert disagree == []
