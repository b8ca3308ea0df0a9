"""The Builder shell: one page per browser tab whose sub pages change with the URL.

Everything the signed-in author sees lives under this root, so parts that must persist while the
author moves around (the header, later the agent panel) are built once per tab.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from urllib.parse import quote

from fastapi import Request
from fastapi.responses import RedirectResponse, Response
from nicegui import ui

from romergo.services import Services
from ui.context import PageContext
from ui.pages import agents, project, projects
from ui.web_session import session_token, signed_in_user

SubPage = Callable[..., Awaitable[None] | None]


def build_root(services: Services) -> Callable[[Request], Awaitable[Response | None]]:
    async def root(request: Request) -> Response | None:
        user = await signed_in_user(services, request)
        token = session_token(request)
        if user is None or token is None:
            return RedirectResponse(f"/login?next={quote(request.url.path, safe='/')}", status_code=303)
        ctx = PageContext(services, user, token)
        ui.page_title("Romergo")
        _header(ctx)
        with ui.column().classes("w-full max-w-6xl mx-auto p-4"):
            ui.sub_pages(routes(ctx))
        return None

    return root


def routes(ctx: PageContext) -> dict[str, SubPage]:
    return {
        "/": lambda: ui.navigate.to("/projects"),
        "/projects": lambda: projects.page(ctx),
        "/projects/{project_id}": lambda project_id: project.page(ctx, project_id),
        "/settings/agents": lambda: agents.page(ctx),
    }


def _header(ctx: PageContext) -> None:
    with ui.header().classes("items-center justify-between bg-primary text-white px-4 py-2"):
        ui.link("Romergo", "/projects").classes("text-h6 text-white no-underline")
        with ui.row().classes("items-center gap-3"):
            ui.link("Agents", "/settings/agents").classes("text-white")
            ui.label(ctx.user.username).classes("text-white")
            with ui.element("form").props('method="post" action="/logout"'):
                hidden = ui.element("input").props('type="hidden" name="csrf"')
                hidden.props["value"] = ctx.csrf("logout")
                ui.button("Sign out").props('type="submit" flat color="white"')
