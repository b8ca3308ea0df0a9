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
}


def rewrite(text: str) -> str:
    """Swap a few plain words for livelier ones and give the sentence a firmer ending."""
    if not text.strip():
        return text

    def swap(match: re.Match[str]) -> str:
        word = match.group(0)
        replacement = _SWAPS.get(word.casefold())
        if replacement is None:
            return word
        return replacement.capitalize() if word[0].isupper() else replacement

    changed = re.sub(r"[A-Za-z]+", swap, text)
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
    """The whole line with only [start, end) rewritten (offsets in code points, as Romergo sends)."""
    start = max(0, min(start, len(line)))
    end = max(start, min(end, len(line)))
    return line[:start] + rewrite(line[start:end]) + line[end:]
