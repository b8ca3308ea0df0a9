"""`/projects/{id}/history`: who changed what, when and under which command, with what changed.

Query: `scene` (a scene's own history: the scene and its lines), `agent` (one agent's changes, by
client id), `command` (one agent command and its undos), `before` (paging: entries older than this
revision id). Each entry shows the same reviewed change as the agent panel; an agent's entry names
its command and can bring its card up in the panel. A bad filter value shows an empty history,
never an error: the values come from the address bar.
"""

from __future__ import annotations

from dataclasses import dataclass

from nicegui import ui

from romergo.common import urls
from romergo.story import HistoryFilter
from romergo.story.history import HistoryEntry, HistoryPage
from romergo.story.records import ProjectRecord
from ui.components.change_review import change_review
from ui.context import PageContext
from ui.frame import SectionPage

ALL_AGENTS = ""
MAX_QUERY_CHARS = 100


@dataclass(frozen=True)
class Loaded:
    project: ProjectRecord
    page: HistoryPage
    scene_title: str | None


async def page(
    ctx: PageContext,
    project_id: str,
    scene: str | None = None,
    agent: str | None = None,
    command: str | None = None,
    before: str | None = None,
) -> None:
    chosen = HistoryFilter(scene_id=_clean(scene), agent=_clean(agent), command_id=_clean(command))
    route = urls.history(
        project_id, scene_id=chosen.scene_id, agent=chosen.agent, command_id=chosen.command_id
    )
    ctx.place.enter(route, "history", project_id=project_id, scene_id=chosen.scene_id)
    await _HistoryPage(ctx, project_id, chosen, _revision_id(before)).open()


class _HistoryPage(SectionPage[Loaded]):
    nav = "history"
    heading = "History"

    def __init__(self, ctx: PageContext, project_id: str, chosen: HistoryFilter, before: int | None) -> None:
        super().__init__(ctx, project_id)
        self.chosen = chosen
        self.before = before

    async def load(self) -> Loaded:
        project = await self.services.projects.get_project(self.ctx.actor, self.project_id)
        found = await self.services.history.history(self.ctx.actor, self.project_id, self.chosen, self.before)
        return Loaded(project, found, await self._scene_title())

    def key(self, loaded: Loaded) -> object:
        return (
            tuple(entry.revision_id for entry in loaded.page.entries),
            loaded.page.older,
            loaded.scene_title,
        )

    def draw(self, loaded: Loaded) -> None:
        title = f"History of “{loaded.scene_title}”" if loaded.scene_title else "History"
        ui.label(title).classes("text-h5")
        self._filters(loaded)
        entries = loaded.page.entries
        if not entries:
            ui.label("No changes to show.").classes("text-grey-7")
        with ui.column().classes("w-full gap-0").props('role="list" aria-label="Changes"'):
            for entry in entries:
                self._entry(entry)
        with ui.row().classes("gap-4"):
            if self.before is not None:
                ui.link("Newest changes", self._route())
            if loaded.page.older is not None:
                ui.link(
                    "Older changes", self._route() + _joiner(self._route()) + f"before={loaded.page.older}"
                )

    # ---- parts ---------------------------------------------------------------------------------

    def _filters(self, loaded: Loaded) -> None:
        with ui.row().classes("w-full items-center gap-3"):
            agents = {ALL_AGENTS: "Everyone", **loaded.page.agents}
            chosen = self.chosen.agent if self.chosen.agent in agents else ALL_AGENTS
            ui.select(agents, value=chosen, label="Agent", on_change=lambda e: self._go(agent=e.value)).props(
                "outlined dense"
            ).classes("w-56")
            if self.chosen.command_id:
                ui.label("One command and its undos").classes("text-caption")
            if self.chosen.scene_id or self.chosen.command_id or self.chosen.agent:
                ui.link("Whole story", urls.history(self.project_id))

    def _entry(self, entry: HistoryEntry) -> None:
        with (
            ui.column()
            .classes("w-full gap-0 px-2 py-1 border-b")
            .props(f'role="listitem" data-testid="revision" data-revision="{entry.revision_id}"')
        ):
            with ui.row().classes("items-baseline gap-3"):
                ui.label(f"{entry.at:%Y-%m-%d %H:%M:%S}").classes("text-caption text-grey-7")
                ui.label(self._who(entry)).classes("text-weight-medium").props('data-testid="who"')
                if entry.command is not None:
                    command = entry.command
                    ui.link(
                        f"#{command.number} “{_short(command.text)}”",
                        urls.history(self.project_id, command_id=command.command_id),
                    ).classes("text-caption")
                    ui.button(
                        "Show its card", on_click=lambda c=command.command_id: self.ctx.place.show_card(c)
                    ).props("flat dense size=sm no-caps")
            change_review(self.project_id, [entry.change])

    def _who(self, entry: HistoryEntry) -> str:
        if entry.actor_type == "agent":
            who = f"{entry.agent_name or 'an agent'} (agent)"
            return f"{who} · {entry.tool}" if entry.tool else who
        who = "Romergo" if entry.actor_type == "system" else self._person(entry.actor_id)
        if entry.undo_of is not None:
            return f"{who} · undo of command #{entry.undo_of.number}"
        return f"{who} · undo" if entry.undoes_edit else who

    def _person(self, actor_id: str) -> str:
        return "you" if actor_id == self.ctx.user.id else "another user"

    # ---- navigation ----------------------------------------------------------------------------

    def _route(self) -> str:
        c = self.chosen
        return urls.history(self.project_id, scene_id=c.scene_id, agent=c.agent, command_id=c.command_id)

    def _go(self, *, agent: str | None) -> None:
        c = self.chosen
        ui.navigate.to(urls.history(self.project_id, scene_id=c.scene_id, agent=agent or None))

    async def _scene_title(self) -> str | None:
        if not self.chosen.scene_id:
            return None
        names = await self.services.history.names(self.ctx.actor, self.project_id)
        return names.get(self.chosen.scene_id, "a deleted scene")


def _clean(value: str | None) -> str | None:
    return value if isinstance(value, str) and 0 < len(value) <= MAX_QUERY_CHARS else None


def _revision_id(value: str | None) -> int | None:
    return int(value) if isinstance(value, str) and value.isdigit() and len(value) < 16 else None


def _joiner(route: str) -> str:
    return "&" if "?" in route else "?"


def _short(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
