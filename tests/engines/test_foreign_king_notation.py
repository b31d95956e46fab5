"""The Foreign King: notation and move schemas."""

from __future__ import annotations

import pytest
from marshmallow import ValidationError

from engines.base import IllegalMove, NotationError
from schemas.foreign_king import MOVE_SCHEMAS
from schemas.moves import load_move
from tests.engines.test_foreign_king_support import ENGINE, position

EXAMPLES = [
    ("build textile liege", {"action": "build_factory", "kind": "textile", "province": "liege"}),
    ("place namur 3", {"action": "place_citizens", "province": "namur", "count": 3}),
    (
        "move namur: liege | hainaut west-vlaanderen | supply",
        {
            "action": "move_citizens",
            "from": "namur",
            "paths": [["liege"], ["hainaut", "west-vlaanderen"], ["supply"]],
        },
    ),
    ("step namur liege", {"action": "step", "from": "namur", "to": "liege"}),
    ("step namur supply", {"action": "step", "from": "namur", "to": "supply"}),
    ("end", {"action": "end_move"}),
    (
        "queen step namur liege",
        {"action": "queen", "copy": {"action": "step", "from": "namur", "to": "liege"}},
    ),
    ("parliament supply", {"action": "parliament", "from": "supply"}),
    ("parliament namur", {"action": "parliament", "from": "namur"}),
    ("coins", {"action": "take_coins"}),
    ("king namur liege", {"action": "king", "path": ["namur", "liege"]}),
    (
        "queen place namur 3",
        {"action": "queen", "copy": {"action": "place_citizens", "province": "namur", "count": 3}},
    ),
    ("queen turn-order", {"action": "queen", "copy": {"action": "turn_order"}}),
    ("turn-order", {"action": "turn_order"}),
    ("loan", {"action": "loan"}),
    ("repay", {"action": "repay"}),
    ("bring yes", {"action": "bring_parliament", "accept": True}),
    ("bring no", {"action": "bring_parliament", "accept": False}),
    ("deactivate 0", {"action": "deactivate", "factory": 0}),
    ("deactivate none", {"action": "deactivate", "factory": None}),
    (
        "virtual place liege, move liege namur",
        {"action": "virtual", "steps": [{"place": "liege"}, {"move": ["liege", "namur"]}]},
    ),
    ("position 0", {"action": "set_position", "position": 0}),
    ("finish", {"action": "finish"}),
]


@pytest.mark.parametrize(("text", "move"), EXAMPLES)
def test_notation_documented_examples(text, move):
    assert ENGINE.parse(text) == move
    assert ENGINE.format(move) == text


@pytest.mark.parametrize(("text", "move"), EXAMPLES)
def test_every_notation_example_passes_its_move_schema(text, move):
    assert MOVE_SCHEMAS[move["action"]]().load(move) == move


def test_notation_ignores_case_and_extra_spaces():
    assert ENGINE.parse("  PLACE   Namur  3 ") == ENGINE.parse("place namur 3")
    assert ENGINE.parse("move namur:liege|  supply") == {
        "action": "move_citizens",
        "from": "namur",
        "paths": [["liege"], ["supply"]],
    }


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        "pass",
        "build steel liege",
        "build textile",
        "place namur",
        "place namur three",
        "place gent 1",
        "move namur liege",
        "move namur: liege || supply",
        "move: liege",
        "step namur",
        "step namur liege brabant",
        "step supply liege",
        "step namur paris",
        "end now",
        "queen end",
        "parliament",
        "parliament liege namur",
        "coins 3",
        "king",
        "king namur paris",
        "queen queen coins",
        "queen loan",
        "queen bring yes",
        "bring maybe",
        "deactivate first",
        "virtual",
        "virtual place",
        "virtual fly liege",
        "virtual move liege",
        "position",
        "position -1",
        "finish now",
    ],
)
def test_notation_that_is_not_a_move_is_refused(text):
    with pytest.raises(NotationError):
        ENGINE.parse(text)


@pytest.mark.parametrize(
    "move",
    [
        {"action": "loan", "amount": 3},
        {"action": "build_factory", "kind": "steel", "province": "liege"},
        {"action": "place_citizens", "province": "liege", "count": 0},
        {"action": "place_citizens", "province": "liege", "count": "2"},
        {"action": "move_citizens", "from": "namur", "paths": []},
        {"action": "move_citizens", "from": "namur", "paths": [[]]},
        {"action": "move_citizens", "from": "supply", "paths": [["liege"]]},
        {"action": "step", "from": "supply", "to": "liege"},
        {"action": "step", "from": "namur"},
        {"action": "step", "from": "namur", "to": ["liege"]},
        {"action": "step", "from": "namur", "to": "liege", "paths": [["liege"]]},
        {"action": "end_move", "to": "liege"},
        {"action": "queen", "copy": {"action": "end_move"}},
        {"action": "parliament", "from": "gent"},
        {"action": "king", "path": []},
        {"action": "queen", "copy": {"action": "queen", "copy": {"action": "take_coins"}}},
        {"action": "queen", "copy": {"action": "loan"}},
        {"action": "queen", "copy": "coins"},
        {"action": "bring_parliament", "accept": "yes"},
        {"action": "bring_parliament", "accept": 1},
        {"action": "deactivate"},
        {"action": "deactivate", "factory": -1},
        {"action": "virtual", "steps": []},
        {"action": "virtual", "steps": [{}]},
        {"action": "virtual", "steps": [{"place": "liege", "move": ["liege", "namur"]}]},
        {"action": "virtual", "steps": [{"move": ["liege"]}]},
        {"action": "set_position", "position": 4},
        {"action": "finish", "now": True},
        {"action": "turn", "moves": [{"action": "loan"}]},
        {"action": "turn", "moves": [{"action": "loan"}, {"action": "turn", "moves": []}]},
        {"action": "turn", "moves": [{"action": "loan"}, {"action": "fly"}]},
    ],
)
def test_move_schemas_refuse_malformed_moves(move):
    with pytest.raises(ValidationError):
        MOVE_SCHEMAS[move["action"]]().load(move)


def test_move_schemas_cover_every_action():
    assert set(MOVE_SCHEMAS) == {
        "loan",
        "repay",
        "build_factory",
        "place_citizens",
        "move_citizens",
        "step",
        "end_move",
        "parliament",
        "take_coins",
        "king",
        "queen",
        "turn_order",
        "bring_parliament",
        "deactivate",
        "virtual",
        "set_position",
        "finish",
        "turn",
    }


@pytest.mark.parametrize(
    "move",
    [
        {"action": "queen", "copy": {"action": []}},
        {"action": "queen", "copy": {"action": {}}},
        {"action": "queen", "copy": {"action": ["step"], "from": "liege", "to": "namur"}},
    ],
)
def test_queen_copying_an_unhashable_action_is_a_clean_refusal_issue_11(move):
    with pytest.raises(ValidationError) as error:
        load_move("foreign-king", move)
    assert "copy" in error.value.messages
    state = position(4, actions={"take_coins": 1}, to_move=0)
    with pytest.raises(IllegalMove) as refusal:
        ENGINE.apply(state, 0, move)
    assert refusal.value.rule == "queen"
