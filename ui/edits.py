"""Ctrl+Z / Ctrl+Shift+Z (and Ctrl+Y): undo and redo the author's own changes made in this tab.

Every change a page makes goes through `ui.actions.act`, which notes the writes it made here
(`EditHistory.record`). Ctrl+Z takes the newest back with the same machinery as "Undo this
command" (`UndoService`, a new revision set attributed to the author); Ctrl+Shift+Z takes that
undo back. A change someone else made since (another tab, an agent) stops the undo with a message
rather than overwriting it. Inside a text field the keys stay the browser's own text undo.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from nicegui import ui
from nicegui.events import GenericEventArguments

from romergo.common.errors import RomergoError
from romergo.story import UndoOutcome

if TYPE_CHECKING:  # the context holds the tab's EditHistory
    from ui.context import PageContext

WHO = {"user": "you (elsewhere)", "agent": "an agent", "system": "Romergo"}


@dataclass
class EditHistory:
    """The tab's own writes (batch ids), newest last, and the undos that can be redone."""

    done: list[str] = field(default_factory=list)
    undone: list[str] = field(default_factory=list)
    busy: asyncio.Lock = field(default_factory=asyncio.Lock, repr=False)
    """One undo or redo at a time: a quick second press waits for the first to land."""

    def record(self, batches: list[str]) -> None:
        if batches:
            self.done.extend(batches)
            self.undone.clear()


EVENT = "romergo_edit_key"
SCRIPT = """
<script>
(() => {
  if (window.romergoEditKeys) return;
  window.romergoEditKeys = true;
  const fields = ["INPUT", "TEXTAREA", "SELECT"];
  const inField = (el) => el && (el.isContentEditable || fields.includes(el.tagName));
  document.addEventListener("keydown", (event) => {
    if (!(event.ctrlKey || event.metaKey) || event.altKey || event.repeat || inField(event.target)) return;
    const key = event.key.toLowerCase();
    if (key !== "z" && key !== "y") return;
    // The browser's own undo would re-type into the last edited field: the story's undo replaces it.
    event.preventDefault();
    emitEvent("__EVENT__", { redo: key === "y" || event.shiftKey });
  }, true);
})();
</script>
""".replace("__EVENT__", EVENT)


def install_edit_keys(ctx: PageContext) -> None:
    """Listen for the undo and redo keys in this tab (outside text fields, where they stay the
    browser's text undo)."""

    async def on_key(event: GenericEventArguments) -> None:
        redo = isinstance(event.args, dict) and event.args.get("redo") is True
        async with ctx.edits.busy:
            await (redo_last(ctx) if redo else undo_last(ctx))

    ui.add_body_html(SCRIPT)
    ui.on(EVENT, on_key)


async def undo_last(ctx: PageContext) -> None:
    await _step(ctx, ctx.edits.done, ctx.edits.undone, "Undone.", "Nothing of yours to undo in this tab.")


async def redo_last(ctx: PageContext) -> None:
    await _step(ctx, ctx.edits.undone, ctx.edits.done, "Redone.", "Nothing to redo.")


async def _step(ctx: PageContext, source: list[str], target: list[str], done: str, empty: str) -> None:
    """Take back the newest batch of `source`; its undo goes onto `target` (so it can be taken back)."""
    if not source:
        ui.notify(empty, type="info")
        return
    outcome = await _take_back(ctx, source[-1])
    if outcome is not None and outcome.batch_id:
        source.pop()
        target.append(outcome.batch_id)
        ui.notify(done, type="info")


async def _take_back(ctx: PageContext, batch_id: str) -> UndoOutcome | None:
    if not await ctx.still_signed_in():
        return None
    try:
        outcome = await ctx.services.undo.undo(ctx.actor, f"batch:{batch_id}")
    except RomergoError as error:
        ui.notify(error.message, type="warning")
        return None
    if outcome.conflicts:
        first = outcome.conflicts[0]
        who = WHO.get(first.actor_type, first.actor_type)
        ui.notify(
            f"Not undone: “{first.title}” was changed since by {who}.",
            type="warning",
            multi_line=True,
        )
        return None
    return outcome
