"""`/projects/{id}/members`: who works on the story, in which role, since when.

Every member sees the list; the owner also adds an account by its name (as editor or viewer),
changes a member's role, removes a member and hands the story over (the old owner stays on as
editor). The rules are the core's (romergo/story/members.py): a refusal shows its message and
changes nothing. Changes of members are not story revisions, so nothing else announces them: the
page reads the list again after each of its own.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from nicegui import ui
from nicegui.events import ValueChangeEventArguments

from romergo.common import urls
from romergo.story.members import Member
from romergo.story.roles import Role
from ui.actions import act
from ui.components.dialogs import confirm
from ui.components.local_time import local_time
from ui.context import PageContext
from ui.frame import Listing, ListingPage

GRANTED = [Role.EDITOR.value, Role.VIEWER.value]
"""The roles the owner gives; ownership only moves by a hand-over."""


@dataclass
class NewMember:
    username: str = ""
    role: str = Role.EDITOR.value


async def page(ctx: PageContext, project_id: str) -> None:
    # The agent panel's context has no surface of its own for this page: it is about the project.
    ctx.place.enter(urls.members(project_id), "project", project_id=project_id)
    await _MembersPage(ctx, project_id).open()


class _MembersPage(ListingPage[Member]):
    nav = "members"
    heading = "Members"

    def __init__(self, ctx: PageContext, project_id: str) -> None:
        super().__init__(ctx, project_id)
        self.new = NewMember()

    async def items(self) -> list[Member]:
        return await self.services.members.members(self.ctx.actor, self.project_id)

    def key(self, loaded: Listing[Member]) -> object:
        return tuple((m.username, m.role, m.added_at) for m in loaded.items)

    def _owning(self, members: list[Member]) -> bool:
        return any(m.user_id == self.ctx.user.id and m.role is Role.OWNER for m in members)

    def draw(self, loaded: Listing[Member]) -> None:
        owning = self._owning(loaded.items)
        ui.label("Members").classes("text-h5")
        if not owning:
            ui.label("Only the story's owner changes who its members are.").classes("text-grey-7")
        with ui.column().classes("w-full gap-2").props('role="list" aria-label="Members"'):
            for member in loaded.items:
                self._member_row(member, owning)
        if owning:
            self._adding()

    def _member_row(self, member: Member, owning: bool) -> None:
        name = member.username
        with (
            ui.card().classes("w-full py-2").props(f'role="listitem" data-testid="member-{name}"'),
            ui.row().classes("w-full items-center gap-3 no-wrap"),
        ):
            with ui.column().classes("gap-1"):
                with ui.row().classes("items-center gap-2"):
                    ui.label(name).classes("text-subtitle1 text-weight-medium")
                    ui.badge(member.role.value, color="primary").props('data-testid="member-role"')
                    if member.user_id == self.ctx.user.id:
                        ui.badge("you", color="secondary")
                with ui.row().classes("gap-1 items-baseline text-caption text-grey-7"):
                    ui.label("since")
                    local_time(member.added_at)
            ui.space()
            if owning and member.role is not Role.OWNER:
                self._controls(member)

    def _controls(self, member: Member) -> None:
        name, members = member.username, self.services.members

        async def picked(event: ValueChangeEventArguments[str]) -> None:
            role = event.value
            if role == member.role.value:
                return
            done = await act(
                self.ctx, lambda: members.change_role(self.ctx.actor, self.project_id, name, role)
            )
            if done.ok:
                await self.reload()
            else:
                select.value = member.role.value  # the refused role is not shown as if it were held

        select = ui.select(GRANTED, label=f"Role of {name}", value=member.role.value, on_change=picked)
        select.props("outlined dense").classes("w-32")
        ui.button("Hand over", on_click=lambda: self.hand_over(name)).props("outline")
        ui.button("Remove", on_click=lambda: self.remove(name)).props('outline color="negative"')

    def _adding(self) -> None:
        with ui.row().classes("items-start gap-2 mt-2").props('data-testid="new-member"'):
            self.name_field = ui.input("Account name", value=self.new.username).bind_value_to(
                self.new, "username"
            )
            self.name_field.props("outlined dense").classes("w-64").on("keydown.enter", self.add)
            ui.select(GRANTED, label="Role", value=self.new.role).bind_value_to(self.new, "role").props(
                "outlined dense"
            ).classes("w-32")
            ui.button("Add member", on_click=self.add).props("unelevated color=primary")

    # ---- changes -------------------------------------------------------------------------------

    async def add(self) -> None:
        new, members = self.new, self.services.members
        done = await act(
            self.ctx,
            lambda: members.add_member(self.ctx.actor, self.project_id, new.username.strip(), new.role),
        )
        if done.ok:
            self.name_field.value = ""  # and through it, `self.new`
            await self.reload()

    async def remove(self, name: str) -> None:
        if await confirm(
            self.host,
            title=f"Remove {name}?",
            message="They no longer see or change this story; what they wrote stays in it and its history.",
            action="Remove",
        ):
            members = self.services.members
            await self._change(lambda: members.remove_member(self.ctx.actor, self.project_id, name))

    async def hand_over(self, name: str) -> None:
        if await confirm(
            self.host,
            title=f"Hand the story over to {name}?",
            message="They become its owner; you stay on as an editor and can no longer manage its members.",
            action="Hand over",
        ):
            members = self.services.members
            await self._change(lambda: members.hand_over(self.ctx.actor, self.project_id, name))

    async def _change(self, change: Callable[[], Awaitable[object]]) -> None:
        if (await act(self.ctx, change)).ok:
            await self.reload()
