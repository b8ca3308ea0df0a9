"""The tool catalogue stays byte-for-byte what agents were promised (CONTRACT.md §1).

`fixtures/tool_catalogue.json` is the listing as it was before the tool seam was refactored:
names, titles, descriptions, input and output schemas, annotations. Any drift fails here; to
change the contract on purpose, regenerate it with `ROMERGO_WRITE_CATALOGUE=1`.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from mcp import Client

from mcp_tools.server import build_server

FIXTURE = Path(__file__).parent / "fixtures" / "tool_catalogue.json"


async def test_the_tool_listing_matches_the_recorded_catalogue(services):
    async with Client(build_server(services)) as client:
        tools = (await client.list_tools()).tools
    listed = [
        {
            "name": tool.name,
            "title": tool.title,
            "description": tool.description,
            "inputSchema": tool.input_schema,
            "outputSchema": tool.output_schema,
            "annotations": tool.annotations and tool.annotations.model_dump(mode="json", by_alias=True),
        }
        for tool in tools
    ]
    text = _canonical(listed)
    if os.environ.get("ROMERGO_WRITE_CATALOGUE") == "1":
        FIXTURE.write_text(text, encoding="utf-8")
    # Compared as text, key order included: the schemas are what clients cache and diff.
    assert text == FIXTURE.read_text(encoding="utf-8")


def _canonical(listed: list[dict[str, Any]]) -> str:
    return json.dumps(listed, ensure_ascii=False, indent=1) + "\n"
