"""The Twee and Yarn readers find what their former backtracking patterns found, in one pass:
each rewritten reader is compared with the pattern it replaced on generated lines."""

from __future__ import annotations

import re
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from romergo.interchange import story_formats, twee, yarn, yarn_state

OLD_LINK = re.compile(r"\[\[(.+?)\]\](?!\])")
OLD_HEADER_PARTS = re.compile(
    r"^\s*(?P<name>(?:\\.|[^\\\[\]{}])*)(?:\[(?P<tags>(?:\\.|[^\\\]])*)\])?\s*(?P<meta>\{.*\})?\s*$"
)
OLD_LINE_TAGS = re.compile(r"(?:\s+#[\w:.\-]+)+\s*$")
OLD_TRAILING_IF = re.compile(r"\s*<<\s*if\s+(?P<condition>.+?)\s*>>\s*$")
OLD_SET = re.compile(r"^<<\s*set\s+\$(?P<name>\w+)\s*(?:=|to)\s*(?P<value>.+?)\s*>>$")

lines = st.text(alphabet="[]<>{}#$\\ -|:.aifst=o1", max_size=40)


@settings(max_examples=400)
@given(lines)
def test_links_are_the_ones_the_pattern_found(line):
    assert [inner for _, _, inner in story_formats.bracket_links(line)] == OLD_LINK.findall(line)
    assert story_formats.with_links(line, story_formats.bracket_links(line), str.upper) == OLD_LINK.sub(
        lambda m: m.group(1).upper(), line
    )


@settings(max_examples=400)
@given(lines)
def test_passage_headers_split_as_before(header):
    old, new = OLD_HEADER_PARTS.match(header), twee.HEADER_PARTS.match(header)
    assert (old is None) == (new is None)
    if old is not None and new is not None:
        assert old.group("name").strip() == new.group("name").strip()
        assert (old.group("tags"), old.group("meta")) == (new.group("tags"), new.group("meta"))


@settings(max_examples=400)
@given(lines)
def test_line_tags_are_cut_as_before(line):
    assert yarn._tags_cut(line) == OLD_LINE_TAGS.sub("", line)


@settings(max_examples=400)
@given(lines)
def test_trailing_conditions_split_as_before(line):
    old = OLD_TRAILING_IF.search(line)
    if old is not None and old.group("condition").strip():
        expected = (line[: old.start()].rstrip(), yarn_state.from_yarn(old.group("condition")))
        assert yarn_state.split_condition(line) == expected
    elif old is None:
        assert yarn_state.split_condition(line) == (line, None)


@settings(max_examples=400)
@given(st.text(alphabet=" $ato=1x>", max_size=30))
def test_set_lines_read_as_before(tail):
    line = "<<set " + tail
    old = OLD_SET.match(line)
    if old is not None and old.group("value").strip():
        expected = f"set {old.group('name')} = {yarn_state.from_yarn(old.group('value'))}"
        assert yarn_state.assignment(line) == expected
    elif old is None:
        assert yarn_state.assignment(line) is None


HOSTILE_NAVIGATION = {
    "link-goto": '(link-goto: "a", ',
    "link-hook": '(link: "a")[(go-to: ',
    "unclosed-text": "(go-to: 'a",
    "sugarcube-link": '<<link "a" ',
    "sugarcube-hold": '<<link "a">> <<goto ',
    "sugarcube-bracket": "<<link [[",
    "chapbook": "{link to: 'a', label: ",
    "snowman": '<a data-passage="x" ',
    "links": "[[a]]",
    "setters": "[[a][",
}


@pytest.mark.parametrize("piece", HOSTILE_NAVIGATION.values(), ids=HOSTILE_NAVIGATION.keys())
def test_a_long_line_of_one_construct_is_read_in_linear_time(piece):
    line = piece * (200_000 // len(piece))
    started = time.monotonic()
    story_formats.navigations(line, None)
    assert time.monotonic() - started < 2
