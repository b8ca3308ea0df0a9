"""The gates around the SDK's OAuth routes, as SECURITY.md asks.

- `/authorize` checks the whole request first; anything wrong (unknown client, unregistered
  redirect URI, no S256 challenge, a scope or resource we do not offer) gets an error page here,
  never a redirect to the client. Only a sound request goes on to the consent page. A metadata
  document that could not be fetched gets a page that also says what to do (`refusal_page`).
- `/authorize`, `/token` and `/revoke` may name a client by the URL of its metadata document, which
  Romergo then fetches: such fetches are counted per address (429 once too many).
- `/register` is rate-limited per address (429) and registers public clients only (RFC 7591 lets
  the server replace requested metadata): no client secret is ever made or stored.
- `/token` refuses a `resource` other than this server's MCP endpoint (`invalid_target`).
- `/revoke` accepts public clients without a `client_secret` field.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from urllib.parse import parse_qsl

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.types import ASGIApp, Receive, Scope, Send

from mcp_tools.asked_issuer import asked_issuer
from mcp_tools.bodies import replay, with_length
from mcp_tools.refusal_page import NO_STORE, refusal_page
from romergo.access.agents import AgentService, redirects
from romergo.access.agents.client_documents import UnreachableDocument
from romergo.common.errors import RomergoError

TOO_MANY_FETCHES = "Too many client metadata documents were fetched for your address; try again in a minute."
GRANT_TYPES = ("authorization_code", "refresh_token")
"""The grants Romergo offers (and its metadata announces): the code flow with PKCE, and refresh."""


class AuthorizeGate:
    """Checks an authorization request completely before the SDK's handler may redirect anywhere."""

    PARAMETERS = (
        "client_id",
        "redirect_uri",
        "response_type",
        "code_challenge",
        "code_challenge_method",
        "state",
        "scope",
        "resource",
    )

    def __init__(self, app: ASGIApp, agents: AgentService) -> None:
        self.app = app
        self.agents = agents

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        request = Request(scope, receive)
        if request.method == "POST":
            if request.headers.get("content-type", "").split(";")[0] != "application/x-www-form-urlencoded":
                await refusal_page("The authorization request must be a form post or a GET.")(
                    scope, receive, send
                )
                return
            body = await request.body()
            params = _form(body)
            receive = replay(body, receive)
        else:
            params = request.query_params.multi_items()
        wait = await _fetch_wait(self.agents, scope, _single(params, "client_id"))
        if wait is not None:
            await refusal_page(TOO_MANY_FETCHES, status=429, retry_after=wait)(scope, receive, send)
            return
        refusal = await self.refusal(params)
        if refusal is not None:
            await refusal(scope, receive, send)
            return
        named = asked_issuer.set(self.agents.site.issuer_for(request.headers.get("host")))
        try:
            await self.app(scope, receive, send)
        finally:
            asked_issuer.reset(named)

    async def refusal(self, params: list[tuple[str, str]]) -> Response | None:
        """The error page for a request that cannot be used, or None for a sound one."""
        try:
            problem = await self.problem(params)
        except UnreachableDocument as unreachable:
            return refusal_page(unreachable.message, unreachable_document=_single(params, "client_id"))
        return refusal_page(problem) if problem is not None else None

    async def problem(self, params: list[tuple[str, str]]) -> str | None:
        """What is wrong with the request; a metadata document that could not be fetched raises
        `UnreachableDocument`, for which the page says what to do."""
        counts = Counter(key for key, _ in params)
        repeated = [key for key in self.PARAMETERS if counts[key] > 1]
        if repeated:
            return f"The parameter {repeated[0]} appears more than once."
        values = dict(params)
        if values.get("response_type") != "code":
            return "Romergo supports only response_type=code (the authorization code flow with PKCE)."
        client_id = values.get("client_id")
        if not client_id:
            return "The request names no client_id."
        try:
            client = await self.agents.clients.find(client_id)
        except UnreachableDocument:
            raise
        except RomergoError as error:
            return error.message
        if client is None:
            return "This agent is not registered with Romergo. Let it connect again so that it registers."
        try:
            self.agents.consent.check_authorization(
                client,
                redirect_uri=values.get("redirect_uri"),
                scope=values.get("scope"),
                code_challenge=values.get("code_challenge"),
                code_challenge_method=values.get("code_challenge_method"),
                resource=values.get("resource"),
                state=values.get("state"),
            )
        except RomergoError as error:
            return error.message
        return None


class PostGate:
    """A gate on a form or JSON POST: other methods pass untouched; `handle` gets the body read."""

    def __init__(self, app: ASGIApp, agents: AgentService) -> None:
        self.app = app
        self.agents = agents

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        await self.handle(scope, receive, send)

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        raise NotImplementedError

    async def forward(self, scope: Scope, body: bytes, receive: Receive, send: Send) -> None:
        """Hand the (possibly rewritten) body on to the SDK's handler."""
        await self.app(with_length(scope, len(body)), replay(body, receive), send)


class RegisterGate(PostGate):
    """Rate-limits registrations per address and registers public clients only."""

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        source = _address(scope)
        if not await self.agents.clients.registrations.allow(source):
            wait = max(1, math.ceil(await self.agents.clients.registrations.retry_after(source)))
            refusal = _refusal("rate_limited", "Too many registrations; try again later.", 429)
            refusal.headers["Retry-After"] = str(wait)
            await refusal(scope, receive, send)
            return
        body = await Request(scope, receive).body()
        try:
            metadata = json.loads(body)
        except (ValueError, RecursionError):  # nested too deep is malformed too
            metadata = None  # the SDK's handler explains what is wrong with it
        if isinstance(metadata, dict):
            problem = _redirect_problem(metadata.get("redirect_uris"))
            if problem is not None:
                # Checked as sent: URL parsing downstream would quietly normalise `/a/../cb` away.
                await _refusal("invalid_redirect_uri", problem)(scope, receive, send)
                return
            problem = _flow_problem(metadata)
            if problem is not None:
                await _refusal("invalid_client_metadata", problem)(scope, receive, send)
                return
            metadata["token_endpoint_auth_method"] = "none"  # noqa: S105 - a method name, not a secret
            body = json.dumps(metadata).encode()
        await self.forward(scope, body, receive, send)


class TokenGate(PostGate):
    """What the token endpoint refuses before the SDK's handler sees the request.

    Tokens are only ever for this server's MCP endpoint (any other `resource` is `invalid_target`);
    only the two grants Romergo offers are known (`unsupported_grant_type` for the rest); and a
    code presented with another redirect URI than it was issued for is `invalid_grant` (RFC 6749
    §5.2: the SDK says `invalid_request`).
    """

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        body = await Request(scope, receive).body()
        form = _form(body)
        refusal = await _too_many_fetches(self.agents, scope, form) or await self.refusal(form)
        if refusal is not None:
            await refusal(scope, receive, send)
            return
        await self.forward(scope, body, receive, send)

    async def refusal(self, form: list[tuple[str, str]]) -> JSONResponse | None:
        resources = [value for key, value in form if key == "resource"]
        if len(resources) > 1 or not all(self.agents.site.is_this_resource(value) for value in resources):
            return _refusal("invalid_target", f"Tokens are issued only for {self.agents.site.resource}.")
        values = dict(form)
        grant = values.get("grant_type")
        if grant is not None and grant not in GRANT_TYPES:
            return _refusal("unsupported_grant_type", f"Romergo grants {' and '.join(GRANT_TYPES)} only.")
        if grant == "authorization_code" and "redirect_uri" in values and await self._other_redirect(values):
            return _refusal("invalid_grant", "redirect_uri is not the one this code was issued for.")
        return None

    async def _other_redirect(self, values: dict[str, str]) -> bool:
        issued = await self.agents.tokens.load_code(values.get("client_id", ""), values.get("code", ""))
        return issued is not None and issued.redirect_uri != values["redirect_uri"]


class RevokeGate(PostGate):
    """Lets public clients revoke as RFC 7009 allows, without a `client_secret` field.

    The SDK's revocation handler requires the field to be present (even empty); public clients,
    which is all of Romergo's, have no secret to send.
    """

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        body = await Request(scope, receive).body()
        refusal = await _too_many_fetches(self.agents, scope, _form(body))
        if refusal is not None:
            await refusal(scope, receive, send)
            return
        if not any(key == "client_secret" for key, _ in _form(body)):
            body = body + (b"&" if body else b"") + b"client_secret="
        await self.forward(scope, body, receive, send)


async def _too_many_fetches(
    agents: AgentService, scope: Scope, form: list[tuple[str, str]]
) -> JSONResponse | None:
    """The 429 for a form naming a client whose metadata document this address may not fetch now."""
    wait = await _fetch_wait(agents, scope, _single(form, "client_id"))
    if wait is None:
        return None
    refusal = _refusal("rate_limited", TOO_MANY_FETCHES, 429)
    refusal.headers["Retry-After"] = str(wait)
    return refusal


async def _fetch_wait(agents: AgentService, scope: Scope, client_id: str | None) -> int | None:
    """Seconds to wait when fetching `client_id`'s metadata document now would take the caller's
    address past its share of fetches; None when it may go on (no fetch, or one within the share)."""
    documents = agents.clients.documents
    if client_id is None or not documents.will_fetch(client_id):
        return None
    address = _address(scope)
    if await documents.fetches.allow(address):
        return None
    return max(1, math.ceil(await documents.fetches.retry_after(address)))


def _address(scope: Scope) -> str:
    """The caller's address (the proxy's word for it only from a trusted proxy: see `app.py`)."""
    return str((scope.get("client") or ("unknown", 0))[0])


def _single(params: list[tuple[str, str]], key: str) -> str | None:
    """The value of a parameter given exactly once."""
    values = [value for name, value in params if name == key]
    return values[0] if len(values) == 1 else None


def _flow_problem(metadata: dict[str, object]) -> str | None:
    """Only the authorization code flow (with refresh): no implicit, password or other grants."""
    grants = metadata.get("grant_types")
    if isinstance(grants, list) and not set(map(str, grants)) <= set(GRANT_TYPES):
        return f"grant_types may hold only {' and '.join(GRANT_TYPES)}."
    responses = metadata.get("response_types")
    if isinstance(responses, list) and not set(map(str, responses)) <= {"code"}:
        return "response_types may hold only code."
    return None


def _redirect_problem(uris: object) -> str | None:
    if not isinstance(uris, list) or not all(isinstance(uri, str) for uri in uris):
        return None  # not our question: the SDK's handler refuses malformed metadata
    try:
        redirects.check_redirect_uris(uris)
    except RomergoError as error:
        return error.message
    return None


def _form(body: bytes) -> list[tuple[str, str]]:
    return parse_qsl(body.decode("utf-8", "replace"), keep_blank_values=True)


def _refusal(error: str, description: str, status: int = 400) -> JSONResponse:
    """An OAuth error response (RFC 6749 §5.2), never cached."""
    return JSONResponse(
        {"error": error, "error_description": description}, status_code=status, headers=dict(NO_STORE)
    )
