"""Which table holds each of the story's entity types: the core names entities by type ("scene",
"character", as `romergo.story.kinds` lists them); the tables are storage's."""

from __future__ import annotations

from typing import Any

from storage.tables import Asset, Chapter, Character, Choice, DialogueLine, Project, Scene, StoryVariable

TABLES: dict[str, type[Any]] = {
    "project": Project,
    "chapter": Chapter,
    "scene": Scene,
    "dialogue_line": DialogueLine,
    "choice": Choice,
    "character": Character,
    "asset": Asset,
    "variable": StoryVariable,
}
