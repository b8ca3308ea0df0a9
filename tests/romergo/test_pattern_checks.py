"""The checks a search pattern passes before anything compiles it: length, counted repeats, and
the pattern written out, read from its text alone."""

from __future__ import annotations

import pytest

from romergo.common.errors import RomergoError
from romergo.story.patterns import MAX_REPEAT, MAX_WRITTEN_OUT, SearchQuery, checked_query


@pytest.mark.parametrize(
    "pattern",
    [
        r"\blamp(s|light)\b",
        r"\w{3,20}",
        "(?:(?:a{100}){100})",  # written out: exactly the limit
        "(?P<word>a){10}",
        "[{5000}]",  # inside a class a brace is a character
        r"\{5000}",
        r"\p{Lu}{3}",  # a property's name in braces is no repeat
        "a{,}",
        "(?#{99999})a",  # a comment
        "[]a]{5}",
        "(?i)lamp",
    ],
)
def test_ordinary_patterns_pass(pattern: str):
    assert checked_query(SearchQuery(pattern, regex=True)).text == pattern


@pytest.mark.parametrize(
    ("pattern", "words"),
    [
        ("x{5000}", f"limited to {MAX_REPEAT:,}"),
        ("a{1001}", f"limited to {MAX_REPEAT:,}"),
        ("a{2,99999999999}", f"limited to {MAX_REPEAT:,}"),
        ("(?:(?:a{999}){999}){999}", "at least 998,001 characters"),
        ("(?:(?:a{100}){100}){150}", f"a search allows {MAX_WRITTEN_OUT:,}"),
        ("((a{50}){50}){50}", f"a search allows {MAX_WRITTEN_OUT:,}"),
        ("(?:(?:a{100}){100})b", "at least 10,001"),  # one more than the limit
        ("a{1000}" * 11, f"a search allows {MAX_WRITTEN_OUT:,}"),  # side by side, they add up
        ("(?x)a {3}", "Verbose mode"),
        ("(?i-x:a)", "Verbose mode"),
        ("x" * 501, "limited to 500 characters"),
        ("   ", "Type something"),
    ],
)
def test_patterns_over_a_limit_are_refused_naming_it(pattern: str, words: str):
    with pytest.raises(RomergoError) as refused:
        checked_query(SearchQuery(pattern, regex=True))
    assert refused.value.code == "invalid_argument" and words in refused.value.message


def test_a_plain_query_is_text_whatever_braces_it_holds():
    assert checked_query(SearchQuery("a{5000}")).text == "a{5000}"
