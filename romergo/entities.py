"""The stored entity types and the records the story services hand back, re-exported for adapters
(which never import `storage` themselves)."""

from storage.access.records import User
from storage.story.records import AssetRecord, CharacterRecord, ProjectRecord, VariableRecord
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
    "AssetRecord",
    "Chapter",
    "Character",
    "CharacterRecord",
    "Choice",
    "DialogueLine",
    "Project",
    "ProjectRecord",
    "Revision",
    "Scene",
    "StoryVariable",
    "User",
    "VariableRecord",
]
