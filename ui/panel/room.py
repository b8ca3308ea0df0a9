"""The room's dialogs: "Invite your agent" (settings, then the code) and "Channel settings"
(settings, the agents in the room with "Remove", a new code, the end), and the room in words.

The reach is written in chapter numbers in story order, the same words the agent gets
(`romergo.channels.reach`), so owner and agent read the same description of the room.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from nicegui import ui

from romergo.channels import ChannelView, MemberView
from romergo.channels.reach import chapters_words, describe_reach
from romergo.channels.vocabulary import REMOVED_BY_OWNER
from romergo.common.errors import RomergoError
from ui.actions import act
from ui.components.dialogs import confirm
from ui.context import PageContext
from ui.panel.invite import ChapterChoice, RoomSettings, code_view, settings_form

if TYPE_CHECKING:
    from ui.panel.panel import AgentPanel


async def reach_words(ctx: PageContext, channel: ChannelView, *, rights: bool = True) -> str:
    """ "Chapters 2–3, read + edit + media, confirm publish and delete" for the panel's header
    (`rights=False`: the chapters only, for the start prompt)."""
    try:
        order = await ctx.services.reads.chapter_ids(ctx.actor, channel.project_id)
    except RomergoError:
        order = []
    if not rights:
        return chapters_words(channel.scope, order)
    return describe_reach(channel.scope, order, channel.permissions, channel.confirmation_mode)


async def open_invite(panel: AgentPanel) -> None:
    ctx, project_id = panel.ctx, panel.project_id
    if project_id is None:
        return
    chapters = await _chapters(ctx, project_id)
    with panel.host, ui.dialog() as dialog, ui.card().classes("w-[32rem] max-w-full gap-2"):
        ui.label("Invite your agent").classes("text-h6")
        content = ui.column().classes("w-full gap-2")
        with content:
            read = settings_form(chapters)

            async def create() -> None:
                wanted = read()
                outcome = await act(
                    ctx,
                    lambda: ctx.services.channels.owner.create_channel(
                        ctx.user.id, project_id, wanted.permissions, wanted.confirmation_mode, wanted.scope
                    ),
                )
                if outcome.value is None:
                    return
                reach = await reach_words(ctx, outcome.value, rights=False)
                content.clear()
                with content:
                    code_view(
                        outcome.value.code or "", ctx.services.settings.mcp_url, panel.demo_starter(), reach
                    )
                    ui.button("Done", on_click=dialog.close).props("flat")
                await panel.load()

            with ui.row().classes("w-full justify-end gap-2"):
                ui.button("Cancel", on_click=dialog.close).props("flat")
                ui.button("Create channel", on_click=create).props("unelevated color=primary")
    dialog.open()


async def open_settings(panel: AgentPanel) -> None:
    ctx = panel.ctx
    if panel.channel is None:
        return
    try:  # fresh: the members who joined since the panel read the channel
        channel = await ctx.services.channels.owner.get_channel(ctx.user.id, panel.channel.channel_id)
    except RomergoError:
        return
    chapters = await _chapters(ctx, channel.project_id)
    current = RoomSettings(dict(channel.permissions), channel.confirmation_mode, channel.scope)
    with panel.host, ui.dialog() as dialog, ui.card().classes("w-[32rem] max-w-full gap-2"):
        ui.label("Channel settings").classes("text-h6")
        content = ui.column().classes("w-full gap-2")
        with content:
            read = settings_form(chapters, current)
            _members(panel, channel)

            async def save() -> None:
                wanted = read()
                outcome = await act(
                    ctx,
                    lambda: ctx.services.channels.owner.update_settings(
                        ctx.user.id,
                        channel.channel_id,
                        wanted.permissions,
                        wanted.confirmation_mode,
                        wanted.scope,
                    ),
                )
                if outcome.ok:
                    ui.notify("Settings saved: they apply to the agent's next call.", type="positive")
                    dialog.close()

            async def new_code() -> None:
                outcome = await act(
                    ctx, lambda: ctx.services.channels.owner.rotate_code(ctx.user.id, channel.channel_id)
                )
                if outcome.value is not None:
                    reach = await reach_words(ctx, channel, rights=False)
                    content.clear()
                    with content:
                        code_view(outcome.value, ctx.services.settings.mcp_url, panel.demo_starter(), reach)
                        ui.button("Done", on_click=dialog.close).props("flat")

            async def end() -> None:
                sure = await confirm(
                    panel.host,
                    title="End this channel?",
                    message="Your agent stops at once; open commands are cancelled.",
                    action="End now",
                )
                if sure:
                    await act(
                        ctx, lambda: ctx.services.channels.owner.end_channel(ctx.user.id, channel.channel_id)
                    )
                    dialog.close()

            with ui.row().classes("w-full justify-between gap-2"):
                with ui.row().classes("gap-1"):
                    ui.button("New code", on_click=new_code).props("flat")
                    ui.button("End channel", on_click=end).props("flat color=negative")
                ui.button("Save", on_click=save).props("unelevated color=primary")
    dialog.open()


def _members(panel: AgentPanel, channel: ChannelView) -> None:
    """The agents in the room, each with "Remove" (the others stay; it needs a new code to return)."""
    inside = [member for member in channel.members if member.left_reason not in REMOVED_BY_OWNER]
    if not inside:
        return
    ui.label("Agents in this room").classes("text-subtitle2")
    with ui.column().classes("w-full gap-1").props('data-testid="room-members"'):
        for member in inside:
            with ui.row().classes("w-full items-center justify-between no-wrap") as row:
                ui.label(member.agent_name).classes("text-body2")
                ui.button("Remove", on_click=lambda m=member, r=row: _remove(panel, channel, m, r)).props(
                    f'flat dense color=negative aria-label="Remove {member.agent_name}"'
                )


async def _remove(panel: AgentPanel, channel: ChannelView, member: MemberView, row: ui.row) -> None:
    ctx = panel.ctx
    sure = await confirm(
        panel.host,
        title=f"Remove {member.agent_name}?",
        message="It stops at once and cannot rejoin with the current code; other agents stay.",
        action="Remove",
    )
    if sure:
        outcome = await act(
            ctx,
            lambda: ctx.services.channels.owner.remove_member(
                ctx.user.id, channel.channel_id, member.client_id
            ),
        )
        if outcome.ok:
            row.delete()
            ui.notify(f"{member.agent_name} was removed from the channel.", type="positive")


async def _chapters(ctx: PageContext, project_id: str) -> list[ChapterChoice]:
    try:
        outline = await ctx.services.reads.outline(ctx.actor, project_id)
    except RomergoError:
        return []
    return [ChapterChoice(entry.chapter.id, entry.chapter.title) for entry in outline.chapters]
