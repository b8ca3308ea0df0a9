"""The Anthropic Messages API as Claude Code calls it: `POST /v1/messages` (with `?beta=true`),
streamed as server-sent events, and `POST /v1/messages/count_tokens`.

The model sees tool results as the `tool_result` blocks of the user turns Claude Code resends:
their `content` is a string or a list of blocks, whose text is what reached the model. The answer
is one content block, a `tool_use` or a `text`, streamed with the events and fields the real API
sends (message_start, content_block_start / delta / stop, message_delta, message_stop).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Coroutine, Iterator
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from tests.harnesses.model.loop import Answer, Step, ToolCall
from tests.harnesses.model.standin import Conversation, Exchange

API = "anthropic-messages"
MODEL = "claude-stand-in"
Handler = Callable[[Request], Coroutine[Any, Any, Response]]


def routes(conversation: Conversation) -> list[Route]:
    return [
        Route("/v1/messages", _messages(conversation), methods=["POST"]),
        Route("/v1/messages/count_tokens", _count_tokens, methods=["POST"]),
    ]


def exchange_of(body: dict[str, Any]) -> Exchange:
    """What the model was offered and shown in one request."""
    offered = [str(tool["name"]) for tool in body.get("tools", []) if "name" in tool]
    results = [
        _text_of(block.get("content", ""))
        for message in body.get("messages", [])
        if message.get("role") == "user" and isinstance(message.get("content"), list)
        for block in message["content"]
        if block.get("type") == "tool_result"
    ]
    return Exchange(API, offered, results)


def _messages(conversation: Conversation) -> Handler:
    async def messages(request: Request) -> Response:
        body = await request.json()
        step = conversation.answer(exchange_of(body))
        message_id = f"msg_{uuid.uuid4().hex[:24]}"
        headers = {"request-id": f"req_{uuid.uuid4().hex[:24]}"}
        if not body.get("stream"):
            return JSONResponse(_whole_message(message_id, step), headers=headers)
        return StreamingResponse(
            _events(message_id, step), media_type="text/event-stream; charset=utf-8", headers=headers
        )

    return messages


async def _count_tokens(request: Request) -> Response:
    body = await request.body()
    return JSONResponse({"input_tokens": max(1, len(body) // 4)})


def _events(message_id: str, step: Step) -> Iterator[bytes]:
    yield _event("message_start", {"type": "message_start", "message": _message(message_id, [], None)})
    yield _event(
        "content_block_start", {"type": "content_block_start", "index": 0, "content_block": _opened(step)}
    )
    yield _event("ping", {"type": "ping"})
    for delta in _deltas(step):
        yield _event("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta})
    yield _event("content_block_stop", {"type": "content_block_stop", "index": 0})
    yield _event(
        "message_delta",
        {
            "type": "message_delta",
            "delta": {"stop_reason": _stop_reason(step), "stop_sequence": None},
            "usage": {"output_tokens": 20},
        },
    )
    yield _event("message_stop", {"type": "message_stop"})


def _whole_message(message_id: str, step: Step) -> dict[str, Any]:
    if isinstance(step, ToolCall):
        block: dict[str, Any] = {**_opened(step), "input": step.arguments}
    else:
        block = {"type": "text", "text": step.text}
    return _message(message_id, [block], _stop_reason(step))


def _message(message_id: str, content: list[dict[str, Any]], stop_reason: str | None) -> dict[str, Any]:
    return {
        "id": message_id,
        "type": "message",
        "role": "assistant",
        "model": MODEL,
        "content": content,
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": {
            "input_tokens": 100,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
            "output_tokens": 1,
            "service_tier": "standard",
        },
    }


def _opened(step: Step) -> dict[str, Any]:
    """A content block as content_block_start opens it: its input or text comes in the deltas."""
    if isinstance(step, ToolCall):
        return {"type": "tool_use", "id": f"toolu_{uuid.uuid4().hex[:24]}", "name": step.tool, "input": {}}
    return {"type": "text", "text": ""}


def _deltas(step: Step) -> Iterator[dict[str, Any]]:
    """The block's content in two pieces, as the API streams it (partial JSON is not JSON)."""
    if isinstance(step, Answer):
        half = len(step.text) // 2
        for piece in (step.text[:half], step.text[half:]):
            yield {"type": "text_delta", "text": piece}
        return
    arguments = json.dumps(step.arguments)
    half = len(arguments) // 2
    for piece in (arguments[:half], arguments[half:]):
        yield {"type": "input_json_delta", "partial_json": piece}


def _stop_reason(step: Step) -> str:
    return "tool_use" if isinstance(step, ToolCall) else "end_turn"


def _event(name: str, data: dict[str, Any]) -> bytes:
    return f"event: {name}\ndata: {json.dumps(data)}\n\n".encode()


def _text_of(content: str | list[dict[str, Any]]) -> str:
    """A tool result's text as the model reads it: the string, or its text blocks in order."""
    if isinstance(content, str):
        return content
    return "\n".join(str(block.get("text", "")) for block in content if block.get("type") == "text")
