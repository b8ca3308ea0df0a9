"""`/settings/people`: the team's accounts, for administrators only (others get "not found").

Each account shows its name, when it was made, its last sign-in and its standing, with "Sign-in
link" (a one-time link shown once, as `romergo login-link` prints it), "Make administrator" /
"Remove administrator" and "Deactivate" / "Reactivate"; "Add account" makes one. The rules (only
administrators, always an active one, never yourself deactivated) are the core's: a refusal shows
its message and changes nothing.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from nicegui import ui

from romergo.access.accounts.ledger import User
from romergo.common import urls
from ui.actions import act
from ui.components.copy_button import copy_button
from ui.components.dialogs import FormDialog, confirm
from ui.components.local_time import local_time
from ui.components.not_found import not_found
from ui.context import PageContext

PATH = urls.PEOPLE_SETTINGS


async def page(ctx: PageContext) -> None:
    # Not a project page: the agent panel stays with the project the author came from.
    ctx.place.enter(PATH, "settings", project_id=ctx.place.project_id)
    if not await ctx.services.people.is_administrator(ctx.user.id):
        not_found("page")
        return
    ui.page_title("People · Romergo")
    host = ui.element("div")
    with ui.row().classes("w-full items-center justify-between"):
        ui.label("People").classes("text-h5")
        adding = ui.button("Add account", icon="person_add").props("unelevated color=primary")
    people = PeopleList(ctx, host)
    adding.on_click(people.add)
    await people.show()
    ui.label(
        "The same from the command line: romergo user list · user add NAME · user admin NAME [--remove] "
        "· user deactivate NAME · user reactivate NAME · login-link --user NAME"
    ).classes("text-caption text-grey-7 font-mono mt-2")


class PeopleList:
    """The accounts as listed now; every change re-reads them all (a team is a handful)."""

    def __init__(self, ctx: PageContext, host: ui.element) -> None:
        self.ctx = ctx
        self.host = host
        """Where dialogs live: outside the list a change redraws."""
        self.listing = ui.column().classes("w-full gap-2").props('role="list" aria-label="Accounts"')

    async def show(self) -> None:
        ctx = self.ctx
        if not await ctx.services.people.is_administrator(ctx.user.id):
            # The author just gave the role away (or another administrator took it).
            ui.navigate.to(urls.PROJECTS)
            return
        accounts = await ctx.services.people.listed(ctx.user.id)
        self.listing.clear()
        with self.listing:
            for user in accounts:
                self._row(user)

    async def add(self) -> None:
        ctx = self.ctx
        form = FormDialog(self.host, "Add account", action="Add")
        with form.card:
            name = form.enter_saves(ui.input("Name").props("outlined autofocus").classes("w-full"))
            password = form.enter_saves(
                ui.input("Password (optional)", password=True).props("outlined").classes("w-full")
            )
            ui.label("Without a password, they sign in with a sign-in link.").classes(
                "text-caption text-grey-7"
            )
            error = ui.label().props('role="alert"').classes("text-negative")
            error.visible = False

        async def save() -> bool:
            done = await act(
                ctx,
                lambda: ctx.services.people.add(ctx.user.id, name.value or "", password.value or None),
                notify_errors=False,
            )
            error.text, error.visible = done.error or "", done.error is not None
            return done.ok

        if await form.run(save):
            await self.show()

    def _row(self, user: User) -> None:
        me = user.id == self.ctx.user.id
        with ui.card().classes("w-full").props(f'role="listitem" data-testid="person-{user.username}"'):
            with ui.row().classes("w-full items-center justify-between no-wrap"):
                with ui.column().classes("gap-1"):
                    with ui.row().classes("items-center gap-2"):
                        ui.label(user.username).classes("text-subtitle1 text-weight-medium")
                        if user.administrator:
                            ui.badge("administrator", color="primary")
                        ui.badge(
                            "deactivated" if user.deactivated_at else "active",
                            color="grey" if user.deactivated_at else "positive",
                        )
                        if me:
                            ui.badge("you", color="secondary")
                    with (
                        ui.row()
                        .classes("gap-1 items-baseline text-caption text-grey-7")
                        .props('data-testid="details"')
                    ):
                        ui.label("created")
                        local_time(user.created_at)
                        ui.label("· last sign-in")
                        local_time(user.last_sign_in_at)
                with ui.row().classes("gap-2"):
                    self._buttons(user, me)

    def _buttons(self, user: User, me: bool) -> None:
        people, name = self.ctx.services.people, user.username
        by = self.ctx.user.id
        if user.deactivated_at is None:
            ui.button("Sign-in link", on_click=lambda: self._signin_link(name)).props("outline")
        if user.administrator:
            ui.button(
                "Remove administrator",
                on_click=lambda: self._change(lambda: people.set_administrator(by, name, False)),
            ).props("outline")
        else:
            ui.button(
                "Make administrator",
                on_click=lambda: self._change(lambda: people.set_administrator(by, name, True)),
            ).props("outline")
        if user.deactivated_at is not None:
            ui.button("Reactivate", on_click=lambda: self._change(lambda: people.reactivate(by, name))).props(
                "outline"
            )
        elif not me:
            ui.button("Deactivate", on_click=lambda: self._deactivate(name)).props('outline color="negative"')

    async def _change(self, change: Callable[[], Awaitable[User]]) -> None:
        if (await act(self.ctx, change)).ok:
            await self.show()

    async def _deactivate(self, name: str) -> None:
        asked = await confirm(
            self.host,
            title=f"Deactivate {name}?",
            message="They are signed out at once and cannot sign in until reactivated; every agent "
            "and personal token they let in is revoked, and their agents leave their rooms.",
            action="Deactivate",
        )
        if (
            asked
            and (await act(self.ctx, lambda: self.ctx.services.deactivate_account(self.ctx.user.id, name))).ok
        ):
            await self.show()

    async def _signin_link(self, name: str) -> None:
        ctx = self.ctx
        done = await act(ctx, lambda: ctx.services.people.signin_link(ctx.user.id, name))
        if done.value is None:
            return
        link = f"{urls.absolute(ctx.services.settings.base_url, urls.LOGIN)}?token={done.value}"
        minutes = ctx.services.settings.signin_link_minutes
        with self.host, ui.dialog() as dialog, ui.card().classes("w-[36rem] max-w-full gap-3"):
            ui.label("Sign-in link").classes("text-h6")
            ui.label(
                f"A one-time link for {name}, valid for {minutes} minutes. It is shown only now: "
                "copy it and give it to them."
            ).classes("text-grey-8")
            with ui.row().classes("w-full items-center no-wrap gap-1"):
                ui.input("One-time link", value=link).props("outlined readonly").classes("w-full")
                copy_button(link, "Copy link")
            with ui.row().classes("w-full justify-end"):
                ui.button("Close", on_click=dialog.close).props("flat")
        await dialog
        dialog.delete()
