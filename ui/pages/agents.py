"""`/settings/agents`: the agents connected over OAuth and the personal access tokens, with "Revoke".

Revoking is a plain POST form (CSRF-checked); the agent's next call is refused.
"""

from __future__ import annotations

from fastapi import FastAPI, Request
from fastapi.responses import RedirectResponse, Response
from nicegui import ui

from romergo import csrf, urls
from romergo.agents import Connection
from romergo.agents.scopes import LABELS
from romergo.clock import iso
from romergo.services import Services
from ui.context import PageContext
from ui.web_session import same_origin, session_token, signed_in_user

PATH = urls.AGENT_SETTINGS
REVOKE_PATH = PATH + "/revoke"
PURPOSE = "revoke-agent"


async def page(ctx: PageContext) -> None:
    # Not a project page: the agent panel stays with the project the author came from.
    ctx.place.enter(PATH, "settings", project_id=ctx.place.project_id)
    ui.page_title("Agents · Romergo")
    ui.label("Agents").classes("text-h5")
    connections = await ctx.services.agents.grants.connections(ctx.user.id)

    ui.label("Connected agents").classes("text-h6 mt-4")
    connected = [c for c in connections if c.kind == "oauth"]
    if not connected:
        ui.label(
            "No agent is connected. Point your agent at this server's /mcp address to connect it."
        ).classes("text-grey-7")
    for connection in connected:
        _row(ctx, connection)

    ui.label("Personal access tokens").classes("text-h6 mt-6")
    personal = [c for c in connections if c.kind == "personal"]
    if not personal:
        ui.label("No personal access tokens.").classes("text-grey-7")
    for connection in personal:
        _row(ctx, connection)
    ui.label(
        f"Make one for scripts and headless agents with: romergo token create {ctx.user.username} "
        "[--name NAME] [--scopes read,edit,media] [--expires-days 90]"
    ).classes("text-caption text-grey-7 font-mono mt-2")


def add_routes(app: FastAPI, services: Services) -> None:
    @app.post(REVOKE_PATH, include_in_schema=False)
    async def revoke(request: Request) -> Response:
        form = await request.form()
        token = session_token(request)
        user = await signed_in_user(services, request)
        if user is None:
            return RedirectResponse(urls.login(PATH), status_code=303)
        if not same_origin(request) or not csrf.check_session_token(
            services.secret, PURPOSE, token, form.get("csrf")
        ):
            return Response("This form has expired; reload the page and try again.", status_code=403)
        client_id = form.get("client_id")
        if isinstance(client_id, str) and 0 < len(client_id) <= 100:
            await services.revoke_agent(user.id, client_id)
        return RedirectResponse(PATH, status_code=303)


def _row(ctx: PageContext, connection: Connection) -> None:
    with ui.card().classes("w-full").props(f'data-testid="connection-{connection.client_id}"'):
        with ui.row().classes("w-full items-center justify-between no-wrap"):
            with ui.column().classes("gap-1"):
                with ui.row().classes("items-center gap-2"):
                    ui.label(connection.name).classes("text-subtitle1 text-weight-medium")
                    if connection.kind == "oauth":
                        ui.badge("unverified name", color="warning")
                ui.label(" · ".join(LABELS[scope] for scope in connection.scopes)).props(
                    'data-testid="scopes"'
                ).classes("text-body2")
                details = [
                    f"client {connection.client_id}",
                    f"since {iso(connection.created_at)}",
                    f"last used {iso(connection.last_used_at) or 'never'}",
                ]
                if connection.expires_at is not None:
                    details.append(f"expires {iso(connection.expires_at)}")
                ui.label(" · ".join(details)).props('data-testid="details"').classes(
                    "text-caption text-grey-7"
                )
            with ui.element("form").props(f'method="post" action="{REVOKE_PATH}"'):
                for name, value in (("csrf", ctx.csrf(PURPOSE)), ("client_id", connection.client_id)):
                    field = ui.element("input").props(f'type="hidden" name="{name}"')
                    field.props["value"] = value
                ui.button("Revoke").props('type="submit" color="negative" outline')
