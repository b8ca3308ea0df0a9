"""Finding imitations of the envelope's markers, however they are spelt.

Data may try to close the envelope with a marker a model reads as ours but a plain search misses:
other hyphens (U+2010, U+2011, U+2212), an underscore or a space, full-width or Cyrillic letters,
invisible characters in between. So markers are looked for in a *skeleton* of the text (UTS #39
idea): every character NFKC-normalised and case-folded, look-alikes mapped to the ASCII character
they imitate (Unicode's confusables data, from `confusable_homoglyphs`), invisible format
characters dropped. Each skeleton character remembers where it came from, so a match is escaped
in the original text, which otherwise stays exact.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from functools import cache

from confusable_homoglyphs.confusables import confusables_data

SEPARATOR = "-"
"""What every dash, underscore, dot or space becomes in the skeleton."""

MARKER_TEXT = "untrusted-data"
_MARKER = re.compile(r"untrusted-{0,3}data")
_SEPARATORS = frozenset("-_. ")
_ASCII_SEPARATORS = str.maketrans(dict.fromkeys("_. ", SEPARATOR))


def find_markers(text: str) -> list[tuple[int, int]]:
    """The (start, end) spans of `text` whose skeleton reads `untrusted-data` (0-3 separators)."""
    skeleton, origin = _skeleton(text)
    return [(origin[found.start()], origin[found.end() - 1] + 1) for found in _MARKER.finditer(skeleton)]


def escape_markers(text: str, show: Callable[[str], str]) -> str:
    """Each marker imitation with its separators and non-ASCII letters shown by `show`.

    `untrusted-data` stays readable as `untrusted\\u{2d}data`, but no longer spells the marker.
    When there is no separator to show (`untrusteddata`), the `d` of `data` is shown instead.
    """
    for start, end in reversed(find_markers(text)):
        text = text[:start] + _shown_span(text[start:end], show) + text[end:]
    return text


def _shown_span(span: str, show: Callable[[str], str]) -> str:
    shown = [show(char) if _breaks_marker(char) else char for char in span]
    if shown == list(span):  # all plain letters: break it at the start of "data"
        at = span.lower().rindex("data")
        shown[at] = show(span[at])
    return "".join(shown)


def _breaks_marker(char: str) -> bool:
    return not (char.isascii() and char.isalpha())


def _skeleton(text: str) -> tuple[str, list[int]]:
    if text.isascii():
        # The common case, and a long one (a page of a large story): ASCII has no look-alikes and
        # nothing invisible, so the skeleton is the text lower-cased with separators made one.
        return text.lower().translate(_ASCII_SEPARATORS), list(range(len(text)))
    letters: list[str] = []
    origin: list[int] = []
    for index, char in enumerate(text):
        for mapped in _skeleton_of(char):
            letters.append(mapped)
            origin.append(index)
    return "".join(letters), origin


@cache
def _skeleton_of(char: str) -> str:
    if unicodedata.category(char) == "Cf":  # zero-width, bidi and tag characters: invisible
        return ""
    folded = unicodedata.normalize("NFKC", char).casefold()
    return "".join(_imitated().get(part) or _plain(part) or part for part in folded)


@cache
def _imitated() -> dict[str, str]:
    """Look-alike -> the marker's ASCII letter or separator it imitates.

    Only the marker's own characters matter for finding it, which keeps this map small and
    quick to build (the whole confusables table would take a second on the first tool call).
    """
    imitated: dict[str, str] = {}
    for plain in sorted(set(MARKER_TEXT)):
        for spelling in (plain, plain.upper()):
            for entry in confusables_data.get(spelling, []):
                lookalike = entry["c"].strip("\u200e")
                if len(lookalike) == 1 and _plain(lookalike) is None:
                    imitated.setdefault(lookalike, SEPARATOR if plain == "-" else plain)
    imitated["\u2212"] = SEPARATOR  # the minus sign: a dash to a reader, not to Unicode's categories
    return imitated


def _plain(char: str) -> str | None:
    char = char.strip("\u200e")
    if len(char) != 1:
        return None
    if char in _SEPARATORS or unicodedata.category(char) in ("Pd", "Zs"):
        return SEPARATOR
    if char.isascii() and char.isalnum():
        return char.lower()
    return None
