"""The story's expression language: precedence, errors that point at the offending
character, type checks against the declared variables, renaming, and fuzzed input that can only
ever parse or fail with an ExpressionError (nothing is ever executed)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from romergo.story.state.evaluate import (
    apply_effects,
    check_condition,
    check_effects,
    evaluate,
    names_in,
    rename,
)
from romergo.story.state.expressions import MAX_DEPTH, ExpressionError, parse_condition, parse_effects

DECLARED = {"has_key": "flag", "courage": "number", "name": "text", "lamp_lit": "flag"}
STATE = {"has_key": True, "courage": 2, "name": "Mara", "lamp_lit": False}


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("has_key and courage >= 2", True),
        ("not has_key or courage > 5", False),
        ("not (has_key or courage > 5)", False),
        ("lamp_lit or has_key and courage == 3", False),  # and binds tighter than or
        ("(lamp_lit or has_key) and courage == 2", True),
        ("courage + 1 - 2 == 1", True),  # left to right
        ("courage - -1 == 3", True),
        ("-courage + 5 == 3", True),
        ('name == "Mara" and name != "Tom"', True),
        ("courage + 0.5 > 2", True),
        ("not not has_key", True),
        ('"say \\"hi\\"" == "say \\"hi\\""', True),
    ],
)
def test_precedence_and_values(source, expected):
    assert evaluate(check_condition(source, DECLARED), STATE) is expected


@pytest.mark.parametrize(
    ("source", "position", "message"),
    [
        ("has_key and", 12, "ends too early"),
        ("courage >= 2 >= 1", 14, "cannot be chained"),
        ("courage = 2", 9, "use '=='"),
        ("has_key && courage", 9, "unexpected character '&'"),
        ("(has_key", 9, "expected ')'"),
        ("has_key)", 8, "unexpected ')'"),
        ('name == "Mara', 9, "no closing quote"),
        ("hass_key", 1, "no variable called 'hass_key'"),
        ("courage and has_key", 1, "'and' joins conditions (true or false), not a number"),
        ("courage + has_key > 1", 11, "'+' needs numbers, not a flag"),
        ('name < "Z"', 1, "'<' needs numbers, not a text"),
        ("courage == has_key", 9, "compares a number with a flag"),
        ("courage + 1", 9, "a condition must be true or false, not a number"),
        ("", 1, "the condition is empty"),
        ("set courage = 1", 1, "'set' cannot stand here"),
    ],
)
def test_errors_point_at_the_offending_part(source, position, message):
    with pytest.raises(ExpressionError) as refused:
        check_condition(source, DECLARED)
    assert message in refused.value.message
    assert str(refused.value).startswith(f"at character {position}:"), str(refused.value)


def test_effects_apply_in_order_and_keep_types():
    effects = check_effects(
        'set courage = courage + 1; set has_key = courage > 2\nset name = "Ada"', DECLARED
    )
    assert apply_effects(effects, STATE) == {"has_key": True, "courage": 3, "name": "Ada", "lamp_lit": False}
    for source, message in (
        ("set courage = true", "'courage' is a number; this sets it to a flag"),
        ("set gold = 1", "no variable called 'gold'"),
        ("courage = 1", "an effect starts with 'set'"),
        ("set courage 1", "expected '='"),
        ("set courage = 1 set has_key = true", "expected ';' between effects"),
        ("set = 1", "'set' needs a variable name"),
        (";;", "no effect given"),
    ):
        with pytest.raises(ExpressionError) as refused:
            check_effects(source, DECLARED)
        assert message in refused.value.message, source


def test_names_and_renaming_touch_only_whole_variable_names():
    source = 'has_key and name == "has_key" and not has_key_two'
    assert names_in(source) == {"has_key", "name", "has_key_two"}
    assert rename(source, "has_key", "found_key") == 'found_key and name == "has_key" and not has_key_two'
    assert rename("set courage = courage + 1", "courage", "nerve") == "set nerve = nerve + 1"


def test_nesting_and_length_are_bounded():
    deep = "(" * (MAX_DEPTH + 5) + "has_key" + ")" * (MAX_DEPTH + 5)
    with pytest.raises(ExpressionError, match="nested more than"):
        parse_condition(deep)
    with pytest.raises(ExpressionError, match="limited to 500 characters"):
        parse_condition("has_key or " * 60 + "has_key")
    with pytest.raises(ExpressionError, match="nested more than"):
        parse_condition("not " * (MAX_DEPTH + 1) + "has_key")


@pytest.mark.parametrize(
    "crafted",
    [
        "__import__('os').system('touch /tmp/pwned')",
        "has_key.__class__",
        "[c for c in ().__class__.__bases__]",
        "lambda: 1",
        "exec",
        "open",
    ],
)
def test_crafted_python_is_refused_or_is_just_an_unknown_name(crafted):
    with pytest.raises(ExpressionError):
        check_condition(crafted, DECLARED)


PIECES = ["and ", "or ", "not ", "set ", "true", "has_key"]
ALPHABET = st.sampled_from([*'abc_ ()=<>!+-;"\\.01289', *PIECES])


@settings(max_examples=400, deadline=None)
@given(st.lists(ALPHABET, max_size=40).map("".join))
def test_fuzzed_input_parses_or_fails_cleanly(source):
    for parse in (parse_condition, parse_effects):
        try:
            parse(source)
        except ExpressionError as error:
            assert 0 <= error.position <= len(source)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=80))
def test_any_text_parses_or_fails_cleanly(source):
    try:
        node = check_condition(source, DECLARED)
    except ExpressionError:
        return
    assert evaluate(node, STATE) in (True, False)


@pytest.mark.parametrize("literal", [str(10**15 + 1), str(2**64), "1" + "0" * 400, "1" + "0" * 400 + ".5"])
def test_a_number_written_past_the_state_range_is_an_error_at_its_place(literal: str):
    with pytest.raises(ExpressionError, match=r"between -10\^15 and 10\^15") as raised:
        parse_condition(f"courage > {literal}")
    assert raised.value.position == len("courage > ")
    assert evaluate(parse_condition(f"courage < {10**15}"), STATE) is True


def test_sums_stop_at_the_ends_of_the_state_range():
    effects = check_effects("set courage = courage + courage + 1", DECLARED)
    state: dict[str, object] = {**STATE, "courage": 10**15}
    assert apply_effects(effects, state)["courage"] == 10**15
    state["courage"] = -(10**15)
    assert apply_effects(effects, state)["courage"] == -(10**15) + 1
    assert evaluate(parse_condition("0 - courage - courage > 0"), state) is True
