"""The story service: one object adapters call for every read and change of a story.

Each concern lives in its own module; this class only puts them together.
"""

from __future__ import annotations

from romergo.story.assets import AssetOps
from romergo.story.chapters import ChapterOps
from romergo.story.characters import CharacterOps
from romergo.story.lines import LineOps
from romergo.story.projects import ProjectOps
from romergo.story.scenes import SceneOps


class StoryService(ProjectOps, ChapterOps, SceneOps, LineOps, CharacterOps, AssetOps):
    pass
