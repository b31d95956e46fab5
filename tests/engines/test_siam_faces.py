"""Siam's faces rendered with Jinja: the rules page (what it teaches; its notation examples are
checked for every game in tests/server/test_rules_pages.py) and the board fragment's words."""

from __future__ import annotations

import re

import pytest
from flask import render_template

from engines.siam import SiamEngine
from server import create_app
from server.boards import Board, render_board

SIAM = SiamEngine()


@pytest.fixture(scope="module")
def rules_page(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The rules page as the site renders it."""
    app = create_app({"TURNPOST_DB": str(tmp_path_factory.mktemp("db") / "t.db"), "TESTING": True})
    with app.test_request_context():
        return render_template("rules/siam.html", engine=SIAM)


def test_rules_page_tells_the_goal_the_turn_the_push_and_the_end(rules_page: str) -> None:
    for heading in ("The goal", "A turn", "Pushing", "The end", "Options"):
        assert f"<h2>{heading}</h2>" in rules_page
    assert "{{" not in rules_page and "{%" not in rules_page


def test_board_fragment_speaks_in_words() -> None:
    state = SIAM.setup(2, SIAM.options({}), 1)
    move = SIAM.parse("enter a1 N")
    state = SIAM.apply(state, 0, move)
    game = {
        "engine": "siam",
        "players": [{"seat": 0, "name": "Ann"}, {"seat": 1, "name": "Bob"}],
        "to_move": [1],
        "result": None,
        "state": SIAM.view(state, None),
    }
    html = render_board("html", game, Board(last=frozenset({"enter", "a1", "N"})))
    text = re.sub(r"<[^>]+>", " ", re.sub(r"<svg.*</svg>", " ", html, flags=re.S))
    assert "Ann" in text and "elephants" in text and "the last move" in text
    assert not re.search(r"[a-z]+_[a-z]+|\bseat\b", text)
