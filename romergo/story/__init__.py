"""The story domain: projects → chapters → scenes with lines, choices, characters and assets.

One small service per part of the story, each built on a shared `StoryStore` (the transaction
seam); `romergo.services.build_services` composes them.
"""

from romergo.story.assets import AssetService
from romergo.story.base import EntityChange, StoryChanged, StoryStore
from romergo.story.chapters import ChapterService
from romergo.story.characters import CharacterService
from romergo.story.check import Problem
from romergo.story.choice_lists import ChoiceSpec
from romergo.story.copies import CopyService
from romergo.story.history import HistoryFilter, HistoryReads
from romergo.story.invitations import Invitation, InvitationsService
from romergo.story.lines import UNCHANGED, LineService
from romergo.story.members import Member, MembersService
from romergo.story.projects import ProjectService
from romergo.story.publishing import PublishingService
from romergo.story.reads import StoryReads
from romergo.story.scenes import SceneService
from romergo.story.search import StorySearch
from romergo.story.undo import Conflict, UndoOutcome, UndoService

__all__ = [
    "UNCHANGED",
    "AssetService",
    "ChapterService",
    "CharacterService",
    "ChoiceSpec",
    "Conflict",
    "CopyService",
    "EntityChange",
    "HistoryFilter",
    "HistoryReads",
    "Invitation",
    "InvitationsService",
    "LineService",
    "Member",
    "MembersService",
    "Problem",
    "ProjectService",
    "PublishingService",
    "SceneService",
    "StoryChanged",
    "StoryReads",
    "StorySearch",
    "StoryStore",
    "UndoOutcome",
    "UndoService",
]
