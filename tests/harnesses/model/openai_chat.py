"""The OpenAI Chat Completions API, as the stand-in speaks it: `POST /v1/chat/completions` with
`stream: true`, answered by server-sent `chat.completion.chunk` events and `data: [DONE]`.

Harnesses with an OpenAI-compatible provider (opencode's `@ai-sdk/openai-compatible`) call this.
The request carries the whole conversation: the tools offered in `tools[].function.name`, and each
tool result as a `role: "tool"` message whose `content` is exactly what the model is shown. A tool
call streams as the real API sends it: the call's id, type and name with empty arguments first, the
arguments in a later delta, then `finish_reason: "tool_calls"`; with `stream_options.include_usage`
every chunk has `usage: null` and a last chunk with no choices carries the usage.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from tests.harnesses.model.loop import Step, ToolCall
from tests.harnesses.model.standin import Conversation, Exchange

API = "openai-chat"
MODEL = "romergo-stand-in"


def routes(conversation: Conversation) -> list[Route]:
    async def completions(request: Request) -> Response:
        body = await request.json()
        if not body.get("stream"):
            error = {
                "message": "the stand-in answers streamed requests only",
                "type": "invalid_request_error",
            }
            return JSONResponse({"error": error}, status_code=400)
        step = conversation.answer(exchange_of(body))
        return StreamingResponse(_events(list(_chunks(step, body))), media_type="text/event-stream")

    return [Route("/v1/chat/completions", completions, methods=["POST"])]


def exchange_of(body: dict[str, Any]) -> Exchange:
    """What the harness showed its model: the tools offered and every tool message, oldest first."""
    offered = [tool["function"]["name"] for tool in body.get("tools") or [] if tool.get("type") == "function"]
    results = [_text(message.get("content")) for message in body["messages"] if message["role"] == "tool"]
    return Exchange(API, offered, results)


def _text(content: Any) -> str:
    """A message's content: a string, or a list of parts whose text parts are what the model reads."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(part.get("text", "") for part in content if isinstance(part, dict))
    return ""


async def _events(chunks: list[dict[str, Any]]) -> AsyncIterator[bytes]:
    for chunk in chunks:
        yield f"data: {json.dumps(chunk)}\n\n".encode()
    yield b"data: [DONE]\n\n"


def _chunks(step: Step, body: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """The chunks of one streamed answer, in the order and shape the real API sends them."""
    usage_asked = bool((body.get("stream_options") or {}).get("include_usage"))
    head = {
        "id": f"chatcmpl-{uuid.uuid4().hex[:24]}",
        "object": "chat.completion.chunk",
        "created": int(time.time()),
        "model": body.get("model", MODEL),
        "system_fingerprint": None,
        **({"usage": None} if usage_asked else {}),
    }

    def chunk(delta: dict[str, Any], finish_reason: str | None = None) -> dict[str, Any]:
        choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish_reason}
        return {**head, "choices": [choice]}

    if isinstance(step, ToolCall):
        call_id = f"call_{uuid.uuid4().hex[:24]}"
        opening = {
            "index": 0,
            "id": call_id,
            "type": "function",
            "function": {"name": step.tool, "arguments": ""},
        }
        yield chunk({"role": "assistant", "content": None, "tool_calls": [opening], "refusal": None})
        arguments = {"index": 0, "function": {"arguments": json.dumps(step.arguments)}}
        yield chunk({"tool_calls": [arguments]})
        yield chunk({}, "tool_calls")
    else:
        yield chunk({"role": "assistant", "content": "", "refusal": None})
        yield chunk({"content": step.text})
        yield chunk({}, "stop")
    if usage_asked:
        yield {**head, "choices": [], "usage": _usage(body)}


def _usage(body: dict[str, Any]) -> dict[str, int]:
    """Token counts of the right order of magnitude (about four characters a token)."""
    prompt = len(json.dumps(body["messages"])) // 4
    return {"prompt_tokens": prompt, "completion_tokens": 20, "total_tokens": prompt + 20}
