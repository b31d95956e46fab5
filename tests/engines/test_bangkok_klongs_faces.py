"""The Bangkok Klongs rules page: rendered by the app's Jinja, every notation example read by the
engine's parser and written back the same, every action shown."""

from __future__ import annotations

import re
from html import unescape

import pytest
from flask import Flask, render_template

from engines.bangkok_klongs import BangkokKlongsEngine
from schemas.bangkok_klongs import MOVE_SCHEMAS

ENGINE = BangkokKlongsEngine()


@pytest.fixture
def rules(app: Flask) -> str:
    """The rules page as the app renders it."""
    with app.test_request_context():
        return render_template("rules/bangkok-klongs.html")


def examples(page: str) -> list[str]:
    """The text of every ``<code class="notation">`` element."""
    return [unescape(text) for text in re.findall(r'<code class="notation">(.*?)</code>', page)]


def test_rules_page_notation_examples_parse_and_read_back(rules: str) -> None:
    found = examples(rules)
    assert len(found) >= 10
    for text in found:
        move = ENGINE.parse(text)
        assert ENGINE.format(move) == text


def test_rules_page_shows_every_action(rules: str) -> None:
    actions = {ENGINE.parse(text)["action"] for text in examples(rules)}
    assert actions == set(MOVE_SCHEMAS)


def test_rules_page_tells_the_goal_a_turn_the_market_days_and_the_end(rules: str) -> None:
    headings = re.findall(r"<h2>(.*?)</h2>", rules)
    for wanted in ("The goal", "Your turn", "Special boats", "Market days", "Notation"):
        assert wanted in headings
    assert "<title>Bangkok Klongs: how to play - Turnpost</title>" in rules
