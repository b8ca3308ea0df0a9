"""The story domain: projects → chapters → scenes with lines, choices, characters and assets."""

from romergo.story.base import EntityChange, StoryChanged
from romergo.story.check import Problem
from romergo.story.lines import UNCHANGED
from romergo.story.scenes import ChoiceSpec
from romergo.story.service import StoryService

__all__ = ["UNCHANGED", "ChoiceSpec", "EntityChange", "Problem", "StoryChanged", "StoryService"]
