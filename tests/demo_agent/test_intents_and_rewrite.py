"""The demo agent's fixed rules: which words pick which action, and the deterministic rewrite."""

from __future__ import annotations

import pytest

from demo_agent.intents import Intent, classify
from demo_agent.rewrite import rewrite, rewrite_span
from demo_agent.session import mcp_url


@pytest.mark.parametrize(
    ("text", "intent"),
    [
        ("Describe this scene", Intent.DESCRIBE),
        ("replace the music in this chapter", Intent.MUSIC),
        ("Rewrite the selected dialogue", Intent.REWRITE),
        ("put a different background here", Intent.BACKGROUND),
        ("check the transition logic", Intent.CHECK_TRANSITIONS),
        ("Why does this scene not work as expected?", Intent.EXPLAIN),
        ("explain the problem", Intent.EXPLAIN),
        ("Rewrite this line, the music is fine", Intent.REWRITE),
        ("make me a sandwich", Intent.UNKNOWN),
        ("", Intent.UNKNOWN),
    ],
)
def test_keywords_pick_the_action(text, intent):
    assert classify(text) == intent


def test_the_rewrite_is_deterministic_and_visible():
    original = "The old man said the sea was very cold."
    once = rewrite(original)
    assert once == rewrite(original)
    assert once == "The ancient man whispered the restless sea was truly bitter!"
    assert rewrite("Hmm") == "Hmm!"
    assert rewrite("Wait!") == "Wait…"  # never returns the text unchanged


def test_only_the_selected_span_changes_and_offsets_are_code_points():
    line = "नमस्ते 👩‍👩‍👧 — the old door creaks."
    start = line.index("the old door")
    end = start + len("the old door")
    result = rewrite_span(line, start, end)
    assert result.startswith("नमस्ते 👩‍👩‍👧 — ")
    assert result.endswith("— the ancient gate creaks.")  # inside the line: words swapped, sentence kept


def test_a_selection_cutting_a_word_is_widened_and_never_split():
    line = "Beneath the lighthouse, a cellar nobody mentioned."
    assert rewrite_span(line, 0, 10) == "Far below the lighthouse, a cellar nobody mentioned."
    assert rewrite_span("Plain words here and more.", 0, 5) == "Plain… words here and more."
    assert rewrite_span(line, 26, len(line)) == "Beneath the lighthouse, a cellar nobody spoke of!"


def test_the_server_url_may_be_the_base_or_the_endpoint():
    assert mcp_url("http://127.0.0.1:8080") == "http://127.0.0.1:8080/mcp"
    assert mcp_url("http://127.0.0.1:8080/mcp/") == "http://127.0.0.1:8080/mcp"
