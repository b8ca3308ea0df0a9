"""One chapter with its scenes in order, as `romergo_get_chapter` shows it: the story ledger's
`chapter` read (one snapshot, prebuilt statements on the driver)."""

from __future__ import annotations

from romergo.common.actors import Actor
from romergo.common.errors import not_found
from romergo.story.kinds import LABELS
from romergo.story.ledger import StoryLedger
from romergo.story.read_marks import note_read
from romergo.story.views import ChapterOutline


async def read_chapter_outline(ledger: StoryLedger, actor: Actor, chapter_id: str) -> ChapterOutline:
    """The chapter `chapter_id` if the actor may see it (else `not_found`), in one snapshot."""
    found = await ledger.chapter(actor.user_id, chapter_id)
    if found is None:
        raise not_found(LABELS["chapter"], str(chapter_id))
    note_read(found.revisions)  # a tool call's agent saw them
    return ChapterOutline(found.chapter, found.scenes, dict(found.revisions))
