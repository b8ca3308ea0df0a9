"""How Twine's story formats navigate: the links and macros of Harlowe 3, SugarCube 2, Chapbook
and Snowman that lead to another passage, found in one line of passage text.

Every format has Twine's `[[links]]`. Beyond them each has its own: Harlowe `(link-goto:)`,
`(link:)[(go-to:)]` and `(go-to:)`; SugarCube `<<link>>`, `<<button>>` and `<<goto>>` (and setter
links, `[[label|target][$setter]]`); Chapbook `{link to}`; Snowman `<a data-passage>`. A story
whose format is not named is read with all of them. A `(go-to:)` or `<<goto>>` moves on without
the player choosing: the importer makes it the scene's "Continue" choice.

Every pattern reads a quoted string as a run of anything but its quote and a newline, a link
inside a macro as a run of anything but brackets, and never nests a repeat in a repeat: each run
stops where the next construct could begin, so a line is read in one pass however it is made.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

StoryFormat = Literal["harlowe", "sugarcube", "chapbook", "snowman"]
FORMAT_NAMES: dict[str, StoryFormat] = {
    "harlowe": "harlowe",
    "sugarcube": "sugarcube",
    "chapbook": "chapbook",
    "snowman": "snowman",
}
CONTINUE = "Continue"

_TEXT = r"""(?:"[^"\n]*"|'[^'\n]*')"""
_LINK_INSIDE = r"\[\[([^\[\]\n]*)\]\]"
_CLOSED = r"(?:\s*<</\1>>)?"
"""SugarCube's `<<link>>` and `<<button>>` hold what they run; one holding nothing may be closed."""


@dataclass(frozen=True)
class Navigation:
    start: int
    end: int
    label: str
    """What the player clicks; `CONTINUE` for a move that asks nothing."""
    target: str
    shown: str
    """What stays of it in the line's text (a link's label; nothing for a move)."""
    automatic: bool = False
    setter: str | None = None


@dataclass(frozen=True)
class _Construct:
    pattern: re.Pattern[str]
    read: Callable[[re.Match[str]], Navigation]


def story_format_of(name: str | None) -> StoryFormat | None:
    """The format a StoryData `format` or a `<tw-storydata format>` names, if it is one read here."""
    return FORMAT_NAMES.get((name or "").strip().casefold().replace(" ", ""))


def navigations(raw: str, story_format: StoryFormat | None) -> list[Navigation]:
    """The line's ways to another passage, left to right. Where two overlap the one that begins
    first wins (a macro over the link or move inside it); of two beginning together, the larger
    construct (listed first)."""
    constructs = _constructs(story_format)
    candidates = [
        (match.start(), rank, construct.read(match))
        for rank, construct in enumerate(constructs)
        for match in construct.pattern.finditer(raw)
    ]
    candidates += [
        (start, len(constructs), _bracket_link(start, end, inner, story_format))
        for start, end, inner in bracket_links(raw)
    ]
    found: list[Navigation] = []
    reached = 0
    for start, _, navigation in sorted(candidates, key=lambda candidate: candidate[:2]):
        if start >= reached:
            found.append(navigation)
            reached = navigation.end
    return found


def with_navigations(raw: str, found: list[Navigation], *, shown: bool = True) -> str:
    """The line as the player reads it: each navigation replaced by what it shows (or by nothing,
    `shown=False`: what the line says besides its navigation)."""
    parts: list[str] = []
    at = 0
    for navigation in found:
        parts += [raw[at : navigation.start], navigation.shown if shown else ""]
        at = navigation.end
    parts.append(raw[at:])
    return "".join(parts)


def bracket_links(raw: str) -> list[tuple[int, int, str]]:
    """The `[[…]]` links of a line as (start, end, what is inside): what the pattern
    `\\[\\[(.+?)\\]\\](?!\\])` finds, in one pass (the pattern retried the rest of the line from
    each unclosed `[[`, and a line of them took minutes)."""
    found: list[tuple[int, int, str]] = []
    start = raw.find("[[")
    while start != -1:
        close = raw.find("]]", start + 3)
        if close == -1:
            break
        while raw.startswith("]", close + 2):  # `[[a]]]` links to "a]"
            close += 1
        found.append((start, close + 2, raw[start + 2 : close]))
        start = raw.find("[[", close + 2)
    return found


def with_links(raw: str, links: list[tuple[int, int, str]], shown: Callable[[str], str]) -> str:
    """The line with each `[[link]]` replaced by `shown(what is inside)`."""
    parts: list[str] = []
    at = 0
    for start, end, inner in links:
        parts += [raw[at:start], shown(inner)]
        at = end
    parts.append(raw[at:])
    return "".join(parts)


def parse_link(inner: str) -> tuple[str, str]:
    """(label, target) of `[[inner]]`: `label->target`, `target<-label`, `label|target` or `target`."""
    if "->" in inner:
        label, _, target = inner.rpartition("->")
    elif "<-" in inner:
        target, _, label = inner.partition("<-")
    elif "|" in inner:
        label, _, target = inner.rpartition("|")
    else:
        label = target = inner
    return label.strip() or target.strip(), target.strip()


def _bracket_link(start: int, end: int, inner: str, story_format: StoryFormat | None) -> Navigation:
    setter = None
    if story_format in ("sugarcube", None) and "][" in inner:
        inner, _, setter = inner.partition("][")
    label, target = parse_link(inner)
    return Navigation(start, end, label, target, label, setter=setter)


def _unquoted(text: str) -> str:
    return text[1:-1].strip()


def _link(label: int, target: int) -> Callable[[re.Match[str]], Navigation]:
    def read(match: re.Match[str]) -> Navigation:
        target_text = _unquoted(match.group(target))
        label_text = _unquoted(match.group(label)) if match.group(label) else target_text
        return Navigation(match.start(), match.end(), label_text or target_text, target_text, label_text)

    return read


def _link_goto(match: re.Match[str]) -> Navigation:
    """`(link-goto: "label", "target")`, or `(link-goto: "target")` shown as its target."""
    if match.group(2) is None:
        return _link(1, 1)(match)
    return _link(1, 2)(match)


def _move(match: re.Match[str]) -> Navigation:
    """A move with no choice: its target quoted (group 1) or as a `[[link]]` (group 2)."""
    quoted = match.group(1)
    target = _unquoted(quoted) if quoted else parse_link(match.group(2))[1]
    return Navigation(match.start(), match.end(), CONTINUE, target, "", automatic=True)


def _macro_link(match: re.Match[str]) -> Navigation:
    label, target = parse_link(match.group(2))
    return Navigation(match.start(), match.end(), label, target, label)


def _html_link(match: re.Match[str]) -> Navigation:
    target = _unquoted(match.group(1))
    label = match.group(2).strip() or target
    return Navigation(match.start(), match.end(), label, target, label)


def _chapbook_link(match: re.Match[str]) -> Navigation:
    """`{link to: 'target', label: 'label'}`: the target first, the label after it."""
    target = _unquoted(match.group(1))
    label = _unquoted(match.group(2)) if match.group(2) else target
    return Navigation(match.start(), match.end(), label or target, target, label or target)


_HARLOWE = (
    _Construct(
        re.compile(rf"\(link:\s*({_TEXT})\s*\)\[\s*\(go-?to:\s*({_TEXT})\s*\)\s*\]", re.I), _link(1, 2)
    ),
    _Construct(
        re.compile(rf"\(link-(?:reveal-)?go-?to:\s*({_TEXT})\s*(?:,\s*({_TEXT})\s*)?\)", re.I), _link_goto
    ),
    _Construct(re.compile(rf"\(go-?to:\s*({_TEXT})\s*\)()", re.I), _move),
)
_SUGARCUBE = (
    _Construct(
        re.compile(rf"<<(link|button)\s+({_TEXT})\s*>>\s*<<goto\s+({_TEXT})\s*>>\s*<</\1>>"),
        _link(2, 3),
    ),
    _Construct(re.compile(rf"<<(link|button)\s+({_TEXT})\s+({_TEXT})\s*>>{_CLOSED}"), _link(2, 3)),
    _Construct(re.compile(rf"<<(link|button)\s+{_LINK_INSIDE}\s*>>{_CLOSED}"), _macro_link),
    _Construct(re.compile(rf"<<goto\s+(?:({_TEXT})|{_LINK_INSIDE})\s*>>"), _move),
)
_CHAPBOOK = (
    _Construct(re.compile(rf"\{{link to:?\s*({_TEXT})\s*(?:,\s*label:\s*({_TEXT})\s*)?\}}"), _chapbook_link),
)
_SNOWMAN = (
    _Construct(re.compile(rf"<a\s[^<>]*?data-passage=({_TEXT})[^<>]*>([^<]*)</a>", re.I), _html_link),
)
_BY_FORMAT: dict[StoryFormat, tuple[_Construct, ...]] = {
    "harlowe": _HARLOWE,
    "sugarcube": _SUGARCUBE,
    "chapbook": _CHAPBOOK,
    "snowman": _SNOWMAN,
}


def _constructs(story_format: StoryFormat | None) -> tuple[_Construct, ...]:
    if story_format is None:
        return _HARLOWE + _SUGARCUBE + _CHAPBOOK + _SNOWMAN
    return _BY_FORMAT[story_format]
