"""The start prompt the owner pastes into their agent: add the server first, then join.

An agent without Romergo's MCP server has none of its tools, and a harness shows the tools it has
under names with its own prefix; the prompt says both before it names the first tool to call.
"""

from __future__ import annotations

from ui.panel.invite import start_prompt

MCP_URL = "https://stories.example/mcp"


def test_the_start_prompt_says_to_add_the_server_before_anything_else():
    prompt = start_prompt("rmg-AbC_123-xyz", MCP_URL)
    add_first = prompt.find(f"its MCP server ({MCP_URL}) must be added to you first")
    assert add_first != -1, prompt
    assert add_first < prompt.find("romergo_join_builder_channel"), prompt


def test_the_start_prompt_names_the_prefixed_tool_names_a_harness_shows():
    prompt = start_prompt("rmg-AbC_123-xyz", MCP_URL, "Chapters 2–3")
    assert "mcp__romergo__romergo_join_builder_channel" in prompt, prompt
    assert "whose name ends with the bare name" in prompt, prompt
    assert "rmg-AbC_123-xyz" in prompt and "The room covers: Chapters 2–3." in prompt, prompt
