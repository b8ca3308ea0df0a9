"""What the owner asked for, recognised by keywords: the demo agent runs no model."""

from __future__ import annotations

import re
from enum import Enum


class Intent(Enum):
    DESCRIBE = "describe"
    MUSIC = "music"
    REWRITE = "rewrite"
    BACKGROUND = "background"
    CHECK_TRANSITIONS = "check_transitions"
    EXPLAIN = "explain"
    UNKNOWN = "unknown"


# Order matters: "explain why the music sounds wrong" is about music, "check why…" is an explanation.
_RULES: tuple[tuple[Intent, tuple[str, ...]], ...] = (
    (Intent.REWRITE, ("rewrite", "reword", "rephrase")),
    (Intent.MUSIC, ("music", "soundtrack", "song", "tune")),
    (Intent.BACKGROUND, ("background", "backdrop", "scenery")),
    (Intent.EXPLAIN, ("why", "explain")),
    (Intent.CHECK_TRANSITIONS, ("transition", "transitions", "check")),
    (Intent.DESCRIBE, ("describe", "description", "summarize", "summarise")),
)

HELP = (
    "I am Romergo's scripted demo agent (no AI model: I follow fixed rules). I can: describe the open scene, "
    "change the music of this chapter, rewrite the selected dialogue, put a different background on this "
    "scene, check the transition logic, or explain why this scene does not work as expected. "
    "Which of these would you like?"
)


def classify(text: str) -> Intent:
    words = set(re.findall(r"[a-z]+", text.casefold()))
    for intent, keywords in _RULES:
        if words & set(keywords):
            return intent
    return Intent.UNKNOWN
