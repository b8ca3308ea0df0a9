"""The README's agent examples never hand an agent the owner's token variable.

`ROMERGO_TOKEN` is what the owner's `romergo channel` commands read, for a token with the
`control` scope; a user who exported it and then followed an agent example naming the same
variable would give the agent the owner's powers. Every example that sends an agent a bearer token
names `ROMERGO_AGENT_TOKEN`, and each harness the README covers has its block.
"""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"
FENCED = re.compile(r"^\s*```[a-z]*\n(.*?)^\s*```", re.MULTILINE | re.DOTALL)
OWNER_VARIABLE = re.compile(r"\bROMERGO_TOKEN\b")
HANDS_A_TOKEN = re.compile(r"Bearer|bearer_token_env_var|--bearer-token-env-var|demo_agent", re.IGNORECASE)
AGENT_USES_OWNER_VARIABLE = re.compile(
    r"Bearer \$\{?ROMERGO_TOKEN"
    r"|bearer_token_env_var\s*=\s*\"ROMERGO_TOKEN\""
    r"|--bearer-token-env-var[ =]ROMERGO_TOKEN"
    r"|\{env:ROMERGO_TOKEN\}"
    r"|demo_agent[^|\n]*token in `ROMERGO_TOKEN`"
)
HARNESSES = ("**Claude Code**", "**Codex**", "**Gemini CLI**", "**opencode**", "**Claude Desktop**")


def test_every_agent_example_sends_the_agents_own_token_variable():
    examples = [block for block in FENCED.findall(_connect_section()) if HANDS_A_TOKEN.search(block)]
    assert len(examples) >= len(HARNESSES)
    for example in examples:
        assert "ROMERGO_AGENT_TOKEN" in example, example
        assert not OWNER_VARIABLE.search(example), example


def test_nowhere_does_the_readme_give_an_agent_the_owners_variable():
    assert AGENT_USES_OWNER_VARIABLE.findall(README.read_text()) == []


def test_each_harness_has_a_block_with_its_token_variable():
    section = _connect_section()
    starts = sorted((section.index(name), name) for name in HARNESSES)
    for (start, name), (end, _) in zip(starts, [*starts[1:], (len(section), "")], strict=True):
        blocks = FENCED.findall(section[start:end])
        assert blocks, f"{name} has no example"
        assert any("ROMERGO_AGENT_TOKEN" in block for block in blocks), f"{name} has no token example"


def test_the_readme_says_whose_variable_romergo_token_is():
    section = _connect_section()
    assert "ROMERGO_AGENT_TOKEN" in section
    assert re.search(r"`ROMERGO_TOKEN`\W+: that is the owner's variable", section)


def _connect_section() -> str:
    text = README.read_text()
    start = text.index("## Connect your agent")
    return text[start : text.index("\n## ", start + 1)]
