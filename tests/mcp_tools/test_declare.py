"""The declaration seam: a tool's signature is its schema and the guard's arguments."""

from __future__ import annotations

from typing import Annotated, Any

import pytest
from mcp.server.mcpserver.tools import Tool
from mcp.types import ToolAnnotations
from pydantic import BaseModel, Field

from mcp_tools import declare
from mcp_tools.declare import Call, Toolbox, build_tools
from romergo.common.actors import user_actor
from romergo.story.shapes import CharacterEntity

ANNOTATIONS = ToolAnnotations(read_only_hint=False)


class Pick(BaseModel):
    label: str


class Row:
    """Stands in for a stored row: the result model reads its attributes."""

    id = "chr_1"
    project_id = "prj_1"
    name = "Ann"
    color = "#123456"


box = Toolbox()


@box.tool("edit", "Try", "A tool for this test only.", ANNOTATIONS, result=CharacterEntity)
async def try_tool(
    call: Call,
    name: Annotated[str, Field(description="A name.")],
    picks: list[Pick],
    note: str | None = None,
    command_id: str | None = None,
) -> Row:
    assert isinstance(picks[0], Pick)  # the body gets the validated models
    return Row()


@pytest.fixture
def guard_calls(monkeypatch) -> list[dict[str, Any]]:
    seen: list[dict[str, Any]] = []

    async def fake_run_tool(services, spec, arguments, body, ctx=None):
        seen.append({"spec": spec, "arguments": arguments})
        return await body(user_actor("usr_1"))

    monkeypatch.setattr(declare, "run_tool", fake_run_tool)
    return seen


async def test_the_guard_gets_every_argument_as_json_with_defaults_filled_in(services, guard_calls):
    [tool] = build_tools(services, [box])
    result = await tool.fn(ctx=None, name="Ann", picks=[Pick(label="Go")])
    [seen] = guard_calls
    assert seen["spec"].name == "try_tool" and seen["spec"].category == "edit"
    assert seen["arguments"] == {"name": "Ann", "picks": [{"label": "Go"}], "note": None, "command_id": None}
    data = result.structured_content["untrusted_content"]["data"]
    assert data == {
        "entity_type": "character",
        "id": "chr_1",
        "project_id": "prj_1",
        "name": "Ann",
        "color": "#123456",
    }


def test_the_schema_comes_from_the_signature_without_the_call_and_the_context(services):
    [tool] = build_tools(services, [box])
    assert list(tool.parameters["properties"]) == ["name", "picks", "note", "command_id"]
    assert tool.parameters["required"] == ["name", "picks"]
    assert tool.context_kwarg == "ctx"
    assert "untrusted_content" in (tool.output_schema or {})["properties"]


def test_text_arguments_keep_the_text_they_were_sent(services):
    [tool] = build_tools(services, [box])
    parsed = tool.fn_metadata.pre_parse_json({"name": "x", "note": "null", "picks": '[{"label": "Go"}]'})
    assert parsed["note"] == "null"
    assert parsed["picks"] == [{"label": "Go"}]


def test_a_tool_call_validates_its_arguments_through_the_text_keeping_step(services):
    """The SDK's own argument validation (what `Tool.run` calls) still goes through `pre_parse_json`:
    if a release renames or bypasses it, this fails, not an agent's dialogue line reading `null`."""
    [tool] = build_tools(services, [box])
    validated = tool.fn_metadata.validate_arguments({"name": "x", "note": "null", "picks": [{"label": "Go"}]})
    assert validated["note"] == "null"


def test_the_sdk_alone_still_reads_optional_text_as_json():
    """Why the text-keeping step exists (modelcontextprotocol/python-sdk#3055). When this fails, the
    SDK keeps optional text as text by itself and `declare._TextKeepingMetadata` can be removed."""

    def plain(note: str | None = None) -> str:
        return note or ""

    sdk_tool = Tool.from_function(plain)
    assert sdk_tool.fn_metadata.validate_arguments({"note": "null"})["note"] is None
