"""Sign-in and sign-out as plain HTTP POST forms: only a real response can renew the cookie."""

from __future__ import annotations

from urllib.parse import quote

from fastapi import FastAPI, Request
from fastapi.responses import RedirectResponse, Response

from romergo.access import csrf
from romergo.common import urls
from romergo.common.errors import RomergoError
from romergo.services import Services
from ui.web_session import (
    clear_session_cookie,
    safe_next,
    same_origin,
    session_token,
    set_session_cookie,
)

MAX_FORM_FIELD = 1024


def add_routes(app: FastAPI, services: Services) -> None:
    @app.post(urls.LOGIN, include_in_schema=False)
    async def sign_in(request: Request) -> Response:
        form = await request.form()
        next_path = safe_next(form.get("next"))
        if not same_origin(request) or not csrf.check_login_token(services.secret, form.get("csrf")):
            return _back_to_login("expired", next_path)
        username, password = form.get("username"), form.get("password")
        if not isinstance(username, str) or not isinstance(password, str):
            return _back_to_login("failed", next_path)
        if len(username) > MAX_FORM_FIELD or len(password) > MAX_FORM_FIELD:
            return _back_to_login("failed", next_path)
        try:
            signed_in = await services.accounts.sign_in_with_password(username, password)
        except RomergoError as error:
            return _back_to_login("busy" if error.code == "rate_limited" else "failed", next_path)
        # A new session on every sign-in; whatever the browser held before is ended.
        await services.accounts.end_session(session_token(request))
        response = RedirectResponse(next_path or urls.PROJECTS, status_code=303)
        set_session_cookie(response, signed_in.session_token, services)
        return response

    @app.post("/logout", include_in_schema=False)
    async def sign_out(request: Request) -> Response:
        form = await request.form()
        token = session_token(request)
        if not same_origin(request) or not csrf.check_session_token(
            services.secret, "logout", token, form.get("csrf")
        ):
            return Response("This sign-out form has expired; reload the page and try again.", status_code=403)
        await services.accounts.end_session(token)
        response = RedirectResponse(f"{urls.LOGIN}?signed_out=1", status_code=303)
        clear_session_cookie(response, services)
        return response


def _back_to_login(reason: str, next_path: str | None) -> Response:
    target = f"{urls.LOGIN}?error={reason}"
    if next_path:
        target += f"&next={quote(next_path, safe='/')}"
    return RedirectResponse(target, status_code=303)
