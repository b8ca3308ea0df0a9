"""`/invitations/{secret}`: someone opens an invitation's link and joins its story.

Signed out, they sign in first and come back here. Signed in, they see the story's title, who
invites them and in which role, and "Join story": a native POST form bound to their session and to
this link, answered by a plain route that lands on the project page (303). A link that admits
nobody (used, revoked, expired, for another account, unknown) shows the core's plain refusal.
"""

from __future__ import annotations

import html

from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from nicegui import ui

from romergo.access import csrf
from romergo.access.accounts.ledger import User
from romergo.common import urls
from romergo.common.actors import Actor, user_actor
from romergo.common.errors import RomergoError
from romergo.common.ids import plausible_secret, sha256_hex
from romergo.services import Services
from romergo.story.invitations import OpenedInvitation
from ui.web_session import same_origin, session_token, signed_in_user


def register(services: Services) -> None:
    @ui.page(urls.INVITATION_ROUTE, title="Join a story · Romergo")
    async def invitation_page(request: Request, secret: str) -> Response | None:
        user, token = await signed_in_user(services, request), session_token(request)
        if user is None or token is None:
            return RedirectResponse(urls.login(urls.invitation(secret)), status_code=303)
        try:
            opened = await services.invitations.opened(_actor(user), secret)
        except RomergoError as refused:
            _refusal(refused.message)
            return None
        _invitation(services, user, token, secret, opened)
        return None


def add_routes(app: FastAPI, services: Services) -> None:
    @app.post(urls.INVITATION_ROUTE, include_in_schema=False)
    async def join(request: Request, secret: str) -> Response:
        form = await request.form()
        user, token = await signed_in_user(services, request), session_token(request)
        if user is None or token is None:
            return RedirectResponse(urls.login(urls.invitation(secret)), status_code=303)
        if not same_origin(request) or not csrf.check_session_token(
            services.secret, _purpose(secret), token, form.get("csrf")
        ):
            return _refused("This form has expired. Open the invitation's link again.")
        try:
            joined = await services.invitations.accept(_actor(user), secret)
        except RomergoError:
            # The page says why, as it would to anyone opening the link now.
            return RedirectResponse(urls.invitation(secret), status_code=303)
        return RedirectResponse(urls.project(joined.invitation.project_id), status_code=303)


def _invitation(services: Services, user: User, token: str, secret: str, opened: OpenedInvitation) -> None:
    invitation = opened.invitation
    with ui.card().classes("w-[32rem] max-w-full mx-auto mt-16 p-6 gap-4").props('role="main"'):
        ui.label("Join a story").classes("text-h5 text-weight-bold")
        ui.label(opened.story_title).classes("text-h6").props('data-testid="story-title"')
        ui.label(
            f"{invitation.invited_by} invites you to work on this story as {invitation.role.value}."
        ).props('data-testid="invited-as"')
        ui.label(f"Signed in as {user.username}.").classes("text-grey-8")
        with ui.element("form").props(f'method="post" action="{urls.invitation(secret)}"'):
            field = ui.element("input").props('type="hidden" name="csrf"')
            field.props["value"] = csrf.session_token(services.secret, _purpose(secret), token)
            ui.button("Join story").props('type="submit" color="primary" unelevated')


def _refusal(message: str) -> None:
    with ui.card().classes("w-[32rem] max-w-full mx-auto mt-16 p-6 gap-3").props('role="main"'):
        ui.label("This invitation cannot be used").classes("text-h6")
        ui.label(message).props('role="alert"')
        ui.link("Back to your projects", urls.PROJECTS)


def _actor(user: User) -> Actor:
    return user_actor(user.id, user.username)


def _purpose(secret: str) -> str:
    """Binds the form to this one link: its token joins no other story."""
    return f"invitation|{sha256_hex(secret) if plausible_secret(secret) else ''}"


def _refused(reason: str) -> Response:
    page = (
        '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Refused · Romergo</title></head>'
        f'<body><h1 role="alert">Not allowed</h1><p>{html.escape(reason)}</p>'
        f'<p><a href="{urls.PROJECTS}">Back to your projects</a></p></body></html>'
    )
    return HTMLResponse(page, status_code=403)
