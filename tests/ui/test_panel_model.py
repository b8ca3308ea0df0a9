"""The panel reads a channel's history into command cards: every step, from the events alone."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from romergo.channels import EventView, MemberView, Summary
from romergo.channels.events import RecordedChange
from ui.panel.model import Conversation, presence

T0 = datetime(2026, 12, 2, 9, 30, tzinfo=UTC)


def event(seq, kind, command_id=None, actor=("agent", "cli_a", "Claude"), **data):
    return EventView(seq, kind, command_id, T0 + timedelta(seconds=seq), actor[0], actor[1], actor[2], data)


OWNER = ("user", "usr_1", "author")


def lifecycle() -> list[EventView]:
    return [
        event(
            1,
            "settings_changed",
            actor=OWNER,
            permissions={"read": True, "edit": True},
            confirmation_mode="none",
        ),
        event(2, "agent_joined", client_id="cli_a", agent_name="Claude"),
        event(
            3,
            "command",
            "cmd_1",
            actor=OWNER,
            text="Replace the music",
            context={},
            in_reply_to=None,
            retry_of=None,
        ),
        event(4, "claimed", "cmd_1", client_id="cli_a", agent_name="Claude", redelivered=False),
        event(5, "status", "cmd_1", text="Looking at the chapter", summary=None),
        event(6, "tool_started", "cmd_1", tool="romergo_set_chapter_music", arguments={}, category="media"),
        event(
            7,
            "tool_finished",
            "cmd_1",
            tool="romergo_set_chapter_music",
            changed=[{"entity_type": "chapter", "entity_id": "chp_1"}],
        ),
        event(8, "reply", "cmd_1", text="Done.", summary={"status": "success", "changed_entities": []}),
        event(
            9,
            "changes_recorded",
            "cmd_1",
            actor=("system", "romergo", "Romergo"),
            changes=[{"entity_type": "chapter", "entity_id": "chp_1"}],
        ),
    ]


def test_a_command_card_tells_the_whole_lifecycle():
    conversation = Conversation()
    changed = conversation.apply(lifecycle())

    [card] = conversation.cards
    assert changed == {"", "cmd_1"}
    assert (card.number, card.text, card.state, card.agent_name) == (1, "Replace the music", "done", "Claude")
    # One line per tool call: "Running" became "Finished" in place.
    assert [s.text for s in card.steps] == [
        "Claimed by Claude",
        "Finished romergo_set_chapter_music (1 changed)",
    ]
    assert card.messages == [("status", "Looking at the chapter"), ("reply", "Done.")]
    assert card.summary == Summary(status="success")
    assert card.recorded == [RecordedChange(entity_type="chapter", entity_id="chp_1")]
    assert [n.text for n in conversation.notices] == [
        "Room settings: read, edit allowed; no confirmations",
        "Claude joined",
    ]
    assert not card.is_open


def test_events_already_seen_are_ignored_so_live_updates_can_overlap():
    conversation = Conversation()
    conversation.apply(lifecycle()[:5])
    conversation.apply(lifecycle())  # a refresh that re-reads from an older cursor
    assert len(conversation.cards) == 1
    assert len(conversation.cards[0].messages) == 2


def test_confirmations_questions_and_endings():
    conversation = Conversation()
    conversation.apply(
        [
            event(
                1, "command", "cmd_1", actor=OWNER, text="Delete the cellar", in_reply_to=None, retry_of=None
            ),
            event(2, "claimed", "cmd_1", agent_name="Claude"),
            event(
                3,
                "confirmation_requested",
                "cmd_1",
                confirmation_id="cnf_1",
                tool="romergo_delete_scene",
                action="Delete scene",
            ),
        ]
    )
    card = conversation.cards[0]
    assert card.state == "needs_confirmation" and list(card.confirmations) == ["cnf_1"]
    conversation.apply(
        [event(4, "confirmation_decided", "cmd_1", actor=OWNER, confirmation_id="cnf_1", decision="reject")]
    )
    assert card.state == "working" and card.confirmations == {}
    conversation.apply([event(5, "question", "cmd_1", text="Which one?", summary=None)])
    assert card.state == "awaiting_answer"
    conversation.apply(
        [
            event(6, "command", "cmd_2", actor=OWNER, text="The cellar", in_reply_to="cmd_1", retry_of=None),
            event(7, "claimed", "cmd_2", agent_name="Claude"),
            event(8, "answered", "cmd_1"),
            event(9, "cancelled", "cmd_2", actor=OWNER),
            event(10, "channel_ended", actor=OWNER, reason="ended"),
        ]
    )
    assert (card.state, conversation.cards[1].state, conversation.cards[1].in_reply_to) == (
        "answered",
        "cancelled",
        "cmd_1",
    )
    assert conversation.cards[1].can_retry
    assert conversation.ended


def member(**overrides) -> MemberView:
    values = dict(
        client_id="cli_a",
        agent_name="Claude",
        joined_at=T0,
        left_at=None,
        last_seen_at=T0,
        polling=False,
        active_command_id=None,
    )
    values.update(overrides)
    return MemberView(**values)


def test_presence_reads_listening_working_and_silence():
    conversation = Conversation()
    conversation.apply(lifecycle()[:4])
    assert presence([], conversation, T0) == "No agent has joined yet"
    assert presence([member(polling=True)], conversation, T0) == "Claude is listening"
    assert presence([member(active_command_id="cmd_1")], conversation, T0) == "Claude is working on #1"
    assert presence([member()], conversation, T0) == "Claude is not listening since 09:30 UTC"


def test_a_running_call_shows_until_it_finishes_and_calls_of_one_tool_pair_up_in_order():
    conversation = Conversation()
    started = lifecycle()[:6]
    conversation.apply(started)
    [card] = conversation.cards
    assert [s.text for s in card.steps][-1] == "Running romergo_set_chapter_music"

    again = event(
        7, "tool_started", "cmd_1", tool="romergo_set_chapter_music", arguments={}, category="media"
    )
    failed = event(
        8,
        "tool_failed",
        "cmd_1",
        tool="romergo_set_chapter_music",
        error_code="invalid_argument",
        message="No.",
    )
    conversation.apply([again, failed])
    texts = [(s.text, s.failed) for s in card.steps]
    assert texts == [
        ("Claimed by Claude", False),
        ("Running romergo_set_chapter_music", False),
        ("Failed romergo_set_chapter_music: No.", True),
    ]


def test_a_call_that_replaced_a_newer_change_is_flagged_in_words_and_one_that_did_not_is_not():
    conversation = Conversation()
    conversation.apply(lifecycle()[:5])
    [card] = conversation.cards

    def replaced(by, entity_type, fields):
        at = T0.isoformat()
        return {"entity_type": entity_type, "entity_id": "x", "by": by, "at": at, "fields": fields}

    calls = [
        ("romergo_update_dialogue_line", [replaced("author", "dialogue_line", ["text", "character_id"])]),
        (
            "romergo_set_choices",
            [replaced("agent cli_b", "scene", ["choices[cho_1].label", "choices[cho_2]"])],
        ),
        ("romergo_update_scene", []),
    ]
    seq = 10
    for tool, changes in calls:
        finished = {"tool": tool, "changed": [{"entity_type": "scene", "entity_id": "scn_1"}]}
        if changes:
            finished["replaced_newer_changes"] = changes
        conversation.apply(
            [
                event(seq, "tool_started", "cmd_1", tool=tool, arguments={}, category="edit"),
                event(seq + 1, "tool_finished", "cmd_1", **finished),
            ]
        )
        seq += 2
    assert [(s.text, s.flagged) for s in card.steps[1:]] == [
        (
            "Finished romergo_update_dialogue_line (1 changed)"
            " · replaced a newer change by you (line text, character)",
            True,
        ),
        (
            "Finished romergo_set_choices (1 changed)"
            " · replaced a newer change by another agent (scene choices)",
            True,
        ),
        ("Finished romergo_update_scene (1 changed)", False),
    ]
