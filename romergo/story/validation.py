"""Input rules shared by every adapter: the UI, the MCP tools and the API all get these errors."""

from __future__ import annotations

import re

from romergo.common.config import Limits
from romergo.common.errors import invalid

_COLOR = re.compile(r"^#[0-9a-fA-F]{6}$")
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
"""Unicode's control characters (category Cc: C0, DEL and C1, fixed by Unicode's stability policy)
but tab and newline. A regular expression, not a category per character: an import checks every
character of 50,000 lines."""
MAX_TAGS = 20
MAX_TAG_CHARS = 40


def title(value: object, limits: Limits, what: str = "Title") -> str:
    text = _text(value, what)
    if not text:
        raise invalid(f"{what} must not be empty.")
    if len(text) > limits.max_title_chars:
        raise invalid(f"{what} is {len(text)} characters long; the limit is {limits.max_title_chars}.")
    if "\n" in text or "\r" in text:
        raise invalid(f"{what} must be a single line.")
    return text


def line_text(value: object, limits: Limits) -> str:
    text = _text(value, "Line text")
    if not text:
        raise invalid("Line text must not be empty.")
    if len(text) > limits.max_line_chars:
        raise invalid(f"Line text is {len(text)} characters long; the limit is {limits.max_line_chars}.")
    return text


def color(value: object) -> str:
    if not isinstance(value, str) or not _COLOR.match(value.strip()):
        raise invalid('Colour must look like "#3a7bd5" (a # and six hex digits).')
    return value.strip().lower()


def tags(values: object) -> list[str]:
    if not isinstance(values, list | tuple):
        raise invalid("Tags must be a list of words.")
    cleaned: list[str] = []
    for value in values:
        tag = _text(value, "A tag").lower()
        if not tag:
            continue
        if len(tag) > MAX_TAG_CHARS:
            raise invalid(f"A tag is limited to {MAX_TAG_CHARS} characters.")
        if tag not in cleaned:
            cleaned.append(tag)
    if len(cleaned) > MAX_TAGS:
        raise invalid(f"An asset takes at most {MAX_TAGS} tags.")
    return cleaned


def position(value: object) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise invalid("Position must be a whole number.")
    if value < 0:
        raise invalid("Position must be 0 or more.")
    return value


def _text(value: object, what: str) -> str:
    if not isinstance(value, str):
        raise invalid(f"{what} must be text.")
    # Normalise line endings only; every script, ZWJ and combining mark is kept as typed.
    text = value.replace("\r\n", "\n").replace("\r", "\n").strip()
    if CONTROL.search(text):
        raise invalid(f"{what} contains control characters.")
    return text
