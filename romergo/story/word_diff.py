"""Word-level differences between two texts, correct for any script.

Text is cut into user-perceived characters first (extended grapheme clusters, via `regex`'s `\\X`),
so a Devanagari consonant keeps its vowel signs and virama, and an emoji ZWJ family stays one
character. Clusters then join into tokens: runs of letters, marks and digits form a word (an
apostrophe inside a word belongs to it); scripts written without spaces (Chinese, Japanese, Thai,
Lao, Khmer, Myanmar) count each character as a word, since no dictionary is consulted; a run of
spaces is one token; any other character (punctuation, emoji) is a token of its own. The token
sequences are compared with difflib, and neighbouring pieces of the same kind are joined.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Literal

import regex

SegmentKind = Literal["same", "inserted", "deleted"]

_CLUSTER = regex.compile(r"\X")
_UNSPACED = regex.compile(
    r"[\p{Han}\p{Hiragana}\p{Katakana}\p{Thai}\p{Lao}\p{Khmer}\p{Myanmar}\p{Tibetan}\p{Bopomofo}]"
)
_WORDLIKE = regex.compile(r"[\p{L}\p{M}\p{N}_]")
_JOINERS = frozenset("'’")


@dataclass(frozen=True)
class Segment:
    kind: SegmentKind
    text: str


def word_diff(before: str, after: str) -> list[Segment]:
    """The segments that turn `before` into `after`; joining the non-inserted ones gives `before`."""
    old, new = tokens(before), tokens(after)
    segments: list[Segment] = []
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            _append(segments, "same", old[i1:i2])
            continue
        _append(segments, "deleted", old[i1:i2])
        _append(segments, "inserted", new[j1:j2])
    return segments


def tokens(text: str) -> list[str]:
    """`text` cut into words, spaces and single other characters, never inside a grapheme cluster."""
    found: list[str] = []
    clusters = _CLUSTER.findall(text)
    for index, cluster in enumerate(clusters):
        kind = _kind(cluster, clusters, index)
        if found and kind in ("word", "space") and _kind_of_token(found[-1]) == kind:
            found[-1] += cluster
        else:
            found.append(cluster)
    return found


# ---- helpers -------------------------------------------------------------------------------------


def _kind(cluster: str, clusters: list[str], index: int) -> str:
    if cluster[0] in _JOINERS and _between_words(clusters, index):
        return "word"
    return _kind_of_cluster(cluster)


def _kind_of_cluster(cluster: str) -> str:
    first = cluster[0]
    if first.isspace():
        return "space"
    if _UNSPACED.match(first):
        return "single"
    if _WORDLIKE.match(first):
        return "word"
    return "single"


def _kind_of_token(token: str) -> str:
    """A token's kind as a whole: a word may hold an apostrophe, but never starts with one."""
    return _kind_of_cluster(_CLUSTER.match(token).group())  # type: ignore[union-attr]


def _between_words(clusters: list[str], index: int) -> bool:
    if index == 0 or index + 1 >= len(clusters):
        return False
    return _kind_of_cluster(clusters[index - 1]) == "word" and _kind_of_cluster(clusters[index + 1]) == "word"


def _append(segments: list[Segment], kind: SegmentKind, pieces: list[str]) -> None:
    text = "".join(pieces)
    if not text:
        return
    if segments and segments[-1].kind == kind:
        segments[-1] = Segment(kind, segments[-1].text + text)
    else:
        segments.append(Segment(kind, text))
