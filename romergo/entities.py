"""The stored entity types, re-exported for adapters (which never import `storage` themselves)."""

from storage.access.records import User
from storage.tables import (
    Asset,
    Chapter,
    Character,
    Choice,
    DialogueLine,
    Project,
    Revision,
    Scene,
    StoryVariable,
)

__all__ = [
    "Asset",
    "Chapter",
    "Character",
    "Choice",
    "DialogueLine",
    "Project",
    "Revision",
    "Scene",
    "StoryVariable",
    "User",
]
