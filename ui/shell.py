"""The Builder shell: one page per browser tab whose sub pages change with the URL.

Everything the signed-in author sees lives under this root, so parts that must persist while the
author moves around (the header, the tab's PageContext with its place and selection, the agent
panel in the right drawer) are built once per tab. Navigation stays inside `ui.sub_pages`
(links and `ui.navigate.to`), so moving between pages never reloads the tab.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from fastapi import Request
from fastapi.responses import RedirectResponse, Response
from nicegui import ui

from romergo.common import urls
from romergo.services import Services
from ui.components.local_time import install_local_times
from ui.components.not_found import not_found
from ui.context import PageContext
from ui.edits import install_edit_keys
from ui.on_scene import follow_tab
from ui.pages import (
    agents,
    assets,
    chapter,
    characters,
    check,
    history,
    members,
    people,
    play,
    project,
    projects,
    scene,
    search,
    story_map,
    variables,
)
from ui.panel import AgentPanel, DemoLauncher
from ui.selection import track_selection
from ui.upload_guard import remember_tab_session
from ui.web_session import session_token, signed_in_user

SubPage = Callable[..., Awaitable[None] | None]
# Upload boxes hold one file at a time: no room for a queue list.
# An idle uploader's subtitle reads "0.0B / 0.00%": noise. Uploads start on their own and show
# Quasar's spinner while they run, so the subtitle goes.
# Code blocks (the Connect dialog's snippets) wrap instead of running past their dialog's edge;
# a snippet's copy button is Romergo's own (ui.components.copy_button), not ui.code's.
CSS = (
    ".q-uploader__list { min-height: 0; padding: 0; } .q-uploader__subtitle { display: none; } "
    ".nicegui-code { max-width: 100%; } .nicegui-code.snippet .q-btn { display: none; } "
    ".nicegui-code pre, .nicegui-code code { white-space: pre-wrap; word-break: break-all; }"
)

PANEL_WIDTH = 400
"""The agent panel's width in px; Quasar's default breakpoint (1023) decides docked or overlay."""


def build_root(
    services: Services, demo: DemoLauncher | None = None
) -> Callable[[Request], Awaitable[Response | None]]:
    async def root(request: Request) -> Response | None:
        user = await signed_in_user(services, request)
        token = session_token(request)
        if user is None or token is None:
            target = request.url.path + (f"?{request.url.query}" if request.url.query else "")
            return RedirectResponse(urls.login(target), status_code=303)
        if request.url.path == "/":
            # Not a sub page: a "/" route would match every unknown path as its prefix.
            return RedirectResponse(urls.PROJECTS, status_code=303)
        ctx = PageContext(services, user, token)
        remember_tab_session(ui.context.client, token)
        ui.page_title("Romergo")
        ui.add_css(CSS)
        track_selection(ctx.place)
        follow_tab(ctx)
        install_edit_keys(ctx)
        install_local_times()
        # Docked beside the page from 1024 px up; narrower, it would take half the editor, so it
        # starts closed and opens over the page (Quasar's mobile mode: the header button, or a
        # card that needs the owner; a click beside it closes it).
        with (
            ui.right_drawer(value=None, fixed=True)
            .props(f"width={PANEL_WIDTH} bordered")
            .classes("p-0") as drawer
        ):
            AgentPanel(ctx, demo)

        def open_panel(_: str) -> None:
            drawer.value = True

        ctx.place.card_listeners.append(open_panel)
        _header(ctx, drawer)
        with ui.column().classes("w-full max-w-5xl mx-auto p-4"):
            StoryPages(routes(ctx)).classes("w-full")
        return None

    return root


def routes(ctx: PageContext) -> dict[str, SubPage]:
    return {
        urls.PROJECTS: lambda: projects.page(ctx),
        urls.AGENT_SETTINGS: lambda: agents.page(ctx),
        urls.PEOPLE_SETTINGS: lambda: people.page(ctx),
        urls.PROJECT_ROUTE: lambda project_id: project.page(ctx, project_id),
        urls.CHAPTER_ROUTE: lambda project_id, chapter_id: chapter.page(ctx, project_id, chapter_id),
        urls.SCENE_ROUTE: lambda project_id, scene_id: scene.page(ctx, project_id, scene_id),
        urls.CHARACTERS_ROUTE: lambda project_id: characters.page(ctx, project_id),
        urls.VARIABLES_ROUTE: lambda project_id: variables.page(ctx, project_id),
        urls.ASSETS_ROUTE: lambda project_id: assets.page(ctx, project_id),
        urls.CHECK_ROUTE: lambda project_id: check.page(ctx, project_id),
        urls.SEARCH_ROUTE: lambda project_id, q=None: search.page(ctx, project_id, q),
        urls.MAP_ROUTE: lambda project_id, scene=None: story_map.page(ctx, project_id, scene),
        urls.HISTORY_ROUTE: lambda project_id, scene=None, agent=None, command=None, before=None: (
            history.page(ctx, project_id, scene, agent, command, before)
        ),
        urls.MEMBERS_ROUTE: lambda project_id: members.page(ctx, project_id),
        # `?scene=` is where the play-through is, so a reload continues there.
        urls.PLAY_ROUTE: lambda project_id, scene=None: play.page(ctx, project_id, scene),
    }


class StoryPages(ui.sub_pages):
    """Sub pages whose unknown paths get the same friendly page as unknown ids."""

    def _render_404(self) -> None:
        not_found("page")


def _header(ctx: PageContext, drawer: ui.right_drawer) -> None:
    with ui.header().classes("items-center justify-between bg-primary text-white px-4 py-2"):
        ui.link("Romergo", urls.PROJECTS).classes("text-h6 text-white no-underline")
        with ui.row().classes("items-center gap-3"):
            ui.button(icon="smart_toy", on_click=drawer.toggle).props(
                'flat round color=white aria-label="Agent panel" title="Agent panel"'
            )
            ui.link("Agents", urls.AGENT_SETTINGS).classes("text-white")
            if ctx.user.administrator and ctx.user.deactivated_at is None:
                ui.link("People", urls.PEOPLE_SETTINGS).classes("text-white")
            ui.label(ctx.user.username).classes("text-white")
            with ui.element("form").props('method="post" action="/logout"'):
                hidden = ui.element("input").props('type="hidden" name="csrf"')
                hidden.props["value"] = ctx.csrf("logout")
                ui.button("Sign out").props('type="submit" flat color="white"')
