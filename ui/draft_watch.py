"""An open draft says at once that its entity changed since it opened, and who changed it.

Every form and dialog that edits an entity remembers the revision it opened at (ui/drafts.py's
`Opened`). While it is open it listens to its project's changes on the bus (ui/live.py), to those
about its entity only (a wake-up relayed from another process names nothing, so it counts too),
and asks the history who made the entity's newest change: when that is newer than the draft, the
form says so ("Changed since you opened it, by your agent “Scribe”, command #4. Save merges what
you changed."). It asks once as it opens, too: the page may not have shown a change yet.

A dialog shows this with `change_notice`. The line drafts, which a redraw of the dialogue rebuilds,
keep who changed their line themselves (`watch_draft`) and show it with `ChangeNotice`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from nicegui import ui

from romergo.common.bus import project_topic
from romergo.common.errors import RomergoError
from romergo.story import StoryChanged
from ui.components.conflict_view import who_changed
from ui.context import PageContext
from ui.live import LiveTopic, watch

NOTICE = "Changed since you opened it, by {who}. Save merges what you changed."


@dataclass(frozen=True)
class Edited:
    """The entity a draft edits (its type as revisions name it: "scene", "dialogue_line" …)."""

    project_id: str
    entity_type: str
    entity_id: str


class ChangeNotice(ui.label):
    """Where a form says that its entity changed since it opened: a status line, empty until then
    (a form puts it where an empty line takes no room: under its title, with no gap)."""

    def __init__(self, who: str | None = None) -> None:
        super().__init__()
        self.props('role="status" data-testid="draft-changed"').classes("text-caption text-orange-10")
        if who is not None:
            self.say(who)

    def say(self, who: str) -> None:
        self.set_text(NOTICE.format(who=who))


def change_notice(ctx: PageContext, edited: Edited, revision: int) -> ChangeNotice:
    """The notice of a form opened on `revision` of `edited`, made where the caller stands; it
    watches as long as it is on the page (a dialog's notice goes with the dialog)."""
    notice = ChangeNotice()
    watch_draft(ctx, edited, revision, notice.say)
    return notice


def watch_draft(ctx: PageContext, edited: Edited, revision: int, changed: Callable[[str], None]) -> LiveTopic:
    """Call `changed(who)` whenever `edited` is found changed since `revision` (who made its newest
    change), for as long as the returned element, made where the caller stands, is on the page."""

    async def look() -> None:
        try:
            change = await ctx.services.history.last_change(
                ctx.actor, edited.project_id, edited.entity_type, edited.entity_id
            )
        except RomergoError:
            return  # the project is gone: the page itself says so
        if change is not None and change.revision > revision:
            changed(who_changed(ctx, change, ago=False))

    watcher = watch(ctx, project_topic(edited.project_id), look, lambda event: _about(edited, event))
    watcher.wake()
    return watcher


def _about(edited: Edited, event: Any) -> bool:
    if not isinstance(event, StoryChanged):
        return True  # relayed from another process, or a wake-up of every page: it names nothing
    return any(
        change.entity_type == edited.entity_type and change.entity_id == edited.entity_id
        for change in event.changes
    )
