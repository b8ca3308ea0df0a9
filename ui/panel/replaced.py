"""How a tool call's card flags a write that replaced a newer change: one the author (or another
agent) made after the agent last read that entity, which the agent's write, not based on a
revision, took away. The history keeps both; the flag tells the author where to look."""

from __future__ import annotations

from romergo.channels.events import ReplacedNewerChange

ENTITY_WORDS = {"dialogue_line": "line", "scene": "scene", "chapter": "chapter", "character": "character"}


def replaced_words(replaced: list[ReplacedNewerChange]) -> str:
    """ " · replaced a newer change by you (line text)", one part per change; "" for none."""
    return "".join(
        f" · replaced a newer change by {_who(change.by)} ({_what(change)})" for change in replaced
    )


def _who(by: str) -> str:
    return "you" if by == "author" else "another agent"


def _what(change: ReplacedNewerChange) -> str:
    # A choice's field is named "choices[<id>].label": the author knows it as the scene's choices.
    fields = dict.fromkeys(
        name.split("[", 1)[0].replace("_id", "").replace("_", " ") for name in change.fields
    )
    entity = ENTITY_WORDS.get(change.entity_type, change.entity_type.replace("_", " "))
    return f"{entity} {', '.join(fields)}" if fields else entity
