"""The stored entity types and the records the story services hand back, re-exported for adapters
(which never import `storage` themselves)."""

from storage.access.records import User
from storage.story.records import (
    AssetRecord,
    ChapterRecord,
    CharacterRecord,
    ChoiceRecord,
    LineRecord,
    ProjectRecord,
    SceneRecord,
    VariableRecord,
)
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
    "ChapterRecord",
    "Character",
    "CharacterRecord",
    "Choice",
    "ChoiceRecord",
    "DialogueLine",
    "LineRecord",
    "Project",
    "ProjectRecord",
    "Revision",
    "Scene",
    "SceneRecord",
    "StoryVariable",
    "User",
    "VariableRecord",
]
