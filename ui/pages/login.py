"""`/login`: the sign-in form, and the one-time link `romergo serve` prints (`/login?token=...`);
with an identity provider configured, "Sign in with <provider>" beside the form."""

from __future__ import annotations

from urllib.parse import quote

from fastapi import Request
from fastapi.responses import RedirectResponse, Response
from nicegui import ui

from romergo.access import csrf
from romergo.common import urls
from romergo.common.actors import user_actor
from romergo.common.errors import RomergoError
from romergo.services import Services
from ui.provider_sign_in import REFUSAL, START
from ui.web_session import safe_next, session_token, set_session_cookie, signed_in_user

MESSAGES = {
    "failed": "Wrong username or password.",
    "busy": "Too many sign-in attempts. Wait a minute and try again.",
    "expired": "The sign-in form expired. Please try again.",
}


def register(services: Services) -> None:
    @ui.page(urls.LOGIN, title="Sign in · Romergo")
    async def login_page(request: Request) -> Response | None:
        query = request.query_params
        next_path = safe_next(query.get("next"))
        if "token" in query:
            return await _follow_link(services, request, query.get("token", ""))
        if await signed_in_user(services, request) is not None:
            return RedirectResponse(next_path or urls.PROJECTS, status_code=303)
        _form(services, _error(request), next_path, signed_out="signed_out" in query)
        return None


def _error(request: Request) -> str | None:
    reason = request.query_params.get("error", "")
    if reason == "provider":
        refusal = request.session.pop(REFUSAL, None)
        return refusal if isinstance(refusal, str) else None
    return MESSAGES.get(reason)


async def _follow_link(services: Services, request: Request, token: str) -> Response | None:
    try:
        signed_in = await services.accounts.sign_in_with_link(token)
    except RomergoError:
        _link_refused()
        return None
    await services.accounts.end_session(session_token(request))
    projects = await services.projects.list_projects(user_actor(signed_in.user.id))
    target = urls.project(projects[0].id) if projects else urls.PROJECTS
    response = RedirectResponse(target, status_code=303)
    set_session_cookie(response, signed_in.session_token, services)
    return response


def _form(services: Services, error: str | None, next_path: str | None, *, signed_out: bool) -> None:
    with ui.card().classes("w-96 mx-auto mt-24 p-6 gap-4"):
        ui.label("Romergo").classes("text-h5 text-weight-bold")
        ui.label("Sign in to your stories").classes("text-grey-7")
        if signed_out:
            ui.label("You are signed out.").props('role="status"').classes("text-positive")
        if error:
            ui.label(error).props('role="alert"').classes("text-negative")
        form = ui.element("form").props(f'method="post" action="{urls.LOGIN}"')
        with form.classes("flex flex-col gap-3 w-full"):
            hidden = ui.element("input").props('type="hidden" name="csrf"')
            hidden.props["value"] = csrf.login_token(services.secret)
            if next_path:
                follow = ui.element("input").props('type="hidden" name="next"')
                follow.props["value"] = next_path
            ui.input("Username").props('name="username" autocomplete="username" autofocus outlined')
            ui.input("Password", password=True).props(
                'name="password" autocomplete="current-password" outlined'
            )
            ui.button("Sign in").props('type="submit" color="primary" unelevated').classes("w-full")
        if services.identities.configured:
            _provider_button(services.settings.oidc_provider_name, next_path)
        ui.markdown(
            "No password yet? Use the sign-in link `romergo serve` prints, or run `romergo login-link` "
            "for a fresh one."
        ).classes("text-caption text-grey-7")


def _provider_button(name: str, next_path: str | None) -> None:
    target = START if not next_path else f"{START}?next={quote(next_path, safe='/')}"
    # A link, not a form: starting the flow changes nothing here, and the callback is bound to
    # this browser by the state in its session.
    with ui.link(target=target).classes("w-full no-underline"):
        ui.button(f"Sign in with {name}").props('outline color="primary" no-caps').classes("w-full")


def _link_refused() -> None:
    with ui.card().classes("w-96 mx-auto mt-24 p-6 gap-3"):
        ui.label("This sign-in link cannot be used").classes("text-h6").props('role="alert"')
        # Markdown, so the commands show as code rather than as literal backticks.
        ui.markdown(
            "Sign-in links work once and only for 15 minutes. For a fresh one, run "
            "`romergo login-link` where Romergo runs (no restart needed). If you have set a "
            "password (`romergo user passwd NAME`), you can sign in with it instead."
        ).classes("text-grey-8").props('data-testid="link-refused-help"')
        ui.link("Sign in with a password", urls.LOGIN)
