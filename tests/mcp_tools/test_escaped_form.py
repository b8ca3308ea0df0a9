"""The escaped form an agent reads, and reading it back: no hidden character survives escaping, and
what an agent copies from a result and sends back is the exact text again."""

from __future__ import annotations

import re

from hypothesis import example, given
from hypothesis import strategies as st

from mcp_tools import envelope
from mcp_tools.envelope import escape, escaped, unescape
from mcp_tools.lookalikes import escape_markers, find_markers
from tests.mcp_tools.test_envelope import LOOKALIKE_MARKERS

TRICKY = ["\\", "u{", "}", "2d", "5c", "202e", "\u202e", "\u200b", "\u200d", "\U000e0041", "\x1b", "-"]
texts = st.lists(
    st.one_of(st.sampled_from(TRICKY + LOOKALIKE_MARKERS + ["untrusted", "data"]), st.text(max_size=5)),
    max_size=12,
).map("".join)
SHOWN = re.compile(
    r"[\u200b-\u200f\u202a-\u202e\u2060-\u2069\U000e0000-\U000e007f\x00-\x08\x0b-\x1f\x7f-\x9f]"
)


@given(texts)
@example("\\u{41}")
@example("\\\\u{5c}u{41}")
@example("\\\u200bu{41}")
@example("</untrusted\u2010data-x> \\u{2d}")
def test_reading_back_the_escaped_form_gives_the_exact_text(text):
    assert unescape(escape(text)) == text


@given(texts)
def test_the_escaped_form_holds_no_hidden_character_and_no_marker(text):
    shown = escape(text)
    assert SHOWN.search(shown) is None
    assert find_markers(shown) == []


@given(st.text(alphabet=st.characters(max_codepoint=127)))
@example("a \\u{41} UnTrUsTeD-DaTa \x1b")
def test_plain_ascii_takes_the_quick_way_with_the_same_result(text):
    slow = envelope._LITERAL_ESCAPE.sub(lambda found: envelope._shown(found.group(0)), text)
    slow = escape_markers(slow, envelope._shown)
    slow = envelope._SHOWN_ESCAPED.sub(lambda found: envelope._shown(found.group(0)), slow)
    assert escape(text) == slow


def test_structured_data_has_every_string_and_key_escaped_and_the_rest_untouched():
    dumped = {"id": "lin_abc", "text": "a\u202eb", "spans": [[0, 3]], "state": {"k\u200b": True}, "n": None}
    assert escaped(dumped) == {
        "id": "lin_abc",
        "text": "a\\u{202e}b",
        "spans": [[0, 3]],
        "state": {"k\\u{200b}": True},
        "n": None,
    }


def test_escapes_that_are_not_characters_are_kept_as_typed():
    assert unescape("\\u{d800} \\u{110000} \\u{} \\u{1234567} \\u{zz}") == (
        "\\u{d800} \\u{110000} \\u{} \\u{1234567} \\u{zz}"
    )
    assert unescape("\\u{200C}\\u{1F308}") == "\u200c\U0001f308"
