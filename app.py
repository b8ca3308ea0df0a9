"""Romergo's composition root: config → database → services → adapters on one FastAPI app → uvicorn.

`python app.py` is `romergo serve` (the command line itself lives in `cli`).
"""

from __future__ import annotations

import asyncio
import dataclasses
import gc
import logging
import socket
import sys
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING

from romergo.common.config import MAX_AGENT_BODY, MIB, Settings

if TYPE_CHECKING:
    from fastapi import FastAPI

    from hardening.connections import ConnectionRules
    from romergo.services import Services

# Request bodies: 5 MiB where agents and OAuth clients post (CONTRACT.md §5), 1 MiB for sign-in and
# invitation forms,
# 30 MiB elsewhere (uploads, checked again by size and content in the core).
BODY_LIMITS = [
    ("/mcp", MAX_AGENT_BODY),
    ("/token", MAX_AGENT_BODY),
    ("/register", MAX_AGENT_BODY),
    ("/login", MIB),
    ("/logout", MIB),
    ("/invitations/", MIB),
]
DEFAULT_BODY_LIMIT = 30 * MIB
# Consent, OAuth errors, the agents page and an invitation's page (its secret in the address) must
# never be cached or shown from a back button.
NO_STORE_PREFIXES = ["/oauth/", "/authorize", "/settings/agents", "/invitations/"]
# What a browser-based MCP client calls cross-origin: the endpoint, OAuth discovery, registration, tokens.
AGENT_PREFIXES = ["/mcp", "/.well-known/", "/register", "/token", "/revoke"]
GC_THRESHOLDS = (50_000, 20, 10)
"""The server's garbage collector thresholds (`gc.set_threshold`; Python's default is 700, 10, 10)."""


def serve(settings: Settings) -> None:
    """Bind first, so `--port 0` works: the address printed and used as the OAuth audience is the real one."""
    from romergo.common.errors import RomergoError
    from romergo.services import build_services, prepare_database
    from storage.backup import BackupRefused, server_lock

    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    load_layout_engine()
    connections = connection_rules(settings)
    listener = listening_socket(settings.host, settings.port)
    settings = dataclasses.replace(settings, port=listener.getsockname()[1])
    # The bound address, for whoever started it with `--port 0` or runs it behind a public URL.
    print(f"Listening on http://{settings.host}:{settings.port}", flush=True)
    try:
        lock = server_lock(settings.data_dir)  # `romergo restore` refuses while a server runs here
        lock.__enter__()
    except BackupRefused as refused:
        raise RomergoError("conflict", str(refused)) from None
    try:
        secret = asyncio.run(prepare_database(settings))
        app = build_app(build_services(settings, secret=secret))
        _run(app, settings, listener, connections)
    finally:
        lock.__exit__(None, None, None)


def load_layout_engine() -> None:
    """The story map's layout engine (igraph), loaded at start-up rather than by the first map,
    and without igraph's drawing half.

    igraph imports `matplotlib.pyplot` whenever matplotlib is installed (the test extras install
    it for the benchmark's plots): 0.9 s of CPU and 50 MB more in a server that never draws. An
    import whose `sys.modules` entry is None fails as "not installed" (the import system's
    documented rule), so matplotlib's entry is None for the length of this one import. Done only
    while the process has a single thread, so no other import can meet it; else a plain import."""
    from romergo.story.story_map import layout_engine

    if threading.active_count() > 1 or "matplotlib" in sys.modules:
        layout_engine()
        return
    sys.modules["matplotlib"] = None  # type: ignore[assignment]
    try:
        layout_engine()
    finally:
        del sys.modules["matplotlib"]


def _run(app: FastAPI, settings: Settings, listener: socket.socket, connections: ConnectionRules) -> None:
    import uvicorn

    from hardening.connections import guarded_http_protocol

    # Everything made so far (modules, the app, its routes) lives as long as the process: out of the
    # garbage collector's sight, a full collection no longer walks it each time a long story's
    # 50,000 rows are made (the story check of 2,000 scenes: 0.45 s -> 0.2-0.25 s in-process).
    gc.freeze()
    # Collect cyclic garbage after 50,000 new objects, not 700. With a thousand agents parked, each
    # re-poll made a few thousand objects, so full collections came every few seconds and walked
    # every agent's state (~130 ms each, on the loop); idle CPU at 1,000 agents fell by about two
    # points (docs/performance.md). What waits for collection is a few MB at most.
    gc.set_threshold(*GC_THRESHOLDS)
    # A long-poll in flight must not hold shutdown for its whole window; access lines would bury
    # the sign-in link, so they are off (a reverse proxy logs requests better anyway).
    # Forwarding headers only from configured proxies: uvicorn would otherwise believe any loopback peer.
    proxies = list(settings.trusted_proxies)
    config = uvicorn.Config(
        app,
        http=guarded_http_protocol(connections),
        timeout_graceful_shutdown=2,
        log_level="info",
        access_log=False,
        proxy_headers=bool(proxies),
        forwarded_allow_ips=proxies or None,
    )
    # The bound socket itself, never its file descriptor: uvicorn's `fd=` rebuilds the socket as
    # AF_UNIX, so asyncio leaves Nagle on for every connection and each response part waits out the
    # peer's 40 ms delayed ACK (that was most of every MCP call's time).
    uvicorn.Server(config).run(sockets=[listener])


def build_app(services: Services) -> FastAPI:
    """One app for everything: adapters (MCP, the API) are added before the UI, which mounts at `/`.

    Configure logging before calling this: the MCP SDK's server constructor calls `logging.basicConfig`.
    """
    from fastapi import FastAPI

    import api
    import mcp_tools.http
    import ui
    from hardening import AgentCors, BodyLimit, HostGuard, NoStore, SecurityHeaders
    from mcp_tools.server import build_server
    from romergo.access.origins import allowed_hosts, allowed_origins
    from romergo.demo.agent_process import DemoAgentProcesses

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        user_id, sweeper = await _start(services)
        try:
            async with mcp_http.running():
                token = await services.accounts.create_signin_link(user_id)
                print(f"\nSign in: {services.settings.base_url}/login?token={token}\n", flush=True)
                yield
        finally:
            sweeper.cancel()
            await demo_agents.stop_all()
            await services.close()

    app = FastAPI(lifespan=lifespan, docs_url=None, redoc_url=None, openapi_url=None)
    app.state.services = services
    mcp_http = mcp_tools.http.mount(app, services, build_server(services))
    app.state.mcp = mcp_http
    api.mount(app, services, services.agents.tokens.identity)
    _unknown_well_known_is_404(app)
    demo_agents = DemoAgentProcesses(services)
    ui.mount(app, services, demo_agents)
    app.add_middleware(BodyLimit, limits=BODY_LIMITS, default=DEFAULT_BODY_LIMIT)
    app.add_middleware(NoStore, prefixes=NO_STORE_PREFIXES)
    app.add_middleware(SecurityHeaders)
    settings = services.settings
    app.add_middleware(AgentCors, prefixes=AGENT_PREFIXES, allowed_origins=allowed_origins(settings))
    # Outermost: a request for a foreign Host or from a foreign Origin reaches nothing else.
    app.add_middleware(
        HostGuard, allowed_hosts=allowed_hosts(settings), allowed_origins=allowed_origins(settings)
    )
    return app


async def _start(services: Services) -> tuple[str, asyncio.Task[None]]:
    """Listen for other instances' wake-ups (PostgreSQL), create the first account and the demo on
    an empty database, start the sweeper (`serve` migrated the database before building the app).

    Returns whom the printed sign-in link is for (the first account) and the sweeper's task.
    """
    from romergo.services import first_start

    await services.start_wakeups()
    user, created = await first_start(services)
    if created:
        print(
            f"First start: created the account {user.username!r} (no password; sign in with the link below)"
            " and the demo project. Data lives in "
            f"{services.settings.data_dir.resolve()}.",
            flush=True,
        )
    await services.agents.housekeeping.purge_expired()
    return user.id, asyncio.create_task(services.channels.sweeper.run(), name="channel sweeper")


def _unknown_well_known_is_404(app: FastAPI) -> None:
    """Clients probe discovery documents we do not serve (`openid-configuration`, path-inserted
    metadata): they must get a plain 404, not the sign-in page that answers every other unknown path."""
    from fastapi.responses import JSONResponse

    @app.get("/.well-known/{rest:path}", include_in_schema=False)
    async def unknown(rest: str) -> JSONResponse:
        return JSONResponse({"error": {"code": "not_found", "message": "No such document."}}, status_code=404)


def connection_rules(settings: Settings) -> ConnectionRules:
    """The configured head deadline and per-address cap, the total cap from this process's
    open-files limit; trusted proxies carry many clients, so only the total cap applies to them."""
    from hardening.connections import ConnectionRules, total_for_open_files

    return ConnectionRules(
        total=total_for_open_files(),
        per_address=settings.connections_per_address,
        head_seconds=float(settings.request_head_seconds),
        uncapped_networks=settings.trusted_proxies,
    )


def listening_socket(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # IPPROTO_TCP spelled out: asyncio sets TCP_NODELAY on accepted connections only when the
    # socket says it is TCP (proto 0 does not), and without it a response written in two parts
    # waits out the client's 40 ms delayed ACK.
    listener = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind((host, port))
    # Listening before start-up finishes lets a client that read the sign-in line connect and wait
    # in the backlog instead of being refused.
    listener.listen(2048)
    return listener


if __name__ == "__main__":
    from cli.main import main

    sys.exit(main())
