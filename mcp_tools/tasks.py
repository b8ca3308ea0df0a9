"""Tasks (running a tool call in the background, polled with `tasks/get`): Romergo has none.

Every tool call runs to its end inside its request, so the server declares no tasks capability. A
client that calls `tasks/get`, `tasks/update` or `tasks/cancel` anyway hears what the protocol
says for that case: without the tasks extension declared, the missing capability (-32021, naming
it); with it declared, that no such task exists (-32602), as for any unknown task id.
"""

from __future__ import annotations

from typing import Any

from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.mcpserver import require_client_extension
from mcp.shared.exceptions import MCPError
from mcp.types import INVALID_PARAMS

TASKS_EXTENSION = "io.modelcontextprotocol/tasks"
TASK_METHODS = frozenset({"tasks/get", "tasks/update", "tasks/cancel"})


async def no_tasks_here(ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
    """The MCP server's middleware: answers the task methods before the SDK looks for a handler."""
    if ctx.request_id is None or ctx.method not in TASK_METHODS:
        return await call_next(ctx)
    require_client_extension(ctx, TASKS_EXTENSION)
    raise MCPError(
        INVALID_PARAMS, "There is no such task: Romergo runs every tool call to its end, never as a task."
    )
