"""The word diff of dialogue: whole words marked, any script, never a grapheme cut in two."""

from __future__ import annotations

import itertools

import pytest
import regex
from hypothesis import given
from hypothesis import strategies as st

from romergo.story.word_diff import Segment, tokens, word_diff


def same(text):
    return Segment("same", text)


def inserted(text):
    return Segment("inserted", text)


def deleted(text):
    return Segment("deleted", text)


@pytest.mark.parametrize(
    ("before", "after", "segments"),
    [
        (
            "Let them see it, whoever they are.",
            "Let every ship see it.",
            [
                same("Let "),
                deleted("them"),
                inserted("every ship"),
                same(" see it"),
                deleted(", whoever they are"),
                same("."),
            ],
        ),
        # Hindi: vowel signs and viramas are combining marks; a changed word is replaced whole
        ("नमस्ते दुनिया", "नमस्ते सुंदर दुनिया", [same("नमस्ते "), inserted("सुंदर "), same("दुनिया")]),
        ("किताब पढ़ो", "किताबें पढ़ो", [deleted("किताब"), inserted("किताबें"), same(" पढ़ो")]),
        # Georgian and Cyrillic: words as in any spaced script
        (
            "გამარჯობა მსოფლიო",
            "გამარჯობა ლამაზო მსოფლიო",
            [same("გამარჯობა "), inserted("ლამაზო "), same("მსოფლიო")],
        ),
        ("Привет, мир!", "Привет, дорогой мир!", [same("Привет, "), inserted("дорогой "), same("мир!")]),
        # Chinese has no spaces: each character is a word
        ("我喜欢猫", "我很喜欢狗", [same("我"), inserted("很"), same("喜欢"), deleted("猫"), inserted("狗")]),
        # an emoji ZWJ family is one character, replaced whole
        (
            "Hi 👩‍👩‍👧 there",
            "Hi 👩‍👩‍👦 there",
            [same("Hi "), deleted("👩‍👩‍👧"), inserted("👩‍👩‍👦"), same(" there")],
        ),
        (
            "You'll wake them",
            "You will wake them",
            [deleted("You'll"), inserted("You will"), same(" wake them")],
        ),
        ("", "New words.", [inserted("New words.")]),
        ("Old words.", "", [deleted("Old words.")]),
        ("Unchanged.", "Unchanged.", [same("Unchanged.")]),
    ],
)
def test_known_pairs(before, after, segments):
    assert word_diff(before, after) == segments


@pytest.mark.parametrize(
    "text",
    ["क्षितिज पर दीपक।", "👩‍👩‍👧‍👦🏳️‍🌈 e\u0301t\u00e9", "გამარჯობა, მსოფლიო", "我喜欢猫。", "Привет, мир!"],
)
def test_tokens_never_split_a_grapheme_and_keep_every_character(text):
    cut = tokens(text)
    assert "".join(cut) == text
    clusters = regex.findall(r"\X", text)
    boundaries = {sum(len(c) for c in clusters[:i]) for i in range(len(clusters) + 1)}
    offsets = {sum(len(t) for t in cut[:i]) for i in range(len(cut) + 1)}
    assert offsets <= boundaries


def test_both_texts_come_back_from_the_segments():
    before, after = "The lamp burns low in the tower.", "A lamp burns bright in the old tower!"
    segments = word_diff(before, after)
    assert "".join(s.text for s in segments if s.kind != "inserted") == before
    assert "".join(s.text for s in segments if s.kind != "deleted") == after


@given(st.text(max_size=60), st.text(max_size=60))
def test_any_pair_of_texts_comes_back_from_its_segments(before, after):
    segments = word_diff(before, after)
    assert "".join(s.text for s in segments if s.kind != "inserted") == before
    assert "".join(s.text for s in segments if s.kind != "deleted") == after
    assert all(s.text for s in segments)
    assert all(a.kind != b.kind for a, b in itertools.pairwise(segments))
