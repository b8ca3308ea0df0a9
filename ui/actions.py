"""Running a change from a page: session check first, the service's own message on refusal.

Every mutating handler goes through `act`: the tab's session is checked before anything is
written (a session ended elsewhere stops this tab too; the websocket itself proves nothing), and a
RomergoError becomes its human message, never a traceback.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

from nicegui import ui

from romergo.common import urls
from romergo.common.errors import RomergoError
from romergo.story.base import collect_batches
from ui.context import PageContext

T = TypeVar("T")
SIGNED_OUT = "Your session has ended. Sign in again to keep editing."


@dataclass(frozen=True)
class Outcome(Generic[T]):
    value: T | None = None
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


async def act(
    ctx: PageContext, change: Callable[[], Awaitable[T]], *, notify_errors: bool = True
) -> Outcome[T]:
    """Run `change` for the signed-in author; with `notify_errors`, refusals pop up as a message."""
    if not await ctx.still_signed_in():
        ui.notify(SIGNED_OUT, type="warning")
        ui.navigate.to(urls.login(ctx.place.route))
        return Outcome(error=SIGNED_OUT)
    try:
        with collect_batches() as batches:
            value = await change()
        ctx.edits.record(batches)
    except RomergoError as error:
        if notify_errors:
            ui.notify(error.message, type="negative", multi_line=True)
        return Outcome(error=error.message)
    return Outcome(value=value)
