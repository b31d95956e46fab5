"""King of Siam's faces for clients: the state and board schemas against real views, the
board data, and the maps as the board templates draw them."""

from __future__ import annotations

from typing import Any

import pytest

from engines.king_of_siam import KingOfSiamEngine
from engines.king_of_siam.board import MAPS, get_board
from schemas.king_of_siam import BoardSchema, StateSchema
from server.boards import environment
from server.i18n import template_words
from tests.engines.test_king_of_siam_words import random_states

ENGINE = KingOfSiamEngine()


@pytest.fixture(scope="module")
def games() -> list[list[dict[str, Any]]]:
    """Every state of three random games, with 2, 3 and 4 players."""
    return [random_states(players, seed) for players, seed in ((2, 11), (3, 12), (4, 13))]


# -- schemas --------------------------------------------------------------------------
def test_state_schema_accepts_every_view_of_random_games(games: list[list[dict]]) -> None:
    schema = StateSchema()
    for states in games:
        for state in states:
            for seat in (None, *range(len(state["players"]))):
                assert schema.validate(ENGINE.view(state, seat)) == {}


@pytest.mark.parametrize(
    "change, field",
    [
        (lambda view: view["provinces"]["korat"].update(control="french"), "provinces"),
        (lambda view: view.update(hand=["joker"]), "hand"),
        (lambda view: view.pop("pool"), "pool"),
        (lambda view: view["players"][0].update(cards_left=9), "players"),
        (lambda view: view.update(pending={"seat": 0, "kind": "dance"}), "pending"),
    ],
)
def test_state_schema_refuses_a_broken_view(change: Any, field: str) -> None:
    view = ENGINE.view(ENGINE.setup(3, {}, 1), 0)
    change(view)
    assert field in StateSchema().validate(view)


def test_board_data_is_the_map_and_fits_its_schema() -> None:
    data = ENGINE.board_data({})
    assert BoardSchema().validate(data) == {}
    board = get_board("siam-1874")
    assert [p["key"] for p in data["provinces"]] == list(board.provinces)
    assert {p["key"]: p["name"] for p in data["provinces"]} == board.names
    assert {p["key"]: set(p["neighbours"]) for p in data["provinces"]} == board.adjacent
    assert data["homes"] == board.homes and data["colony_at"] == 4
    assert [c["name"] for c in data["cards"]] == [
        "Maharacha",
        "Khon Thai",
        "1 vs 1",
        "2 vs 1",
        "Rama",
        "Lao",
        "Malay",
    ]
    assert sum(c["copies"] for c in data["cards"]) == 8
    assert data["followers"] == {"2": 16, "3": 18, "4": 18}


def test_board_data_of_an_unknown_map_is_refused() -> None:
    with pytest.raises(ValueError):
        ENGINE.board_data({"map": "atlantis"})


# -- the drawn map ------------------------------------------------------------------------
def drawings() -> dict[str, Any]:
    """The maps as the board templates draw them (the partial's exported data; its names
    are words, so the module is made with a language's words)."""
    partial = environment().get_template("boards/_king-of-siam.svg")
    return partial.make_module(template_words("en")).maps


@pytest.mark.parametrize("name", sorted(MAPS))
def test_every_map_is_drawn_with_its_names(name: str) -> None:
    drawing = drawings()[name]
    board = get_board(name)
    assert drawing["names"] == board.names
    assert set(drawing["rings"]) == set(board.provinces)
    assert {home: faction for faction, home in drawing["home_of"].items()} == {
        home: faction for faction, home in board.homes.items()
    }


@pytest.mark.parametrize("name", sorted(MAPS))
def test_provinces_that_share_a_drawn_border_are_exactly_the_neighbours(name: str) -> None:
    drawing = drawings()[name]
    sides: dict[str, set[str]] = {}
    for province, ring in drawing["rings"].items():
        for ref in ring:
            sides.setdefault(ref.rstrip("~"), set()).add(province)
    drawn = {frozenset(pair) for pair in sides.values() if len(pair) == 2}
    assert all(len(pair) <= 2 for pair in sides.values())
    assert drawn == {frozenset(pair) for pair in MAPS[name]["borders"]}


@pytest.mark.parametrize("name", sorted(MAPS))
def test_each_province_outline_is_a_closed_ring(name: str) -> None:
    drawing = drawings()[name]
    for province, ring in drawing["rings"].items():
        lines = [
            drawing["borders"][ref[:-1]][::-1] if ref.endswith("~") else drawing["borders"][ref]
            for ref in ring
        ]
        joints = zip(lines, lines[1:] + lines[:1], strict=True)
        assert all(line[-1] == following[0] for line, following in joints), province


@pytest.mark.parametrize("name", sorted(MAPS))
def test_province_names_are_drawn_north_to_south_in_map_order(name: str) -> None:
    # The guided form asks a faction card's two provinces in map order and says "the
    # northern province first": on the picture, that must be true.
    heights = [drawings()[name]["at"][province][1] for province in MAPS[name]["provinces"]]
    assert heights == sorted(heights)
