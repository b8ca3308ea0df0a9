"""The story's records as the core hands them on: the pages, the tools and the API read these.

Frozen dataclasses defined in storage (which cannot import the core), named here so that an
adapter, which never imports storage, finds them in the story's own room.
"""

from storage.story.records import (
    AssetRecord,
    ChapterRecord,
    CharacterRecord,
    ChoiceRecord,
    ChoiceWithTarget,
    LineRecord,
    LineRow,
    ProjectRecord,
    SceneRecord,
    VariableRecord,
)

__all__ = [
    "AssetRecord",
    "ChapterRecord",
    "CharacterRecord",
    "ChoiceRecord",
    "ChoiceWithTarget",
    "LineRecord",
    "LineRow",
    "ProjectRecord",
    "SceneRecord",
    "VariableRecord",
]
