"""The seam every MCP tool goes through: who calls, may they, on whose behalf, and how errors look.

A tool is declared once on a `Toolbox` (`mcp_tools.declare`), which calls `run_tool` with the
call's arguments and a body working on an `Actor`. `run_tool` identifies the agent from its
verified access token (re-read from the core, so a revoked token stops at once), applies the
per-client rate limit, checks the token's scope for the tool's category (the outer bound),
resolves which project the call touches, and hands the call to the core's guard
(`ChannelService.run_tool_call`): attribution to a command, the room's permissions and
confirmations, tool events. It builds the actor the revisions record and turns every failure
into the contract's tool error text (CONTRACT.md §1): `[code] message`, never a traceback.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import ValidationError

from mcp_tools.oauth_provider import VerifiedAccess
from romergo.access.agents import AgentIdentity
from romergo.access.agents.activity import REFUSAL_CODES
from romergo.access.agents.scopes import DELETE, EDIT, MEDIA, PUBLISH, READ
from romergo.channels import AgentRef, ToolCall
from romergo.channels.reach import Target, TargetKind
from romergo.common.actors import Actor, agent_actor
from romergo.common.errors import ErrorCode, RomergoError
from romergo.services import Services
from romergo.story.based_on import collect_replaced
from romergo.story.read_marks import CallReads, collect_reads, remember_reads

log = logging.getLogger(__name__)

T = TypeVar("T")
Category = Literal["read", "edit", "media", "publish", "delete", "channel"]
CATEGORY_SCOPES: dict[Category, str] = {
    "read": READ,
    "edit": EDIT,
    "media": MEDIA,
    "publish": PUBLISH,
    "delete": DELETE,
    "channel": READ,
}
INTERNAL_MESSAGE = "Something went wrong inside Romergo; the error was logged."


Heartbeat = Callable[[], Awaitable[None]]


@dataclass(frozen=True)
class ToolSpec:
    name: str
    category: Category
    title: str
    description: str
    annotations: ToolAnnotations
    target: tuple[TargetKind, str] | None = None
    """Which argument names the entity the call works on, e.g. ("scene", "scene_id"): its project
    is the call's project, checked against the agent's room before anything runs."""
    action: Callable[[dict[str, Any]], str] | None = None
    """The call in plain words for the owner's confirmation dialog."""
    also: tuple[tuple[TargetKind, str], ...] = ()
    """Other arguments naming entities the room must reach (a move's destination chapter)."""
    whole_project: bool = False
    """The call acts on the whole project (publishing, a new chapter): refused in a limited room."""


class RomergoToolError(ToolError):
    """A refused call. Its text is exactly `[code] message`, which is what the agent reads."""

    def __init__(self, code: ErrorCode, message: str) -> None:
        super().__init__(f"[{code}] {message}")
        self.code: ErrorCode = code
        self.message = message


async def current_agent(services: Services) -> AgentIdentity:
    """The agent behind this request, from its verified bearer token, as the core knows it now.

    Over HTTP the bearer gate verified the token at the start of this very request and carries
    the agent along (`VerifiedAccess`); a token put in the auth context any other way (in-memory
    clients) is verified here."""
    access = get_access_token()
    if access is None:
        raise RomergoError("unauthorized", "This call carries no access token.")
    if isinstance(access, VerifiedAccess):
        return access.identity
    identity = await services.agents.tokens.identity(access.token)
    if identity is None:
        raise RomergoError("unauthorized", "This access token was revoked or has expired. Connect again.")
    return identity


async def run_tool(
    services: Services,
    spec: ToolSpec,
    arguments: dict[str, Any],
    body: Callable[[Actor], Awaitable[T]],
    ctx: Context[Any, Any] | None = None,
) -> T:
    """Run one tool call. `arguments` are the validated arguments with defaults filled in (they
    are shown to the owner and fingerprinted for confirmations)."""
    agent: AgentIdentity | None = None
    try:
        agent = await current_agent(services)
        with collect_reads() as seen, collect_replaced():
            result = await _run_for(services, spec, arguments, body, ctx, agent)
        await _remember_without_holding_the_answer(services, agent.client_id, seen)
    except RomergoError as error:
        await _note(services, agent, spec.name, error.code)
        raise RomergoToolError(error.code, error.message) from None
    except ToolError:
        raise
    except Exception:
        log.exception("Tool %s failed", spec.name)
        raise RomergoToolError("internal", INTERNAL_MESSAGE) from None
    await _note(services, agent, spec.name, None)
    return result


async def _run_for(
    services: Services,
    spec: ToolSpec,
    arguments: dict[str, Any],
    body: Callable[[Actor], Awaitable[T]],
    ctx: Context[Any, Any] | None,
    agent: AgentIdentity,
) -> T:
    """The checks and the guard, for a caller known from its token."""
    if not await services.channels.guard.tool_calls.allow(agent.client_id):
        raise RomergoError(
            "rate_limited", "Too many tool calls from this agent. Slow down and try again in a minute."
        )
    needed = CATEGORY_SCOPES[spec.category]
    if not agent.has_scope(needed):
        raise RomergoError(
            "permission_denied",
            f"{spec.name} needs the {needed} scope, which this connection was not granted. "
            "The owner can grant it by connecting the agent again.",
        )
    named = arguments.get("command_id")
    command_id = named if isinstance(named, str) else None
    base = agent_actor(agent.user_id, agent.client_id, agent.client_name)
    if spec.category == "channel":
        # Channel tools check membership themselves; they are how the room is joined and left.
        return await body(base.for_tool(spec.name, command_id))
    call = ToolCall(
        caller=agent,
        tool=spec.name,
        category=spec.category,
        arguments=arguments,
        command_id=command_id,
        project_id=await _target_project(services, spec, arguments, base),
        action=spec.action(arguments) if spec.action else "",
        targets=_targets(spec, arguments),
        whole_project=spec.whole_project,
    )
    return await services.channels.guard.run_tool_call(
        call,
        lambda admitted: body(base.for_tool(spec.name, admitted.command_id, admitted.reach)),
        _heartbeat(ctx, spec.name),
    )


async def _note(services: Services, agent: AgentIdentity | None, tool: str, code: str | None) -> None:
    """The settings page's last accepted and last refused call of this agent."""
    if agent is None:
        return
    activity = services.agents.activity
    if code in REFUSAL_CODES:
        await activity.refused(agent.user_id, agent.client_id, tool, code or "")
    else:
        activity.accepted(agent.user_id, agent.client_id, tool)


def _targets(spec: ToolSpec, arguments: dict[str, Any]) -> tuple[Target, ...]:
    named = [spec.target, *spec.also] if spec.target is not None else list(spec.also)
    return tuple(
        Target(kind, value)
        for kind, argument in named
        if isinstance(value := arguments.get(argument), str) and value and kind != "command"
    )


async def _target_project(
    services: Services, spec: ToolSpec, arguments: dict[str, Any], actor: Actor
) -> str | None:
    if spec.target is None:
        return None
    kind, argument = spec.target
    value = arguments.get(argument)
    if not isinstance(value, str) or not value:
        raise RomergoError("invalid_argument", f"{argument} is required.")
    if kind == "command":
        return await services.channels.guard.project_of_command(actor_caller(actor), value)
    return await services.reads.project_of(actor, kind, value)


def actor_caller(actor: Actor) -> AgentRef:
    return AgentRef(user_id=actor.user_id, client_id=actor.client_id or actor.id, client_name=actor.name)


def _heartbeat(ctx: Context[Any, Any] | None, tool: str) -> Heartbeat | None:
    """MCP progress while a call waits (for the owner's confirmation): clients keep the call open."""
    return progress_heartbeat(ctx, f"{tool}: waiting for the owner")


def progress_heartbeat(ctx: Context[Any, Any] | None, message: str) -> Heartbeat | None:
    """A heartbeat that sends MCP progress, counting up as the protocol asks (a client may drop a
    notification whose progress did not increase). None when the client sent no progress token
    (`wants_progress`): nothing would reach it."""
    if ctx is None or not wants_progress(ctx):
        return None
    beats = 0

    async def beat() -> None:
        nonlocal beats
        beats += 1
        await ctx.report_progress(beats, None, message)

    return beat


READ_MARKS_WAIT_SECONDS = 0.05
"""How long a read's answer waits for its read marks to be stored (they need the database's write
lock, which a long import or restore may hold); past it they are stored after the answer."""
_storing: set[asyncio.Task[None]] = set()


async def _remember_without_holding_the_answer(services: Services, client_id: str, seen: CallReads) -> None:
    """Store what the call showed its agent, but never keep a read waiting on the write lock: the
    marks only tell a later write whether it replaced a newer change, so they may land late."""
    storing = asyncio.create_task(_remember_quietly(services, client_id, seen))
    _storing.add(storing)
    storing.add_done_callback(_storing.discard)
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(asyncio.shield(storing), READ_MARKS_WAIT_SECONDS)


async def _remember_quietly(services: Services, client_id: str, seen: CallReads) -> None:
    try:
        await remember_reads(services.story_ledger, client_id, seen)
    except Exception:  # a lost mark costs only a later note, never the read
        log.exception("storing an agent's read marks failed")


def wants_progress(ctx: Context[Any, Any]) -> bool:
    """Whether the call asked for progress notifications (a progress token in its `_meta`).

    A parked call without one beats no heartbeat at all: the SDK would send nothing, and a thousand
    idle agents' beats woke the loop a hundred times a second for nothing."""
    meta: Mapping[str, Any] = ctx.request_context.meta or {}
    return meta.get("progress_token", meta.get("progressToken")) is not None


def error_result(tool: str, error: ToolError) -> CallToolResult:
    """The tool error the agent sees: text that starts with `[code] ` (CONTRACT.md §1).

    The SDK wraps whatever a tool raises as `Error executing tool NAME: ...`; this unwraps it.
    """
    return CallToolResult(content=[TextContent(type="text", text=_error_text(tool, error))], is_error=True)


def _error_text(tool: str, error: ToolError) -> str:
    cause = error.__cause__
    if isinstance(error, RomergoToolError):
        return str(error)
    if isinstance(cause, RomergoToolError):
        return str(cause)
    if not isinstance(error, UnexpectedToolError) and isinstance(cause, ValidationError):
        return _bad_arguments(tool, cause)
    # A crash in the tool, a result that does not fit its own output schema, or anything unforeseen.
    log.error("Tool %s failed", tool, exc_info=cause or error)
    return f"[internal] {INTERNAL_MESSAGE}"


def _bad_arguments(tool: str, cause: ValidationError) -> str:
    # Field names and pydantic's reasons only: the rejected values are the caller's own data.
    problems = "; ".join(
        f"{'.'.join(str(part) for part in item['loc']) or 'arguments'}: {item['msg']}"
        for item in cause.errors(include_url=False, include_input=False)
    )
    log.info("Tool %s rejected its arguments: %s", tool, problems)
    return f"[invalid_argument] Bad arguments for {tool}: {problems}."
