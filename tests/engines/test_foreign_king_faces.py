"""The Foreign King's faces rendered with Jinja: the rules page (its notation examples parse),
the state and board schemas against real views, and the page fragment's words."""

from __future__ import annotations

import random
import re
from html.parser import HTMLParser

import pytest
from flask import render_template

from engines.foreign_king.notation import WORDS
from schemas.foreign_king import BoardSchema, StateSchema
from server import create_app
from server.boards import Board, render_board
from tests.engines.test_foreign_king_support import (
    ENGINE,
    MIDGAME,
    choose,
    finished_game,
    game_object,
)


class NotationExamples(HTMLParser):
    """The texts of the ``<code class="notation">`` elements of a page."""

    def __init__(self) -> None:
        super().__init__()
        self.examples: list[str] = []
        self._inside = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._inside = tag == "code" and ("class", "notation") in attrs
        if self._inside:
            self.examples.append("")

    def handle_endtag(self, tag: str) -> None:
        self._inside = False

    def handle_data(self, data: str) -> None:
        if self._inside:
            self.examples[-1] += data


@pytest.fixture(scope="module")
def rules_page(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The rules page as the site renders it."""
    app = create_app({"TURNPOST_DB": str(tmp_path_factory.mktemp("db") / "t.db"), "TESTING": True})
    with app.test_request_context():
        return render_template("rules/foreign-king.html")


def test_rules_page_examples_parse_and_cover_every_action(rules_page: str) -> None:
    parser = NotationExamples()
    parser.feed(rules_page)
    moves = [ENGINE.parse(example) for example in parser.examples]
    assert {move["action"] for move in moves} == set(WORDS)
    assert [ENGINE.format(move) for move in moves] == parser.examples


def test_rules_page_tells_the_goal_the_turn_the_scoring_and_the_end(rules_page: str) -> None:
    for heading in ("The goal", "A turn", "The King scores a province", "The end"):
        assert f"<h2>{heading}</h2>" in rules_page
    for action in ("Build a factory", "Move citizens", "The Queen", "Turn order"):
        assert f"<strong>{action}</strong>" in rules_page
    assert "{{" not in rules_page and "{%" not in rules_page


# -- schemas against real views ----------------------------------------------------------------
@pytest.mark.parametrize("players", [2, 3, 4])
def test_state_schema_accepts_every_view_of_random_games(players: int) -> None:
    schema = StateSchema()
    for seed in range(3):
        rng = random.Random(seed)
        state = ENGINE.setup(players, {}, seed)
        while True:
            for seat in (None, *range(players)):
                assert schema.validate(ENGINE.view(state, seat)) == {}
            if ENGINE.result(state) is not None:
                break
            seat = ENGINE.to_move(state)[0]
            state = ENGINE.apply(state, seat, choose(rng, ENGINE.legal_moves(state, seat)))


def test_state_schema_refuses_a_view_that_is_not_the_games() -> None:
    view = ENGINE.view(ENGINE.setup(3, {}, 1), None)
    broken = view | {"king": {"at": "paris", "track": 31}, "actions": {"dance": None}}
    errors = StateSchema().validate(broken)
    assert set(errors) == {"king", "actions"}


def test_board_schema_accepts_the_board_data() -> None:
    assert BoardSchema().validate(ENGINE.board_data({})) == {}


# -- the page fragment speaks in words -----------------------------------------------------------
def page_text(html: str) -> str:
    """The words of a page fragment outside its picture (inline tags dropped, others spaces)."""
    html = re.sub(r"<svg.*?</svg>", " ", html, flags=re.S)
    html = re.sub(r"</?(strong|small)>", "", html)
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def test_board_fragment_lists_the_players_in_words() -> None:
    state = ENGINE.from_position(4, {}, 7, MIDGAME)
    html = render_board("html", game_object(state, 3), Board())
    text = page_text(html)
    assert "Dan (to play): 7 francs, 12 points, 1 royal order" in text
    assert "Ann: 4 francs, 9 points, 2 royal orders (1 turned face down for 1 loan)" in text
    assert not re.search(r"[a-z]+_[a-z]+|\bseat\b", text)


def test_board_fragment_after_the_game_shows_the_final_scoring() -> None:
    state, _ = finished_game(2, 5)
    text = page_text(render_board("html", game_object(state), Board()))
    assert "Final scoring" in text and "for the most provinces" in text
    assert "the virtual player" in text and "(wins)" in text
