"""`/oauth/consent`: the signed-in user lets an agent in (or not), with the scopes they choose.

The page is a native POST form; the answer is a plain FastAPI route that can reply 303 to the
agent's redirect URI. The form's token is bound to the session and to exactly what the page
showed (client, its name, redirect URI, offered scopes); the request it answers is single use.
Signed-out users go to the sign-in page and come back here.
"""

from __future__ import annotations

import html

from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from nicegui import ui
from nicegui.elements.mixins.text_element import TextElement

from romergo.access import csrf
from romergo.access.accounts.ledger import User
from romergo.access.agents import PendingAuthorization
from romergo.access.agents.scopes import CONSENT_PRESELECTED, DESCRIPTIONS, LABELS, READ
from romergo.common import urls
from romergo.common.errors import RomergoError
from romergo.common.ids import sha256_hex
from romergo.services import Services
from ui.web_session import same_origin, session_token, signed_in_user

MAX_FIELD = 1024


def register(services: Services) -> None:
    @ui.page(urls.CONSENT, title="Connect an agent · Romergo")
    async def consent_page(request: Request) -> Response | None:
        request_id = request.query_params.get("request", "")
        user, token = await _signed_in(services, request)
        if user is None or token is None:
            return _sign_in_first(request_id)
        pending = await services.agents.consent.pending_authorization(request_id)
        if pending is None:
            _gone()
            return None
        _form(services, user, token, pending)
        return None


def add_routes(app: FastAPI, services: Services) -> None:
    @app.post(urls.CONSENT, include_in_schema=False)
    async def decide(request: Request) -> Response:
        form = await request.form()
        request_id, decision = form.get("request"), form.get("decision")
        if not isinstance(request_id, str) or len(request_id) > MAX_FIELD or not same_origin(request):
            return _refused("This answer did not come from Romergo's consent page.")
        user, token = await _signed_in(services, request)
        if user is None or token is None:
            return _sign_in_first(request_id)
        pending = await services.agents.consent.pending_authorization(request_id)
        if pending is None:
            return RedirectResponse(urls.consent(request_id), status_code=303)  # shows "already answered"
        if not csrf.check_session_token(services.secret, _purpose(pending), token, form.get("csrf")):
            return _refused("This consent form has expired or was changed. Connect again from your agent.")
        scopes = [value for value in form.getlist("scope") if isinstance(value, str)]
        try:
            if decision == "allow":
                location = await services.agents.consent.approve(request_id, user.id, scopes)
            elif decision == "deny":
                location = await services.agents.consent.deny(request_id)
            else:
                return _refused("Choose Allow or Deny.")
        except RomergoError as error:
            if error.code == "conflict":
                return RedirectResponse(urls.consent(request_id), status_code=303)
            return _refused(error.message)
        return RedirectResponse(location, status_code=303)


def _form(services: Services, user: User, token: str, pending: PendingAuthorization) -> None:
    client = pending.client
    with ui.card().classes("w-[32rem] max-w-full mx-auto mt-16 p-6 gap-4").props('role="main"'):
        ui.label("Connect an agent to Romergo").classes("text-h5 text-weight-bold")
        with ui.row().classes("items-center gap-2"):
            ui.label(client.name).classes("text-h6").props('data-testid="client-name"')
            ui.badge("unverified", color="warning").props('data-testid="unverified"')
        if client.document_host is None:
            ui.label(
                "This name comes from the agent itself; Romergo cannot check it. Allow only an agent you "
                "started connecting just now."
            ).classes("text-grey-8")
        else:
            with ui.column().classes("gap-0 w-full"):
                ui.label("The agent describes itself from").classes("text-caption text-grey-7")
                ui.label(client.document_host).classes("text-h6 text-weight-bold font-mono").props(
                    'data-testid="document-host"'
                )
                ui.label(
                    "Its name comes from a document on that site. Allow it only if you know that site "
                    "and started connecting this agent just now."
                ).classes("text-grey-8")
        with ui.column().classes("gap-0 w-full"):
            ui.label("Your answer goes to").classes("text-caption text-grey-7")
            ui.label(pending.redirect_host).classes("text-h6 text-weight-bold font-mono").props(
                'data-testid="redirect-host"'
            )
            ui.label(pending.redirect_uri).classes("text-caption text-grey-7 font-mono break-all")
        ui.label(f"Signed in as {user.username}. The agent may act for you with:").classes("text-body1")
        with (
            ui.element("form")
            .props(f'method="post" action="{urls.CONSENT}"')
            .classes("flex flex-col gap-3 w-full")
        ):
            _hidden("csrf", csrf.session_token(services.secret, _purpose(pending), token))
            _hidden("request", pending.request_id)
            for scope in pending.offered_scopes:
                _scope_choice(scope)
            with ui.row().classes("gap-3 mt-2"):
                ui.button("Allow").props(
                    'type="submit" name="decision" value="allow" color="primary" unelevated'
                )
                ui.button("Deny").props('type="submit" name="decision" value="deny" outline')


def _scope_choice(scope: str) -> None:
    field = f"scope-{scope.removeprefix('romergo:')}"
    with ui.row().classes("items-start gap-2 no-wrap"):
        box = ui.element("input").props(f'type="checkbox" id="{field}" name="scope" value="{scope}"')
        if scope == READ:
            box.props("checked disabled")
            _hidden("scope", READ)  # always granted: a disabled box is not submitted
        elif scope in CONSENT_PRESELECTED:
            box.props("checked")
        with ui.element("label").props(f'for="{field}"').classes("flex flex-col"):
            TextElement(tag="span", text=LABELS[scope]).classes("text-weight-medium")
            TextElement(tag="span", text=DESCRIPTIONS[scope]).classes("text-caption text-grey-7")


def _hidden(name: str, value: str) -> None:
    field = ui.element("input").props(f'type="hidden" name="{name}"')
    field.props["value"] = value


def _purpose(pending: PendingAuthorization) -> str:
    """Binds the form to exactly what the page showed: any difference makes its token useless."""
    client = pending.client
    shown = "\n".join(
        [pending.request_id, client.client_id, client.name, pending.redirect_uri, *pending.offered_scopes]
    )
    return f"consent|{sha256_hex(shown)}"


async def _signed_in(services: Services, request: Request) -> tuple[User | None, str | None]:
    return await signed_in_user(services, request), session_token(request)


def _sign_in_first(request_id: str) -> Response:
    """Signed-out users sign in, then come back to the same request."""
    return RedirectResponse(urls.login(urls.consent(request_id)), status_code=303)


def _gone() -> None:
    with ui.card().classes("w-[32rem] max-w-full mx-auto mt-16 p-6 gap-3").props('role="main"'):
        ui.label("This connection request cannot be used").classes("text-h6").props('role="alert"')
        ui.label(
            "It was already answered, or it expired after 10 minutes. Start connecting again from your agent."
        ).classes("text-grey-8")
        ui.link("Back to your projects", urls.PROJECTS)


def _refused(reason: str) -> Response:
    page = (
        '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Refused · Romergo</title></head>'
        f'<body><h1 role="alert">Not allowed</h1><p>{html.escape(reason)}</p>'
        f'<p><a href="{urls.PROJECTS}">Back to your projects</a></p></body></html>'
    )
    return HTMLResponse(page, status_code=403)
