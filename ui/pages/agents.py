"""`/settings/agents`: the agents connected over OAuth and the personal access tokens, with "Revoke".

Revoking is a plain POST form (CSRF-checked); the agent's next call is refused. Each agent shows
its last accepted and its last refused call; an agent that is gone (revoked) but still tried
something stays listed under "Refused after access ended", so the owner sees that it got nothing.
"""

from __future__ import annotations

from fastapi import FastAPI, Request
from fastapi.responses import RedirectResponse, Response
from nicegui import ui

from romergo.access import csrf
from romergo.access.agents import Connection
from romergo.access.agents.activity import CallActivity
from romergo.access.agents.scopes import LABELS
from romergo.common import urls
from romergo.services import Services
from ui.components.local_time import local_time
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
    activity = await ctx.services.agents.activity.of_user(ctx.user.id)

    ui.label("Connected agents").classes("text-h6 mt-4")
    connected = [c for c in connections if c.kind == "oauth"]
    if not connected:
        ui.label(
            "No agent is connected. Point your agent at this server's /mcp address to connect it."
        ).classes("text-grey-7")
    for connection in connected:
        _row(ctx, connection, activity.get(connection.client_id))

    ui.label("Personal access tokens").classes("text-h6 mt-6")
    personal = [c for c in connections if c.kind == "personal"]
    if not personal:
        ui.label("No personal access tokens.").classes("text-grey-7")
    for connection in personal:
        _row(ctx, connection, activity.get(connection.client_id))
    _gone(connections, activity)
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


def _gone(connections: list[Connection], activity: dict[str, CallActivity]) -> None:
    known = {connection.client_id for connection in connections}
    gone = {
        client_id: seen
        for client_id, seen in activity.items()
        if client_id not in known and seen.last_refused_at
    }
    if not gone:
        return
    ui.label("Refused after access ended").classes("text-h6 mt-6")
    for client_id, seen in sorted(gone.items(), key=lambda item: item[1].last_refused_at or 0, reverse=True):
        with ui.card().classes("w-full").props(f'data-testid="gone-{client_id}"'):
            ui.label(f"client {client_id}").classes("text-body2")
            _calls(seen)


def _calls(seen: CallActivity | None) -> None:
    """ "last accepted: romergo_get_scene 3 minutes ago · last refused: … (channel_ended)", the
    times in the author's clock."""
    with ui.row().classes("gap-1 items-baseline text-caption text-grey-8").props('data-testid="calls"'):
        if seen is None:
            ui.label("no tool calls yet")
            return
        if seen.last_accepted_at:
            ui.label(f"last accepted: {seen.last_accepted_tool}")
            local_time(seen.last_accepted_at)
        else:
            ui.label("last accepted: none")
        ui.label("·")
        if seen.last_refused_at:
            ui.label(f"last refused: {seen.last_refused_tool}")
            local_time(seen.last_refused_at)
            ui.label(f"({seen.last_refused_code})")
        else:
            ui.label("last refused: none")


def _row(ctx: PageContext, connection: Connection, seen: CallActivity | None) -> None:
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
                with (
                    ui.row()
                    .classes("gap-1 items-baseline text-caption text-grey-7")
                    .props('data-testid="details"')
                ):
                    ui.label(f"client {connection.client_id} · since")
                    local_time(connection.created_at)
                    ui.label("· last used")
                    local_time(connection.last_used_at)
                    if connection.expires_at is not None:
                        ui.label("· expires")
                        local_time(connection.expires_at)
                _calls(seen)
            with ui.element("form").props(f'method="post" action="{REVOKE_PATH}"'):
                for name, value in (("csrf", ctx.csrf(PURPOSE)), ("client_id", connection.client_id)):
                    field = ui.element("input").props(f'type="hidden" name="{name}"')
                    field.props["value"] = value
                ui.button("Revoke").props('type="submit" color="negative" outline')
