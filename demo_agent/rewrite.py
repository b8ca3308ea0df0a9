"""A deterministic rewrite of selected dialogue, so the demo shows a real edit without a model.

The same input always gives the same output; the reply says it is a scripted rewrite.
"""

from __future__ import annotations

import re

_SWAPS = {
    "said": "whispered",
    "big": "vast",
    "small": "tiny",
    "old": "ancient",
    "dark": "shadowed",
    "light": "glow",
    "walk": "stride",
    "looks": "seems",
    "very": "truly",
    "good": "fine",
    "bad": "grim",
    "never": "not once",
    "quickly": "swiftly",
    "cold": "bitter",
    "sea": "restless sea",
    "beneath": "far below",
    "mentioned": "spoke of",
    "letters": "notes",
    "door": "gate",
    "night": "dark hour",
    "storm": "tempest",
    "ship": "vessel",
    "went": "slipped",
    "looked": "peered",
    "asked": "wondered",
    "help": "aid",
    "house": "dwelling",
    "town": "village",
    "money": "coin",
    "keep": "guard",
    "road": "path",
    "afraid": "uneasy",
    "happy": "glad",
    "angry": "furious",
    "fast": "swift",
    "quiet": "hushed",
    "strange": "uncanny",
}


def rewrite(text: str) -> str:
    """Swap a few plain words for livelier ones and give the sentence a firmer ending."""
    if not text.strip():
        return text

    changed = _swapped(text)
    stripped = changed.rstrip()
    trailing = changed[len(stripped) :]
    if stripped.endswith((".", ",", ";", ":")):
        stripped = stripped[:-1] + "!"
    elif not stripped.endswith(("!", "?", "…", '"', "'")):
        stripped += "!"
    if stripped == text.rstrip():
        stripped = stripped[:-1] + "…" if stripped.endswith("!") else stripped + "…"
    return stripped + trailing


def rewrite_span(line: str, start: int, end: int) -> str:
    """The whole line with the selected words rewritten (offsets in code points, as Romergo sends).

    A selection that cuts a word is widened to whole words first, so no word is split.
    """
    start = max(0, min(start, len(line)))
    end = max(start, min(end, len(line)))
    while start > 0 and line[start - 1].isalnum() and line[start].isalnum():
        start -= 1
    while end < len(line) and end > 0 and line[end - 1].isalnum() and line[end].isalnum():
        end += 1
    span = line[start:end]
    if end < len(line.rstrip()):
        # Inside the line: swap words only; with nothing to swap, a pause rather than a new ending.
        swapped = _swapped(span)
        if swapped == span:
            kept = span.rstrip()
            return line[:start] + kept + "…" + line[start + len(kept) :]
        return line[:start] + swapped + line[end:]
    return line[:start] + rewrite(span) + line[end:]


def _swapped(text: str) -> str:
    def swap(match: re.Match[str]) -> str:
        word = match.group(0)
        replacement = _SWAPS.get(word.casefold())
        if replacement is None:
            return word
        return replacement.capitalize() if word[0].isupper() else replacement

    return re.sub(r"[A-Za-z]+", swap, text)
