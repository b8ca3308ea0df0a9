"""The Gemini API as Gemini CLI calls it: `POST /v1beta/models/{model}:streamGenerateContent?alt=sse`
(and `:generateContent`, `:countTokens` for its side requests), answered as the API does.

A request offers the tools in `tools[].functionDeclarations[].name`; the tool results come back in
the user turns as `functionResponse` parts, whose `response` is what the model reads (Gemini CLI
puts the tool's text in `response.output`). The answer streams as server-sent events, each a whole
`GenerateContentResponse` (`data: {...}` and a blank line, `\\r\\n` as the API writes them) with
the model's parts (a `functionCall` with its `thoughtSignature`, or text), the finish reason and
the token counts.
"""

from __future__ import annotations

import json
import secrets
from base64 import b64encode
from collections.abc import AsyncIterator
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from tests.harnesses.model.loop import Answer, Step, ToolCall
from tests.harnesses.model.standin import Conversation, Exchange

API = "gemini"
MODEL_VERSION = "gemini-2.5-pro"


def routes(conversation: Conversation) -> list[Route]:
    async def models(request: Request) -> Response:
        method = request.path_params["target"].rpartition(":")[2]
        body = await request.json()
        if method == "countTokens":
            return JSONResponse({"totalTokens": len(json.dumps(body)) // 4})
        if method not in ("streamGenerateContent", "generateContent"):
            return _error(404, "NOT_FOUND", f"Method {method} is not supported by this stand-in.")
        step = conversation.answer(exchange_of(body))
        if method == "generateContent":
            return JSONResponse(_response(step, body))
        return StreamingResponse(_events(step, body), media_type="text/event-stream")

    return [Route("/v1beta/models/{target}", models, methods=["POST"])]


def exchange_of(body: dict[str, Any]) -> Exchange:
    """What the model was offered and shown in one request."""
    offered = [
        declaration["name"]
        for tool in body.get("tools") or []
        for declaration in tool.get("functionDeclarations") or []
    ]
    results = [
        _result_text(part["functionResponse"])
        for content in body.get("contents") or []
        for part in content.get("parts") or []
        if "functionResponse" in part
    ]
    return Exchange(API, offered, results)


async def _events(step: Step, body: dict[str, Any]) -> AsyncIterator[bytes]:
    """The stream of a short answer: one event holding the parts, the finish reason and the usage,
    as the API sends a function call (whole, never split) or a few words."""
    yield f"data: {json.dumps(_response(step, body), ensure_ascii=False)}\r\n\r\n".encode()


def _response(step: Step, body: dict[str, Any]) -> dict[str, Any]:
    """A whole `GenerateContentResponse` for `step`."""
    parts: list[dict[str, Any]]
    if isinstance(step, ToolCall):
        parts = [
            {
                "functionCall": {"name": step.tool, "args": step.arguments},
                "thoughtSignature": b64encode(secrets.token_bytes(24)).decode(),
            }
        ]
    else:
        assert isinstance(step, Answer)
        parts = [{"text": step.text}]
    prompt_tokens = len(json.dumps(body)) // 4
    answer_tokens = len(json.dumps(parts)) // 4
    return {
        "candidates": [{"content": {"parts": parts, "role": "model"}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": {
            "promptTokenCount": prompt_tokens,
            "candidatesTokenCount": answer_tokens,
            "totalTokenCount": prompt_tokens + answer_tokens,
        },
        "modelVersion": MODEL_VERSION,
        "responseId": secrets.token_urlsafe(16),
    }


def _result_text(function_response: dict[str, Any]) -> str:
    """A tool result as the model reads it: the harness's `output` text, else the whole response."""
    response = function_response.get("response") or {}
    output = response.get("output")
    if isinstance(output, str) and len(response) == 1:
        return output
    return json.dumps(response, ensure_ascii=False)


def _error(status: int, code: str, message: str) -> JSONResponse:
    return JSONResponse({"error": {"code": status, "message": message, "status": code}}, status_code=status)
