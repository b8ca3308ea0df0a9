"""Undo this command, and its redo, from the panel: conflicts are shown and need a second yes.

The undo runs in the core (`Services.undo_command`), which also writes `command_undone` to the
channel, so every open panel of the channel turns the card to "Redo" by the event, this one too.
"""

from __future__ import annotations

from nicegui import ui

from romergo.story import Conflict
from ui.actions import act
from ui.components.dialogs import confirm
from ui.context import PageContext
from ui.panel.model import Card

WHO = {"user": "you", "agent": "an agent", "system": "Romergo"}


async def undo_command(ctx: PageContext, host: ui.element, card: Card, *, redo: bool = False) -> None:
    user_id = ctx.user.id
    done = await act(ctx, lambda: ctx.services.undo_command(user_id, card.command_id, redo=redo))
    outcome = done.value
    if outcome is None:
        return
    if outcome.reverted == 0 and outcome.conflicts:
        asked = await confirm(
            host,
            title="Undo anyway?" if not redo else "Redo anyway?",
            message=_conflict_words(outcome.conflicts),
            action="Undo anyway" if not redo else "Redo anyway",
        )
        if not asked:
            return
        done = await act(
            ctx, lambda: ctx.services.undo_command(user_id, card.command_id, force=True, redo=redo)
        )
        outcome = done.value
        if outcome is None:
            return
    for note in outcome.kept:
        ui.notify(note, type="info", multi_line=True)


def _conflict_words(conflicts: list[Conflict]) -> str:
    named = "; ".join(
        f"{c.entity_type.replace('_', ' ')} “{c.title}” by {WHO.get(c.actor_type, c.actor_type)}"
        for c in conflicts[:5]
    )
    more = f" and {len(conflicts) - 5} more" if len(conflicts) > 5 else ""
    return (
        f"Changed since this command: {named}{more}. Undo anyway puts back only what the command "
        "changed and overwrites those later edits where they touch the same fields."
    )
