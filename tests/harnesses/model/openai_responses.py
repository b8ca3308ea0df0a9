"""The OpenAI Responses API as the stand-in speaks it: `POST /v1/responses` with `stream: true`,
answered with the server-sent events OpenAI sends, in OpenAI's order and shapes.

Codex groups an MCP server's tools in a `namespace` tool (`mcp__romergo`, each function under its
bare name) and takes the call back as a `function_call` item naming that namespace; the script sees
such a tool as `<namespace>__<name>`. For models that can search, Codex offers the namespace only
after a `tool_search` call finds it (BM25 over the tools' names and descriptions, executed by
Codex), so the stand-in first searches for a tool it needs and has not been given, by the words of
its name, as a model would. A tool result comes back as a `function_call_output` item whose
`output` is a string or a list of `input_text` parts (Codex adds its own "Wall time" line first);
the script reads their text joined.
"""

from __future__ import annotations

import itertools
import json
import time
from collections.abc import Iterator
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from tests.harnesses.model.loop import Answer, offered_name
from tests.harnesses.model.standin import Conversation, Exchange

API = "openai-responses"
MODEL = "gpt-5.5"
"""The model Codex is told to use: one Codex knows, so it applies that model's own limits (tool
output truncation, context window) as it would for a user, not the fallback for unknown models."""

_ids = itertools.count(1)


def routes(conversation: Conversation) -> list[Route]:
    async def responses(request: Request) -> Response:
        body = await request.json()
        if not body.get("stream"):
            return JSONResponse({"error": {"message": "the stand-in answers streaming requests only"}}, 400)
        items = body.get("input", [])
        offered = _offered([*body.get("tools", []), *_found_tools(items)])
        exchange = Exchange(API, list(offered), _results(items))
        wanted = _deferred_tool(conversation, exchange, body.get("tools", []))
        if wanted is not None and _query(wanted) in _queries(items):
            wanted = None  # searched once in vain: the script's step then says what is missing
        if wanted is not None:
            conversation.exchanges.append(exchange)
            return StreamingResponse(_stream(_search_events(wanted), body), media_type="text/event-stream")
        step = conversation.answer(exchange)
        events = (
            _answer_events(step)
            if isinstance(step, Answer)
            else _call_events(*offered[step.tool], step.arguments)
        )
        return StreamingResponse(_stream(events, body), media_type="text/event-stream")

    return [Route("/v1/responses", responses, methods=["POST"])]


def _deferred_tool(conversation: Conversation, exchange: Exchange, tools: list[dict[str, Any]]) -> str | None:
    """The Romergo tool the script calls next, when the harness has not loaded it yet but offers
    `tool_search` to find it (Codex defers MCP tools for models that can search)."""
    if conversation.loop is None or not any(tool.get("type") == "tool_search" for tool in tools):
        return None
    step = conversation.loop.step(exchange.results)
    if isinstance(step, Answer):
        return None
    try:
        offered_name(step.tool, exchange.offered)
    except LookupError:
        return step.tool
    return None


def _offered(tools: list[dict[str, Any]]) -> dict[str, tuple[str | None, str]]:
    """Every function the request offers, by the name the script sees: (namespace, name)."""
    offered: dict[str, tuple[str | None, str]] = {}
    for tool in tools:
        if tool.get("type") == "function":
            offered[tool["name"]] = (None, tool["name"])
        elif tool.get("type") == "namespace":
            for inner in tool.get("tools", []):
                offered[f"{tool['name']}__{inner['name']}"] = (tool["name"], inner["name"])
    return offered


def _query(tool: str) -> str:
    return " ".join(tool.split("_"))


def _queries(items: Any) -> list[str]:
    """What earlier `tool_search` calls in the request's input searched for."""
    if not isinstance(items, list):
        return []
    return [item["arguments"].get("query", "") for item in items if item.get("type") == "tool_search_call"]


def _found_tools(items: Any) -> list[dict[str, Any]]:
    """The tools that earlier `tool_search` calls loaded, as the request's input carries them."""
    if not isinstance(items, list):
        return []
    return [
        tool for item in items if item.get("type") == "tool_search_output" for tool in item.get("tools", [])
    ]


def _results(items: Any) -> list[str]:
    """The tool outputs in the request's input, oldest first, as text the model reads."""
    if not isinstance(items, list):
        return []
    return [_text(item["output"]) for item in items if item.get("type") == "function_call_output"]


def _text(output: Any) -> str:
    if isinstance(output, str):
        return output
    return "\n".join(part.get("text", "") for part in output if part.get("type") == "input_text")


def _stream(events: list[tuple[str, dict[str, Any]]], request: dict[str, Any]) -> Iterator[str]:
    """The events of one streamed response, each `event:` line naming its `data:` line's type."""
    response_id = f"resp_{next(_ids):024x}"
    response = _response(response_id, request, "in_progress", [])
    output: list[dict[str, Any]] = []
    sequence = itertools.count()
    for kind, data in [
        ("response.created", {"response": response}),
        ("response.in_progress", {"response": response}),
        *events,
    ]:
        if kind == "response.output_item.done":
            output.append(data["item"])
        yield _event(kind, {"type": kind, "sequence_number": next(sequence), **data})
    completed = _response(response_id, request, "completed", output)
    yield _event(
        "response.completed",
        {"type": "response.completed", "sequence_number": next(sequence), "response": completed},
    )


def _search_events(tool: str) -> list[tuple[str, dict[str, Any]]]:
    """A client-executed `tool_search` call looking for `tool` by the words of its name."""
    item_id, call_id = f"ts_{next(_ids):024x}", f"call_{next(_ids):024x}"
    query = _query(tool)
    item = {
        "id": item_id,
        "type": "tool_search_call",
        "status": "in_progress",
        "execution": "client",
        "call_id": call_id,
        "arguments": {},
    }
    done = {**item, "status": "completed", "arguments": {"query": query}}
    return [
        ("response.output_item.added", {"output_index": 0, "item": item}),
        ("response.output_item.done", {"output_index": 0, "item": done}),
    ]


def _call_events(
    namespace: str | None, name: str, arguments: dict[str, Any]
) -> list[tuple[str, dict[str, Any]]]:
    item_id, call_id = f"fc_{next(_ids):024x}", f"call_{next(_ids):024x}"
    encoded = json.dumps(arguments)
    item = {
        "id": item_id,
        "type": "function_call",
        "status": "in_progress",
        "arguments": "",
        "call_id": call_id,
    }
    item |= {"namespace": namespace, "name": name} if namespace else {"name": name}
    at = {"item_id": item_id, "output_index": 0}
    return [
        ("response.output_item.added", {"output_index": 0, "item": item}),
        ("response.function_call_arguments.delta", {**at, "delta": encoded}),
        ("response.function_call_arguments.done", {**at, "arguments": encoded}),
        (
            "response.output_item.done",
            {"output_index": 0, "item": {**item, "status": "completed", "arguments": encoded}},
        ),
    ]


def _answer_events(answer: Answer) -> list[tuple[str, dict[str, Any]]]:
    item_id = f"msg_{next(_ids):024x}"
    empty = {"type": "output_text", "annotations": [], "logprobs": [], "text": ""}
    part = {**empty, "text": answer.text}
    item = {"id": item_id, "type": "message", "status": "in_progress", "role": "assistant", "content": []}
    at = {"item_id": item_id, "output_index": 0, "content_index": 0}
    return [
        ("response.output_item.added", {"output_index": 0, "item": item}),
        ("response.content_part.added", {**at, "part": empty}),
        ("response.output_text.delta", {**at, "delta": answer.text, "logprobs": []}),
        ("response.output_text.done", {**at, "text": answer.text, "logprobs": []}),
        ("response.content_part.done", {**at, "part": part}),
        (
            "response.output_item.done",
            {"output_index": 0, "item": {**item, "status": "completed", "content": [part]}},
        ),
    ]


def _response(
    response_id: str, request: dict[str, Any], status: str, output: list[dict[str, Any]]
) -> dict[str, Any]:
    """The response object as OpenAI sends it in `response.created` and `response.completed`."""
    done = status == "completed"
    return {
        "id": response_id,
        "object": "response",
        "created_at": int(time.time()),
        "status": status,
        "completed_at": int(time.time()) if done else None,
        "error": None,
        "incomplete_details": None,
        "instructions": request.get("instructions"),
        "max_output_tokens": None,
        "model": request.get("model", MODEL),
        "output": output,
        "parallel_tool_calls": request.get("parallel_tool_calls", True),
        "previous_response_id": None,
        "reasoning": {"effort": None, "summary": None},
        "store": request.get("store", False),
        "temperature": 1.0,
        "text": {"format": {"type": "text"}, "verbosity": "medium"},
        "tool_choice": request.get("tool_choice", "auto"),
        "tools": [],
        "top_p": 1.0,
        "truncation": "disabled",
        "usage": _usage(request) if done else None,
        "user": None,
        "metadata": {},
    }


def _usage(request: dict[str, Any]) -> dict[str, Any]:
    """Token counts of the right order (four characters a token), for the harness's context meter."""
    prompt = len(json.dumps(request.get("input", []))) // 4
    return {
        "input_tokens": prompt,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": 20,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": prompt + 20,
    }


def _event(kind: str, data: dict[str, Any]) -> str:
    return f"event: {kind}\ndata: {json.dumps(data)}\n\n"
