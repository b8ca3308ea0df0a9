"""Saving a draft on the revision it was opened at, so nobody's change is replaced unseen.

Every form and dialog that edits an entity remembers the entity's revision and its values when it
opened (`Opened`). Its save sends only the fields the author changed (`Opened.changes`), with that
revision (`expected_revision`): the core merges them with whatever changed since, field by field
(`romergo.story.based_on`). When the author and someone else changed the same field, nothing is
written: the conflict view (ui/components/conflict_view.py) shows both versions, and what the
author picks there (keep mine, take theirs, a merged text) is saved on the revision the conflict
reported, so a change made while they were deciding is caught the same way. While a form is
open it says at once when its entity changes, and who changed it (ui/draft_watch.py).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from nicegui import ui

from romergo.story.based_on import EditConflict, attempt
from ui.actions import act
from ui.components.conflict_view import Picked, Shown, resolve_conflict
from ui.components.dialogs import Question, ask_text
from ui.context import PageContext
from ui.draft_watch import Edited, change_notice

Write = Callable[[Mapping[str, Any], int], Awaitable[object]]
"""Writes these fields (named as the entity's snapshot names them) based on this revision."""
Settle = Callable[[Mapping[str, Any], EditConflict, Picked], dict[str, Any]]
"""The fields to send again once the author picked in the conflict view."""


@dataclass
class Opened:
    """An entity as a draft of it opened: its revision, and its values then (snapshot names)."""

    revision: int
    values: dict[str, Any] = field(default_factory=dict)

    def changes(self, now: Mapping[str, Any]) -> dict[str, Any]:
        """The fields of `now` the author changed since the draft opened."""
        return {name: value for name, value in now.items() if self.values.get(name) != value}


@dataclass(frozen=True)
class Target:
    """What a save writes to (for the conflict view's who and when, and the open form's notice)."""

    edited: Edited
    host: ui.element
    """Lives as long as the page: the conflict view is made inside it."""
    shown: Shown | None = None
    """How a field's value reads (a speaker's name for its id); default: the value itself."""
    settle: Settle | None = None
    """For conflicts inside a field the form sends whole (a choice in a scene's list): how the
    author's pick changes that field; default: `settled`."""


async def save_draft(
    ctx: PageContext,
    target: Target,
    opened: Opened,
    changes: Mapping[str, Any],
    write: Write,
    *,
    notify_errors: bool = True,
) -> str | None:
    """None when the draft is settled (written, merged, or the author took the other version);
    else why not: the refusal's message, or "" when the author went back to the draft."""
    wanted, revision = dict(changes), opened.revision
    while wanted:
        done = await act(ctx, _writing(write, wanted, revision), notify_errors=notify_errors)
        if done.error is not None:
            return done.error
        if not isinstance(done.value, EditConflict):
            return None
        conflict = done.value
        picked = await resolve_conflict(ctx, target.edited.project_id, target.host, conflict, target.shown)
        if picked is None:
            return ""
        wanted, revision = (target.settle or settled)(wanted, conflict, picked), conflict.revision
    return None


def settled(wanted: Mapping[str, Any], conflict: EditConflict, picked: Picked) -> dict[str, Any]:
    """The fields to send again after the author's pick: what they typed in the conflict view
    instead, and not the fields they left as the others made them (`conflict` is for a `Settle`
    that needs the values)."""
    fields = {**wanted, **picked.fields}
    return {name: value for name, value in fields.items() if name not in picked.dropped}


async def ask_for_based_change(
    ctx: PageContext, target: Target, question: Question, name: str, opened: Opened, write: Write
) -> bool:
    """Ask for one text (a title) opened on `opened`, and save it as a draft of the field `name`;
    a refusal shows in the dialog, which stays open, as does a change made meanwhile."""

    async def save(text: str) -> str | None:
        changes = opened.changes({name: text})
        return await save_draft(ctx, target, opened, changes, write, notify_errors=False)

    def notice() -> None:
        change_notice(ctx, target.edited, opened.revision)

    return await ask_text(target.host, question, save, value=opened.values.get(name) or "", above=notice)


def _writing(write: Write, fields: Mapping[str, Any], revision: int) -> Callable[[], Awaitable[object]]:
    return lambda: attempt(write(fields, revision))
